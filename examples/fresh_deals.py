"""Check the published figures on fresh deals: the network against ``hard`` and ``normal``, the expert over
``hard`` and ``crazy``, on deals that nothing was chosen or tuned on.

    python examples/fresh_deals.py --env six_of_spades_v0   # measure what is missing for one game
    python examples/fresh_deals.py                          # every game with a checkpoint (hours on 2 cores)
    python examples/fresh_deals.py --render                 # only rewrite the table in agents/rl/BASELINES.md

The published table (``reproduce_baselines.py``) and the ladder's expert steps (``python -m agents.ladder``)
play this release's table deals (``agents.seeds.TABLE``). A figure that holds only on the deals it was
measured on is worth little, so this script plays the same protocol -- the same opponents, the same
duplicate-set counts (1000 against ``normal``, 200 against the search bots), whole matches for the network
and one-deal sets for the expert, as the table and the ladder play them -- on the deals of
``agents.seeds.FRESH``, a seed that no training run, no choice of what ships and no bot setting used.

Each figure is written to ``experiments/fresh/<game>.json`` as soon as it is measured, with the SHA-256 of
the checkpoint it was measured with, so an interrupted run resumes where it stopped and a figure of a policy
that no longer ships is measured again rather than kept. ``agents/rl/BASELINES.md`` prints each game's
table and fresh figures side by side (between the ``fresh-table`` markers), rendered from those files and
from the figures the table and the ladder stored.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

OUT_DIR = ROOT / "experiments" / "fresh"
BASELINES_MD = ROOT / "agents" / "rl" / "BASELINES.md"
START, END = "<!-- fresh-table -->", "<!-- /fresh-table -->"
FIGURES = [("network", "hard"), ("network", "normal"), ("expert", "hard"), ("expert", "crazy")]
"""What is checked, in order: (who plays, against which bot)."""
SETS = {"normal": 1000, "hard": 200, "crazy": 200}
"""Duplicate sets per opponent: the published table's and the ladder's counts."""


def digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def measure(env: str, who: str, opp: str, sets: int, seed: int, ck_dir: Path, processes, specs: dict) -> dict:
    """One figure: the shipped network (whole matches, as ``reproduce_baselines.py``) or the expert (one-deal
    sets, as the ladder's expert steps) against ``opp`` on ``sets`` duplicate sets of arena seed ``seed``."""
    t = time.time()
    if who == "network":
        from agents.arena import evaluate
        from agents.rl.policy import factory

        path = ck_dir / f"{env}.npz"
        options = json.loads(path.with_suffix(".json").read_text()).get("env_options") or {}
        res = evaluate(env, {"rl": factory(env, path), opp: specs.get(opp, opp)}, deals=sets, seed=seed,
                       env_options=options, episode="match", processes=processes, progress=False)
        p = res["pairs"][0]
        score, margin = p["score_a"], p["margin"]
    else:
        from agents.ladder import run

        spec = specs.get("expert", "expert")  # the expert plays ck_dir's policy: its prior and playouts
        spec += ("," if ":" in spec else ":") + f"policy_path={Path(ck_dir).resolve() / f'{env}.npz'}"
        row = run([env], steps=[(opp, "expert")], expert_seed=seed, expert_sets=sets, with_speed=False,
                  processes=processes, progress=False, specs={**specs, "expert": spec})["games"][env]["steps"][0]
        score, margin = row["score"], row["margin"]
    return {"score": score, "margin": margin, "sets": sets, "seed": seed, "seconds": round(time.time() - t, 1)}


def check(env: str, out_dir: Path = OUT_DIR, ck_dir: Path | None = None, seed: int | None = None,
          sets: dict | None = None, processes=None, specs: dict | None = None, log=print) -> dict:
    """Measure each of :data:`FIGURES` that ``out_dir/<env>.json`` lacks for the shipped checkpoint, storing
    each as it comes; returns the file's content."""
    from agents.rl.policy import CHECKPOINT_DIR
    from agents.seeds import FRESH

    ck_dir = Path(ck_dir or CHECKPOINT_DIR)
    seed = FRESH if seed is None else seed
    sets = {**SETS, **(sets or {})}
    path = Path(out_dir) / f"{env}.json"
    sha = digest(ck_dir / f"{env}.npz")
    data = json.loads(path.read_text()) if path.exists() else {}
    if data.get("checkpoint_sha256") != sha or data.get("seed") != seed:
        data = {"env": env, "seed": seed, "checkpoint_sha256": sha, "figures": {}}
    for who, opp in FIGURES:
        key = f"{who} vs {opp}"
        if key in data["figures"] and data["figures"][key]["sets"] == sets[opp]:
            continue
        data["figures"][key] = measure(env, who, opp, sets[opp], seed, ck_dir, processes, specs or {})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1) + "\n")
        f = data["figures"][key]
        log(f"{env} {key}: {_cell(f, opp)} ({f['sets']} sets, {f['seconds']:.0f} s)")
    return data


