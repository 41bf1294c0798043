"""``six_of_spades_v0`` batched (issue 16): ``B`` matches of one rules config as NumPy arrays, one decision
applied in every match at once, bit for bit the scalar engine :mod:`kozel_env.cards.six_of_spades`.

Rules sources as in the scalar package ("seed" is ``seeds/004_9d68d233d10b2b72.txt``, "C3.n" is RULES.md):
the deal and the trump card (C3.1), ranks and beating (C3.2), the round: a lead, answers on top or face down,
the taker (C3.3), the refill (C3.4), Moskva and Molodka (C3.5), the deal's penalties (C3.6) and the match
(C3.7). Every number comes from the scalar tables (``tables.BEATEN_BY``, ``deck.POINTS``, the rules config),
and every observation position from the scalar ``obs_spec`` (:mod:`.six_of_spades_views`).

The state differs from the scalar state only in representation: card sets are ``uint64`` masks; the deal is
the shuffled ``deck`` with the stock its slice ``deck[stock_base : stock_base + stock_len]`` (drawn from the
end, the trump card ``deck[stock_base]`` last); the answer and call orders are seat rows with a count; the
calls made before a lead are a mask (bit ``2 * seat + kind``) and the standing one (``stand_seat``,
``stand_kind``); the legal sets of the lead or answer being built (and the beating ones) are 16-bit families
over the hand's *slots* (its cards in increasing id, ``slots``), the chosen cards ``sel`` also as ``sel_slots``;
``legal`` keeps the legal actions the last settle found (what ``legal_mask`` returns). A round's fields
are cleared only where they would be read before being set: a round's start clears the call question's
fields and the selection, ``_lay_lead`` sets the lead's (the observation shows them only while answering).
Forced steps (the scalar ``settle``) are taken in passes over the games that still have one, each pass
cheap for few games: a pass chooses every forced card of a set at once (``CLOSE``; with the next legal
cards, one ``STEP`` lookup) before the forced ``lead`` / ``beat`` / ``down``; a chosen card's forced steps
join the step's own actions (``apply``); the rounds that end in a pass finish together and the turns begun
in it are set up together (``_flush``), which takes the end of a deal's forced one-card leads and downs on
the spot. A few deals that end in a pass deal the next ones in that pass (``_deal_over``); more (a large
batch, whose deals end in several passes) wait, holding no legal action, and end with the step's others
once no forced step is left (``_deals_end``): one deal end and one new deal per step.
"""
from __future__ import annotations

import numpy as np

from ..cards.deck import NUM_CARDS
from ..cards.six_of_spades.game import SixOfSpadesGame
from ..cards.six_of_spades.tables import (
    A_BEAT,
    A_DOWN,
    A_LEAD,
    A_MOSKVA,
    A_PASS,
    ACES,
    HAND,
    MOLODKA,
    MOSKVA,
    MOSKVA_CARDS,
    PH_ANSWER,
    PH_CALL,
    PH_LEAD,
    PH_OVER,
)
from .bits import lowest_bit_index, popcount
from .engine import BatchedGame
from .ledger import BatchedLedger
from .six_of_spades_deal import DealFlow
from .six_of_spades_views import BB, COVER, NEXT, SIZE, SLOT_SEL, STEP, SUBS, VALID, Views, one_suit

U64 = np.uint64
ONE = U64(1)
_S16 = np.arange(16)
_MANY_OVER = 3
"""Deals ending together in a pass from which they wait for the step's others (``_deal_over``)."""
_MAT = np.left_shift(1, np.arange(HAND * HAND))
"""``_MAT[4 i + j]``: bit ``4 i + j`` of the "slot ``i`` beats top card ``j``" matrix (``COVER``'s index)."""
_POW16 = np.left_shift(1, _S16)
_CALL_LEGAL = np.array([(1 << A_PASS) | ((1 << (A_MOSKVA + kind)) if kind >= 0 and (
    best < 0 or (kind == MOSKVA and best == MOLODKA)) else 0) for kind in (-1, 0, 1) for best in (-1, 0, 1)], U64)
