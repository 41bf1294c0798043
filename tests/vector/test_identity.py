"""The contract of the batched engines (issue 16): every game of a vector env is the AEC env with the same
seed and actions. For random seeds and random legal play, every step compares, for every game, the seat to
move, its observation and mask, the oracle state, the step's rewards (every seat), the ended deal's result
and the finished episode's returns with the scalar env; finished episodes continue with ``reset()`` on the
scalar side and the vector env's auto-reset. The default suite runs a few hundred steps per option set; the
``slow`` test runs thousands of games."""
import numpy as np
import pytest

from kozel_env import vector
from kozel_env.registry import load

CASES = [
    ("dominoes_v0", {}),
    ("dominoes_v0", {"reward": "points", "episode": "deal"}),
    ("dominoes_v0", {"lone_double_values": None, "two_doubles": False, "redeal": False,
                     "threshold_mode": "remember", "next_leader": "winner", "target": 40}),
    ("dominoes_v0", {"reward": "points", "eggs_carry": False, "threshold": 0, "target": 60}),
    ("sea_goat_v0", {}),
    ("sea_goat_v0", {"reward": "points", "out_66_amount": None, "lone_double_values": None}),
    ("donkey_v0", {}),
    ("donkey_v0", {"max_doubles": 2, "house": False, "lone_double_values": None, "reward": "points"}),
    ("donkey_v0", {"closing": False, "threshold_mode": "open", "episode": "deal"}),
    ("queens_and_jacks_v0", {}),
    ("queens_and_jacks_v0", {"trumps": "named", "reward": "points"}),
    ("queens_and_jacks_v0", {"deck": 32, "target": 6, "episode": "deal"}),
]


def run_identity(name: str, options: dict, num_envs: int, steps: int, seed: int) -> dict:
    venv = vector.make(name, num_envs, seed=seed, **options)
    envs = [load(name).env(**options) for _ in range(num_envs)]
    for env, s in zip(envs, vector.seeds_from(seed, num_envs)):
        env.reset(seed=int(s))
    gen = np.random.default_rng(seed)
    ts = venv.reset()
    seen = {"deals": 0, "episodes": 0}
    for step in range(steps):
        oracle = venv.state()
        for b, env in enumerate(envs):
            agent = env.agent_selection
            where = f"{name} {options} step {step} game {b}"
            assert ts.seat[b] == env.agent_name_mapping[agent], where
            o = env.observe(agent)
            assert np.array_equal(ts.obs[b], o["observation"]), \
                f"{where}: observation differs at {np.flatnonzero(ts.obs[b] != o['observation'])[:8]}"
            assert np.array_equal(ts.mask[b], o["action_mask"]), where
            assert np.array_equal(oracle[b], env.state()), f"{where}: oracle state"
        actions = vector.random_actions(ts.mask, gen)
        ts = venv.step(actions)
        for b, env in enumerate(envs):
            where = f"{name} {options} step {step} game {b}"
            st = env.unwrapped.game_state
            before = len(st.results)
            env.step(int(actions[b]))
            assert ts.rewards[b].tolist() == [np.float32(env.rewards[a]) for a in env.possible_agents], where
            ended = len(st.results) > before
            assert ts.deal_over[b] == ended, where
            if ended:
                seen["deals"] += 1
                res, d = st.results[-1], ts.info["deals"]
                assert d["seat_points"][b].tolist() == res["seat_points"], where
                assert d["written"][b].tolist() == res["written"], where
                assert d["scores"][b].tolist() == res["scores"], where
                assert np.flatnonzero(d["winners"][b]).tolist() == res["winners"], where
                assert bool(d["eggs"][b]) == res["eggs"], where
            assert ts.done[b] == st.terminal, where
            if st.terminal:
                seen["episodes"] += 1
                assert ts.info["returns"][b].tolist() == st.match_result["returns"], where
                env.reset()
    return seen


@pytest.mark.parametrize(("name", "options"), CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_every_batched_game_is_the_aec_env_with_the_same_seed_and_actions(name, options):
    seen = run_identity(name, options, num_envs=12, steps=260, seed=7)
    assert seen["deals"] >= 40 and seen["episodes"] >= 1, seen


@pytest.mark.slow
@pytest.mark.parametrize(("name", "options"), CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_identity_over_thousands_of_games(name, options):
    seen = run_identity(name, options, num_envs=400, steps=400, seed=2026)
    assert seen["deals"] >= 2000 and seen["episodes"] >= 100, seen
