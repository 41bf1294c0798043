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

from ..cards.deck import NUM_CARDS, POINTS, SUIT_MASK
from ..cards.six_of_spades.game import STOCK_MAX
from ..cards.six_of_spades.tables import BEATEN_BY, HAND, MOLODKA, MOSKVA, NOT_SIX
from .bits import Packer, popcount

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
SLOT_SEL = ((_S[:, None] >> np.arange(HAND)) & 1).astype(U64)
"""``SLOT_SEL[s, j]``: 1 when slot ``j`` is in slot set ``s`` (a slot row times it, summed: the set's cards)."""
BB = np.zeros((4, NUM_CARDS + 1), U64)
"""``BB[trump, t]``: tables.BEATEN_BY, with a spare column (no top card: beaten by nothing)."""
BB[:, :NUM_CARDS] = np.array(BEATEN_BY, dtype=object).astype(U64)
POINT_MASKS = tuple((v, U64(sum(1 << c for c in range(NUM_CARDS) if POINTS[c] == v))) for v in sorted(set(POINTS)) if v)
"""Card points (deck.POINTS, C3.6) as (value, mask of the cards worth it)."""
SUITS = np.array(SUIT_MASK, U64)
_NOT_SIX = U64(NOT_SIX)
ALL = U64(0xFFFFFFFFFFFFFFFF)


def card_points(m: np.ndarray) -> np.ndarray:
    """Card points of each mask (deck.points)."""
    return sum(v * popcount(m & pm) for v, pm in POINT_MASKS)


def one_suit(m: np.ndarray) -> np.ndarray:
    """``tables.is_lead``: the cards other than ``6S`` are of one suit (or there are none)."""
    u = m & _NOT_SIX
    ok = u == 0
    for s in SUITS:
        ok |= (u & ~s) == 0
    return ok


def _rel(s: np.ndarray, r: np.ndarray, n: int) -> np.ndarray:
    return ((s - r) % n).astype(U64)


class Views:
    """The observation and oracle of a :class:`~kozel_env.vector.six_of_spades.BatchedSixOfSpades`."""

    def __init__(self, game):
        self.spec = game.obs_spec
        self.ospec = game.oracle_spec
        self.hidden = game.oracle_spec.offset("seat0_" + game.obs_spec.parts[0].name)  # where seat 0's view starts
        self.pk = Packer(self.spec, self.spec.size)
        self.opk = Packer(self.ospec, self.hidden)
        self.score_bits = game.score_bits

    def observe(self, e, r: np.ndarray, out: np.ndarray | None) -> np.ndarray:
        """``game.observe(state, r[b])`` of every game ``b`` (``_obs_int``, part by part)."""
        B, n, ns = e.num_envs, e.num_players, e.num_sides
        if out is None:
            out = np.empty((B, self.spec.size), np.float32)
        at = self.spec.offset
        pk = self.pk
        pk.clear(B)
        rows = np.arange(B)
        cp = e.current_player
        live = cp >= 0
        ph = e.phase
        pk.put_at(e.hands[rows, r], at("hand"), NUM_CARDS)
        pk.put_at(np.where(live & (cp == r), e.sel, U64(0)), at("selected"), NUM_CARDS)
        pk.put_at(np.where(live, ONE << np.minimum(ph, 2).astype(U64), U64(0)), at("phase"), 3)
        pk.put_at(np.where(live, ONE << _rel(cp, r, n), U64(0)), at("to_act"), n)
        pk.put_at(ONE << r.astype(U64), at("seat"), n)
        pk.put_at(ONE << e.trump_suit.astype(U64), at("trump_suit"), 4)
        pk.put_at(ONE << e.trump_card.astype(U64), at("trump_card"), NUM_CARDS)
        d = e.trump_drawn_by
        pk.put_at(np.where(d < 0, ONE, ONE << (_rel(d, r, n) + ONE)), at("trump_card_at"), n + 1)
        pk.put_count(e.stock_len, at("stock"), STOCK_MAX)
        pk.put_at(ONE << _rel(e.dealer, r, n), at("dealer"), n)
        pk.put_at(np.where(live, ONE << _rel(e.leader, r, n), U64(0)), at("leader"), n)
        lt = e.last_taker
        pk.put_at(np.where(lt >= 0, ONE << _rel(lt, r, n), U64(0)), at("last_taker"), n)
        answer = ph == 2
        calling = ph == 0
        calls_rel = np.zeros(B, U64)
        for q in range(n):
            s = (r + q) % n
            indeal = (e.in_deal >> s & 1) == 1
            h = e.hands[rows, s]
            pk.put_at(np.where(indeal, ONE << popcount(h).astype(U64), U64(0)), at("hand_sizes", q, 0), HAND + 1)
            pk.put_at(indeal.astype(U64), at("in_deal", q), 1)
            pk.put_at(e.round_up[rows, s], at("round_up", q), NUM_CARDS)
            pk.put_at((e.round_down[rows, s] != 0).astype(U64), at("round_down", q), 1)
            calls_rel |= ((e.calls >> (2 * s)) & 3).astype(U64) << U64(2 * q)
        z = U64(0)
        pk.put_at(np.where(answer, e.lead, z), at("lead"), NUM_CARDS)
        pk.put_at(np.where(answer, e.top, z), at("top"), NUM_CARDS)
        pk.put_at(np.where(answer, ONE << np.maximum(e.lead_size - 1, 0).astype(U64), z), at("lead_size"), HAND)
        pk.put_at(np.where(answer & (e.lead_call > 0), ONE << np.maximum(e.lead_call - 1, 0).astype(U64), z),
                  at("called"), 2)
        pk.put_at(np.where(answer, ONE << _rel(e.top_seat, r, n), z), at("on_top"), n)
        pk.put_at(np.where(answer, e.round_down[rows, r], z), at("own_down"), NUM_CARDS)
        asked = e.call_order[rows, np.minimum(e.call_index, HAND - 1)].astype(np.int64)
        offer = (ONE << U64(MOSKVA)) | np.where(e.stand_kind < 0, ONE << U64(MOLODKA), z)
        pk.put_at(np.where(calling, offer << (U64(2) * _rel(asked, r, n)), z), at("offer"), 2 * n)
        pk.put_at(np.where(calling, calls_rel, z), at("calls"), 2 * n)
        mydown = e.laid_down[rows, r]
        side_r = e.side_of[r]
        for dd in range(ns):
            sd = (side_r + dd) % ns
            tk = e.taken[rows, sd]
            took = e.tricks[rows, sd] > 0
            known = e.face_up[rows, sd] | (mydown & tk)
            pk.put_at(np.where(took, known, z), at("taken_known", dd), NUM_CARDS)
            pk.put_at(took.astype(U64), at("took_trick", dd), 1)
            pk.put_count(np.where(took, popcount(tk) - popcount(known), 0), at("taken_unseen", dd), NUM_CARDS - HAND)
            pk.put_count(e.ledger.scores[rows, sd], at("scores", dd), self.score_bits)
            pk.put_at(e.in_match[rows, sd].astype(U64), at("sides_in", dd), 1)
        pk.put_count(e.deals_played, at("deals_played"), e.rules.max_deals)
        pk.unpack(out)
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
