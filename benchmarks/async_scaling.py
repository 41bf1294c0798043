"""``python benchmarks/throughput.py --workers 1,2 --async [--player mlp]``: the asynchronous vector env against the
lockstep one and against the machine's bound, every figure with the caller's player included.

``vector.make_async``'s caller chooses a shard's actions while the other shards step, so its player cannot be
timed apart from the step as ``--workers``' lockstep figures time ``venv.step`` alone; every loop here is the
whole loop a user runs, decisions per wall second, the player (:func:`make_player`: the random legal player, or
with ``--player mlp`` a policy network's forward pass) choosing every move:

* ``one process``: ``vector.make(name, B)``, ``ts = venv.step(player(ts))``;
* ``lockstep``: ``vector.make(name, k * B, workers=k)``, the same loop (``B`` games a process);
* ``async``: ``vector.make_async(name, k * B, workers=k, copy=False)``: ``shard, ts = venv.recv()``,
  ``venv.send(shard, player(ts))``, ``B`` games a shard;
* ``async, 2 shards a core``: the same with ``2 k`` workers of ``B / 2`` games (while the caller chooses one
  shard's actions, the core's other shard steps);
* ``k apart``: ``k`` separate processes, each the one-process loop on ``B`` games of its own, started together:
  the bound, what the machine gives ``k`` such loops with nothing between them.

Each is the best window (20 loops or more) over ``rounds`` rounds that take turns (a slow spell of the
machine hits every way), its ratio to the one process measured in the same rounds.
"""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np

_APART_CHILD = """import sys, time
sys.path.insert(0, sys.argv[7])
from async_scaling import make_player
from kozel_env import vector
name, n, seed, seconds, window = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
venv = vector.make(name, n, seed=seed)
player = make_player(sys.argv[6], venv, seed)
ts = venv.reset()
for _ in range(20):
    ts = venv.step(player(ts, venv, None))
print("ready", flush=True)
sys.stdin.readline()
best, t_end = float("inf"), time.perf_counter() + seconds
while time.perf_counter() < t_end or best == float("inf"):
    t0 = time.perf_counter()
    for _ in range(window):
        ts = venv.step(player(ts, venv, None))
    best = min(best, time.perf_counter() - t0)
print(window * n / best)
"""


def make_player(kind: str, venv, seed: int = 0):
    """The caller's player, ``player(ts, venv, shard) -> actions`` (``shard`` None for a whole batch):
    ``"random"``: ``venv.sample_actions``; ``"mlp"``: the greedy legal move of a PyTorch MLP of the shipped
    agents' size (observation -> 256 -> 256 -> actions, one thread, no gradient), the forward pass of a policy
    that collects rollouts."""
    if kind == "random":
        gen = np.random.default_rng(seed)
        return lambda ts, venv, shard: (venv.sample_actions(gen) if shard is None
                                        else venv.sample_actions(gen, shard))
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(venv.obs_size, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                              torch.nn.ReLU(), torch.nn.Linear(256, venv.num_actions))

    def mlp(ts, venv, shard):
        with torch.no_grad():
            logits = net(torch.from_numpy(ts.obs)).masked_fill(torch.from_numpy(ts.mask) == 0, -1e9)
        return logits.argmax(1).numpy()
    return mlp


