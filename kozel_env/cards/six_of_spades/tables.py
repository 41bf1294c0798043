"""Precomputed tables of card Kozel with the six of spades (seed 004, RULES C3): card masks, the one
trick-strength table, the action ids and the small card-set predicates and enumerations (the legal leads,
the answers of a size, the next card of a set being built) every other module builds on.

Card ids, notation and card points are :mod:`kozel_env.cards.deck` (``deck.POINTS``, ``deck.points``);
nothing here repeats them.

Actions (``NUM_ACTIONS = 42`` in every variant; ids name cards, never seats): ``0..35`` choose that card,
``A_LEAD`` / ``A_BEAT`` / ``A_DOWN`` confirm the chosen set, ``A_MOSKVA`` / ``A_MOLODKA`` make a call,
``A_PASS`` lets a call go (the package docstring tells how a set is built).
"""
from __future__ import annotations

from ...core.bits import bits
from ..deck import FULL_DECK, NUM_CARDS, R6, RA, RANK_MASK, RT, SPADES, SUIT_MASK, SUIT_OF, card, strength_table

HAND = 4
"""Cards a hand is dealt and refilled to (seed 1, C3.1 / C3.4); also the largest lead."""
SIX_S = card(R6, SPADES)
SIX_BIT = 1 << SIX_S
NOT_SIX = FULL_DECK & ~SIX_BIT
ACES = RANK_MASK[RA]
TENS = RANK_MASK[RT]
MOSKVA_CARDS = ACES | TENS | SIX_BIT
"""The cards a Moskva is made of (C3.5: aces and tens, ``6S`` standing in for a ten)."""
STRENGTH = strength_table("6789JQKTA")
"""The game's one trick-strength table, seed 2 / C3.2: each card's rank position low to high within a suit."""

A_LEAD, A_BEAT, A_DOWN, A_MOSKVA, A_MOLODKA, A_PASS = range(NUM_CARDS, NUM_CARDS + 6)
NUM_ACTIONS = NUM_CARDS + 6
NAMES = {A_LEAD: "lead", A_BEAT: "beat", A_DOWN: "down", A_MOSKVA: "moskva", A_MOLODKA: "molodka",
         A_PASS: "pass"}
ACTION_OF_NAME = {v: k for k, v in NAMES.items()}
MOSKVA, MOLODKA = 0, 1
"""Call kinds (C3.5); a call action is ``A_MOSKVA + kind``, a called lead has ``lead_call = kind + 1``."""
KIND_NAMES = ("Moskva", "Molodka")

PH_CALL, PH_LEAD, PH_ANSWER, PH_OVER = 0, 1, 2, 3
"""Phases: a seat is asked for a call, a lead is being built, an answer is being built, the match is over."""


def _beaten_by_table() -> tuple:
    """``BEATEN_BY[trump][t]``: mask of the cards that beat the top card ``t`` (seed 5, C3.2), from
    :data:`STRENGTH`."""
    table = []
    for tr in range(4):
        row = []
        for t in range(NUM_CARDS):
            if t == SIX_S:
                row.append(0)  # a top 6S cannot be beaten
                continue
            m = SIX_BIT  # 6S beats every card
            s = SUIT_OF[t]
            for c in range(s * 9, s * 9 + 9):
                if STRENGTH[c] > STRENGTH[t]:
                    m |= 1 << c
            if s != tr:
                m |= SUIT_MASK[tr]
            row.append(m)
        table.append(tuple(row))
    return tuple(table)


BEATEN_BY = _beaten_by_table()
"""``BEATEN_BY[trump][t]``: mask of the cards that beat the top card ``t`` with trump suit ``trump``."""


def beats(a: int, t: int, trump: int) -> bool:
    """Does card ``a`` beat the top card ``t`` with trump suit ``trump``?"""
    return bool(BEATEN_BY[trump][t] >> a & 1)


def covers_sorted(answer: int, tops: tuple, beaten_by: tuple, i: int = 0) -> bool:
    """Can the cards of mask ``answer`` beat ``tops[i:]`` one for one (a matching)? ``tops`` as
    :func:`hardest_first` gives them, ``beaten_by`` the trump's row of :data:`BEATEN_BY`."""
    if i == len(tops):
        return True
    cand = answer & beaten_by[tops[i]]
    while cand:
        low = cand & -cand
        if covers_sorted(answer ^ low, tops, beaten_by, i + 1):
            return True
        cand ^= low
    return False


def covers(answer: int, top: int, trump: int) -> bool:
    """Does the set ``answer`` beat every card of the set ``top`` one for one (seed 5, C3.3)?"""
    if answer.bit_count() != top.bit_count():
        return False
    bb = BEATEN_BY[trump]
    return covers_sorted(answer, hardest_first(top, bb), bb)


def hardest_first(top: int, beaten_by: tuple) -> tuple:
    """The cards of ``top``, those beaten by the fewest cards first (the matching search tries them first)."""
    return tuple(sorted(bits(top), key=lambda t: beaten_by[t].bit_count()))


def call_kind(hand: int) -> int:
    """``MOSKVA``, ``MOLODKA`` or -1 for a hand (C3.5: exactly four cards)."""
    if hand.bit_count() != HAND:
        return -1
    if not hand & ~MOSKVA_CARDS and hand & ACES:
        return MOSKVA
    u = hand & NOT_SIX
    s = SUIT_OF[(u & -u).bit_length() - 1]
    return MOLODKA if not u & ~SUIT_MASK[s] else -1


def is_lead(m: int) -> bool:
    """Cards of one suit, ``6S`` allowed to join any suit (seed 4, C3.3); size not checked."""
    u = m & NOT_SIX
    return not u or not u & ~SUIT_MASK[SUIT_OF[(u & -u).bit_length() - 1]]


def lead_sets(hand: int, cap: int) -> tuple:
    """Every legal lead from ``hand`` (seed 4, C3.3): a non-empty subset of at most ``cap`` cards whose
    cards other than ``6S`` are of one suit."""
    out = []
    s = hand
    while s:
        if s.bit_count() <= cap:
            u = s & NOT_SIX
            if not u or not u & ~SUIT_MASK[SUIT_OF[(u & -u).bit_length() - 1]]:
                out.append(s)
        s = (s - 1) & hand
    return tuple(out)


def subsets_of_size(hand: int, k: int) -> list:
    """Every subset of ``hand`` with ``k`` cards (the answers to a lead of ``k``, seed 5, C3.3)."""
    m = hand.bit_count()
    if k == m:
        return [hand]
    out = []
    if k == 1:
        while hand:
            low = hand & -hand
            out.append(low)
            hand ^= low
        return out
    s = hand
    while s:
        if s.bit_count() == k:
            out.append(s)
        s = (s - 1) & hand
    return out


def next_cards(sets: tuple, chosen: int) -> int:
    """Cards that may be chosen next: ``c`` with ``chosen`` the smallest members of a legal set and ``c`` its
    next member (cards are chosen in increasing id, so every set has exactly one path)."""
    low = (1 << chosen.bit_length()) - 1
    out = 0
    for u in sets:
        if u & low == chosen and u != chosen:
            r = u ^ chosen
            out |= r & -r
    return out
