"""Conformance suite: every registered environment (kozel_env/registry.py) passes all of these.

A new environment gets the whole suite by registering; nothing here names a game.
"""
from __future__ import annotations

import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from kozel_env.core.errors import IllegalActionError, InvalidOptionError
from kozel_env.core.rng import Rng
from kozel_env.registry import load

from .conftest import ENV_CASES, ENV_DEFAULTS, random_play


def _fingerprint(env):
    """Everything observable about an env's position: oracle state, agent to move, every observation."""
    obs = [env.observe(a) for a in env.agents]
    return (env.state().tobytes(), env.agent_selection,
            tuple(o["observation"].tobytes() + o["action_mask"].tobytes() for o in obs),
            tuple(sorted(env._cumulative_rewards.items())))


# ------------------------------------------------------------------ PettingZoo's own tests
@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_pettingzoo_api_test(name, opts):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(load(name).env(**opts), num_cycles=200)


@pytest.mark.parametrize("name,opts", ENV_DEFAULTS)
def test_pettingzoo_seed_test(name, opts):
    mod = load(name)
    seed_test(lambda: mod.env(**opts), num_cycles=200)


# ------------------------------------------------------------------ spaces and episodes
@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_observations_in_space_and_rewards_zero_sum_with_points(name, opts):
    """Every observation in its space; with reward="points" every step's rewards sum to zero and so do the
    rewards each agent collects through last() over the whole match (dead steps included)."""
    env = load(name).env(reward="points", **opts)
    env.reset(seed=3)
    got = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(100_000):
        obs, reward, term, trunc, _ = env.last()
        got[agent] += reward
        assert env.observation_space(agent).contains(obs), f"{agent}'s observation leaves its space"
        assert abs(sum(env.rewards.values())) < 1e-9
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[len(got) * 7 % len(legal)]))
    assert not env.agents and env.unwrapped.game_state.terminal
    assert any(got.values()), "no reward reached any agent"
    assert abs(sum(got.values())) < 1e-9, f"the match's rewards are not zero-sum: {got}"


@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_outcome_rewards_arrive_only_at_the_end(name, opts):
    env = load(name).env(**opts)
    env.reset(seed=5)
    seen = []

    def check(env, agent, obs):
        assert all(r == 0 for r in env.rewards.values()), "outcome rewards before the episode ended"
        seen.append(agent)

    random_play(env, np.random.default_rng(1), on_decision=check)
    st = env.unwrapped.game_state
    assert st.terminal and st.match_result is not None
    assert set(st.returns()) <= {-1.0, 0.0, 1.0}
    assert seen


@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_single_deal_episode_ends_after_one_deal(name, opts):
    env = load(name).env(episode="deal", **opts)
    env.reset(seed=11)
    random_play(env, np.random.default_rng(2))
    st = env.unwrapped.game_state
    assert st.terminal and st.deals_played == 1 and len(st.results) == 1
    assert not env.agents  # every agent took its dead step


# ------------------------------------------------------------------ mask exactness
@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_mask_exact_under_random_play(name, opts):
    """Every unmasked action is accepted; every masked one is rejected and leaves the state unchanged."""
    env = load(name).env(**opts)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    budget = [40]

    def check(env, agent, obs):
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.any()
        assert sorted(np.flatnonzero(mask)) == sorted(env.unwrapped.legal_actions())
        if budget[0] <= 0 or rng.random() > 0.3:
            return
        budget[0] -= 1
        before = _fingerprint(env)
        illegal = np.flatnonzero(mask == 0)
        for a in rng.choice(illegal, size=min(8, len(illegal)), replace=False) if len(illegal) else []:
            with pytest.raises(IllegalActionError):
                env.step(int(a))
            assert _fingerprint(env) == before
        blob = pickle.dumps(env)
        for a in np.flatnonzero(mask):
            copy = pickle.loads(blob)
            copy.step(int(a))  # accepted
            copy.unwrapped.game_state.check_invariants()
        assert _fingerprint(env) == before

    random_play(env, rng, on_decision=check)
    assert budget[0] < 40


