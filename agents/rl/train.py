"""Train an agent on a Kozel game with PPO self-play (PyTorch, CPU), evaluating it against the bots.

    kozel-train --env dominoes_v0 --steps 20000                # a short run (about a minute), runs/dominoes_v0
    kozel-train --env dominoes_v0                              # the documented budget (agents/rl/configs.py)
    kozel-train --env queens_and_jacks_v0 --steps 500000 --out runs/qj
    kozel-train --env dominoes_v0 --resume                     # continue runs/dominoes_v0 from last.pt
    kozel-train --env dominoes_v0 --ship                       # then ship the better policy to agents/checkpoints
    kozel-train --env donkey_v0 --finetune --ship              # fine-tune the shipped policy (configs.FINETUNE)

``kozel-train`` is installed with the package (the ``agents`` or ``train`` extra brings torch); ``python -m
agents.rl.train`` and, in a checkout, ``python examples/train.py`` are the same command. Without arguments it
prints its usage and exits with status 2.

The documented recipe (agents/rl/configs.py, see agents/rl/BASELINES.md) first imitates the ``normal`` bot
(``bc_steps`` of its decisions), then runs PPO (``total_steps`` decisions); ``--bc-steps 0`` trains from
scratch. Any PPOConfig field can be changed with ``--set key=value``.

The budget: ``--steps N`` is the whole run, the imitated decisions included, so that a short run is short (a
budget that counted PPO alone would first imitate dominoes_v0's 1.5M decisions, 12 minutes, whatever N). The
imitation gets the share it has in the game's documented recipe (dominoes_v0: 1.5M of 5.5M, so 27%), or
``--bc-steps`` of them; PPO gets the rest. Both counts are exact: of the last rollout of each phase only the
decisions still due are used, so the run does N decisions. A budget too small for the documented rollouts
(128 matches x 64 decisions per iteration) gets smaller ones -- fewer decisions per match per iteration (not
below 8), then fewer matches -- so that PPO runs at least 5 iterations, evaluations often enough for 4
points on the learning curve, and the critic-only warm-up at most a quarter of the iterations; what is set
explicitly (``--num-envs``, ``--rollout``, ``--eval-every``, ``--set value_warmup=``) stays. Without
``--steps``, the documented figures (``bc_steps`` + ``total_steps``). The plan is printed before the run
starts, and what was done when it ends. With ``--resume``, ``--steps N`` moves the end of the run to N
decisions in all.

Shows a progress bar with its ETA for each phase (imitation, then PPO); every ``--eval-every`` iterations, and
once more after the last iteration whatever their count (``--eval-every 0``: never), plays the current policy
against the bots (random, normal) on duplicate deals, as the arena does, and logs the match score with its
95% interval. The run folder (``--out``, default ``runs/<env>`` under the current directory) receives
``config.json``, ``log.jsonl`` (one line per iteration), ``last.pt`` (everything needed to resume: weights,
optimizer, opponent pool, counters, random generators; tensors and plain data only, loaded with
``weights_only=True``: a checkpoint holding anything else is refused) and ``policy.npz`` + ``policy.json``
(the actor in the shipped format, loadable with ``agents.rl.load(env, path=...)``), ``best.npz`` +
``best.json`` (the policy of the best evaluation); TensorBoard logs in ``tb/`` and ``learning_curve.png``,
where the ``train`` extra is installed (tensorboard and matplotlib). The run is reproducible from its config
and seed (with one torch thread, the default); ``--minutes`` stops it early by the clock, which is not.

``--ship`` chooses what ships (``agents.rl.evaluate.choose_policy``): the run's best periodic evaluation, its
final policy and the checkpoint shipped before each play ``--select-sets`` (1000) duplicate sets against
``normal`` on the held-out deals (arena seed 99); the highest match score is copied to
``agents/checkpoints/<env>.npz`` + ``.json`` (the one shipped before stays on a tie). ``choice.json`` in the
run folder keeps the scores.

Exit status: 0 after a run, 2 for a command line it cannot run (no arguments, an unknown flag), 1 for a
budget or a checkpoint it refuses (the message says why) and for a run where PyTorch is not installed.
"""
from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from kozel_env.registry import ENVIRONMENTS

