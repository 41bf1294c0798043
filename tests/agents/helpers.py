"""Shared helpers of the agent tests: the registered games and a quick random walk."""
from __future__ import annotations

import numpy as np
import pytest

from kozel_env.registry import ENVIRONMENTS, load

ENV_CASES = [pytest.param(name, opts, id=f"{name}-{i}") for name in ENVIRONMENTS
             for i, opts in enumerate(ENVIRONMENTS[name][1])]
ENV_NAMES = list(ENVIRONMENTS)


def positions(name: str, opts: dict, seed: int, episode: str = "deal", limit: int = 10_000):
    """Yield ``(env, state, seat_to_move)`` at every decision of one random episode (the env steps after
    the caller resumes the generator)."""
    env = load(name).env(episode=episode, **opts)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    n = 0
    for _agent in env.agent_iter(limit):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        st = env.unwrapped.game_state
        yield env, st, st.current_player
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        n += 1