def _cell(f: dict | None, opp: str) -> str:
    from agents.arena import format_ci

    if not f:
        return "-"
    n = f.get("sets", f.get("deals"))  # the table's figures count their sets as "deals"
    odd = "" if n == SETS[opp] else f" ({n} sets)"
    return f"{format_ci(f['score'], pct=True)}, {format_ci(f['margin'])}{odd}"


def table_figures(env: str, ck_dir: Path, ladder: dict) -> dict:
    """The same four figures on the table deals, as the table and the ladder stored them."""
    from agents.seeds import TABLE

    meta = json.loads((ck_dir / f"{env}.json").read_text()) if (ck_dir / f"{env}.json").exists() else {}
    out = {f"network vs {o}": r for o, r in meta.get("baselines", {}).items() if r.get("seed") == TABLE}
    for row in ladder.get("games", {}).get(env, {}).get("steps", []):
        if row["stronger"] == "expert" and row["seed"] == TABLE:
            out[f"expert vs {row['weaker']}"] = row
    return out


def render(out_dir: Path = OUT_DIR, ck_dir: Path | None = None, ladder_json: Path | None = None) -> str:
    """The BASELINES table: per game, the table deals' row and the fresh deals' row."""
    from agents.rl.policy import CHECKPOINT_DIR
    from agents.seeds import FRESH, TABLE

    ck_dir = Path(ck_dir or CHECKPOINT_DIR)
    ladder_json = Path(ladder_json or ROOT / "agents" / "ladder.json")
    ladder = json.loads(ladder_json.read_text()) if ladder_json.exists() else {}
    head = ("| game | deals | " + " | ".join(f"{who} vs {opp} ({SETS[opp]} sets): score, points/deal"
                                              for who, opp in FIGURES) + " |")
    lines = [head, "|---|---|" + "---|" * len(FIGURES)]
    for path in sorted(Path(out_dir).glob("*.json")):
        data = json.loads(path.read_text())
        env = data["env"]
        stale = "" if (ck_dir / f"{env}.npz").exists() and digest(ck_dir / f"{env}.npz") == \
            data["checkpoint_sha256"] else " (an older checkpoint)"
        tab = table_figures(env, ck_dir, ladder)
        lines.append(f"| {env} | table ({TABLE}) | " + " | ".join(_cell(tab.get(f"{w} vs {o}"), o) for w, o in FIGURES)
                     + " |")
        fresh = data["figures"]
        lines.append(f"| | fresh ({data['seed']}{'' if data['seed'] == FRESH else ', not agents.seeds.FRESH'})"
                     f"{stale} | " + " | ".join(_cell(fresh.get(f"{w} vs {o}"), o) for w, o in FIGURES) + " |")
    return "\n".join(lines)


def write_table(md: str, path: Path = BASELINES_MD) -> None:
    from kozel_env.docs import splice

    path.write_text(splice(path.read_text(), (START, END), md, str(path)))


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--env", nargs="*", help="games (default: every game with a shipped checkpoint)")
    ap.add_argument("--processes", type=int, default=None)
    ap.add_argument("--render", action="store_true", help="measure nothing: only rewrite the BASELINES table")
    ap.add_argument("--no-write", action="store_true", help="do not rewrite the BASELINES table")
    args = ap.parse_args(argv)

    from agents.rl.policy import CHECKPOINT_DIR
    from kozel_env.registry import ENVIRONMENTS

    envs = args.env or sorted(p.stem for p in CHECKPOINT_DIR.glob("*.npz"))
    bad = [e for e in envs if e not in ENVIRONMENTS]
    if bad:
        raise SystemExit(f"unknown game(s) {bad}; choose from {sorted(ENVIRONMENTS)}")
    results = {}
    if not args.render:
        for env in envs:
            results[env] = check(env, processes=args.processes, log=lambda s: print(s, file=sys.stderr, flush=True))
    md = render()
    print(md)
    if not args.no_write:
        write_table(md)
    return {"results": results, "table": md}


if __name__ == "__main__":
    main()
