"""The batched duplicate-deal evaluator plays exactly what the arena plays (same deals, seatings, bot seeds
and scoring), so training-time evaluations and the baseline table are on the same footing."""
from pathlib import Path

import numpy as np
import pytest

from agents.arena import evaluate as arena_evaluate
from agents.rl.evaluate import evaluate
from agents.rl.policy import CHECKPOINT_DIR as CHECKPOINTS
from agents.rl.policy import NumpyPolicy, RLAgent
from kozel_env.registry import ENVIRONMENTS


def _random_policy(env_name, seed=0):
    from agents.base import game_for

    g = game_for(env_name)
    obs_dim, num_actions = g.obs_spec.size, g.num_actions
    rng = np.random.default_rng(seed)
    layers = [(rng.normal(0, 0.3, (32, obs_dim)).astype(np.float32), np.zeros(32, np.float32)),
              (rng.normal(0, 0.3, (num_actions, 32)).astype(np.float32), np.zeros(num_actions, np.float32))]
    return NumpyPolicy(layers, {"env": env_name})


@pytest.mark.parametrize("env_name", ["dominoes_v0", "queens_and_jacks_v0"])
def test_batched_evaluation_equals_the_arena(env_name):
    pol = _random_policy(env_name)
    mine = evaluate(pol, "random", env_name, deals=3, seed=5, parallel=4)
    ref = arena_evaluate(env_name, {"A": lambda e, s, o: RLAgent(e, s, o, policy=pol), "B": "random"},
                         deals=3, seed=5, episode="match", processes=1, progress=False)
    p = ref["pairs"][0]
    assert mine["score"] == pytest.approx(p["score_a"], nan_ok=True)
    assert mine["margin"] == pytest.approx(p["margin"], nan_ok=True)
    assert mine["matches"] == p["games"]


def test_bot_against_itself_scores_one_half_on_average():
    """Duplicate deals with rotation: the same bot on both sides is even (up to its own randomness)."""
    r = evaluate("random", "random", "dominoes_v0", deals=40, seed=1)
    assert r["score"]["lo"] < 0.5 < r["score"]["hi"]


@pytest.mark.parametrize("env_name", sorted(ENVIRONMENTS))
def test_every_game_can_be_evaluated(env_name):
    r = evaluate(_random_policy(env_name), "random", env_name, deals=1, seed=0)
    assert r["matches"] >= 2 and 0.0 <= r["score"]["mean"] <= 1.0


def test_a_match_decided_by_the_deal_needs_no_decision():
    """beat_or_discard: four aces or four sixes in one hand end the match at once (RULES C1.14)."""
    from agents.base import game_for
    from agents.rl.evaluate import play_matches

    game = game_for("beat_or_discard_v0")
    seed = next(s for s in range(20_000) if game.new_state(s).terminal)

    class Never:
        def start(self, seed, seat):
            return None

        def act(self, *a):
            raise AssertionError("no decision in a finished match")

    res = play_matches("beat_or_discard_v0", [(seed, ["A", "B"] * 2, [0] * 4)], {"A": Never(), "B": Never()})
    st = game.new_state(seed)
    assert res[0][0] == st.returns() and sorted(res[0][0]) != [0, 0, 0, 0]
    # the deal that ended the match is reported like any other (its points are not lost)
    assert res[0][1] == [list(d["seat_points"]) for d in st.results] and len(res[0][1]) == 1


def test_choose_policy_prefers_the_higher_score_and_the_earlier_file_on_a_tie(tmp_path):
    """What ships (agents.rl.evaluate.choose_policy): the candidate with the higher held-out score; on a tie
    the one listed first (the policy shipped before)."""
    from agents.rl.evaluate import choose_policy

    weak, strong = tmp_path / "weak.npz", tmp_path / "strong.npz"
    _random_policy("queens_and_jacks_v0").save(weak, {"env": "queens_and_jacks_v0"})
    NumpyPolicy.from_files(Path(CHECKPOINTS) / "queens_and_jacks_v0.npz").save(strong, {"env": "queens_and_jacks_v0"})
    chosen, scores = choose_policy("queens_and_jacks_v0", [weak, strong], opponent="random", sets=8)
    assert chosen == str(strong) and scores[1]["score"] > scores[0]["score"]
    chosen, scores = choose_policy("queens_and_jacks_v0", [weak, weak], opponent="random", sets=8)
    assert chosen == str(weak) and scores[0] == {**scores[1], "path": str(weak)}
