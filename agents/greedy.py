"""A simple greedy heuristic for the dominoes games: shed the heaviest tiles first.

Reads only the action mask (and the action layout of the dominoes games: ``tile * slots + slot``, then the
two-doubles moves); prefers the move that removes the most pips from the hand, doubles first on ties, then a
fixed order. Seen by any player, so it never uses hidden information.
"""
from __future__ import annotations

import numpy as np

from kozel_env.dominoes.engine import DOUBLE_PAIRS
from kozel_env.dominoes.tiles import IS_DOUBLE, NUM_TILES, PIPS

from .base import Agent, register


def _tile_score(t: int) -> float:
    return PIPS[t] + (0.5 if IS_DOUBLE[t] else 0.0)


@register
class GreedyAgent(Agent):
    name = "greedy"

    def act(self, observation, action_mask) -> int:
        legal = np.flatnonzero(action_mask)
        slots = 2 if len(action_mask) < 112 else 4
        best, best_score = int(legal[0]), -1.0
        for a in legal:
            a = int(a)
            if a < NUM_TILES * slots:
                score = _tile_score(a // slots)
            elif a - NUM_TILES * slots < len(DOUBLE_PAIRS):
                x, y = DOUBLE_PAIRS[a - NUM_TILES * slots]
                score = 2 * (x + y) + 1.0
            else:
                score = 0.0
            if score > best_score:
                best, best_score = a, score
        return best
