"""Playthroughs: a whole seeded game as text (OpenSpiel's golden files), for regression tests and reading.

Each decision prints the agent, its legal moves, the move taken (a fixed, seeded random policy), the
rewards, and a short hash of the agent's observation; the end prints the match result. Any change to rules,
move generation, notation or observation encoding shows up as a diff of the golden files in tests/golden/.

    python -m kozel_env.playthrough dominoes_v0 [--seed 0]
    python -m kozel_env.playthrough --write-golden tests/golden     # regenerate every golden file
"""
from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from .core.rng import Rng
from .registry import ENVIRONMENTS, load


def playthrough(name: str, seed: int = 0, options: dict | None = None) -> str:
    env = load(name).env(reward="points", **(options or {}))
    env.reset(seed=seed)
    pick = Rng(seed + 1)
    lines = [f"# {name} seed={seed} options={json.dumps(options or {}, sort_keys=True)}"]
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        digest = hashlib.sha256(obs["observation"].tobytes() + obs["action_mask"].tobytes()).hexdigest()[:12]
        moves = env.unwrapped.legal_moves()
        k = pick.below(len(moves))
        lines.append(f"{agent} obs={digest} legal=[{' '.join(moves)}] play={moves[k]}")
        env.step(env.unwrapped.legal_actions()[k])
        ended = env.infos[agent].get("deals", [])
        if ended:  # the deals this move ended (several when forced play finishes more than one)
            pts = " ".join(f"{a}={r:+g}" for a, r in env.rewards.items())
            lines.append(f"-- deal {', '.join(str(d['deal']) for d in ended)} over; rewards {pts}")
    res = env.unwrapped.game_state.match_result
    lines.append("result " + json.dumps(res, sort_keys=True, default=str))
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("env", nargs="?")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--write-golden", metavar="DIR")
    args = ap.parse_args(argv)
    if args.write_golden:
        out = Path(args.write_golden)
        out.mkdir(parents=True, exist_ok=True)
        for name in ENVIRONMENTS:
            (out / f"{name}.txt").write_text(playthrough(name, 0, ENVIRONMENTS[name][1][0]))
        return
    print(playthrough(args.env, args.seed), end="")


if __name__ == "__main__":
    main()
