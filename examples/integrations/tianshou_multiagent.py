"""Recipe: Tianshou 2.x multi-agent training on a Kozel game, straight over the PettingZoo env.

    pip install -e ".[tianshou]"
    python examples/integrations/tianshou_multiagent.py --env dominoes_v0 --steps 4096

Tianshou's own pieces: its ``PettingZooEnv`` wrapper, ``MultiAgentOffPolicyAlgorithm`` (Tianshou 2's
multi-agent manager: one algorithm per agent, each fed the transitions of its agent), a masked ``DQN``
(``DiscreteQLearningPolicy`` sets the q-values of masked-out moves below every legal one, and its
exploration draws legal moves only) shared by the two seats of side 0, and
``MARLRandomDiscreteMaskedOffPolicyAlgorithm`` on the other seats, trained by ``run_training`` with
``OffPolicyTrainerParams``.

The one setting Tianshou needs: ``infos="flat"``. Its buffer stacks every info dict into arrays, and the
default ``infos="full"`` (lists of deal results, empty dicts before anything ends) makes the collector stop
with ``MalformedBufferError: Encountered NaNs in buffer``; the flat infos have the same float keys at every
step. ``illegal_action`` can stay ``"raise"``: the masked policies never play an illegal move.

Rewards: the PettingZoo env gives every seat its reward on the step where it happens, and Tianshou stores
the reward vector of all seats with each transition; ``n_step_return_horizon = number of seats`` makes a
seat's n-step return add up its rewards until its next turn (the turn order rotates), which is what the
AEC env's ``last()`` would give it.

Then the trained DQN (Tianshou's own policy forward, masked, greedy) plays the arena's duplicate deals
against random and the script prints its score with the 95% confidence interval and the training speed.
"""
from __future__ import annotations

import argparse
import logging
import math
import time

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Batch, Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils import LazyLogger
from tianshou.utils.net.common import Net

from agents.arena import describe_pair, evaluate
from kozel_env.registry import ENVIRONMENTS, make

ENV_OPTIONS = {"episode": "deal", "infos": "flat"}
"""What the PettingZoo env is made with here (infos="flat" is the one Tianshou needs)."""


def get_env(env_name: str) -> PettingZooEnv:
    return PettingZooEnv(make(env_name, **ENV_OPTIONS))


class LossLogger(LazyLogger):
    """Keeps the trainer's loss statistics of every update (Tianshou's trainer hands them to its logger)."""

    def __init__(self):
        super().__init__()
        self.update_interval = 0
        self.losses: list = []

    def log_update_data(self, log_data: dict, step: int) -> None:
        self.losses.append(dict(log_data.get("smoothed_loss") or {}))


class TianshouAgent:
    """The trained policy as an arena agent: Tianshou's masked greedy forward on one observation."""

    def __init__(self, policy):
        self.policy = policy

    def act(self, observation, action_mask) -> int:
        obs = Batch(obs=np.asarray(observation, np.float32)[None], mask=np.asarray(action_mask, bool)[None])
        with torch.no_grad():
            out = self.policy(Batch(obs=obs, info=Batch()))
        return int(np.asarray(out.act)[0])


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", default="dominoes_v0", choices=sorted(ENVIRONMENTS))
    ap.add_argument("--steps", type=int, default=4096, help="training env steps (every seat's moves)")
    ap.add_argument("--envs", type=int, default=4, help="vectorized copies of the env")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--updates-per-step", type=float, default=0.25, help="gradient steps per env step")
    ap.add_argument("--sets", type=int, default=100, help="duplicate sets in the arena against random")
    ap.add_argument("--episode", default="deal", choices=("deal", "match"), help="arena episode")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1 is fastest for this small MLP)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)  # Tianshou's random policy and exploration draw from numpy's global generator
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)  # multi-agent reward vectors: noisy

    env = get_env(args.env)
    n = len(env.agents)
    side0 = {s for s in range(n) if env.env.unwrapped.game.side_of(s) == 0}
    net = Net(state_shape=env.observation_space["observation"].shape, action_shape=env.action_space.n,
              hidden_sizes=[128, 128])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.2, eps_inference=0.0)
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.99, n_step_return_horizon=n,
                  target_update_freq=200)
    algorithms = [learner if s in side0 else MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
                  for s in range(n)]
    marl = MultiAgentOffPolicyAlgorithm(algorithms=algorithms, env=env)

    train_envs = DummyVectorEnv([lambda: get_env(args.env) for _ in range(args.envs)])
    train_envs.seed(args.seed)
    collector = Collector[CollectStats](marl, train_envs, VectorReplayBuffer(50_000, args.envs),
                                        exploration_noise=True)
    logger = LossLogger()
    start = [p.detach().clone() for p in net.parameters()]
    t0 = time.perf_counter()
    collector.reset()
    collector.collect(n_step=args.batch_size * args.envs)  # warm-up so the first batch can be sampled
    result = marl.run_training(OffPolicyTrainerParams(
        training_collector=collector, test_collector=None, max_epochs=1, epoch_num_steps=args.steps,
        collection_step_num_env_steps=16 * args.envs, batch_size=args.batch_size,
        update_step_num_gradient_steps_per_sample=args.updates_per_step, test_in_training=False,
        multi_agent_return_reduction=lambda rews: rews[:, min(side0)], logger=logger, verbose=False,
        show_progress=False))
    seconds = time.perf_counter() - t0
    steps = int(result.train_step) + args.batch_size * args.envs
    losses = [v for d in logger.losses for k, v in d.items() if k.endswith("/loss")]
    moved = float(sum((p.detach() - s).norm() for p, s in zip(net.parameters(), start)))

    agent = TianshouAgent(learner.policy)
    learner.policy.eval()
    res = evaluate(args.env, {"tianshou": lambda env_name, seed, env_options: agent, "random": "random"},
                   deals=args.sets, seed=args.seed, episode=args.episode, processes=1, progress=False)
    pair = res["pairs"][0]
    out = {"library": "tianshou", "env": args.env, "steps": steps, "seconds": seconds,
           "steps_per_s": steps / seconds, "updates": len(logger.losses),
           "loss": float(losses[-1]) if losses else math.nan, "weights_moved": moved, "score": pair["score_a"],
           "margin": pair["margin"], "games": pair["games"], "episode": args.episode, "env_options": ENV_OPTIONS}
    print(f"Tianshou DQN (side 0) vs masked random on {args.env}: {steps} env steps in {seconds:.1f} s "
          f"({out['steps_per_s']:.0f} steps/s incl. updates), {out['updates']} updates, last loss {out['loss']:.4f}")
    print(f"vs random, {pair['games']} {args.episode}s on {args.sets} duplicate sets: {describe_pair(pair)}")
    return out


if __name__ == "__main__":
    main()
