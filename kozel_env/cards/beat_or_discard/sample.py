"""Determinization for ``beat_or_discard_v0``: re-deal what one player cannot see, keeping its observation.

What a player ``P`` cannot see, and how it is re-dealt (:func:`sample_consistent`, the engine's
``game.sample_consistent``):

* each other seat's *group*: its hand plus its face-down cards on the table this round. Cards publicly
  known to be in that group (the drawn bottom card, cards a claim returned face up) stay in it; the rest
  of the group is drawn from the unknown cards; the group is then split at random into hand and
  face-down cards with the public counts;
* each other seat's face-down cards inside each side's tricks (counts are public);
* the stock, in a new random order.

Constraints: a seat that claimed "I have N" this round holds, over the round, a longest suit of exactly N
(C1.13; its group is drawn by suit counts weighted by the number of card choices, which is exact for
one claimant); being asked whether to claim says nothing (every seat that could claim by public counts
is asked); no active seat held four aces or four sixes at the last deal or refill (C1.14 would have ended
the match: its cards of the round are its hand then); in the first game before the first trick, the seat
that got the lead by the lowest diamond still has it (C1.11, rejection); when another seat is to move it
must have the decision it has (rejection; its picks in progress are dropped). When rejection keeps
failing, the seat to move keeps its true group, and in the last resort only the future is re-seeded (never
an inconsistent state).
"""
from __future__ import annotations

from math import comb
from typing import TYPE_CHECKING

from ...core.bits import bits
from ...core.rng import Rng
from ..deck import FULL_DECK, SUIT_MASK
from .tables import ACES, SIXES, lowest_diamond_seat

if TYPE_CHECKING:
    from .engine import BeatOrDiscardState

TRIES = 64


def _claim_group(rem: int, fixed: int, x: int, lo: int, hi: int, rng: Rng):
    """``x`` cards from ``rem`` such that ``fixed`` plus them has a longest suit of ``lo`` to ``hi`` cards;
    uniform over such sets (suit counts weighted by the number of ways). None if impossible."""
    u = [(rem & SUIT_MASK[s]).bit_count() for s in range(4)]
    f = [(fixed & SUIT_MASK[s]).bit_count() for s in range(4)]
    opts = []
    total = 0
    for c0 in range(min(u[0], x) + 1):
        for c1 in range(min(u[1], x - c0) + 1):
            for c2 in range(min(u[2], x - c0 - c1) + 1):
                c3 = x - c0 - c1 - c2
                if c3 > u[3]:
                    continue
                cs = (c0, c1, c2, c3)
                if not lo <= max(f[s] + cs[s] for s in range(4)) <= hi:
                    continue
                w = comb(u[0], c0) * comb(u[1], c1) * comb(u[2], c2) * comb(u[3], c3)
                opts.append((w, cs))
                total += w
    if not total:
        return None
    pick = rng.below(total)
    for w, cs in opts:  # noqa: B007 - cs is the pick, read after the loop
        if pick < w:
            break
        pick -= w
    out = 0
    for s in range(4):
        if cs[s]:
            cards = rng.shuffle(bits(rem & SUIT_MASK[s]))
            for c in cards[:cs[s]]:
                out |= 1 << c
    return out


