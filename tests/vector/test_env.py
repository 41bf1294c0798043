"""The vector env's API (:mod:`kozel_env.vector.env`): the single-learner mode against the AEC env driven
the same way, the opponent forms, bad actions and options, seeds."""
from types import SimpleNamespace

import numpy as np
import pytest

from kozel_env import vector
from kozel_env.core.errors import IllegalActionError, InvalidOptionError
from kozel_env.registry import load


def lowest_legal(obs, mask):
    return np.argmax(np.asarray(mask) > 0, axis=1)


def _play_to_learner(env, side, game, reward_sum):
    """Opponents (lowest legal move) play in the AEC env until a seat of ``side`` is to move."""
    while not env.terminations[env.agent_selection]:
        seat = env.agent_name_mapping[env.agent_selection]
        if game.side_of(seat) == side:
            return reward_sum
        o = env.observe(env.agent_selection)
        env.step(int(lowest_legal(None, o["action_mask"][None])[0]))
        reward_sum += env.rewards[f"player_{side}"]
    return reward_sum


@pytest.mark.parametrize(("name", "options"), [("dominoes_v0", {"reward": "points"}),
                                                ("queens_and_jacks_v0", {"episode": "deal"})])
def test_single_learner_mode_is_the_aec_env_with_the_opponent_moving_between_the_learner_decisions(name, options):
    B, seed = 6, 11
    venv = vector.make(name, B, seed=seed, opponent=lowest_legal, **options)
    envs = [load(name).env(**options) for _ in range(B)]
    game = envs[0].unwrapped.game
    S = game.num_sides
    episode = [0] * B
    carry = [0.0] * B
    ts = venv.reset()
    for b, (env, s) in enumerate(zip(envs, vector.seeds_from(seed, B))):
        env.reset(seed=int(s))
        carry[b] = _play_to_learner(env, b % S, game, 0.0)
    gen = np.random.default_rng(0)
    episodes = 0
    for step in range(150):
        for b, env in enumerate(envs):
            side = (b + episode[b]) % S
            assert game.side_of(int(ts.seat[b])) == side
            assert ts.seat[b] == env.agent_name_mapping[env.agent_selection]
            o = env.observe(env.agent_selection)
            assert np.array_equal(ts.obs[b], o["observation"]) and np.array_equal(ts.mask[b], o["action_mask"])
        actions = vector.random_actions(ts.mask, gen)
        ts = venv.step(actions)
        for b, env in enumerate(envs):
            side = (b + episode[b]) % S
            env.step(int(actions[b]))
            got = carry[b] + env.rewards[f"player_{side}"]
            got = _play_to_learner(env, side, game, got)
            carry[b] = 0.0
            done = env.terminations[env.agent_selection]
            assert ts.done[b] == done, (step, b)
            assert ts.rewards[b] == np.float32(got), (step, b, ts.rewards[b], got)
            if done:
                episodes += 1
                assert ts.info["learner_return"][b] == env.unwrapped.game_state.match_result["returns"][side]
                episode[b] += 1
                env.reset()
                carry[b] = _play_to_learner(env, (b + episode[b]) % S, game, 0.0)
    assert episodes >= 3


def test_a_bad_action_names_the_game_and_the_legal_moves_and_changes_nothing():
    venv = vector.make("dominoes_v0", 4, seed=3)
    ts = venv.reset()
    before = venv.engine.hands.copy(), venv.state()
    bad = vector.random_actions(ts.mask, np.random.default_rng(0))
    illegal = int(np.flatnonzero(ts.mask[2] == 0)[0])
    bad[2] = illegal
    expected = r"game 2: action \d+=\d\d is not legal for player_\d.*legal: \['14=11'\]"
    with pytest.raises(IllegalActionError, match=expected) as e:
        venv.step(bad)
    assert e.value.action == illegal
    assert np.array_equal(venv.engine.hands, before[0]) and np.array_equal(venv.state(), before[1])
    with pytest.raises(IllegalActionError, match="shape"):
        venv.step(bad[:3])
    with pytest.raises(IllegalActionError, match="int action ids"):
        venv.step(bad.astype(float))
    with pytest.raises(IllegalActionError, match="out of range"):
        venv.step(np.full(4, 99))


def test_step_and_state_before_reset_say_so():
    venv = vector.make("dominoes_v0", 2, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros(2, np.int64))
    with pytest.raises(RuntimeError, match="reset"):
        venv.state()


