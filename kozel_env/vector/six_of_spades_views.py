"""Tables and views of the batched ``six_of_spades_v0`` engine (:mod:`kozel_env.vector.six_of_spades`): the
set-building tables over hand *slots* and the observation / oracle rows, every position from the scalar
``obs_spec`` / ``oracle_spec`` (:mod:`kozel_env.cards.six_of_spades.game`).

A hand holds at most four cards (seed 1, C3.1 / C3.4); at the start of a turn its cards, in increasing card
id, are the *slots* 0..3, and a set of cards from it is a 4-bit slot mask. A family of legal sets (the
scalar ``legal_sets``) is then a 16-bit mask over slot masks, and the scalar ``next_cards`` and ``covers``
become lookups: :data:`NEXT` (the next slots that may be chosen) and :data:`COVER` (the slot sets that beat
the top cards one for one, seed 5 / C3.3, from the 4 x 4 "slot beats top card" matrix).
"""
from __future__ import annotations

from itertools import permutations

import numpy as np

from ..cards.deck import NUM_CARDS, POINTS, SUIT_MASK, SUIT_OF
from ..cards.six_of_spades.game import STOCK_MAX
from ..cards.six_of_spades.tables import BEATEN_BY, HAND, MOLODKA, MOSKVA, NOT_SIX, PH_ANSWER, PH_CALL
from .bits import Columns, Packer, popcount

U64 = np.uint64
ONE = U64(1)
_S = np.arange(16)
SIZE = np.array([bin(s).count("1") for s in range(16)], np.int64)
"""Cards in slot set ``s``."""
VALID = np.array([sum(1 << s for s in range(1, 16) if not s >> hs) for hs in range(HAND + 1)], np.int64)
"""``VALID[hs]``: the non-empty slot sets of a hand of ``hs`` cards."""
SUBS = np.array([[sum(1 << s for s in range(1, 16) if not s >> hs and SIZE[s] == k) for hs in range(HAND + 1)]
                 for k in range(HAND + 1)], np.int64)
"""``SUBS[k, hs]``: the slot sets of ``k`` cards of a hand of ``hs`` (the answers to a lead of ``k``, C3.3)."""


def _next_table() -> np.ndarray:
    """``NEXT[fam * 16 + chosen]``: the scalar ``tables.next_cards`` over slot sets (a set ``u`` of ``fam`` with
    ``chosen`` its smallest members offers its next member)."""
    fam = np.arange(1 << 16, dtype=np.int64)
    out = np.zeros((1 << 16, 16), np.uint8)
    for c in range(16):
        low = (1 << c.bit_length()) - 1
        for u in range(1, 16):
            if u & low == c and u != c:
                r = u ^ c
                out[:, c] |= np.where(fam >> u & 1, r & -r, 0).astype(np.uint8)
    return out.reshape(-1)


def _cover_table() -> np.ndarray:
    """``COVER[m]``: the slot sets ``S`` of ``k`` cards that beat top cards 0..k-1 one for one (a perfect
    matching, ``tables.covers``), bit ``4 * i + j`` of ``m`` saying that slot ``i`` beats top card ``j``."""
    m = np.arange(1 << 16, dtype=np.int64)
    out = np.zeros(1 << 16, np.int64)
    for s in range(1, 16):
        slots = [i for i in range(4) if s >> i & 1]
        ok = np.zeros(1 << 16, bool)
        for perm in permutations(range(len(slots))):
            e = np.ones(1 << 16, bool)
            for i, j in zip(slots, perm):
                e &= (m >> (4 * i + j) & 1) == 1
            ok |= e
        out |= ok.astype(np.int64) << s
    return out


def _close_table() -> np.ndarray:
    """``CLOSE[building * 2**20 + fam * 16 + chosen]``: the chosen slots after every forced card (the scalar
    ``settle``: a card is forced when it is the one legal action). An answer (``building = 1``) takes the
    next slot while it is the only one offered; a lead (``building = 0``) only as its first card (once a card
    is chosen, ``lead`` is legal too)."""
    key = np.arange(1 << 20, dtype=np.int64)
    first = NEXT[key & ~15]
    lead = np.where((key & 15 == 0) & (SIZE[first] == 1), first, key & 15)
    ss = key & 15
    for _ in range(HAND):
        nx = NEXT[(key & ~15) | ss]
        ss = np.where(SIZE[nx] == 1, ss | nx, ss)
    return np.concatenate([lead, ss]).astype(np.uint8)


