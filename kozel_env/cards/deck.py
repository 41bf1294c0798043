"""The cards core shared by every card Kozel: the 36/32-card deck, card notation and card points.

RULES notation: a card is rank then suit, ranks ``6 7 8 9 T J Q K A``, suits ``C D H S`` (``QC`` is the
queen of clubs, ``TS`` the ten of spades). Card ids are ``suit * 9 + rank`` with ``rank`` the index in
``RANKS`` and ``suit`` the index in ``SUITS``; a hand or a set of played cards is an int bitmask over ids.

Card points (RULES C, "Card points everywhere"): A 11, T 10, K 4, Q 3, J 2, 9 8 7 6 nothing; 120 in a deck.

Rank *order* differs between the games (seed 002: 6 7 8 9 J Q K T A; seed 003: A T K 9 8 7 6 in plain
suits; seed 004: A T K Q J 9 8 7 6), so each engine builds its own strength table with :func:`strength_table`.
"""
from __future__ import annotations

from ..core.bits import bits
from ..core.errors import KozelError

RANKS = "6789TJQKA"
SUITS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
NUM_CARDS = 36
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
R6, R7, R8, R9, RT, RJ, RQ, RK, RA = range(9)

RANK_POINTS = (0, 0, 0, 0, 10, 2, 3, 4, 11)  # 6 7 8 9 T J Q K A
POINTS = tuple(RANK_POINTS[c % 9] for c in range(NUM_CARDS))
SUIT_OF = tuple(c // 9 for c in range(NUM_CARDS))
RANK_OF = tuple(c % 9 for c in range(NUM_CARDS))
SUIT_MASK = tuple(sum(1 << (s * 9 + r) for r in range(9)) for s in range(4))
RANK_MASK = tuple(sum(1 << (s * 9 + r) for s in range(4)) for r in range(9))
FULL_DECK = (1 << NUM_CARDS) - 1
DECK_32 = FULL_DECK & ~RANK_MASK[R6]  # no sixes


def card(rank: int, suit: int) -> int:
    return suit * 9 + rank


def card_str(c: int) -> str:
    return RANKS[c % 9] + SUITS[c // 9]


def parse_card(text: str) -> int:
    """``"QC"`` -> card id. Accepts lower case and ``10`` for ``T``; raises KozelError on bad text."""
    t = text.strip().upper().replace("10", "T")
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise KozelError(f"not a card: {text!r} (rank in {RANKS} then suit in {SUITS}, e.g. 'QC', 'TS')")
    return card(RANKS.index(t[0]), SUITS.index(t[1]))


def cards_str(mask: int, sep: str = " ") -> str:
    return sep.join(card_str(c) for c in bits(mask))


def parse_cards(text: str) -> int:
    """``"QC TS"`` or ``"QC,TS"`` -> bitmask; a repeated card is an error."""
    mask = 0
    for tok in text.replace(",", " ").split():
        c = parse_card(tok)
        if mask >> c & 1:
            raise KozelError(f"card {tok} given twice in {text!r}")
        mask |= 1 << c
    return mask


def points(mask: int) -> int:
    """Card points (eyes) of a set of cards."""
    return sum(POINTS[c] for c in bits(mask))


def deck_mask(size: int) -> int:
    if size == 36:
        return FULL_DECK
    if size == 32:
        return DECK_32
    raise KozelError(f"deck must be 36 or 32 cards, got {size!r}")


def strength_table(order_low_to_high: str) -> tuple:
    """Per card id, the rank's position in ``order_low_to_high`` (a string over RANKS), -1 if absent."""
    return tuple(order_low_to_high.find(RANKS[c % 9]) for c in range(NUM_CARDS))
