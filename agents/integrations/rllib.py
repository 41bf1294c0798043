"""Trained RLlib modules as arena agents (:func:`agents.arena.evaluate` factories): greedy play of the masked
logits of the modules that :mod:`kozel_env.integrations.rllib`'s PPO trained. Needs ``ray[rllib]`` and torch
(the ``rllib`` extra)."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np


def modules_from_algo(algo, ids) -> dict:
    """``module id -> RLModule``: standalone CPU copies (eval mode) holding the learner's current weights."""
    import copy

    weights = algo.learner_group.get_weights(module_ids=list(ids))
    out = {}
    for mid in ids:
        clone = copy.deepcopy(algo.get_module(mid))
        clone.set_state(weights[mid])
        clone.eval()
        out[mid] = clone
    return out


def greedy_actions(module, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
    """Argmax of the module's masked logits for a batch (rows) of observations and masks."""
    import torch

    obs = torch.as_tensor(np.atleast_2d(np.asarray(observation, np.float32)))
    mask = torch.as_tensor(np.atleast_2d(np.asarray(action_mask, np.float32)))
    with torch.no_grad():
        out = module.forward_inference({"obs": {"observations": obs, "action_mask": mask}})
    return out["action_dist_inputs"].argmax(dim=-1).numpy()


class RLlibAgent:
    """An arena agent playing trained RLlib modules greedily. With one module per side it picks the module
    of the seat's side, so it declares ``needs_state`` to be told its seat; the engine state it is also
    given is never read."""

    def __init__(self, modules: dict, mapping: dict):
        self.modules = modules
        self.mapping = mapping
        self.per_side = len(set(mapping.values())) > 1
        self.needs_state = self.per_side

    def act(self, observation, action_mask, state=None, seat=None) -> int:
        mid = self.mapping[f"player_{seat}"] if self.per_side else next(iter(self.modules))
        return int(greedy_actions(self.modules[mid], observation, action_mask)[0])


def arena_factory(modules: dict, mapping: dict) -> Callable:
    """A factory for ``agents.arena.evaluate``: ``factory(env_name, seed, env_options) -> RLlibAgent``.
    Greedy play needs no seed; the modules are shared by every seat (built once, outside the factory)."""
    agent = RLlibAgent(modules, mapping)

    def rllib_policy(env_name, seed, env_options):
        return agent

    return rllib_policy
