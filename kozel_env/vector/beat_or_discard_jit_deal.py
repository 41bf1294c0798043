"""``beat_or_discard_v0`` batched, the compiled deal (issue 34): :func:`.beat_or_discard_deal.deal` -- the
scalar :mod:`kozel_env.cards.beat_or_discard.scoring`'s ``_deal`` (C1.9-C1.11: the shuffle from the game's own
:class:`~kozel_env.core.rng.Rng` stream, splitmix64 and ``Rng.shuffle``'s Fisher-Yates bit for bit; the hands
to the seats still in; the stock in draw order; the leader, C1.11; four of a kind handed off, C1.14) and the
claim question that opens the round (C1.13) -- as one loop over the games, a numba kernel like those of
:mod:`.beat_or_discard_jit` (integers only: ``uint64`` for the generator, wrapping as the scalar ``& MASK64``).
The end of the game before it (the score) stays the array :func:`.beat_or_discard_deal.end_game`.
"""
from __future__ import annotations

import numpy as np

from ..cards.beat_or_discard.tables import ACES, SIXES
from ..cards.deck import DIAMONDS, NUM_CARDS
from .beat_or_discard_jit import (
    DIAMOND_LEADER,
    FOUR_RULE,
    HANDOFF,
    HANDOFF_ARG,
    HANDS,
    HS,
    KNOWN,
    LAID,
    LAST_TAKER,
    OUT,
    PILES,
    PILES_UP,
    REVEALED,
    STOCK,
    STOCK_POS,
    STOCK_SEQ,
    TRICKS,
    TRUMP,
    N,
    _kernel,
    _njit,
    ask_claims,
    clear_round,
)
from .beat_or_discard_moves import FOUR, MATCH_OVER
from .rng import _C1, _C2, _S27, _S30, _S31, GOLDEN


@_njit
def shuffle(rng, b, cards) -> None:
    """``Rng.shuffle(list(range(36)))`` of game ``b``'s generator into ``cards``; the generator moves on."""
    for i in range(NUM_CARDS):
        cards[i] = i
    s = rng[b]
    for i in range(NUM_CARDS - 1, 0, -1):
        s = s + GOLDEN
        z = (s ^ (s >> _S30)) * _C1
        z = (z ^ (z >> _S27)) * _C2
        z = z ^ (z >> _S31)
        j = np.int64(z % np.uint64(i + 1))
        cards[i], cards[j] = cards[j], cards[i]
    rng[b] = s


@_njit
def deal_one(st, rng, b, first, R, lowest, cards, scratch) -> None:
    """scoring._deal in game ``b`` (``first``: the match's first game, see :func:`.beat_or_discard_deal.deal`),
    then the claim question (engine._ask_claims from the seat after the leader, C1.13)."""
    n, hs = R[N], R[HS]
    shuffle(rng, b, cards)
    out = st[OUT][b]
    slot = 0
    for q in range(n):
        h = 0
        if not out >> q & 1:
            for i in range(slot * hs, slot * hs + hs):
                h |= np.int64(1) << cards[i]
            slot += 1
        st[HANDS][b, q] = h
        st[LAID][b, q] = 0
        st[KNOWN][b, q] = 0
    dealt = slot * hs
    stock = 0
    for i in range(dealt, NUM_CARDS):
        stock |= np.int64(1) << cards[i]
    st[STOCK][b] = stock
    for i in range(NUM_CARDS):
        st[STOCK_SEQ][b, i] = cards[min(i + dealt, NUM_CARDS - 1)]
    st[STOCK_POS][b] = 0
    for k in range(st[PILES].shape[1]):
        st[PILES][b, k] = 0
        st[PILES_UP][b, k] = 0
        st[TRICKS][b, k] = 0
    st[REVEALED][b] = -1
    if hs == 4:
        st[TRUMP][b] = DIAMONDS
    st[DIAMOND_LEADER][b] = -1
    leader = st[LAST_TAKER][b]
    for _ in range(n):  # C1.11: the taker of the last trick, the next seat in where it is out
        if out >> leader & 1:
            leader = (leader + 1) % n
    if first:  # the holder of the lowest diamond (nobody: seat 0)
        leader = 0
        for q in range(1, n):
            if lowest[st[HANDS][b, q] >> (9 * DIAMONDS) & 511] < lowest[st[HANDS][b, leader] >> (9 * DIAMONDS) & 511]:
                leader = q
        st[DIAMOND_LEADER][b] = leader
    for _ in range(n):
        if st[HANDS][b, leader] == 0:
            leader = (leader + 1) % n
    clear_round(st, b, leader, R)
    if R[FOUR_RULE]:
        for q in range(n):
            h = st[HANDS][b, q]
            if not out >> q & 1 and (h & ACES == ACES or h & SIXES == SIXES):  # C1.14
                st[HANDOFF][b] = MATCH_OVER if first else FOUR
                st[HANDOFF_ARG][b] = 0
                return
    ask_claims(st, b, (leader + 1) % n, R, scratch)


@_kernel
def deals(st, rng, idx, first, tb, lowest, cards, scratch) -> None:
    """:func:`deal_one` in games ``idx`` (``first[k]`` for game ``idx[k]``); ``cards``: scratch of 36."""
    R = tb[0]
    for k in range(len(idx)):
        deal_one(st, rng, idx[k], first[k], R, lowest, cards, scratch)