from ..stats import format_ci
from .configs import PPOConfig, config_for
from .evaluate import EVAL_SEED, SELECT_SETS, choose_policy, evaluate
from .policy import CHECKPOINT_DIR
from .safe_load import UnsafeFileError

if TYPE_CHECKING:  # torch is imported by the run itself, not by ``--help`` or the budget helpers
    from .ppo import PPOTrainer

PROG = "kozel-train"
MIN_ITERATIONS = 5
"""PPO iterations a budget gets at least (:func:`fit_to_budget`: smaller rollouts where the documented ones
would not leave that many)."""
MIN_TICKS = 8
"""The fewest decisions per match per iteration :func:`fit_to_budget` goes down to before it takes matches away."""
CURVE_POINTS = 4
"""Evaluations a short run gets at least (:func:`fit_to_budget`), so its learning curve is a curve."""
NO_TORCH = ('training needs PyTorch, which is not installed here: pip install "kozel_env[train]" (the shipped '
            "agents play without it; the README says how to get the CPU build)")
"""What :func:`main` says, in one line with status 1, where a run would need torch and it is missing (the
base install: ``--help`` and the usage work there)."""


def _progress(total: int, desc: str, enabled: bool):
    if not enabled:
        return None
    try:
        from tqdm import tqdm

        # exact counts where they are short (no "1.00/1.00"), 2.18M/5.50M where they are long
        return tqdm(total=total, desc=desc, unit="dec", unit_scale=total >= 100_000, smoothing=0.1, file=sys.stderr)
    except ImportError:
        class Bar:
            n = 0

            def update(self, k):
                self.n += k
                print(f"\r{desc}: {self.n}/{total} decisions", end="", file=sys.stderr, flush=True)

            def set_postfix_str(self, s):
                print(f"  {s}", end="", file=sys.stderr)

            def close(self):
                print(file=sys.stderr)
        return Bar()


def _tensorboard(run_dir: Path):
    try:
        from torch.utils.tensorboard import SummaryWriter

        return SummaryWriter(str(run_dir / "tb"))
    except Exception:  # tensorboard not installed
        return None


