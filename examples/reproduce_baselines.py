"""Reproduce the baseline table of the trained agents: every shipped checkpoint against random, normal and hard.

    python examples/reproduce_baselines.py                    # every shipped checkpoint, the published sets
    python examples/reproduce_baselines.py --sets 100         # a quicker check: 100 sets each, wider intervals
    python examples/reproduce_baselines.py --env dominoes_v0 --deals 50 --hard-deals 10
    python examples/reproduce_baselines.py --train            # retrain every game from scratch first (long)
    python examples/reproduce_baselines.py --write            # also store the figures (checkpoint JSON, BASELINES.md)

Every checkpoint in ``agents/checkpoints/`` (or ``--checkpoints DIR``) plays through the arena
(``agents.arena.evaluate``, ``episode="match"``): whole matches on fixed duplicate deals, each replayed with
the seats rotated, so the figures are deterministic and the 95% confidence intervals are over duplicate
sets. The deals are those of the release's table seed (``agents.seeds.TABLE``, derived from the package
version): no training run, no choice of what ships and no bot setting ever looked at them (those use
``agents.seeds.SELECTION`` and ``agents.seeds.DEVELOPMENT``). The published sets: 1000 against ``random``
and ``normal``, 200 against ``hard``. The table gives the trained agent's match score (a win 1, a
tie 1/2) and its points per deal minus the bot's.

Before it starts, the script says how long the run will take on this machine: it times a duplicate set of
each game against each opponent (and, with ``--train``, one imitation rollout and two PPO iterations of each
game's config) and scales the measured speed to the run; at the end it prints the time taken beside the
estimate. A figure measured on a single set, or on sets that all came out the same, is printed without an
interval and says so (``n=1: no interval``) rather than as ``[50.0, 50.0]``.

``--train`` first retrains each game from scratch with the documented settings and seed
(``agents/rl/configs.py``, the same as ``python examples/train.py --env <game>``; then, for the games of
``configs.FINETUNE``, the fine-tuning stage from that policy, as ``train.py --finetune``), writes the new
checkpoints to ``--checkpoints`` (default: a fresh ``runs/baselines/checkpoints``, so the shipped files stay
untouched unless you point it at ``agents/checkpoints``), then evaluates them.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

BASELINES_MD = ROOT / "agents" / "rl" / "BASELINES.md"
SETS = {"bots": 1000, "search": 200}
"""The published duplicate sets: against ``random`` and ``normal``; against ``hard`` (and other search bots)."""
START, END = "<!-- baseline-table -->", "<!-- /baseline-table -->"


def fmt(c: dict, pct: bool) -> str:
    """A figure with its 95% interval, or why there is none (too few sets, or sets all equal)."""
    from agents.arena import format_ci

    return format_ci(c, pct=pct)


def table(rows: dict, opponents: list) -> str:
    head = "| game | " + " | ".join(f"vs {o}: match score (95% CI) | points/deal vs {o}" for o in opponents) \
        + " | training: PPO decisions (+ imitated), CPU / wall minutes |"
    lines = [head, "|---|" + "---|---|" * len(opponents) + "---|"]
    for env, r in rows.items():
        cells = []
        for o in opponents:
            if o in r["results"]:
                res = r["results"][o]
                old = "" if res.get("seed") == _table_seed() else f", old deals: arena seed {res.get('seed', 0)}"
                cells += [fmt(res["score"], True) + f" ({res['deals']} sets{old})",
                          fmt(res["margin"], False)]
            else:
                cells += ["-", "-"]
        lines.append(f"| {env} | " + " | ".join(cells) + f" | {budget_text(r.get('stages', []))} |")
    return "\n".join(lines)


def budget_text(stages: list) -> str:
    """The training column: each stage's PPO decisions (+ imitated ones), a fine-tuning stage after the run
    it started from, then the CPU / wall minutes of all of them."""
    stages = [st for st in stages if st.get("steps")]
    if not stages:
        return "-"
    parts = []
    for i, st in enumerate(stages):
        bc = f" (+{st['bc_decisions'] / 1e6:.1f}M)" if st.get("bc_decisions") else ""
        parts.append(f"{st['steps'] / 1e6:.2f}M{bc}" + (" fine-tuned" if i else ""))
    cpus = [st.get("train_cpu_seconds") for st in stages]
    cpu = f"{sum(cpus) / 60:.0f}" if all(cpus) else "?"
    wall = sum(st.get("train_seconds", 0.0) for st in stages)
    return f"{' then '.join(parts)}, {cpu} / {wall / 60:.0f}"


def _table_seed() -> int:
    from agents.seeds import TABLE

    return TABLE


def _train_module():
    from agents.rl import train  # the trainer behind examples/train.py (imports torch only for a run)

    return train


def _bot_sets(opp: str, args) -> int:
    return args.hard_deals if opp.split(":")[0] in ("hard", "crazy", "pimc") else args.deals


def estimate(args, envs: list, ck_dir: Path) -> dict:
    """How long the run will take on this machine, from speed measured before it starts. Training (with
    ``--train``): ``train.estimate_seconds`` of each game's config (one imitation rollout, two PPO iterations,
    a few evaluation sets), and of its fine-tuning stage for the games of ``configs.FINETUNE``.
    The table: per game and opponent the arena plays one duplicate set (up to 8 where
    one is quick) of the run's deals, timed and scaled to the run's sets over its processes (a checkpoint not
    trained yet is timed with the shipped one), scaled over its processes as far as the machine has free cores
