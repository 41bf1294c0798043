"""Determinization for ``queens_and_jacks_v0``: re-deal the hidden hands uniformly among every deal that
fits what a seat saw (seed 003, RULES C2.4: follow suit, trumps one suit, so a seat that showed out of an
effective suit holds none of it).
"""
from __future__ import annotations

from math import comb

from ...core.bits import bits
from ...core.errors import KozelError
from ...core.rng import Rng
from .engine import QueensAndJacksState
from .tables import FOLLOW


def sample_consistent(state: QueensAndJacksState, seat: int, rng: Rng) -> QueensAndJacksState:
    """Re-deal the other three hands uniformly among all deals consistent with what ``seat`` saw: own
    hand, every played card, hand sizes and the voids shown (trumps one suit). ``rng`` (an :class:`Rng`,
    advanced) draws the deal and re-seeds the future deals' Rng."""
    st = state
    new = st.clone()
    new.rng = Rng(rng.next_u64())
    if st.terminal:
        return new
    others = [s for s in range(4) if s != seat]
    unknown = 0
    for s in others:
        unknown |= st.hands[s]
    t = st.trump
    # group the unknown cards by effective suit; a group may go only to the seats not void in it
    if t < 0:  # trump still to be named: nothing has been played
        groups = [(bits(unknown), (0, 1, 2))]
    else:
        groups = []
        for es in range(4):
            cards = bits(unknown & FOLLOW[t][es])
            if cards:
                allowed = tuple(i for i, s in enumerate(others) if not (st.voids[s] >> es) & 1)
                groups.append((cards, allowed))
    sizes = tuple(st.hands[s].bit_count() for s in others)
    counts = _sample_counts(groups, sizes, rng)
    hands = [0, 0, 0]
    for (cards, _allowed), ks in zip(groups, counts):
        cards = cards[:]
        rng.shuffle(cards)
        pos = 0
        for i in range(3):
            for c in cards[pos:pos + ks[i]]:
                hands[i] |= 1 << c
            pos += ks[i]
    for i, s in enumerate(others):
        new.hands[s] = hands[i]
    return new


def _compositions(n: int, allowed: tuple, room: tuple) -> list:
    """Ways to split ``n`` cards among the 3 seats: only ``allowed`` seats, each within the cards it still
    has ``room`` for."""
    out = []
    a0 = 0 in allowed
    a1 = 1 in allowed
    a2 = 2 in allowed
    for k0 in range(min(n, room[0]) + 1 if a0 else 1):
        for k1 in range(min(n - k0, room[1]) + 1 if a1 else 1):
            k2 = n - k0 - k1
            if k2 and not a2:
                continue
            if k2 <= room[2]:
                out.append((k0, k1, k2))
    return out


_WAYS: dict = {}
"""The deal counts of :func:`_sample_counts` per groups' sizes, seats allowed and hand sizes (a search draws
many imagined deals of one position)."""


def _sample_counts(groups: list, sizes: tuple, rng: Rng) -> list:
    """Uniform over deals: choose how many cards of each group go to each seat with probability
    proportional to the number of deals with those counts (product of multinomials), exactly (big ints).
    ``sizes``: the three seats' hand sizes."""
    key0 = (tuple((len(cards), allowed) for cards, allowed in groups), sizes)
    memo = _WAYS.get(key0)
    if memo is None:  # the counts depend only on the groups' sizes and seats: kept for the next draws
        if len(_WAYS) >= 4096:
            _WAYS.clear()
        memo = _WAYS[key0] = {}
    ng = len(groups)

    def ways(i, room):
        if i == ng:
            return 1 if room == (0, 0, 0) else 0
        key = (i, room)
        if key in memo:
            return memo[key]
        n = len(groups[i][0])
        total = 0
        for ks in _compositions(n, groups[i][1], room):
            rest = (room[0] - ks[0], room[1] - ks[1], room[2] - ks[2])
            w = ways(i + 1, rest)
            if w:
                total += comb(n, ks[0]) * comb(n - ks[0], ks[1]) * w
        memo[key] = total
        return total

    if ways(0, sizes) == 0:
        raise KozelError("no deal is consistent with the observation (corrupt state)")
    out = []
    room = sizes
    for i in range(ng):
        n = len(groups[i][0])
        options = []
        for ks in _compositions(n, groups[i][1], room):
            rest = (room[0] - ks[0], room[1] - ks[1], room[2] - ks[2])
            w = ways(i + 1, rest)
            if w:
                options.append((comb(n, ks[0]) * comb(n - ks[0], ks[1]) * w, ks, rest))
        total = sum(o[0] for o in options)
        x = _big_below(rng, total)
        for w, ks, rest in options:
            if x < w:
                out.append(ks)
                room = rest
                break
            x -= w
    return out


def _big_below(rng: Rng, n: int) -> int:
    """Uniform int in [0, n) for a possibly big ``n`` (rejection on 64-bit limbs)."""
    nbits = n.bit_length()
    limbs = (nbits + 63) // 64
    while True:
        x = 0
        for _ in range(limbs):
            x = (x << 64) | rng.next_u64()
        x >>= limbs * 64 - nbits
        if x < n:
            return x
