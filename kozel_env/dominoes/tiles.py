"""The double-six set (seed 000 §1): 28 tiles ``00``..``66``, ids, pips, suits and notation.

Tile ids run ``00 01 .. 06 11 12 .. 66`` (smaller half first, RULES notation). A hand or a set of played
tiles is an int bitmask over the 28 ids. Tables are computed once at import.
"""
from __future__ import annotations

from ..core.bits import bits
from ..core.errors import KozelError

NUM_TILES = 28
NUM_NUMBERS = 7
TILES = tuple((a, b) for a in range(7) for b in range(a, 7))
TILE_ID = {}
for _i, (_a, _b) in enumerate(TILES):
    TILE_ID[(_a, _b)] = TILE_ID[(_b, _a)] = _i
LOW = tuple(a for a, _ in TILES)
HIGH = tuple(b for _, b in TILES)
PIPS = tuple(a + b for a, b in TILES)
IS_DOUBLE = tuple(a == b for a, b in TILES)
DOUBLE = tuple(TILE_ID[(n, n)] for n in range(7))
DOUBLES_MASK = sum(1 << d for d in DOUBLE)
SUIT = tuple(sum(1 << i for i, (a, b) in enumerate(TILES) if n in (a, b)) for n in range(7))
"""SUIT[n]: the 7 tiles carrying number n (seed 000 §1; the double belongs to one suit)."""
ALL_TILES = (1 << NUM_TILES) - 1
# OTHER[t][n]: the free number after laying tile t against an end showing n (-1 if t does not carry n).
OTHER = tuple(tuple((b if a == n else a) if n in (a, b) else -1 for n in range(7)) for a, b in TILES)
# Pip sums of every 14-bit half mask, so a hand total is two lookups.
_HALF = 1 << 14
PIPS_LO = tuple(sum(PIPS[i] for i in range(14) if m >> i & 1) for m in range(_HALF))
PIPS_HI = tuple(sum(PIPS[14 + i] for i in range(14) if m >> i & 1) for m in range(_HALF))


def pip_total(mask: int) -> int:
    """Plain pip total of a set of tiles (``00`` = 0, ``66`` = 12)."""
    return PIPS_LO[mask & 0x3FFF] + PIPS_HI[mask >> 14]


def tile_str(t: int) -> str:
    a, b = TILES[t]
    return f"{a}{b}"


def tiles_str(mask: int) -> str:
    return " ".join(tile_str(t) for t in bits(mask))


def parse_tile(text: str) -> int:
    t = text.strip()
    if len(t) != 2 or not t.isdigit() or max(t) > "6":
        raise KozelError(f"not a tile: {text!r} (two digits 0-6, e.g. '35', '00')")
    return TILE_ID[(int(t[0]), int(t[1]))]


def parse_tiles(text) -> int:
    """``"00 35 66"`` (or a list of tile strings) -> bitmask; repeated tiles are an error."""
    toks = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    mask = 0
    for tok in toks:
        t = parse_tile(str(tok))
        if mask >> t & 1:
            raise KozelError(f"tile {tok} given twice in {text!r}")
        mask |= 1 << t
    return mask