def learning_curve(history: list, path: Path, title: str) -> bool:
    """Plot the evaluation scores (and the value loss) against decisions; False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    evals = [h for h in history if "eval" in h]
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    for opp in (evals[0]["eval"] if evals else {}):
        xs = [h["steps"] for h in evals]
        ys = [h["eval"][opp]["score"] for h in evals]
        ci = [h["eval"][opp]["ci"] for h in evals]
        ci = [c if c == c else 0.0 for c in ci]   # nan: evaluated on one set, no interval
        ax[0].errorbar(xs, ys, yerr=ci, fmt="-o", markersize=3, label=f"vs {opp}", capsize=2)
    ax[0].set_xlabel("learner decisions")
    ax[0].set_ylabel("match score (duplicate deals)")
    ax[0].set_ylim(0, 1)
    if evals:
        ax[0].legend()
    ax[1].plot([h["steps"] for h in history], [h["vf"] for h in history])
    ax[1].set_xlabel("learner decisions")
    ax[1].set_ylabel("value loss")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The command line of ``kozel-train`` (``python -m agents.rl.train``, ``python examples/train.py``; this
    module's doc is its ``--help``)."""
    ap = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", required=True, choices=sorted(ENVIRONMENTS), metavar="GAME",
                    help=f"the game: {', '.join(sorted(ENVIRONMENTS))}")
    ap.add_argument("--algo", default="ppo", choices=["ppo"])
    ap.add_argument("--steps", type=int,
                    help="the whole budget: imitated + PPO learner decisions (default: the game's config, "
                         "bc_steps + total_steps); with --resume, the new end of the run")
    ap.add_argument("--bc-steps", type=int,
                    help="imitated decisions (the warm start) within --steps (default: the share of the game's "
                         "recipe; 0: none, PPO from scratch)")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--num-envs", type=int, help="matches played side by side")
    ap.add_argument("--rollout", type=int, help="decisions per match copy per iteration")
    ap.add_argument("--hidden", type=int, nargs="+", help="hidden layer sizes, e.g. 256 256")
    ap.add_argument("--no-central-critic", action="store_true", help="critic on the observation only")
    ap.add_argument("--bots", nargs="*", help="bot opponents in the pool, e.g. random=0.2 normal=0.8")
    ap.add_argument("--eval-every", type=int,
                    help="iterations between evaluations, and one after the last iteration (0: none at all)")
    ap.add_argument("--eval-deals", type=int, help="duplicate sets per evaluation")
    ap.add_argument("--eval-opponents", nargs="*", help="bots to evaluate against")
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                    help="any other PPOConfig field, e.g. lr=1e-3 minibatch=1024 selfplay=0.6")
    ap.add_argument("--out", help="run folder (default runs/<env>)")
    ap.add_argument("--finetune", action="store_true",
                    help="the fine-tuning stage (agents/rl/configs.py FINETUNE): PPO from the shipped policy's "
                         "weights (or --set init_from=PATH), no imitation; the default run folder is "
                         "runs/<env>_finetune")
    ap.add_argument("--resume", action="store_true", help="continue from <out>/last.pt")
    ap.add_argument("--minutes", type=float, help="also stop after this much wall time")
    ap.add_argument("--save-every", type=int, default=10, help="iterations between checkpoints")
    ap.add_argument("--ship", action="store_true",
                    help="copy to agents/checkpoints/ the best of: the best periodic evaluation, the final policy "
                         "and the checkpoint shipped before, on --select-sets held-out sets against normal")
    ap.add_argument("--select-sets", type=int, default=None,
                    help="duplicate sets behind --ship's choice (default 1000)")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1 keeps runs reproducible)")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--quiet", action="store_true", help="no per-evaluation lines")
    return ap


def ship(env: str, run_dir: Path, dest: Path, sets: int | None = None, quiet: bool = False) -> Path:
    """Copy to ``dest`` (``.npz`` + ``.json``) the best of the run's candidates -- ``best.npz`` (its best
    periodic evaluation) and ``policy.npz`` (its final policy) -- and of the policy already at ``dest``,
    which stays on a tie (``agents.rl.evaluate.choose_policy``: ``sets`` held-out duplicate sets against
    normal). Writes the scores to ``<run_dir>/choice.json``; returns the chosen file."""

    cands = [p for p in (dest, run_dir / "best.npz", run_dir / "policy.npz") if p.exists()]
    log = None if quiet else (lambda m: print(f"choosing what ships: {m}", file=sys.stderr))
    chosen, scores = choose_policy(env, cands, sets=sets or SELECT_SETS, log=log)
    chosen = Path(chosen)
    (run_dir / "choice.json").write_text(json.dumps({"chosen": str(chosen), "candidates": scores}, indent=1) + "\n")
    if chosen != dest:
        dest.parent.mkdir(parents=True, exist_ok=True)
        for suf in (".npz", ".json"):
            shutil.copy(chosen.with_suffix(suf), dest.with_suffix(suf))
    return chosen


def parse_sets(items: list) -> dict:
    """``--set key=value ...`` as a dict (values read as JSON where they parse, else text)."""
    out = {}
    for it in items:
        k, eq, v = it.partition("=")
        if not eq:
            raise SystemExit(f"--set {it!r}: use key=value")
        try:
            out[k] = json.loads(v)
        except json.JSONDecodeError:
            out[k] = v
    return out