def test_options_are_checked_in_the_envs_one_home():
    with pytest.raises(InvalidOptionError, match="episode"):
        vector.make("dominoes_v0", 2, episode="hand")
    with pytest.raises(InvalidOptionError):
        vector.make("dominoes_v0", 2, target=0)
    with pytest.raises(InvalidOptionError, match="AEC env"):
        vector.make("dominoes_v0", 2, infos="flat")
    with pytest.raises(InvalidOptionError, match="no batched engine"):  # every registered env has one now
        vector.env.engine_class(SimpleNamespace(name="x_v0", engine_id="x"))
    with pytest.raises(InvalidOptionError, match="num_envs"):
        vector.make("dominoes_v0", 0)
    with pytest.raises(InvalidOptionError, match="learner_side"):
        vector.make("dominoes_v0", 2, opponent="random", learner_side=2)
    with pytest.raises(InvalidOptionError, match="seed"):
        vector.make("dominoes_v0", 2, seed=[1, 2, 3]).reset()


def test_seeds_make_the_same_games_and_a_list_of_seeds_is_one_per_game():
    def play(venv):
        ts = venv.reset()
        gen = np.random.default_rng(5)
        out = []
        for _ in range(40):
            ts = venv.step(vector.random_actions(ts.mask, gen))
            out.append(ts.obs.copy())
        return np.stack(out)

    a = play(vector.make("queens_and_jacks_v0", 3, seed=9))
    assert np.array_equal(a, play(vector.make("queens_and_jacks_v0", 3, seed=9)))
    assert np.array_equal(a, play(vector.make("queens_and_jacks_v0", 3, seed=vector.seeds_from(9, 3).tolist())))
    assert not np.array_equal(a, play(vector.make("queens_and_jacks_v0", 3, seed=10)))


@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_opponents_by_name_play_only_their_seats(opponent):
    venv = vector.make("queens_and_jacks_v0", 8, seed=1, opponent=opponent, learner_side=1)
    ts = venv.reset()
    gen = np.random.default_rng(0)
    for _ in range(60):
        assert (ts.seat % 2 == 1).all()
        ts = venv.step(vector.random_actions(ts.mask, gen))


def test_an_opponent_that_needs_the_engine_state_is_refused():
    with pytest.raises(InvalidOptionError, match="needs the engine state"):
        vector.make("queens_and_jacks_v0", 2, opponent="hard")


def test_random_actions_are_legal_and_cover_every_legal_move():
    mask = np.zeros((3, 6), np.int8)
    mask[0, [1, 4]] = 1
    mask[1, 5] = 1
    mask[2] = 1
    gen = np.random.default_rng(0)
    picks = np.stack([vector.random_actions(mask, gen) for _ in range(300)])
    assert set(picks[:, 0]) == {1, 4} and set(picks[:, 1]) == {5} and set(picks[:, 2]) == set(range(6))


def test_state_per_game_is_at_most_a_kilobyte():
    for name in vector.BATCHED:
        assert vector.make(name, 16).engine.state_nbytes() <= 1024, name


def test_sample_actions_are_uniform_over_the_legal_moves_of_every_game():
    for name in vector.BATCHED:
        venv = vector.make(name, 64, seed=4)
        ts = venv.reset()
        gen = np.random.default_rng(1)
        for _ in range(30):
            a = venv.sample_actions(gen)
            assert (ts.mask[np.arange(64), a] == 1).all(), name
            ts = venv.step(a)
    venv = vector.make("dominoes_v0", 1, seed=0)
    ts = venv.reset()
    ts = venv.step(venv.sample_actions(gen))
    legal = set(np.flatnonzero(ts.mask[0]).tolist())
    picks = {int(venv.sample_actions(gen)[0]) for _ in range(200)}
    assert picks == legal


def test_the_check_reads_the_engines_mask_not_the_array_handed_out():
    venv = vector.make("queens_and_jacks_v0", 4, seed=2)
    ts = venv.reset()
    illegal = int(np.flatnonzero(ts.mask[0] == 0)[0])
    ts.mask[0, illegal] = 1  # editing the returned mask does not make a move legal
    a = venv.sample_actions(np.random.default_rng(0))
    a[0] = illegal
    with pytest.raises(IllegalActionError, match="game 0"):
        venv.step(a)
