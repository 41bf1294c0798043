"""The batched ``beat_or_discard_v0`` (issue 34) is the AEC env with the same seed and actions: every
observation, mask, oracle state, reward, deal result and episode return, for every option set the registry
tests (and a single-deal, points-reward one), through :func:`tests.vector.test_identity.run_identity`.

A match over at its set-up (four aces or four sixes dealt, C1.14) is skipped by the vector env, which
starts the next match of the game's seed stream; on the AEC side that is ``reset()`` called again
(:func:`_skip_matches_over_at_setup`).

Every test runs three times: with the engine's compiled step (numba, :mod:`kozel_env.vector.beat_or_discard_jit`;
skipped where the extra ``fast`` is not installed), with its numpy array moves (``KOZEL_JIT=0``, ``ARRAYS_FROM =
1``) and with its small-batch mode, where each game steps its scalar state (``ARRAYS_FROM`` above any batch
here)."""
import numpy as np
import pytest

from kozel_env import beat_or_discard_v0, vector
from kozel_env.registry import ENVIRONMENTS
from kozel_env.vector import beat_or_discard_jit
from kozel_env.vector.beat_or_discard import BatchedBeatOrDiscard
from tests.vector import test_env
from tests.vector.test_identity import run_identity

CASES = [opts for opts in ENVIRONMENTS["beat_or_discard_v0"][1]] + [
    {"mode": "solo", "num_players": 4, "reward": "points", "episode": "deal"},
    {"claims": False, "four_of_a_kind": False, "target": 4, "reward": "points", "episode": "deal"},
]
IDS = [f"beat_or_discard-{i}" for i in range(len(CASES))]


@pytest.fixture(autouse=True, params=["jit", "arrays", "scalar"])
def _engine_mode(request, monkeypatch):
    """Every way the engine steps: the compiled step, the numpy array moves, or each game's scalar state (a
    small batch)."""
    if request.param == "jit" and not beat_or_discard_jit.AVAILABLE:
        pytest.skip("the compiled step needs numba: pip install kozel_env[fast]")
    monkeypatch.setenv("KOZEL_JIT", "1" if request.param == "jit" else "0")
    arrays_from = 10 ** 9 if request.param == "scalar" else 1
    monkeypatch.setattr(BatchedBeatOrDiscard, "ARRAYS_FROM", arrays_from)
    monkeypatch.setattr(BatchedBeatOrDiscard, "JIT_ARRAYS_FROM", arrays_from)
    return request.param


@pytest.fixture(autouse=True)
def _skip_matches_over_at_setup(monkeypatch):
    """The AEC env's ``reset`` followed by ``reset()`` while the new match is over before any decision."""
    reset = beat_or_discard_v0.raw_env.reset

    def reset_until_a_decision(self, seed=None, options=None):
        reset(self, seed=seed, options=options)
        while self.game_state.terminal:
            reset(self, options=options)

    monkeypatch.setattr(beat_or_discard_v0.raw_env, "reset", reset_until_a_decision)


@pytest.mark.parametrize("options", CASES, ids=IDS)
def test_batched_beat_or_discard_is_the_aec_env_with_the_same_seed_and_actions(options):
    seen = run_identity("beat_or_discard_v0", options, num_envs=12, steps=400, seed=7)
    assert seen["deals"] >= 40 and seen["episodes"] >= 1, seen


@pytest.mark.slow
@pytest.mark.parametrize("options", CASES, ids=IDS)
def test_batched_beat_or_discard_identity_over_thousands_of_games(options):
    seen = run_identity("beat_or_discard_v0", options, num_envs=200, steps=1200, seed=2026)
    assert seen["deals"] >= 2000 and seen["episodes"] >= 100, seen


def test_a_match_over_at_its_setup_is_skipped_for_the_next_seed_of_the_stream():
    """Seed 1722 deals four of a kind (C1.14): the match is over before any decision, and the engine starts
    the next match of the game's seed stream instead, as ``reset()`` called again does."""
    from kozel_env.core.rng import Rng

    game = beat_or_discard_v0.raw_env.make_game({})
    assert game.new_state(1722).terminal
    eng = BatchedBeatOrDiscard(game, 1)
    eng.seeders[:] = 99
    eng.start(np.array([0]), np.array([1722], np.uint64))
    expected = game.new_state(Rng(99).spawn())
    hands = eng.hands[0].tolist() if eng.arrays else eng.states[0].hands  # arrays: the state between hand-offs
    terminal = eng.terminal[0] if eng.arrays else eng.states[0].terminal
    assert not terminal and hands == expected.hands
    assert eng.current_player[0] == expected.current_player


def test_a_step_that_ends_a_game_and_the_next_deal_by_four_of_a_kind_reports_the_last_deal():
    """Seed 37 with the lowest legal move every time: decision 127 ends a game, and the next deal holds
    four aces (C1.14), which ends the match in the same step; the outputs are that last deal's."""
    game = beat_or_discard_v0.raw_env.make_game({})
    eng = BatchedBeatOrDiscard(game, 1)
    eng.start(np.array([0]), np.array([37], np.uint64))
    st = game.new_state(37)
    for _ in range(127):
        deals = st.deals_played
        a = st.legal_actions()[0]
        st.apply_action(a)
        eng.apply(np.array([a]))
    assert st.deals_played == deals + 2 and st.last_result["ended_by"] == "four_aces"
    res = st.last_result
    assert eng.deal_ended[0] and eng.match_over[0]
    assert eng.deal_written[0].tolist() == res["written"] and eng.seat_points[0].tolist() == res["seat_points"]
    assert eng.returns[0].tolist() == st.match_result["returns"]


@pytest.mark.parametrize("options", [{"episode": "deal"}, {"mode": "solo", "num_players": 4, "reward": "points"}],
                         ids=["pairs-deal", "solo4-points"])
def test_single_learner_mode_is_the_aec_env_with_the_opponent_moving_between_the_learner_decisions(options):
    """The vector env's single-learner mode (its sub-batches of opponent games, :meth:`take` / :meth:`put`)
    against the AEC env driven the same way (``tests/vector/test_env.py``'s test, any number of sides)."""
    test_env.test_single_learner_mode_is_the_aec_env_with_the_opponent_moving_between_the_learner_decisions(
        "beat_or_discard_v0", options)


def test_a_step_that_ends_two_deals_rewards_both_deals_points_as_the_aec_env():
    """Seed 5 with the lowest legal move: decision 38 ends a deal and the next deal holds four sixes (C1.14);
    with ``reward="points"`` the AEC env's rewards of that step add both deals' zero-sum points."""
    venv = vector.make("beat_or_discard_v0", 1, seed=[5], reward="points")
    env = beat_or_discard_v0.env(reward="points")
    env.reset(seed=5)
    ts = venv.reset()
    two_deals = 0
    while True:
        mask = env.observe(env.agent_selection)["action_mask"]
        assert (mask == ts.mask[0]).all()
        a = int(np.flatnonzero(mask)[0])
        before = env.unwrapped.game_state.deals_played
        env.step(a)
        ts = venv.step(np.array([a]))
        two_deals += env.unwrapped.game_state.deals_played - before == 2
        assert ts.rewards[0].tolist() == [env.rewards[f"player_{i}"] for i in range(4)]
        if ts.done[0]:
            break
    assert two_deals == 1
