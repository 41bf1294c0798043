"""The batched Donkey engine: ``donkey_v0`` (seed 000 §11, RULES D4) for ``B`` games at once.

Donkey is the pairs line game of :mod:`.dominoes` (dealing, redeals, knocks, the fish, scoring with the
``"remember"`` threshold of D4.5, the match: all :class:`~kozel_env.vector.dominoes.BatchedDominoes`'), with
the line of :mod:`kozel_env.dominoes.donkey`: four end slots ``L R U D`` (``ends[B, 4]``), the house (D4.1),
closed doubles (D4.3) and moves of one to ``max_doubles`` doubles (D4.2) taken as consecutive actions of the
same player with "done". The action ids and every observation position are the scalar
:class:`~kozel_env.dominoes.donkey.DonkeyGame`'s (its ``obs_spec``); ``tests/vector/test_identity.py`` keeps
the two equal. Every rules option of ``donkey_v0`` that the scalar Donkey reads is honoured: ``house``,
``max_doubles``, ``closing``, ``close_lead`` and the dominoes options the base engine honours.

Extra state per game: ``house`` (this deal's house is down), ``move_slots`` (4-bit mask of the end slots
where the pending move of doubles may still add one, 0 when no move is pending); ``last_bits`` holds every
tile of the current (or last) move, as the scalar ``last_move`` tuple (the 00 / 66 final-move rules read it).
"""
from __future__ import annotations

import numpy as np

from ..dominoes.donkey import CLOSED, DONE, NUM_ACTIONS, SLOTS, DonkeyGame
from ..dominoes.donkey import E as NUM_SLOTS
from ..dominoes.engine import DEAD, NONE, SUITX
from ..dominoes.tiles import DOUBLE, HIGH, IS_DOUBLE, LOW, OTHER, tile_str
from .bits import ONE, U64, popcount, unpack_mask
from .dominoes import _FIRST_SET, _OPEN, _SUITX, BatchedDominoes

_NV = NONE + 1  # end values 0-8


