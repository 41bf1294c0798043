"""The masked actor-critic network (PyTorch), used for training; playing uses :mod:`agents.rl.policy`.

* Actor: MLP from the player's own observation (``game.observe``) to one logit per action id. Illegal
  actions are masked to a large negative logit before the softmax: they get probability exactly zero and are
  never sampled; the entropy is that of the legal actions only.
* Critic: MLP to one value. ``central=False``: from the same observation. ``central=True`` (centralized
  critic, training only): from the observation, the oracle full-information vector (``game.oracle``) and
  the seat one-hot -- the policy never sees the oracle, the value baseline does.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from .sparse import mlp_forward

NEG = -1e9


def mlp(sizes, out_gain: float) -> nn.Sequential:
    layers = []
    for i in range(len(sizes) - 1):
        lin = nn.Linear(sizes[i], sizes[i + 1])
        last = i == len(sizes) - 2
        nn.init.orthogonal_(lin.weight, out_gain if last else np.sqrt(2))
        nn.init.zeros_(lin.bias)
        layers.append(lin)
        if not last:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class ActorCritic(nn.Module):
    def __init__(self, obs_dim: int, num_actions: int, hidden=(256, 256), critic_dim: int | None = None,
                 critic_hidden=None):
        super().__init__()
        self.obs_dim = obs_dim
        self.num_actions = num_actions
        self.hidden = tuple(hidden)
        self.critic_dim = critic_dim or obs_dim
        self.actor = mlp([obs_dim, *hidden, num_actions], 0.01)
        self.critic = mlp([self.critic_dim, *(critic_hidden or hidden), 1], 1.0)

    def masked_logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return mlp_forward(self.actor, obs).masked_fill(~mask, NEG)

    def value(self, cobs: torch.Tensor) -> torch.Tensor:
        return mlp_forward(self.critic, cobs).squeeze(-1)

    def evaluate(self, obs, mask, cobs, actions) -> tuple:
        """(log-prob of ``actions``, entropy over the legal actions, value). ``obs`` and ``cobs``: dense
        tensors or :class:`agents.rl.sparse.SparseBatch` minibatches (the first layers from their nonzero
        entries)."""
        logits = self.masked_logits(obs, mask).float()  # float32 where autocast ran the layers in bfloat16
        logp_all = torch.log_softmax(logits, -1)
        p = logp_all.exp()
        ent = -(p * logp_all).sum(-1)
        logp = logp_all.gather(-1, actions[:, None]).squeeze(-1)
        return logp, ent, self.value(cobs).float()

    @torch.no_grad()
    def act(self, obs, mask, generator=None, greedy=False) -> tuple:
        logits = self.masked_logits(obs, mask)
        if greedy:
            a = logits.argmax(-1)
        else:
            a = torch.multinomial(torch.softmax(logits, -1), 1, generator=generator).squeeze(-1)
        logp = torch.log_softmax(logits, -1).gather(-1, a[:, None]).squeeze(-1)
        return a, logp

    def actor_layers(self) -> list:
        """The actor's (W, b) numpy arrays, for :class:`agents.rl.policy.NumpyPolicy`."""
        return [(m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy())
                for m in self.actor if isinstance(m, nn.Linear)]


class TorchPolicy:
    """A frozen actor (e.g. an opponent-pool snapshot) with ``act_batch`` on numpy arrays."""

    def __init__(self, actor: nn.Module, generator: torch.Generator | None = None, greedy: bool = False):
        self.actor = actor
        self.generator = generator
        self.greedy = greedy

    @torch.no_grad()
    def act_batch(self, obs, masks) -> np.ndarray:
        logits = self.actor(torch.from_numpy(np.asarray(obs, np.float32)))
        logits = logits.masked_fill(~torch.from_numpy(np.asarray(masks) > 0), NEG)
        if self.greedy:
            return logits.argmax(-1).numpy()
        return torch.multinomial(torch.softmax(logits, -1), 1, generator=self.generator).squeeze(-1).numpy()
