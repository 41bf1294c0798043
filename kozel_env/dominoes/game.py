"""The dominoes :class:`~kozel_env.core.game.Game`: observation, oracle view, move notation, rendering and
determinization over :class:`~kozel_env.dominoes.engine.DominoesState`.

Move notation (RULES notation for tiles: two digits, smaller first):

* ``35`` -- lead the tile ``35`` on the empty line (or any placement of ``35`` when only one exists);
* ``35L`` / ``35R`` -- lay ``35`` at the left / right end (the left end is the lead's smaller half side);
* ``33+66`` -- the two-doubles move (RULES D1.2).
"""
from __future__ import annotations

import re
import struct

import numpy as np

from ..core.bits import bits
from ..core.errors import IllegalActionError, InvalidOptionError, KozelError
from ..core.game import Game
from ..core.rng import Rng
from ..core.spec import BITS7, BITS14, FLOAT_BYTES, ObsSpec, Part, floats_from_bytes, onehot_bytes, unpack_masks
from . import knowledge
from .engine import DEAD, DOUBLE_PAIRS, NONE, PAIR_INDEX, DominoesState, needs_redeal, setup_checks
from .rules import DominoesRules
from .tiles import ALL_TILES, DOUBLE, NUM_TILES, SUIT, TILE_ID, tile_str, tiles_str

SLOT_NAMES = "LR"
END_BYTES = onehot_bytes(9)
FLAG_BYTES = tuple(tuple(FLOAT_BYTES[a] + FLOAT_BYTES[b] for b in (0, 1)) for a in (0, 1))  # [first][empty]
LEAD_BYTES = onehot_bytes(NUM_TILES) + (bytes(4 * NUM_TILES),)
"""LEAD_BYTES[t]: tile ``t`` one-hot as float32 bytes; LEAD_BYTES[-1]: all zero (no lead yet)."""
_MOVE = re.compile(r"^(\d\d)([LR])?$")
_PAIR = re.compile(r"^(\d\d)\+(\d\d)$")


