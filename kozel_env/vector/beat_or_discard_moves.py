"""``beat_or_discard_v0`` batched: the moves inside a round as array operations (the scalar
:mod:`kozel_env.cards.beat_or_discard.engine`'s ``_apply``, ``_run_forced``, ``_lead`` / ``_beat`` /
``_discard``, the turn order ``_after`` / ``_offer_answer`` / ``_offer_rebeat`` / ``_alive``, the claim
question before the lead ``_ask_claims`` and a claim, before the lead or after it), for many games at once.

Each function works on the games ``idx`` (an int array) of the engine ``e`` and mirrors the scalar method of
the same name line for line. Where the scalar code goes on into the end of a round (``_end_round``: the
trick, equalising, the refill, the deal and the score) or an equalising (``_equalise``), the game is
*handed off*: :func:`hand_off` records the kind; the engine's next pass does it in arrays
(:mod:`.beat_or_discard_round`), and the rarer kinds it leaves (four of a kind, a game end that ends the
match) go to the scalar method and the scalar ``_run_forced``, exactly where the scalar ``apply_action``
would call them. The forced steps (``_run_forced``) are one pass over the games at a time (:func:`forced`),
a card picked followed at once by the forced steps after it (:func:`picks`).

Beating sets (C1.3) are every subset of the hand of ``popcount(top)`` cards that passes the suit-wise test
of :mod:`kozel_env.cards.beat_or_discard.beats` (its ``_dominates`` / ``_covers`` per 9-bit suit chunk,
tabulated once over every disjoint (top chunk, cards chunk) pair).
"""
from __future__ import annotations

from itertools import combinations

import numpy as np

from ..cards.beat_or_discard import beats as scalar_beats
from ..cards.beat_or_discard.tables import (
    A_CLAIM,
    A_DOWN,
    A_PASS,
    A_PLAY,
    B_CLAIM,
    B_PASS,
    PH_ANSWER,
    PH_CLAIM,
    PH_EQUALISE,
    PH_LEAD,
    PH_REBEAT,
)
from .beat_or_discard_views import SUIT_SHIFTS, bit_length, claim_possible, longest_suit, masks, pc, seat

I64 = np.int64
MAX_HAND = 6
MAX_SETS = 20
"""At most C(6, 3) beating sets: a set has ``popcount(top)`` cards of a hand of at most six."""
END_ROUND, EQUALISE, FOUR, END_GAME, MATCH_OVER = 1, 2, 3, 4, 5
"""Hand-off kinds: ``_end_round()`` and ``_equalise(p, s)`` (done in arrays by :mod:`.beat_or_discard_round`),
then the scalar ``_four_check()``, ``_end_game()``; a match ended in arrays, to restart
(:mod:`.beat_or_discard_deal`)."""

_TABLES: dict = {}


def _tables() -> tuple:
    """``(OK, SEL)``: OK ``[is_trump * 2 ** 18 + top_chunk * 512 + cards_chunk]`` -- the cards of a non-trump /
    the trump suit are a legal part of a beat of that suit's top cards (beats._dominates / beats._covers and
    the counts of beats._nt_entry / beats._tr_entry); SEL ``[hand_count, k, j, i]`` -- card ``i`` of the hand
    is in its ``j``-th ``k``-subset."""
    if not _TABLES:
        nt = np.zeros(512 * 512, bool)
        tr = np.zeros(512 * 512, bool)
        for ts in range(512):
            tops = scalar_beats._strengths(ts)
            free = 511 & ~ts
            for cs in scalar_beats._subsets(free):
                k, n = cs.bit_count(), len(tops)
                nt[ts * 512 + cs] = k <= n and (cs == 0 or scalar_beats._dominates(cs, tops))
                tr[ts * 512 + cs] = k >= n and (n == 0 or scalar_beats._covers(cs, tops))
        sel = np.zeros((MAX_HAND + 1, MAX_HAND + 1, MAX_SETS, MAX_HAND), I64)
        for hc in range(MAX_HAND + 1):
            for k in range(1, hc + 1):
                for j, combo in enumerate(combinations(range(hc), k)):
                    sel[hc, k, j, list(combo)] = 1
        _TABLES.update(ok=np.concatenate([nt, tr]), sel=sel)
    return _TABLES["ok"], _TABLES["sel"]


