"""Demo: one full match of dominoes_v0 (Kozel in pairs, to 101) between bots, shown as text.

Pair 0+2 plays the greedy heuristic, pair 1+3 plays random legal moves.

    python examples/demo.py [--seed 7] [--quiet]
"""
from __future__ import annotations

import argparse

from agents import make_agent
from kozel_env import dominoes_v0


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--quiet", action="store_true", help="print only deal results and the match result")
    args = ap.parse_args(argv)

    env = dominoes_v0.env(render_mode="ansi")
    bots = {a: make_agent("greedy" if i % 2 == 0 else "random", "dominoes_v0", seed=args.seed + i)
            for i, a in enumerate(env.possible_agents)}
    env.reset(seed=args.seed)
    print("dominoes_v0: pair 0+2 = greedy bots, pair 1+3 = random bots\n")
    if not args.quiet:
        print(env.render())
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = bots[agent].act(obs["observation"], obs["action_mask"])
        move = env.unwrapped.action_to_move(action)
        env.step(action)
        if not args.quiet:
            print(f"{agent} plays {move}")
        for d in env.infos[agent].get("deals", []):  # the deals this move ended (each reported once per agent)
            how = f"{'went out' if d['ended_by'] == 'out' else 'fish'} by player_{d['last_mover']}"
            print(f"\n== deal {d['deal']}: {how}; hand totals per pair {d['hand_totals']}; "
                  f"written {d['written']}; scores {d['scores']}; eggs carried {d['eggs_carried_out']}\n")
            if not args.quiet and not env.unwrapped.game_state.terminal:
                print(env.render())
    res = env.unwrapped.game_state.match_result
    goats = " and ".join(f"pair {g}+{g + 2}" for g in res["goats"])
    titles = [t for t in res["titles"] if t != "goats"]
    print(f"Match over after {res['deals']} deals: scores {res['scores']}; the goats are {goats}"
          + (f" ({', '.join(titles)})" if titles else ""))
    return res


if __name__ == "__main__":
    main()
