"""Game-family strategies for the heuristic bots (``easy``, ``normal``) and the values PIMC plays out to.

One file per family: :mod:`.dominoes` serves every dominoes game (the line games and Donkey), and each card
game has its own (:mod:`.queens_and_jacks`, :mod:`.six_of_spades`, :mod:`.beat_or_discard`). A family
module defines ``Strategy(game)`` with

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

FAMILIES = {
    "dominoes": "agents.strategies.dominoes",
    "queens_and_jacks": "agents.strategies.queens_and_jacks",
    "six_of_spades": "agents.strategies.six_of_spades",
    "beat_or_discard": "agents.strategies.beat_or_discard",
}


def family_of(game) -> str:
    """The strategy family of an engine game, from the engine's module (``kozel_env.dominoes.*`` ->
    ``dominoes``, ``kozel_env.cards.queens_and_jacks`` -> ``queens_and_jacks``)."""
    mod = type(game).__module__
    parts = mod.split(".")
    if "dominoes" in parts:
        return "dominoes"
    for fam in FAMILIES:
        if fam in parts:
            return fam
    raise KeyError(f"no bot strategy for the game {getattr(game, 'name', game)!r} (engine module {mod}); "
                   f"families: {sorted(FAMILIES)}")


_CACHE: dict = {}


def strategy_for(game):
    """The (cached) family strategy for ``game``."""
    key = id(game)
    s = _CACHE.get(key)
    if s is None or s.game is not game:
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