class DominoesGame(Game):
    family = "dominoes"
    engine_id = "dominoes"
    state_class = DominoesState
    num_slots = 2
    """End slots of the line (4 in Donkey, :mod:`kozel_env.dominoes.donkey`)."""
    slot_names = SLOT_NAMES

    def __init__(self, rules: DominoesRules):
        if rules.cross and type(self).num_slots == 2:
            raise InvalidOptionError("house / closing / max_doubles are Donkey rules (RULES D4): use the "
                                     "Donkey engine (kozel_env.dominoes.donkey.DonkeyGame, donkey_v0)")
        self.rules = rules
        self.name = rules.name
        n = self.num_players = rules.num_players
        s = rules.num_sides
        self.num_actions = self._count_actions()
        self._build_spec(n, s)

    def _count_actions(self) -> int:
        return NUM_TILES * self.num_slots + len(DOUBLE_PAIRS)

    def _extra_bit_parts(self) -> list:
        """Binary parts after ``opened``, filled by :meth:`_extra_bytes` (float32 bytes): the lead tile in
        the games where the opening rule or the stock make it informative."""
        if self.rules.draw != "none" or self.rules.opening != "11":
            return [Part("lead_tile", (NUM_TILES,), "the tile that led this deal, one-hot (all 0 before the "
                         "lead); in the first deal it tells what the opening rule implies (RULES D2.3, D5.2)")]
        return []

    def _extra_bytes(self, st: DominoesState, player: int) -> bytes:
        return LEAD_BYTES[st.lead_tile]

    # ------------------------------------------------------------------ observation layout
    def _build_spec(self, n: int, s: int) -> None:
        r = self.rules
        E = self.num_slots
        rel = "relative seats: 0 = you, 1 = next clockwise, ..."
        side_rel = "relative sides: 0 = your side" + (" (your pair)" if r.pairs else "")
        bit_parts = [
            Part("hand", (NUM_TILES,), "your tiles (tile ids 00,01,..,06,11,..,66)"),
            Part("played_by", (n, NUM_TILES), f"tiles each seat has played this deal; {rel}"),
            Part("knocked", (n, 7), f"numbers each seat is known to lack (it knocked on them); {rel}"),
            Part("ends", (E, 9), "each end slot one-hot: value 0-6, 7 = dead (closed), 8 = no end"),
            Part("first_deal", (1,), "1 in the match's first deal (the 11 / lowest-double opening)"),
            Part("line_empty", (1,), "1 before the lead of this deal"),
            Part("leader", (n,), f"who led this deal, one-hot; {rel}"),
            Part("seat", (n,), "your absolute seat, one-hot (player_0 ...)"),
            Part("opened", (s,), f"scoring opened (threshold passed); {side_rel}"),
        ] + self._extra_bit_parts()
        hs = float(r.hand_size)
        scalar_parts = [Part("hand_counts", (n,), f"tiles in each hand / {r.hand_size}; {rel}",
                             NUM_TILES / hs)]
        if r.draw != "none":
            scalar_parts += [
                Part("drawn", (n,), f"tiles each seat drew this deal / {r.hand_size}; {rel}", NUM_TILES / hs),
                Part("stock", (1,), f"tiles in the stock / {r.hand_size}", NUM_TILES / hs),
                Part("lacking", (n, 7), f"for each number 0-6, how many of the seat's tiles are known not to "
                     f"carry it (knocks, forced draws, the opening; kozel_env.dominoes.knowledge) / "
                     f"{r.hand_size}; {rel}", NUM_TILES / hs),
            ]
        scalar_parts += [
            Part("scores", (s,), f"match scores / target {r.target}; {side_rel}", 4.0),
            Part("memory", (s,), f"remembered points under the threshold / target; {side_rel}", 4.0),
            Part("eggs", (1,), "points carried by eggs / target", 4.0),
        ]
        self.obs_spec = ObsSpec(bit_parts + scalar_parts)
        self.oracle_spec = ObsSpec([
            Part("hands", (n, NUM_TILES), "every hand, absolute seats"),
            Part("stock_tiles", (NUM_TILES,), "tiles in the stock"),
            Part("to_move", (n,), "seat to move, one-hot (all 0 when terminal)"),
        ] + [Part("seat0_" + p.name, p.shape, "seat 0's observation: " + p.doc, p.high)
             for p in self.obs_spec.parts])
        self._nbits = sum(p.size for p in bit_parts)
        self._rel = [[(p + k) % n for k in range(n)] for p in range(n)]
        self._side_rel = ([[(r.side_of(p) + k) % s for k in range(s)] for p in range(n)] if r.pairs
                          else self._rel)
        self._onehot = onehot_bytes(n)
        self._draws = r.draw != "none"
        self._hs = 1.0 / r.hand_size
        self._inv_target = 1.0 / r.target
        self._fmt = f"<{self.obs_spec.size - self._nbits}f"
        self._extra = bool(self._extra_bit_parts())
        self._lack_cache = {}
        assert self._nbits == sum(p.size for p in bit_parts)

    # ------------------------------------------------------------------ engine entry points
    def setup_checks(self) -> dict:
        """``reset(options=...)`` keys these rules accept, with what each allows."""
        return setup_checks(self.rules)

    def new_state(self, seed: int, setup: dict | None = None) -> DominoesState:
        return self.state_class(self.rules, seed, setup)

    def observe(self, st: DominoesState, player: int) -> np.ndarray:
        # Every part is float32 bytes (bit parts from lookup tables, scalars packed), joined and converted
        # once. Everything is relative to ``player`` via precomputed seat orders.
        rel = self._rel[player]
        srel = self._side_rel[player]
        led = st.ledger
        hands = st.hands
        pb = st.played_by
        kn = st.knocks
        h = hands[player]
        parts = [BITS14[h & 0x3FFF], BITS14[h >> 14]]
        for q in rel:
            m = pb[q]
            parts.append(BITS14[m & 0x3FFF])
            parts.append(BITS14[m >> 14])
        for q in rel:
            parts.append(BITS7[kn[q]])
        for v in st.ends:
            parts.append(END_BYTES[v])
        parts.append(FLAG_BYTES[st.first_deal][0 if st.played else 1])
        parts.append(self._onehot[(st.leader - player) % self.num_players])
        parts.append(self._onehot[player])
        opened = led.opened
        for sd in srel:
            parts.append(FLOAT_BYTES[opened[sd]])
        if self._extra:
            parts.append(self._extra_bytes(st, player))
        hs = self._hs
        vals = [hands[q].bit_count() * hs for q in rel]
        if self._draws:
            vals += [st.drawn[q] * hs for q in rel]
            vals.append(st.stock.bit_count() * hs)
            cache = self._lack_cache
            lack = st.lack
            for q in rel:
                row = cache.get(lack[q])
                if row is None:
                    if len(cache) > 50_000:
                        cache.clear()
                    row = cache[lack[q]] = [c * hs for c in knowledge.lack_counts(lack[q])]
                vals += row
        t = self._inv_target
        sc = led.scores
        mem = led.memory
        vals += [sc[sd] * t for sd in srel]
        vals += [mem[sd] * t for sd in srel]
        vals.append(led.eggs * t)
        parts.append(struct.pack(self._fmt, *vals))
        return floats_from_bytes(b"".join(parts))

    def oracle(self, st: DominoesState) -> np.ndarray:
        n = self.num_players
        to_move = np.zeros(n, np.float32)
        if st.current_player >= 0:
            to_move[st.current_player] = 1
        return np.concatenate([unpack_masks(st.hands + [st.stock], NUM_TILES).ravel(), to_move,
                               self.observe(st, 0)])

    # ------------------------------------------------------------------ notation
    def action_to_string(self, st: DominoesState, action: int) -> str:
        if not 0 <= action < self.num_actions:
            raise IllegalActionError(f"action {action} is out of range 0..{self.num_actions - 1}")
        E = self.num_slots
        if action >= NUM_TILES * E:
            a, b = DOUBLE_PAIRS[action - NUM_TILES * E]
            return f"{a}{a}+{b}{b}"
        t, slot = divmod(action, E)
        if not st.played:
            return tile_str(t)
        return tile_str(t) + self.slot_names[slot]

    def string_to_action(self, st: DominoesState, text: str) -> int:
        legal = st.legal_actions()
        t = str(text).strip().upper().replace(" ", "")
        try:
            m = _PAIR.match(t)
            if m:
                a, b = (TILE_ID[(int(x[0]), int(x[1]))] for x in m.groups())
                va, vb = DOUBLE.index(a) if a in DOUBLE else -1, DOUBLE.index(b) if b in DOUBLE else -1
                if va < 0 or vb < 0 or va == vb:
                    raise KozelError(f"{text!r}: the two-doubles move needs two different doubles")
                cands = [NUM_TILES * self.num_slots + PAIR_INDEX[(min(va, vb), max(va, vb))]]
            else:
                m = _MOVE.match(t)
                if not m:
                    raise KozelError(f"cannot read move {text!r}")
                a, b = m.group(1)
                if max(a, b) > "6":
                    raise KozelError(f"{text!r}: tile halves are 0-6")
                tile = TILE_ID[(int(a), int(b))]
                slots = range(self.num_slots) if m.group(2) is None else [SLOT_NAMES.index(m.group(2))]
                cands = [tile * self.num_slots + s for s in slots]
        except KozelError as e:
            raise IllegalActionError(f"{e}; legal moves: {self.legal_strings(st)}") from None
        ok = [c for c in cands if c in legal]
        if len(ok) == 1:
            return ok[0]
        if len(ok) > 1:
            raise IllegalActionError(f"move {text!r} is ambiguous: say one of "
                                     f"{[self.action_to_string(st, c) for c in ok]}")
        raise IllegalActionError(f"move {text!r} is not legal for player_{st.current_player}; "
                                 f"legal moves: {self.legal_strings(st)}")

    # ------------------------------------------------------------------ rendering
    def render(self, st: DominoesState, viewer: int | None = None) -> str:
        r = self.rules
        n = self.num_players
        led = st.ledger
        if r.pairs:
            score = " | ".join(f"pair {s}+{s + 2}: {led.scores[s]}{'' if led.opened[s] else ' (not open)'}"
                               for s in range(2))
        else:
            score = " | ".join(f"player_{s}: {led.scores[s]}" for s in range(n))
        lines = [f"{self.name} · deal {st.deals_played + (0 if st.terminal else 1)} · {score} · eggs {led.eggs}"]

        def end(v):
            return "dead" if v == DEAD else ("-" if v == NONE else str(v))

        lines.append("ends: " + "  ".join(f"{self.slot_names[i]}={end(v)}"
                                          for i, v in enumerate(st.ends)))
        if r.draw != "none":
            lines.append(f"stock: {st.stock.bit_count()} tiles")
        for q in range(n):
            mark = "*" if q == st.current_player else " "
            if viewer is None or viewer == q:
                hand = tiles_str(st.hands[q])
            else:
                hand = "?? " * st.hands[q].bit_count()
            knock = ("  knocked on " + ",".join(str(v) for v in range(7) if st.knocks[q] >> v & 1)
                     if st.knocks[q] else "")
            lines.append(f"{mark}player_{q}: {hand.strip():<22} played: {tiles_str(st.played_by[q])}{knock}")
        if st.terminal:
            res = st.match_result
            who = ", ".join(f"side {g}" for g in res["goats"]) or "nobody"
            lines.append(f"match over: goats {who}; scores {res['scores']}")
        elif viewer is None or viewer == st.current_player:
            lines.append(f"legal: {' '.join(self.legal_strings(st))}")
        return "\n".join(lines)

    # ------------------------------------------------------------------ determinization
    def sample_consistent(self, st: DominoesState, player: int, rng: Rng) -> DominoesState:
        """Re-deal every tile ``player`` cannot see (other hands, the stock), keeping each hand's size and
        the knocks: a seat never receives a tile of a number it knocked on (RULES D1.3), and before the
        opening lead the leader keeps the opening tile. With a stock or a revealing opening (RULES D2, D5)
        the table's whole knowledge is used instead (:func:`kozel_env.dominoes.knowledge.sample_hidden`)."""
        if st.tracks:
            return knowledge.sample_hidden(st, player, rng, needs_redeal)
        n = self.num_players
        pool = ALL_TILES & ~st.hands[player] & ~st.played
        counts, allowed = {}, {}
        for q in range(n):
            if q != player:
                counts[q] = st.hands[q].bit_count()
                banned = 0
                for v in bits(st.knocks[q]):
                    banned |= SUIT[v]
                allowed[q] = ALL_TILES & ~banned
        counts[-1] = st.stock.bit_count()
        allowed[-1] = ALL_TILES
        forced = 0
        if not st.played and st.lead_mask != ALL_TILES and st.leader != player:
            # The opening rule is public: the leader holds the opening tile (RULES D1.5).
            forced = st.lead_mask
            pool &= ~forced
            counts[st.leader] -= 1
        require = None
        cp = st.current_player
        need = st.turn_requires()
        if st.played and cp >= 0 and cp != player and need:
            require = {cp: need}  # the seat to move was not skipped: it holds a fitting tile (RULES D1.3)
        # knowledge.deal: rejection sampling, then a matching that cannot blow up when the seat to move must
        # hold the one fitting tile left in the pool. A deal the rules would have thrown in (RULES D1.6) never
        # happened: each seat's dealt hand is its hand plus the tiles it played this deal.
        for _ in range(100_000):
            deal = knowledge.deal(pool, counts, allowed, rng, require=require)
            if forced:
                deal[st.leader] |= forced
            if not (self.rules.redeal and any(needs_redeal(deal[q] | st.played_by[q]) for q in counts if q >= 0)):
                break
        else:  # pragma: no cover - the true deal is consistent, so this needs astronomically bad luck
            raise KozelError("sample_consistent found no deal the redeal rule allows")
        new = st.clone()
        for q in range(n):
            if q != player:
                new.hands[q] = deal[q]
        new.stock = deal[-1]
        new.rng = Rng(rng.next_u64())
        return new
