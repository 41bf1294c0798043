"""Trained agents: PPO self-play (PyTorch) and the shipped checkpoints (played with numpy, no torch needed).

* :func:`load` -- ``agents.rl.load("dominoes_v0")``: the shipped agent of a game, an ``Agent`` with
  ``act(observation, action_mask)``; :func:`available` lists the games with a checkpoint.
* Training (imports torch): ``kozel-train --env <game>`` (``python -m agents.rl.train``, in a checkout
  ``python examples/train.py``), i.e. :func:`agents.rl.train.main` (:func:`agents.rl.train.run` returns the
  summary; budget, phases, evaluations, what ships); per-game settings in :mod:`agents.rl.configs`. One run
  is a :class:`agents.rl.ppo.PPOTrainer` (with :class:`agents.rl.configs.PPOConfig`) composing
  :mod:`agents.rl.rollout` (matches, seats, opponent pool, rewards), :mod:`agents.rl.imitation` (the warm
  start) and the PPO update (:mod:`agents.rl.ppo`); :mod:`agents.rl.common` says what training reads of a
  game.
* Evaluation on duplicate deals: :func:`agents.rl.evaluate.evaluate`.
* Files: a policy ``.npz`` and a ``last.pt`` load without running code (:mod:`agents.rl.safe_load`).
"""
from __future__ import annotations

from .policy import NumpyPolicy, RLAgent, available, checkpoint_path, load

__all__ = ["NumpyPolicy", "RLAgent", "available", "checkpoint_path", "load"]
