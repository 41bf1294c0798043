"""RLlib (Ray's new API stack) on the Kozel envs: the env glue passes RLlib's own env checker, turn-based play
reaches RLlib with the right rewards, multi-agent PPO with RLlib's action-masking module trains (finite
losses) and the trained policy plays legal moves through the arena; and the recipe runs on a local
two-node Ray cluster with two env runners (slow).

    python -m pytest -q -m "integrations and not slow" tests/integrations/test_rllib.py  # ~25 s, Ray start-up included
    python -m pytest -q -m "integrations and slow" tests/integrations/test_rllib.py      # the cluster run, ~30-45 s

(``-m integrations`` alone selects both: a later ``-m`` replaces the ``not slow`` of the default options.)
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

LOCAL_ONLY = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
os.environ.setdefault(LOCAL_ONLY, "0")  # the one-machine Ray of these tests: node address 127.0.0.1, no other
ray = pytest.importorskip("ray", reason="needs the rllib extra: pip install -e '.[rllib]'")
pytest.importorskip("ray.rllib", reason="needs the rllib extra: pip install -e '.[rllib]'")
torch = pytest.importorskip("torch", reason="needs the rllib extra: pip install -e '.[rllib]'")

from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

from agents.arena import evaluate  # noqa: E402
from agents.integrations import rllib as trained  # noqa: E402
from kozel_env.integrations import rllib as glue  # noqa: E402
from kozel_env.registry import ENVIRONMENTS  # noqa: E402

from ._recipes import load_recipe  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.integrations


# ------------------------------------------------------------------ the env glue (no Ray runtime needed)
@pytest.mark.parametrize("name", sorted(ENVIRONMENTS))
@pytest.mark.parametrize("opponents", [None, "normal"])
def test_rllib_env_checker_passes(name, opponents):
    """RLlib's checker steps an unmasked random action: with illegal_action="lose" that ends the episode
    (the offender's side -1) instead of raising, and the flat infos are per-agent dicts of floats."""
    env = glue.KozelMultiAgentEnv({"env": name, "env_options": {"episode": "deal"}, "opponents": opponents})
    for _ in range(4):
        check_multiagent_environments(env)
    assert env.illegal_actions >= 1  # the checker did play masked-out ids, and the env survived them


def _random_legal_episode(env, rng):
    obs, infos = env.reset()
    totals = {}
    acted = []
    steps = 0
    while True:
        assert len(obs) >= 1
        live = [a for a in obs if float(obs[a]["action_mask"].sum()) > 0]
        assert len(live) == 1, f"one agent to move at a time, got {list(obs)}"
        a = live[0]
        assert set(infos[a]) == set(glue_flat_keys())
        acted.append(a)
        mask = obs[a]["action_mask"]
        assert mask.dtype == np.float32 and env.observation_spaces[a]["observations"].contains(obs[a]["observations"])
        obs, rew, term, trunc, infos = env.step({a: int(rng.choice(np.flatnonzero(mask)))})
        steps += 1
        for k, r in rew.items():
            totals[k] = totals.get(k, 0.0) + r
        if term["__all__"]:
            assert set(obs) == set(acted), "the last step reports every learner seat that acted"
            assert all(term[k] for k in obs)
            return totals, set(acted), steps


def glue_flat_keys():
    from kozel_env.core.aec import FLAT_KEYS

    return FLAT_KEYS


@pytest.mark.parametrize("name", ["dominoes_v0", "queens_and_jacks_v0", "dominoes_ffa_v0"])
def test_rllib_env_rewards_and_turns(name):
    """Self-play: every seat's rewards add up to its match return; with bots only one side reaches RLlib."""
    rng = np.random.default_rng(0)
    env = glue.KozelMultiAgentEnv({"env": name, "env_options": {"episode": "deal"}})
    for _ in range(5):
        totals, acted, _ = _random_legal_episode(env, rng)
        rets = env.aec.unwrapped.game_state.returns()
        for a in acted:
            assert totals[a] == pytest.approx(rets[env.aec.unwrapped.agent_name_mapping[a]])
    bots = glue.KozelMultiAgentEnv({"env": name, "env_options": {"episode": "deal"}, "opponents": "normal"}, )
    sides = set()
    for _ in range(8):
        _, acted, _ = _random_legal_episode(bots, rng)
        assert len({bots.side[a] for a in acted}) == 1, "with bots the learner holds one side"
        sides |= {bots.side[a] for a in acted}
    assert len(sides) >= 2, "the learner's side is drawn per episode"


def test_rllib_glue_rejects_reserved_options():
    with pytest.raises(ValueError, match="set by the RLlib glue"):
        glue.KozelMultiAgentEnv({"env": "dominoes_v0", "env_options": {"illegal_action": "raise"}})


# ------------------------------------------------------------------ training with Ray (one local instance)
@pytest.fixture(scope="module")
def local_ray():
    t0 = time.perf_counter()
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    print(f"\nray.init: {time.perf_counter() - t0:.1f}s")
    yield
    ray.shutdown()


def _train(env, policies, opponents, iterations=2, batch=256):
    cfg = glue.ppo_config(env, {"episode": "deal"}, opponents=opponents, policies=policies, train_batch=batch,
                          minibatch=128, epochs=2, hidden=(64, 64), seed=1)
    algo = cfg.build_algo()
    results = [algo.train() for _ in range(iterations)]
    return algo, results


@pytest.mark.parametrize("env,policies,opponents", [
    ("dominoes_v0", "shared", None),
    ("queens_and_jacks_v0", "per_side", "normal"),
])
def test_rllib_ppo_trains_and_plays_legal_moves(local_ray, env, policies, opponents):
    t0 = time.perf_counter()
    algo, results = _train(env, policies, opponents)
    try:
        mapping = glue.module_ids(env, {"episode": "deal"}, policies)
        ids = sorted(set(mapping.values()))
        assert glue.decisions_sampled(results[-1]) >= 2 * 256
        for res in results:
            stats = glue.learner_stats(res)
            assert set(stats) == set(ids), f"every module learned: {sorted(stats)}"
            assert glue.finite(stats) and all("policy_loss" in s and "vf_loss" in s for s in stats.values())
        envs = [e.unwrapped for e in algo.env_runner.env.envs]
        assert sum(e.illegal_actions for e in envs) <= len(envs), \
            "the masked policy played a masked-out move (only the env checker's one random step may)"
        modules = trained.modules_from_algo(algo, ids)
        # the copies hold the learner's weights
        w = algo.learner_group.get_weights(module_ids=ids)
        for mid in ids:
            for k, v in modules[mid].get_state().items():
                if k in w[mid]:
                    assert np.allclose(np.asarray(v), np.asarray(w[mid][k]))
        # through the arena (envs with illegal_action="raise": an illegal move would fail the match)
        res = evaluate(env, {"rllib": trained.arena_factory(modules, mapping), "random": "random"}, deals=4, seed=3,
                       processes=1, progress=False, episode="match")
        pair = res["pairs"][0]
        assert pair["games"] == 8 and 0.0 <= pair["score_a"]["mean"] <= 1.0
    finally:
        algo.stop()
    print(f"\n{env} {policies} vs {opponents}: 2 iterations + arena in {time.perf_counter() - t0:.1f}s")


def test_rllib_masked_logits_never_pick_illegal(local_ray):
    algo, _ = _train("dominoes_v0", "shared", None, iterations=1, batch=128)
    try:
        module = trained.modules_from_algo(algo, ["shared"])["shared"]
        game = glue.make_aec("dominoes_v0").unwrapped.game
        rng = np.random.default_rng(0)
        obs = rng.random((64, game.obs_spec.size)).astype(np.float32)
        mask = np.zeros((64, game.num_actions), np.float32)
        for row in mask:
            row[rng.choice(game.num_actions, size=int(rng.integers(1, 4)), replace=False)] = 1.0
        acts = trained.greedy_actions(module, obs, mask)
        assert all(mask[i, a] == 1.0 for i, a in enumerate(acts))
    finally:
        algo.stop()


def test_rllibs_own_masking_example_config_trains_on_the_single_agent_env(local_ray):
    """RLlib's action-masking example as a user copies it (one policy, no ``.multi_agent()``, the module class
    ``ray.rllib.examples.rl_modules.classes.action_masking_rlm.ActionMaskingTorchRLModule`` unchanged), with
    our env class and no line of the user's own: the observation keys are the ones the module reads, and
    the masked policy never plays a masked-out move."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    config = (
        PPOConfig()
        .environment(glue.SingleAgentRLlibEnv, env_config={"env": "queens_and_jacks_v0", "opponents": "normal",
                                                           "env_options": {"episode": "deal"}})
        .rl_module(rl_module_spec=RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                               model_config={"fcnet_hiddens": [32], "head_fcnet_hiddens": [32]}))
        .env_runners(num_env_runners=0)
        .training(train_batch_size_per_learner=256, minibatch_size=128, num_epochs=1)
    )
    algo = config.build_algo()
    try:
        results = [algo.train() for _ in range(2)]
        assert glue.decisions_sampled(results[-1]) >= 2 * 256
        stats = glue.learner_stats(results[-1])
        assert set(stats) == {"default_policy"} and glue.finite(stats)
        envs = [e.unwrapped for e in algo.env_runner.env.unwrapped.envs]
        assert envs and all(isinstance(e, glue.SingleAgentRLlibEnv) for e in envs)
        assert sum(e.illegal_actions for e in envs) == 0, "the masked policy played a masked-out move"
    finally:
        algo.stop()


def test_single_agent_env_gives_the_keys_of_rllibs_masking_module():
    env = glue.SingleAgentRLlibEnv({"env": "dominoes_v0", "opponents": "normal", "env_options": {"episode": "deal"}})
    assert set(env.observation_space.spaces) == {"observations", "action_mask"}
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    while True:
        assert env.observation_space.contains(obs) and obs["action_mask"].dtype == np.float32
        mask = obs["action_mask"]
        assert list(np.flatnonzero(mask)) == list(np.flatnonzero(env.view.action_masks()))
        obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if term or trunc:
            break
    assert env.illegal_actions == 0
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.view.action_masks() == 0)[0]))
    assert env.illegal_actions == 1


def test_single_agent_env_refuses_self_play():
    with pytest.raises(ValueError, match="needs bots"):
        glue.SingleAgentRLlibEnv({"env": "dominoes_v0", "opponents": "self"})


# ------------------------------------------------------------------ what the cluster job ships
FORBIDDEN = {".git", ".hypothesis", ".pytest_cache", "__pycache__", "runs", ".ruff_cache", "tests", "docs", ".venv"}


def _shipped(runtime_env, tmp_path):
    """Every file Ray would upload for ``runtime_env`` (its own packaging code, ignoring .gitignore)."""
    import zipfile

    from ray._private.runtime_env.packaging import create_package

    names = []
    for i, module in enumerate(runtime_env["py_modules"]):
        target = tmp_path / f"pkg{i}.zip"
        create_package(module, target, include_gitignore=False, include_parent_dir=True,
                       excludes=runtime_env["excludes"])
        names += [n for n in zipfile.ZipFile(target).namelist() if not n.endswith("/")]
    return names


def test_the_cluster_job_ships_the_two_packages_only():
    rt = load_recipe("rllib_ppo").ship_runtime_env()
    assert "working_dir" not in rt
    assert [Path(p) for p in rt["py_modules"]] == [ROOT / "kozel_env", ROOT / "agents"]
    for cache in (".hypothesis/", ".pytest_cache/", "__pycache__/", "*.pyc"):
        assert cache in rt["excludes"]


def test_the_shipped_packages_leave_caches_out_whatever_gitignore_says(tmp_path):
    """A tree with every cache a checkout collects, no .gitignore: only the packages' files travel."""
    root = tmp_path / "repo"
    files = ["kozel_env/__init__.py", "kozel_env/core/aec.py", "agents/__init__.py", "agents/checkpoints/a.npz"]
    junk = ["kozel_env/__pycache__/aec.cpython-311.pyc", "kozel_env/core/aec.pyc", "kozel_env/.hypothesis/x",
            "agents/.pytest_cache/v/x", "agents/rl/__pycache__/p.pyc", ".hypothesis/examples/x", ".pytest_cache/v/x",
            ".git/HEAD", "runs/dominoes_v0/last.pt", "tests/test_x.py", ".venv/pyvenv.cfg"]
    for f in files + junk:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("x")
    shipped = _shipped(load_recipe("rllib_ppo").ship_runtime_env(root), tmp_path)
    assert sorted(shipped) == sorted(files)


def test_the_real_checkout_ships_its_packages_and_no_cache(tmp_path):
    shipped = _shipped(load_recipe("rllib_ppo").ship_runtime_env(), tmp_path)
    assert "kozel_env/integrations/rllib.py" in shipped and "agents/registry.py" in shipped
    assert any(n.startswith("agents/checkpoints/") and n.endswith(".npz") for n in shipped)
    bad = [n for n in shipped if FORBIDDEN & set(Path(n).parts) or n.endswith(".pyc")]
    assert not bad, bad[:10]


# ------------------------------------------------------------------ the recipe on a local two-node cluster
def _private_netns_works() -> bool:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    r = subprocess.run(["unshare", "-n", "sh", "-c", "ip link set lo up"], capture_output=True)
    return r.returncode == 0


@pytest.mark.slow
def test_rllib_recipe_on_a_local_cluster(tmp_path):
    """tests/integrations/local_cluster.py in a private network namespace (loopback only): a head and a
    worker node (``ray start``, one CPU each), the recipe with ``--address`` and two env runners (one per
    node), bots as opponents, the arena at the end; the nodes are stopped by the helper."""
    if not _private_netns_works():
        pytest.skip("needs `unshare -n` (root or user namespaces): the cluster must see loopback only")
    recipe = ["--env", "dominoes_v0", "--num-env-runners", "2", "--opponents", "normal", "--steps", "1000",
              "--train-batch", "500", "--minibatch", "250", "--epochs", "2", "--hidden", "64", "64",
              "--eval-deals", "10"]
    cmd = " ".join([sys.executable, str(ROOT / "tests" / "integrations" / "local_cluster.py"), "--logs",
                    str(tmp_path), "--", *recipe])
    t0 = time.perf_counter()
    run = subprocess.run(["unshare", "-n", "sh", "-c", f"ip link set lo up && exec {cmd}"], capture_output=True,
                         text=True, timeout=900,
                         env={**{k: v for k, v in os.environ.items() if k != LOCAL_ONLY}, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-5000:]
    import json

    res = json.loads(run.stdout.strip().splitlines()[-1])
    assert res["nodes"] == 2 and res["num_env_runners"] == 2 and res["address"].startswith("127.0.0.1:")
    assert res["decisions"] >= 1000 and res["finite_losses"]
    assert res["eval"]["games"] == 20 and any(ln.startswith("arena, dominoes_v0") for ln in res["stdout"])
    shipped = res["shipped"]  # what the job's runtime_env unpacked on the nodes: the two packages, no cache
    assert "kozel_env/integrations/rllib.py" in shipped and "agents/registry.py" in shipped
    assert all(n.split("/")[0] in ("kozel_env", "agents") for n in shipped), sorted({n.split("/")[0] for n in shipped})
    bad = [n for n in shipped if (FORBIDDEN - {"__pycache__"}) & set(Path(n).parts)]
    assert not bad, bad[:10]
    print(f"\ncluster run: {time.perf_counter() - t0:.1f}s in all (nodes up in {res['cluster_start_s']:.1f}s, "
          f"recipe {res['recipe_s']:.1f}s), {res['decisions_per_s']:.0f} decisions/s while training")
