"""Throughput of every registered environment (the project's benchmark; speed is measured here, not in tests).

For each environment it prints:
* full AEC path: decisions/s through ``agent_iter`` / ``last()`` / ``step()``, the observation and mask read
  every decision, a uniformly random legal player;
* raw engine: decisions/s of ``legal_actions()`` + ``apply_action()`` on the engine state, random play;
* games/s: whole matches per second on the full AEC path;
* clone: microseconds per ``State.clone()`` on positions from random play;
* sample: microseconds per ``game.sample_consistent(state, seat, rng)`` (one imagined deal for the seat to
  move, what the search bots draw at every decision) on the same positions;

and, for the envs with a batched engine (``kozel_env.vector``), at batch sizes 1, 64, 1024 and 4096:

* batched decisions/s of ``venv.step`` (one decision in every game; the observations and masks of the next
  decisions built, the actions checked, rewards and auto-reset), timed alone, and with the random legal
  player (``venv.sample_actions``) included: the best window of 40 steps or more; the state bytes
  per game;
* ``--split``: where the time of a step goes at the largest batch size (engine apply, observation, mask,
  the vector env's own bookkeeping, the random player);
* ``--workers 1,2,...``: the same batch (the largest batch size) stepped in that many processes
  (``vector.make(..., workers=k)``): decisions/s of ``venv.step`` by wall time (the best window), its ratio to
  ``workers=1`` (one process, measured in the same run, the runs interleaved), and what the busiest process
  spends per step in CPU time (with the figure it would give if every process had a core of its own);
  ``--workers all`` is 1 up to ``os.cpu_count()`` (``benchmarks/scaling_16.sh`` runs it on a 16-core machine);
  first, in the same run, the machine's own ceiling (:func:`ceiling`): the same counts of processes running
  work that shares nothing (a loop on integers, and a 32 MB memory copy), units/s over one process's, what
  the cores themselves give before any game runs; and per game and count ``k`` above 1, the bound of sharding
  (:func:`shards_apart`): ``k`` separate processes, each stepping its own ``B / k`` games with no worker
  machinery between them, started together, and its ratio to one such process stepping all ``B`` (the two
  alternating): what ``workers=k`` would give if sharding cost nothing; ``--per-worker``: also ``k`` processes
  stepping ``k * B`` games (``B`` a process, as a user with ``k`` cores runs ``k`` times the games), its ratio to
  ``workers=1`` stepping ``B``, and its bound without the machinery (``k apart, B each``: ``k`` separate
  processes of ``B`` games each against one of ``B``);
* ``--async`` (with ``--workers``): ``vector.make_async`` against the lockstep env, one process and the bound
  of separate processes, the caller's player (``--player``: random moves or an MLP) included
  (``benchmarks/async_scaling.py``);
* ``--write-docs``: the batched tables of this run into ``docs/guides/speed.md`` (between its markers);
* ``--floor``: PettingZoo's own floor on the same machine: an env that does no game work (a fixed
  observation and mask, 28 decisions per episode) wrapped in PettingZoo classic's standard wrappers
  (TerminateIllegal, AssertOutOfBounds, OrderEnforcing), driven by the same AEC loop.

Pin it to one core and compare figures measured in the same run (the machine's speed varies):

    taskset -c 1 python benchmarks/throughput.py [--seconds 2] [--env dominoes_v0 ...] [--batched] [--split] [--floor]
    python benchmarks/throughput.py --skip-aec --workers 1,2 --batch-sizes 4096    # no taskset: k cores
"""
from __future__ import annotations

import argparse
import os
import random
import re
import time
from pathlib import Path

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from kozel_env.core.rng import Rng
from kozel_env.registry import ENVIRONMENTS, load


def full_path(name: str, seconds: float) -> tuple:
    return aec_loop(load(name).env(), seconds)


def aec_loop(env, seconds: float) -> tuple:
    """(decisions/s, episodes/s) of a uniformly random legal player through ``agent_iter`` / ``last()`` /
    ``step()`` for ``seconds`` of wall time (episode ``k`` reset with ``seed=k``)."""
    rnd = random.Random(0)
    decisions = games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        env.reset(seed=games)
        for _agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[int(rnd.random() * len(legal))]))
            decisions += 1
        games += 1
    dt = time.perf_counter() - t0
    return decisions / dt, games / dt


