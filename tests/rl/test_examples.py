"""Every example script of the RL work runs: training (with evaluation, checkpoint and resume) and the
baseline reproduction (evaluation of checkpoints, and --train with a tiny budget)."""
import importlib.util
import json
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="needs the train extra (PyTorch): pip install -e '.[train]'")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


TINY = ["--num-envs", "8", "--rollout", "16", "--hidden", "16", "--eval-deals", "1", "--eval-opponents", "random",
        "--no-progress", "--quiet", "--set", "bc_steps=400", "value_warmup=1"]


def test_train_writes_a_checkpoint_and_resumes(tmp_path):
    train = _load("train")
    out = train.run(["--env", "dominoes_v0", "--steps", "600", "--eval-every", "1", "--save-every", "1",
                      "--out", str(tmp_path)] + TINY)
    for f in ("config.json", "log.jsonl", "last.pt", "policy.npz", "policy.json"):
        assert (tmp_path / f).exists(), f
    assert out["last_eval"]["random"]["score"] >= 0
    cfg = json.loads((tmp_path / "policy.json").read_text())
    # --steps is the whole budget, exactly: 400 imitated (asked) and PPO the 200 left of it
    assert cfg["env"] == "dominoes_v0" and cfg["seed"] == 0
    assert cfg["bc_decisions"] == cfg["train_config"]["bc_steps"] == 400
    assert cfg["steps"] == cfg["train_config"]["total_steps"] == 200
    assert (tmp_path / "best.npz").exists()
    it = out["iteration"]
    out2 = train.run(["--env", "dominoes_v0", "--steps", "1200", "--resume", "--out", str(tmp_path),
                       "--no-progress", "--quiet"])
    assert out2["iteration"] > it and out2["steps"] + out2["bc_decisions"] == 1200
    lines = [json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert [x["iteration"] for x in lines if "iteration" in x] == list(range(1, out2["iteration"] + 1))
    assert sum("bc_accuracy" in x for x in lines) == 1   # the warm start, once

    import agents.rl

    bot = agents.rl.load("dominoes_v0", path=tmp_path / "policy.npz")
    assert bot.policy.obs_dim == 207


def test_reproduce_baselines_evaluates_and_retrains(tmp_path, capsys):
    rb = _load("reproduce_baselines")
    res = rb.main(["--env", "dominoes_v0", "--train", "--steps", "500", "--runs", str(tmp_path),
                   "--set", "bc_steps=300", "num_envs=16", "rollout_ticks=32", "eval_seeds=2", "--select-sets", "2",
                   "--opponents", "random", "--deals", "2", "--processes", "1", "--no-progress", "--no-estimate"])
    assert (tmp_path / "checkpoints" / "dominoes_v0.npz").exists()
    row = res["rows"]["dominoes_v0"]
    assert 0.0 <= row["results"]["random"]["score"]["mean"] <= 1.0
    assert "| dominoes_v0 |" in capsys.readouterr().out
    # dominoes_v0's documented second stage (configs.FINETUNE) ran from the policy the first one shipped
    tuned = json.loads((tmp_path / "dominoes_v0_finetune" / "policy.json").read_text())
    assert tuned["init_from"]["path"] == str(tmp_path / "checkpoints" / "dominoes_v0.npz")
    assert tuned["train_config"]["bc_steps"] == 300 and tuned["train_config"]["lr"] == 5e-5
    # evaluation alone, of the checkpoints in a folder
    res2 = rb.main(["--checkpoints", str(tmp_path / "checkpoints"), "--opponents", "random", "--deals", "2",
                    "--processes", "1", "--no-progress"])
    assert list(res2["rows"]) == ["dominoes_v0"]
    assert res2["rows"]["dominoes_v0"]["results"]["random"]["score"] == row["results"]["random"]["score"]


def test_finetune_starts_from_a_policy_and_the_table_counts_both_stages(tmp_path):
    """train.py --finetune (configs.FINETUNE_DEFAULT): PPO from a trained policy's weights, no imitation; the
    exported policy records the run it started from, and the baseline table's training column adds them."""
    train = _load("train")
    first = train.run(["--env", "dominoes_v0", "--steps", "600", "--eval-every", "0", "--out", str(tmp_path / "a")]
                       + TINY)
    out = train.run(["--env", "dominoes_v0", "--finetune", "--steps", "300", "--out", str(tmp_path / "b"),
                      "--num-envs", "8", "--rollout", "16", "--hidden", "16", "--eval-deals", "1", "--no-progress",
                      "--quiet", "--set", f"init_from={first['policy']}"])
    assert out["bc_decisions"] == 0 and out["steps"] == 300
    cfg = json.loads((tmp_path / "b" / "policy.json").read_text())
    assert cfg["train_config"]["lr"] == 5e-5 and cfg["train_config"]["bots"] == {"normal": 1.0}
    src = json.loads((tmp_path / "a" / "policy.json").read_text())
    assert cfg["init_from"]["path"] == first["policy"] and cfg["init_from"]["steps"] == src["steps"]
    from agents.rl.policy import training_stages

    stages = training_stages(cfg)
    assert [st["steps"] for st in stages] == [src["steps"], cfg["steps"]]
    assert stages[0]["bc_decisions"] == src["bc_decisions"] >= 400
    rb = _load("reproduce_baselines")
    text = rb.budget_text(stages)
    assert text.startswith(f"{src['steps'] / 1e6:.2f}M (+0.0M) then {cfg['steps'] / 1e6:.2f}M fine-tuned, ")
    assert rb.budget_text(training_stages(src)).count("fine-tuned") == 0


def test_ship_copies_the_candidate_that_scores_best_on_held_out_deals(tmp_path):
    """train.py --ship: the run's best periodic evaluation, its final policy and the policy shipped before
    compete on held-out deals; a tie keeps the one shipped before; the scores go to choice.json."""
    import shutil

    from agents.rl.policy import CHECKPOINT_DIR
    from agents.rl.train import ship

    train = _load("train")
    run = tmp_path / "run"
    train.run(["--env", "queens_and_jacks_v0", "--steps", "600", "--eval-every", "1", "--out", str(run)] + TINY)
    dest = tmp_path / "ship" / "queens_and_jacks_v0.npz"
    chosen = ship("queens_and_jacks_v0", run, dest, sets=4, quiet=True)
    assert chosen in (run / "best.npz", run / "policy.npz") and dest.exists() and dest.with_suffix(".json").exists()
    # a shipped policy far stronger than a few hundred decisions of training stays
    for suf in (".npz", ".json"):
        shutil.copy(CHECKPOINT_DIR / f"queens_and_jacks_v0{suf}", dest.with_suffix(suf))
    assert ship("queens_and_jacks_v0", run, dest, sets=4, quiet=True) == dest
    choice = json.loads((run / "choice.json").read_text())
    assert [c["path"] for c in choice["candidates"]] == [str(dest), str(run / "best.npz"), str(run / "policy.npz")]
    assert choice["candidates"][0]["score"] > max(c["score"] for c in choice["candidates"][1:])
