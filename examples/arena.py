"""Example: rank bots with the arena on duplicate deals, with a custom agent among them.

    python examples/arena.py [--env queens_and_jacks_v0] [--deals 50] [--processes 2]

Three players: the ``random`` and ``normal`` bots by name, and a plug-in agent built by a factory -- the
way a trained policy joins the arena: any object with ``act(observation, action_mask) -> int``.
Prints the pairwise table (win rate and points per deal, each with its 95% confidence interval) and the
Elo table, and writes both as JSON and markdown when asked.
"""
from __future__ import annotations

import argparse
import json

import numpy as np

from agents.arena import evaluate, markdown


class HighestCard:
    """A plug-in agent: always the legal action with the highest id (no memory, no strategy)."""

    def act(self, observation, action_mask) -> int:
        return int(np.flatnonzero(action_mask)[-1])


def highest_card(env_name: str, seed: int, env_options: dict):
    """Factory: called once per seat and episode with the game's name, a seed and its rules options."""
    return HighestCard()


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", default="queens_and_jacks_v0")
    ap.add_argument("--deals", type=int, default=50, help="duplicate sets per pair of agents")
    ap.add_argument("--processes", type=int, default=None)
    ap.add_argument("--json", help="write the result dict here")
    args = ap.parse_args(argv)
    res = evaluate(args.env, {"random": "random", "highest": highest_card, "normal": "normal"},
                   deals=args.deals, seed=1, processes=args.processes, progress=False)
    print(markdown(res))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    return res


if __name__ == "__main__":
    main()
