"""The smoke selection (``python -m pytest -m smoke``, well under a minute): every registered env once, with
its default rules: reset, the spaces, a few steps, the action mask against the engine's legal moves, a
masked-out id refused, a random full deal to the end, and one bot playing a whole deal. The default suite
runs these too; the thorough versions are tests/test_conformance.py and the per-game folders."""
from __future__ import annotations

import numpy as np
import pytest

from agents.base import decide
from agents.registry import make_agent
from kozel_env.core.errors import IllegalActionError
from kozel_env.registry import ENVIRONMENTS, load

from .conftest import random_play

pytestmark = pytest.mark.smoke
NAMES = sorted(ENVIRONMENTS)


def _deal_env(name):
    return load(name).env(episode="deal")


@pytest.mark.parametrize("name", NAMES)
def test_reset_gives_the_first_seat_an_observation_in_its_space(name):
    env = _deal_env(name)
    env.reset(seed=0)
    assert env.agents == env.possible_agents
    agent = env.agent_selection
    obs = env.observe(agent)
    assert env.observation_space(agent).contains(obs)
    assert obs["action_mask"].sum() >= 1


@pytest.mark.parametrize("name", NAMES)
def test_the_mask_is_the_engines_legal_moves_for_a_few_steps(name):
    env = _deal_env(name)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(6):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        legal = sorted(env.unwrapped.game_state.legal_actions())
        assert list(np.flatnonzero(obs["action_mask"])) == legal
        env.step(int(rng.choice(legal)))


@pytest.mark.parametrize("name", NAMES)
def test_a_masked_out_action_is_refused_and_changes_nothing(name):
    env = _deal_env(name)
    env.reset(seed=2)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = np.flatnonzero(mask == 0)
    if illegal.size == 0:
        pytest.skip(f"{name}: every action is legal at the first decision of seed 2")
    before = env.unwrapped.game_state.clone()
    with pytest.raises(IllegalActionError):
        env.step(int(illegal[0]))
    assert env.unwrapped.game_state.legal_actions() == before.legal_actions()
    assert env.unwrapped.game_state.current_player == before.current_player


@pytest.mark.parametrize("name", NAMES)
def test_a_random_deal_plays_to_the_end(name):
    env = _deal_env(name)
    env.reset(seed=3)
    decisions = random_play(env, np.random.default_rng(3))
    assert decisions > 0 and not env.agents


@pytest.mark.parametrize("name", NAMES)
def test_a_bot_plays_a_whole_deal_with_legal_moves(name):
    """``normal`` in one seat, random legal moves in the others (the env raises on an illegal move)."""
    env = _deal_env(name)
    env.reset(seed=4)
    bot_seat = env.possible_agents[0]
    bot = make_agent("normal", name, seed=4, env_options={"episode": "deal"})
    if hasattr(bot, "reset"):
        bot.reset()
    rng = np.random.default_rng(4)
    bot_moves = 0
    for agent in env.agent_iter(100_000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if agent == bot_seat:
            env.step(decide(bot, env, obs["observation"], obs["action_mask"]))
            bot_moves += 1
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert bot_moves > 0 and not env.agents
