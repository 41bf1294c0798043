"""The batched dominoes engine: ``dominoes_v0`` and ``sea_goat_v0`` (the line game of four in two pairs,
no stock, seed 000 §1-8 and §10, RULES D1 and D3) for ``B`` games at once.

Every rule is the scalar engine's (:mod:`kozel_env.dominoes.engine`), read from the same
:class:`~kozel_env.dominoes.rules.DominoesRules` and the same tables (:mod:`kozel_env.dominoes.tiles`);
the observation is :class:`~kozel_env.dominoes.game.DominoesGame`'s layout, every position taken from its
``obs_spec``. ``tests/vector/test_identity.py`` keeps the two equal. The rules options of these envs that
change play are all honoured: ``lone_double_values`` (D1.1), ``two_doubles`` (D1.2), ``redeal`` (D1.6),
``threshold`` / ``threshold_mode`` (D1.7, D3.2), ``target`` (D1.9), ``eggs_carry`` (D1.8),
``next_leader`` (D5.2), ``out_00_wins_match`` / ``out_66_amount`` (D3.3-4). Donkey's four ends, house and
closed doubles are :mod:`kozel_env.vector.donkey`, a subclass. Rules that need the stock or the table's
knowledge of hidden tiles (``draw``, another ``opening``, ``hand_size`` other than 7, fewer players) are
refused with the reason: those envs step through the scalar engine.

State per game (``uint64`` masks over the 28 tile ids, as in the scalar state): ``hands[B, 4]``,
``played``, ``played_by[B, 4]``, ``ends[B, 2]`` (0-6, 8 = no end), ``knocks[B, 4]`` (7-bit), ``leader``,
``lead_mask``, ``first_deal``, ``last_mover``, ``last_bits`` (the tiles of the last move), the
:class:`~kozel_env.vector.ledger.BatchedLedger` and the generator.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import InvalidOptionError
from ..dominoes.engine import DOUBLE_PAIRS, NONE, PAIR_INDEX, SUITX, T00, T11, T66
from ..dominoes.game import DominoesGame
from ..dominoes.tiles import (
    ALL_TILES,
    DOUBLE,
    DOUBLES_MASK,
    HIGH,
    LOW,
    NUM_TILES,
    OTHER,
    PIPS_HI,
    PIPS_LO,
    SUIT,
    tile_str,
)
from . import rng as vrng
from .bits import ONE, U64, Packer, bit, popcount, spread2, unpack_mask
from .engine import BatchedGame
from .ledger import BatchedLedger

_SUITX = np.array(SUITX, U64)
"""``_SUITX[v]``: the tiles that fit an end showing ``v`` (none for 7 and 8)."""
_OPEN = np.array([1 << v if v < 7 else 0 for v in range(NONE + 1)], U64)
"""``_OPEN[v]``: the number an end showing ``v`` asks for, as a 7-bit mask (knocks, RULES D1.3)."""
_OTHER = np.array([[o if o >= 0 else NONE for o in row] + [NONE, NONE] for row in OTHER], np.int64)
_LOW, _HIGH = np.array(LOW, np.int64), np.array(HIGH, np.int64)
_PIPS_LO, _PIPS_HI = np.array(PIPS_LO, np.int64), np.array(PIPS_HI, np.int64)
_NUM_SINGLE = NUM_TILES * 2
_ACTION_BITS = np.array([1 << (a >> 1) for a in range(_NUM_SINGLE)]
                        + [(1 << DOUBLE[x]) | (1 << DOUBLE[y]) for x, y in DOUBLE_PAIRS], U64)
"""``_ACTION_BITS[a]``: the tiles action ``a`` lays (one tile, or the two doubles of RULES D1.2)."""
_PAIR_ACTION = np.full((NONE + 1, NONE + 1), -1, np.int64)
for (_x, _y), _k in PAIR_INDEX.items():
    _PAIR_ACTION[_x, _y] = _PAIR_ACTION[_y, _x] = _NUM_SINGLE + _k
"""``_PAIR_ACTION[e0, e1]``: the two-doubles move for ends ``e0 != e1`` (-1: none)."""
_PAIR_ACTION_FLAT = _PAIR_ACTION.reshape(-1)
_DOUBLE_OF = np.array([1 << DOUBLE[v] if v < 7 else 0 for v in range(NONE + 1)], U64)
SUIT_TILES = tuple(frozenset(t for t in range(NUM_TILES) if SUIT[n] >> t & 1) for n in range(7))
_M14 = U64(0x3FFF)
_TILE_BITS = np.array([2.0 ** t for t in range(NUM_TILES)])
"""``_TILE_BITS[t]``: the tile's bit ``2 ** t`` as a float: summed over a hand's positions, its mask."""
_DOUBLES = U64(DOUBLES_MASK)
_SUITS = np.array(SUIT, U64)
_OTHER_FLAT = _OTHER.reshape(-1)
_BYTES_TO_BITS = np.uint32(0x01020408)
"""Four 0/1 bytes read as one little-endian uint32, times this, shifted right by 24: the four bits."""
_NEXT_CODE = np.array([sum(1 << i for i in range(4) if held >> ((p + 1 + i) & 3) & 1)
                       for p in range(4) for held in range(16)], np.intp)
"""``_NEXT_CODE[16 p + held]``: ``held`` (bit s: seat s) reordered as the seats after ``p`` (bit i: seat
``p + 1 + i``)."""
_FIRST_SET = np.array([(c & -c).bit_length() - 1 if c else 4 for c in range(16)], np.int64)
"""``_FIRST_SET[c]``: the lowest set bit of ``c`` (4 when ``c`` is 0: the four seats ask, nobody plays)."""


def _pips(h: np.ndarray) -> np.ndarray:
    """Plain pip totals (``tiles.pip_total``) of an array of hands."""
    return _PIPS_LO[(h & _M14).astype(np.int64)] + _PIPS_HI[(h >> U64(14)).astype(np.int64)]


class BatchedDominoes(BatchedGame):
    engine_id = "dominoes"
    points_lost = True
    STATE = ("hands", "played", "played_by", "ends", "knocks", "leader", "lead_mask", "first_deal",
             "last_mover", "last_bits")
    game_class = DominoesGame
    """The scalar game this engine plays (a subclass engine names its own, e.g. the Donkey's)."""

    @classmethod
    def refusals(cls, game: DominoesGame) -> list:
        """What in ``game``'s rules this engine does not play (empty: it plays them)."""
        r = game.rules
        return [w for bad, w in (
            (type(game) is not cls.game_class, "the Donkey's house and closed doubles (RULES D4)"),
            (not r.pairs or r.num_players != 4, "every man for himself (RULES D2)"),
            (r.draw != "none", "the stock (RULES D2.2, D5.3)"),
            (r.hand_size != 7, "a deal with sleeping tiles (hand_size other than 7)"),
            (r.opening != "11", "an opening other than 11 (RULES D2.3, D5.2) and its lead_tile part"),
        ) if bad]

    def __init__(self, game: DominoesGame, num_envs: int, single_deal: bool = False):
        r = game.rules
        why = self.refusals(game)
        if why:
            raise InvalidOptionError(f"the {type(self).__name__} engine plays {self.plays}; {r.name} with these "
                                     f"rules needs {' and '.join(why)}: use the AEC env")
        super().__init__(game, num_envs, single_deal)
        B = self.num_envs
        n = self.num_players
        self.hands = np.zeros((B, n), U64)
        self.played = np.zeros(B, U64)
        self.played_by = np.zeros((B, n), U64)
        self.ends = np.full((B, game.num_slots), NONE, np.int64)
        self.knocks = np.zeros((B, n), U64)
        self.leader = np.zeros(B, np.int64)
        self.lead_mask = np.zeros(B, U64)
        self.first_deal = np.zeros(B, bool)
        self.last_mover = np.zeros(B, np.int64)
        self.last_bits = np.zeros(B, U64)
        self.ledger = BatchedLedger(r.ledger_rules(), B)
        spec = game.obs_spec
        self._spec = spec
        self._nbits = spec.offset("hand_counts")
        self._packer = Packer(spec, self._nbits)
        self._oracle_packer = Packer(game.oracle_spec, game.oracle_spec.offset("seat0_hand"))
        self._flags0 = spec.offset("ends")
        k = r.hand_size
        self._seat_of_position = np.array([[1.0 if p // k == s else 0.0 for s in range(n)] for p in range(NUM_TILES)])
        """The deal (seed 000 §3): shuffled position ``p`` goes to seat ``p // hand_size`` (the positions after
        the hands are the stock); a sum over a seat's positions is a product with this matrix (exact in
        float64)."""
        self._lone = r.lone_double_values
        self._count_value = np.array([c * (1.0 / r.hand_size) for c in range(29)], np.float32)
        """``hand_counts`` of a hand of ``c`` tiles, as the scalar builder computes it (float64, stored as float32)."""
        self._inv_target = 1.0 / r.target
        off = spec.offset
        f0 = self._flags0
        # the small one-hot parts from ``ends`` to ``opened`` as one int, bit ``pos - f0`` (obs_spec offsets)
        self._end_flags = np.array([(1 << (off("ends", 0) + e0 - f0)) | (1 << (off("ends", 1) + e1 - f0))
                                    for e0 in range(NONE + 1) for e1 in range(NONE + 1)], U64)
        self._init_views()

    plays = "the pairs line game with 7 tiles each (dominoes_v0, sea_goat_v0)"
    """What the engine plays, for the refusal message."""

    def _init_views(self) -> None:
        """The observation's tables (obs_spec offsets), built once."""
        assert self.side_of.tolist() == [0, 1, 0, 1], "pairs: seats 0+2 against 1+3 (seed 000 §2)"
        f0 = self._flags0
        off = self._spec.offset
        self._seat_flags = np.array([(1 << (off("leader", lead) - f0)) | (1 << (off("seat", s) - f0))
                                     for lead in range(4) for s in range(4)], U64)
        """``_seat_flags[4 * (leader offset) + seat]``."""
        self._bool_flags = np.array([sum(1 << (off(name, *ix) - f0) for bit_i, (name, ix) in enumerate(
            (("first_deal", ()), ("line_empty", ()), ("opened", (0,)), ("opened", (1,)))) if code >> bit_i & 1)
            for code in range(16)], U64)
        """``_bool_flags[code]``: bits 0-3 of ``code`` are first_deal, line_empty, opened (own side), opened
        (other side)."""
        assert off("seat") < off("opened") < self._nbits and off("knocked") + 28 == self._flags0

    # -- matches and deals -----------------------------------------------------------------------------
    def start(self, idx: np.ndarray, seeds: np.ndarray) -> None:
        """``DominoesState(rules, seed)`` in games ``idx``: a fresh ledger, the first deal (RULES D1.5)."""
        idx = np.asarray(idx, np.int64)
        self._new_match(idx, seeds)
        self._start_deal(idx)

    def _new_match(self, idx: np.ndarray, seeds: np.ndarray) -> None:
        self.rng[idx] = seeds
        self.ledger.start(idx)
        self.first_deal[idx] = True
        self.last_mover[idx] = 0

    def _start_deal(self, idx: np.ndarray) -> None:
        """Deal seven tiles each from the shuffled set (seed 000 §3), silently redeal a hand RULES D1.6
        forbids, and lead: the holder of ``11`` in the first deal (D1.5), else the last mover."""
        self._deal_hands(idx)
        self._clear_line(idx)
        first = self.first_deal[idx]
        has11 = ((self.hands[idx] >> U64(T11)) & ONE).astype(np.int64)
        holder = has11[:, 1] + 2 * has11[:, 2] + 3 * has11[:, 3]
        leader = np.where(first, holder, self.last_mover[idx])
        self.leader[idx] = leader
        self.lead_mask[idx] = np.where(first, U64(1 << T11), U64(ALL_TILES))
        self.current_player[idx] = leader

    def _deal_hands(self, idx: np.ndarray) -> np.ndarray:
        """The hands of games ``idx`` from the shuffled set (seed 000 §3), dealt again while a hand is one
        RULES D1.6 throws in; returns each game's shuffle (``int64[len(idx), 28]``, the dealt one)."""
        pending = np.arange(len(idx))
        out = None
        while len(pending):
            tiles = vrng.shuffled(self.rng, idx[pending], range(NUM_TILES))
            # a hand is the sum of its positions' tile bits (exact in float64)
            hands = (_TILE_BITS[tiles] @ self._seat_of_position).astype(U64)
            self.hands[idx[pending]] = hands
            if out is None:
                out = tiles
            else:
                out[pending] = tiles
            if not self.rules.redeal:
                break
            # RULES D1.6: five doubles or more, or six tiles or more of one number, in some hand
            bad = ((np.bitwise_count(hands & _DOUBLES) >= 5).any(axis=1)
                   | (np.bitwise_count(hands[:, :, None] & _SUITS) >= 6).any(axis=(1, 2)))
            pending = pending[bad]  # thrown in: the next shuffle deals again
        return out

    def _clear_line(self, idx: np.ndarray) -> None:
        """Nothing played yet in the new deals of games ``idx``."""
        self.played[idx] = 0
        self.played_by[idx] = 0
        self.ends[idx] = NONE
        self.knocks[idx] = 0
        self.last_bits[idx] = 0

    # -- a decision ------------------------------------------------------------------------------------
    def _begin_decision(self, actions: np.ndarray) -> tuple:
        """The start of every decision (here and in Donkey): the outputs cleared; the actions, the seats to
        move, and their flat index in the ``[B, seats]`` arrays."""
        self.clear_outputs()
        p = self.current_player.copy()
        n = self.num_players
        return np.asarray(actions, np.int64), p, np.arange(0, n * self.num_envs, n) + p

    def apply(self, actions: np.ndarray) -> None:
        """One move in every game (RULES D1.2-4, seed 000 §5-6), then the deal's end where one came."""
        a, p, at = self._begin_decision(actions)
        left = self._lay(a, p, at)[1]
        out = left == 0
        ends = self.ends
        e0, e1 = ends[:, 0], ends[:, 1]
        fit = _SUITX[e0] | _SUITX[e1]
        can = (self.hands & fit[:, None]) != 0  # [B, 4]: the seats holding a fitting tile
        held = (can.view("<u4")[:, 0] * _BYTES_TO_BITS) >> np.uint32(24)  # seat s at bit s
        code = _NEXT_CODE[p * 16 + held]  # the next seats clockwise from p, p itself last: bits 0..3
        nxt = _FIRST_SET[code]  # 4: nobody can play
        moving = (nxt < 4) & ~out
        self.current_player[:] = np.where(moving, (p + 1 + nxt) & 3, p)
        skipped = np.flatnonzero(~out & (code & 1 == 0))  # seats that cannot follow knock (RULES D1.3)
        if len(skipped):
            numbers = _OPEN[e0[skipped]] | _OPEN[e1[skipped]]
            until = nxt[skipped]
            knocks = self.knocks.reshape(-1)
            for i in range(4):
                k = np.flatnonzero(until > i)
                knocks[4 * skipped[k] + ((p[skipped[k]] + 1 + i) & 3)] |= numbers[k]
        ended = np.flatnonzero(out | ~moving)
        if len(ended):
            self._end_deal(ended, out[ended])

    def _lay(self, a: np.ndarray, p: np.ndarray, at: np.ndarray) -> tuple:
        """Actions ``a`` of seats ``p`` (flat index ``at``) laid on the line: the lead sets both ends, a tile
        at an end shows its other half there, the two-doubles move changes no end (RULES D1.2, seed 000 §5).
        Returns the games where it was the lead and the mover's tiles left."""
        laid = _ACTION_BITS[a]
        t = a >> 1
        ends = self.ends
        lead = self.played == 0
        li = np.flatnonzero(lead)
        if len(li):
            ends[li, 0] = _LOW[t[li]]
            ends[li, 1] = _HIGH[t[li]]
        on = np.flatnonzero(~lead & (a < _NUM_SINGLE))
        end_at = 2 * on + (a[on] & 1)  # flat index of the end the tile is laid at
        flat_ends = ends.reshape(-1)
        flat_ends[end_at] = _OTHER_FLAT[t[on] * (NONE + 1) + flat_ends[end_at]]
        hands = self.hands.reshape(-1)
        left = hands[at] & ~laid
        hands[at] = left
        pb = self.played_by.reshape(-1)
        pb[at] |= laid
        self.played |= laid
        self.last_mover[:] = p
        self.last_bits[:] = laid
        return li, left

    def _side_sums(self, x: np.ndarray) -> np.ndarray:
        """Per-seat values ``[k, seats]`` summed per side: pairs, seats 0+2 and 1+3 (seed 000 §2); every man
        for himself, a side is a seat."""
        return x[:, :2] + x[:, 2:] if self.rules.pairs else x

    def _end_deal(self, idx: np.ndarray, out: np.ndarray) -> None:
        """Who lost and what is written (seed 000 §6-8, RULES D1.1, D1.7-9, D2.4-5, D3.2-4, D5.4-5), then the
        next deal or the match's end (the scalar ``_end_deal`` / ``_end_match``)."""
        r = self.rules
        side = self.side_of
        S = self.num_sides
        h = self.hands[idx]
        pips = _pips(h)
        value = pips
        if self._lone is not None:  # D1.1: a lone 00 or 66 counts its configured value
            value = np.where(h == U64(1 << T00), self._lone[0], np.where(h == U64(1 << T66), self._lone[1], pips))
        totals = self._side_sums(pips)
        values = self._side_sums(value)
        mover = self.last_mover[idx]
        winners = np.where(out[:, None], side[mover][:, None] == np.arange(S),
                           totals == totals.min(axis=1, keepdims=True))
        final = self.last_bits[idx]
        has00 = (final >> U64(T00)) & ONE == ONE
        has66 = (final >> U64(T66)) & ONE == ONE
        instant = out & has00 if r.out_00_wins_match else np.zeros(len(idx), bool)  # D3.3
        if r.out_66_amount is not None:  # D3.4: the losers write 100
            values = np.where((out & has66 & ~has00)[:, None], r.out_66_amount, values)
        losing = ~winners & ~instant[:, None]
        eggs = ~losing.any(axis=1) & ~instant  # every side tied in a fish (D1.8)
        written = np.zeros((len(idx), S), np.int64)
        if r.eggs_carry:
            self.ledger.record_eggs(idx[eggs], totals[eggs, 0])
        if r.eggs_to == "highest":  # only the loser(s) with the highest amount take the carried eggs
            values = self._eggs_to_highest(idx, values, losing)
        settle = np.flatnonzero(losing.any(axis=1))
        if len(settle):
            written[settle] = self.ledger.settle(idx[settle], values[settle], losing[settle])
        scores = self.ledger.scores[idx]
        self.end_deal_outputs(idx, written, scores, winners & ~eggs[:, None], eggs)
        self.first_deal[idx] = False
        if r.next_leader == "winner":  # D5.2: the first winner clockwise from the last mover leads
            n = self.num_players
            cand = (mover[:, None] + np.arange(n)) % n
            wins = np.take_along_axis(winners, side[cand], axis=1)
            self.last_mover[idx] = cand[np.arange(len(idx)), np.argmax(wins, axis=1)]
        self._after_deal(idx, scores, winners, eggs, instant)

    def _eggs_to_highest(self, idx: np.ndarray, values: np.ndarray, losing: np.ndarray) -> np.ndarray:
        """``eggs_to="highest"`` (RULES silent, our option): with several losers and eggs carried, the
        carried total goes to the loser(s) with the highest amount only, and nothing else is carried."""
        eggs = self.ledger.eggs[idx]
        k = np.flatnonzero((losing.sum(axis=1) > 1) & (eggs > 0))
        if not len(k):
            return values
        lose = losing[k]
        top = np.where(lose, values[k], np.iinfo(np.int64).min).max(axis=1, keepdims=True)
        values = values.copy()
        values[k] += np.where(lose & (values[k] == top), eggs[k, None], 0)
        self.ledger.eggs[idx[k]] = 0
        return values

    def _after_deal(self, idx: np.ndarray, scores: np.ndarray, winners: np.ndarray, eggs: np.ndarray,
                    instant: np.ndarray) -> None:
        """The match's end in games ``idx`` (seed 000 §8, RULES D1.9, D2.6, D3.3) or their next deal."""
        # the goats: the sides at the target, or the sides that did not go out on 00 (D3.3); of them the
        # side(s) with the most points (seed 000 §8, RULES D2.6)
        goats = np.where(instant[:, None], ~winners, self.ledger.at_target(idx))
        top = np.where(goats, scores, -1).max(axis=1, keepdims=True)
        goats &= scores == top
        at = goats.any(axis=1)
        over = at | self.single_deal
        if self.rules.pairs:  # the other pair wins
            beat = ~goats
        else:  # every man for himself: the fewest points of the others win (RULES D2.6)
            low = np.where(goats, np.iinfo(np.int64).max, scores).min(axis=1, keepdims=True)
            beat = ~goats & (scores == low)
        # a single deal that reached no target: the deal decides
        match_winners = np.where(at[:, None], beat, winners & ~eggs[:, None])
        match_losers = np.where(at[:, None], goats, ~winners)
        done = np.flatnonzero(over)
        if len(done):
            self.end_match_outputs(idx[done], match_winners[done], match_losers[done])
            if self.autoreset:  # the next match, dealt with the next deals of the others in one pass
                self._new_match(idx[done], self.next_seeds(idx[done]))
                over = np.zeros(len(idx), bool)
        rest = idx[~over]
        if len(rest):
            self._start_deal(rest)

    def move_names(self, b: int, actions: list) -> list:
        """``"id=notation"`` in the scalar game's notation (``35``, ``35L``, ``33+66``)."""
        names = []
        for a in actions:
            if a >= _NUM_SINGLE:
                x, y = DOUBLE_PAIRS[a - _NUM_SINGLE]
                names.append(f"{a}={x}{x}+{y}{y}")
            else:
                names.append(f"{a}={tile_str(a >> 1)}{'' if self.played[b] == 0 else 'LR'[a & 1]}")
        return names

    # -- views -----------------------------------------------------------------------------------------
    def _view(self, seat: np.ndarray, out: np.ndarray, packer: Packer, base: int) -> None:
        """``game.observe(state, seat)`` of every game into ``out[:, base:]``: the 0/1 parts OR-ed into
        ``packer`` at their ``obs_spec`` offsets and unpacked, then the scalars (computed in float64 and
        stored as float32, as the scalar builder packs Python floats)."""
        off = self._spec.offset
        B = self.num_envs
        rows = np.arange(0, 4 * B, 4)
        packer.clear(B)
        put = packer.put_at
        put(self.hands.reshape(-1)[rows + seat], base + off("hand"), 28)
        played_by = self.played_by.reshape(-1)
        knocks = self.knocks.reshape(-1)
        k0 = off("knocked")
        o = base + off("hand_counts")
        counts = []
        knocked = None
        for k in range(4):
            rel = rows + ((seat + k) & 3)  # flat index of (game, the seat at offset k)
            played = played_by[rel]
            put(played, base + off("played_by", k), 28)
            counts.append(popcount(played))
            kn = knocks[rel] << U64(off("knocked", k) - k0)
            knocked = kn if knocked is None else knocked | kn
        put(knocked, base + k0, 28)
        f0 = self._flags0
        flags = self._end_flags[self.ends[:, 0] * (NONE + 1) + self.ends[:, 1]]
        flags |= self._seat_flags[((self.leader - seat) & 3) * 4 + seat]
        opened = self.ledger.opened.reshape(-1)
        srel = np.arange(0, 2 * B, 2) + self.side_of[seat]
        code = (self.first_deal.view(np.uint8) | ((self.played == 0).view(np.uint8) << 1)
                | (opened[srel].view(np.uint8) << 2) | (opened[srel ^ 1].view(np.uint8) << 3))
        flags |= self._bool_flags[code]
        put(flags, base + f0, self._nbits - f0)
        packer.unpack(out[:, base:] if base else out)
        for k in range(4):  # a seat's tiles: its seven less those it played (no stock here)
            out[:, o + k] = self._count_value[7 - counts[k]]
        t = self._inv_target
        led = self.ledger
        for name, arr in (("scores", led.scores), ("memory", led.memory)):
            o = base + off(name)
            flat = arr.reshape(-1)
            out[:, o] = flat[srel] * t
            out[:, o + 1] = flat[srel ^ 1] * t
        out[:, base + off("eggs")] = led.eggs * t

    def observe(self, out: np.ndarray | None = None, seat: np.ndarray | None = None) -> np.ndarray:
        """``game.observe(state, seat)`` for every game (default: the seat to move)."""
        if out is None:
            out = np.empty((self.num_envs, self.obs_size), np.float32)
        self._view(self.current_player if seat is None else seat, out, self._packer, 0)
        return out

    def legal_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """The mask of ``legal_actions()`` (seed 000 §5: a fitting tile at each end it fits; the lead:
        ``11`` in the first deal, D1.5; the two-doubles move, D1.2)."""
        if out is None:
            out = np.empty((self.num_envs, self.num_actions), np.int8)
        n = self.num_players
        h = self.hands.reshape(-1)[np.arange(0, n * self.num_envs, n) + self.current_player]
        e0, e1 = self.ends[:, 0], self.ends[:, 1]
        m0 = h & _SUITX[e0]  # before the lead both ends are 8 (no end): nothing fits
        m1 = h & _SUITX[e1]
        li = np.flatnonzero(self.played == 0)
        m0[li] = h[li] & self.lead_mask[li]  # the lead (slot 0): 11 in the first deal, else any tile
        words = np.zeros((self.num_envs, 2), U64)
        words[:, 0] = spread2(m0) | (spread2(m1) << ONE)
        if self.rules.two_doubles:
            pair = _PAIR_ACTION_FLAT[e0 * (NONE + 1) + e1]  # -1 unless two different open numbers
            both = _DOUBLE_OF[e0] | _DOUBLE_OF[e1]
            ok = np.flatnonzero((pair >= 0) & ((h & both) == both))
            pa = pair[ok]
            lo = pa < 64
            words[ok[lo], 0] |= bit(pa[lo])
            words[ok[~lo], 1] |= bit(pa[~lo] - 64)
        self.legal_words = words
        unpack_mask(words, self.num_actions, out)
        return out

    def oracle(self, out: np.ndarray | None = None) -> np.ndarray:
        """``game.oracle(state)``: every hand, the stock, the seat to move, seat 0's observation."""
        g = self.game
        if out is None:
            out = np.empty((self.num_envs, self.oracle_size), np.float32)
        spec = g.oracle_spec
        pk = self._oracle_packer
        pk.clear(self.num_envs)
        dealt = np.zeros(self.num_envs, U64)
        for q in range(self.num_players):
            pk.put(self.hands[:, q], "hands", q, width=28)
            dealt |= self.hands[:, q]
        pk.put(U64(ALL_TILES) & ~(dealt | self.played), "stock_tiles", width=28)
        pk.put(bit(self.current_player), "to_move", width=self.num_players)
        pk.unpack(out)
        out[:, spec.offset("seat0_hand"):] = self.observe(seat=np.zeros(self.num_envs, np.int64))
        return out
