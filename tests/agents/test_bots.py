"""The bots (issue 7, item 2): every registered game has random, easy, normal, hard and crazy; they play
only legal moves, are deterministic with a seed, and see only what their seat may know."""
from __future__ import annotations

import numpy as np
import pytest

from agents import decide, known_agents, make_agent, parse_spec, play_match, register
from agents.base import Agent
from agents.registry import resolve_spec
from agents.strategies import strategy_for
from kozel_env.core.rng import Rng
from kozel_env.registry import load

from .helpers import ENV_CASES, ENV_NAMES, positions

LADDER = ["random", "easy", "normal", "hard", "crazy"]


def test_spec_parsing_and_presets():
    assert parse_spec("pimc:n=16,rollout=easy,z=0.5") == ("pimc", {"n": 16, "rollout": "easy", "z": 0.5})
    assert parse_spec("normal") == ("normal", {})
    name, opts = resolve_spec("hard:n=3")
    assert name == "pimc" and opts["level"] == "hard" and opts["n"] == 3
    assert set(LADDER) <= set(known_agents())
    with pytest.raises(KeyError, match="unknown agent"):
        make_agent("grandmaster", "dominoes_v0")
    with pytest.raises(ValueError, match="key=value"):
        parse_spec("pimc:16")


@pytest.mark.parametrize("name", ENV_NAMES)
def test_every_game_has_the_whole_ladder(name):
    for spec in LADDER + ["greedy"]:
        agent = make_agent(spec, name, seed=1)
        assert hasattr(agent, "act")
    hard, crazy = make_agent("hard", name), make_agent("crazy", name)
    assert crazy.n > hard.n, "crazy imagines more deals than hard"


@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_heuristic_bots_play_legal_moves_through_a_match(name, opts):
    env = load(name).env(**opts)
    specs = ["normal", "easy", "greedy", "random"]
    bots = {a: make_agent(specs[i % 4], name, seed=i, env_options=opts) for i, a in enumerate(env.possible_agents)}
    play_match(env, bots, seed=5)  # the env raises IllegalActionError on any illegal move
    assert env.unwrapped.game_state.terminal


@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_pimc_plays_legal_moves_through_a_deal(name, opts):
    env = load(name).env(episode="deal", **opts)
    bots = {a: make_agent("pimc:n=2" if i == 0 else "normal", name, seed=i, env_options=opts)
            for i, a in enumerate(env.possible_agents)}
    play_match(env, bots, seed=3)
    assert env.unwrapped.game_state.terminal


@pytest.mark.parametrize("name", ENV_NAMES)
def test_pimc_with_a_depth_limit_scores_the_cut_position(name):
    env = load(name).env(episode="deal")
    bots = {a: make_agent("pimc:n=1,depth=3" if i == 1 else "easy", name, seed=i)
            for i, a in enumerate(env.possible_agents)}
    play_match(env, bots, seed=4)
    assert env.unwrapped.game_state.terminal


def _trajectory(name, spec, seed):
    env = load(name).env(episode="deal")
    bots = {a: make_agent(spec, name, seed=seed + i) for i, a in enumerate(env.possible_agents)}
    env.reset(seed=11)
    moves = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = decide(bots[agent], env, obs["observation"], obs["action_mask"])
        moves.append(a)
        env.step(a)
    return moves


@pytest.mark.parametrize("name", ENV_NAMES)
def test_bots_are_deterministic_with_a_seed(name):
    for spec in ("easy", "pimc:n=2"):
        assert _trajectory(name, spec, 4) == _trajectory(name, spec, 4)
    assert _trajectory(name, "random", 1) != _trajectory(name, "random", 2)


@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_playout_rule_from_a_state_is_the_rule_from_the_observation(name, opts):
    """PIMC plays its imagined deals out with ``normal_state``/``easy_state``, which read the seat's facts
    from an engine state instead of its observation vector: they must decide exactly as ``normal``/``easy``
    do, or the imagined players would not be the bots."""
    checked = 0
    for env, st, cp in positions(name, opts, seed=2):
        s = strategy_for(env.unwrapped.game)
        legal = st.legal_actions()
        if len(legal) < 2:
            continue
        obs = env.observe(env.agent_selection)
        for level in ("easy", "normal"):
            from_obs = getattr(s, level)(obs["observation"], obs["action_mask"])
            assert getattr(s, level + "_state")(st, cp, legal) == from_obs
        checked += 1
    assert checked > 5


@pytest.mark.parametrize("name", ENV_NAMES)
def test_pimc_decides_from_the_seats_view_only(name):
    """Replace every card or tile the seat cannot see by another consistent deal: the same pimc bot (same
    seed) makes the same decision, so nothing hidden leaks into it."""
    checked = 0
    rng = Rng(5)
    for env, st, cp in positions(name, {}, seed=6):
        if len(st.legal_actions()) < 2 or checked >= 6:
            continue
        game = env.unwrapped.game
        other = game.sample_consistent(st, cp, rng)
        obs = game.observe(st, cp)
        mask = np.zeros(game.num_actions, np.int8)
        mask[st.legal_actions()] = 1
        a = make_agent("pimc:n=3", name, seed=9).act(obs, mask, state=st, seat=cp)
        b = make_agent("pimc:n=3", name, seed=9).act(obs, mask, state=other, seat=cp)
        assert a == b
        checked += 1
    assert checked >= 3


def test_pimc_needs_the_state():
    env = load("dominoes_v0").env()
    env.reset(seed=1)
    for _agent in env.agent_iter():
        obs, *_ = env.last()
        if obs["action_mask"].sum() > 1:
            break
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    with pytest.raises(ValueError, match="decide"):
        make_agent("hard", "dominoes_v0").act(obs["observation"], obs["action_mask"])


def test_a_new_agent_class_can_be_registered():
    @register
    class FirstLegal(Agent):
        name = "first_legal_test"

        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

    agent = make_agent("first_legal_test", "queens_and_jacks_v0")
    env = load("queens_and_jacks_v0").env(episode="deal")
    play_match(env, {a: agent for a in env.possible_agents}, seed=1)


@pytest.mark.parametrize("name", ENV_NAMES)
def test_games_with_equal_rules_share_one_strategy_and_the_cache_stays_bounded(name):
    """A long-lived process (the web server makes a game per table) keeps one strategy per rules config, not one
    per game ever made (keyed by id(game), each strategy held its game: a leak)."""
    import agents.strategies as strategies

    first = strategy_for(load(name).env().unwrapped.game)
    before = len(strategies._CACHE)
    for _ in range(20):
        assert strategy_for(load(name).env().unwrapped.game) is first
    assert len(strategies._CACHE) == before
