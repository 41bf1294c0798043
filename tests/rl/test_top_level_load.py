import numpy as np

import agents
from kozel_env import dominoes_v0


def test_agents_load_returns_the_shipped_agent_that_plays_legal_moves():
    agent = agents.load("dominoes_v0")
    env = dominoes_v0.env()
    env.reset(seed=0)
    obs = env.last()[0]
    a = agent.act(obs["observation"], obs["action_mask"])
    assert obs["action_mask"][a] == 1 and isinstance(a, (int, np.integer))