"""``_CALL_LEGAL[(kind + 1) * 3 + best + 1]``: ``pass``, and the hand's call ``kind`` (-1: none) if it beats
the standing one ``best`` (-1: none; only Moskva beats Molodka, C3.5)."""
_LEAD_OK = np.array([VALID[hs] & int(_POW16[SIZE <= cap].sum()) for hs in range(HAND + 1) for cap in range(HAND + 1)])
"""``_LEAD_OK[hs * (HAND + 1) + cap]``: the non-empty slot sets of a hand of ``hs`` with at most ``cap`` cards."""
_SETS = np.ascontiguousarray(SLOT_SEL.T)
"""``slots @ _SETS``: the cards of every slot set (``SLOT_SEL``)."""


def _bitv(x) -> np.ndarray:
    return np.left_shift(ONE, np.asarray(x).astype(U64))


def low_bits(m: np.ndarray) -> np.ndarray:
    """``uint64[k, HAND]``: the set bits of each mask of at most ``HAND`` cards (a hand, a top), lowest first
    (0 when fewer); the last is what is left once the others are taken off."""
    out = np.empty((len(m), HAND), U64)
    m = m.copy()
    for j in range(HAND - 1):
        out[:, j] = low = m & -m
        m ^= low
    out[:, HAND - 1] = m
    return out


def _holder_tables(n: int, skip: int) -> tuple:
    """``(order, count)`` indexed ``first * 2**n + key``: the seats from ``first + skip`` clockwise (up to
    ``first``) whose bit of ``key`` is set (they hold cards), in that order (``int64[HAND]``, 0 after the
    last), and their number."""
    order = np.zeros((n << n, HAND), np.int64)
    count = np.zeros(n << n, np.int64)
    for first in range(n):
        for key in range(1 << n):
            seats = [s % n for s in range(first + skip, first + n) if key >> (s % n) & 1]
            order[(first << n) + key, :len(seats)] = seats
            count[(first << n) + key] = len(seats)
    return order, count