def sample_consistent(st: BeatOrDiscardState, player: int, rng: Rng) -> BeatOrDiscardState | None:
    """A state giving ``player`` the same observation as ``st``, with everything it cannot see re-dealt.

    Hidden from ``player``: the other hands, their face-down cards on the table and in the tricks, the
    stock. Kept: every count (hand sizes, face-down cards per seat and per trick, the stock), the cards
    publicly known in a seat's hand (they stay with that seat), this round's claims (the claimant's cards
    of the round hold a longest suit of exactly N, sampled by suit counts), the first lead's lowest diamond
    (first game, before the first trick), and a real choice for the seat to move when that is another seat
    (its picks in progress are dropped; a seat asked to claim holds a long enough suit). The stock order
    and later deals are re-seeded from ``rng`` (a kozel_env :class:`~kozel_env.core.rng.Rng`, advanced).
    Uniform over the consistent states where practical (exact for one claimant; see the module docstring).
    """
    new = st.clone()
    new.rng = Rng(rng.next_u64())
    if st.terminal:
        return new
    r = st.rules
    n, S = r.num_players, r.num_sides
    P = player
    public = 0
    for m in st.table_up:
        public |= m
    for m in st.piles_up:
        public |= m
    others = [q for q in range(n) if q != P]
    kn = 0
    for q in others:
        kn |= st.known[q]
    pool = FULL_DECK & ~public & ~st.hands[P] & ~st.laid_down[P] & ~kn
    gsize = {q: st.hands[q].bit_count() + st.table_down[q].bit_count() - st.known[q].bit_count()
             for q in others}
    pile_bins = []
    for q in others:
        for s in range(S):
            k = (st.laid_down[q] & st.piles[s]).bit_count()
            if k:
                pile_bins.append((q, s, k))
    stock_n = st.stock.bit_count()
    assert sum(gsize.values()) + sum(b[2] for b in pile_bins) + stock_n == pool.bit_count(), "bad bookkeeping"
    cp = st.current_player
    keep = ()
    for tries in (TRIES, TRIES):
        for _ in range(tries):
            cand = _try(st, new, P, pool, gsize, pile_bins, keep, rng)
            if cand is not None:
                return cand
        if cp == P or cp in keep:
            break
        keep = (cp,)  # fallback: the seat to move keeps its true group
    return new  # last resort: only the future is re-seeded


def _try(st, base, P, pool, gsize, pile_bins, keep, rng: Rng):
    """One draw of the hidden cards (the groups of ``keep`` kept as they are); None if it breaks a constraint."""
    r = st.rules
    n = r.num_players
    others = [q for q in range(n) if q != P]
    rem = pool
    group = {}
    for q in keep:
        g = (st.hands[q] | st.table_down[q]) & ~st.known[q]
        group[q] = g
        rem &= ~g
    for q in others:
        if st.claims[q] and q not in group:  # C1.13: "I have N" -- exactly N over the round
            g = _claim_group(rem, st.table_up[q] | st.known[q], gsize[q], st.claims[q], st.claims[q], rng)
            if g is None:
                return None
            group[q] = g
            rem &= ~g
    cp = st.current_player
    cards = rng.shuffle(bits(rem))
    i = 0
    for q in others:
        if q not in group:
            k = gsize[q]
            g = 0
            for c in cards[i:i + k]:
                g |= 1 << c
            i += k
            group[q] = g
    new = base.clone()
    laid_down = new.laid_down
    for q in others:
        laid_down[q] = 0
    piles = [st.piles_up[s] | (st.piles[s] & st.laid_down[P]) for s in range(r.num_sides)]
    for q, s, k in pile_bins:
        m = 0
        for c in cards[i:i + k]:
            m |= 1 << c
        i += k
        piles[s] |= m
        laid_down[q] |= m
    stock = 0
    seq = cards[i:]  # already in random order: the new stock order
    for c in seq:
        stock |= 1 << c
    for q in others:
        if q in keep:
            new.hands[q] = st.hands[q]
            new.table_down[q] = st.table_down[q]
        else:
            whole = rng.shuffle(bits(group[q] | st.known[q]))
            h = st.hands[q].bit_count()
            hand = down = 0
            for c in whole[:h]:
                hand |= 1 << c
            for c in whole[h:]:
                down |= 1 << c
            new.hands[q] = hand
            new.table_down[q] = down
        laid_down[q] |= new.table_down[q]
    new.piles = piles
    new.stock = stock
    new.stock_seq = tuple(seq)
    new.legal_cache = -1
    if r.four_of_a_kind:  # C1.14: such a hand at the deal or the last refill would have ended the match
        for q in new.active_seats():
            h = new.holding(q)
            if h & ACES == ACES or h & SIXES == SIXES:
                return None
    if st.diamond_leader >= 0:
        act = new.active_seats()
        hold = [new.holding(q) for q in range(n)]
        if lowest_diamond_seat(hold, act) != st.diamond_leader:
            return None
    if cp != P and cp not in keep:
        if not new.redecide():
            return None
    elif cp == P:
        new.legal_cache = st.legal_cache
    return new