NEXT = _next_table()
COVER = _cover_table()
CLOSE = _close_table()
STEP = CLOSE | (NEXT[(np.arange(2 << 20) & ((1 << 20) - 1) & ~15) | CLOSE] << 4)
"""``STEP[building * 2**20 + fam * 16 + chosen]``: ``CLOSE`` (the low 4 bits) and the next slots offered after
it (``NEXT``, the high 4 bits): one lookup for a turn's forced cards and its legal cards."""
SLOT_SEL = ((_S[:, None] >> np.arange(HAND)) & 1).astype(U64)
"""``SLOT_SEL[s, j]``: 1 when slot ``j`` is in slot set ``s`` (a slot row times it, summed: the set's cards)."""
BB = np.zeros((4, NUM_CARDS + 1), U64)
"""``BB[trump, t]``: tables.BEATEN_BY, with a spare column (no top card: beaten by nothing)."""
BB[:, :NUM_CARDS] = np.array(BEATEN_BY, dtype=object).astype(U64)
_PIECE = U64(0xFFF)
_PIECE_POINTS = [np.array([sum(POINTS[12 * k + c] for c in range(12) if x >> c & 1) for x in range(1 << 12)], np.int64)
                 for k in range(NUM_CARDS // 12)]
"""``_PIECE_POINTS[k][x]``: the points of the cards ``12 k + c`` for the bits ``c`` of ``x`` (deck.POINTS)."""
SUITS = np.array(SUIT_MASK, U64)
_NOT_SIX = U64(NOT_SIX)
ALL = U64(0xFFFFFFFFFFFFFFFF)


def card_points(m: np.ndarray) -> np.ndarray:
    """Card points of each mask (deck.points), by 12-card pieces (``_PIECE_POINTS``)."""
    return (_PIECE_POINTS[0][m & _PIECE] + _PIECE_POINTS[1][(m >> U64(12)) & _PIECE]
            + _PIECE_POINTS[2][m >> U64(24)])


_OFF_SUIT = np.zeros(65, U64)
"""``_OFF_SUIT[c]``: the cards not of card ``c``'s suit (``c = 64``, no card: none)."""
_OFF_SUIT[:NUM_CARDS] = [~SUITS[SUIT_OF[c]] for c in range(NUM_CARDS)]


def one_suit(m: np.ndarray) -> np.ndarray:
    """``tables.is_lead``: the cards other than ``6S`` are of one suit (or there are none): none is off the
    suit of the lowest."""
    u = m & _NOT_SIX
    return (u & _OFF_SUIT[np.bitwise_count((u & -u) - ONE)]) == 0


def _rel(s: np.ndarray, r: np.ndarray, n: int) -> np.ndarray:
    return ((s - r) % n).astype(U64)


def _bit(x: np.ndarray) -> np.ndarray:
    return ONE << x.astype(U64)


_THERMO = np.array([(1 << c) - 1 for c in range(65)], U64)


def _thermo(count: np.ndarray, width: int) -> list:
    """The 64-bit pieces of a thermometer of ``count`` ones (``count >= 0``) capped at ``width``
    (``Packer.put_count``)."""
    if width <= 64:
        return [_THERMO[np.minimum(count, width)]]
    out = []
    for start in range(0, width, 64):
        c = np.clip(count - start, 0, min(64, width - start)).astype(U64)
        out.append(np.where(c >= 64, ALL, (ONE << np.minimum(c, U64(63))) - ONE))
    return out


class Views:
    """The observation and oracle of a :class:`~kozel_env.vector.six_of_spades.BatchedSixOfSpades`."""

    def __init__(self, game):
        self.spec = game.obs_spec
        self.ospec = game.oracle_spec
        self.hidden = game.oracle_spec.offset("seat0_" + game.obs_spec.parts[0].name)  # where seat 0's view starts
        self.pk = Packer(self.spec, self.spec.size)
        self.opk = Packer(self.ospec, self.hidden)
        self.score_bits = game.score_bits
        self.max_deals = game.rules.max_deals
        self.cols = Columns()
        self.layout = self._layout(game.num_players, game.num_sides)
        n, ns = game.num_players, game.num_sides
        self.rel = np.array([[0 if x < 0 else 1 << (x - r) % n for r in range(n)] for x in range(-1, n)], U64)
        """``rel[x + 1, r]``: seat ``x`` as seen from seat ``r``, one bit (0 for ``x = -1``: nobody)."""
        self.rot = (np.arange(n)[:, None] + np.arange(n)) % n
        """``rot[r, q]``: the seat ``q`` places clockwise from seat ``r`` (relative seat ``q`` of observer ``r``)."""
        self.side_rot = (np.arange(ns)[:, None] + np.arange(ns)) % ns
        """``side_rot[sd, dd]``: the side ``dd`` places after side ``sd`` (relative side ``dd``)."""
        self.qbit = ONE << np.arange(n, dtype=U64)
        self.ones = np.ones(n, U64)
        self.size_shift = (np.arange(n) * (HAND + 1)).astype(U64)
        """Where relative seat ``q``'s ``hand_sizes`` one-hot starts in their column (``_layout``)."""
        self._base = (-1,)
        """The batch size last observed and the flat offsets of each game's ``call_order``, seat and side rows."""

    def _layout(self, n: int, ns: int) -> tuple:
        """(position, width) of every column :meth:`observe` builds, in its order (from ``obs_spec``)."""
        at = self.spec.offset
        out = []

        def lay(name, width, *index):
            for start in range(0, width, 64):  # a thermometer wider than a word: 64-bit pieces
                out.append((at(name, *index) + start, min(64, width - start)))

        for name, width in (("hand", NUM_CARDS), ("selected", NUM_CARDS), ("phase", 3), ("to_act", n), ("seat", n),
                            ("trump_suit", 4), ("trump_card", NUM_CARDS), ("trump_card_at", n + 1),
                            ("stock", STOCK_MAX), ("dealer", n), ("leader", n), ("last_taker", n)):
            lay(name, width)
        for name, width in (("hand_sizes", HAND + 1), ("in_deal", 1), ("round_up", NUM_CARDS), ("round_down", 1)):
            if width == NUM_CARDS:
                for q in range(n):
                    lay(name, width, q)
                continue
            index = [(q, 0) if name == "hand_sizes" else (q,) for q in range(n)]  # one row: the seats side by side
            assert [at(name, *i) for i in index] == [at(name, *index[0]) + q * width for q in range(n)], name
            out.append((at(name, *index[0]), n * width))
        for name, width in (("lead", NUM_CARDS), ("top", NUM_CARDS), ("lead_size", HAND), ("called", 2),
                            ("on_top", n), ("own_down", NUM_CARDS), ("offer", 2 * n), ("calls", 2 * n)):
            lay(name, width)
        for name, width in (("taken_known", NUM_CARDS), ("took_trick", 1), ("taken_unseen", NUM_CARDS - HAND),
                            ("scores", self.score_bits), ("sides_in", 1)):
            for start in range(0, width, 64):
                for dd in range(ns):
                    out.append((at(name, dd) + start, min(64, width - start)))
        lay("deals_played", self.max_deals)
        return tuple(out)

    def observe(self, e, r: np.ndarray, out: np.ndarray | None) -> np.ndarray:
        """``game.observe(state, r[b])`` of every game ``b`` (``_obs_int``, part by part): every part a column
        of one ``uint64`` matrix (:meth:`_layout` says where each goes; the one-bit-per-seat parts, and the
        hand sizes, as one column of the seats side by side), packed by :class:`~kozel_env.vector.bits.Columns`.
        The seats' rows are read with flat indices (``rot``: the relative seats of each observer)."""
        B, n, ns = e.num_envs, e.num_players, e.num_sides
        if out is None:
            out = np.empty((B, self.spec.size), np.float32)
        z = U64(0)
        if self._base[0] != B:  # the last batch size only (an opponents' sub-batch changes size every step)
            rows = np.arange(B)
            self._base = (B, rows * HAND, rows[:, None] * n, rows[:, None] * ns)
        _, order_base, seat_base, side_base = self._base
        cp, ph = e.current_player, e.phase
        live = cp >= 0
        answer, calling = ph == PH_ANSWER, ph == PH_CALL
        fl = self.rot.take(r, axis=0) + seat_base  # flat index of relative seat q: fl[:, q]
        own = fl[:, 0]
        h = e.hands.ravel().take(fl)
        r2 = 2 * r
        indeal = (e.in_deal | e.in_deal << n) >> r & ((1 << n) - 1)  # the seats in the deal, relative
        rn = r + n
        rf = self.rel.ravel()

        def rel(x):  # seat x as seen from r (``self.rel[x + 1, r]``)
            return rf.take(x * n + rn)

        d = e.trump_drawn_by
        sizes = np.where((indeal[:, None] >> np.arange(n)) & 1, ONE << (np.bitwise_count(h) + self.size_shift), z)
        sizes = sizes @ self.ones  # the seats' one-hots side by side (disjoint: their sum)
        first = [h[:, 0], np.where(live & (cp == r), e.sel, z), np.where(live, ONE << np.minimum(ph, 2).astype(U64), z),
                 rel(cp), _bit(r), _bit(e.trump_suit), _bit(e.trump_card),
                 np.where(d < 0, ONE, rel(d) << ONE), *_thermo(e.stock_len, STOCK_MAX), rel(e.dealer),
                 rel(np.where(live, e.leader, -1)), rel(e.last_taker), sizes, indeal.astype(U64)]
        asked = e.call_order.ravel().take(order_base + np.minimum(e.call_index, HAND - 1)).astype(np.int64)
        offer = (ONE << U64(MOSKVA)) | np.where(e.stand_kind < 0, ONE << U64(MOLODKA), z)
        calls = e.calls | e.calls << 2 * n
        calls_rel = (calls >> r2 & ((1 << 2 * n) - 1)).astype(U64)
        call = np.maximum(e.lead_call - 1, 0).astype(U64)
        second = [np.where(answer, e.lead, z), np.where(answer, e.top, z),
                  np.where(answer, ONE << np.maximum(e.lead_size - 1, 0).astype(U64), z),
                  np.where(answer & (e.lead_call > 0), ONE << call, z),
                  rel(np.where(answer, e.top_seat, -1)), np.where(answer, e.round_down.ravel().take(own), z),
                  np.where(calling, offer << (U64(2) * _rel(asked, r, n)), z), np.where(calling, calls_rel, z)]
        sfl = self.side_rot.take(e.side_of.take(r), axis=0) + side_base  # flat index of relative side dd: sfl[:, dd]
        tk = e.taken.ravel().take(sfl)
        took = e.tricks.ravel().take(sfl) > 0
        known = e.face_up.ravel().take(sfl) | (e.laid_down.ravel().take(own)[:, None] & tk)
        sides = [np.where(took, known, z), took.astype(U64),
                 *_thermo(np.where(took, popcount(tk) - popcount(known), 0), NUM_CARDS - HAND),
                 *_thermo(e.ledger.scores.ravel().take(sfl), self.score_bits), e.in_match.ravel().take(sfl).astype(U64)]
        downs = (e.round_down.ravel().take(fl) != 0) @ self.qbit
        rows_ = [*first, *e.round_up.ravel().take(fl).T, downs, *second, *(x for v in sides for x in v.T),
                 *_thermo(e.deals_played, self.max_deals)]
        self.cols.pack(rows_, self.layout, self.spec.size, out)
        return out

    def oracle(self, e, out: np.ndarray | None) -> np.ndarray:
        """``game.oracle(state)``: every hand, the face-down cards, the stock and its next card, the selection,
        the seat to move, then seat 0's observation."""
        B, n = e.num_envs, e.num_players
        if out is None:
            out = np.empty((B, self.ospec.size), np.float32)
        at = self.ospec.offset
        pk = self.opk
        pk.clear(B)
        for s in range(n):
            pk.put_at(e.hands[:, s], at("hands", s), NUM_CARDS)
            pk.put_at(e.laid_down[:, s], at("down_cards", s), NUM_CARDS)
        pk.put_at(e.stock_mask, at("stock_cards"), NUM_CARDS)
        rows = np.arange(B)
        nxt = e.deck[rows, np.maximum(e.stock_base + e.stock_len - 1, 0)].astype(U64)
        pk.put_at(np.where(e.stock_len > 0, ONE << nxt, U64(0)), at("next_card"), NUM_CARDS)
        pk.put_at(e.sel, at("selection"), NUM_CARDS)
        cp = e.current_player
        pk.put_at(np.where(cp >= 0, ONE << np.maximum(cp, 0).astype(U64), U64(0)), at("to_move"), n)
        pk.unpack(out)
        self.observe(e, np.zeros(B, np.int64), out[:, self.hidden:])
        return out
