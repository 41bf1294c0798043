"""How much room the search family leaves: the omniscient bound of ``hard``'s search.

The search of :mod:`agents.pimc` (every legal move played on by ``normal`` players, to the end of the deal)
given the *true* deal as its only imagined deal -- every hidden card or tile, the stock's order included --
against ``hard``, head to head on the development deals (``agents.seeds.DEVELOPMENT``), one deal per
episode, as the ladder measures its steps. It reads what no seat may see, so it is a measurement, not an
agent (it is in no registry): a ceiling for what any inference -- a learned belief, more or better imagined
deals -- can give a search that plays on with ``normal``. The ``expert`` is that search with the imagined
deals drawn from what its seat knows; ``agents/rl/BASELINES.md`` sets the two side by side.

With ``--playout net`` every seat of the true deal plays on by the shipped policy's greedy move instead of
``normal``'s (the ``expert``'s option ``playout=net``): where that bound is the higher one, the policy is the
better continuation, and the expert's network playouts are worth a try on the development deals. With
``--playout side`` the policy plays on for the searching seat's own side only and ``normal`` for the others
(``playout=side``).

    python benchmarks/headroom.py [--env GAME ...] [--sets 200] [--seed 0] [--playout rule|net|side]
"""
from __future__ import annotations

import argparse
import time

from agents.arena import evaluate
from agents.expert import ExpertAgent
from agents.pimc import PIMCAgent
from agents.seeds import DEVELOPMENT
from kozel_env.registry import ENVIRONMENTS


class TrueDeal:
    """A search's imagined deals replaced by the true one: a copy of the engine state, every call."""

    def _sampler(self, state, seat: int, n: int):
        return state.clone


class OmniscientSearch(TrueDeal, PIMCAgent):
    """``hard``'s search whose one imagined deal is the true one (a copy of the engine state)."""

    name = "omniscient"

    def __init__(self, env_name: str, seed: int = 0, env_options: dict | None = None):
        super().__init__(env_name, seed, env_options, level="hard", n=1, depth=0)


class OmniscientPolicyPlayouts(TrueDeal, ExpertAgent):
    """The same bound with the shipped policy playing every seat after the move (``playout=net``); the
    move kept unless the true deal says otherwise is still ``normal``'s, and every legal move is compared."""

    name = "omniscient_net"

    PLAYOUT = "net"

    def __init__(self, env_name: str, seed: int = 0, env_options: dict | None = None):
        super().__init__(env_name, seed, env_options, n=1, depth=0, z=1.0, prior="normal", top=0,
                         playout=self.PLAYOUT, belief=0)


class OmniscientSidePlayouts(OmniscientPolicyPlayouts):
    """The same bound with the policy playing on for the searching seat's side only, ``normal`` for the
    others (``playout=side``)."""

    name = "omniscient_side"
    PLAYOUT = "side"


PLAYOUTS = {"rule": OmniscientSearch, "net": OmniscientPolicyPlayouts, "side": OmniscientSidePlayouts}


def measure(env_name: str, sets: int, seed: int = DEVELOPMENT, playout: str = "rule") -> dict:
    """The omniscient search against ``hard`` on ``sets`` duplicate sets (``playout``: ``"rule"``, every
    seat plays on by ``normal``; ``"net"``, by the shipped policy; ``"side"``, the policy for the searching
    seat's side and ``normal`` for the others): the arena's pair record (deal score
    and points margin with their 95% intervals) plus ``ms_per_decision`` and ``wall_s``."""
    if playout not in PLAYOUTS:
        raise ValueError(f"playout must be one of {sorted(PLAYOUTS)}, got {playout!r}")
    t = time.time()
    res = evaluate(env_name, {"omniscient": PLAYOUTS[playout], "hard": "hard"}, deals=sets, seed=seed,
                   processes=1, progress=False)
    return {**res["pairs"][0], "ms_per_decision": res["ms_per_decision"], "wall_s": time.time() - t}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--env", nargs="+", default=list(ENVIRONMENTS))
    ap.add_argument("--sets", type=int, default=200)
    ap.add_argument("--seed", type=int, default=DEVELOPMENT)
    ap.add_argument("--playout", choices=sorted(PLAYOUTS), default="rule",
                    help="who plays on after the move: normal (rule), the shipped policy (net), or the policy for "
                         "the searching seat's side and normal for the others (side)")
    args = ap.parse_args(argv)
    by = {"rule": "normal", "net": "the shipped policy",
          "side": "the shipped policy for its side, normal for the others"}[args.playout]
    print(f"the omniscient search (playouts by {by}) against hard, arena seed {args.seed}, {args.sets} "
          f"duplicate sets of one deal")
    print(f"{'game':<22} {'deal score (95% CI)':<24} {'points margin (95% CI)':<26}")
    for env_name in args.env:
        p = measure(env_name, args.sets, args.seed, args.playout)
        s, m = p["score_a"], p["margin"]
        print(f"{env_name:<22} {s['mean'] * 100:5.1f}% [{s['lo'] * 100:.1f}, {s['hi'] * 100:.1f}]     "
              f"{m['mean']:+6.2f} [{m['lo']:+.2f}, {m['hi']:+.2f}]", flush=True)


if __name__ == "__main__":
    main()