SUITS = np.arange(len(SUIT_SHIFTS))
SHIFTS = np.array(SUIT_SHIFTS, I64)
BEATERS = np.array(scalar_beats.BEATERS, I64).ravel()
"""``BEATERS[trump * 36 + card]``: the cards that beat ``card`` (beats.BEATERS, C1.2)."""


def _cards(x: np.ndarray) -> np.ndarray:
    """The cards of each mask of at most six cards as one-bit masks, ``int64[m, MAX_HAND]`` (0: none)."""
    cards = np.zeros((len(x), MAX_HAND), I64)
    x = x.copy()
    for i in range(MAX_HAND):
        low = x & -x
        cards[:, i] = low
        x ^= low
    return cards


def _single_beaters(h, top, trump) -> np.ndarray:
    """The cards of ``h`` that beat the one card of ``top`` (beats.beat_sets' common case)."""
    return h & BEATERS[trump * 36 + np.maximum(bit_length(top) - 1, 0)]


def can_beat(h: np.ndarray, top: np.ndarray, trump: np.ndarray) -> np.ndarray:
    """beats.can_beat of each (hand, top, trump)."""
    one = (top & (top - 1)) == 0
    out = (top != 0) & (_single_beaters(h, top, trump) != 0)
    many = (~one).nonzero()[0]
    if len(many):
        out[many] = _many(h[many], top[many], trump[many])[:, 0] != 0  # the sets come first
    return out


def beat_sets(h: np.ndarray, top: np.ndarray, trump: np.ndarray) -> np.ndarray:
    """beats.beat_sets of each (hand, top, trump) as ``int64[m, MAX_SETS]``: the sets at the front of a row
    (their order aside), zeros after them, which the masks and the tests for "no set" read (column 0)."""
    out = np.zeros((len(h), MAX_SETS), I64)
    one = (top & (top - 1)) == 0
    out[:, :MAX_HAND] = np.where(one[:, None], _cards(_single_beaters(h, top, trump)), 0)
    many = (~one & (h != 0)).nonzero()[0]
    if len(many):
        out[many] = _many(h[many], top[many], trump[many])
    return out


def _many(h, top, trump) -> np.ndarray:
    """beat_sets for two top cards or more: every subset of the hand of that size, tested suit by suit."""
    table, sel = _tables()
    k = pc(top)
    cand = (sel[pc(h), k] * _cards(h)[:, None, :]).sum(axis=2)
    suit = (trump[:, None] == SUITS) << 18 | (top[:, None] >> SHIFTS & 511) << 9  # [game, suit]: the table's row
    ok = (cand != 0) & table[suit[:, None, :] | (cand[:, :, None] >> SHIFTS & 511)].all(axis=2)
    first = np.argsort(~ok, axis=1, kind="stable")  # the sets first: the columns masks reads are few
    return np.where(ok, cand, 0)[np.arange(len(ok))[:, None], first]


def hand_off(e, idx: np.ndarray, kind: int, arg: np.ndarray | int = 0) -> None:
    if not len(idx):
        return
    e.handoff[idx] = kind
    e.handoff_arg[idx] = arg


def decide(e, idx, phase, q, owed=0, offered=0, beats=None) -> None:
    """engine._decide: seat ``q`` is to decide in ``phase``, nothing picked."""
    if not len(idx):
        return
    e.phase[idx] = phase
    e.current_player[idx] = q
    e.owed[idx] = owed
    e.offered[idx] = offered
    e.beats[idx] = 0 if beats is None else beats
    e.picked[idx] = 0


