"""The built wheel works on its own: built from a copy of the source tree, installed in a fresh venv (no system
site packages, no checkout on the path), run from a folder outside the repository.

1. With the base dependencies only (numpy, gymnasium, pettingzoo: what ``pip install kozel_env`` gives), every
   environment of the registry has its shipped agent, which loads and plays legal moves through the env -- with
   numpy inference, torch not installed -- and both packages carry their ``py.typed`` marker and data files.
   The training command is there too: ``python -m agents.rl.train --help`` and ``kozel-train --help`` work,
   ``kozel-train`` alone prints its usage (status 2), and a run says in one line to install the ``train``
   extra (status 1).
2. With the ``train`` extra (torch pinned to the CPU build 2.13.0 that lies on disk, so pip never fetches a CUDA
   build), the installed ``agents.rl`` trains a few decisions, ends on an evaluation and writes TensorBoard logs;
   and ``kozel-train --steps N`` does N decisions and writes its log and learning curve.

Slow (a venv, numpy, torch, tensorboard and matplotlib installed): marked ``wheel``, outside the default suite;
``.ci/run`` runs it as its own step, ``python -m pytest -q -m wheel tests/test_wheel.py``.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.wheel

ROOT = Path(__file__).resolve().parents[1]
TORCH = "torch==2.13.0"   # the CPU build on the CI machines' disk (see .ci/run)
PIP_INSTALL = ["-m", "pip", "install", "--quiet", "--no-compile", "--disable-pip-version-check"]
SKIP = shutil.ignore_patterns(".git", "build", "dist", "runs", "*.egg-info", "__pycache__", ".pytest_cache",
                              ".hypothesis", ".venv", ".whl", ".gl", "*.pyc")

PLAY = r"""
import importlib.resources, json, sys
import numpy as np
import agents, agents.rl, kozel_env
from kozel_env.registry import ENVIRONMENTS, make

out = {"kozel_env": kozel_env.__file__, "agents": agents.__file__, "available": agents.rl.available(),
       "files": {}, "played": {}}
for pkg, rel in (("kozel_env", "py.typed"), ("agents", "py.typed"), ("agents", "LADDER.md"),
                 ("agents", "ladder.json"), ("agents", "rl/BASELINES.md")):
    out["files"][f"{pkg}/{rel}"] = importlib.resources.files(pkg).joinpath(rel).is_file()


def walk(name, seed, limit, choose):
    # decisions of choose(env, obs) in one episode of name, up to limit; exits on an illegal one
    env = make(name)
    env.reset(seed=seed)
    k = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = choose(env, obs)
        if obs["action_mask"][a] != 1:
            sys.exit(f"{name}: the agent chose the illegal action {a}")
        env.step(a)
        k += 1
        if k == limit:
            return k
    return k


out["expert_played"] = {}
for name in ENVIRONMENTS:
    bot = agents.load(name)
    out["played"][name] = walk(name, 7, 60, lambda env, obs: bot.act(obs["observation"], obs["action_mask"]))
    # the expert needs the value network and the policy from the wheel: 10 decisions of each game
    expert = agents.make_agent("expert:n=2", name)
    rel = f"checkpoints/value/{name}.npz"
    out["files"][f"agents/{rel}"] = importlib.resources.files("agents").joinpath(rel).is_file()
    if expert.belief:  # and the belief network where the expert picks its imagined deals by one
        rel = f"checkpoints/belief/{name}.npz"
        out["files"][f"agents/{rel}"] = importlib.resources.files("agents").joinpath(rel).is_file()
    out["expert_played"][name] = walk(
        name, 8, 10, lambda env, obs: agents.decide(expert, env, obs["observation"], obs["action_mask"]))
try:
    import torch
    out["torch"] = torch.__version__
except ImportError:
    out["torch"] = None
print(json.dumps(out))
"""

TRAIN = r"""
import json, sys
from pathlib import Path
import torch
from agents.rl.configs import config_for
from agents.rl.ppo import PPOTrainer
from torch.utils.tensorboard import SummaryWriter
import matplotlib

run = Path(sys.argv[1])
run.mkdir(parents=True)
cfg = config_for("dominoes_v0", num_envs=4, rollout_ticks=8, hidden=(8,), bc_steps=16, value_warmup=0,
                 total_steps=16, eval_every=25, eval_seeds=1, eval_opponents=("random",))
tr = PPOTrainer(cfg, run_dir=run)
tr.behaviour_cloning()
while not tr.done():
    tr.train_iteration()
final = tr.final_evaluation()
tb = SummaryWriter(str(run / "tb"))
tb.add_scalar("eval/score_vs_random", final["eval"]["random"]["score"], tr.steps)
tb.close()
print(json.dumps({"torch": torch.__version__, "iterations": tr.iteration, "eval": final["eval"],
                  "tb": sorted(p.name for p in (run / "tb").iterdir())}))
