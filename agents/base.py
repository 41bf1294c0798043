"""The agent interface and a helper that plays one episode of an environment with a seat -> agent map."""
from __future__ import annotations

import numpy as np


class Agent:
    """Base class. Subclasses implement :meth:`act`; ``reset`` is called at the start of each episode."""

    name = "agent"

    def __init__(self, env_name: str, seed: int = 0):
        self.env_name = env_name
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        pass

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:  # pragma: no cover - abstract
        raise TypeError(f"{type(self).__name__} must define act()")


AGENTS = {}


def register(cls):
    AGENTS[cls.name] = cls
    return cls


def make_agent(name: str, env_name: str, seed: int = 0) -> Agent:
    from . import greedy, random_agent  # noqa: F401  (registration)

    if name not in AGENTS:
        raise KeyError(f"unknown agent {name!r}; known: {sorted(AGENTS)}")
    return AGENTS[name](env_name, seed)


def play_match(env, agents: dict, seed: int | None = None, options: dict | None = None) -> dict:
    """Play one episode; ``agents`` maps agent names to :class:`Agent`. Returns the cumulative rewards."""
    env.reset(seed=seed, options=options)
    for a in agents.values():
        a.reset()
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for name in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[name] += reward
        if term or trunc:
            env.step(None)
            continue
        env.step(agents[name].act(obs["observation"], obs["action_mask"]))
    return totals
