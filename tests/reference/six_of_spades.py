"""Reference observation of card Kozel with the six of spades (seed 004, RULES C3), from the parts' docs in
:func:`kozel_env.cards.six_of_spades.game.observation_parts`.

Plain on purpose: it reads the state's fields, loops over seats, sides and cards, and shares nothing with
the engine's observation code. Seats are relative to the observer (0 = you, 1 = next clockwise, ...);
sides too (0 = your side; with four players your pair).
"""
from __future__ import annotations

import numpy as np

from kozel_env.cards.six_of_spades import MOLODKA, MOSKVA, PH_ANSWER, PH_CALL, PH_LEAD

NUM_CARDS = 36
HAND = 4


def _cards(mask: int) -> list:
    """The card ids in a card set."""
    return [c for c in range(NUM_CARDS) if mask & (1 << c)]


def _count(mask: int) -> int:
    return len(_cards(mask))


def _cards_row(mask: int) -> list:
    """One 0/1 entry per card id: is the card in the set?"""
    return [1.0 if mask & (1 << c) else 0.0 for c in range(NUM_CARDS)]


def _one_hot(width: int, index: int | None) -> list:
    return [1.0 if i == index else 0.0 for i in range(width)]


def _thermometer(width: int, value: int) -> list:
    """``value`` ones then zeros (capped at ``width``)."""
    return [1.0 if i < value else 0.0 for i in range(width)]


def build(game, st, seat: int) -> dict:
    r = game.rules
    n, ns = r.num_players, r.num_sides
    spec = game.obs_spec
    shape = {p.name: p.shape for p in spec.parts}
    seats = [(seat + k) % n for k in range(n)]  # seats[q]: the absolute seat at relative place q
    if r.pairs:
        sides = [(r.side_of(seat) + k) % ns for k in range(ns)]
    else:
        sides = seats
    over = st.terminal
    to_move = None if over else st.current_player
    out = {}
    out["hand"] = _cards_row(st.hands[seat])
    out["selected"] = _cards_row(st.selected if to_move == seat else 0)
    phases = [PH_CALL, PH_LEAD, PH_ANSWER]
    out["phase"] = [1.0 if not over and st.phase == ph else 0.0 for ph in phases]
    out["to_act"] = [1.0 if q == to_move else 0.0 for q in seats]
    out["seat"] = _one_hot(n, seat)
    out["trump_suit"] = _one_hot(4, st.trump_suit)
    out["trump_card"] = _one_hot(NUM_CARDS, st.trump_card)
    at = [1.0 if st.trump_drawn_by < 0 else 0.0] + [1.0 if q == st.trump_drawn_by else 0.0 for q in seats]
    out["trump_card_at"] = at
    out["stock"] = _thermometer(shape["stock"][0], len(st.stock))
    out["hand_sizes"] = [_one_hot(HAND + 1, _count(st.hands[q])) if q in st.seats_in_deal else [0.0] * (HAND + 1)
                         for q in seats]
    out["in_deal"] = [1.0 if q in st.seats_in_deal else 0.0 for q in seats]
    out["dealer"] = [1.0 if q == st.dealer else 0.0 for q in seats]
    out["leader"] = [1.0 if not over and q == st.leader else 0.0 for q in seats]
    out["last_taker"] = [1.0 if q == st.last_taker else 0.0 for q in seats]
    _calls(out, st, seats)
    _round(out, st, seat, seats)
    _taken(out, game, st, seat, sides)
    out["deals_played"] = _thermometer(r.max_deals, st.deals_played)
    return {p.name: np.array(out[p.name], np.float32).reshape(p.shape) for p in spec.parts}


def _calls(out: dict, st, seats: list) -> None:
    """``offer``, ``calls`` (C3.5): the seat asked now and what it may still call; the calls made."""
    offer = [[0.0, 0.0] for _ in seats]
    if not st.terminal and st.phase == PH_CALL:
        asked = st.call_order[st.call_index]
        standing = st.calls_made[-1][1] if st.calls_made else None
        q = seats.index(asked)
        if standing in (None, MOLODKA):  # Moskva beats Molodka
            offer[q][MOSKVA] = 1.0
        if standing is None:  # an equal call does not beat an earlier one
            offer[q][MOLODKA] = 1.0
    out["offer"] = offer
    calls = [[0.0, 0.0] for _ in seats]
    for who, kind in st.calls_made:
        calls[seats.index(who)][kind] = 1.0
    out["calls"] = calls


def _round(out: dict, st, seat: int, seats: list) -> None:
    """This round: the lead, the cards on top, what each seat laid face up or face down."""
    answering = not st.terminal and st.phase == PH_ANSWER
    called = [0.0, 0.0]
    lead = top = 0
    lead_size = [0.0] * HAND
    on_top = [0.0] * len(seats)
    own_down = 0
    if answering:
        if st.lead_call:
            called[st.lead_call - 1] = 1.0
        lead = st.lead
        lead_size[_count(st.lead) - 1] = 1.0
        top = st.top_cards
        on_top[seats.index(st.top_seat)] = 1.0
        own_down = st.round_down[seat]
    out["called"] = called
    out["lead"] = _cards_row(lead)
    out["lead_size"] = lead_size
    out["top"] = _cards_row(top)
    out["on_top"] = on_top
    out["round_up"] = [_cards_row(st.round_up[q]) for q in seats]
    out["round_down"] = [1.0 if st.round_down[q] else 0.0 for q in seats]
    out["own_down"] = _cards_row(own_down)


def _taken(out: dict, game, st, seat: int, sides: list) -> None:
    """Per side: the cards known taken (face up, or the observer's own face down), a trick taken, how many
    taken cards the observer has not seen; penalty points; still in the match."""
    shape = {p.name: p.shape for p in game.obs_spec.parts}
    width_unseen, width_scores = shape["taken_unseen"][1], shape["scores"][1]
    known_rows, took, unseen, scores, still_in = [], [], [], [], []
    for sd in sides:
        face_up, own_down = _cards(st.taken_face_up[sd]), _cards(st.laid_down[seat])
        known = [c for c in _cards(st.taken[sd]) if c in face_up or c in own_down]
        known_rows.append([1.0 if c in known else 0.0 for c in range(NUM_CARDS)])
        took.append(1.0 if st.tricks[sd] > 0 else 0.0)
        unseen.append(_thermometer(width_unseen, _count(st.taken[sd]) - len(known)))
        scores.append(_thermometer(width_scores, st.ledger.scores[sd]))
        still_in.append(1.0 if st.in_match[sd] else 0.0)
    out["taken_known"] = known_rows
    out["took_trick"] = took
    out["taken_unseen"] = unseen
    out["scores"] = scores
    out["sides_in"] = still_in
