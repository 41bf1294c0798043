"""The batched ``beat_or_discard_v0`` (issue 34) is the AEC env with the same seed and actions: every
observation, mask, oracle state, reward, deal result and episode return, for every option set the registry
tests (and a single-deal, points-reward one), through :func:`tests.vector.test_identity.run_identity`.

A match over at its set-up (four aces or four sixes dealt, C1.14) is skipped by the vector env, which
starts the next match of the game's seed stream; on the AEC side that is ``reset()`` called again
(:func:`_skip_matches_over_at_setup`)."""
import pytest

from kozel_env import beat_or_discard_v0
from kozel_env.registry import ENVIRONMENTS
from tests.vector.test_identity import run_identity

CASES = [opts for opts in ENVIRONMENTS["beat_or_discard_v0"][1]] + [
    {"mode": "solo", "num_players": 4, "reward": "points", "episode": "deal"},
    {"claims": False, "four_of_a_kind": False, "target": 4, "reward": "points", "episode": "deal"},
]
IDS = [f"beat_or_discard-{i}" for i in range(len(CASES))]


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
