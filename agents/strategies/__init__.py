"""Game-family strategies for the heuristic bots (``easy``, ``normal``) and the values PIMC plays out to.

One file per rules engine (the engine contract's ``game.engine_id``, table :data:`FAMILIES`): :mod:`.dominoes`
serves every dominoes game (the line games and Donkey), and each card game has its own
(:mod:`.queens_and_jacks`, :mod:`.six_of_spades`, :mod:`.beat_or_discard`). A family module defines
``Strategy(game)`` with

* ``easy(observation, action_mask, rng) -> int`` -- sensible moves without memory of what has gone;
* ``normal(observation, action_mask, rng) -> int`` -- counts tiles or cards and plays the seed's advice;
* ``careless`` -- how often ``easy`` plays a random legal move instead ("often plays a careless one");
* ``deal_value(state, seat) -> float`` -- the value to ``seat`` of a finished deal in a (determinized)
  playout, read from ``state.last_result``: zero-sum over the table, finer than the points written so that
  PIMC can tell a narrow loss from a heavy one.

The strategies read the observation through ``game.obs_spec`` (named parts) and decode actions with the
engine's own tables; they never see another seat's hidden cards or tiles.
"""
from __future__ import annotations

import importlib

import numpy as np

from kozel_env.core.game import Game

FAMILIES = {
    "dominoes": "agents.strategies.dominoes",
    "queens_and_jacks": "agents.strategies.queens_and_jacks",
    "six_of_spades": "agents.strategies.six_of_spades",
    "beat_or_discard": "agents.strategies.beat_or_discard",
}
"""The engine contract's ``game.engine_id`` -> the module of its strategy (one per rules engine)."""


def family_of(game: Game) -> str:
    """The strategy family of an engine game: its ``engine_id`` (``kozel_env.core.game.Game``), checked
    against :data:`FAMILIES`."""
    engine = getattr(game, "engine_id", None)
    if engine not in FAMILIES:
        raise KeyError(f"no bot strategy for the game {getattr(game, 'name', game)!r} (engine_id {engine!r}); "
                       f"families: {sorted(FAMILIES)}")
    return engine


_CACHE: dict = {}


def strategy_for(game: Game) -> object:
    """The (cached) family strategy for ``game``: one per rules config (an engine game is a pure function of
    its class and frozen rules, so games with equal rules share one strategy and its plan caches). Keyed by
    ``id(game)`` it grew by a strategy, holding its game, for every game ever made: a web server's every
    table."""
    key = (type(game), game.rules)
    s = _CACHE.get(key)
    if s is None:
        s = importlib.import_module(FAMILIES[family_of(game)]).Strategy(game)
        _CACHE[key] = s
    return s


class ViewStrategy:
    """The entry points of a family strategy that first builds one *view* of the table -- from the
    observation (``_view_obs``) or, in PIMC playouts, from an imagined engine state (``_view_state``) -- and
    then decides in ``_act(legal, view, counting)``: ``easy`` plays without counting the cards gone,
    ``normal`` counts them. (Used by the six-of-spades and beat-or-discard strategies.)"""

    def easy(self, obs, mask, rng=None) -> int:
        legal = np.flatnonzero(mask).tolist()
        if len(legal) == 1:
            return legal[0]
        return self._act(legal, self._view_obs(obs), False)

    def normal(self, obs, mask, rng=None) -> int:
        legal = np.flatnonzero(mask).tolist()
        if len(legal) == 1:
            return legal[0]
        return self._act(legal, self._view_obs(obs), True)

    def easy_state(self, st, seat, legal) -> int:
        return self._act(legal, self._view_state(st, seat), False)

    def normal_state(self, st, seat, legal) -> int:
        return self._act(legal, self._view_state(st, seat), True)
