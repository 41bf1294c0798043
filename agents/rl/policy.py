"""Trained policies without torch: the shipped checkpoints and the agent that plays them.

A checkpoint is two small files in ``agents/checkpoints/``: ``<env>.npz`` (the actor's weights, float16) and
``<env>.json`` (the network layout, the env and its options, the training config and seed, and the
measured baselines). The actor is a plain MLP (Linear + ReLU, last layer linear), so numpy runs it: agents
load and play without torch, in the arena, the terminal play mode and the demo.

    import agents
    bot = agents.load("dominoes_v0")          # RLAgent, the Agent interface: act(observation, action_mask)
    a = bot.act(obs["observation"], obs["action_mask"])

Illegal actions never get probability: their logits are replaced by a large negative number before the
softmax / argmax.
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..base import Agent
from .safe_load import load_arrays

CHECKPOINT_DIR = Path(__file__).resolve().parent.parent / "checkpoints"
NEG = np.float32(-1e9)
STAGE_KEYS = ("steps", "bc_decisions", "train_seconds", "train_cpu_seconds", "train_config")
"""What a policy's config says about the training run that produced it (one stage)."""


def training_stages(config: dict) -> list:
    """The training runs behind a policy, first to last: its own config's run, preceded by those of the
    policy it was fine-tuned from (``init_from``, recorded by ``agents.rl.ppo.PPOTrainer`` as a chain). Each
    stage: the :data:`STAGE_KEYS` present (``steps``: PPO decisions, ``bc_decisions``: imitated ones)."""
    stages = []
    c = config
    while c:
        stages.append({k: c[k] for k in STAGE_KEYS if k in c})
        c = c.get("init_from")
    return stages[::-1]


class NumpyPolicy:
    """The actor MLP in numpy. ``layers``: list of (W (out, in), b (out,)) float32 arrays."""

    def __init__(self, layers, config: dict | None = None):
        self.layers = [(np.ascontiguousarray(W, np.float32).T.copy(), np.asarray(b, np.float32))
                       for W, b in layers]
        self.config = dict(config or {})
        self.obs_dim = self.layers[0][0].shape[0]
        self.num_actions = self.layers[-1][0].shape[1]

    def logits(self, obs: np.ndarray) -> np.ndarray:
        x = np.asarray(obs, np.float32)
        last = len(self.layers) - 1
        for i, (Wt, b) in enumerate(self.layers):
            x = x @ Wt + b
            if i < last:
                np.maximum(x, 0.0, out=x)
        return x

    def masked_logits(self, obs, mask) -> np.ndarray:
        return np.where(np.asarray(mask) > 0, self.logits(obs), NEG)

    def probs(self, obs, mask) -> np.ndarray:
        z = self.masked_logits(obs, mask)
        z = z - z.max(axis=-1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=-1, keepdims=True)

    def act_batch(self, obs, mask, rng: np.random.Generator | None = None, greedy: bool = True) -> np.ndarray:
        """Actions for a batch (rows of ``obs`` and ``mask``): argmax, or sampled with ``rng``."""
        if greedy:
            return self.masked_logits(obs, mask).argmax(axis=-1)
        p = self.probs(obs, mask)
        u = rng.random((p.shape[0], 1))
        a = (np.cumsum(p, axis=-1) < u).sum(axis=-1)
        # never step past the last legal action because of rounding
        legal_last = p.shape[1] - 1 - np.argmax(np.asarray(mask)[:, ::-1] > 0, axis=-1)
        return np.minimum(a, legal_last)

    # ---------------------------------------------------------------- files
    def save(self, path_npz, config: dict) -> None:
        path_npz = Path(path_npz)
        arrays = {}
        for i, (Wt, b) in enumerate(self.layers):
            arrays[f"W{i}"] = Wt.T.astype(np.float16)
            arrays[f"b{i}"] = b.astype(np.float16)
        np.savez_compressed(path_npz, **arrays)
        cfg = dict(config)
        cfg["layers"] = [list(Wt.T.shape) for Wt, _ in self.layers]
        path_npz.with_suffix(".json").write_text(json.dumps(cfg, indent=1, sort_keys=False) + "\n")

    @classmethod
    def from_files(cls, path_npz) -> NumpyPolicy:
        """The policy saved by :meth:`save` (``.npz`` + ``.json``). A ``.npz`` holding anything but arrays of
        numbers is refused (:class:`~agents.rl.safe_load.UnsafeFileError`, naming the file)."""
        path_npz = Path(path_npz)
        cfg_path = path_npz.with_suffix(".json")
        config = json.loads(cfg_path.read_text()) if cfg_path.exists() else {}
        z = load_arrays(path_npz)   # allow_pickle=False: a file holding objects is refused, its code never runs
        k = sum(1 for name in z if name.startswith("W"))
        layers = [(z[f"W{i}"].astype(np.float32), z[f"b{i}"].astype(np.float32)) for i in range(k)]
        return cls(layers, config)


