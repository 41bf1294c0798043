"""Reference observation of ``beat_or_discard_v0``, written slowly from each part's documented meaning.

Every part of ``game.obs_spec`` is built here from the state's fields with plain loops over seats and
cards (no bit packing, nothing reused from the engine's observation code), following the ``doc`` string of
the part (the README table shows the same words). The engine's fast builder must give the same numbers:
``spec.view(game.observe(state, seat))[part] == build(game, state, seat)[part]`` for every part.
"""
from __future__ import annotations

import numpy as np

NUM_CARDS = 36
PH_ANSWER, PH_EQUALISE = 2, 4  # the decision phases that owe face-down cards (the part "decision" lists them)
CLAIM_NS = (4, 5, 6)


def _has(mask: int, i: int) -> bool:
    """Is card (or seat) ``i`` in the int set ``mask`` (a state field)?"""
    return (mask >> i) & 1 == 1


def _card_list(mask: int) -> list:
    """1 for each card id in ``mask``, 0 for the others."""
    return [float((mask >> c) & 1) for c in range(NUM_CARDS)]


def _card_row(mask: int) -> np.ndarray:
    return np.array(_card_list(mask), np.float32)


def _card_rows(masks) -> np.ndarray:
    """One card row per mask."""
    return np.array([_card_list(m) for m in masks], np.float32)


def _count(mask: int) -> int:
    """How many cards the set ``mask`` holds."""
    return mask.bit_count()


def _thermometer_list(k: int, width: int) -> list:
    """Bit i: more than i."""
    return [1.0 if k > i else 0.0 for i in range(width)]


def _thermometer(k: int, width: int) -> np.ndarray:
    return np.array(_thermometer_list(k, width), np.float32)


def _thermometers(counts, width: int) -> np.ndarray:
    """One thermometer row per count."""
    return np.array([_thermometer_list(k, width) for k in counts], np.float32)


def _one_hot(index: int, width: int) -> np.ndarray:
    """1 at ``index`` (all 0 for -1)."""
    return np.array([1.0 if i == index else 0.0 for i in range(width)], np.float32)


def build(game, st, seat: int) -> dict:
    """``{part name: array of the part's shape}`` for every part of ``game.obs_spec``, seen by ``seat``."""
    r = game.rules
    n = r.num_players
    hs = r.hand_size
    # "relative seats: 0 = you, 1 = next clockwise, ..."
    seats = [(seat + k) % n for k in range(n)]
    # "relative sides: 0 = your pair, 1 = the other pair" (pairs); solo: a side is a player, relative seats
    if r.pairs:
        mine = seat % 2
        sides = [mine, 1 - mine]
    else:
        sides = seats
    my_turn = st.current_player == seat

    def relative(q: int) -> int:
        """Where absolute seat ``q`` sits seen from ``seat`` (-1 for no seat)."""
        return seats.index(q) if q >= 0 else -1

    out = {}
    out["hand"] = _card_row(st.hands[seat])
    out["selected"] = _card_row(st.picked if my_turn else 0)
    out["top"] = _card_row(st.top)
    out["lead"] = _card_row(st.lead)
    out["my_down"] = _card_row(st.table_down[seat])
    out["revealed"] = _card_row((1 << st.revealed) if st.revealed >= 0 else 0)
    out["table"] = _card_rows([st.table_up[q] for q in seats])
    out["known"] = _card_rows([st.known[q] for q in seats])
    # the cards of each side's tricks that you saw: the face-up ones and your own face-down ones
    seen = np.zeros((len(sides), NUM_CARDS), np.float32)
    for k, s in enumerate(sides):
        face_up = _card_list(st.piles_up[s])
        in_pile = _card_list(st.piles[s])
        mine = _card_list(st.laid_down[seat])
        for c in range(NUM_CARDS):
            if face_up[c] or (in_pile[c] and mine[c]):
                seen[k, c] = 1.0
    out["pile_seen"] = seen
    out["leader"] = _one_hot(-1 if st.terminal else relative(st.leader), n)
    out["last_beater"] = _one_hot(relative(st.last_beater), n)
    out["locked"] = np.array([1.0 if _has(st.locked, q) else 0.0 for q in seats], np.float32)
    out["acted"] = np.array([1.0 if _has(st.acted, q) else 0.0 for q in seats], np.float32)
    out["out"] = np.array([1.0 if _has(st.out, q) else 0.0 for q in seats], np.float32)
    claims = np.zeros((n, len(CLAIM_NS)), np.float32)
    for k, q in enumerate(seats):
        for i, claim in enumerate(CLAIM_NS):
            if st.claims[q] == claim:
                claims[k, i] = 1.0
    out["claims"] = claims
    out["trump"] = _one_hot(st.trump, 4)
    out["decision"] = _one_hot(st.phase if my_turn else -1, 5)
    out["first_game"] = np.array([1.0 if st.first_game else 0.0], np.float32)
    out["diamond_leader"] = _one_hot(relative(st.diamond_leader), n)
    out["took"] = np.array([1.0 if st.tricks[s] > 0 else 0.0 for s in sides], np.float32)
    out["eggs"] = _one_hot(min(st.ledger.eggs_streak, 3), 4)
    out["hand_counts"] = _thermometers([_count(st.hands[q]) for q in seats], hs)
    out["down_counts"] = _thermometers([_count(st.table_down[q]) for q in seats], hs)
    owes = my_turn and st.phase in (PH_ANSWER, PH_EQUALISE)
    out["owed"] = _thermometer(st.owed if owes else 0, hs)
    out["stock"] = _thermometer(_count(st.stock), NUM_CARDS)
    out["pile_counts"] = _thermometers([_count(st.piles[s]) for s in sides], NUM_CARDS)
    out["scores"] = _thermometers([st.ledger.scores[s] for s in sides], r.target)
    return out
