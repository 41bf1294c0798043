"""Train an agent on a Kozel game with PPO self-play (PyTorch, CPU), evaluating it against the bots.

    python examples/train.py --env dominoes_v0                     # the documented budget (agents/rl/configs.py)
    python examples/train.py --env queens_and_jacks_v0 --steps 500000 --out runs/qj
    python examples/train.py --env dominoes_v0 --resume            # continue runs/dominoes_v0 from last.pt
    python examples/train.py --env dominoes_v0 --ship              # then ship the better policy to agents/checkpoints

The documented recipe (agents/rl/configs.py, see agents/rl/BASELINES.md) first imitates the ``normal`` bot
(``bc_steps`` of its decisions), then runs PPO; ``--set bc_steps=0`` trains from scratch. Any PPOConfig
field can be changed with ``--set key=value``.

Shows a progress bar; every ``--eval-every`` iterations plays the current policy against the bots (random,
normal) on duplicate deals, as the arena does, and logs the match score. The run folder (``--out``, default
``runs/<env>``) receives ``config.json``, ``log.jsonl`` (one line per iteration), ``last.pt`` (everything
needed to resume: weights, optimizer, opponent pool, counters, random generators) and ``policy.npz`` +
``policy.json`` (the actor in the shipped format, loadable with ``agents.rl.load(env, path=...)``), ``best.npz``
+ ``best.json`` (the policy of the best periodic evaluation);
TensorBoard logs in ``tb/`` where ``tensorboard`` is installed, and ``learning_curve.png`` where matplotlib
is. The run is reproducible from its config and seed (with one torch thread, the default); ``--minutes``
stops it early by the clock, which is not.

``--ship`` chooses what ships (``agents.rl.evaluate.choose_policy``): the run's best periodic evaluation, its
final policy and the checkpoint shipped before each play ``--select-sets`` (1000) duplicate sets against
``normal`` on the held-out deals (arena seed 99); the highest match score is copied to
``agents/checkpoints/<env>.npz`` + ``.json`` (the one shipped before stays on a tie). ``choice.json`` in the
run folder keeps the scores.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from kozel_env.registry import ENVIRONMENTS  # noqa: E402


def _progress(total, desc, enabled):
    if not enabled:
        return None
    try:
        from tqdm import tqdm

        return tqdm(total=total, desc=desc, unit="dec", unit_scale=True, smoothing=0.1, file=sys.stderr)
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
        ax[0].errorbar(xs, ys, yerr=ci, label=f"vs {opp}", capsize=2)
    ax[0].set_xlabel("learner decisions")
    ax[0].set_ylabel("match score (duplicate deals)")
    ax[0].set_ylim(0, 1)
    ax[0].legend()
    ax[1].plot([h["steps"] for h in history], [h["vf"] for h in history])
    ax[1].set_xlabel("learner decisions")
    ax[1].set_ylabel("value loss")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def build_parser():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", required=True, choices=sorted(ENVIRONMENTS))
    ap.add_argument("--algo", default="ppo", choices=["ppo"])
    ap.add_argument("--steps", type=int, help="training budget: learner decisions (default: the game's config)")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--num-envs", type=int, help="matches played side by side")
    ap.add_argument("--rollout", type=int, help="decisions per match copy per iteration")
    ap.add_argument("--hidden", type=int, nargs="+", help="hidden layer sizes, e.g. 256 256")
    ap.add_argument("--no-central-critic", action="store_true", help="critic on the observation only")
    ap.add_argument("--bots", nargs="*", help="bot opponents in the pool, e.g. random=0.2 normal=0.8")
    ap.add_argument("--eval-every", type=int, help="iterations between evaluations (0: none)")
    ap.add_argument("--eval-deals", type=int, help="duplicate sets per evaluation")
    ap.add_argument("--eval-opponents", nargs="*", help="bots to evaluate against")
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                    help="any other PPOConfig field, e.g. lr=1e-3 minibatch=1024 selfplay=0.6")
    ap.add_argument("--out", help="run folder (default runs/<env>)")
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
    from agents.rl.evaluate import SELECT_SETS, choose_policy

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


def _parse_sets(items) -> dict:
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


def main(argv=None) -> dict:
    args = build_parser().parse_args(argv)
    from agents.rl.configs import config_for
    from agents.rl.ppo import PPOConfig, PPOTrainer

    run_dir = Path(args.out) if args.out else ROOT / "runs" / args.env
    run_dir.mkdir(parents=True, exist_ok=True)
    last = run_dir / "last.pt"
    if args.resume and not last.exists():
        print(f"--resume: no {last} yet, starting a new run", file=sys.stderr)
    if args.resume and last.exists():
        cfg = PPOConfig.from_json(json.loads((run_dir / "config.json").read_text()))
        if args.steps:
            cfg.total_steps = args.steps
    else:
        bots = None
        if args.bots is not None:
            bots = {}
            for b in args.bots:
                name, _, w = b.partition("=")
                bots[name] = float(w or 1.0)
        flags = dict(total_steps=args.steps, seed=args.seed, num_envs=args.num_envs, rollout_ticks=args.rollout,
                     hidden=tuple(args.hidden) if args.hidden else None,
                     central_critic=False if args.no_central_critic else None, bots=bots,
                     eval_every=args.eval_every, eval_seeds=args.eval_deals,
                     eval_opponents=tuple(args.eval_opponents) if args.eval_opponents is not None else None,
                     torch_threads=args.threads)
        for k, v in _parse_sets(args.set).items():
            if flags.get(k) is None:
                flags[k] = v
        cfg = config_for(args.env, **flags)
        if (run_dir / "log.jsonl").exists():
            (run_dir / "log.jsonl").unlink()
    (run_dir / "config.json").write_text(json.dumps(cfg.to_json(), indent=1) + "\n")
    tr = PPOTrainer(cfg, run_dir=run_dir)
    if args.resume and last.exists():
        tr.load(last)
        print(f"resumed {last} at iteration {tr.iteration}, {tr.steps} decisions", file=sys.stderr)
    tb = _tensorboard(run_dir)
    if cfg.bc_steps and tr.bc_done < cfg.bc_steps and tr.iteration == 0:
        print(f"warm start: imitating {cfg.bc_teacher} for {cfg.bc_steps} decisions", file=sys.stderr)

        def bc_log(s):
            if not args.quiet:
                print(f"  bc {s['bc_decisions']} decisions: loss {s['bc_loss']:.3f} accuracy {s['bc_accuracy']:.3f} "
                      f"({s['bc_seconds']:.0f}s)", file=sys.stderr)
        tr.behaviour_cloning(bc_log)
        tr.save(last)
    bar = _progress(cfg.total_steps, args.env, not args.no_progress)
    if bar is not None:
        bar.update(min(tr.steps, cfg.total_steps))
    t0 = time.time()
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
            line = " ".join(f"{o}: {e['score']:.3f}±{e['ci']:.3f} (margin {e['margin']:+.2f})"
                            for o, e in s["eval"].items())
            if not args.quiet:
                msg = f"[it {tr.iteration} {tr.steps} dec {time.time() - t0:.0f}s] eval {line}"
                if bar is not None and hasattr(bar, "write"):
                    bar.write(msg, file=sys.stderr)
                else:
                    print(msg, file=sys.stderr)
            if tb is not None:
                for o, e in s["eval"].items():
                    tb.add_scalar(f"eval/score_vs_{o}", e["score"], tr.steps)
        if tr.iteration % args.save_every == 0:
            tr.save(last)
        if args.minutes is not None and time.time() - t0 > 60 * args.minutes:
            print(f"\nstopping after {args.minutes} minutes (not the documented budget)", file=sys.stderr)
            break
    if bar is not None:
        bar.close()
    tr.save(last)
    png = learning_curve(tr.history, run_dir / "learning_curve.png", f"{args.env} PPO")
    if tb is not None:
        tb.close()
    out = {"run_dir": str(run_dir), "iteration": tr.iteration, "steps": tr.steps, "matches": tr.matches_done,
           "seconds": time.time() - t0, "policy": str(run_dir / "policy.npz"),
           "learning_curve": str(run_dir / "learning_curve.png") if png else None,
           "last_eval": next((h["eval"] for h in reversed(tr.history) if "eval" in h), None)}
    if args.ship:
        from agents.rl.policy import CHECKPOINT_DIR

        shipped = CHECKPOINT_DIR / f"{args.env}.npz"
        src = ship(args.env, run_dir, shipped, args.select_sets, quiet=args.quiet)
        out["shipped_from"] = str(src)
        out["shipped"] = str(shipped)
    print(json.dumps(out, indent=1))
    if not png:
        print("(matplotlib is not installed: no learning-curve PNG; the curve is in log.jsonl)", file=sys.stderr)
    return out


if __name__ == "__main__":
    main()
