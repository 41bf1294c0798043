import numpy as np
import pytest

from kozel_env.registry import ENVIRONMENTS, load

ENV_CASES = [pytest.param(name, opts, id=f"{name}-{i}") for name in ENVIRONMENTS
             for i, opts in enumerate(ENVIRONMENTS[name][1])]
ENV_DEFAULTS = [pytest.param(name, ENVIRONMENTS[name][1][0], id=name) for name in ENVIRONMENTS]


def random_play(env, rng, max_steps=100_000, on_decision=None):
    """Play to the end with uniformly random legal actions; returns the number of decisions."""
    n = 0
    for agent in env.agent_iter(max_steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if on_decision is not None:
            on_decision(env, agent, obs)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        n += 1
    return n


@pytest.fixture
def make_env():
    def make(name, **opts):
        return load(name).env(**opts)
    return make


def pytest_configure(config):
    # until pyproject's [tool.pytest.ini_options] markers list it (then this line is a harmless duplicate)
    config.addinivalue_line("markers", "smoke: one quick pass over every env (tests/test_smoke.py): pytest -m smoke")
