"""Recipe: TorchRL's PettingZoo wrapper and collector on a Kozel game, with a masked actor.

    pip install -e ".[torchrl]"
    python examples/integrations/torchrl_collector.py --env dominoes_v0 --steps 4096

TorchRL's own pieces: ``PettingZooWrapper(use_mask=True)`` over the PettingZoo AEC env (one group
``"players"`` holding every seat, so one network serves all of them: self-play), a ``ProbabilisticActor``
with ``MaskedCategorical`` over ``("players", "action_mask")`` (the wrapper fills it with the legal moves of
the seat to move), and a ``Collector`` that yields batches of frames (one frame = one move of the seat to
move, ``("players", "mask")`` says which). Settings: ``infos="flat"`` (the wrapper turns the infos of the
first reset into fixed tensor specs; the flat infos keep the same float keys at every step, the default
ones would be dropped), ``episode="deal"`` for short episodes.

Learning is REINFORCE with Monte-Carlo returns, the honest estimator for a turn-based game: a seat's return
from a move is the sum of its rewards until the deal ends (``("next", "players", "reward")`` holds every
seat's reward on the step where it happens), normalised over the batch; moves of deals that the batch cut
off are left for later. Then the trained actor (masked, greedy) plays the arena's duplicate deals against
random and the script prints its score with the 95% confidence interval and the training speed.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np
import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.collectors import Collector
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.modules import MaskedCategorical, ProbabilisticActor

from agents.arena import describe_pair, evaluate
from kozel_env.registry import ENVIRONMENTS, make

ENV_OPTIONS = {"episode": "deal", "infos": "flat"}
GROUP = "players"
OBS = (GROUP, "observation", "observation")
"""The wrapper keeps the AEC dict's ``"observation"`` part under the group's ``"observation"``."""


def make_env(env_name: str, seed: int) -> PettingZooWrapper:
    aec = make(env_name, **ENV_OPTIONS)
    return PettingZooWrapper(aec, use_mask=True, group_map={GROUP: list(aec.possible_agents)}, seed=seed)


def make_actor(obs_dim: int, num_actions: int, hidden: int = 128):
    net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                        nn.Linear(hidden, num_actions))
    module = TensorDictModule(net, in_keys=[OBS], out_keys=[(GROUP, "logits")])
    actor = ProbabilisticActor(module, in_keys={"logits": (GROUP, "logits"), "mask": (GROUP, "action_mask")},
                               out_keys=[(GROUP, "action")], distribution_class=MaskedCategorical,
                               return_log_prob=False)
    return actor, net


def returns_to_go(rewards: torch.Tensor, done: torch.Tensor):
    """Per frame and seat, the sum of the seat's rewards from that frame to the end of its episode;
    ``complete`` is False for frames whose episode the batch cut off. ``rewards``: [T, n], ``done``: [T]."""
    T = rewards.shape[0]
    g = torch.zeros_like(rewards)
    complete = torch.zeros(T, dtype=torch.bool)
    run = torch.zeros(rewards.shape[1])
    seen_end = False
    for t in range(T - 1, -1, -1):
        if done[t]:
            run = torch.zeros(rewards.shape[1])
            seen_end = True
        run = run + rewards[t]
        g[t] = run
        complete[t] = seen_end
    return g, complete


class TorchRLAgent:
    """The trained logits network as an arena agent: the most probable legal move."""

    def __init__(self, net: nn.Module):
        self.net = net

    def act(self, observation, action_mask) -> int:
        with torch.no_grad():
            logits = self.net(torch.as_tensor(np.asarray(observation, np.float32)))
        logits[~torch.as_tensor(np.asarray(action_mask, bool))] = -math.inf
        return int(logits.argmax())


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", default="dominoes_v0", choices=sorted(ENVIRONMENTS))
    ap.add_argument("--steps", type=int, default=4096, help="frames to collect (every seat's moves)")
    ap.add_argument("--frames-per-batch", type=int, default=512)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--sets", type=int, default=100, help="duplicate sets in the arena against random")
    ap.add_argument("--episode", default="deal", choices=("deal", "match"), help="arena episode")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1 is fastest for this small MLP)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    env = make_env(args.env, args.seed)
    obs_dim = env.observation_spec[OBS].shape[-1]
    num_actions = env.full_action_spec[GROUP, "action"].space.n
    actor, net = make_actor(obs_dim, num_actions)
    start = [p.detach().clone() for p in net.parameters()]
    optim = torch.optim.Adam(net.parameters(), lr=args.lr)
    collector = Collector(env, actor, frames_per_batch=args.frames_per_batch, total_frames=args.steps,
                          auto_register_policy_transforms=False)  # a plain MLP actor: no recurrent state to track

    losses = []
    frames = 0
    t0 = time.perf_counter()
    for batch in collector:
        frames += batch.numel()
        acting = batch[GROUP, "mask"]                                   # [T, n]: the seat to move
        rewards = batch["next", GROUP, "reward"].squeeze(-1)            # [T, n]: every seat's reward
        g, complete = returns_to_go(rewards, batch["next", "done"].reshape(-1))
        use = acting & complete[:, None]
        if not use.any():
            continue
        ret = g[use]
        adv = (ret - ret.mean()) / (ret.std() + 1e-6) if ret.numel() > 1 else ret
        dist = actor.get_dist(batch)
        logp = dist.log_prob(batch[GROUP, "action"])[use]
        loss = -(logp * adv).mean()
        optim.zero_grad()
        loss.backward()
        optim.step()
        losses.append(float(loss.detach()))
    seconds = time.perf_counter() - t0
    collector.shutdown()
    moved = float(sum((p.detach() - s).norm() for p, s in zip(net.parameters(), start)))

    agent = TorchRLAgent(net)
    res = evaluate(args.env, {"torchrl": lambda env_name, seed, env_options: agent, "random": "random"},
                   deals=args.sets, seed=args.seed, episode=args.episode, processes=1, progress=False)
    pair = res["pairs"][0]
    out = {"library": "torchrl", "env": args.env, "steps": frames, "seconds": seconds,
           "steps_per_s": frames / seconds, "updates": len(losses), "loss": losses[-1] if losses else math.nan,
           "weights_moved": moved, "score": pair["score_a"], "margin": pair["margin"], "games": pair["games"],
           "episode": args.episode, "env_options": ENV_OPTIONS}
    print(f"TorchRL REINFORCE (self-play, masked actor) on {args.env}: {frames} frames in {seconds:.1f} s "
          f"({out['steps_per_s']:.0f} frames/s incl. updates), {len(losses)} updates, last loss {out['loss']:.4f}")
    print(f"vs random, {pair['games']} {args.episode}s on {args.sets} duplicate sets: {describe_pair(pair)}")
    return out


if __name__ == "__main__":
    main()