def apart(name: str, num_envs: int, k: int, seconds: float, window: int, player: str = "random") -> float:
    """Decisions/s of ``k`` separate processes running the one-process loop on ``num_envs`` games each, released
    together once all are warm (the sum of their best windows)."""
    here = str(Path(__file__).resolve().parent)
    procs = [subprocess.Popen([sys.executable, "-c", _APART_CHILD, name, str(num_envs), str(i), repr(seconds),
                               str(window), player, here], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for i in range(k)]
    return sum(released_together(procs, f"a process of {name}"))


def released_together(procs: list, what: str) -> list:
    """The figures (a float each) of child processes that print ``ready`` once warm and then wait for a line on
    stdin: all released at once, each figure read from the end of its output; ``what``: how a child that
    fails to start is named. Every child still running at the end is killed."""
    try:
        for p in procs:
            if p.stdout.readline().strip() != "ready":
                raise RuntimeError(f"{what} failed to start (exit code {p.wait()})")
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        return [float(p.communicate()[0]) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()


class _Lockstep:
    def __init__(self, venv, player):
        self.venv, self.player = venv, player
        self.ts = venv.reset()

    def run(self, loops: int) -> int:
        venv, player = self.venv, self.player
        for _ in range(loops):
            self.ts = venv.step(player(self.ts, venv, None))
        return loops * venv.num_envs


class _Async:
    def __init__(self, venv, player):
        self.venv, self.player = venv, player
        venv.async_reset()

    def run(self, loops: int) -> int:
        venv, player, done = self.venv, self.player, 0
        for _ in range(loops * venv.workers):
            shard, ts = venv.recv()
            venv.send(shard, player(ts, venv, shard))
            done += len(ts.seat)
        return done


WAYS = ("one process", "lockstep", "async", "async, 2 shards a core")


def async_scaling(name: str, num_envs: int, k: int, seconds: float, rounds: int = 3, player: str = "random") -> dict:
    """Per way of :data:`WAYS` and ``"{k} apart"``: (decisions/s, ratio to the one process), ``num_envs`` games a
    process, ``player`` (:func:`make_player`) choosing the moves (see the module docstring)."""
    from kozel_env import vector

    made = [vector.make(name, num_envs, seed=0), vector.make(name, k * num_envs, seed=0, workers=k),
            vector.make_async(name, k * num_envs, seed=0, workers=k, copy=False)]
    if num_envs >= 2:
        made.append(vector.make_async(name, k * num_envs, seed=0, workers=2 * k, copy=False))
    play = make_player(player, made[0])
    envs = dict(zip(WAYS, [_Lockstep(made[0], play), _Lockstep(made[1], play)]
                    + [_Async(venv, play) for venv in made[2:]]))
    try:
        t0 = time.perf_counter()
        envs["one process"].run(10)
        per_loop = (time.perf_counter() - t0) / 10
        window = max(20, min(200, int(seconds / rounds / 4 / max(per_loop, 1e-9))))
        for way in envs.values():  # warm: every worker past its first steps
            way.run(5)
        best = dict.fromkeys(envs, 0.0)
        far = 0.0
        for _ in range(rounds):
            for label, way in envs.items():
                t_end = time.perf_counter() + seconds / rounds
                while time.perf_counter() < t_end or best[label] == 0.0:
                    t0 = time.perf_counter()
                    done = way.run(window)
                    best[label] = max(best[label], done / (time.perf_counter() - t0))
            far = max(far, apart(name, num_envs, k, seconds / rounds, window, player))
    finally:
        for way in envs.values():
            if hasattr(way.venv, "close"):
                way.venv.close()
    best[f"{k} apart"] = far
    base = best["one process"]
    return {label: (rate, rate / base) for label, rate in best.items()}


def async_table(names: list, num_envs: int, counts: list, seconds: float, player: str = "random") -> list:
    """The rows of ``--async`` (one per batched game of ``names``, count and way), printed as they come."""
    from kozel_env import vector

    rows = []
    print(f"\n{'async vs lockstep, ' + player + ' player':<36}{'B a process':>12}{'workers':>9}{'way':>26}"
          f"{'decisions/s':>14}{'/ one process':>15}")
    for name in [n for n in names if n in vector.BATCHED]:
        for k in [k for k in counts if k > 1]:
            for label, (rate, ratio) in async_scaling(name, num_envs, k, seconds, player=player).items():
                rows.append({"env": name, "batch": num_envs, "workers": str(k), "way": label, "player": player,
                             "decisions_per_s_with_player": rate, "ratio_to_one_process": ratio})
                print(f"{name:<36}{num_envs:>12}{k:>9}{label:>26}{rate:>14,.0f}{ratio:>15.2f}", flush=True)
    return rows


def async_markdown(rows: list) -> str:
    """The docs' table of ``--async`` rows: per game and worker count, each way's decisions/s and ratio."""
    ways = list(dict.fromkeys(r["way"] for r in rows))
    players = {"random": "the random player", "mlp": "an MLP policy"}
    out = [f"| environment ({rows[0]['batch']} games a process, {players[rows[0]['player']]} included) | workers | "
           + " | ".join(ways) + " |", "|---|---:|" + "---:|" * len(ways)]
    for name, k in dict.fromkeys((r["env"], r["workers"]) for r in rows):
        mine = {r["way"]: r for r in rows if r["env"] == name and r["workers"] == k}
        cells = [f"{mine[w]['decisions_per_s_with_player']:,.0f} ({mine[w]['ratio_to_one_process']:.2f}x)"
                 if w in mine else "" for w in ways]
        out.append(f"| {name} | {k} | " + " | ".join(cells) + " |")
    return "\n".join(out)
