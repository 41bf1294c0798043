"""Multi-agent PPO with RLlib (Ray's new API stack) on any Kozel game, then the arena against random.

    pip install -e ".[rllib]"
    python examples/integrations/rllib_ppo.py --env dominoes_v0 --opponents normal --steps 20000
    python examples/integrations/rllib_ppo.py --env queens_and_jacks_v0 --opponents self --policies per_side
    ray start --head --port=6379 --num-cpus=4                # a cluster; on other machines:
    ray start --address=<head>:6379                          # join it
    python examples/integrations/rllib_ppo.py --env dominoes_v0 --address <head>:6379 --num-env-runners 8

RLlib samples with ``--num-env-runners`` EnvRunner actors (0: in this process), each stepping
``--envs-per-runner`` env copies, and learns with ``--num-learners`` Learner actors (0: in this process). The
env glue is :mod:`kozel_env.integrations.rllib`: the AEC env with ``infos="flat"`` and
``illegal_action="lose"``, so RLlib's env checker runs and passes; the policy is RLlib's action-masking
RLModule (masked-out actions never get probability); ``--policies shared`` trains one module for every seat,
``per_side`` one per side; ``--opponents normal`` (any bot spec) plays the other side with our bots inside
the env, ``self`` puts the learner in every seat.

Each iteration prints the learner decisions so far, decisions per second and the losses. At the end the
trained policy (greedy, masked) plays ``--eval-deals`` duplicate sets against ``--eval-opponent`` (random)
in the arena (``agents.arena.evaluate``) and the score and points margin are printed with their 95% CIs.
``--json`` writes every figure; ``--checkpoint DIR`` saves the algorithm (``algo.save_to_path``).

With ``--address`` the script joins that running cluster; the code travels to its workers as the Ray job's
``py_modules``: the two packages ``kozel_env`` and ``agents`` (with the shipped checkpoints) and nothing else of
the repository (no ``.git``, ``.hypothesis``, ``.pytest_cache``, ``runs``, venvs, tests or docs), caches
excluded (``ship_runtime_env``); ``--no-ship-code`` when every node has kozel_env installed.
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("RAY_DEDUP_LOGS", "0")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agents.arena import describe_pair, parse_options  # noqa: E402
from kozel_env.registry import ENVIRONMENTS  # noqa: E402

ENV_KEYS = ("episode", "reward")
SHIPPED = ("kozel_env", "agents")
"""What the cluster's workers import: these two package folders are the job's py_modules (no working_dir)."""
SHIP_EXCLUDES = ["__pycache__/", "*.pyc", ".hypothesis/", ".pytest_cache/", ".ruff_cache/", ".mypy_cache/",
                 ".git/", "runs/", "*.egg-info/"]
"""Left out of the shipped packages, whatever .gitignore says (Ray reads it, unless
RAY_RUNTIME_ENV_IGNORE_GITIGNORE=1, and applies no default excludes to py_modules)."""


def ship_runtime_env(root: Path = ROOT) -> dict:
    """The Ray job's runtime_env with ``--address``: the package folders of ``root`` as py_modules, caches
    excluded."""
    return {"py_modules": [str(root / name) for name in SHIPPED], "excludes": list(SHIP_EXCLUDES)}


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", default="dominoes_v0", choices=sorted(ENVIRONMENTS))
    ap.add_argument("--opt", nargs="*", default=[], metavar="KEY=VALUE", help="rules options of the game")
    ap.add_argument("--episode", choices=("deal", "match"), default="deal", help="one deal or the whole match")
    ap.add_argument("--reward", choices=("outcome", "points"), default="outcome")
    ap.add_argument("--opponents", default="self",
                    help="'self' (self-play: the learner in every seat) or a bot spec for the other side: "
                         "normal, random ...")
    ap.add_argument("--policies", choices=("shared", "per_side"), default="shared")
    ap.add_argument("--steps", type=int, default=20_000, help="training budget: learner decisions")
    ap.add_argument("--iterations", type=int, default=None, help="stop after this many iterations instead")
    ap.add_argument("--train-batch", type=int, default=4096, help="learner decisions per iteration")
    ap.add_argument("--minibatch", type=int, default=1024)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--entropy", type=float, default=0.01)
    ap.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    ap.add_argument("--num-env-runners", type=int, default=0, help="EnvRunner actors (0: sample in this process)")
    ap.add_argument("--envs-per-runner", type=int, default=1, help="env copies each EnvRunner steps together")
    ap.add_argument("--num-learners", type=int, default=0, help="Learner actors (0: learn in this process)")
    ap.add_argument("--address", default=None,
                    help="a running Ray cluster, e.g. 127.0.0.1:6379 (default: start one here)")
    ap.add_argument("--num-cpus", type=int, default=None, help="CPUs of the Ray instance started here")
    ap.add_argument("--no-ship-code", action="store_true",
                    help="with --address: do not send kozel_env and agents to the workers")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--eval-deals", type=int, default=200,
                    help="duplicate sets against --eval-opponent (0: no evaluation)")
    ap.add_argument("--eval-opponent", default="random")
    ap.add_argument("--checkpoint", help="save the trained algorithm here")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--quiet", action="store_true")
    return ap


def main(argv=None) -> dict:
    args = build_parser().parse_args(argv)
    rules = parse_options(args.opt)
    env_options = {**rules, "episode": args.episode, "reward": args.reward}
    log = (lambda *a: None) if args.quiet else (lambda *a: print(*a, flush=True))

    t_start = time.perf_counter()
    if not args.address:  # a one-machine run: Ray's node address is 127.0.0.1 and nothing listens elsewhere
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    import ray

    from agents.integrations import rllib as trained
    from kozel_env.integrations import rllib as glue

    init = {"include_dashboard": False, "log_to_driver": not args.quiet}
    if args.address:
        init["address"] = args.address
        if not args.no_ship_code:
            init["runtime_env"] = ship_runtime_env()
    else:  # a new Ray instance here, whatever `ray start` left on this machine
        init.update(address="local", num_cpus=args.num_cpus)
    ray.init(**init)
    t_ray = time.perf_counter()
    cfg = glue.ppo_config(
        args.env, env_options, opponents=args.opponents, policies=args.policies,
        num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.envs_per_runner,
        num_learners=args.num_learners, train_batch=args.train_batch, minibatch=args.minibatch,
        epochs=args.epochs, lr=args.lr, entropy=args.entropy, hidden=tuple(args.hidden), seed=args.seed)
    algo = cfg.build_algo()
    t_built = time.perf_counter()
    mapping = glue.module_ids(args.env, env_options, args.policies)
    ids = sorted(set(mapping.values()))
    log(f"{args.env}: ray {ray.__version__} up in {t_ray - t_start:.1f}s, algorithm built in {t_built - t_ray:.1f}s; "
        f"modules {ids}, opponents {args.opponents}, {args.num_env_runners} env runners x {args.envs_per_runner} envs, "
        f"{args.num_learners} learners, cluster CPUs {ray.cluster_resources().get('CPU')}")

    history = []
    decisions = 0
    t_train = time.perf_counter()
    while (decisions < args.steps) if args.iterations is None else (len(history) < args.iterations):
        res = algo.train()
        decisions = glue.decisions_sampled(res)
        stats = glue.learner_stats(res)
        el = time.perf_counter() - t_train
        er = res.get("env_runners") or {}
        row = {"iteration": len(history) + 1, "decisions": decisions, "seconds": el,
               "decisions_per_s": decisions / el, "losses": stats,
               "episode_return_mean": er.get("episode_return_mean"), "episodes": er.get("num_episodes_lifetime")}
        history.append(row)
        loss = " ".join(f"{m}: pi {s.get('policy_loss', float('nan')):+.3f} vf {s.get('vf_loss', float('nan')):.3f} "
                        f"ent {s.get('entropy', float('nan')):.2f}" for m, s in stats.items())
        log(f"  it {row['iteration']:3d}  {decisions:7d} decisions  {el:6.1f}s  "
            f"{row['decisions_per_s']:6.0f}/s  {loss}")
    t_done = time.perf_counter()
    out = {
        "env": args.env, "env_options": env_options, "opponents": args.opponents, "policies": args.policies,
        "ray": ray.__version__, "address": args.address, "num_env_runners": args.num_env_runners,
        "envs_per_runner": args.envs_per_runner, "num_learners": args.num_learners,
        "train_batch": args.train_batch, "decisions": decisions, "iterations": len(history),
        "ray_start_s": t_ray - t_start, "build_s": t_built - t_ray, "train_s": t_done - t_train,
        "decisions_per_s": decisions / max(t_done - t_train, 1e-9),
        "decisions_per_s_incl_startup": decisions / max(t_done - t_start, 1e-9),
        "finite_losses": all(glue.finite(h["losses"]) for h in history) and bool(history),
        "history": history,
    }
    log(f"{decisions} learner decisions in {t_done - t_train:.1f}s of training: {out['decisions_per_s']:.0f}/s "
        f"({out['decisions_per_s_incl_startup']:.0f}/s counting Ray start-up and the build, {t_done - t_start:.1f}s)")
    if args.checkpoint:
        path = algo.save_to_path(str(Path(args.checkpoint).resolve()))
        out["checkpoint"] = str(path)
        log(f"checkpoint: {path}")

    if args.eval_deals > 0:
        from agents.arena import evaluate

        modules = trained.modules_from_algo(algo, ids)
        factory = trained.arena_factory(modules, mapping)
        t0 = time.perf_counter()
        res = evaluate(args.env, {"rllib": factory, args.eval_opponent: args.eval_opponent}, deals=args.eval_deals,
                       seed=12345, env_options=rules, episode=args.episode, processes=1, progress=False)
        pair = res["pairs"][0]
        out["eval"] = {"opponent": args.eval_opponent, "sets": pair["sets"], "games": pair["games"],
                       "score": pair["score_a"], "margin": pair["margin"], "seconds": time.perf_counter() - t0}
        games = "deals" if args.episode == "deal" else "matches"
        print(f"arena, {args.env}, {pair['sets']} duplicate sets ({pair['games']} {games}): rllib vs "
              f"{args.eval_opponent}: {describe_pair(pair)} "
              f"(95% CI)", flush=True)
    algo.stop()
    ray.shutdown()
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1, default=float) + "\n")
    return out


if __name__ == "__main__":
    main()
