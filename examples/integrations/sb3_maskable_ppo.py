"""Recipe: sb3-contrib's MaskablePPO on a Kozel game through the single-agent gymnasium view.

    pip install -e ".[sb3]"
    python examples/integrations/sb3_maskable_ppo.py --env dominoes_v0 --steps 4096

The learner plays a whole side (``side=True``: both seats of its pair, the seat drawn each episode) against
random bots, one deal per episode; ``gymnasium.make("kozel/<env>")`` works because ``import kozel_env``
registers the ids. MaskablePPO reads the legal moves from the env's ``action_masks()`` (through the
vectorized env's ``env_method``), so it never plays a masked-out move. Then the trained policy plays the
arena's duplicate deals against random (``agents.arena.evaluate``, the policy plugged in as a factory) and
the script prints its score with the 95% confidence interval and the measured training speed.
"""
from __future__ import annotations

import argparse
import math
import time

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv

import kozel_env  # noqa: F401  (registers the gymnasium ids "kozel/<name>")
from agents.arena import describe_pair, evaluate
from kozel_env.registry import ENVIRONMENTS


class MaskablePolicyAgent:
    """A trained MaskablePPO model as an arena agent: ``act(observation, action_mask) -> int``."""

    def __init__(self, model):
        self.model = model

    def act(self, observation, action_mask) -> int:
        action, _ = self.model.predict(observation, action_masks=np.asarray(action_mask, bool),
                                       deterministic=True)
        return int(action)


def make_env(env_name: str, seed: int, opponents: str):
    def build():
        env = gymnasium.make(f"kozel/{env_name}", opponents=opponents, side=True, episode="deal")
        env.reset(seed=seed)
        return env
    return build


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", default="dominoes_v0", choices=sorted(ENVIRONMENTS))
    ap.add_argument("--steps", type=int, default=4096, help="training steps (the learner's decisions)")
    ap.add_argument("--envs", type=int, default=4, help="vectorized copies of the env")
    ap.add_argument("--n-steps", type=int, default=256, help="rollout length per env and update")
    ap.add_argument("--opponents", default="random", help="bot that plays the other side while training")
    ap.add_argument("--sets", type=int, default=100, help="duplicate sets in the arena against random")
    ap.add_argument("--episode", default="deal", choices=("deal", "match"), help="arena episode")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1 is fastest for this small MLP)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)

    venv = DummyVecEnv([make_env(args.env, args.seed + i, args.opponents) for i in range(args.envs)])
    model = MaskablePPO("MlpPolicy", venv, n_steps=args.n_steps, batch_size=256, n_epochs=4, learning_rate=3e-4,
                        gamma=1.0, seed=args.seed, device="cpu", verbose=0)
    start = [p.detach().clone() for p in model.policy.parameters()]
    t0 = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    seconds = time.perf_counter() - t0
    steps = int(model.num_timesteps)
    logged = model.logger.name_to_value  # the last update's statistics
    loss = float(logged.get("train/loss", math.nan))
    moved = float(sum((p.detach() - s).norm() for p, s in zip(model.policy.parameters(), start)))

    agent = MaskablePolicyAgent(model)
    res = evaluate(args.env, {"sb3": lambda env_name, seed, env_options: agent, "random": "random"},
                   deals=args.sets, seed=args.seed, episode=args.episode, processes=1, progress=False)
    pair = res["pairs"][0]
    out = {"library": "stable-baselines3 + sb3-contrib MaskablePPO", "env": args.env, "steps": steps,
           "seconds": seconds, "steps_per_s": steps / seconds, "loss": loss,
           "entropy_loss": float(logged.get("train/entropy_loss", math.nan)), "weights_moved": moved,
           "score": pair["score_a"], "margin": pair["margin"], "games": pair["games"], "episode": args.episode}
    print(f"MaskablePPO on {args.env}: {steps} steps in {seconds:.1f} s ({out['steps_per_s']:.0f} steps/s), "
          f"last loss {loss:.4f}")
    print(f"vs random, {pair['games']} {args.episode}s on {args.sets} duplicate sets: {describe_pair(pair)}")
    return out


if __name__ == "__main__":
    main()