class RLAgent(Agent):
    """A trained policy as an :class:`~agents.base.Agent`: ``act(observation, action_mask) -> int``.

    ``greedy=True`` (default) plays the most probable legal action, so the agent is deterministic;
    ``greedy=False`` samples from the policy with the agent's seeded generator. The agent spec ``"rl"``
    (``make_agent("rl", env)``, ``"rl:greedy=false"``, ``"rl:path=runs/x/policy.npz"``; the name table
    :data:`agents.registry.AGENTS`).
    """

    name = "rl"

    def __init__(self, env_name: str, seed: int = 0, env_options: dict | None = None,
                 policy: NumpyPolicy | None = None, greedy: bool = True, path=None):
        if policy is None:
            policy = cached_policy(str(path) if path is not None else str(checkpoint_path(env_name)))
        trained = policy.config.get("env")
        if trained is not None and trained != env_name:
            raise ValueError(f"this checkpoint was trained on {trained!r}, not {env_name!r}")
        if env_options is None:
            env_options = policy.config.get("env_options") or {}
        super().__init__(env_name, seed, env_options=env_options)
        self.policy = policy
        self.greedy = greedy
        if self.game.obs_spec.size != policy.obs_dim or self.game.num_actions != policy.num_actions:
            raise ValueError(f"checkpoint shapes (observation {policy.obs_dim}, actions {policy.num_actions}) do "
                             f"not fit {env_name} {self.env_options} (observation {self.game.obs_spec.size}, "
                             f"actions {self.game.num_actions}): retrain it")

    def act(self, observation, action_mask) -> int:
        a = self.policy.act_batch(np.asarray(observation, np.float32)[None], np.asarray(action_mask)[None],
                                  self.rng, self.greedy)
        return int(a[0])

    def act_batch(self, observations, action_masks) -> np.ndarray:
        return self.policy.act_batch(observations, action_masks, self.rng, self.greedy)


_POLICIES: dict = {}


def cached_policy(path: str) -> NumpyPolicy:
    """One NumpyPolicy per file and process (the arena builds an agent per seat per episode; the expert reads
    its prior from it)."""
    p = Path(path)
    key = (str(p), p.stat().st_mtime_ns if p.exists() else None)
    if key not in _POLICIES:
        if not p.exists():
            raise FileNotFoundError(f"no checkpoint at {p}; shipped: {available()}")
        _POLICIES[key] = NumpyPolicy.from_files(p)
    return _POLICIES[key]


def factory(env_name: str, path=None, greedy: bool = True) -> Callable:
    """An arena factory ``f(env_name, seed, env_options) -> RLAgent`` for a checkpoint (default: shipped)."""
    p = str(Path(path) if path is not None else checkpoint_path(env_name))

    def make(env, seed, env_options=None):
        return RLAgent(env, seed, env_options or None, policy=cached_policy(p), greedy=greedy)

    make.__name__ = f"rl:{Path(p).stem}"
    return make


def checkpoint_path(env_name: str, directory=None) -> Path:
    d = Path(directory) if directory is not None else Path(os.environ.get("KOZEL_CHECKPOINTS", CHECKPOINT_DIR))
    return d / f"{env_name}.npz"


def available() -> list:
    """Names of the environments with a shipped checkpoint."""
    return sorted(p.stem for p in CHECKPOINT_DIR.glob("*.npz"))


def load(env_name: str, seed: int = 0, path=None, greedy: bool = True) -> RLAgent:
    """The shipped trained agent of ``env_name`` (or the checkpoint at ``path``), as an :class:`RLAgent`.

    >>> import agents.rl
    >>> bot = agents.rl.load("dominoes_v0")
    """
    p = Path(path) if path is not None else checkpoint_path(env_name)
    if p.suffix != ".npz":
        p = p.with_suffix(".npz")
    if not p.exists():
        raise FileNotFoundError(f"no checkpoint for {env_name!r} at {p}; shipped: {available()}; train one with "
                                f"`kozel-train --env {env_name}` (python -m agents.rl.train)")
    return RLAgent(env_name, seed, policy=cached_policy(str(p)), greedy=greedy)