def split_budget(cfg: PPOConfig, steps: int | None = None, bc_steps: int | None = None) -> PPOConfig:
    """Share out ``steps``, the whole budget (imitated + PPO decisions), in place: ``cfg.bc_steps`` imitated
    ones -- ``bc_steps`` if given, else the share imitation has in ``cfg`` as documented -- and the rest as
    ``cfg.total_steps`` (PPO; after the imitation :func:`main` sets it to ``steps`` minus the decisions actually
    imitated). Without ``steps`` the documented figures stay (``bc_steps`` still replaces the imitation)."""
    if bc_steps is not None and bc_steps < 0:
        raise SystemExit(f"--bc-steps {bc_steps}: a number of decisions, 0 or more")
    if steps is None:
        if bc_steps is not None:
            cfg.bc_steps = bc_steps
        return cfg
    if steps < 1:
        raise SystemExit(f"--steps {steps}: at least 1 decision")
    if bc_steps is None:
        bc_steps = round(steps * cfg.bc_steps / (cfg.bc_steps + cfg.total_steps)) if cfg.bc_steps else 0
    elif bc_steps >= steps:
        raise SystemExit(f"--bc-steps {bc_steps} leaves nothing of --steps {steps} to PPO")
    cfg.bc_steps, cfg.total_steps = bc_steps, max(1, steps - bc_steps)
    return cfg


def _every(n: int) -> str:
    """``every iteration``, ``every 5 iterations``."""
    return "every iteration" if n == 1 else f"every {n} iterations"


