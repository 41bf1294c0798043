"""Reference observation of the queens-and-jacks engine (``queens_and_jacks_v0``, seed 003, RULES C2), written
from the parts' docs in :mod:`kozel_env.cards.queens_and_jacks.game` (``_OBS_PARTS``): every part by its
documented meaning, from the state's fields, with loops over seats, suits and cards."""
from __future__ import annotations

import numpy as np

from kozel_env.cards.deck import NUM_CARDS, SUIT_OF, card_str

QUEENS_AND_JACKS = ("QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD")  # always trumps (C2.2)
EYES_IN_THE_DECK = 120  # A 11, T 10, K 4, Q 3, J 2 (RULES C): 120 with 36 or 32 cards
TRICKS_SCALE = 9  # the ``tricks`` part is "/ 9"


def _holds(mask: int, card: int) -> bool:
    return (mask >> card) % 2 == 1


def _one_hot(n: int, k: int) -> list:
    return [1.0 if i == k else 0.0 for i in range(n)]


def _cards_row(mask: int) -> list:
    return [1.0 if _holds(mask, c) else 0.0 for c in range(NUM_CARDS)]


def effective_suit(card: int, trump: int) -> int:
    """A queen or a jack, or a card of the trump suit, belongs to the trumps (C2.2), which count as the trump
    suit; any other card to its own suit."""
    if card_str(card) in QUEENS_AND_JACKS or SUIT_OF[card] == trump:
        return trump
    return SUIT_OF[card]


def build(game, st, seat: int) -> dict:
    rules = game.rules
    seats = [(seat + k) % 4 for k in range(4)]  # seat offsets: 0 = you, 1 = next clockwise, 2 = partner ...
    my_side = seat % 2
    sides = [my_side, 1 - my_side]  # the observer's side, then the other side
    out = {}
    out["hand"] = _cards_row(st.hands[seat])
    out["trick"] = [_one_hot(NUM_CARDS, st.trick[q]) if st.trick[q] >= 0 else [0.0] * NUM_CARDS for q in seats]
    out["played"] = [_cards_row(st.played[q]) for q in seats]
    # "showed out of the suit": the seat did not follow the effective suit led, this hand (C2.4)
    out["voids"] = [[1.0 if _holds(st.voids[q], s) else 0.0 for s in range(4)] for q in seats]
    out["trump"] = _one_hot(4, st.trump) if st.trump >= 0 else [0.0] * 4
    out["dealer"] = [1.0 if q == st.dealer else 0.0 for q in seats]
    out["leader"] = [1.0 if q == st.trick_leader else 0.0 for q in seats]
    out["eggs"] = _one_hot(4, min(st.ledger.eggs_streak, 3))
    out["naming"] = [1.0 if st.trump < 0 else 0.0]
    out["rules"] = [1.0 if rules.trumps == "named" else 0.0, 1.0 if rules.deck == 32 else 0.0,
                    1.0 if rules.target == 6 else 0.0]
    out["eyes"] = [st.eyes[sd] / EYES_IN_THE_DECK for sd in sides]
    out["tricks"] = [st.tricks[sd] / TRICKS_SCALE for sd in sides]
    out["score"] = [min(st.ledger.scores[sd] / rules.target, 1.0) for sd in sides]
    return {p.name: np.array(out[p.name], np.float32).reshape(p.shape) for p in game.obs_spec.parts}