def forced(e, live: np.ndarray) -> np.ndarray:
    """One pass of engine._run_forced in games ``live`` (none handed off): the games whose seat to move has
    one legal action (or owes its whole hand face down) take it -- a forced card followed at once by the
    forced steps after it (:func:`picks`) -- and are returned; the rest stop at a real choice, their masks
    kept in ``e.mask`` (``e.mask_ok``), or at a public question (engine.public_ask)."""
    picked, ph, cp = e.picked[live], e.phase[live], e.current_player[live]
    ask = (picked == 0) & ((ph == PH_CLAIM) | ((ph == PH_ANSWER) & claim_possible(e, live, cp)))
    m = masks(e, live)  # the askers' masks too: kept for legal_mask
    if ask.any():
        keep(e, live[ask], m[ask])
        live, picked, ph, cp, m = live[~ask], picked[~ask], ph[~ask], cp[~ask], m[~ask]
    h = seat(e.hands, live, cp)
    whole = ((ph >= PH_ANSWER) & (picked == 0) & (e.offered[live] == 0) & (e.owed[live] == pc(h))
             & (e.beats[live, 0] == 0))  # no beating set (the sets are at the front of a row)
    single = ~whole & ((m & (m - 1)) == 0)
    stop = ~(whole | single)
    keep(e, live[stop], m[stop])
    w = live[whole]
    e.picked[w] = h[whole]
    i, a = picks(e, live[single], bit_length(m[single]) - 1)
    live = np.concatenate([w, i])
    apply(e, live, np.concatenate([np.full(len(w), A_DOWN), a]))
    return live


def keep(e, idx: np.ndarray, m: np.ndarray) -> None:
    """The masks ``m`` of games ``idx``, stopped at a real choice (what ``legal_mask`` returns)."""
    e.mask[idx] = m
    e.mask_ok[idx] = True


def picks(e, idx: np.ndarray, a: np.ndarray) -> tuple:
    """Actions ``a`` in games ``idx`` where each pick (a card, ``a < 36``) is followed by the forced steps
    after it (engine._run_forced with a card picked: no public question, no whole hand, a single legal
    action taken), until a real choice (the mask kept, :func:`keep`) or a move that is not a pick. Returns
    the games and the actions left to :func:`apply`: the moves given and the forced moves after picks."""
    pick = a < 36
    out_i, out_a = [idx[~pick]], [a[~pick]]
    idx, a = idx[pick], a[pick]
    while len(idx):
        e.picked[idx] |= np.left_shift(1, a)
        m = masks(e, idx)
        single = (m & (m - 1)) == 0
        keep(e, idx[~single], m[~single])
        idx, a = idx[single], bit_length(m[single]) - 1
        card = a < 36
        out_i.append(idx[~card])
        out_a.append(a[~card])
        idx, a = idx[card], a[card]
    return np.concatenate(out_i), np.concatenate(out_a)


def apply(e, idx: np.ndarray, a: np.ndarray) -> None:
    """engine._apply of action ``a[k]`` in game ``idx[k]``; the turn order after a play, a discard or a pass
    (engine._after) in one call for all of them."""
    pick = a < 36
    e.picked[idx[pick]] |= np.left_shift(1, a[pick])
    ph = e.phase[idx]
    moved = []
    for act, fn in ((A_PLAY, _play), (A_DOWN, _down), (A_PASS, _pass), (A_CLAIM, _claim)):
        w = a == act
        if w.any():
            moved.append(fn(e, idx[w], ph[w]))
    moved = [m for m in moved if m is not None]
    if len(moved) == 1:
        after(e, *moved[0])
    elif moved:
        after(e, np.concatenate([i for i, _ in moved]), np.concatenate([p for _, p in moved]))


