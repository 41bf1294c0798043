"""A small raster toolkit on numpy alone: the pictures of ``render_mode="rgb_array"`` are drawn with it.

An image is an ``np.ndarray`` of shape ``(H, W, 3)``, dtype ``uint8`` (PettingZoo's ``rgb_array``
convention). Everything here draws *into* such an array, clipped at its borders:

* :func:`fill_rect` / :func:`outline_rect` (optionally with rounded corners), :func:`fill_circle`;
* :func:`paint` (a boolean mask in one colour) and :func:`blit` (an RGB sprite, optionally masked): the
  pictures build cards and tiles once as sprites (cached by their callers) and copy them;
* a built-in proportional bitmap font, 5 columns by 7 rows for capitals and digits with two rows of
  descenders (:data:`GLYPHS`), scaled by an integer: :func:`draw_text`, :func:`text_width`;
* the four card suits as masks of any size (:func:`suit_mask`), small ones from hand-drawn bitmaps;
* a PNG writer in pure Python (``zlib`` + ``struct``): :func:`png_bytes`, :func:`write_png`.

Masks of text, rounded rectangles, circles and suits are cached, so a frame is mostly slice copies.
"""
from __future__ import annotations

import struct
import zlib
from functools import lru_cache

import numpy as np

# --------------------------------------------------------------------------------------------- basics


@lru_cache(maxsize=16)
def _plain(h: int, w: int, color: tuple) -> np.ndarray:
    img = np.empty((h, w, 3), np.uint8)
    img[:, :] = np.array(color, np.uint8)
    img.setflags(write=False)
    return img


def canvas(h: int, w: int, color) -> np.ndarray:
    """A new ``(h, w, 3)`` uint8 image filled with ``color`` (a copy of a cached plain image)."""
    return _plain(h, w, tuple(int(c) for c in color)).copy()


def _clip(img: np.ndarray, x: int, y: int, w: int, h: int):
    """Slices of the image and of a ``(h, w)`` object placed at ``(x, y)``; None if nothing is visible."""
    H, W = img.shape[:2]
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + w, W), min(y + h, H)
    if x0 >= x1 or y0 >= y1:
        return None
    return (slice(y0, y1), slice(x0, x1)), (slice(y0 - y, y1 - y), slice(x0 - x, x1 - x))


_INDEX: dict = {}


def _index(mask: np.ndarray):
    """``(mask, ink, holes)``: the True and the False pixels of ``mask`` as index arrays, kept for the
    masks drawn again and again (the entry holds the mask, so its id cannot be reused while cached)."""
    e = _INDEX.get(id(mask))
    if e is None or e[0] is not mask:
        if len(_INDEX) > 8192:
            _INDEX.clear()
        e = _INDEX[id(mask)] = (mask, np.nonzero(mask), np.nonzero(~mask))
    return e


def _inside(img: np.ndarray, x: int, y: int, w: int, h: int) -> bool:
    return x >= 0 and y >= 0 and x + w <= img.shape[1] and y + h <= img.shape[0]


def paint(img: np.ndarray, x: int, y: int, mask: np.ndarray, color) -> None:
    """Set the pixels of boolean ``mask`` (placed with its top-left corner at ``(x, y)``) to ``color``."""
    h, w = mask.shape
    if _inside(img, x, y, w, h):
        _m, ink, holes = _index(mask)
        region = img[y:y + h, x:x + w]
        if len(holes[0]) * 4 < len(ink[0]):  # mostly ink (a rounded box): fill, then put the holes back
            keep = region[holes]
            region[...] = color
            region[holes] = keep
        else:
            region[ink] = color
        return
    c = _clip(img, x, y, w, h)
    if c is None:
        return
    dst, src = c
    img[dst][mask[src]] = color


def blit(img: np.ndarray, x: int, y: int, sprite: np.ndarray, mask: np.ndarray | None = None) -> None:
    """Copy the RGB ``sprite`` to ``(x, y)``; with ``mask`` only its True pixels."""
    h, w = sprite.shape[:2]
    if _inside(img, x, y, w, h):
        region = img[y:y + h, x:x + w]
        if mask is None:
            region[...] = sprite
            return
        _m, ink, holes = _index(mask)
        if len(holes[0]) * 4 < len(ink[0]):  # a card or a tile: only its rounded corners are holes
            keep = region[holes]
            region[...] = sprite
            region[holes] = keep
        else:
            region[ink] = sprite[ink]
        return
    c = _clip(img, x, y, w, h)
    if c is None:
        return
    dst, src = c
    if mask is None:
        img[dst] = sprite[src]
    else:
        np.copyto(img[dst], sprite[src], where=mask[src][:, :, None])


