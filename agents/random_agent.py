"""The masked random agent: a uniformly random legal action."""
from __future__ import annotations

import numpy as np

from .base import Agent


class RandomAgent(Agent):
    """Uniformly random among the legal actions (the bottom of the ladder)."""

    name = "random"

    def act(self, observation, action_mask) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(len(legal))])