def _action_tables() -> tuple:
    """Per action id: the tile it lays (bit), its slot, double / closed flags, and ``next_end[a, v]``: what
    an end showing ``v`` shows after ``a`` is laid there (the tile's other half; an open double keeps the
    number; a closed double is dead, RULES D4.3; "done" changes nothing)."""
    laid = np.zeros(NUM_ACTIONS, U64)
    slot = np.zeros(NUM_ACTIONS, np.int64)
    dbl = np.zeros(NUM_ACTIONS, bool)
    closed = np.zeros(NUM_ACTIONS, bool)
    next_end = np.tile(np.arange(_NV, dtype=np.int64), (NUM_ACTIONS, 1))
    for a in range(DONE):
        if a >= CLOSED:
            t, closed[a] = DOUBLE[(a - CLOSED) // NUM_SLOTS], True
        else:
            t = a // NUM_SLOTS
        laid[a], slot[a], dbl[a] = 1 << t, a % NUM_SLOTS, IS_DOUBLE[t]
        for v in range(7):
            next_end[a, v] = DEAD if closed[a] else (v if dbl[a] else (OTHER[t][v] if OTHER[t][v] >= 0 else NONE))
    return laid, slot, dbl, closed, next_end.reshape(-1)


_LAID, _SLOT, _DBL, _CLOSED, _NEXT_END = _action_tables()
_DBL_POS = np.array([DOUBLE[v] if v < 7 else 63 for v in range(_NV)], U64)
"""``_DBL_POS[v]``: the bit of the double ``vv`` (63, never a tile, for a dead or missing end)."""
_DOUBLE_BIT = np.array([1 << DOUBLE[v] if v < 7 else 0 for v in range(_NV)], U64)
_SLOT_BIT = np.array([1 << s for s in range(NUM_SLOTS)], np.int64)
_SPREAD4 = np.zeros(1 << 16, U64)
for _k in range(16):
    _SPREAD4[np.arange(1 << 16) >> _k & 1 == 1] |= U64(1 << (4 * _k))
"""``_SPREAD4[x]``: bit ``k`` of a 16-bit ``x`` at bit ``4 k`` (tile ``t`` at slot ``s``: action ``4 t + s``)."""
_M16, _S16 = U64(0xFFFF), U64(16)
_NIBBLES = U64(15)


def _fit_words(s0: int, s1: int) -> np.ndarray:
    """``[2, 81]``: for ends ``(e, f)`` at slots ``s0, s1`` (index ``9 e + f``), the action bits of every tile
    that fits them (``4 t + slot``), tiles 0-15 in word 0 and 16-27 in word 1."""
    out = np.zeros((2, _NV * _NV), U64)
    for e in range(_NV):
        for f in range(_NV):
            bits = sum(1 << (4 * t + s0) for t in range(28) if SUITX[e] >> t & 1)
            bits |= sum(1 << (4 * t + s1) for t in range(28) if SUITX[f] >> t & 1)
            out[:, e * _NV + f] = bits & ((1 << 64) - 1), bits >> 64
    return out


_FIT01, _FIT23 = _fit_words(0, 1), _fit_words(2, 3)
"""The fitting placements of slots L R and of slots U D by their two end values."""
_CLOSED_FROM = ((0, 0, 1, 48), (0, 28, 1, 52), (0, 52, 1, 56), (1, 8, 1, 60), (1, 24, 2, 0), (1, 36, 2, 4),
                (1, 44, 2, 8))
"""Double ``vv`` closed (ids ``112 + 4 v + slot``) is legal at the slots where it is legal open (ids
``4 DOUBLE[v] + slot``): per ``v``, (word, shift) of the open nibble and (word, shift) of the closed one."""
assert all(64 * w + sh == 4 * DOUBLE[v] and 64 * cw + csh == CLOSED + 4 * v
           for v, (w, sh, cw, csh) in enumerate(_CLOSED_FROM))


def _action_words(action: int) -> np.ndarray:
    w = np.zeros(3, U64)
    w[action >> 6] = U64(1 << (action & 63))
    return w


_OPEN_WORDS = np.zeros((NUM_SLOTS, _NV, 3), U64)
_CLOSED_WORDS = np.zeros((NUM_SLOTS, _NV, 3), U64)
for _s in range(NUM_SLOTS):
    for _v in range(7):
        _OPEN_WORDS[_s, _v] = _action_words(DOUBLE[_v] * NUM_SLOTS + _s)
        _CLOSED_WORDS[_s, _v] = _action_words(CLOSED + _v * NUM_SLOTS + _s)
"""``_OPEN_WORDS[s, v]`` / ``_CLOSED_WORDS[s, v]``: the packed mask bit of laying ``vv`` open / closed at
slot ``s`` (zero for a dead or missing end)."""
_DONE_WORDS = _action_words(DONE)
assert DONE >> 6 == 2  # "done" lies in the third mask word


class BatchedDonkey(BatchedDominoes):
    engine_id = "donkey"
    game_class = DonkeyGame
    STATE = BatchedDominoes.STATE + ("house", "move_slots")

    def __init__(self, game: DonkeyGame, num_envs: int, single_deal: bool = False):
        super().__init__(game, num_envs, single_deal)
        r = self.rules
        B = self.num_envs
        self.house = np.zeros(B, bool)
        self.move_slots = np.zeros(B, np.int64)
        self._house_rule = r.house
        self._closing = r.closing
        self._close_lead = r.closing and r.close_lead
        self._max_doubles = r.max_doubles
        lead = np.full((NUM_ACTIONS, NUM_SLOTS), NONE, np.int64)
        for a in range(DONE):  # the lead (RULES D4.1, D4.3): ends L R, or a house's four
            t = DOUBLE[(a - CLOSED) // NUM_SLOTS] if a >= CLOSED else a // NUM_SLOTS
            v = DEAD if _CLOSED[a] else LOW[t]
            if IS_DOUBLE[t]:
                lead[a] = [v] * NUM_SLOTS if r.house else [v, v, NONE, NONE]
            else:
                lead[a, :2] = LOW[t], HIGH[t]
        self._lead_ends = lead
        off = game.obs_spec.offset
        self._house_at = off("house")
        self._ud_at = (off("ends", 2), off("ends", 3))
        self._move_at = off("move_tiles")
        assert off("move_slots") == self._move_at + 28 and off("move_slots") + NUM_SLOTS == self._nbits

    def _start_deal(self, idx: np.ndarray) -> None:
        """The base deal, and no house and no pending move (RULES D4.1-2)."""
        super()._start_deal(idx)
        self.house[idx] = False
        self.move_slots[idx] = 0

    # -- a decision ------------------------------------------------------------------------------------
    def apply(self, actions: np.ndarray) -> None:
        """One action in every game: a tile at an end (a double open or closed, RULES D4.3), the house
        (D4.1), a double joining a move of doubles or "done" (D4.2); then, when the move is over, the next
        seat, knocks, the fish (D4.4) or going out (seed 000 §5-6), as the scalar ``DonkeyState``."""
        a, p, at = self._begin_decision(actions)
        B = self.num_envs
        laid = _LAID[a]
        slot = _SLOT[a]
        ends = self.ends
        flat_ends = ends.reshape(-1)
        pending = self.move_slots
        continuing = pending != 0
        self.move_slots = np.zeros(B, np.int64)  # set again where the move goes on
        lead = self.played == 0
        dbl = _DBL[a]
        if self._max_doubles > 1:  # the ends that show a number at the start of the move (D4.2)
            d = np.flatnonzero(dbl & ~lead)
            shown = (ends[d] < 7) * _SLOT_BIT
            start_open = shown[:, 0] | shown[:, 1] | shown[:, 2] | shown[:, 3]
        pos = 4 * np.arange(B) + slot
        v = flat_ends[pos]
        flat_ends[pos] = _NEXT_END[a * _NV + v]  # the lead's rows are set below
        if self._house_rule:  # the first double of the deal is the house: U and D open with it (D4.1)
            hs = np.flatnonzero(dbl & ~self.house & ~lead)
            if len(hs):
                ends[hs, 2] = ends[hs, 3] = _NEXT_END[a[hs] * _NV + v[hs]]
                self.house[hs] = True
        li = np.flatnonzero(lead)
        if len(li):
            ends[li] = self._lead_ends[a[li]]
            if self._house_rule:
                self.house[li] = dbl[li]
        hands = self.hands.reshape(-1)
        left = hands[at] & ~laid
        hands[at] = left
        self.played_by.reshape(-1)[at] |= laid
        self.played |= laid
        self.last_mover[:] = p
        self.last_bits = np.where(continuing, self.last_bits | laid, laid)
        goes_on = np.zeros(B, bool)
        if self._max_doubles > 1:
            keep = left[d] != 0
            c = d[keep]
            goes_on[c] = self._move_goes_on(c, np.where(continuing[c], pending[c], start_open[keep]), slot[c])
        self._after_move(p, at, left, goes_on)

    def _move_goes_on(self, c: np.ndarray, slots: np.ndarray, slot: np.ndarray) -> np.ndarray:
        """In games ``c``, where a double was just laid at ``slot`` in a move that may use the end slots
        ``slots`` (a 4-bit mask), may the move of doubles go on (RULES D4.2)? While ``max_doubles`` is not
        reached (the hand is not empty there) and some end that showed its number at the start of the move,
        took no double in it and whose double is not on the table remains: public, the mover is asked
        whatever it holds. Sets ``move_slots``."""
        ends = self.ends[c]
        ms = slots & ~_SLOT_BIT[slot]
        free = ~self.played[c]
        room = np.zeros(len(c), bool)
        for s in range(NUM_SLOTS):
            room |= ((ms >> s) & 1).astype(bool) & ((_DOUBLE_BIT[ends[:, s]] & free) != 0)
        on = room & (popcount(self.last_bits[c]) < self._max_doubles)
        self.move_slots[c] = np.where(on, ms, 0)
        return on

    def _after_move(self, p: np.ndarray, at: np.ndarray, left: np.ndarray, goes_on: np.ndarray) -> None:
        """Where the move is over (not ``goes_on``): going out, the next seat that holds a fitting tile and
        knocks of the seats before it (RULES D1.3), or the fish when nobody can play at the open ends
        (D4.4; dead ends take nothing) -- the scalar ``_after_move``."""
        ends = self.ends
        fit = _SUITX[ends[:, 0]] | _SUITX[ends[:, 1]] | _SUITX[ends[:, 2]] | _SUITX[ends[:, 3]]
        hands = self.hands.reshape(-1)
        base = at - p
        code = np.zeros(self.num_envs, np.intp)
        for i in range(4):  # the next seats clockwise, the mover last: who holds a fitting tile
            code |= ((hands[base + ((p + 1 + i) & 3)] & fit) != 0).astype(np.intp) << i
        nxt = _FIRST_SET[code]  # 4: nobody can play
        out = left == 0
        moving = (nxt < 4) & ~out
        self.current_player[:] = np.where(moving & ~goes_on, (p + 1 + nxt) & 3, p)
        skipped = np.flatnonzero(~goes_on & ~out & (code & 1 == 0))  # seats that cannot follow knock
        if len(skipped):
            e = ends[skipped]
            numbers = _OPEN[e[:, 0]] | _OPEN[e[:, 1]] | _OPEN[e[:, 2]] | _OPEN[e[:, 3]]
            until = nxt[skipped]
            knocks = self.knocks.reshape(-1)
            for i in range(4):
                k = np.flatnonzero(until > i)
                knocks[4 * skipped[k] + ((p[skipped[k]] + 1 + i) & 3)] |= numbers[k]
        ended = np.flatnonzero(~goes_on & (out | ~moving))
        if len(ended):
            self._end_deal(ended, out[ended])

    def move_names(self, b: int, actions: list) -> list:
        """``"id=notation"`` in the scalar Donkey's notation (``35``, ``35L``, ``33Ux``, ``11x``, ``done``)."""
        names = []
        for a in actions:
            if a == DONE:
                names.append(f"{a}=done")
                continue
            t = DOUBLE[(a - CLOSED) // NUM_SLOTS] if a >= CLOSED else a // NUM_SLOTS
            where = "" if self.played[b] == 0 else SLOTS[a % NUM_SLOTS]
            names.append(f"{a}={tile_str(t)}{where}{'x' if a >= CLOSED else ''}")
        return names

    # -- views -----------------------------------------------------------------------------------------
    def _view(self, seat: np.ndarray, out: np.ndarray, packer, base: int) -> None:
        """The base observation (every part up to ``opened`` and the scalars, at the ``obs_spec`` offsets
        of the Donkey layout, slots L and R of ``ends`` among them), then the Donkey's own parts: ``ends``
        U and D, ``house``, and the pending move's ``move_tiles`` / ``move_slots``."""
        super()._view(seat, out, packer, base)
        rows = np.arange(self.num_envs)
        for s, o in zip((2, 3), self._ud_at):
            out[rows, base + o + self.ends[:, s]] = 1.0
        out[:, base + self._house_at] = self.house
        mid = np.flatnonzero(self.move_slots != 0)
        if len(mid):
            move = self.last_bits[mid] | (self.move_slots[mid].astype(U64) << U64(28))
            b = move.astype("<u8").view(np.uint8).reshape(len(mid), 8)
            o = base + self._move_at
            out[mid, o:o + 28 + NUM_SLOTS] = np.unpackbits(b, axis=1, count=28 + NUM_SLOTS, bitorder="little")

    def legal_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """The mask of ``legal_actions()``: every fitting tile at every end it fits, a double also closed
        (RULES D4.3); the lead: ``11`` in the first deal (D1.5), closed only with ``close_lead``; in a move
        of doubles, the doubles that may join it at its ``move_slots`` and "done" (D4.2)."""
        B = self.num_envs
        if out is None:
            out = np.empty((B, self.num_actions), np.int8)
        h = self.hands[np.arange(B), self.current_player]
        e = self.ends
        fit01 = e[:, 0] * _NV + e[:, 1]
        fit23 = e[:, 2] * _NV + e[:, 3]
        # each tile of the hand as a nibble of ones, ANDed with the placements that fit (4 t + slot)
        w = [_SPREAD4[(h & _M16).astype(np.intp)] * _NIBBLES & (_FIT01[0][fit01] | _FIT23[0][fit23]),
             _SPREAD4[(h >> _S16).astype(np.intp)] * _NIBBLES & (_FIT01[1][fit01] | _FIT23[1][fit23]),
             np.zeros(B, U64)]
        if self._closing:
            self._add_closed(w)
        li = np.flatnonzero(self.played == 0)
        if len(li):
            for k, part in enumerate(self._lead_words(h[li] & self.lead_mask[li])):
                w[k][li] = part
        mid = np.flatnonzero(self.move_slots != 0)
        if len(mid):
            for k, part in enumerate(self._move_words(h[mid], self.move_slots[mid], self.ends[mid])):
                w[k][mid] = part
        words = np.stack(w, axis=1)
        self.legal_words = words
        unpack_mask(words, self.num_actions, out)
        return out

    @staticmethod
    def _add_closed(words: list) -> None:
        """Each double laid closed wherever it may be laid open (RULES D4.3); ``words``: the three mask
        words, each a ``uint64`` array."""
        for w, sh, cw, csh in _CLOSED_FROM:
            words[cw] |= ((words[w] >> U64(sh)) & _NIBBLES) << U64(csh)

    def _lead_words(self, m: np.ndarray) -> list:
        """The lead's mask words: each tile of ``m`` at slot 0; a double also closed with ``close_lead``."""
        words = [_SPREAD4[(m & _M16).astype(np.intp)], _SPREAD4[(m >> _S16).astype(np.intp)], np.zeros(len(m), U64)]
        if self._close_lead:
            for v in range(7):
                has = (m >> _DBL_POS[v]) & ONE
                for k in range(3):
                    words[k] |= has * _CLOSED_WORDS[0, v, k]
        return words

    def _move_words(self, h: np.ndarray, ms: np.ndarray, ends: np.ndarray) -> list:
        """In a move of doubles, the mask words: each double of ``h`` that shows at a slot of ``ms``, open
        (and closed with ``closing``), and "done" (RULES D4.2)."""
        n = len(h)
        words = [np.zeros(n, U64), np.zeros(n, U64), np.full(n, _DONE_WORDS[2])]
        for s in range(NUM_SLOTS):
            e = ends[:, s]
            has = ((ms >> s) & 1).astype(U64) & (h >> _DBL_POS[e]) & ONE
            words[0] |= has * _OPEN_WORDS[s, :, 0][e]
            words[1] |= has * _OPEN_WORDS[s, :, 1][e]
        if self._closing:
            self._add_closed(words)
        return words