@lru_cache(maxsize=512)
def rounded_mask(w: int, h: int, radius: int) -> np.ndarray:
    """Boolean ``(h, w)`` mask of a rectangle with corners rounded by ``radius`` pixels."""
    m = np.ones((h, w), bool)
    r = max(0, min(radius, w // 2, h // 2))
    if r:
        yy, xx = np.mgrid[0:r, 0:r]
        # distance from the corner circle's centre, measured at pixel centres
        inside = (xx + 0.5 - r) ** 2 + (yy + 0.5 - r) ** 2 <= r * r
        m[:r, :r] = inside
        m[:r, w - r:] = inside[:, ::-1]
        m[h - r:, :r] = inside[::-1, :]
        m[h - r:, w - r:] = inside[::-1, ::-1]
    m.setflags(write=False)
    return m


def fill_rect(img: np.ndarray, x: int, y: int, w: int, h: int, color, radius: int = 0) -> None:
    """A filled rectangle, top-left ``(x, y)``, ``w`` by ``h`` pixels, corners rounded by ``radius``."""
    if w <= 0 or h <= 0:
        return
    if radius <= 0:
        c = _clip(img, x, y, w, h)
        if c is not None:
            img[c[0]] = color
        return
    paint(img, x, y, rounded_mask(w, h, radius), color)


@lru_cache(maxsize=512)
def _outline_mask(w: int, h: int, thickness: int, radius: int) -> np.ndarray:
    outer = rounded_mask(w, h, radius)
    t = thickness
    m = outer.copy()
    if w > 2 * t and h > 2 * t:
        m[t:h - t, t:w - t] &= ~rounded_mask(w - 2 * t, h - 2 * t, max(0, radius - t))
    m.setflags(write=False)
    return m


def outline_rect(img: np.ndarray, x: int, y: int, w: int, h: int, color, thickness: int = 1,
                 radius: int = 0) -> None:
    """The border of a rectangle, ``thickness`` pixels wide, inside the ``w`` by ``h`` box."""
    if w <= 0 or h <= 0:
        return
    paint(img, x, y, _outline_mask(w, h, thickness, radius), color)


@lru_cache(maxsize=128)
def disc_mask(r: float) -> np.ndarray:
    """Boolean mask of a disc of radius ``r``: a ``(2k+1, 2k+1)`` square, ``k = ceil(r)``."""
    k = int(np.ceil(r))
    yy, xx = np.mgrid[-k:k + 1, -k:k + 1]
    m = xx * xx + yy * yy <= r * r + 0.25
    m.setflags(write=False)
    return m


def fill_circle(img: np.ndarray, cx: int, cy: int, r: float, color) -> None:
    """A filled disc centred on pixel ``(cx, cy)``."""
    m = disc_mask(float(r))
    k = m.shape[0] // 2
    paint(img, cx - k, cy - k, m, color)


# ----------------------------------------------------------------------------------------------- font
# Proportional 5x7 font: capitals and digits use rows 0-6 (the baseline is under row 6), lower case has
# its x-height at rows 2-6 and descenders at rows 7-8. Each glyph is written as rows of "#" (ink) and
# "." (paper), separated by spaces; blank columns at the sides are trimmed, so "i" or "1" are narrow.

CELL_H = 9
"""Rows of a glyph cell (7 above the baseline, 2 of descenders); a line of text is ``CELL_H * scale`` high."""
CAP_H = 7
SPACE_W = 3

_GLYPH_SRC = {
    "A": ".###. #...# #...# ##### #...# #...# #...#",
    "B": "####. #...# #...# ####. #...# #...# ####.",
    "C": ".###. #...# #.... #.... #.... #...# .###.",
    "D": "####. #...# #...# #...# #...# #...# ####.",
    "E": "##### #.... #.... ####. #.... #.... #####",
    "F": "##### #.... #.... ####. #.... #.... #....",
    "G": ".###. #...# #.... #.### #...# #...# .####",
    "H": "#...# #...# #...# ##### #...# #...# #...#",
    "I": "### .#. .#. .#. .#. .#. ###",
    "J": "..### ...#. ...#. ...#. ...#. #..#. .##..",
    "K": "#...# #..#. #.#.. ##... #.#.. #..#. #...#",
    "L": "#.... #.... #.... #.... #.... #.... #####",
    "M": "#...# ##.## #.#.# #.#.# #...# #...# #...#",
    "N": "#...# #...# ##..# #.#.# #..## #...# #...#",
    "O": ".###. #...# #...# #...# #...# #...# .###.",
    "P": "####. #...# #...# ####. #.... #.... #....",
    "Q": ".###. #...# #...# #...# #.#.# #..#. .##.#",
    "R": "####. #...# #...# ####. #.#.. #..#. #...#",
    "S": ".#### #.... #.... .###. ....# ....# ####.",
    "T": "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..",
    "U": "#...# #...# #...# #...# #...# #...# .###.",
    "V": "#...# #...# #...# #...# #...# .#.#. ..#..",
    "W": "#...# #...# #...# #.#.# #.#.# #.#.# .#.#.",
    "X": "#...# #...# .#.#. ..#.. .#.#. #...# #...#",
    "Y": "#...# #...# .#.#. ..#.. ..#.. ..#.. ..#..",
    "Z": "##### ....# ...#. ..#.. .#... #.... #####",
    "a": "..... ..... .###. ....# .#### #...# .####",
    "b": "#.... #.... ####. #...# #...# #...# ####.",
    "c": "..... ..... .###. #.... #.... #.... .###.",
    "d": "....# ....# .#### #...# #...# #...# .####",
    "e": "..... ..... .###. #...# ##### #.... .###.",
    "f": "..## .#.. #### .#.. .#.. .#.. .#..",
    "g": "..... ..... .#### #...# #...# #...# .#### ....# .###.",
    "h": "#.... #.... ####. #...# #...# #...# #...#",
    "i": "# . # # # # #",
    "j": "..# ... ..# ..# ..# ..# ..# #.# .#.",
    "k": "#... #... #..# #.#. ##.. #.#. #..#",
    "l": "##. .#. .#. .#. .#. .#. ###",
    "m": "..... ..... ##.#. #.#.# #.#.# #.#.# #.#.#",
    "n": "..... ..... ####. #...# #...# #...# #...#",
    "o": "..... ..... .###. #...# #...# #...# .###.",
    "p": "..... ..... ####. #...# #...# #...# ####. #.... #....",
    "q": "..... ..... .#### #...# #...# #...# .#### ....# ....#",
    "r": "..... ..... #.##. ##..# #.... #.... #....",
    "s": "..... ..... .#### #.... .###. ....# ####.",
    "t": ".#.. .#.. #### .#.. .#.. .#.. ..##",
    "u": "..... ..... #...# #...# #...# #..## .##.#",
    "v": "..... ..... #...# #...# #...# .#.#. ..#..",
    "w": "..... ..... #...# #...# #.#.# #.#.# .#.#.",
    "x": "..... ..... #...# .#.#. ..#.. .#.#. #...#",
    "y": "..... ..... #...# #...# #...# #...# .#### ....# .###.",
    "z": "..... ..... ##### ...#. ..#.. .#... #####",
    "0": ".###. #...# #..## #.#.# ##..# #...# .###.",
    "1": ".#. ##. .#. .#. .#. .#. ###",
    "2": ".###. #...# ....# ...#. ..#.. .#... #####",
    "3": "####. ....# ....# .###. ....# ....# ####.",
    "4": "...#. ..##. .#.#. #..#. ##### ...#. ...#.",
    "5": "##### #.... ####. ....# ....# #...# .###.",
    "6": "..##. .#... #.... ####. #...# #...# .###.",
    "7": "##### ....# ...#. ..#.. .#... .#... .#...",
    "8": ".###. #...# #...# .###. #...# #...# .###.",
    "9": ".###. #...# #...# .#### ....# ...#. .##..",
    ":": ". . # . . # .",
    ".": ". . . . . . #",
    ",": ".. .. .. .. .. .# .# #.",
    ";": ".. .. .# .. .. .# .# #.",
    "_": "..... ..... ..... ..... ..... ..... ..... #####",
    "-": ".... .... .... #### .... .... ....",
    "+": "..... ..#.. ..#.. ##### ..#.. ..#.. .....",
    "*": "..... #.#.# .###. ##### .###. #.#.# .....",
    "/": "....# ....# ...#. ..#.. .#... #.... #....",
    "(": "..# .#. #.. #.. #.. .#. ..#",
    ")": "#.. .#. ..# ..# ..# .#. #..",
    "[": "### #.. #.. #.. #.. #.. ###",
    "]": "### ..# ..# ..# ..# ..# ###",
    "|": "# # # # # # # # #",
    "#": ".#.#. .#.#. ##### .#.#. ##### .#.#. .#.#.",
    "?": ".###. #...# ....# ...#. ..#.. ..... ..#..",
    "!": "# # # # # . #",
    "=": ".... .... #### .... #### .... ....",
    "'": "# # . . . . .",
    "%": "##... ##..# ...#. ..#.. .#... #..## ...##",
    "<": "...# ..#. .#.. #... .#.. ..#. ...#",
    ">": "#... .#.. ..#. ...# ..#. .#.. #...",
}

CHARSET = "".join(sorted(_GLYPH_SRC)) + " "
"""Every character :func:`draw_text` can draw."""


def _parse_glyph(src: str) -> np.ndarray:
    rows = src.split()
    w = max(len(r) for r in rows)
    g = np.zeros((CELL_H, w), bool)
    for i, row in enumerate(rows):
        for j, ch in enumerate(row):
            g[i, j] = ch == "#"
    cols = np.flatnonzero(g.any(axis=0))
    return g[:, cols[0]:cols[-1] + 1] if len(cols) else np.zeros((CELL_H, 1), bool)


GLYPHS = {ch: _parse_glyph(src) for ch, src in _GLYPH_SRC.items()}
GLYPHS[" "] = np.zeros((CELL_H, SPACE_W), bool)
for _g in GLYPHS.values():
    _g.setflags(write=False)


def _check_text(s: str) -> None:
    missing = sorted({ch for ch in s if ch not in GLYPHS})
    if missing:
        raise ValueError(f"the built-in font has no glyph for {''.join(missing)!r} (in {s!r}); "
                         f"it draws {CHARSET!r}")


@lru_cache(maxsize=4096)
def text_mask(s: str, scale: int = 1) -> np.ndarray:
    """Boolean mask of ``s`` in the built-in font: ``CELL_H * scale`` rows; one blank column between
    glyphs. Raises ValueError on a character the font lacks (see :data:`CHARSET`)."""
    _check_text(s)
    if not s:
        return np.zeros((CELL_H * scale, 0), bool)
    parts = []
    gap = np.zeros((CELL_H, 1), bool)
    for i, ch in enumerate(s):
        if i:
            parts.append(gap)
        parts.append(GLYPHS[ch])
    m = np.concatenate(parts, axis=1)
    if scale > 1:
        m = np.repeat(np.repeat(m, scale, axis=0), scale, axis=1)
    m.setflags(write=False)
    return m


def text_width(s: str, scale: int = 1) -> int:
    return text_mask(s, scale).shape[1]


@lru_cache(maxsize=4096)
def text_sprite(s: str, scale: int, color: tuple, bg: tuple) -> np.ndarray:
    """RGB image of ``s`` in ``color`` on ``bg`` (what :func:`draw_text` copies when it knows the
    background)."""
    m = text_mask(s, scale)
    img = canvas(m.shape[0], m.shape[1], bg)
    img[m] = color
    img.setflags(write=False)
    return img


def draw_text(img: np.ndarray, x: int, y: int, s: str, color, scale: int = 1, align: str = "left",
              bg=None) -> int:
    """Draw ``s`` with the top of its cell at ``y``; ``align`` "left" (``x`` is the left edge), "center"
    or "right". With ``bg`` (the colour under the text) the cell is copied whole, which is faster.
    Returns the width in pixels."""
    m = text_mask(s, scale)
    w = m.shape[1]
    if align == "center":
        x -= w // 2
    elif align == "right":
        x -= w
    if bg is None:
        paint(img, x, y, m, color)
    else:
        blit(img, x, y, text_sprite(s, scale, tuple(color), tuple(bg)))
    return w


def fit_text(s: str, max_w: int, scale: int = 1) -> str:
    """``s``, shortened with ".." at the end if it is wider than ``max_w`` pixels."""
    if text_width(s, scale) <= max_w:
        return s
    while s and text_width(s + "..", scale) > max_w:
        s = s[:-1]
    return s.rstrip() + ".."


# ---------------------------------------------------------------------------------------------- suits
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
"""Suit indices, as in :mod:`kozel_env.cards.deck` (``C D H S``)."""

_SMALL_SUITS = {  # 7x7 bitmaps for the smallest sizes, where a computed shape turns into a blob
    CLUBS: "..###.. ..###.. ##.#.## ####### ##.#.## ...#... ..###..",
    DIAMONDS: "...#... ..###.. .#####. ####### .#####. ..###.. ...#...",
    HEARTS: ".##.##. ####### ####### .#####. ..###.. ...#... .......",
    SPADES: "...#... ..###.. .#####. ####### ####### ...#... ..###..",
}


def _small_suit(suit: int) -> np.ndarray:
    rows = _SMALL_SUITS[suit].split()
    return np.array([[ch == "#" for ch in r] for r in rows], bool)


@lru_cache(maxsize=64)
def suit_mask(suit: int, size: int) -> np.ndarray:
    """Boolean ``(size, size)`` mask of a suit symbol (0 clubs, 1 diamonds, 2 hearts, 3 spades).
    Sizes under 10 use the hand-drawn 7x7 bitmaps (nearest-neighbour scaled); larger ones are computed
    from circles and triangles, 4x supersampled."""
    if size < 10:
        g = _small_suit(suit)
        idx = (np.arange(size) * 7) // size
        m = g[idx][:, idx]
        m.setflags(write=False)
        return m
    ss = 4
    n = size * ss
    c = (np.arange(n) + 0.5) / n  # 0..1 across the box
    yy, xx = np.meshgrid(c, c, indexing="ij")
    x = xx - 0.5
    if suit == DIAMONDS:
        ink = np.abs(x) / 0.40 + np.abs(yy - 0.5) / 0.5 <= 1.0
    elif suit == HEARTS:
        r = 0.25
        lobes = ((x + 0.235) ** 2 + (yy - 0.30) ** 2 <= r * r) | ((x - 0.235) ** 2 + (yy - 0.30) ** 2 <= r * r)
        tip = (yy >= 0.30) & (yy <= 0.95) & (np.abs(x) <= 0.48 * (0.95 - yy) / 0.65)
        ink = lobes | tip
    elif suit == SPADES:
        r = 0.23
        lobes = ((x + 0.22) ** 2 + (yy - 0.58) ** 2 <= r * r) | ((x - 0.22) ** 2 + (yy - 0.58) ** 2 <= r * r)
        tip = (yy <= 0.60) & (yy >= 0.02) & (np.abs(x) <= 0.45 * (yy - 0.02) / 0.58)
        stem = (np.abs(x) <= 0.05 + 0.25 * np.clip(yy - 0.70, 0, None)) & (yy >= 0.6) & (yy <= 0.98)
        ink = lobes | tip | stem
    else:  # clubs
        r = 0.20
        top = x ** 2 + (yy - 0.24) ** 2 <= r * r
        left = (x + 0.23) ** 2 + (yy - 0.56) ** 2 <= r * r
        right = (x - 0.23) ** 2 + (yy - 0.56) ** 2 <= r * r
        stem = (np.abs(x) <= 0.05 + 0.25 * np.clip(yy - 0.70, 0, None)) & (yy >= 0.35) & (yy <= 0.98)
        ink = top | left | right | stem
    cover = ink.reshape(size, ss, size, ss).mean(axis=(1, 3))
    m = cover >= 0.5
    m.setflags(write=False)
    return m


def draw_suit(img: np.ndarray, x: int, y: int, suit: int, size: int, color) -> None:
    paint(img, x, y, suit_mask(suit, size), color)


# ------------------------------------------------------------------------------------------------ PNG


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_bytes(img: np.ndarray, level: int = 9) -> bytes:
    """The PNG file (8-bit RGB, not interlaced) of an ``(H, W, 3)`` uint8 image. Each row is stored with
    the "Sub" filter (type 1: every byte minus the byte of the pixel to its left), which suits the flat
    colours of the pictures."""
    a = np.ascontiguousarray(img)
    if a.ndim != 3 or a.shape[2] != 3 or a.dtype != np.uint8:
        raise ValueError(f"png_bytes needs an (H, W, 3) uint8 array, got shape {a.shape} dtype {a.dtype}")
    h, w, _ = a.shape
    sub = a.copy()
    sub[:, 1:] = a[:, 1:] - a[:, :-1]  # uint8 arithmetic wraps modulo 256, as the filter wants
    raw = np.empty((h, 1 + 3 * w), np.uint8)
    raw[:, 0] = 1
    raw[:, 1:] = sub.reshape(h, 3 * w)
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(raw.tobytes(), level))
            + _chunk(b"IEND", b""))


def write_png(path, img: np.ndarray) -> int:
    """Write ``img`` as a PNG file at ``path``; returns the number of bytes written."""
    data = png_bytes(img)
    with open(path, "wb") as f:
        f.write(data)
    return len(data)