def _play(e, idx, ph) -> tuple:
    s = e.picked[idx]
    e.picked[idx] = 0
    p = e.current_player[idx]
    e.hands[idx, p] &= ~s
    e.table_up[idx, p] |= s
    e.known[idx, p] &= ~s
    e.top[idx] = s
    e.last_beater[idx] = p
    lead = ph == PH_LEAD
    e.lead[idx[lead]] = s[lead]
    e.acted[idx[~lead]] |= np.left_shift(1, p[~lead])
    return idx, p


def _down(e, idx, ph) -> tuple:
    s = e.picked[idx]
    e.picked[idx] = 0
    eq = ph == PH_EQUALISE
    if eq.any():
        hand_off(e, idx[eq], EQUALISE, s[eq])
        idx, s = idx[~eq], s[~eq]
    p = e.current_player[idx]
    e.hands[idx, p] &= ~s
    e.table_down[idx, p] |= s
    e.laid_down[idx, p] |= s
    b = np.left_shift(1, p)
    e.locked[idx] |= b
    e.acted[idx] |= b
    return idx, p


def _pass(e, idx, ph) -> tuple:
    p = e.current_player[idx]
    c = ph == PH_CLAIM
    ask_claims(e, idx[c], (p[c] + 1) % e.num_players)
    hand_off(e, idx[ph == PH_REBEAT], END_ROUND)
    o = ~c & (ph != PH_REBEAT)
    return idx[o], p[o]


def _claim(e, idx, ph) -> None:
    """engine._claim: before the lead, the claim question goes on; after it, every card of the round goes
    back to its owner and the claimer leads."""
    p = e.current_player[idx]
    n = longest_suit(seat(e.hands, idx, p))
    e.claims[idx, p] = n
    e.best_claim[idx] = n
    e.leader[idx] = p
    c = ph == PH_CLAIM
    ask_claims(e, idx[c], (p[c] + 1) % e.num_players)
    idx = idx[~c]
    if not len(idx):
        return
    u, d = e.table_up[idx], e.table_down[idx]
    e.hands[idx] |= u | d
    e.known[idx] |= u
    e.laid_down[idx] &= ~d
    e.table_up[idx] = 0
    e.table_down[idx] = 0
    for name in ("top", "lead", "locked", "acted"):
        getattr(e, name)[idx] = 0
    e.last_beater[idx] = -1
    _lead_decision(e, idx)


def ask_claims(e, idx, q) -> None:
    """engine._ask_claims: the next seat to ask before the lead, or the lead."""
    n = e.num_players
    if e.rules.claims:
        for _ in range(n):
            go = q != e.claim_stop[idx]
            asked = go & (seat(e.hands, idx, q) != 0) & claim_possible(e, idx, q)
            decide(e, idx[asked], PH_CLAIM, q[asked])
            keep = go & ~asked
            done_idx = idx[~go]
            _lead_decision(e, done_idx)
            idx, q = idx[keep], (q[keep] + 1) % n
            if not len(idx):
                return
    _lead_decision(e, idx)


def _lead_decision(e, idx) -> None:
    if not len(idx):
        return
    limit = 6
    if e.rules.hand_size == 4:  # C1.15: the smallest hand among holders
        c = pc(e.hands[idx])
        limit = np.where(c > 0, c, 99).min(axis=1)
    decide(e, idx, PH_LEAD, e.leader[idx], limit)