# ------------------------------------------------------------------ hidden information
@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_leak_observation_independent_of_hidden_information(name, opts):
    """Re-deal what a player cannot see (consistently with its view): its observation must not change.
    The re-deals must really move hidden items, or the test would prove nothing."""
    env = load(name).env(**opts)
    env.reset(seed=13)
    game = env.unwrapped.game
    rng = Rng(99)
    changed = [0]

    def check(env, agent, obs):
        st = env.unwrapped.game_state
        for p in range(game.num_players):
            mine = game.observe(st, p)
            for _ in range(2):
                other = game.sample_consistent(st, p, rng)
                other.check_invariants()
                assert np.array_equal(game.observe(other, p), mine), f"seat {p}'s observation leaks"
                if not np.array_equal(game.oracle(other), game.oracle(st)):
                    changed[0] += 1

    random_play(env, np.random.default_rng(13), on_decision=check)
    assert changed[0] > 0, "sample_consistent never changed any hidden information"


@pytest.mark.parametrize("name,opts", ENV_DEFAULTS)
def test_observation_of_other_seats_has_no_mask(name, opts):
    env = load(name).env(**opts)
    env.reset(seed=1)
    for a in env.agents:
        if a != env.agent_selection:
            assert not env.observe(a)["action_mask"].any()


# ------------------------------------------------------------------ determinism, clone, pickle
_PLAY = """
import hashlib, numpy as np
from kozel_env.registry import load
env = load({name!r}).env(**{opts!r}); env.reset(seed=2024)
h = hashlib.sha256(); rng = np.random.default_rng(0)
for agent in env.agent_iter():
    obs, r, term, trunc, info = env.last()
    h.update(obs["observation"].tobytes()); h.update(obs["action_mask"].tobytes()); h.update(repr(r).encode())
    if term or trunc:
        env.step(None); continue
    legal = np.flatnonzero(obs["action_mask"]); env.step(int(legal[rng.integers(len(legal))]))
print(h.hexdigest())
"""


@pytest.mark.parametrize("name,opts", ENV_DEFAULTS)
def test_determinism_across_processes(name, opts):
    code = _PLAY.format(name=name, opts=opts)
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": str(s), "PATH": ""}).stdout for s in (1, 2)}
    assert len(outs) == 1 and len(next(iter(outs))) == 65


@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_clone_is_independent_and_replays_identically(name, opts):
    env = load(name).env(**opts)
    env.reset(seed=21)
    game = env.unwrapped.game
    rng = np.random.default_rng(21)
    for _ in range(15):
        st = env.unwrapped.game_state
        if st.terminal:
            break
        c = st.clone()
        before = game.oracle(st).tobytes()
        legal = c.legal_actions()
        c.apply_action(legal[rng.integers(len(legal))])
        assert game.oracle(st).tobytes() == before, "mutating a clone changed the original"
        c2 = st.clone()
        a = legal[0]
        c2.apply_action(a)
        c3 = st.clone()
        c3.apply_action(a)
        assert game.oracle(c2).tobytes() == game.oracle(c3).tobytes()
        env.step(int(legal[rng.integers(len(legal))]))


@pytest.mark.parametrize("name,opts", ENV_DEFAULTS)
def test_pickle_round_trip_mid_game_continues_identically(name, opts):
    env = load(name).env(**opts)
    env.reset(seed=8)
    rng = np.random.default_rng(8)
    for _ in range(10):
        obs = env.last()[0]
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    twin = pickle.loads(pickle.dumps(env))
    assert _fingerprint(twin) == _fingerprint(env)
    for _ in range(10):
        if env.terminations[env.agent_selection]:
            break
        a = int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"])))
        env.step(a)
        twin.step(a)
        assert _fingerprint(twin) == _fingerprint(env)