def raw_engine(name: str, seconds: float) -> tuple:
    env = load(name).env()
    game = env.unwrapped.game
    rnd = random.Random(0)
    decisions = 0
    seed = 0
    clone_states = []
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        st = game.new_state(seed)
        seed += 1
        while not st.terminal:
            legal = st.legal_actions()
            st.apply_action(legal[int(rnd.random() * len(legal))])
            decisions += 1
            if len(clone_states) < 200 and rnd.random() < 0.05 and not st.terminal:
                clone_states.append(st.clone())  # a copy: the game played on would leave only its end
    dt = time.perf_counter() - t0
    reps = 50
    t1 = time.perf_counter()
    for _ in range(reps):
        for s in clone_states:
            s.clone()
    clone_us = (time.perf_counter() - t1) / (reps * max(1, len(clone_states))) * 1e6
    rng = Rng(1)
    reps = 5
    t1 = time.perf_counter()
    for _ in range(reps):
        for s in clone_states:
            game.sample_consistent(s, s.current_player, rng)
    sample_us = (time.perf_counter() - t1) / (reps * max(1, len(clone_states))) * 1e6
    return decisions / dt, clone_us, sample_us


BATCH_SIZES = (1, 64, 1024, 4096)


def batched(name: str, num_envs: int, seconds: float) -> tuple:
    """(decisions/s of ``venv.step`` alone, decisions/s with the random player, state bytes per game):
    process CPU time in windows of at least 40 steps and 40,000 decisions (fewer, but 10 steps or more, when
    that would not give five windows in ``seconds``), the best window of those that fit in ``seconds`` (on a
    shared machine the best window is the one least disturbed), after 200 warm-up steps (games that start
    together deal together; the warm-up spreads the deals' ends over the steps)."""
    import numpy as np

    from kozel_env import vector

    venv = vector.make(name, num_envs, seed=0)
    gen = np.random.default_rng(0)
    venv.reset()
    t0 = time.process_time()
    for _ in range(200):
        venv.step(venv.sample_actions(gen))
    per_step = (time.process_time() - t0) / 200
    per_window = max(10, min(max(40, 40_000 // num_envs), int(seconds / 5 / per_step)))
    best_step = best_total = float("inf")
    clock = time.process_time
    t_end = clock() + seconds
    while clock() < t_end or best_total == float("inf"):
        in_step = 0.0
        t0 = clock()
        for _ in range(per_window):
            a = venv.sample_actions(gen)
            t1 = clock()
            venv.step(a)
            in_step += clock() - t1
        best_total = min(best_total, clock() - t0)
        best_step = min(best_step, in_step)
    n = per_window * num_envs
    return n / best_step, n / best_total, venv.engine.state_nbytes()  # workers=1: the in-process env


def split(name: str, num_envs: int, steps: int = 60) -> dict:
    """Microseconds per step in each part of ``VectorEnv.step`` (the same calls, timed one by one)."""
    import numpy as np

    from kozel_env import vector

    venv = vector.make(name, num_envs, seed=0)
    eng = venv.engine
    gen = np.random.default_rng(0)
    venv.reset()
    parts = dict.fromkeys(("random player", "check", "engine apply (deal ends, new deals included)",
                           "rewards, deals, auto-reset", "legal mask", "observation"), 0.0)
    clock = time.process_time
    for _ in range(steps):
        t = [clock()]
        a = venv.sample_actions(gen)
        t.append(clock())
        a = venv._check(a)
        t.append(clock())
        eng.apply(a)
        t.append(clock())
        venv._collect(vector.env._Step(num_envs, venv.num_players))
        t.append(clock())
        eng.legal_mask()
        t.append(clock())
        eng.observe()
        t.append(clock())
        for key, t0, t1 in zip(parts, t, t[1:]):
            parts[key] += (t1 - t0) / steps * 1e6
    return parts


class _NullEnv(AECEnv):
    """No game at all: a fixed observation and mask, 28 decisions per episode (PettingZoo's floor)."""

    metadata = {"name": "null_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self):
        super().__init__()
        self.possible_agents = [f"player_{i}" for i in range(4)]
        obs = spaces.Box(0.0, 1.0, (207,), np.float32)
        self.observation_spaces = {a: spaces.Dict({"observation": obs, "action_mask": spaces.Box(0, 1, (77,), np.int8)})
                                   for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(77) for a in self.possible_agents}
        self._obs = {"observation": np.zeros(207, np.float32), "action_mask": np.ones(77, np.int8)}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        return self._obs

    def reset(self, seed=None, options=None):
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self._moves = 0

    def step(self, action):
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[self.agent_selection] = 0
        self._moves += 1
        if self._moves >= 28:
            self.terminations = {a: True for a in self.agents}
        self.agent_selection = self.agents[self._moves % 4]


def pettingzoo_floor(seconds: float) -> float:
    """Decisions/s of :class:`_NullEnv` in PettingZoo classic's wrapper stack, through the same loop as the
    AEC path (:func:`aec_loop`)."""
    from pettingzoo.utils import wrappers

    env = wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(
        wrappers.TerminateIllegalWrapper(_NullEnv(), illegal_reward=-1)))
    return aec_loop(env, seconds)[0]


def main(argv=None) -> list:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    ap.add_argument("--env", nargs="*", default=list(ENVIRONMENTS))
    ap.add_argument("--batched", action="store_true", help="also the batched engines (kozel_env.vector)")
    ap.add_argument("--batch-sizes", type=int, nargs="*", default=list(BATCH_SIZES))
    ap.add_argument("--split", action="store_true", help="where a batched step's time goes (largest batch)")
    ap.add_argument("--floor", action="store_true", help="also PettingZoo's floor (no game, its wrappers)")
    ap.add_argument("--skip-aec", action="store_true", help="only the batched figures (and the floor)")
    ap.add_argument("--workers", type=worker_counts, default=None,
                    help="worker-scaling table: comma-separated process counts, or 'all' (1..os.cpu_count())")
    ap.add_argument("--no-copy", action="store_true",
                    help="with --workers: also each count above 1 with copy=False (the observations and masks "
                         "are views of the workers' shared block: no copy in the caller's process)")
    ap.add_argument("--per-worker", action="store_true",
                    help="with --workers: also each count k above 1 stepping k times the batch (the batch size "
                         "games a process, as a user with k cores runs k times the games), its ratio to workers=1")
    ap.add_argument("--async", dest="async_", action="store_true",
                    help="with --workers: also vector.make_async against the lockstep env and the bound, the "
                         "caller's player (--player) included (benchmarks/async_scaling.py)")
    ap.add_argument("--player", choices=["random", "mlp"], default="random", help="--async's player (see there)")
    ap.add_argument("--write-docs", action="store_true", help="write the batched tables into docs/guides/speed.md")
    args = ap.parse_args(argv)
    rows = []
    if args.floor:
        floor = pettingzoo_floor(args.seconds)
        rows.append({"env": "pettingzoo_floor", "aec_decisions_per_s": floor})
        print(f"PettingZoo floor (no game, classic wrappers): {floor:,.0f} decisions/s", flush=True)
    if not args.skip_aec:
        rows += aec_table(args)
    if args.batched or args.split:
        rows += batched_table(args)
    if args.workers:
        rows += workers_table(args)
    if args.workers and args.async_:
        rows += _sibling("async_scaling").async_table(args.env, max(args.batch_sizes), args.workers, args.seconds,
                                                      args.player)
    if args.write_docs:
        write_docs(rows, args)
    return rows


def aec_table(args) -> list:
    rows = []
    print(f"{'environment':<24}{'AEC decisions/s':>17}{'engine decisions/s':>20}{'games/s':>10}{'clone us':>10}"
          f"{'sample us':>11}")
    for name in args.env:
        aec, games = full_path(name, args.seconds)
        raw, clone_us, sample_us = raw_engine(name, args.seconds)
        rows.append({"env": name, "aec_decisions_per_s": aec, "engine_decisions_per_s": raw,
                     "games_per_s": games, "clone_us": clone_us, "sample_us": sample_us})
        print(f"{name:<24}{aec:>17,.0f}{raw:>20,.0f}{games:>10,.1f}{clone_us:>10.2f}{sample_us:>11.1f}", flush=True)
    return rows


def batched_table(args) -> list:
    from kozel_env import vector

    rows = []
    names = [n for n in args.env if n in vector.BATCHED]
    print(f"\n{'batched env':<24}{'B':>6}{'step decisions/s':>18}{'with random player':>20}{'bytes/game':>12}")
    for name in names:
        for b in args.batch_sizes:
            step_rate, total_rate, nbytes = batched(name, b, args.seconds)
            rows.append({"env": name, "batch": b, "batched_step_decisions_per_s": step_rate,
                         "batched_decisions_per_s": total_rate, "state_bytes_per_game": nbytes})
            print(f"{name:<24}{b:>6}{step_rate:>18,.0f}{total_rate:>20,.0f}{nbytes:>12}", flush=True)
        if args.split:
            b = max(args.batch_sizes)
            parts = split(name, b)
            total = sum(parts.values())
            print(f"  where a step's {total:,.0f} us go at B = {b}: " + ", ".join(
                f"{k} {v:,.0f} us ({v / total:.0%})" for k, v in parts.items()), flush=True)
            rows.append({"env": name, "batch": b, "split_us": parts})
    return rows


def worker_counts(text: str) -> list:
    """``--workers``: "1,2,4" or "all" (1 up to os.cpu_count())."""
    if text == "all":
        return list(range(1, (os.cpu_count() or 1) + 1))
    try:
        counts = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--workers {text!r}: comma-separated ints (1,2,4) or 'all'") from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"--workers {text!r}: every count at least 1")
    return counts


def _cpu_seconds(pids) -> np.ndarray:
    """CPU seconds (user + system) of each process of ``pids`` so far, from /proc (0 where it is missing)."""
    out = np.zeros(len(pids))
    for i, pid in enumerate(pids):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[i] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def workers_scaling(name: str, num_envs: int, counts: list, seconds: float, rounds: int = 3) -> dict:
    """Per process count ``k`` (or a key of :func:`_config`: ``(k, False)`` for ``copy=False``, ``("each", k)`` for
    ``k * num_envs`` games): (decisions/s of ``venv.step`` by wall time, the best window of 40 steps and
    40,000 decisions or more (fewer, but 10 steps or more, when three would not fit in a round); CPU seconds
    per step of the busiest process). The envs of every ``k`` live side by side and are
    measured in turn, ``rounds`` times (so a slow spell of the machine hits every ``k``)."""
    from kozel_env import vector

    configs = {k: _config(k, num_envs) for k in counts}
    envs = {k: vector.make(name, n, seed=0, workers=w, copy=c) for k, (w, c, n) in configs.items()}
    try:
        gens = {k: np.random.default_rng(0) for k in counts}
        per_step = {}
        for k, venv in envs.items():
            venv.reset()
            t0 = time.perf_counter()
            for _ in range(20):
                venv.step(venv.sample_actions(gens[k]))
            per_step[k] = (time.perf_counter() - t0) / 20
        per_window = max(10, min(max(40, 40_000 // num_envs), int(seconds / rounds / 3 / max(per_step.values()))))
        best = dict.fromkeys(counts, float("inf"))
        cpu = dict.fromkeys(counts, 0.0)
        steps = dict.fromkeys(counts, 0)
        for _ in range(rounds):
            for k, venv in envs.items():
                pids = getattr(venv, "worker_pids", ())
                mine, w0 = 0.0, _cpu_seconds(pids)
                t_end = time.perf_counter() + seconds / rounds
                while time.perf_counter() < t_end or steps[k] == 0:
                    wall = 0.0
                    for _ in range(per_window):
                        a = venv.sample_actions(gens[k])
                        t0, c0 = time.perf_counter(), time.process_time()
                        venv.step(a)
                        wall += time.perf_counter() - t0
                        mine += time.process_time() - c0  # this process: its step only, not the player
                    best[k] = min(best[k], wall)
                    steps[k] += per_window
                cpu[k] += max([mine, *(_cpu_seconds(pids) - w0)])
        return {k: (per_window * configs[k][2] / best[k], cpu[k] / steps[k]) for k in counts}
    finally:
        for venv in envs.values():
            venv.close()


def _config(key, num_envs: int) -> tuple:
    """(workers, copy, games) of a ``--workers`` table key: ``k`` (``num_envs`` games in ``k`` processes),
    ``(k, False)`` (the same with ``copy=False``) or ``("each", k)`` (``k * num_envs`` games: ``num_envs`` a
    process)."""
    if isinstance(key, tuple) and key[0] == "each":
        return key[1], True, key[1] * num_envs
    if isinstance(key, tuple):
        return key[0], key[1], num_envs
    return key, True, num_envs


def _label(key, num_envs: int) -> str:
    if isinstance(key, tuple) and key[0] == "each":
        return f"{key[1]}, {num_envs} each"
    return f"{key[0]}, no copy" if isinstance(key, tuple) else str(key)


CEILING_WORK = {
    "compute": "x = 0\nfor i in range(100_000):\n    x += i * i & 7",  # integers in registers: no memory traffic
    "memory stream": "np.copyto(b, a)",  # 32 MB read and 32 MB written
}
"""The machine's own scaling (``--workers``): a unit of work that does no game work, for :func:`ceiling`."""

_CEILING_CHILD = """import sys, time
import numpy as np
a = np.ones(4_000_000); b = np.empty_like(a)
start, seconds, work = float(sys.argv[1]), float(sys.argv[2]), compile(sys.argv[3], "unit", "exec")
while time.time() < start:
    time.sleep(0.001)
units, t_end = 0, time.perf_counter() + seconds
while time.perf_counter() < t_end:
    exec(work)
    units += 1
print(units)
"""


def ceiling(counts: list, seconds: float, rounds: int = 3) -> dict:
    """The scaling this machine gives work that shares nothing, per kind of :data:`CEILING_WORK` and process
    count ``k``: ``k`` processes run the same unit in a loop at once (released together after start-up) for
    ``seconds / rounds``; units done per second over one process's, the median of ``rounds`` interleaved
    rounds. The ceiling the worker scaling is read against (the cores' shared caches, memory bandwidth and
    clock)."""
    import statistics
    import subprocess
    import sys

    ratios: dict = {}
    for kind, work in CEILING_WORK.items():
        done = {k: [] for k in counts}
        for _ in range(rounds):
            for k in counts:
                start = time.time() + 0.5 + 0.05 * k  # every child has imported numpy by then
                procs = [subprocess.Popen([sys.executable, "-c", _CEILING_CHILD, repr(start), repr(seconds / rounds),
                                           work], stdout=subprocess.PIPE, text=True) for _ in range(k)]
                done[k].append(sum(int(p.communicate()[0]) for p in procs))
        base = max(statistics.median(done[counts[0]]), 1)
        ratios[kind] = {k: statistics.median(done[k]) / base for k in counts}
    return ratios


_SHARD_CHILD = """import sys, time
import numpy as np
from kozel_env import vector
name, n, seed, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
venv, gen = vector.make(name, n, seed=seed), np.random.default_rng(seed)
venv.reset()
for _ in range(20):
    venv.step(venv.sample_actions(gen))
print("ready", flush=True)
sys.stdin.readline()
best, t_end = float("inf"), time.perf_counter() + seconds
while time.perf_counter() < t_end or best == float("inf"):
    wall = 0.0
    for _ in range(20):
        a = venv.sample_actions(gen)
        t0 = time.perf_counter()
        venv.step(a)
        wall += time.perf_counter() - t0
    best = min(best, wall / 20)
print(best)
"""


def _shards_at_once(name: str, num_envs: int, k: int, seconds: float) -> float:
    """``k`` processes, each a one-process vector env of its own shard (the sizes ``vector.make`` gives the
    shards), released together once all are warm, each timing ``venv.step`` alone for ``seconds`` (its best
    window of 20 steps); decisions/s of the whole batch when the slowest shard sets the pace."""
    import subprocess
    import sys

    from kozel_env.vector.workers import shard_bounds

    bounds = shard_bounds(num_envs, k)
    procs = [subprocess.Popen([sys.executable, "-c", _SHARD_CHILD, name, str(bounds[i + 1] - bounds[i]), str(i),
                               repr(seconds)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for i in range(k)]
    return num_envs / max(_sibling("async_scaling").released_together(procs, f"a shard process of {name}"))


def shards_apart(name: str, num_envs: int, k: int, seconds: float, rounds: int = 3, each: bool = False) -> tuple:
    """The bound of ``workers=k`` without its machinery: (decisions/s of ``k`` separate processes stepping the
    ``k`` shards at once, decisions/s of one such process stepping the whole batch), each the best of
    ``rounds`` runs of ``seconds / rounds``, the two alternating (so a slow spell of the machine hits both).
    Their ratio under ``k`` is what the engine itself (its fixed cost per step, paid per shard) and the shared
    caches and memory leave to any sharding, before the workers' own costs. ``each``: the bound of
    ``--per-worker`` instead, ``k`` processes of ``num_envs`` games each against one of ``num_envs``: what the
    cores, caches and memory of the machine leave to ``k`` processes with no fixed cost shared out."""
    apart, alone = [], []
    for _ in range(rounds):
        alone.append(_shards_at_once(name, num_envs, 1, seconds / rounds))
        apart.append(_shards_at_once(name, num_envs * k if each else num_envs, k, seconds / rounds))
    return max(apart), max(alone)


def workers_table(args) -> list:
    from kozel_env import vector

    b = max(args.batch_sizes)
    rows = []
    counts = list(args.workers) + ([(k, False) for k in args.workers if k > 1] if args.no_copy else []) + (
        [("each", k) for k in args.workers if k > 1] if args.per_worker else [])
    machine = ceiling(list(args.workers), args.seconds)
    print("\nthis machine's own scaling (no game work, k processes at once; units/s over one process's):")
    for kind, ratios in machine.items():
        print(f"  {kind:<14}" + "".join(f"  workers={k}: {r:.2f}x" for k, r in ratios.items()), flush=True)
        rows += [{"env": f"machine ceiling: {kind}", "batch": b, "workers": str(k), "ratio_to_first": r}
                 for k, r in ratios.items()]
    print(f"\n{'batched env':<24}{'B':>6}{'workers':>17}{'step decisions/s':>18}{'/ workers=1':>12}"
          f"{'busiest ms/step':>16}{'own-core decisions/s':>22}   (os.cpu_count() = {os.cpu_count()})")
    for name in [n for n in args.env if n in vector.BATCHED]:
        scaling = workers_scaling(name, b, counts, args.seconds)
        base = scaling[counts[0]][0]
        for k, (rate, cpu) in scaling.items():
            own = _config(k, b)[2] / cpu if cpu else float("nan")
            label = _label(k, b)
            rows.append({"env": name, "batch": b, "workers": label, "games": _config(k, b)[2],
                         "batched_step_decisions_per_s": rate,
                         "ratio_to_first": rate / base, "busiest_cpu_s_per_step": cpu, "own_core_decisions_per_s": own})
            print(f"{name:<24}{b:>6}{label:>17}{rate:>18,.0f}{rate / base:>12.2f}{cpu * 1e3:>16.2f}{own:>22,.0f}",
                  flush=True)
        for each in (False, True) if args.per_worker else (False,):  # sharding B; (--per-worker) B a process
            for k in [k for k in args.workers if k > 1]:
                rate, alone = shards_apart(name, b, k, args.seconds, each=each)  # its ratio: to one process of b
                label = f"{k} apart, {b} each" if each else f"{k}, shards apart"
                rows.append({"env": name, "batch": b, "workers": label, **({"games": k * b} if each else {}),
                             "batched_step_decisions_per_s": rate, "ratio_to_first": rate / alone,
                             "own_core_decisions_per_s": rate})
                print(f"{name:<24}{b:>6} {label if each else f'{k} apart':>16}{rate:>18,.0f}{rate / alone:>12.2f}"
                      f"{'':>16}{rate:>22,.0f}   (one process of {b}: {alone:,.0f})", flush=True)
    return rows


DOCS = Path(__file__).resolve().parents[1] / "docs" / "guides" / "speed.md"
MARKER = "GENERATED BATCHED SPEED (python benchmarks/throughput.py --batched --workers 1,2 --write-docs)"


def speed_markdown(rows: list) -> str:
    """The docs' batched tables from a run's rows: decisions/s per batch size, and per process count."""
    aec = {r["env"]: r["aec_decisions_per_s"] for r in rows if "aec_decisions_per_s" in r}
    batch = [r for r in rows if "batched_decisions_per_s" in r]
    sizes = sorted({r["batch"] for r in batch})
    out = []
    if batch:
        big = max(sizes)
        out += ["| environment | AEC path | " + " | ".join(f"B = {b}" for b in sizes) + f" | B = {big} with player"
                " | state bytes/game |", "|---|" + "---:|" * (len(sizes) + 3)]
        for name in dict.fromkeys(r["env"] for r in batch):
            mine = {r["batch"]: r for r in batch if r["env"] == name}
            cells = [f"{aec[name]:,.0f}" if name in aec else "",
                     *(f"{mine[b]['batched_step_decisions_per_s']:,.0f}" for b in sizes),
                     f"{mine[big]['batched_decisions_per_s']:,.0f}", str(mine[big]["state_bytes_per_game"])]
            out.append(f"| {name} | " + " | ".join(cells) + " |")
        if "pettingzoo_floor" in aec:
            out.append(f"| PettingZoo floor | {aec['pettingzoo_floor']:,.0f} |" + " |" * (len(sizes) + 2))
    scaling = [r for r in rows if "workers" in r and "way" not in r]
    if scaling:
        counts = list(dict.fromkeys(r["workers"] for r in scaling))
        out += ["", f"| environment (B = {scaling[0]['batch']}) | " + " | ".join(
            f"workers = {k}" for k in counts) + " | " + " | ".join(
            f"own cores, workers = {k}" for k in counts) + " |", "|---|" + "---:|" * (2 * len(counts))]
        for name in dict.fromkeys(r["env"] for r in scaling):
            mine = {r["workers"]: r for r in scaling if r["env"] == name}
            if name.startswith("machine ceiling"):  # no game: its ratio alone, where it was measured
                cells = [f"({mine[k]['ratio_to_first']:.2f}x)" if k in mine else "" for k in counts]
                out.append(f"| {name} | " + " | ".join(cells) + " |" * (len(counts) + 1))
                continue
            cells = [f"{mine[k]['batched_step_decisions_per_s']:,.0f} ({mine[k]['ratio_to_first']:.2f}x)"
                     for k in counts]
            cells += [f"{mine[k]['own_core_decisions_per_s']:,.0f}" for k in counts]
            out.append(f"| {name} | " + " | ".join(cells) + " |")
    if any("way" in r for r in rows):
        out += ["", _sibling("async_scaling").async_markdown([r for r in rows if "way" in r])]
    return "\n".join(out)


def _sibling(name: str):
    """The module ``benchmarks/<name>.py`` (this script's directory is not a package)."""
    import importlib.util
    import sys

    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
        sys.modules[name] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules[name]


def write_docs(rows: list, args) -> None:
    text = DOCS.read_text()
    begin, end = f"<!-- BEGIN {MARKER} -->", "<!-- END GENERATED BATCHED SPEED -->"
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{DOCS}: no {begin} ... {end} block to write")
    DOCS.write_text(pattern.sub(lambda _: f"{begin}\n\n{speed_markdown(rows)}\n\n{end}", text))
    print(f"wrote the batched tables into {DOCS}")


if __name__ == "__main__":
    main()
