"""Trained agents: PPO self-play (PyTorch) and the shipped checkpoints (played with numpy, no torch needed).

* :func:`load` -- ``agents.rl.load("dominoes_v0")``: the shipped agent of a game, an ``Agent`` with
  ``act(observation, action_mask)``; :func:`available` lists the games with a checkpoint.
* Training: :class:`agents.rl.ppo.PPOTrainer` with :class:`agents.rl.ppo.PPOConfig` (imports torch), or
  ``python examples/train.py --env <game>``; per-game settings in :mod:`agents.rl.configs`.
* Evaluation on duplicate deals: :func:`agents.rl.evaluate.evaluate`.
"""
from __future__ import annotations

from .policy import NumpyPolicy, RLAgent, available, checkpoint_path, load

__all__ = ["NumpyPolicy", "RLAgent", "available", "checkpoint_path", "load"]
