"""Playthroughs: a whole seeded game as text (OpenSpiel's golden files), for regression tests and reading.

Each decision prints the agent, a short hash of its observation and mask, its legal moves, the move taken
(a fixed, seeded random policy), and after ``|`` a 4-digit hash of each named observation part (so a diff
says which part changed: ``hand=..`` or ``scores=..``); deal ends print the rewards, the end prints the match
result. Any change to rules, move generation, notation or observation encoding shows up as a diff of the
golden files in tests/golden/.

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


def part_hashes(spec, vec) -> str:
    """``name=hhhh`` for each named part of the observation ``vec`` (4 hex digits of its sha256)."""
    return " ".join(f"{name}={hashlib.sha256(a.tobytes()).hexdigest()[:4]}" for name, a in spec.view(vec).items())


def changed_parts(want: str, got: str) -> str:
    """For two playthrough lines of one decision: the named parts whose hashes differ (or what else does)."""
    def split(line):
        head, _, tail = line.partition(" | ")
        return head, dict(kv.split("=", 1) for kv in tail.split()) if tail else {}
    (wh, wp), (gh, gp) = split(want), split(got)
    parts = [k for k in dict.fromkeys([*wp, *gp]) if wp.get(k) != gp.get(k)]
    if parts:
        return "observation parts changed: " + ", ".join(parts)
    return "same observation parts; the line differs: " + (f"{wh!r} -> {gh!r}" if wh != gh else f"{want!r} -> {got!r}")


def playthrough(name: str, seed: int = 0, options: dict | None = None) -> str:
    env = load(name).env(reward="points", **(options or {}))
    env.reset(seed=seed)
    pick = Rng(seed + 1)
    spec = env.unwrapped.game.obs_spec
    lines = [f"# {name} seed={seed} options={json.dumps(options or {}, sort_keys=True)}"]
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        digest = hashlib.sha256(obs["observation"].tobytes() + obs["action_mask"].tobytes()).hexdigest()[:12]
        moves = env.unwrapped.legal_moves()
        k = pick.below(len(moves))
        lines.append(f"{agent} obs={digest} legal=[{' '.join(moves)}] play={moves[k]} | "
                     + part_hashes(spec, obs["observation"]))
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
