"""The stable-baselines3 / sb3-contrib recipe really trains MaskablePPO on the gymnasium view and its policy
plays whole matches in the arena (install: pip install -e ".[sb3]")."""
import pytest

pytest.importorskip("sb3_contrib", reason="the sb3 extra is not installed: pip install -e '.[sb3]'")

from ._recipes import check_result, load_recipe  # noqa: E402

pytestmark = pytest.mark.integrations


@pytest.mark.parametrize("env,episode", [("dominoes_v0", "match"), ("queens_and_jacks_v0", "deal")])
def test_maskable_ppo_trains_and_plays_legal_moves(env, episode):
    recipe = load_recipe("sb3_maskable_ppo")
    out = recipe.main(["--env", env, "--steps", "512", "--envs", "2", "--n-steps", "128", "--sets", "2",
                       "--episode", episode])
    check_result(out, env, 512, episode, 2)
    assert out["steps"] == 512  # MaskablePPO counts the learner's decisions: 2 envs x 128 x 2 rollouts
