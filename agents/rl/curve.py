"""A learning curve against the bots: one training run in pieces, its policy after each piece scored on the
selection deals (issue 35: "score against ``hard`` against training decisions, on the selection deals", to
tell a game limited by compute from one limited by the method).

    python -m agents.rl.curve --env dominoes_ffa_v0 --points 1300000 2300000 3300000 --out runs/curve_ffa
    python -m agents.rl.curve --env dominoes_ffa_v0 --points 2300000 --out runs/curve_ffa_e2 -- --set epochs=2

For each point ``N`` (decisions in all, the imitated ones included, as ``kozel-train --steps`` counts them):

1. the run in ``<out>/run`` is trained on to ``N`` (:func:`agents.rl.train.run`: the first piece from
   scratch with the game's documented recipe, the next ones with ``--resume``, whose learning-rate and
   entropy schedules run from the resume point to the new end); what follows ``--`` goes to every piece;
2. its policy is copied to ``<out>/policy_<N>.npz`` (+ ``.json``);
3. that policy plays each ``--against`` bot on duplicate sets of whole matches (:func:`agents.rl.evaluate.
   evaluate`, arena seed :data:`agents.seeds.SELECTION`: never the published table's deals), ``--hard-sets``
   of them against ``hard`` and ``crazy`` (a search: slow), ``--sets`` against the others; the scores
   go into ``<out>/curve.json`` as soon as each is measured.

Resumable: a point whose policy file exists is not trained again and a score already in ``curve.json`` is
not measured again, so an interrupted curve continues where it stopped when the same command is run again
(points may be added at the end). The table printed at the end is the whole curve.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

from ..seeds import SELECTION

SEARCH_BOTS = ("hard", "crazy")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m agents.rl.curve", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", required=True)
    ap.add_argument("--points", type=int, nargs="+", required=True,
                    help="decisions in all (imitated included) after each piece, increasing")
    ap.add_argument("--out", required=True, help="the curve's folder (the run, the policies, curve.json)")
    ap.add_argument("--against", nargs="+", default=["hard", "normal"], help="bots that each policy plays")
    ap.add_argument("--sets", type=int, default=1000, help="duplicate sets against a rule bot")
    ap.add_argument("--hard-sets", type=int, default=200, help="duplicate sets against hard or crazy")
    return ap


def _load(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {"points": []}


def _save(path: Path, curve: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(curve, indent=1))
    tmp.replace(path)   # a curve.json is whole or not there: an interruption never leaves half a file


def _point(curve: dict, steps: int) -> dict:
    for p in curve["points"]:
        if p["steps"] == steps:
            return p
    p = {"steps": steps, "scores": {}}
    curve["points"].append(p)
    curve["points"].sort(key=lambda q: q["steps"])
    return p


def _train_to(env: str, steps: int, run_dir: Path, extra: list) -> None:
    from .train import run as train_run

    resume = ["--resume"] if (run_dir / "last.pt").exists() else []
    train_run(["--env", env, "--steps", str(steps), "--out", str(run_dir), "--no-progress", "--quiet",
               *resume, *extra])


def curve(env: str, points: list, out: Path, against=("hard", "normal"), sets: int = 1000, hard_sets: int = 200,
          extra: list = (), log=print) -> dict:
    """Train and score every point (see the module doc); returns the curve (what ``curve.json`` holds)."""
    from .evaluate import evaluate
    from .policy import NumpyPolicy

    if list(points) != sorted(set(points)) or points[0] <= 0:
        raise ValueError(f"points={points!r}: positive decision counts, increasing")
    out.mkdir(parents=True, exist_ok=True)
    path = out / "curve.json"
    data = _load(path)
    data.update(env=env, seed=SELECTION, extra=list(extra))
    for steps in points:
        policy = out / f"policy_{steps}.npz"
        if not policy.exists():
            t0 = time.time()
            _train_to(env, steps, out / "run", list(extra))
            shutil.copy(out / "run" / "policy.json", policy.with_suffix(".json"))
            shutil.copy(out / "run" / "policy.npz", policy)
            _point(data, steps)["train_wall_seconds"] = round(time.time() - t0, 1)
            _save(path, data)
        point = _point(data, steps)
        for bot in against:
            if bot in point["scores"]:
                continue
            n = hard_sets if bot in SEARCH_BOTS else sets
            t0 = time.time()
            r = evaluate(NumpyPolicy.from_files(policy), bot, env, n, seed=SELECTION)
            point["scores"][bot] = {"score": r["score"], "margin": r["margin"], "sets": n,
                                    "seconds": round(time.time() - t0, 1)}
            _save(path, data)
            log(f"{env} at {steps:,} decisions: {100 * r['score']['mean']:.1f}% "
                f"[{100 * r['score']['lo']:.1f}, {100 * r['score']['hi']:.1f}] against {bot} ({n} sets)")
    return data


def table(data: dict) -> str:
    """The curve as a markdown table: one row per point, one column per bot."""
    bots = list(dict.fromkeys(b for p in data["points"] for b in p["scores"]))
    rows = [f"| decisions | {' | '.join(f'vs {b}' for b in bots)} |", "|---:|" + "---|" * len(bots)]
    for p in data["points"]:
        cells = []
        for b in bots:
            s = p["scores"].get(b)
            cells.append("" if s is None else f"{100 * s['score']['mean']:.1f}% [{100 * s['score']['lo']:.1f}, "
                         f"{100 * s['score']['hi']:.1f}] ({s['sets']} sets)")
        rows.append(f"| {p['steps']:,} | {' | '.join(cells)} |")
    return "\n".join(rows)


def main(argv: list | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    args = build_parser().parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    try:
        data = curve(args.env, args.points, Path(args.out), args.against, args.sets, args.hard_sets, extra)
    except ValueError as e:
        print(f"python -m agents.rl.curve: error: {e}", file=sys.stderr)
        return 2
    print(table(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
