"""The Tianshou recipe trains a masked DQN through Tianshou's own PettingZooEnv wrapper and multi-agent
algorithm (no NaN or key errors from the infos any more) and its policy plays whole matches in the arena
(install: pip install -e ".[tianshou]")."""
import pytest

pytest.importorskip("tianshou", reason="the tianshou extra is not installed: pip install -e '.[tianshou]'")

from ._recipes import check_result, load_recipe  # noqa: E402

pytestmark = pytest.mark.integrations


@pytest.mark.parametrize("env,episode", [("dominoes_v0", "match"), ("queens_and_jacks_v0", "deal")])
def test_multi_agent_dqn_trains_and_plays_legal_moves(env, episode):
    recipe = load_recipe("tianshou_multiagent")
    out = recipe.main(["--env", env, "--steps", "256", "--envs", "2", "--batch-size", "32", "--sets", "2",
                       "--episode", episode])
    check_result(out, env, 256, episode, 2)
    assert out["updates"] > 0 and out["env_options"]["infos"] == "flat"


@pytest.mark.parametrize("infos", ["flat", "none", "full"])
def test_flat_infos_keep_the_buffer_clean_the_default_ones_do_not(infos):
    """Why the recipe sets infos="flat": Tianshou's buffer stacks the infos, and the default (full) ones break
    it -- the keys a step did not report become NaNs, which its trainer refuses (MalformedBufferError), or a
    deal whose lists have another length (eggs: no winners) fails to stack (ValueError), whichever comes first
    in the deals drawn; "flat" and "none" stack cleanly."""
    import numpy as np
    from tianshou.algorithm import MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.data.buffer.buffer_base import MalformedBufferError
    from tianshou.env import DummyVectorEnv
    from tianshou.env.pettingzoo_env import PettingZooEnv

    from kozel_env.registry import make

    def run(**options):
        env = PettingZooEnv(make("queens_and_jacks_v0", episode="deal", **options))
        rnd = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in env.agents]
        venv = DummyVectorEnv([lambda: PettingZooEnv(make("queens_and_jacks_v0", episode="deal", **options))])
        col = Collector(MultiAgentOffPolicyAlgorithm(algorithms=rnd, env=env), venv, VectorReplayBuffer(2000, 1),
                        raise_on_nan_in_buffer=True)
        np.random.seed(0)
        return col.collect(n_step=200, reset_before_collect=True)

    if infos == "full":
        with pytest.raises((MalformedBufferError, ValueError)) as err:
            run(infos=infos)
        assert "NaN" in str(err.value) or "shape mismatch" in str(err.value)
    else:
        stats = run(infos=infos)
        assert stats.n_collected_steps == 200 and stats.n_collected_episodes >= 3
