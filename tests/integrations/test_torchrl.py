"""The TorchRL recipe collects frames through TorchRL's PettingZooWrapper(use_mask=True) with a masked actor,
trains it, and its policy plays whole matches in the arena (install: pip install -e ".[torchrl]")."""
import pytest

pytest.importorskip("torchrl", reason="the torchrl extra is not installed: pip install -e '.[torchrl]'")

from ._recipes import check_result, load_recipe  # noqa: E402

pytestmark = pytest.mark.integrations


@pytest.mark.parametrize("env,episode", [("dominoes_v0", "match"), ("queens_and_jacks_v0", "deal")])
def test_masked_actor_trains_and_plays_legal_moves(env, episode):
    recipe = load_recipe("torchrl_collector")
    out = recipe.main(["--env", env, "--steps", "512", "--frames-per-batch", "256", "--sets", "2",
                       "--episode", episode])
    check_result(out, env, 512, episode, 2)
    assert out["updates"] >= 1


def test_returns_to_go_sum_each_seats_rewards_to_the_end_of_its_episode():
    import torch

    recipe = load_recipe("torchrl_collector")
    rewards = torch.tensor([[0., 0.], [0., 0.], [1., -1.], [0., 0.], [0., 0.]])
    done = torch.tensor([False, False, True, False, False])
    g, complete = recipe.returns_to_go(rewards, done)
    assert g[:3].tolist() == [[1., -1.]] * 3 and complete.tolist() == [True, True, True, False, False]