# ------------------------------------------------------------------ invariants
@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_invariant_fuzzing(name, opts):
    """Conservation laws after every decision, scores never fall, the match ends exactly at the rules'
    condition (the engine's check_invariants asserts the game-specific part)."""
    for seed in range(3):
        env = load(name).env(**opts)
        env.reset(seed=100 + seed)

        def check(env, agent, obs):
            env.unwrapped.game_state.check_invariants()

        random_play(env, np.random.default_rng(seed), on_decision=check)
        st = env.unwrapped.game_state
        st.check_invariants()
        assert st.terminal and st.current_player == -1


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("name,opts", ENV_DEFAULTS)
def test_bad_actions_raise_clear_errors_and_leave_state_unchanged(name, opts):
    env = load(name).env(**opts)
    with pytest.raises(RuntimeError):
        env.step(0)
    env.reset(seed=4)
    before = _fingerprint(env)
    n = env.action_space(env.agent_selection).n
    illegal = [a for a in range(n) if a not in env.unwrapped.legal_actions()]
    for bad in [n, -1, 10**9, "x", 1.5, None, [0], True]:
        with pytest.raises(IllegalActionError, match="legal moves"):
            env.step(bad)
        assert _fingerprint(env) == before
    if illegal:
        with pytest.raises(IllegalActionError, match="not legal") as e:
            env.step(illegal[0])
        assert env.unwrapped.legal_moves()[0] in str(e.value)
        assert _fingerprint(env) == before
    with pytest.raises(IllegalActionError):
        env.unwrapped.move_to_action("no such move")


@pytest.mark.parametrize("name,opts", ENV_DEFAULTS)
def test_step_for_done_agent_raises(name, opts):
    env = load(name).env(episode="deal", **opts)
    env.reset(seed=6)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term:
            with pytest.raises(IllegalActionError, match="done"):
                env.step(0)
            break
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    else:
        pytest.fail("episode never ended")


@pytest.mark.parametrize("name,opts", ENV_DEFAULTS)
def test_bad_options_raise(name, opts):
    mod = load(name)
    with pytest.raises(InvalidOptionError):
        mod.env(no_such_rule=1, **opts)
    with pytest.raises(InvalidOptionError):
        mod.env(episode="forever", **opts)
    with pytest.raises(InvalidOptionError):
        mod.env(reward="money", **opts)
    with pytest.raises(InvalidOptionError):
        mod.env(render_mode="video", **opts)
    env = mod.env(**opts)
    with pytest.raises(InvalidOptionError):
        env.reset(seed=0, options={"hands": "not hands"})
    with pytest.raises(InvalidOptionError):
        env.reset(seed=0, options={"scores": [-5] * 8})
    with pytest.warns(UserWarning, match="unknown reset option"):
        env.reset(seed=0, options={"typo_option": 1})


# ------------------------------------------------------------------ notation and rendering
@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_move_notation_round_trips(name, opts):
    env = load(name).env(**opts)
    env.reset(seed=9)
    rng = np.random.default_rng(9)

    def check(env, agent, obs):
        for a in env.unwrapped.legal_actions():
            text = env.unwrapped.action_to_move(a)
            assert env.unwrapped.move_to_action(text) == a, (a, text)

    random_play(env, rng, on_decision=check)


@pytest.mark.parametrize("name,opts", ENV_DEFAULTS)
def test_render_modes(name, opts, capsys):
    env = load(name).env(render_mode="ansi", **opts)
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str) and "player_0" in text
    env = load(name).env(render_mode="human", **opts)
    env.reset(seed=1)
    env.render()
    assert "player_0" in capsys.readouterr().out
    env = load(name).env(render_mode="rgb_array", **opts)
    env.reset(seed=1)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3 and frame.std() > 0


@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_render_modes_at_the_end_of_the_match(name, opts):
    """The finished table renders too, as text for every viewer and as a picture (it shows the result)."""
    env = load(name).env(render_mode="ansi", **opts)
    env.reset(seed=2)
    random_play(env, np.random.default_rng(2))
    assert env.unwrapped.game_state.terminal
    texts = [env.render(viewer=v) for v in [None] + env.possible_agents]
    assert all(isinstance(t, str) and "player_0" in t for t in texts)
    pic = load(name).env(render_mode="rgb_array", **opts)
    pic.reset(seed=2)
    random_play(pic, np.random.default_rng(2))
    assert pic.render().shape == frame_shape(pic)


def frame_shape(env):
    from kozel_env.picture import picture

    st = env.unwrapped.game.new_state(0)
    return picture(env.unwrapped.game, st).shape


@pytest.mark.parametrize("name,opts", ENV_DEFAULTS)
def test_state_is_oracle_view(name, opts):
    env = load(name).env(**opts)
    env.reset(seed=1)
    s = env.state()
    assert s.shape == env.state_space.shape and s.dtype == np.float32
    assert env.state_space.contains(s)
