"""Precomputed tables of ``queens_and_jacks_v0`` (seed 003, RULES C2): the action layout, the trump and
follow masks per trump suit, the one trick-strength table, and the lookups the move generator uses.

Cards are the ids of :mod:`kozel_env.cards.deck` (``suit * 9 + rank``); a trump suit ``t`` is a suit index
0..3 (C D H S). Card points (eyes) are :data:`kozel_env.cards.deck.POINTS` / :func:`~kozel_env.cards.deck.points`.
"""
from __future__ import annotations

from ..deck import NUM_CARDS, RANK_MASK, RJ, RQ, SUIT_MASK, SUIT_OF, card_str, strength_table

# -- actions ------------------------------------------------------------------------------------------

NAME_BASE = NUM_CARDS
"""Actions ``0..35`` play that card; action ``NAME_BASE + suit`` (36..39) names that trump suit (C2.3)."""
NUM_ACTIONS = NAME_BASE + 4
NAME_ACTIONS = tuple(range(NAME_BASE, NUM_ACTIONS))
"""The four naming actions, clubs, diamonds, hearts, spades."""
NAME_MASK = sum(1 << a for a in NAME_ACTIONS)
"""``legal_mask`` while the trump suit is to be named."""

# -- trumps and suits (C2.2, C2.4) --------------------------------------------------------------------

QJ_MASK = RANK_MASK[RQ] | RANK_MASK[RJ]
"""The eight queens and jacks: always trumps (C2.2)."""
TRUMP_MASK = tuple(QJ_MASK | SUIT_MASK[t] for t in range(4))
"""``TRUMP_MASK[t]``: the trumps when ``t`` is the trump suit (queens, jacks and the suit's other cards)."""
FOLLOW = tuple(
    tuple(TRUMP_MASK[t] if s == t else SUIT_MASK[s] & ~QJ_MASK for s in range(4)) for t in range(4)
)
"""``FOLLOW[t][s]``: the cards that follow effective suit ``s`` when ``t`` is trump (trumps are one suit,
indexed by the trump suit's own index; a plain suit never holds its queen and jack, C2.2 / C2.4)."""
EFF = tuple(tuple(t if (TRUMP_MASK[t] >> c) & 1 else SUIT_OF[c] for c in range(NUM_CARDS)) for t in range(4))
"""``EFF[t][c]``: the effective suit of card ``c`` when ``t`` is trump."""


def _strength() -> tuple:
    plain = strength_table("6789KTA")  # A T K 9 8 7 6 high to low in a plain suit (C2.2)
    qj_low_to_high = ("JD", "JH", "JS", "JC", "QD", "QH", "QS", "QC")  # the top trumps (C2.2)
    return tuple(qj_low_to_high.index(card_str(c)) + 7 if (QJ_MASK >> c) & 1 else plain[c]
                 for c in range(NUM_CARDS))


STRENGTH = _strength()
"""The trick-strength table: order inside an effective suit, plain ranks 0..6 (6 .. A), queens and jacks
7..14 (JD .. QC, C2.2). A card beats another of its effective suit when its strength is higher (C2.4)."""

# -- move generation ------------------------------------------------------------------------------------

CARDS_OF_SUIT_BITS = tuple(
    tuple(tuple(s * 9 + i for i in range(9) if (m >> i) & 1) for m in range(512)) for s in range(4)
)
"""``CARDS_OF_SUIT_BITS[s][m]``: the sorted card ids of suit ``s`` whose ranks are the bits of the 9-bit
``m`` (a hand mask's suit ``s`` chunk is ``(hand >> 9 * s) & 511``): ``legal_actions`` in four lookups."""
CARD_BIT = tuple(1 << c for c in range(NUM_CARDS))
"""``CARD_BIT[c]``: the mask of card ``c`` alone."""
