"""Issue 34's asynchronous design, prototyped (not part of the package; see README.md here).

Two worker processes of ``B`` games each step their own :class:`~kozel_env.vector.env.VectorEnv`, writing the
observations and masks into shared memory as ``vector.make(..., workers=k)`` does, against one process of ``B``
games stepping with a random player; decisions per wall second, their ratio to the one process (measured
before and after, averaged). The ways of driving the two workers:

* ``lockstep``: the caller draws and checks both shards' actions, wakes both workers, waits for both;
* ``async``: the same per shard, each shard sent again as soon as it is back (whichever is ready first);
* ``async_wcheck``: asynchronous, the caller draws the actions and the worker checks them;
* ``async_self``: asynchronous, the worker draws and checks its own actions (the caller does no work per game).

    python experiments/workers_async/prototype.py dominoes_v0,queens_and_jacks_v0,beat_or_discard_v0 2
"""
from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import multiprocessing as mp  # noqa: E402
from multiprocessing import shared_memory  # noqa: E402
from multiprocessing.connection import wait  # noqa: E402

import numpy as np  # noqa: E402

from kozel_env.vector.env import VectorEnv, check_actions, sample_from_words  # noqa: E402

MODES = ("lockstep", "async", "async_wcheck", "async_self")


def fields(B: int, W: int, obs: int, A: int, n: int) -> list:
    return [("actions", np.int64, (B,)), ("words", np.uint64, (B, W)), ("obs", np.float32, (B, obs)),
            ("mask", np.int8, (B, A)), ("seat", np.int64, (B,)), ("rewards", np.float32, (B, n)),
            ("done", bool, (B,))]


def offsets(specs: list) -> list:
    """Where each field starts in the block (64-byte aligned), and the block's size last."""
    out = [0]
    for _, dt, shape in specs:
        out.append(out[-1] + (int(np.prod(shape)) * np.dtype(dt).itemsize + 63) // 64 * 64)
    return out


def arrays(buf, specs: list) -> dict:
    return {name: np.ndarray(shape, dt, buf, off) for (name, dt, shape), off in zip(specs, offsets(specs))}


def worker(env: str, B: int, seed: int, shm_name: str, specs: list, conn) -> None:
    shm = shared_memory.SharedMemory(shm_name)
    v = arrays(shm.buf, specs)
    venv = VectorEnv(env, B, seed)
    rng = np.random.default_rng(seed)
    venv._views = {"obs": v["obs"], "mask": v["mask"]}
    ts = venv.reset()
    v["words"][:] = venv.engine.legal_words
    v["seat"][:] = ts.seat
    conn.send("ok")
    eng = venv.engine
    while (message := conn.recv()) != "stop":
        if message == "self":      # the worker draws and checks its own actions
            a = check_actions(venv.sample_actions(rng), venv.num_actions, eng.legal_words, eng.current_player, None)
        elif message == "check":   # the caller drew them, the worker checks them
            a = check_actions(v["actions"].copy(), venv.num_actions, eng.legal_words, eng.current_player, None)
        else:                      # the caller drew and checked them
            a = v["actions"].copy()
        ts = venv._advance(a)
        v["words"][:] = eng.legal_words
        v["seat"][:] = ts.seat
        v["rewards"][:] = ts.rewards
        v["done"][:] = ts.done
        conn.send("ok")
    v.clear()
    venv._views = None
    shm.close()


def one_process(env: str, B: int, seconds: float) -> float:
    venv = VectorEnv(env, B, 1)
    venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(100):
        venv.step(venv.sample_actions(rng))
    n, t = 0, time.perf_counter()
    while time.perf_counter() - t < seconds:
        venv.step(venv.sample_actions(rng))
        n += B
    return n / (time.perf_counter() - t)


def two_workers(env: str, B: int, seconds: float, mode: str) -> float:
    probe = VectorEnv(env, 4, 0)
    probe.reset()
    specs = fields(B, probe.engine.legal_words.shape[1], probe.game.obs_spec.size, probe.num_actions,
                   probe.num_players)
    ctx = mp.get_context("fork")
    shms, views, conns, procs = [], [], [], []
    for i in range(2):
        shm = shared_memory.SharedMemory(create=True, size=offsets(specs)[-1])
        shms.append(shm)
        views.append(arrays(shm.buf, specs))
        mine, theirs = ctx.Pipe()
        conns.append(mine)
        procs.append(ctx.Process(target=worker, args=(env, B, 10 + i, shm.name, specs, theirs)))
        procs[-1].start()
    for c in conns:
        c.recv()
    rng = np.random.default_rng(0)

    def send(i: int) -> None:
        v = views[i]
        if mode == "async_self":
            conns[i].send("self")
            return
        a = sample_from_words(v["words"], rng.random(B))
        if mode == "async_wcheck":
            v["actions"][:] = a
            conns[i].send("check")
            return
        v["actions"][:] = check_actions(a, probe.num_actions, v["words"], v["seat"], None)
        conns[i].send("step")

    for _ in range(50):  # warm-up
        for i in range(2):
            send(i)
        for c in conns:
            c.recv()
    n, t = 0, time.perf_counter()
    if mode == "lockstep":
        while time.perf_counter() - t < seconds:
            for i in range(2):
                send(i)
            for c in conns:
                c.recv()
            n += 2 * B
    else:
        for i in range(2):
            send(i)
        while time.perf_counter() - t < seconds:
            for c in wait(conns):
                c.recv()
                n += B
                send(conns.index(c))
        for c in conns:
            c.recv()
    rate = n / (time.perf_counter() - t)
    for c in conns:
        c.send("stop")
    for p in procs:
        p.join()
    for v in views:
        v.clear()
    for s in shms:
        s.close()
        s.unlink()
    return rate


def main() -> None:
    B = 4096
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
    for env in sys.argv[1].split(","):
        for rep in range(2):
            base = one_process(env, B, seconds)
            rates = {m: two_workers(env, B, seconds, m) for m in (MODES if rep == 0 else MODES[::-1])}
            base = (base + one_process(env, B, seconds)) / 2
            print(f"{env} run {rep + 1}: one process {base:,.0f}/s; "
                  + "; ".join(f"{m} {rates[m] / base:.2f}x" for m in MODES), flush=True)


if __name__ == "__main__":
    main()
