"""How much room the search family leaves: the omniscient bound of ``hard``'s search.

The search of :mod:`agents.pimc` (every legal move played on by ``normal`` players, to the end of the deal)
given the *true* deal as its only imagined deal -- every hidden card or tile, the stock's order included --
against ``hard``, head to head on the development deals (``agents.seeds.DEVELOPMENT``), one deal per
episode, as the ladder measures its steps. It reads what no seat may see, so it is a measurement, not an
agent (it is in no registry): a ceiling for what any inference -- a learned belief, more or better imagined
deals -- can give a search that plays on with ``normal``. The ``expert`` is that search with the imagined
deals drawn from what its seat knows; ``agents/rl/BASELINES.md`` sets the two side by side.

    python benchmarks/headroom.py [--env GAME ...] [--sets 200] [--seed 0]
"""
from __future__ import annotations

import argparse
import time

from agents.arena import evaluate
from agents.pimc import PIMCAgent
from agents.seeds import DEVELOPMENT
from kozel_env.registry import ENVIRONMENTS


class OmniscientSearch(PIMCAgent):
    """``hard``'s search whose one imagined deal is the true one (a copy of the engine state)."""

    name = "omniscient"

    def __init__(self, env_name: str, seed: int = 0, env_options: dict | None = None):
        super().__init__(env_name, seed, env_options, level="hard", n=1, depth=0)

    def _sampler(self, state, seat: int, n: int):
        return state.clone


def measure(env_name: str, sets: int, seed: int = DEVELOPMENT) -> dict:
    """The omniscient search against ``hard`` on ``sets`` duplicate sets: the arena's pair record (deal score
    and points margin with their 95% intervals) plus ``ms_per_decision`` and ``wall_s``."""
    t = time.time()
    res = evaluate(env_name, {"omniscient": OmniscientSearch, "hard": "hard"}, deals=sets, seed=seed,
                   processes=1, progress=False)
    return {**res["pairs"][0], "ms_per_decision": res["ms_per_decision"], "wall_s": time.time() - t}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--env", nargs="+", default=list(ENVIRONMENTS))
    ap.add_argument("--sets", type=int, default=200)
    ap.add_argument("--seed", type=int, default=DEVELOPMENT)
    args = ap.parse_args(argv)
    print(f"the omniscient search against hard, arena seed {args.seed}, {args.sets} duplicate sets of one deal")
    print(f"{'game':<22} {'deal score (95% CI)':<24} {'points margin (95% CI)':<26}")
    for env_name in args.env:
        p = measure(env_name, args.sets, args.seed)
        s, m = p["score_a"], p["margin"]
        print(f"{env_name:<22} {s['mean'] * 100:5.1f}% [{s['lo'] * 100:.1f}, {s['hi'] * 100:.1f}]     "
              f"{m['mean']:+6.2f} [{m['lo']:+.2f}, {m['hi']:+.2f}]", flush=True)


if __name__ == "__main__":
    main()
