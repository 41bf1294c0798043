"""The work cap of the search bots (issue 15, item 5: ``hard`` within its 50 ms budget at the 95th percentile):
``pimc:work=W`` stops drawing imagined deals once the decision's playouts have made W moves, after ``min_n``."""
from __future__ import annotations

import pytest

from agents.base import decide
from agents.registry import make_agent
from kozel_env.registry import load


def _counting(agent):
    """Count the imagined deals an agent draws."""
    game = agent.game
    real = game.sample_consistent
    calls = []

    def counted(state, seat, rng):
        calls.append(seat)
        return real(state, seat, rng)

    game.sample_consistent = counted
    return calls, lambda: game.__dict__.pop("sample_consistent")  # the class's method again


def _first_choice(env):
    env.reset(seed=4)
    obs, *_ = env.last()
    assert obs["action_mask"].sum() > 1
    return obs


@pytest.mark.parametrize("work,expect", [(1, 4), (0, 16)])
def test_work_caps_the_imagined_deals_of_a_decision(work, expect):
    env = load("queens_and_jacks_v0").env(episode="deal")
    obs = _first_choice(env)
    bot = make_agent(f"hard:work={work},prune=0", "queens_and_jacks_v0", seed=1)
    calls, restore = _counting(bot)
    try:
        decide(bot, env, obs["observation"], obs["action_mask"])
    finally:
        restore()
    assert len(calls) == expect


def test_queens_and_jacks_hard_is_capped_and_stays_deterministic():
    bot = make_agent("hard", "queens_and_jacks_v0", seed=2)
    assert bot.work == 1500 and bot.min_n == 4
    env = load("queens_and_jacks_v0").env(episode="deal")
    obs = _first_choice(env)
    a = decide(bot, env, obs["observation"], obs["action_mask"])
    again = make_agent("hard", "queens_and_jacks_v0", seed=2)
    assert decide(again, env, obs["observation"], obs["action_mask"]) == a
    assert make_agent("hard", "dominoes_v0").work == 0  # the other games keep their uncapped presets


def test_bad_work_is_refused():
    with pytest.raises(ValueError, match="work"):
        make_agent("hard:work=-1", "queens_and_jacks_v0")
