"""The heuristic bots ``easy`` and ``normal`` (seed 003's "Difficulty levels", for every game).

* ``easy`` -- "plays sensible cards but doesn't keep track of what has gone, and often plays a careless
  one": the family's memoryless rule, and with probability ``careless`` (family default, e.g. 0.25) a
  uniformly random legal move.
* ``normal`` -- "counts the cards: it cashes winners, draws trumps when it is long in them, feeds its partner
  and ducks when it can't win" (cards), or counts tiles and knocks (dominoes). Deterministic.

The rules per game family live in :mod:`agents.strategies`; both bots read only the observation vector
(through the game's ``obs_spec``) and the action mask.
"""
from __future__ import annotations

import numpy as np

from .base import Agent
from .strategies import strategy_for


class EasyAgent(Agent):
    name = "easy"

    def __init__(self, env_name: str, seed: int = 0, env_options: dict | None = None,
                 careless: float | None = None):
        super().__init__(env_name, seed, env_options)
        self.strategy = strategy_for(self.game)
        self.careless = self.strategy.careless if careless is None else float(careless)

    def act(self, observation, action_mask) -> int:
        if self.careless and self.rng.random() < self.careless:
            legal = np.flatnonzero(action_mask)
            return int(legal[self.rng.integers(len(legal))])
        return self.strategy.easy(observation, action_mask, self.rng)


class NormalAgent(Agent):
    name = "normal"

    def __init__(self, env_name: str, seed: int = 0, env_options: dict | None = None):
        super().__init__(env_name, seed, env_options)
        self.strategy = strategy_for(self.game)

    def act(self, observation, action_mask) -> int:
        return self.strategy.normal(observation, action_mask, self.rng)
