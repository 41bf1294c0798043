"""Example: OpenSpiel's ISMCTS and determinized MCTS on a Kozel game, then ISMCTS against our ``hard`` bot.

    pip install -e ".[openspiel]"
    python examples/integrations/openspiel_ismcts.py [--env dominoes_v0] [--simulations 100] [--deals 100]

1. The game as OpenSpiel sees it (``pyspiel.load_game("kozel_<env>", {"episode": "deal"})``, registered by
   ``kozel_env.openspiel``): its type, sizes and one deal played on pyspiel states, the even seats by
   OpenSpiel's information-set MCTS (``ISMCTSBot``), the odd seats by determinized MCTS (OpenSpiel's
   ``MCTSBot`` searching several re-deals of what the seat knows), each move with its thinking time.
2. The arena (``agents.arena.evaluate``, duplicate deals, 95% confidence intervals): the bridge's ISMCTS
   against the ``hard`` bot (perfect-information Monte Carlo with the game's rule-based rollouts), with the
   milliseconds per decision. ``--dmcts`` adds determinized MCTS to the arena.

The search agents get the engine state from the arena (``needs_state``) but search only a re-deal of it
drawn from their seat's information (``sample_consistent``), and resample from the information state
after that: they never see another seat's cards or tiles. See ``kozel_env/openspiel_search.py``.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from agents.arena import evaluate, markdown
from kozel_env import openspiel as kos
from kozel_env.registry import ENVIRONMENTS


def ismcts_factory(simulations: int, uct_c: float, worlds: int):
    def make(env_name: str, seed: int, env_options: dict):
        return kos.ISMCTSAgent(env_name, seed, env_options, simulations=simulations, uct_c=uct_c, worlds=worlds)
    make.__name__ = f"ismcts(simulations={simulations}, uct_c={uct_c}, worlds={worlds})"
    return make


def dmcts_factory(simulations: int, uct_c: float, worlds: int):
    def make(env_name: str, seed: int, env_options: dict):
        return kos.DeterminizedMCTSAgent(env_name, seed, env_options, simulations=simulations, uct_c=uct_c,
                                         worlds=worlds)
    make.__name__ = f"dmcts(simulations={simulations}, uct_c={uct_c}, worlds={worlds})"
    return make


def demo_deal(env_name: str, simulations: int, uct_c: float, seed: int) -> list:
    """One deal on pyspiel states: ISMCTS on the even seats, determinized MCTS on the odd ones."""
    game = kos.load_game(env_name, episode="deal", rng_seed=seed)
    gt = game.get_type()
    print(f"## {game}\n")
    print(f"{gt.long_name}: {game.num_players()} players, {game.num_distinct_actions()} distinct actions, "
          f"information state tensor {game.information_state_tensor_shape()}, utility "
          f"{game.min_utility():+.0f}..{game.max_utility():+.0f} ({gt.utility.name.lower()}), chance mode "
          f"{gt.chance_mode.name.lower()}, max game length {game.max_game_length()}\n")
    bots = [kos.ISMCTSAgent(env_name, seed, simulations=simulations, uct_c=uct_c),
            kos.DeterminizedMCTSAgent(env_name, seed + 1, simulations=simulations, uct_c=uct_c)]
    names = ["ISMCTS", "determinized MCTS"]
    state = game.new_initial_state()
    state.apply_action(0)  # the chance node: the deal
    print(str(state) + "\n")
    clock = [[], []]
    while not state.is_terminal():
        seat = state.current_player()
        mask = np.zeros(game.num_distinct_actions(), np.int8)
        mask[state.legal_actions()] = 1
        obs = np.asarray(state.observation_tensor(seat), np.float32)
        t0 = time.process_time()
        a = bots[seat % 2].act(obs, mask, state=state.engine_state, seat=seat)
        ms = 1000.0 * (time.process_time() - t0)
        if mask.sum() > 1:
            clock[seat % 2].append(ms)
        print(f"  seat {seat} ({names[seat % 2]}): {state.action_to_string(seat, a)}"
              f"  [{int(mask.sum())} legal, {ms:.0f} ms]")
        state.apply_action(a)
    rets = state.returns()
    print(f"\nreturns: {rets} (even seats: ISMCTS, odd seats: determinized MCTS)")
    for i, name in enumerate(names):
        if clock[i]:
            print(f"{name}: {np.mean(clock[i]):.1f} ms per decision over {len(clock[i])} decisions with a choice")
    print()
    return rets


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", default="dominoes_v0", choices=sorted(ENVIRONMENTS))
    ap.add_argument("--simulations", type=int, default=100, help="ISMCTS simulations per decision in the arena")
    ap.add_argument("--uct-c", type=float, default=0.7, help="UCT exploration constant (returns are in [-1, 1])")
    ap.add_argument("--worlds", type=int, default=-1,
                    help="ISMCTS: distinct worlds sampled per decision (-1: one per simulation)")
    ap.add_argument("--demo-simulations", type=int, default=100, help="simulations per decision in the demo deal")
    ap.add_argument("--deals", type=int, default=50, help="duplicate sets in the arena")
    ap.add_argument("--dmcts", action="store_true", help="also seat determinized MCTS in the arena")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--processes", type=int, default=None)
    ap.add_argument("--json", help="write the arena result here")
    args = ap.parse_args(argv)

    demo_deal(args.env, args.demo_simulations, args.uct_c, args.seed)

    agents = {"ismcts": ismcts_factory(args.simulations, args.uct_c, args.worlds)}
    if args.dmcts:
        agents["dmcts"] = dmcts_factory(args.simulations, args.uct_c, 8)
    agents["hard"] = "hard"
    res = evaluate(args.env, agents, deals=args.deals, seed=args.seed, episode="deal", processes=args.processes,
                   progress=False)
    print(markdown(res))
    for lab, ms in res["ms_per_decision"].items():
        print(f"{lab}: {ms:.1f} ms per decision (CPU time)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    return res


if __name__ == "__main__":
    main()