def fit_to_budget(cfg: PPOConfig, keep: frozenset | set = frozenset()) -> list:
    """Fit the rollouts and the evaluations of ``cfg`` to its budget, in place (see the module doc): where
    ``num_envs * rollout_ticks`` decisions per iteration would leave PPO fewer than :data:`MIN_ITERATIONS`
    iterations of ``cfg.total_steps``, fewer decisions per match per iteration (not below :data:`MIN_TICKS`),
    then fewer matches; where the iterations (at least ``total_steps / (num_envs * rollout_ticks)``: a rollout
    holds at most that many learner decisions) would see fewer than :data:`CURVE_POINTS` periodic
    evaluations, a smaller ``eval_every``; ``value_warmup`` at most a quarter of them. The settings named in
    ``keep`` (given explicitly) stay. Returns what changed, as phrases for the plan (empty: nothing)."""
    notes = []
    envs, ticks = cfg.num_envs, cfg.rollout_ticks
    most = max(1, cfg.total_steps // MIN_ITERATIONS)   # decisions per iteration that leave MIN_ITERATIONS
    if envs * ticks > most:
        if "rollout_ticks" not in keep:
            ticks = max(min(MIN_TICKS, ticks), min(ticks, most // envs))
        if envs * ticks > most and "num_envs" not in keep:
            envs = max(1, most // ticks)
        if (envs, ticks) != (cfg.num_envs, cfg.rollout_ticks):
            notes.append(f"rollouts of {envs} matches x {ticks} decisions (the documented {cfg.num_envs} x "
                         f"{cfg.rollout_ticks} would leave PPO fewer than {MIN_ITERATIONS} iterations)")
            cfg.num_envs, cfg.rollout_ticks = envs, ticks
    iterations = math.ceil(cfg.total_steps / (envs * ticks))   # at least this many
    if cfg.eval_every and "eval_every" not in keep and iterations // cfg.eval_every < CURVE_POINTS:
        every = max(1, iterations // CURVE_POINTS)
        if every != cfg.eval_every:
            notes.append(f"an evaluation {_every(every)} (not every {cfg.eval_every}: at least {iterations} "
                         "iterations)")
            cfg.eval_every = every
    if cfg.value_warmup and "value_warmup" not in keep and cfg.value_warmup > iterations // 4:
        notes.append(f"value_warmup {iterations // 4} (not {cfg.value_warmup})")
        cfg.value_warmup = iterations // 4
    return notes


def plan_text(cfg: PPOConfig, steps: int | None, documented: tuple, explicit_bc: bool, fitted: list = ()) -> str:
    """One line, printed before the run starts: what it will do with its budget and why (``fitted``: what
    :func:`fit_to_budget` changed)."""
    if cfg.bc_steps:
        teacher = f"the labels in {cfg.bc_data} ({cfg.bc_target})" if cfg.bc_data else cfg.bc_teacher
        what = (f"{cfg.bc_steps:,} decisions imitating {teacher} (the warm start), then "
                f"{cfg.total_steps:,} of PPO")
    else:
        what = f"{cfg.total_steps:,} decisions of PPO (no warm start)"
    if steps is None:
        why = "the documented budget" + (", the imitation set by --bc-steps" if explicit_bc else "")
    elif explicit_bc:
        why = f"--steps {steps:,}, the imitation set by --bc-steps"
    else:
        why = (f"--steps {steps:,}, shared out as the documented {documented[0]:,} + {documented[1]:,}"
               if documented[0] else f"--steps {steps:,}")
    ev = (f"; evaluated {_every(cfg.eval_every)} and after the last ({cfg.eval_seeds} duplicate sets "
          f"against {', '.join(cfg.eval_opponents)})" if cfg.eval_every else "; no evaluations (--eval-every 0)")
    fit = f"; fitted to the budget: {', '.join(fitted)}" if fitted else ""
    return f"{cfg.env}: {what} ({why}){ev}{fit}"


def done_text(tr: PPOTrainer, planned: tuple) -> str:
    """One line, printed when the run ends: the decisions done, against the plan ``(imitated, PPO)``."""
    total = tr.bc_done + tr.steps
    same = (tr.bc_done, tr.steps) == tuple(planned)
    return (f"{tr.cfg.env}: done {tr.bc_done:,} decisions imitating + {tr.steps:,} of PPO = {total:,} in "
            f"{tr.iteration} iterations" + ("" if same else f" (planned {planned[0]:,} + {planned[1]:,})"))


def eval_text(ev: dict, sets: int | None = None) -> str:
    """An evaluation's match scores with their 95% intervals (``agents.arena.format_ci``: a run evaluated on
    too few sets says so) and point margins."""
    parts = []
    for opp, e in ev.items():
        c = {"mean": e["score"], "lo": e.get("lo", e["score"] - e["ci"]), "hi": e.get("hi", e["score"] + e["ci"]),
             "n": e.get("n", sets or 0)}
        parts.append(f"{opp} {format_ci(c, pct=True)} (margin {e['margin']:+.2f})")
    return ", ".join(parts)


def duration(seconds: float) -> str:
    """``14 s``, ``12 min``, ``1 h 05 min``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    m = round(seconds / 60)
    return f"{m} min" if m < 60 else f"{m // 60} h {m % 60:02d} min"


def estimate_seconds(cfg: PPOConfig, select_sets: int | None = None, candidates: int = 2) -> dict:
    """How long a run of ``cfg`` takes on this machine, from measured speed: a trainer with ``cfg``'s game and
    settings imitates one rollout and runs two PPO iterations, and its policy plays a few evaluation sets; the
    rates are scaled to ``cfg.bc_steps``, ``cfg.total_steps``, the evaluations (every ``eval_every`` iterations
    and the final one) and, with ``select_sets``, the choice of what ships (``candidates`` policies on that
    many sets against normal). Returns seconds: ``imitation``, ``ppo``, ``evaluations``, ``ship``, ``total``,
    and ``probe`` (what the measuring took)."""
    from .ppo import PPOConfig, PPOTrainer

    t0 = time.perf_counter()
    probe = PPOConfig.from_json(cfg.to_json())
    probe.bc_steps = 1 if cfg.bc_steps else 0
    probe.eval_every = 0
    tr = PPOTrainer(probe)
    out = {"imitation": 0.0, "ppo": 0.0, "evaluations": 0.0, "ship": 0.0}
    if cfg.bc_steps:
        t = time.perf_counter()
        tr.behaviour_cloning()
        out["imitation"] = (time.perf_counter() - t) / max(1, tr.bc_done) * cfg.bc_steps
    t = time.perf_counter()
    for _ in range(2):
        tr.train_iteration()
    out["ppo"] = (time.perf_counter() - t) / max(1, tr.steps) * cfg.total_steps
    iterations = math.ceil(cfg.total_steps / max(1.0, tr.steps / 2))
    pol = tr.policy()

    def per_set(opp: str, sets: int) -> float:
        k = max(1, min(sets, 8))
        t = time.perf_counter()
        evaluate(pol, opp, cfg.env, k, seed=EVAL_SEED, env_options=cfg.env_options)
        return (time.perf_counter() - t) / k

    if cfg.eval_every:
        one = sum(per_set(o, cfg.eval_seeds) for o in cfg.eval_opponents) * cfg.eval_seeds
        out["evaluations"] = one * (iterations // cfg.eval_every + 1)
    if select_sets:
        out["ship"] = candidates * select_sets * per_set("normal", select_sets)
    out["total"] = sum(out.values())
    out["probe"] = time.perf_counter() - t0
    return out


def _new_config(args: argparse.Namespace, sets: dict, explicit_bc: int | None) -> PPOConfig:
    """The config of a new run: the game's documented settings, the flags and ``--set`` over them, the
    budget shared out (:func:`split_budget`) and the rollouts fitted to it (:func:`fit_to_budget`); the plan
    is printed."""
    bots = None
    if args.bots is not None:
        bots = {}
        for b in args.bots:
            name, _, w = b.partition("=")
            bots[name] = float(w or 1.0)
    flags = dict(seed=args.seed, num_envs=args.num_envs, rollout_ticks=args.rollout,
                 hidden=tuple(args.hidden) if args.hidden else None,
                 central_critic=False if args.no_central_critic else None, bots=bots,
                 eval_every=args.eval_every, eval_seeds=args.eval_deals,
                 eval_opponents=tuple(args.eval_opponents) if args.eval_opponents is not None else None,
                 torch_threads=args.threads)
    for k, v in sets.items():
        if flags.get(k) is None:
            flags[k] = v
    cfg = config_for(args.env, finetune=args.finetune, **flags)
    documented = (cfg.bc_steps, cfg.total_steps)
    split_budget(cfg, args.steps, explicit_bc)
    keep = {k for k, v in flags.items() if v is not None} | set(sets)
    fitted = fit_to_budget(cfg, keep) if args.steps is not None else []
    print(plan_text(cfg, args.steps, documented, explicit_bc is not None, fitted), file=sys.stderr)
    return cfg


def _write_config(run_dir: Path, cfg: PPOConfig) -> None:
    (run_dir / "config.json").write_text(json.dumps(cfg.to_json(), indent=1) + "\n")


def _start(args, run_dir: Path) -> tuple:
    """The trainer of the run in ``run_dir``: new, or resumed from its ``last.pt`` (``--resume``).
    Returns ``(trainer, its config, the last.pt path)``."""
    run_dir.mkdir(parents=True, exist_ok=True)
    last = run_dir / "last.pt"
    resume = args.resume and last.exists()
    if args.resume and not resume:
        print(f"--resume: no {last} yet, starting a new run", file=sys.stderr)
    sets = parse_sets(args.set)
    explicit_bc = args.bc_steps if args.bc_steps is not None else sets.get("bc_steps")
    from .ppo import PPOConfig, PPOTrainer

    if resume:
        cfg = PPOConfig.from_json(json.loads((run_dir / "config.json").read_text()))
        if args.bc_steps is not None:
            print("--bc-steps: ignored with --resume (the imitation is over)", file=sys.stderr)
    else:
        cfg = _new_config(args, sets, explicit_bc)
        if (run_dir / "log.jsonl").exists():
            (run_dir / "log.jsonl").unlink()
    _write_config(run_dir, cfg)
    tr = PPOTrainer(cfg, run_dir=run_dir)
    if resume:
        tr.load(last)
        if args.steps:
            cfg.total_steps = max(1, args.steps - tr.bc_done)
            _write_config(run_dir, cfg)
        print(f"resumed {last} at iteration {tr.iteration}, {tr.steps:,} PPO decisions (+ {tr.bc_done:,} imitated); "
              f"on to {cfg.total_steps:,}", file=sys.stderr)
    return tr, cfg, last


def _imitate(tr: PPOTrainer, args, run_dir: Path, last: Path) -> None:
    """The warm start with its progress bar (or a line per tenth, without one); then PPO gets what it left
    of ``--steps``."""
    cfg = tr.cfg
    bar = _progress(cfg.bc_steps, f"{args.env} imitation", not args.no_progress)
    shown = [0, 0]   # decisions on the bar; tenths of the imitation reported in lines (without a bar)

    def bc_log(s):
        if bar is not None:
            bar.update(min(s["bc_decisions"], cfg.bc_steps) - shown[0])
            shown[0] = min(s["bc_decisions"], cfg.bc_steps)
            bar.set_postfix_str(f"loss {s['bc_loss']:.3f} accuracy {s['bc_accuracy']:.3f}")
        elif not args.quiet and 10 * s["bc_decisions"] // cfg.bc_steps > shown[1]:
            shown[1] = 10 * s["bc_decisions"] // cfg.bc_steps
            print(f"  imitation: {s['bc_decisions']:,} decisions, loss {s['bc_loss']:.3f} accuracy "
                  f"{s['bc_accuracy']:.3f} ({s['bc_seconds']:.0f}s)", file=sys.stderr)
    tr.behaviour_cloning(bc_log)
    if bar is not None:
        bar.close()
    if args.steps:  # PPO gets what the imitation left of the budget
        cfg.total_steps = max(1, args.steps - tr.bc_done)
        _write_config(run_dir, cfg)
    tr.save(last)


def _show_eval(s: dict, what: str, tr: PPOTrainer, args, tb, bar, t0: float) -> None:
    """An evaluation's line (unless ``--quiet``; above the progress bar where there is one) and its
    TensorBoard scalars."""
    if not args.quiet:
        msg = (f"[{what + ' ' if what else ''}it {tr.iteration} {tr.steps} dec {time.time() - t0:.0f}s] "
               f"eval {eval_text(s['eval'], tr.cfg.eval_seeds)}")
        if bar is not None and hasattr(bar, "write"):
            bar.write(msg, file=sys.stderr)
        else:
            print(msg, file=sys.stderr)
    if tb is not None:
        for o, e in s["eval"].items():
            tb.add_scalar(f"eval/score_vs_{o}", e["score"], tr.steps)


def _ppo(tr: PPOTrainer, args, tb, last: Path, t0: float) -> None:
    """PPO iterations until the budget (or ``--minutes``), with the progress bar, TensorBoard scalars,
    evaluation lines and a checkpoint every ``--save-every`` iterations."""
    cfg = tr.cfg
    bar = _progress(cfg.total_steps, f"{args.env} PPO", not args.no_progress and not tr.done())
    if bar is not None:
        bar.update(min(tr.steps, cfg.total_steps))
    while not tr.done():
        before = tr.steps
        s = tr.train_iteration()
        if bar is not None:
            bar.update(min(tr.steps, cfg.total_steps) - min(before, cfg.total_steps))
            post = f"vf {s['vf']:.3f} ent {s['ent']:.2f}"
            if "vs_pool_return" in s:
                post += f" pool {s['vs_pool_return']:+.2f}"
            bar.set_postfix_str(post)
        if tb is not None:
            for k in ("pg", "vf", "ent", "kl", "clipfrac", "lr", "vs_pool_return"):
                if k in s:
                    tb.add_scalar(f"train/{k}", s[k], tr.steps)
        if "eval" in s:
            _show_eval(s, "", tr, args, tb, bar, t0)
        if tr.iteration % args.save_every == 0:
            tr.save(last)
        if args.minutes is not None and time.time() - t0 > 60 * args.minutes:
            print(f"\nstopping after {args.minutes} minutes (not the documented budget)", file=sys.stderr)
            break
    if bar is not None:
        bar.close()


def run(argv: list, root: Path | None = None, prog: str = PROG) -> dict:
    """One training run with the command line ``argv`` (see the module doc), the programmatic form of
    :func:`main`; the default run folder is ``<root>/runs/<env>`` (``root``: the current directory unless
    given). Prints the plan first, what was done last and the summary (JSON, on stdout); returns the summary.
    Raises :class:`~agents.rl.safe_load.UnsafeFileError` for a ``last.pt`` it refuses to load."""
    args = build_parser(prog).parse_args(argv)
    run_dir = Path(args.out) if args.out else (Path(root if root is not None else ".") / "runs"
                                               / (args.env + ("_finetune" if args.finetune else "")))
    tr, cfg, last = _start(args, run_dir)
    planned = (cfg.bc_steps, cfg.total_steps)
    tb = _tensorboard(run_dir)
    if cfg.bc_steps and tr.bc_done < cfg.bc_steps and tr.iteration == 0:
        _imitate(tr, args, run_dir, last)
    t0 = time.time()
    _ppo(tr, args, tb, last, t0)
    final = tr.final_evaluation()   # a run shorter than eval_every, or stopped between two evaluations
    if final is not None:
        _show_eval(final, "final", tr, args, tb, None, t0)
    tr.save(last)
    print(done_text(tr, planned), file=sys.stderr)
    png = learning_curve(tr.history, run_dir / "learning_curve.png", f"{args.env} PPO")
    if tb is not None:
        tb.close()
    out = {"run_dir": str(run_dir), "iteration": tr.iteration, "steps": tr.steps, "bc_decisions": tr.bc_done,
           "matches": tr.matches_done, "seconds": time.time() - t0, "policy": str(run_dir / "policy.npz"),
           "tensorboard": str(run_dir / "tb") if tb is not None else None,
           "learning_curve": str(run_dir / "learning_curve.png") if png else None,
           "last_eval": next((h["eval"] for h in reversed(tr.history) if "eval" in h), None)}
    if args.ship:
        shipped = CHECKPOINT_DIR / f"{args.env}.npz"
        src = ship(args.env, run_dir, shipped, args.select_sets, quiet=args.quiet)
        out["shipped_from"] = str(src)
        out["shipped"] = str(shipped)
    print(json.dumps(out, indent=1))
    missing = [what for what, ok in (("tensorboard is not installed: no TensorBoard logs", tb is not None),
                                     ("matplotlib is not installed: no learning-curve PNG", png)) if not ok]
    if missing:
        print(f"({'; '.join(missing)}; the curve is in log.jsonl; the train extra brings both: "
              'pip install "kozel_env[train]")', file=sys.stderr)
    return out


def usage_text(prog: str = PROG) -> str:
    """What ``kozel-train`` without arguments prints: the usage line, three examples, where the rest is."""
    return (build_parser(prog).format_usage()
            + f"\n  {prog} --env dominoes_v0 --steps 20000    # a short run: runs/dominoes_v0\n"
            + f"  {prog} --env dominoes_v0                  # the documented budget (hours)\n"
            + f"  {prog} --env dominoes_v0 --resume         # continue runs/dominoes_v0 from last.pt\n"
            + f"\ngames: {', '.join(sorted(ENVIRONMENTS))}\n{prog} --help: every flag, the budget, the run folder\n")


def main(argv: list | None = None, root: Path | None = None, prog: str = PROG) -> int:
    """The ``kozel-train`` console command (``python -m agents.rl.train``): :func:`run` with ``argv``
    (default: the command line). Returns the exit status: 0 after a run; 2 without arguments (the usage is
    printed) or for a command line argparse refuses; 1 for a checkpoint it refuses to load (one line naming
    it, no traceback), a budget it cannot share out, or a run without PyTorch installed (:data:`NO_TORCH`)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        print(usage_text(prog), end="", file=sys.stderr)
        return 2
    try:
        run(argv, root, prog)
    except UnsafeFileError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
    except ModuleNotFoundError as e:
        if e.name != "torch":
            raise
        print(f"{prog}: error: {NO_TORCH}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
