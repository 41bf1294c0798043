"""``greedy``: the family's memoryless rule with no careless moves (``easy`` without its random slips).

In the dominoes games that is "shed the heaviest tile, doubles first"; in the card games the card rule of
:mod:`agents.strategies`. Kept as a name of its own for ``examples/demo.py`` and for quick baselines.
"""
from __future__ import annotations

from .heuristic import EasyAgent


class GreedyAgent(EasyAgent):
    name = "greedy"

    def __init__(self, env_name: str, seed: int = 0, env_options: dict | None = None):
        super().__init__(env_name, seed, env_options, careless=0.0)
