"""Precomputed tables of ``beat_or_discard_v0`` (seed 002, RULES C1): rank order, action ids, phases, masks.

Cards are the ids of :mod:`kozel_env.cards.deck` (``suit * 9 + rank``); card points come from
``deck.POINTS`` / :func:`kozel_env.cards.deck.points` (RULES C, "Card points everywhere").

* :data:`ORDER` / :data:`STRENGTH` -- the game's one trick-strength table (C1.2: ``6 7 8 9 J Q K T A``);
* the action layout (``num_actions = 40``, ids refer to cards, never to seats or hand positions):
  ``0..35`` pick a card, :data:`A_PLAY` lead / beat, :data:`A_DOWN` discard / equalise face down,
  :data:`A_PASS` pass / done, :data:`A_CLAIM` claim (C1.13); ``B_*`` are their bits in an action mask;
* the decision phases ``PH_*`` and their names;
* masks and look-ups: the aces and the sixes (C1.14), the diamonds from the lowest up (C1.11).
"""
from __future__ import annotations

from ...core.bits import bits
from ..deck import DIAMONDS, NUM_CARDS, R6, RA, RANK_MASK, SUIT_MASK, card_str, strength_table

ORDER = "6789JQKTA"
"""Seed 002 / RULES C1.2: ranks low to high (the ten between the king and the ace)."""
STRENGTH = strength_table(ORDER)
"""Per card id, the rank's position in :data:`ORDER` (0 = six .. 8 = ace); the same in every suit, so
``STRENGTH[r]`` for ``r < 9`` (the clubs) is also the strength of rank index ``r``."""

A_PLAY, A_DOWN, A_PASS, A_CLAIM = 36, 37, 38, 39
NUM_ACTIONS = 40
B_PLAY, B_DOWN, B_PASS, B_CLAIM = 1 << A_PLAY, 1 << A_DOWN, 1 << A_PASS, 1 << A_CLAIM

PH_CLAIM, PH_LEAD, PH_ANSWER, PH_REBEAT, PH_EQUALISE, PH_OVER = range(6)
PHASE_NAMES = ("claim?", "lead", "answer", "beat again or done", "equalise", "over")

_POP9 = tuple(m.bit_count() for m in range(512))
SUIT_OF_CARD = tuple(SUIT_MASK[c // 9] for c in range(NUM_CARDS))
"""``SUIT_OF_CARD[c]``: the mask of every card of ``c``'s suit."""
_LOW9 = tuple(tuple(k * 9 + i for i in range(9) if m >> i & 1) for k in range(4) for m in range(512))
_SPECIAL = tuple(tuple(36 + i for i in range(4) if m >> i & 1) for m in range(16))
ACES, SIXES = RANK_MASK[RA], RANK_MASK[R6]
DIAMOND_ORDER = tuple(sorted((DIAMONDS * 9 + r for r in range(9)), key=lambda c: STRENGTH[c]))
"""The diamonds from the lowest up (C1.11)."""


def mask_to_actions(m: int) -> list:
    """Sorted action ids of an action bitmask (table look-ups per 9-bit chunk)."""
    return [*_LOW9[m & 511], *_LOW9[512 + (m >> 9 & 511)], *_LOW9[1024 + (m >> 18 & 511)],
            *_LOW9[1536 + (m >> 27 & 511)], *_SPECIAL[m >> 36 & 15]]


def longest_suit(h: int) -> int:
    """Length of the longest suit in a hand (the N of a claim, C1.13)."""
    a, b, c, d = _POP9[h & 511], _POP9[h >> 9 & 511], _POP9[h >> 18 & 511], _POP9[h >> 27 & 511]
    if b > a:
        a = b
    if c > a:
        a = c
    return d if d > a else a


def lowest_diamond_seat(hands, seats) -> int:
    """C1.11: the seat (among ``seats``) holding the lowest diamond; nobody: the first of ``seats``."""
    for c in DIAMOND_ORDER:
        b = 1 << c
        for q in seats:
            if hands[q] & b:
                return q
    return seats[0]


def cards_text(m: int) -> str:
    """The cards of a mask in notation, by suit (C D H S) and, inside a suit, from the lowest up (C1.2)."""
    return " ".join(card_str(c) for c in sorted(bits(m), key=lambda c: (c // 9, STRENGTH[c])))
