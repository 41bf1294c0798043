"""One schema for what a finished deal and a finished match report, in every game.

Every engine writes its deal results (``state.last_result``, ``state.results``) and its match result
(``state.match_result``) as plain dicts with string keys, lists indexed by side or by seat, and no ``None``
where a number is meant; the environments pass them on unchanged in ``infos`` and in the match record. The
keys every game has are below; a game adds its own (documented in its env module), never with another
meaning for a common key.

Deal result (``infos[agent]["deals"][i]``):

* ``deal`` -- int, 1 for the match's first deal, consecutive;
* ``ended_by`` -- how the deal ended (dominoes ``"out"`` / ``"fish"``; cards ``"played"``, or
  ``"four_aces"`` / ``"four_sixes"`` in beat-or-discard);
* ``eggs`` -- bool, a tied deal: nobody writes (the carried total or the multiplier goes on);
* ``winners`` / ``losers`` -- sides (ascending) that won / lost the deal by its rules; both empty on eggs;
  a side can be neither (every man for himself: a middle hand with no penalty);
* ``written`` -- int per side: what the ledger wrote for the side in this deal (0 included);
* ``scores`` -- int per side after the deal;
* ``seat_points`` -- number per seat, higher is better for that seat (minus the penalty written against its
  side, or plus the points won): ``reward="points"`` gives each seat this minus the mean over seats.

Match result (``infos[agent]["match"]``):

* ``ended_by`` -- why the match ended: ``"target"`` (a side reached the target), ``"single_deal"``
  (``episode="deal"``), or a game's own end (``"instant_win"``, ``"four_aces"``, ``"last_side_left"`` ...);
* ``winners`` / ``losers`` -- sides with return +1 / -1 (``returns``); with ``episode="deal"`` the deal's
  winners and losers, unless that deal ended the match;
* ``goats`` -- sides the rules call goats (the losers of a match played out; ``[]`` when the match did not
  reach its end, e.g. a single-deal episode that reached no target, or in a game whose rules name none);
* ``titles`` -- sorted title names the rules give (``"goats"``, ``"sea_goats"``, ``"naked_goats"``,
  ``"bald_goats"``, ``"bare_goats"``);
* ``places`` -- int per side, 1 = best, equal places shared; ``places[s] == 1`` exactly for the winners when
  there are any;
* ``scores`` -- int per side at the end; ``deals`` -- deals played in the episode;
* ``returns`` -- float per seat: +1 the seats of the winners, -1 of the losers, 0 otherwise.
"""
from __future__ import annotations

import numpy as np

DEAL_KEYS = ("deal", "ended_by", "eggs", "winners", "losers", "written", "scores", "seat_points")
MATCH_KEYS = ("ended_by", "winners", "losers", "goats", "titles", "places", "scores", "deals", "returns")
TITLES = ("goats", "sea_goats", "naked_goats", "bald_goats", "bare_goats")


def zero_sum_points(seat_points) -> np.ndarray:
    """The ``reward="points"`` rule of every env (README "Using an environment"): each seat's ``seat_points``
    minus their mean over the seats, in float64. ``seat_points``: one deal's list, or an array ``[..., seats]``
    (the vector env's batch); the AEC env and the vector env both reward through this."""
    pts = np.asarray(seat_points, np.float64)
    return pts - pts.sum(axis=-1, keepdims=True) / pts.shape[-1]


def _plain(value, where: str) -> None:
    """JSON-plain: str keys, lists, ints, floats, bools, strings, None (no tuples, sets or numpy)."""
    if isinstance(value, dict):
        for k, v in value.items():
            assert isinstance(k, str), f"{where}: key {k!r} is not a string"
            _plain(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _plain(v, f"{where}[{i}]")
    else:
        assert value is None or type(value) in (int, float, bool, str), \
            f"{where}: {type(value).__name__} {value!r} is not a plain JSON value"


def _sides(xs, num_sides: int, where: str) -> None:
    assert isinstance(xs, list) and xs == sorted(set(xs)), f"{where} must be an ascending list, got {xs!r}"
    assert all(type(s) is int and 0 <= s < num_sides for s in xs), f"{where}: bad side in {xs!r}"


def check_deal_result(res: dict, num_players: int, num_sides: int) -> None:
    """AssertionError unless ``res`` follows the deal schema above (used by the conformance suite)."""
    missing = [k for k in DEAL_KEYS if k not in res]
    assert not missing, f"deal result lacks {missing}: {res}"
    _plain(res, "deal")
    assert type(res["deal"]) is int and res["deal"] >= 1
    assert isinstance(res["ended_by"], str) and type(res["eggs"]) is bool
    _sides(res["winners"], num_sides, "winners")
    _sides(res["losers"], num_sides, "losers")
    assert not set(res["winners"]) & set(res["losers"]), "a side both won and lost the deal"
    if res["eggs"]:
        assert not res["winners"] and not res["losers"], "eggs have no winners or losers"
    for key, n in (("written", num_sides), ("scores", num_sides), ("seat_points", num_players)):
        assert isinstance(res[key], list) and len(res[key]) == n, f"{key} must hold {n} values: {res[key]!r}"
        assert all(type(v) in (int, float) for v in res[key]), f"{key}: {res[key]!r}"


def check_match_result(res: dict, sides: list, num_sides: int) -> None:
    """AssertionError unless ``res`` follows the match schema above; ``sides[seat]`` is the seat's side."""
    num_players = len(sides)
    missing = [k for k in MATCH_KEYS if k not in res]
    assert not missing, f"match result lacks {missing}: {res}"
    _plain(res, "match")
    for key in ("winners", "losers", "goats"):
        _sides(res[key], num_sides, key)
    assert not set(res["winners"]) & set(res["losers"])
    assert set(res["goats"]) <= set(res["losers"]), "a goat that did not lose"
    assert res["titles"] == sorted(set(res["titles"])) and set(res["titles"]) <= set(TITLES), res["titles"]
    assert bool(res["goats"]) == bool({"goats", "sea_goats"} & set(res["titles"])), \
        f"goats {res['goats']} and titles {res['titles']} disagree"
    places = res["places"]
    assert isinstance(places, list) and len(places) == num_sides and all(type(p) is int and p >= 1 for p in places)
    if res["winners"]:
        assert [s for s in range(num_sides) if places[s] == 1] == res["winners"], \
            f"places {places} contradict winners {res['winners']}"
    assert len(res["scores"]) == num_sides and type(res["deals"]) is int
    rets = res["returns"]
    assert isinstance(rets, list) and len(rets) == num_players and all(type(x) is float for x in rets)
    expect = [1.0 if sides[q] in res["winners"] else (-1.0 if sides[q] in res["losers"] else 0.0)
              for q in range(num_players)]
    assert rets == expect, f"returns {rets} disagree with winners {res['winners']} / losers {res['losers']}"