(its load average tells). Returns ``{"total", "probe", "games": {env: {...}}}`` in seconds."""
    from agents.arena import evaluate
    from agents.rl.configs import FINETUNE, config_for
    from agents.rl.evaluate import SELECT_SETS
    from agents.rl.policy import CHECKPOINT_DIR, factory

    train = _train_module()
    t0 = time.perf_counter()
    procs = args.processes if args.processes is not None else (os.cpu_count() or 1)
    try:  # the processes only help on free cores: those the load average leaves, this process aside
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = 0.0
    parallel = max(1.0, min(float(procs), (os.cpu_count() or 1) - max(0.0, load - 1.0)))
    games = {}
    for env in envs:
        g = {"evaluation": {}}
        if args.train:
            cfg = train.split_budget(config_for(env, **train.parse_sets(args.set)), args.steps)
            g["training"] = train.estimate_seconds(cfg, args.select_sets or SELECT_SETS, candidates=2)
            g["decisions"] = (cfg.bc_steps, cfg.total_steps)
            if env in FINETUNE:  # the second stage retrain() runs; its start does not exist yet, and the
                # speed does not depend on the weights, so the probe starts from fresh ones
                ft = train.split_budget(config_for(env, finetune=True, **train.parse_sets(args.set)), args.steps)
                ft.init_from = ""
                more = train.estimate_seconds(ft, args.select_sets or SELECT_SETS, candidates=2)
                g["training"] = {k: v + more[k] for k, v in g["training"].items()}
                g["finetune_decisions"] = ft.total_steps
        path = next((p for p in (ck_dir / f"{env}.npz", CHECKPOINT_DIR / f"{env}.npz") if p.exists()), None)
        entry = factory(env, path) if path is not None else "random"
        options = json.loads(path.with_suffix(".json").read_text()).get("env_options") or {} if path else {}
        evaluate(env, {"rl": entry, "random": "random"}, deals=1, seed=args.seed, env_options=options,
                 episode="match", processes=1, progress=False)  # untimed: the first call's imports and caches
        for opp in args.opponents:
            sets = _bot_sets(opp, args)
            k, dt = 1, 0.0
            while True:
                t = time.perf_counter()
                evaluate(env, {"rl": entry, opp: opp}, deals=k, seed=args.seed, env_options=options,
                         episode="match", processes=1, progress=False)
                dt = (time.perf_counter() - t) / k
                if k > 1 or k >= sets or dt * k > 0.25:
                    break
                k = min(sets, 8)
            g["evaluation"][opp] = dt * sets / min(parallel, sets)
        g["seconds"] = g.get("training", {}).get("total", 0.0) + sum(g["evaluation"].values())
        games[env] = g
    return {"total": sum(g["seconds"] for g in games.values()), "probe": time.perf_counter() - t0,
            "processes": procs, "parallel": parallel, "games": games}


def estimate_text(est: dict, args) -> str:
    train = _train_module()
    lines = [f"reproduce_baselines: about {train.duration(est['total'])} on this machine (from speed measured "
             f"before starting, {est['probe']:.0f}s; --no-estimate skips it)"]
    for env, g in est["games"].items():
        parts = []
        if "training" in g:
            bc, ppo = g["decisions"]
            tuned = f", then {g['finetune_decisions']:,} fine-tuning" if "finetune_decisions" in g else ""
            parts.append(f"training {train.duration(g['training']['total'])} ({bc:,} imitated + {ppo:,} PPO "
                         f"decisions{tuned}, evaluations, choosing what ships)")
        if g["evaluation"]:
            sets = ", ".join(f"{o} {_bot_sets(o, args)}" for o in g["evaluation"])
            on = f"{est['processes']} process{'es' if est['processes'] > 1 else ''}"
            if est["parallel"] < est["processes"]:
                on += f", {est['parallel']:.1f} cores free"
            parts.append(f"table {train.duration(sum(g['evaluation'].values()))} (sets against {sets}, on {on})")
        lines.append(f"  {env}: " + "; ".join(parts))
    return "\n".join(lines)


def retrain(env: str, out_dir: Path, steps: int | None, progress: bool, runs: Path, sets=(),
            select_sets: int | None = None) -> None:
    from agents.rl.configs import FINETUNE

    train = _train_module()
    common = ["--env", env, "--quiet"] + (["--steps", str(steps)] if steps else []) \
        + ([] if progress else ["--no-progress"])
    run = runs / env
    train.main(common + ["--out", str(run)] + (["--set", *sets] if sets else []), root=ROOT)
    dest = out_dir / f"{env}.npz"
    if dest.exists():  # a from-scratch retrain competes only with itself
        for suf in (".npz", ".json"):
            dest.with_suffix(suf).unlink()
    train.ship(env, run, dest, select_sets, quiet=not progress)  # as train.py --ship chooses
    if env in FINETUNE:  # the documented second stage: fine-tuned from what the first one shipped
        run = runs / f"{env}_finetune"
        train.main(common + ["--finetune", "--out", str(run), "--set", f"init_from={dest}", *sets], root=ROOT)
        train.ship(env, run, dest, select_sets, quiet=not progress)  # the first stage's policy stays on a tie


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", nargs="*", help="games (default: every shipped checkpoint)")
    ap.add_argument("--checkpoints", help="checkpoint folder (default agents/checkpoints; with --train "
                                          "runs/baselines/checkpoints)")
    ap.add_argument("--opponents", nargs="+", default=["random", "normal", "hard"])
    ap.add_argument("--deals", type=int, default=SETS["bots"], help="duplicate sets per opponent (random, normal)")
    ap.add_argument("--hard-deals", type=int, default=SETS["search"],
                    help="duplicate sets against hard/crazy (slow bots)")
    ap.add_argument("--sets", type=int, help="duplicate sets against every opponent (overrides --deals and "
                                             "--hard-deals): a quicker check with wider intervals")
    ap.add_argument("--seed", type=int, default=None,
                    help=f"arena seed of the deals (default: this release's table seed, agents.seeds.TABLE = "
                         f"{_table_seed()})")
    ap.add_argument("--processes", type=int, default=None)
    ap.add_argument("--train", action="store_true", help="retrain from scratch with the documented settings")
    ap.add_argument("--steps", type=int,
                    help="with --train: each game's whole budget, imitation included, as train.py --steps "
                         "(e.g. for a quick check)")
    ap.add_argument("--runs", help="with --train: folder for the training runs (default runs/baselines)")
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                    help="with --train: override documented settings (as train.py --set), e.g. bc_steps=0")
    ap.add_argument("--select-sets", type=int,
                    help="with --train: held-out duplicate sets behind the choice of the run's best or final "
                         "policy (as train.py --ship; default 1000)")
    ap.add_argument("--write", action="store_true",
                    help="store the figures in each checkpoint's JSON and the table in agents/rl/BASELINES.md")
    ap.add_argument("--table", action="store_true",
                    help="no evaluation: print the table of the figures stored in the checkpoints' JSON")
    ap.add_argument("--json", help="write all results here")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--no-estimate", action="store_true",
                    help="start at once, without first measuring the speed for the estimate of the run's time")
    args = ap.parse_args(argv)
    if args.sets is not None:
        args.deals = args.hard_deals = args.sets
    if args.seed is None:
        args.seed = _table_seed()

    from agents.arena import evaluate
    from agents.rl.policy import CHECKPOINT_DIR, NumpyPolicy, factory, training_stages
    from kozel_env.registry import ENVIRONMENTS

    ck_dir = Path(args.checkpoints) if args.checkpoints else (
        (Path(args.runs) if args.runs else ROOT / "runs" / "baselines") / "checkpoints" if args.train
        else CHECKPOINT_DIR)
    envs = args.env or (sorted(ENVIRONMENTS) if args.train else sorted(p.stem for p in ck_dir.glob("*.npz")))
    missing = [e for e in ENVIRONMENTS if e not in envs]
    t_start = time.time()
    est = None
    if not args.no_estimate and not args.table:
        est = estimate(args, envs, ck_dir)
        print(estimate_text(est, args), file=sys.stderr, flush=True)
    if args.train:
        for env in envs:
            retrain(env, ck_dir, args.steps, not args.no_progress,
                    Path(args.runs) if args.runs else ROOT / "runs" / "baselines", args.set, args.select_sets)
    rows = {}
    t0 = time.time()
    if args.table:
        envs = []
    for env in envs:
        path = ck_dir / f"{env}.npz"
        if not path.exists():
            print(f"{env}: no checkpoint at {path}", file=sys.stderr)
            continue
        meta = json.loads(path.with_suffix(".json").read_text())
        pol_env_options = meta.get("env_options") or {}
        row = {"stages": training_stages(meta), "results": {}}
        for opp in args.opponents:
            deals = _bot_sets(opp, args)
            res = evaluate(env, {"rl": factory(env, path), opp: opp}, deals=deals, seed=args.seed,
                           env_options=pol_env_options, episode="match", processes=args.processes,
                           progress=not args.no_progress)
            p = res["pairs"][0]
            row["results"][opp] = {"score": p["score_a"], "margin": p["margin"], "deals": deals,
                                   "games": p["games"], "seed": args.seed,
                                   "ms_per_decision": res["ms_per_decision"]}
            print(f"{env} vs {opp}: {fmt(p['score_a'], True)}, points/deal {fmt(p['margin'], False)}",
                  file=sys.stderr)
        rows[env] = row
        if args.write:  # merged with figures stored earlier (e.g. against another opponent)
            meta["baselines"] = {**meta.get("baselines", {}),
                                 **{o: {k: v for k, v in r.items() if k != "ms_per_decision"}
                                    for o, r in row["results"].items()}}
            path.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
            NumpyPolicy.from_files(path)  # still loads
    md = table(rows, args.opponents)
    if not args.table:
        print(md)
    if missing and not args.env:
        print(f"\nno checkpoint for: {', '.join(missing)}")
    if (args.write and rows) or args.table:
        # the stored table covers every checkpoint of the folder, from the figures in their JSON files
        stored = {}
        for p in sorted(ck_dir.glob("*.json")):
            m = json.loads(p.read_text())
            if m.get("baselines"):
                stored[p.stem] = {"stages": training_stages(m), "results": m["baselines"]}
        seen = {o for r in stored.values() for o in r["results"]}
        order = [o for o in ("random", "easy", "normal", "hard", "crazy") if o in seen] + sorted(
            seen - {"random", "easy", "normal", "hard", "crazy"})
        md = table(stored, order)
        if args.table:
            print(md)
            if not args.write:
                return {"rows": stored, "table": md}
        text = BASELINES_MD.read_text() if BASELINES_MD.exists() else f"# Baselines\n\n{START}\n{END}\n"
        if START in text and END in text:
            a, rest = text.split(START, 1)
            _, b = rest.split(END, 1)
            text = a + START + "\n" + md + "\n" + END + b
        BASELINES_MD.write_text(text)
    out = {"rows": rows, "table": md, "seconds": time.time() - t0, "total_seconds": time.time() - t_start,
           "estimate": est}
    if est is not None:
        print(f"reproduce_baselines: took {_train_module().duration(out['total_seconds'])} (estimated "
              f"{_train_module().duration(est['total'])})", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()