def after(e, idx, p) -> None:
    """engine._after: the next seat with a decision after ``p`` acted, or the end of the round."""
    if not len(idx):
        return
    n = e.num_players
    quick = e.rules.hand_size == 4
    q = p
    while len(idx):
        q = (q + 1) % n
        h = seat(e.hands, idx, q)
        free = (e.locked[idx] >> q & 1) == 0  # a seat that discarded may not beat (C1.6): no sets made for it
        if quick:
            hit = q == e.leader[idx]
            hand_off(e, idx[hit], END_ROUND)
            idx, q, h, free = idx[~hit], q[~hit], h[~hit], free[~hit]
            holds = h != 0
            g = idx[holds]
            bs = beat_sets(np.where(free, h, 0)[holds], e.top[g], e.trump[g])
        else:  # the beating sets of the last beater (beat again) and of a seat to answer in one call
            hit = q == e.last_beater[idx]
            holds = hit | (h != 0)
            g = idx[holds]
            bs = beat_sets(np.where(free | hit, h, 0)[holds], e.top[g], e.trump[g])
            again = hit[holds]
            _offer_rebeat(e, idx[hit], q[hit], bs[again])
            bs = bs[~again]
            idx, q, holds = idx[~hit], q[~hit], holds[~hit]
        got = _offer_answer(e, idx[holds], q[holds], bs)
        cont = ~holds
        cont[holds] = got == 0
        idx, q = idx[cont], q[cont]


def _offer_rebeat(e, idx, q, bs) -> None:
    if not len(idx):
        return
    ok = bs[:, 0] != 0  # a beating set (they are at the front of a row)
    decide(e, idx[ok], PH_REBEAT, q[ok], 0, B_PASS, bs[ok])
    hand_off(e, idx[~ok], END_ROUND)


def _offer_answer(e, idx, q, bs) -> np.ndarray:
    """engine._offer_answer(q, True) with the seat's beating sets ``bs``: 1 (decided), 0 (turn skipped), -1
    (the round ended: handed off)."""
    if not len(idx):
        return np.zeros(0, I64)
    h = seat(e.hands, idx, q)
    bs[(e.locked[idx] >> q & 1) == 1] = 0
    may = claim_possible(e, idx, q)
    n = longest_suit(h)
    cc = may & (n >= e.claim_floor) & (n > e.best_claim[idx])  # claimable
    got = np.ones(len(idx), I64)
    bare = (bs[:, 0] == 0) & ~may
    if e.rules.hand_size == 4:
        k = pc(e.lead[idx])
        offered = np.where(cc, B_CLAIM, 0)
    else:
        k = pc(h) - pc(seat(e.hands, idx, e.last_beater[idx]))
        got[bare & (k <= 0)] = 0
        test = (bare & (k > 0)).nonzero()[0]
        if len(test):
            dead = ~alive(e, idx[test])
            got[test[dead]] = -1
            hand_off(e, idx[test[dead]], END_ROUND)
        offered = np.where(cc, B_CLAIM, 0) | np.where(k <= 0, B_PASS, 0)
    d = got == 1
    decide(e, idx[d], PH_ANSWER, q[d], np.maximum(k, 0)[d], offered[d], bs[d])
    whole = d & bare & (k == pc(h))  # owes its whole hand face down (engine._run_forced): laid down at once
    if whole.any():
        i, p, s = idx[whole], q[whole], h[whole]
        e.hands[i, p] = 0
        e.table_down[i, p] |= s
        e.laid_down[i, p] |= s
        b = np.left_shift(1, p)
        e.locked[i] |= b
        e.acted[i] |= b
        got[whole] = 0  # the turn goes on from it (engine._discard, then _after)
    return got


def alive(e, idx) -> np.ndarray:
    """engine._alive: someone who may beat can beat, or someone may still claim (C1.7); every seat at once."""
    n = e.num_players
    seats = np.arange(n)
    h = e.hands[idx]
    may = (h != 0) & ((e.locked[idx, None] >> seats & 1) == 0)
    live = np.zeros(h.shape, bool)
    g, q = np.nonzero(may)
    live[g, q] = can_beat(h[g, q], e.top[idx][g], e.trump[idx][g])
    if e.rules.claims:
        k = pc(h)
        live |= ((h != 0) & (k >= e.claim_floor) & (k > e.best_claim[idx, None]) & (seats != e.leader[idx, None])
                 & ((e.acted[idx, None] >> seats & 1) == 0))
    return live.any(axis=1)
