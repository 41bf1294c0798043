"""PPO on the vector env: thousands of games in one batch, a small PyTorch actor-critic, one CPU core.

    python examples/vector_ppo.py --env dominoes_v0 --num-envs 1024 --updates 50
    python examples/vector_ppo.py --env queens_and_jacks_v0 --opponent greedy --reward outcome

The learner plays one side of every game (``kozel_env.vector.make(..., opponent=...)``, the single-learner
mode: the env plays the opponent's seats between the learner's decisions, partners share the rewards, the
side alternates from one episode to the next). Each update collects ``--horizon`` learner decisions in every
game, computes GAE advantages (``--gamma``, ``--lam``; an episode's end cuts the bootstrap), and runs the
clipped PPO loss on minibatches. It prints, per update, the learner decisions per second (network
included), the finished episodes and the learner's mean return in them (outcome: win +1 / loss -1).

This is the loop of the README's "Vector env" section written out in full; ``agents/rl`` (the trainer of the
shipped checkpoints) collects its self-play rollouts through the same vector env with ``--set vector=true``.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from kozel_env import vector


class ActorCritic(torch.nn.Module):
    def __init__(self, obs_size: int, num_actions: int, hidden: int):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(obs_size, hidden), torch.nn.ReLU(),
                                        torch.nn.Linear(hidden, hidden), torch.nn.ReLU())
        self.pi = torch.nn.Linear(hidden, num_actions)
        self.v = torch.nn.Linear(hidden, 1)

    def forward(self, obs, mask):
        h = self.body(obs)
        logits = self.pi(h).masked_fill(mask == 0, -1e9)  # illegal moves never get probability
        return torch.distributions.Categorical(logits=logits), self.v(h).squeeze(-1)


def collect(venv, net, ts, horizon: int):
    """``horizon`` learner decisions in every game: the batch and the TimeStep after it."""
    keys = ("obs", "mask", "act", "logp", "val", "rew", "done")
    buf = {k: [] for k in keys}
    returns = []
    with torch.no_grad():
        for _ in range(horizon):
            obs, mask = torch.from_numpy(ts.obs), torch.from_numpy(ts.mask)
            dist, val = net(obs, mask)
            act = dist.sample()
            nxt = venv.step(act.numpy())
            for k, v in zip(keys, (obs, mask, act, dist.log_prob(act), val, torch.from_numpy(nxt.rewards),
                                   torch.from_numpy(nxt.done))):
                buf[k].append(v)
            if nxt.done.any():
                returns.extend(nxt.info["learner_return"][nxt.done].tolist())
            ts = nxt
        last_val = net(torch.from_numpy(ts.obs), torch.from_numpy(ts.mask))[1]
    return {k: torch.stack(v) for k, v in buf.items()}, last_val, ts, returns


def gae(batch, last_val, gamma: float, lam: float):
    """Advantages and value targets; ``done`` at step t: the episode ended after decision t."""
    T = batch["rew"].shape[0]
    adv = torch.zeros_like(batch["rew"])
    running = torch.zeros_like(last_val)
    for t in reversed(range(T)):
        nxt_val = last_val if t == T - 1 else batch["val"][t + 1]
        live = 1.0 - batch["done"][t].float()
        delta = batch["rew"][t] + gamma * nxt_val * live - batch["val"][t]
        running = delta + gamma * lam * live * running
        adv[t] = running
    return adv, adv + batch["val"]


def update(net, opt, batch, adv, target, args) -> float:
    flat = {k: v.flatten(0, 1) for k, v in batch.items()}
    adv, target = adv.flatten(), target.flatten()
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    n = len(adv)
    loss = torch.zeros(())
    for _ in range(args.epochs):
        for idx in torch.randperm(n).split(args.minibatch):
            dist, val = net(flat["obs"][idx], flat["mask"][idx])
            ratio = torch.exp(dist.log_prob(flat["act"][idx]) - flat["logp"][idx])
            a = adv[idx]
            pg = -torch.min(ratio * a, ratio.clamp(1 - args.clip, 1 + args.clip) * a).mean()
            loss = pg + 0.5 * ((val - target[idx]) ** 2).mean() - args.ent * dist.entropy().mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            opt.step()
    return float(loss.detach())


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", default="dominoes_v0", choices=vector.BATCHED)
    ap.add_argument("--num-envs", type=int, default=1024)
    ap.add_argument("--updates", type=int, default=50)
    ap.add_argument("--horizon", type=int, default=32, help="learner decisions per game per update")
    ap.add_argument("--opponent", default="random", help="'random' or a bot name of agents ('greedy', 'normal')")
    ap.add_argument("--reward", default="outcome", choices=("points", "outcome"))
    ap.add_argument("--episode", default="deal", choices=("deal", "match"))
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--gamma", type=float, default=1.0)
    ap.add_argument("--lam", type=float, default=0.95)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--minibatch", type=int, default=4096)
    ap.add_argument("--clip", type=float, default=0.2)
    ap.add_argument("--ent", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    venv = vector.make(args.env, args.num_envs, seed=args.seed, opponent=args.opponent, reward=args.reward,
                       episode=args.episode)
    net = ActorCritic(venv.obs_size, venv.num_actions, args.hidden)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    ts = venv.reset()
    history = []
    for u in range(1, args.updates + 1):
        t0 = time.perf_counter()
        batch, last_val, ts, returns = collect(venv, net, ts, args.horizon)
        adv, target = gae(batch, last_val, args.gamma, args.lam)
        loss = update(net, opt, batch, adv, target, args)
        dt = time.perf_counter() - t0
        row = {"update": u, "decisions_per_s": args.horizon * args.num_envs / dt, "episodes": len(returns),
               "mean_return": float(np.mean(returns)) if returns else float("nan"),
               "mean_reward": float(batch["rew"].mean()), "loss": loss}
        history.append(row)
        print(f"update {u:4d}  {row['decisions_per_s']:>9,.0f} learner decisions/s  episodes {len(returns):6d}  "
              f"mean return {row['mean_return']:+.3f}  mean reward {row['mean_reward']:+.3f}", flush=True)
    return {"history": history}


if __name__ == "__main__":
    main()
