"""Scoring of card Kozel with the six of spades: a finished deal (seed 8, C3.6) and the match end (seed 9,
C3.7), written on the shared :class:`~kozel_env.core.ledger.Ledger` (``threshold_mode="none"``).

Functions of a :class:`~.engine.SixOfSpadesState` (the engine calls :func:`end_deal` when a deal is over).
"""
from __future__ import annotations

from ..deck import SUITS, card_str, points
from .tables import PH_OVER


def deal_penalties(st) -> tuple:
    """C3.6 for the cards taken so far: (points per side, penalty per side; sides not in the deal 0)."""
    r = st.rules
    ns = r.num_sides
    pts = [points(st.taken[sd]) for sd in range(ns)]
    playing = [sd for sd in range(ns) if st.in_match[sd]]
    most = max(pts[sd] for sd in playing)
    tied = [sd for sd in playing if pts[sd] == most]
    line = r.line_three if len(playing) == 3 else r.line
    pen = [0] * ns
    for sd in playing:
        if sd in tied:
            pen[sd] = 0 if len(tied) == 1 else r.tie_penalty
        elif not st.tricks[sd]:
            pen[sd] = r.penalties[2]
        elif pts[sd] >= line:
            pen[sd] = r.penalties[0]
        else:
            pen[sd] = r.penalties[1]
    return pts, pen


def _going_out(st, playing: list) -> tuple:
    """C3.7: the sides that go out after this deal's penalties, and whether every side left reached the
    target together (then only the highest go out; of tied highest the taker of the last trick stays)."""
    r = st.rules
    scores = st.ledger.scores
    reached = [sd for sd in playing if scores[sd] >= r.target]
    if not reached:
        return [], False
    if len(reached) < len(playing):
        return reached, False
    hi = max(scores[sd] for sd in playing)
    top = [sd for sd in playing if scores[sd] == hi]
    lt = r.side_of(st.last_taker) if st.last_taker >= 0 else -1
    return ([sd for sd in top if sd != lt] if (len(top) > 1 and lt in top) else top), True


def end_deal(st) -> None:
    """Score the deal (C3.6), put out the sides C3.7 puts out, report the deal, then end the match or
    deal the next one (the deal passes left, C3.1)."""
    r = st.rules
    ns = r.num_sides
    pts, pen = deal_penalties(st)
    playing = [sd for sd in range(ns) if st.in_match[sd]]
    written = st.ledger.settle({sd: pen[sd] for sd in playing if pen[sd]})
    scores = st.ledger.scores
    out, together = _going_out(st, playing)
    for sd in out:
        st.in_match[sd] = False
        st.out_after_deal[sd] = st.deals_played + 1
    most = max(pts[sd] for sd in playing)
    top = [sd for sd in playing if pts[sd] == most]
    st._deal_over({
        "ended_by": "played",
        "eggs": False,
        "winners": top if len(top) == 1 else [],
        "losers": [sd for sd in playing if written.get(sd, 0)],
        "written": [written.get(sd, 0) for sd in range(ns)],
        "scores": scores[:],
        "seat_points": [-written.get(r.side_of(s), 0) for s in range(r.num_players)],
        "points": pts,
        "tricks": st.tricks[:],
        "trump": SUITS[st.trump_suit],
        "trump_card": card_str(st.trump_card),
        "last_taker": st.last_taker,
        "lone_take": st.lone_taker,
        "out": out,
        "all_reached_target": together,
    })
    remaining = [sd for sd in range(ns) if st.in_match[sd]]
    if len(remaining) <= 1:
        _end_match(st, "last_side_left")
    elif st.deals_played >= r.max_deals:
        _end_match(st, "deal_limit")
    elif st.single_deal:
        _end_single(st, pen, playing)
    else:
        st.dealer = st.next_in_deal(st.dealer)
        st.start_deal()


def _finish(st, side_place: list, reason: str, losers: list | None = None) -> None:
    """The match result (:mod:`kozel_env.core.results`): winners are the first place, losers the last;
    if every side shares the first place nobody wins or loses. Seed 004 and RULES C3 name no goats."""
    r = st.rules
    ns = r.num_sides
    worst = max(side_place)
    if worst == 1:
        winners, losers = [], []
    else:
        winners = [sd for sd in range(ns) if side_place[sd] == 1]
        if losers is None:
            losers = [sd for sd in range(ns) if side_place[sd] == worst]
    st.match_result = {
        "ended_by": reason,
        "winners": winners,
        "losers": losers,
        "goats": [],
        "titles": [],
        "places": side_place,
        "scores": st.ledger.scores[:],
        "deals": st.deals_played,
        "returns": [1.0 if r.side_of(s) in winners else (-1.0 if r.side_of(s) in losers else 0.0)
                    for s in range(r.num_players)],
    }
    st.terminal = True
    st.phase = PH_OVER
    st.current_player = -1
    st.legal_sets = ()
    st.beating_sets = ()
    st.selected = 0


def _end_match(st, reason: str) -> None:
    """C3.7 places: sides still in first (by fewer points), then the sides out, later out better."""
    ns = st.rules.num_sides
    scores = st.ledger.scores

    def key(sd):
        if st.in_match[sd]:
            return (0, 0, scores[sd])
        return (1, -st.out_after_deal[sd], scores[sd])

    keys = [key(sd) for sd in range(ns)]
    _finish(st, [1 + sum(1 for o in keys if o < keys[sd]) for sd in range(ns)], reason)


def _end_single(st, pen: list, playing: list) -> None:
    """``single_deal``: the smallest penalty of the deal first; sides not playing it last."""
    ns = st.rules.num_sides
    place = [1 + sum(1 for o in playing if pen[o] < pen[sd]) if sd in playing else len(playing) + 1
             for sd in range(ns)]
    hi = max(pen[sd] for sd in playing)
    _finish(st, place, "single_deal", [sd for sd in playing if pen[sd] == hi])
