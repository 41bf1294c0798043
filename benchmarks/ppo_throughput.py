"""End-to-end PPO throughput: learner decisions per second, scalar collector against the vector collector.

For every combination of ``--envs``, ``--selfplay``, ``--num-envs``, ``--central-critic`` and the collector
(``scalar``: :class:`agents.rl.rollout.Collector`; ``vector``: :class:`agents.rl.vector_rollout.VectorCollector`,
``PPOConfig.vector=True``) it trains from scratch with the game's documented config (``agents.rl.configs``)
and ``bc_steps=0``, ``bots={}``, no evaluations, one torch thread; the pool starts with one snapshot (the
initial actor), so with ``selfplay < 1`` the other matches are played against snapshots from the start. After
one warm-up iteration it runs iterations until ``--seconds`` of them are measured and prints, per run:

* ``collect/s``: learner decisions (those that enter an update) per CPU second of collection;
* ``e2e/s``: the same decisions per CPU second of collection + PPO update (the whole iteration), and
  ``e2e wall/s`` per wall second (lower where the machine is shared);
* ``collect`` / ``update``: the share of the iteration's CPU time in each.

CPU time (``time.process_time``) is the measure because it does not count other loads on a shared core;
with one torch thread and the NumPy threads at one, the process uses one core.

``--breakdown`` also times the parts of a vector collection (one run per env, ``--num-envs`` first value):
``venv.step`` (the batched engine), ``venv.state`` (the oracle, central critic), the learner's
``model.act`` + ``model.value``, the snapshots' ``act_batch``, and the rest (bookkeeping in the collector).

    taskset -c 1 nice python benchmarks/ppo_throughput.py --ticks 16            # the full table (about 20 min)
    taskset -c 1 nice python benchmarks/ppo_throughput.py --envs dominoes_v0 --num-envs 128 --seconds 10
    taskset -c 1 nice python benchmarks/ppo_throughput.py --breakdown --num-envs 1024 --seconds 20

``--ref PATH`` compares this checkout with another one (a reference, e.g. ``git worktree add /tmp/ref HEAD~3``):
every run is a fresh process, this tree's and the reference's alternating (AB, BA, AB, ...) ``--repeats`` times
with the same settings and seeds, and the table gets both rates and their ratio (``e2e/s`` over the
reference's, the median of the pairs, with the lowest and highest pair)::

    nice python benchmarks/ppo_throughput.py --ref /tmp/ref --envs dominoes_v0 --selfplay 1 --num-envs 128 \
        --central-critic 1 --collectors vector --seconds 15 --repeats 3

``--threads N`` runs this checkout's trainings with ``N`` torch threads (``kozel-train --threads N``) and
``--ref-threads`` the reference's; with more than one thread the rates and ratios are per wall second (CPU
time counts every thread). Measure that on otherwise idle cores: a thread that waits for a busy core makes
the run slower than one thread.

``--precision bfloat16`` runs this checkout's PPO updates with ``PPOConfig.precision="bfloat16"`` (the hidden
layers' matrix products in bfloat16; fast only on a CPU with bfloat16 instructions, AVX512_BF16 or AMX); the
reference's stay float32.
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT_VAR = "PPO_THROUGHPUT_ROOT"
"""The checkout whose ``agents`` a run imports (this one unless set: ``--ref`` sets it for its runs)."""
sys.path.insert(0, os.environ.get(ROOT_VAR) or str(Path(__file__).resolve().parent.parent))

from agents.rl.configs import config_for  # noqa: E402
from agents.rl.ppo import PPOTrainer  # noqa: E402


def trainer(env: str, num_envs: int, selfplay: float, central: bool, vector: bool, ticks=None,
            threads: int = 1, precision: str = "float32") -> PPOTrainer:
    cfg = config_for(env, num_envs=num_envs, selfplay=selfplay, central_critic=central, bc_steps=0, bots={},
                     eval_every=0, torch_threads=threads, value_warmup=0, rollout_ticks=ticks)
    cfg.vector = vector
    if precision != "float32":  # a reference checkout may predate the setting: only set where asked
        cfg.precision = precision
    tr = PPOTrainer(cfg)
    tr.pool.add(tr.model.actor)
    return tr


def measure(tr: PPOTrainer, seconds: float) -> dict:
    """One warm-up iteration, then iterations until ``seconds`` of CPU time: decisions and times summed.
    Rates are per CPU second of this process (``time.process_time``: a shared machine's other loads do not
    count), the end-to-end one also per wall second."""
    tr.train_iteration()
    times = {"collect": 0.0}
    _Timer(times, "collect", tr.collector, "collect")
    steps = cpu = wall = 0.0
    iterations = 0
    while cpu < seconds:
        s0, c0, w0 = tr.steps, time.process_time(), time.perf_counter()
        tr.train_iteration()
        steps += tr.steps - s0
        cpu += time.process_time() - c0
        wall += time.perf_counter() - w0
        iterations += 1
    collect = times["collect"]
    return {"iterations": iterations, "decisions": int(steps), "collect_per_s": steps / collect,
            "e2e_per_s": steps / cpu, "e2e_wall_per_s": steps / wall, "collect_share": collect / cpu,
            "update_share": 1.0 - collect / cpu}


class _Timer:
    """Wraps ``obj.name`` to add its CPU time (``time.process_time``) to ``totals[label]``."""

    def __init__(self, totals: dict, label: str, obj, name: str):
        fn = getattr(obj, name)
        totals.setdefault(label, 0.0)

        def timed(*a, **kw):
            t = time.process_time()
            try:
                return fn(*a, **kw)
            finally:
                totals[label] += time.process_time() - t

        setattr(obj, name, timed)


def breakdown(env: str, num_envs: int, selfplay: float, central: bool, seconds: float, ticks=None) -> dict:
    """Where a vector collection's time goes (see the module docstring), as shares of the collect time."""
    tr = trainer(env, num_envs, selfplay, central, vector=True, ticks=ticks)
    col = tr.collector
    totals: dict = {}
    _Timer(totals, "venv.step", col.venv, "step")
    _Timer(totals, "venv.state", col.venv, "state")
    _Timer(totals, "model.act", col.model, "act")
    _Timer(totals, "model.value", col.model, "value")
    for snap in tr.pool.snapshots:
        _Timer(totals, "snapshot act_batch", snap, "act_batch")
    col.collect()
    for k in totals:
        totals[k] = 0.0
    t = time.process_time()
    while time.process_time() - t < seconds:
        col.collect()
    total = time.process_time() - t
    out = {k: v / total for k, v in totals.items()}
    out["rest (collector)"] = 1.0 - sum(out.values())
    return out


