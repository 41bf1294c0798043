"""Throughput of every registered environment (the project's benchmark; speed is measured here, not in tests).

For each environment it prints:
* full AEC path: decisions/s through ``agent_iter`` / ``last()`` / ``step()``, the observation and mask read
  every decision, a uniformly random legal player;
* raw engine: decisions/s of ``legal_actions()`` + ``apply_action()`` on the engine state, random play;
* games/s: whole matches per second on the full AEC path;
* clone: microseconds per ``State.clone()`` on positions from random play.

    python benchmarks/throughput.py [--seconds 2] [--env dominoes_v0 ...]
"""
from __future__ import annotations

import argparse
import random
import time

from kozel_env.registry import ENVIRONMENTS, load


def full_path(name: str, seconds: float) -> tuple:
    env = load(name).env()
    rnd = random.Random(0)
    decisions = games = 0
    seed = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        env.reset(seed=seed)
        seed += 1
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
            if len(clone_states) < 200 and rnd.random() < 0.05:
                clone_states.append(st)
    dt = time.perf_counter() - t0
    reps = 50
    t1 = time.perf_counter()
    for _ in range(reps):
        for s in clone_states:
            s.clone()
    clone_us = (time.perf_counter() - t1) / (reps * max(1, len(clone_states))) * 1e6
    return decisions / dt, clone_us


def main(argv=None) -> list:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    ap.add_argument("--env", nargs="*", default=list(ENVIRONMENTS))
    args = ap.parse_args(argv)
    rows = []
    print(f"{'environment':<24}{'AEC decisions/s':>17}{'engine decisions/s':>20}{'games/s':>10}{'clone us':>10}")
    for name in args.env:
        aec, games = full_path(name, args.seconds)
        raw, clone_us = raw_engine(name, args.seconds)
        rows.append({"env": name, "aec_decisions_per_s": aec, "engine_decisions_per_s": raw,
                     "games_per_s": games, "clone_us": clone_us})
        print(f"{name:<24}{aec:>17,.0f}{raw:>20,.0f}{games:>10,.1f}{clone_us:>10.2f}", flush=True)
    return rows


if __name__ == "__main__":
    main()