"""


def _proc(cmd, cwd, timeout=900):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PYTHONNOUSERSITE"] = "1"
    return subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _run(cmd, cwd, timeout=900):
    p = _proc(cmd, cwd, timeout)
    assert p.returncode == 0, (f"{' '.join(map(str, cmd))} failed ({p.returncode}):\n"
                               f"{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return p.stdout


def _build_wheel(tmp: Path) -> Path:
    """``pip wheel`` of a copy of the tree (building in place would leave build/ behind, whose stale files
    a later build packs too). No build isolation where setuptools is already here: no network needed."""
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=SKIP)
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", tmp / "dist", src]
    try:
        import setuptools

        if int(setuptools.__version__.split(".")[0]) >= 61:
            cmd.insert(4, "--no-build-isolation")
    except ImportError:
        pass
    _run(cmd, cwd=tmp)
    wheels = sorted((tmp / "dist").glob("kozel_env-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    wheel = _build_wheel(tmp)
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", venv], cwd=tmp)   # no system site packages
    py = venv / "bin" / "python"
    _run([py, *PIP_INSTALL, wheel], cwd=tmp)
    outside = tmp / "elsewhere"   # not the checkout: only the installed packages can be imported
    outside.mkdir()
    yield {"python": py, "wheel": wheel, "venv": venv, "cwd": outside}
    shutil.rmtree(tmp, ignore_errors=True)   # the venv with torch weighs over a gigabyte


def test_the_wheel_ships_every_agent_that_plays_from_a_fresh_venv(installed):
    from kozel_env.registry import ENVIRONMENTS

    out = json.loads(_run([installed["python"], "-c", PLAY], cwd=installed["cwd"]).strip().splitlines()[-1])
    site = str(installed["venv"])
    assert out["kozel_env"].startswith(site) and out["agents"].startswith(site), out   # not the checkout
    assert out["available"] == sorted(ENVIRONMENTS)
    assert out["files"] == dict.fromkeys(out["files"], True), out["files"]
    assert out["played"] == dict.fromkeys(ENVIRONMENTS, 60), out["played"]
    assert out["expert_played"] == dict.fromkeys(ENVIRONMENTS, 10), out["expert_played"]
    from agents.expert import SETTINGS

    beliefs = sum(1 for name in ENVIRONMENTS if SETTINGS[name]["expert"].get("belief"))
    assert len(out["files"]) == 5 + len(ENVIRONMENTS) + beliefs
    assert out["torch"] is None   # the shipped agents play with numpy alone


def test_the_training_command_answers_from_the_base_install(installed):
    """No torch: the help and the usage of ``python -m agents.rl.train`` and of the ``kozel-train`` console
    script; a run refused in one line that names the extra."""
    py, cwd = installed["python"], installed["cwd"]
    script = installed["venv"] / "bin" / "kozel-train"
    for cmd in ([py, "-m", "agents.rl.train", "--help"], [script, "--help"]):
        out = _run(cmd, cwd=cwd)
        assert out.startswith("usage: kozel-train") and "--steps" in out, out[:300]
    bare = _proc([script], cwd=cwd)
    assert bare.returncode == 2 and bare.stderr.startswith("usage: kozel-train"), bare.stderr
    refused = _proc([script, "--env", "dominoes_v0", "--steps", "50", "--out", cwd / "no_torch"], cwd=cwd)
    assert refused.returncode == 1 and "Traceback" not in refused.stderr, refused.stderr
    assert refused.stderr.strip().splitlines()[-1].startswith("kozel-train: error: training needs PyTorch")


def test_the_train_extra_installs_the_cpu_torch_and_trains_from_the_wheel(installed):
    py = installed["python"]
    _run([py, *PIP_INSTALL, f"{installed['wheel']}[train]", TORCH], cwd=installed["cwd"])
    run = installed["cwd"] / "run"
    out = json.loads(_run([py, "-c", TRAIN, run], cwd=installed["cwd"]).strip().splitlines()[-1])
    assert out["torch"] == "2.13.0+cpu", out["torch"]   # never a CUDA build
    assert out["iterations"] >= 1 and 0.0 <= out["eval"]["random"]["score"] <= 1.0
    assert any(name.startswith("events.out.tfevents") for name in out["tb"]), out["tb"]
    for f in ("log.jsonl", "best.npz"):
        assert (run / f).exists(), f
    # the training command of the installed wheel: --steps N is N decisions, logged and plotted
    cli = installed["cwd"] / "cli"
    summary = json.loads(_run([installed["venv"] / "bin" / "kozel-train", "--env", "dominoes_v0", "--steps", "200",
                               "--num-envs", "4", "--rollout", "8", "--hidden", "8", "--eval-deals", "1",
                               "--eval-opponents", "random", "--no-progress", "--quiet", "--out", cli],
                              cwd=installed["cwd"]))
    assert summary["bc_decisions"] + summary["steps"] == 200, summary
    log = [json.loads(line) for line in (cli / "log.jsonl").read_text().splitlines()]
    assert max(h.get("steps", 0) for h in log) == summary["steps"]
    assert sum("eval" in h for h in log) >= 2 and (cli / "learning_curve.png").stat().st_size > 0