class BatchedSixOfSpades(DealFlow, BatchedGame):
    """``B`` ``six_of_spades_v0`` matches of ``game``'s rules config (module docstring: the state); the
    contract is :class:`~kozel_env.vector.engine.BatchedGame`."""

    engine_id = SixOfSpadesGame.engine_id
    points_lost = True
    """C3.6: sides write penalty points, ``seat_points`` is minus ``written`` of the seat's side."""
    STATE = ("in_match", "out_after", "dealer", "deals_played", "in_deal", "hands", "deck", "stock_base",
             "stock_len", "stock_mask", "trump_card", "trump_suit", "trump_drawn_by", "taken", "face_up", "tricks",
             "laid_down", "last_taker", "phase", "leader", "lead_cap", "lead", "lead_size", "lead_call", "top",
             "top_seat", "round_up", "round_down", "answer_order", "n_answer", "answer_index", "call_order",
             "n_call", "call_index", "calls", "stand_seat", "stand_kind", "sel", "sel_slots", "slots", "fam",
             "beat_fam", "legal")

    def __init__(self, game: SixOfSpadesGame, num_envs: int, single_deal: bool = False):
        super().__init__(game, num_envs, single_deal)
        r = self.rules
        B, n, ns = self.num_envs, self.num_players, self.num_sides
        self.ledger = BatchedLedger(game.ledger_rules, B)
        i8, i64 = np.int8, np.int64
        for name, shape, dt in (("in_match", (ns,), bool), ("out_after", (ns,), i64), ("dealer", (), i64),
                                ("deals_played", (), i64), ("in_deal", (), i64), ("hands", (n,), U64),
                                ("deck", (NUM_CARDS,), i8), ("stock_base", (), i64), ("stock_len", (), i64),
                                ("stock_mask", (), U64), ("trump_card", (), i64), ("trump_suit", (), i64),
                                ("trump_drawn_by", (), i64), ("taken", (ns,), U64), ("face_up", (ns,), U64),
                                ("tricks", (ns,), i64), ("laid_down", (n,), U64), ("last_taker", (), i64),
                                ("phase", (), i64), ("leader", (), i64), ("lead_cap", (), i64), ("lead", (), U64),
                                ("lead_size", (), i64), ("lead_call", (), i64), ("top", (), U64),
                                ("top_seat", (), i64), ("round_up", (n,), U64), ("round_down", (n,), U64),
                                ("answer_order", (HAND,), i8), ("n_answer", (), i64), ("answer_index", (), i64),
                                ("call_order", (HAND,), i8), ("n_call", (), i64), ("call_index", (), i64),
                                ("calls", (), i64), ("stand_seat", (), i64), ("stand_kind", (), i64),
                                ("sel", (), U64), ("sel_slots", (), i64), ("slots", (HAND,), U64),
                                ("fam", (), i64), ("beat_fam", (), i64), ("legal", (), U64)):
            setattr(self, name, np.zeros((B,) + shape, dt))
        self.phase[:] = PH_OVER
        self.current_player[:] = -1
        self._decline = bool(r.may_decline_beat)
        self._views = Views(game)
        self._fill_each = r.refill == "fill_each"
        self._confirm = np.zeros(32, U64)
        """``_confirm[phase * 8 + complete * 4 + beats * 2 + started]``: the actions besides cards: ``lead``
        once a lead is started, ``beat`` / ``down`` for a complete answer (both when it beats and
        ``may_decline_beat``)."""
        for key in range(8):
            down = ONE << U64(A_DOWN)
            beat = (ONE << U64(A_BEAT)) | (down if self._decline else U64(0))
            self._confirm[PH_LEAD * 8 + key] = (ONE << U64(A_LEAD)) if key & 1 else 0
            self._confirm[PH_ANSWER * 8 + key] = (beat if key & 2 else down) if key & 4 else 0
        self._hold = (_holder_tables(n, 0), _holder_tables(n, 1))
        self._pow2 = 1 << np.arange(n)
        self._ones = np.ones(n, U64)
        self._ones_hand, self._ones_draw = np.ones(HAND, U64), np.ones(n * HAND, U64)
        self._seats_in = np.array([sum(1 << s for s in range(n) if key >> self.side_of[s] & 1)
                                   for key in range(1 << self.num_sides)], np.int64)
        """``_seats_in[key]``: the seats (a mask) of the sides in ``key`` (the sides still in the match)."""
        self._rot = (np.arange(n)[:, None] + np.arange(n)) % n
        """``_rot[s, q]``: the seat ``q`` places clockwise from seat ``s``."""
        q, rr = np.arange(n), np.arange(HAND)
        self._draw_seat = np.repeat(q, HAND) if self._fill_each else np.tile(q, HAND)
        self._draw_round = np.tile(rr, n) if self._fill_each else np.repeat(rr, n)

    # -- small helpers -----------------------------------------------------------------------------------
    def _call_kind(self, hand: np.ndarray) -> np.ndarray:
        """``tables.call_kind`` (C3.5): Moskva, Molodka or -1."""
        four = popcount(hand) == HAND
        mosk = four & ((hand & ~U64(MOSKVA_CARDS)) == 0) & ((hand & U64(ACES)) != 0)
        molo = four & one_suit(hand)
        return np.where(mosk, MOSKVA, np.where(molo, MOLODKA, -1))

    def _set_slots(self, idx: np.ndarray, hand: np.ndarray) -> np.ndarray:
        """The hand's cards in increasing id as slots 0..3 (0: no card), nothing chosen yet; returns them."""
        slots = low_bits(hand)
        self.slots[idx] = slots
        self.sel[idx] = 0
        self.sel_slots[idx] = 0
        return slots

    def _holders(self, idx: np.ndarray, first: np.ndarray, skip: int) -> tuple:
        """The seats from ``first + skip`` clockwise (up to ``first``) that hold cards, in that order
        (``int64[k, HAND]``, 0 after the last), their number and (``skip = 0``) the fewest cards one of them
        holds (``_hold``: tables over the seats holding cards)."""
        h = self.hands.take(idx, axis=0)
        has = h != 0
        key = (first << self.num_players) + has @ self._pow2
        order, count = self._hold[skip]
        cap = np.where(has, np.bitwise_count(h), HAND).min(axis=1) if skip == 0 else None
        return order[key], count[key], cap

    # -- matches and deals --------------------------------------------------------------------------------
    def start(self, idx: np.ndarray, seeds: np.ndarray) -> None:
        """New matches in games ``idx``: ``game.new_state(seed)`` (the first dealer ``Rng.below(n)``, the
        first deal, its forced steps)."""
        idx = np.asarray(idx, np.int64)
        if idx.size == 0:
            return
        self._todo_answer, self._todo_lead, self._todo_finish, self._todo_over = [], [], [], []
        self._new_match(idx, seeds)
        self._start_round(idx, self._start_deal(idx))
        self._flush()
        self._settle(idx)

    def _refill(self, idx: np.ndarray, taker: np.ndarray) -> None:
        """C3.4: back to four, the taker first, then clockwise (``refill``: each fills up in turn, or one card
        at a time round the table), from the end of the stock; the trump card comes last. The draws in that
        order are the slots of ``_draw_seat`` / ``_draw_round``: slot ``(q, r)`` draws when seat ``taker + q``
        lacks more than ``r`` cards, the ``t``-th slot drawing (from 1) takes ``deck[stock_base + stock_len - t]``."""
        ln = self.stock_len[idx]
        live = np.flatnonzero(ln > 0)
        if not live.size:
            return
        if live.size < len(idx):
            idx, taker, ln = idx[live], taker[live], ln[live]
        n, k = self.num_players, len(idx)
        seats = self._rot.take(taker, axis=0)
        g = idx[:, None]
        h = self.hands.ravel().take(g * n + seats)
        need = (HAND - np.bitwise_count(h)) * (self.in_deal[g] >> seats & 1)  # none for a seat out of the deal
        want = need[:, self._draw_seat] > self._draw_round
        t = np.cumsum(want, axis=1)  # the slot's draw is the t-th (from 1)
        take = want & (t <= ln[:, None])
        pos = np.minimum((self.stock_base[idx] + ln)[:, None] - t, NUM_CARDS - 1)  # t = 0: no draw yet
        got = np.where(take, _bitv(self.deck.ravel().take(g * NUM_CARDS + pos)), U64(0))
        if self._fill_each:
            self.hands[g, seats] = h | got.reshape(k, n, HAND) @ self._ones_hand
        else:
            self.hands[g, seats] = h | np.einsum("irq->iq", got.reshape(k, HAND, n))
        left = self.stock_len[idx] = ln - np.count_nonzero(take, axis=1)
        self.stock_mask[idx] &= ~(got @ self._ones_draw)
        tr = np.flatnonzero(left == 0)  # the trump card, deck[stock_base], was the last drawn
        if tr.size:
            last = take[tr] & (t[tr] == ln[tr, None])
            self.trump_drawn_by[idx[tr]] = seats[tr, self._draw_seat[np.argmax(last, axis=1)]]

    def _start_round(self, idx: np.ndarray, scheduled: np.ndarray) -> None:
        """C3.3-C3.5: a round led by ``scheduled`` or the next holder after it; a call question first when
        every holder holds four and calls are offered (``"auto"``: the first holder in precedence calls); the
        deal ends when at most one seat holds cards (a lone holder takes its own cards)."""
        order, nh, cap = self._holders(idx, scheduled, 0)
        self.phase[idx] = PH_LEAD
        for name in ("call_index", "calls", "sel", "sel_slots", "fam"):  # the lead's fields are set by _lay_lead
            getattr(self, name)[idx] = 0
        self.stand_seat[idx] = -1
        self.stand_kind[idx] = -1
        over = nh <= 1
        if over.any():
            idx, order, nh, cap = self._deal_over(idx, order, nh, cap, over)
            if not idx.size:
                return
        self.leader[idx] = self.current_player[idx] = order[:, 0]  # the first holder: asked first, or leads
        self.lead_cap[idx] = cap
        full = cap == HAND
        calls = self.rules.calls
        if calls == "auto" and full.any():
            kinds = np.full((len(idx), HAND), -1)
            for j in range(HAND):
                kinds[:, j] = np.where(j < nh, self._call_kind(self.hands[idx, order[:, j]]), -1)
            best = np.where((kinds == MOSKVA).any(axis=1), MOSKVA,
                            np.where((kinds == MOLODKA).any(axis=1), MOLODKA, -1))
            auto = full & (best >= 0)
            if auto.any():
                a = np.flatnonzero(auto)
                j = np.argmax(kinds[a] == best[a, None], axis=1)
                g, s = idx[a], order[a, j]
                self.current_player[g] = s
                self._lay_lead(g, s, self.hands[g, s], best[a] + 1)
                keep = ~auto
                idx, order, nh, full = idx[keep], order[keep], nh[keep], full[keep]
        if calls == "offer":
            self.call_order[idx] = order
            self.n_call[idx] = np.where(full, nh, 0)
            self.phase[idx[full]] = PH_CALL  # nobody asked yet: the first holder is (``_next_offer``)
            idx = idx[~full]
        if idx.size:
            self._todo_lead.append(idx)

    def _deal_over(self, idx: np.ndarray, order: np.ndarray, nh: np.ndarray, cap: np.ndarray,
                   over: np.ndarray) -> tuple:
        """The deals of games ``idx[over]`` end (a lone holder takes its own cards, C3.3). A few end here and
        the games dealt anew join the others whose round starts (their holders, from their first leaders);
        more (a large batch, whose deals end in several passes of a step) wait in ``_todo_over`` to end
        together with the step's others (``_deals_end``), holding no legal action meanwhile."""
        g, go = idx[over], ~over
        s = np.where(nh[over] == 1, order[over, 0], -1)
        if len(g) >= _MANY_OVER:
            self._todo_over.append((g, s))
            self.phase[g] = PH_OVER
            self.fam[g] = 0
            return idx[go], order[go], nh[go], cap[go]
        self._lone_take(g, s)
        dealt, first = self._end_deal(g)
        if not dealt.size:
            return idx[go], order[go], nh[go], cap[go]
        self.phase[dealt] = PH_LEAD  # the round fields were cleared with the others'
        o, n, c = self._holders(dealt, first, 0)
        return (np.concatenate([idx[go], dealt]), np.concatenate([order[go], o]), np.concatenate([nh[go], n]),
                np.concatenate([cap[go], c]))

    def _lone_take(self, g: np.ndarray, s: np.ndarray) -> None:
        """C3.3: in games ``g`` whose deal ends with one seat ``s`` holding cards (-1: none), it takes them."""
        lone = np.flatnonzero(s >= 0)
        if lone.size:
            g, s = g[lone], s[lone]
            side = self.side_of[s]
            m = self.hands[g, s]
            self.hands[g, s] = 0
            self.taken[g, side] |= m
            self.face_up[g, side] |= m
            self.tricks[g, side] += 1
            self.last_taker[g] = s

    def _deals_end(self) -> np.ndarray:
        """The deals left in ``_todo_over``, ended together (``_lone_take``, ``_end_deal``); the games dealt
        anew start their rounds. Returns those games."""
        todo, self._todo_over = self._todo_over, []
        idx = np.concatenate([t[0] for t in todo]) if len(todo) > 1 else todo[0][0]
        self._lone_take(idx, np.concatenate([t[1] for t in todo]) if len(todo) > 1 else todo[0][1])
        dealt, first = self._end_deal(idx)
        if dealt.size:
            self._start_round(dealt, first)
            self._flush()
        return dealt

    def _next_offer(self, idx: np.ndarray) -> None:
        """The next holder is asked for a call (C3.5; nobody after a Moskva); when all have been asked the
        standing call leads its four, else the leader builds a lead."""
        ask = (self.call_index[idx] < self.n_call[idx]) & (self.stand_kind[idx] != MOSKVA)
        a = idx[ask]
        if a.size:
            self.phase[a] = PH_CALL
            self.current_player[a] = self.call_order[a, self.call_index[a]]
        rest = idx[~ask]
        if not rest.size:
            return
        called = self.stand_kind[rest] >= 0
        c = rest[called]
        if c.size:
            s = self.stand_seat[c]
            self.current_player[c] = s
            self._lay_lead(c, s, self.hands[c, s], self.stand_kind[c] + 1)
        g = rest[~called]
        if g.size:
            self.phase[g] = PH_LEAD
            p = self.leader[g]
            self.current_player[g] = p
            self._todo_lead.append(g)

    def _flush(self) -> None:
        """The turns begun in this pass (``_todo_answer``, ``_todo_lead``), their hands' slots and legal sets
        built once for all their games. The commonest forced steps are taken here at once (what ``settle``
        would do in later passes): a leader holding one card leads it, and answerers holding one card that
        does not beat a one-card top lay it face down (``_downs``)."""
        while self._todo_answer or self._todo_lead or self._todo_finish:
            if self._todo_finish:
                todo, self._todo_finish = self._todo_finish, []
                self._finish_round(np.concatenate(todo) if len(todo) > 1 else todo[0])
            if self._todo_lead:
                todo, self._todo_lead = self._todo_lead, []
                idx = np.concatenate(todo) if len(todo) > 1 else todo[0]
                p = self.current_player[idx]
                hand = self.hands[idx, p]
                one = popcount(hand) == 1
                if one.any():
                    self._lay_lead(idx[one], p[one], hand[one], np.zeros(np.count_nonzero(one), np.int64))
                    idx, hand = idx[~one], hand[~one]
                if idx.size:
                    self._lead_family(idx, hand)
            if self._todo_answer:
                todo, self._todo_answer = self._todo_answer, []
                idx = self._downs(np.concatenate(todo) if len(todo) > 1 else todo[0])
                if idx.size:
                    self._begin_answer(idx)

    def _downs(self, idx: np.ndarray) -> np.ndarray:
        """Under a one-card top, the answerers next in turn that hold one card that does not beat it have one
        legal step, ``down`` (seed 5 / C3.3): they lay their cards face down at once (the top stays, so the
        run of them is found in one go); the round ends when they were the last. Returns the games whose
        next answerer has a choice."""
        lone = np.flatnonzero(self.lead_size[idx] == 1)
        if not lone.size:
            return idx
        g = idx[lone]
        ai, na = self.answer_index[g], self.n_answer[g]
        seats = self.answer_order.take(g, axis=0).astype(np.int64)
        hands = self.hands.ravel().take(g[:, None] * self.num_players + seats)
        j = np.arange(HAND)
        beaten_by = BB[self.trump_suit[g], lowest_bit_index(self.top[g])]
        down = (j < ai[:, None]) | ((popcount(hands) == 1) & ((hands & beaten_by[:, None]) == 0))
        end = np.minimum(np.where(down.all(axis=1), HAND, np.argmin(down, axis=1)), na)
        r, c = np.nonzero((j >= ai[:, None]) & (j < end[:, None]))
        if not r.size:
            return idx
        rows, s, m = g[r], seats[r, c], hands[r, c]
        self.hands[rows, s] = 0
        self.round_down[rows, s] = m
        self.laid_down[rows, s] |= m
        self.answer_index[g] = end
        over = end == na
        if over.any():
            self._todo_finish.append(g[over])
            keep = np.ones(len(idx), bool)
            keep[lone[over]] = False
            idx = idx[keep]
        return idx

    def _lead_family(self, idx: np.ndarray, hand: np.ndarray) -> None:
        """Seed 4 / C3.3: the legal leads, every non-empty set of at most ``lead_cap`` cards whose cards other
        than ``6S`` are of one suit (``tables.lead_sets``), as slot sets."""
        slots = self._set_slots(idx, hand)
        lead = one_suit(slots @ _SETS) @ _POW16  # the slot sets whose cards may be led together
        self.fam[idx] = lead & _LEAD_OK[np.bitwise_count(hand) * (HAND + 1) + self.lead_cap[idx]]
        self.beat_fam[idx] = 0

    # -- rounds -------------------------------------------------------------------------------------------
    def _lay_lead(self, idx: np.ndarray, p: np.ndarray, m: np.ndarray, call: np.ndarray) -> None:
        """Seed 4 / C3.3 (a call, C3.5, leads the caller's whole four; ``call`` as ``lead_call``): the other
        holders answer in turn clockwise from the leader."""
        order, na, _ = self._holders(idx, p, 1)
        self.hands[idx, p] &= ~m
        self.leader[idx] = p
        self.lead_call[idx] = call
        self.lead[idx] = m
        self.top[idx] = m
        self.lead_size[idx] = popcount(m)
        self.top_seat[idx] = p
        self.round_up[idx, p] = m
        self.answer_order[idx] = order
        self.n_answer[idx] = na
        self.answer_index[idx] = 0
        self._todo_answer.append(idx)

    def _begin_answer(self, idx: np.ndarray) -> None:
        """Seed 5 / C3.3: the next answerer builds a set of the lead's size; the beating ones are those that
        beat the top cards one for one (none under a top ``6S``); with ``may_decline_beat=False`` only they
        are legal when one exists."""
        p = self.answer_order[idx, self.answer_index[idx]].astype(np.int64)
        self.phase[idx] = PH_ANSWER
        self.current_player[idx] = p
        hand = self.hands[idx, p]
        slots = self._set_slots(idx, hand)
        tops = np.minimum(popcount(low_bits(self.top[idx]) - ONE), NUM_CARDS)  # the top cards (NUM_CARDS: none)
        beaten_by = BB[self.trump_suit[idx][:, None], tops]
        mat = ((beaten_by[:, None, :] & slots[:, :, None]) != 0).reshape(len(idx), HAND * HAND) @ _MAT
        subs = SUBS[self.lead_size[idx], popcount(hand)]
        beat = COVER[mat] & subs
        self.beat_fam[idx] = beat
        self.fam[idx] = subs if self._decline else np.where(beat != 0, beat, subs)

    def _lay_answer(self, idx: np.ndarray, up: np.ndarray) -> None:
        """Seed 5 / C3.3: the chosen answer on top (``up``: it beats every top card) or face down; after the
        last answer the round is over."""
        p = self.current_player[idx]
        m = self.sel[idx]
        self.hands[idx, p] &= ~m
        u, d = idx[up], idx[~up]
        self.round_up[u, p[up]] = m[up]
        self.top[u] = m[up]
        self.top_seat[u] = p[up]
        self.round_down[d, p[~up]] = m[~up]
        self.laid_down[d, p[~up]] |= m[~up]
        self.answer_index[idx] += 1
        more = self.answer_index[idx] < self.n_answer[idx]
        if more.any():
            self._todo_answer.append(idx[more])
        if not more.all():
            self._todo_finish.append(idx[~more])

    def _finish_round(self, idx: np.ndarray) -> None:
        """Seed 6 / C3.3-C3.4: the player on top takes every card of the round, refills first and leads."""
        t = self.top_seat[idx]
        side = self.side_of[t]
        up = self.round_up.take(idx, axis=0) @ self._ones  # the seats' cards differ: their sum is their union
        down = self.round_down.take(idx, axis=0) @ self._ones
        self.round_up[idx] = 0
        self.round_down[idx] = 0
        self.taken[idx, side] |= up | down
        self.face_up[idx, side] |= up
        self.tricks[idx, side] += 1
        self.last_taker[idx] = t
        self._refill(idx, t)
        self._start_round(idx, t)

    # -- decisions ----------------------------------------------------------------------------------------
    def _legal(self, idx: np.ndarray, ph: np.ndarray | None = None, ss: np.ndarray | None = None,
               nxt: np.ndarray | None = None) -> np.ndarray:
        """``compute_legal`` of games ``idx`` (their forced cards chosen) as 42-bit action masks: the next
        cards ``nxt`` (a slot set; ``NEXT`` when not given) of a legal set being built (``tables.next_cards``),
        ``lead`` once a lead is started, ``beat`` / ``down`` for a complete answer (none offers a next card:
        every answer has the lead's size), ``pass`` and the calls that beat the standing one at a call
        question (``fam`` is 0 outside a lead or answer: no cards)."""
        if ph is None:
            ph, ss = self.phase[idx], self.sel_slots[idx]
            nxt = NEXT[(self.fam[idx] << 4) | ss]
        cards = np.einsum("ij,ij->i", self.slots.take(idx, axis=0), SLOT_SEL[nxt])
        done = (ph << 3) | (nxt == 0) << 2 | (self.beat_fam[idx] >> ss & 1) << 1 | (ss != 0)
        legal = cards | self._confirm[done]
        call = np.flatnonzero(ph == PH_CALL)
        if call.size:
            legal[call] = self._call_legal(idx[call])
        return legal

    def _call_legal(self, idx: np.ndarray) -> np.ndarray:
        """At a call question: ``pass`` and the call the hand makes if it beats the standing one (C3.5;
        ``_CALL_LEGAL``)."""
        kind = self._call_kind(self.hands[idx, self.current_player[idx]])
        return _CALL_LEGAL[(kind + 1) * 3 + self.stand_kind[idx] + 1]

    def _settle(self, idx: np.ndarray) -> None:
        """``settle``: take every forced step (the one legal action, except at a call question), in passes
        over the games that have one; a pass takes every forced card of the set being built at once
        (``CLOSE``), then the forced ``lead`` / ``beat`` / ``down`` that may follow."""
        while True:
            while idx.size:
                idx, a = self._forced(idx)
                if idx.size:
                    self._do(idx, a)
            if not self._todo_over:
                return
            idx = self._deals_end()

    def _forced(self, idx: np.ndarray) -> tuple:
        """Games ``idx``' forced cards chosen (``CLOSE``) and their legal actions (``_legal``, the next cards
        from the same ``STEP`` lookup) kept in ``legal``; returns the games with a forced step left (the one
        legal action, never a card now, and never a call question) and that action."""
        ph = self.phase[idx]
        ss0 = self.sel_slots[idx]
        t = STEP[((ph == PH_ANSWER) << 20) | (self.fam[idx] << 4) | ss0]
        ss, nxt = t & 15, t >> 4
        ch = np.flatnonzero(ss != ss0)
        if ch.size:
            g, c = idx[ch], ss[ch]
            self.sel_slots[g] = c
            self.sel[g] = np.einsum("ij,ij->i", self.slots.take(g, axis=0), SLOT_SEL[c])
        legal = self.legal[idx] = self._legal(idx, ph, ss, nxt)
        forced = (np.bitwise_count(legal) == 1) & (ph != PH_CALL)
        return idx[forced], popcount(legal[forced] - ONE)

    def _do(self, idx: np.ndarray, a: np.ndarray) -> None:
        """One action other than a card in each of games ``idx`` (``SixOfSpadesState._do``)."""
        p = self.current_player[idx]
        lead = a == A_LEAD
        if lead.any():
            g = idx[lead]
            self._lay_lead(g, p[lead], self.sel[g], np.zeros(len(g), np.int64))
        ans = (a == A_BEAT) | (a == A_DOWN)
        if ans.any():
            self._lay_answer(idx[ans], a[ans] == A_BEAT)
        asked = a >= A_MOSKVA
        if asked.any():
            g, aa, pp = idx[asked], a[asked], p[asked]
            call = aa != A_PASS
            c = g[call]
            kind = aa[call] - A_MOSKVA
            self.calls[c] |= np.left_shift(1, 2 * pp[call] + kind)
            self.stand_seat[c] = pp[call]
            self.stand_kind[c] = kind
            self.call_index[g] += 1
            self._next_offer(g)
        self._flush()

    def _choose(self, idx: np.ndarray, a: np.ndarray) -> None:
        """A card chosen for the set being built (it stays in the hand)."""
        b = _bitv(a)
        self.sel[idx] |= b
        self.sel_slots[idx] |= (self.slots.take(idx, axis=0) == b[:, None]) @ _POW16[:HAND]

    def apply(self, actions: np.ndarray) -> None:
        """One legal decision in every game, then every forced step (a match that ends starts the next one
        with ``autoreset``)."""
        self.clear_outputs()
        self._todo_answer, self._todo_lead, self._todo_finish, self._todo_over = [], [], [], []
        a = np.array(actions, np.int64)
        card = a < NUM_CARDS
        g = np.flatnonzero(card)
        if g.size:  # a card chosen: the forced steps that follow it start at once (settle's first pass)
            self._choose(g, a[g])
            g, a[g] = self._forced(g)
            card[g] = False
        idx = np.flatnonzero(~card)
        self._do(idx, a[idx])
        self._settle(idx)

    # -- views --------------------------------------------------------------------------------------------
    def legal_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """``int8[B, 42]``: ``legal_actions()`` of every game (also packed in ``legal_words``)."""
        if out is None:
            out = np.empty((self.num_envs, self.num_actions), np.int8)
        self.legal_words = self.legal[:, None].copy()  # what the last settle found
        b = np.ascontiguousarray(self.legal_words, "<u8").view(np.uint8)
        out[:] = np.unpackbits(b, axis=1, count=self.num_actions, bitorder="little")
        return out

    def observe(self, out: np.ndarray | None = None) -> np.ndarray:
        """``game.observe(state, current_player)`` of every game."""
        return self._views.observe(self, np.maximum(self.current_player, 0), out)

    def oracle(self, out: np.ndarray | None = None) -> np.ndarray:
        """``game.oracle(state)`` of every game."""
        return self._views.oracle(self, out)
