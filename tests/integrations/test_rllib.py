"""RLlib (Ray's new API stack) on the Kozel envs: the env glue passes RLlib's own env checker, turn-based play
reaches RLlib with the right rewards, multi-agent PPO with RLlib's action-masking module trains (finite
losses) and the trained policy plays legal moves through the arena; and the recipe runs on a local
two-node Ray cluster with two env runners (slow).

    python -m pytest -q -m integrations tests/integrations/test_rllib.py            # ~1-2 min with Ray
    python -m pytest -q -m "integrations and slow" tests/integrations/test_rllib.py  # the cluster run
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="needs ray[rllib] (pip install -e '.[rllib]')")
pytest.importorskip("ray.rllib", reason="needs ray[rllib]")
torch = pytest.importorskip("torch")

from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

from agents.arena import evaluate  # noqa: E402
from kozel_env.integrations import rllib as glue  # noqa: E402
from kozel_env.registry import ENVIRONMENTS  # noqa: E402

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
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
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
        modules = glue.modules_from_algo(algo, ids)
        # the copies hold the learner's weights
        w = algo.learner_group.get_weights(module_ids=ids)
        for mid in ids:
            for k, v in modules[mid].get_state().items():
                if k in w[mid]:
                    assert np.allclose(np.asarray(v), np.asarray(w[mid][k]))
        # through the arena (envs with illegal_action="raise": an illegal move would fail the match)
        res = evaluate(env, {"rllib": glue.arena_factory(modules, mapping), "random": "random"}, deals=4, seed=3,
                       processes=1, progress=False, episode="match")
        pair = res["pairs"][0]
        assert pair["games"] == 8 and 0.0 <= pair["score_a"]["mean"] <= 1.0
    finally:
        algo.stop()
    print(f"\n{env} {policies} vs {opponents}: 2 iterations + arena in {time.perf_counter() - t0:.1f}s")


def test_rllib_masked_logits_never_pick_illegal(local_ray):
    algo, _ = _train("dominoes_v0", "shared", None, iterations=1, batch=128)
    try:
        module = glue.modules_from_algo(algo, ["shared"])["shared"]
        game = glue.make_aec("dominoes_v0").unwrapped.game
        rng = np.random.default_rng(0)
        obs = rng.random((64, game.obs_spec.size)).astype(np.float32)
        mask = np.zeros((64, game.num_actions), np.float32)
        for row in mask:
            row[rng.choice(game.num_actions, size=int(rng.integers(1, 4)), replace=False)] = 1.0
        acts = glue.greedy_actions(module, obs, mask)
        assert all(mask[i, a] == 1.0 for i, a in enumerate(acts))
    finally:
        algo.stop()


# ------------------------------------------------------------------ the recipe on a local two-node cluster
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ray_cli() -> str:
    cli = Path(sys.executable).with_name("ray")
    return str(cli) if cli.exists() else (shutil.which("ray") or "ray")


@pytest.fixture
def local_cluster(tmp_path):
    """A head and one worker node on 127.0.0.1, one CPU each, as separate ``ray start --block`` processes;
    teardown ends exactly those two processes (each then stops the Ray processes it started)."""
    if ray.is_initialized():
        ray.shutdown()
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_DEDUP_LOGS": "0"}
    common = ["--block", "--num-cpus=1", "--num-gpus=0", "--disable-usage-stats"]
    procs = []
    logs = []

    def start(args, name):
        log = open(tmp_path / f"{name}.log", "w")
        logs.append(log)
        procs.append(subprocess.Popen([_ray_cli(), "start", *args, *common], env=env, stdout=log,
                                      stderr=subprocess.STDOUT, start_new_session=True))

    try:
        start(["--head", f"--port={port}", "--node-ip-address=127.0.0.1", "--include-dashboard=false",
               f"--temp-dir={tmp_path / 'ray'}"], "head")
        address = f"127.0.0.1:{port}"
        _wait_for_cpus(address, 1, procs, tmp_path)
        start([f"--address={address}", "--node-ip-address=127.0.0.1"], "worker")
        _wait_for_cpus(address, 2, procs, tmp_path)
        yield address
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in reversed(procs):
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)  # the group of the process this fixture started
                p.wait(timeout=30)
        for log in logs:
            log.close()


def _wait_for_cpus(address, cpus, procs, tmp_path, timeout=180):
    probe = ("import ray,sys; ray.init(address=sys.argv[1], log_to_driver=False); "
             "print(int(ray.cluster_resources().get('CPU', 0))); ray.shutdown()")
    t0 = time.time()
    while time.time() - t0 < timeout:
        for p in procs:
            if p.poll() is not None:
                logs = "\n".join(f.read_text() for f in tmp_path.glob("*.log"))
                raise RuntimeError(f"ray start exited with {p.returncode}:\n{logs[-3000:]}")
        out = subprocess.run([sys.executable, "-c", probe, address], capture_output=True, text=True, timeout=120)
        if out.returncode == 0 and out.stdout.strip().splitlines() and int(out.stdout.strip().splitlines()[-1]) >= cpus:
            return
        time.sleep(2)
    raise TimeoutError(f"the cluster at {address} did not reach {cpus} CPUs in {timeout}s")


@pytest.mark.slow
def test_rllib_recipe_on_a_local_cluster(local_cluster, tmp_path):
    out_json = tmp_path / "run.json"
    t0 = time.perf_counter()
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "integrations" / "rllib_ppo.py"), "--env", "dominoes_v0",
         "--address", local_cluster, "--num-env-runners", "2", "--opponents", "normal", "--steps", "1000",
         "--train-batch", "500", "--minibatch", "250", "--epochs", "2", "--hidden", "64", "64",
         "--eval-deals", "10", "--json", str(out_json)],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-5000:]
    import json

    res = json.loads(out_json.read_text())
    assert res["num_env_runners"] == 2 and res["decisions"] >= 1000 and res["finite_losses"]
    assert "arena, dominoes_v0" in run.stdout and res["eval"]["games"] == 20
    print(f"\ncluster run: {time.perf_counter() - t0:.1f}s, {res['decisions_per_s']:.0f} decisions/s")