def one_run(root: str, env: str, sp: float, ne: int, cc: int, kind: str, seconds: float, ticks,
            threads: int = 1, precision: str = "float32") -> dict:
    """:func:`measure` in a fresh process importing ``agents`` from the checkout ``root``."""
    cmd = [sys.executable, __file__, "--one", json.dumps([env, sp, ne, cc, kind, seconds, ticks, threads, precision])]
    out = subprocess.run(cmd, env={**os.environ, ROOT_VAR: root}, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def compare(args) -> None:
    """The ``--ref`` table: this checkout against the reference, alternating fresh processes."""
    here, ref = str(Path(__file__).resolve().parent.parent), str(Path(args.ref).resolve())
    threads = (args.threads, args.ref_threads)
    precisions = (args.precision, "float32")
    rate = "e2e_per_s" if threads == (1, 1) else "e2e_wall_per_s"  # more than one thread: per wall second
    unit = "e2e/s" if rate == "e2e_per_s" else "e2e wall/s"
    print(f"this checkout {here} ({threads[0]} torch thread(s), {args.precision} update) against the reference "
          f"{ref} ({threads[1]}): "
          f"{args.repeats} pairs per row, alternating\n"
          f"| env | selfplay | num_envs | central critic | collector | {unit} | reference {unit} | ratio (median) | "
          "ratio range | update share | reference update share |\n|---|---|---|---|---|---|---|---|---|---|---|",
          flush=True)
    for env, sp, ne, cc, kind in itertools.product(args.envs, args.selfplay, args.num_envs, args.central_critic,
                                                   args.collectors):
        new, old = [], []
        for rep in range(args.repeats):
            order = [(here, new, threads[0], precisions[0]), (ref, old, threads[1], precisions[1])]
            for root, into, th, pr in (order if rep % 2 == 0 else order[::-1]):
                into.append(one_run(root, env, sp, ne, cc, kind, args.seconds, args.ticks, th, pr))
        ratios = [a[rate] / b[rate] for a, b in zip(new, old)]
        med = [statistics.median(r[rate] for r in runs) for runs in (new, old)]
        share = [statistics.median(r["update_share"] for r in runs) for runs in (new, old)]
        print(f"| {env} | {sp} | {ne} | {bool(cc)} | {kind} | {med[0]:,.0f} | {med[1]:,.0f} | "
              f"{statistics.median(ratios):.2f}x | {min(ratios):.2f}-{max(ratios):.2f} | {share[0]:.0%} | "
              f"{share[1]:.0%} |", flush=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--envs", nargs="+", default=["dominoes_v0", "queens_and_jacks_v0"])
    ap.add_argument("--selfplay", nargs="+", type=float, default=[1.0, 0.5])
    ap.add_argument("--num-envs", nargs="+", type=int, default=[128, 1024])
    ap.add_argument("--central-critic", nargs="+", type=int, default=[1, 0], help="1: on, 0: off")
    ap.add_argument("--collectors", nargs="+", default=["scalar", "vector"], choices=["scalar", "vector"])
    ap.add_argument("--seconds", type=float, default=30.0, help="measured iterations per run, at least")
    ap.add_argument("--ticks", type=int, help="rollout_ticks (default: the documented 64); the update's cost "
                    "per decision does not depend on it, an iteration's length does")
    ap.add_argument("--breakdown", action="store_true", help="time the parts of a vector collection instead")
    ap.add_argument("--ref", help="another checkout to compare with (see the module doc)")
    ap.add_argument("--repeats", type=int, default=3, help="with --ref: runs of each tree per row")
    ap.add_argument("--threads", type=int, default=1, help="torch threads of this checkout's runs (more than one: "
                    "rates and ratios per wall second, the CPU seconds counting every thread)")
    ap.add_argument("--ref-threads", type=int, default=1, help="with --ref: torch threads of the reference's runs")
    ap.add_argument("--precision", choices=["float32", "bfloat16"], default="float32",
                    help="this checkout's PPO update (PPOConfig.precision); the reference's stays float32")
    ap.add_argument("--one", help=argparse.SUPPRESS)   # one run of --ref's, as JSON: its measure() on stdout
    args = ap.parse_args(argv)
    for flag, value in (("--threads", args.threads), ("--ref-threads", args.ref_threads)):
        if value < 1:
            ap.error(f"{flag}={value} is not allowed: a torch thread count of at least 1")
    if args.one:
        env, sp, ne, cc, kind, seconds, ticks, threads, precision = json.loads(args.one)
        tr = trainer(env, ne, sp, bool(cc), kind == "vector", ticks, threads, precision)
        print(json.dumps(measure(tr, seconds)))
        return
    if args.ref:
        compare(args)
        return
    if args.breakdown:
        for env, sp, cc in itertools.product(args.envs, args.selfplay, args.central_critic):
            parts = breakdown(env, args.num_envs[0], sp, bool(cc), args.seconds, args.ticks)
            print(f"{env} num_envs={args.num_envs[0]} selfplay={sp} central_critic={bool(cc)}: "
                  + ", ".join(f"{k} {v:.0%}" for k, v in parts.items()), flush=True)
        return
    print("| env | selfplay | num_envs | central critic | collector | collect/s | e2e/s | e2e wall/s | collect | "
          "update | iterations |\n|---|---|---|---|---|---|---|---|---|---|---|", flush=True)
    for env, sp, ne, cc, kind in itertools.product(args.envs, args.selfplay, args.num_envs, args.central_critic,
                                                   args.collectors):
        r = measure(trainer(env, ne, sp, bool(cc), kind == "vector", args.ticks, args.threads, args.precision),
                    args.seconds)
        print(f"| {env} | {sp} | {ne} | {bool(cc)} | {kind} | {r['collect_per_s']:,.0f} | {r['e2e_per_s']:,.0f} | "
              f"{r['e2e_wall_per_s']:,.0f} | {r['collect_share']:.0%} | {r['update_share']:.0%} | {r['iterations']} |",
              flush=True)


if __name__ == "__main__":
    main()
