"""What a person running the training scripts sees: ``kozel-train`` (``python -m agents.rl.train``) is the
command, without arguments its usage; ``--steps`` is the whole run (imitation included), exactly, and the
split is printed first and again when done; a short budget gets rollouts small enough for a learning curve;
each phase has its progress bar, counting what the plan said; every run ends on an evaluation; the baseline
reproduction says how long it will take before it starts; an interval from too few sets says so."""
import importlib.util
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agents.arena import evaluate as arena_evaluate
from agents.arena import markdown
from agents.stats import format_ci, mean_ci

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TRAIN_EXTRA = "the train extra is not installed: pip install -e '.[train]'"

# a tiny network and rollouts; the imitation is left to the game's documented share of --steps
SMALL = ["--num-envs", "8", "--rollout", "16", "--hidden", "16", "--eval-deals", "2", "--eval-opponents", "random",
         "--set", "value_warmup=1"]


def _load(name):
    pytest.importorskip("torch", reason=TRAIN_EXTRA)
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _log(run: Path) -> list:
    return [json.loads(x) for x in (run / "log.jsonl").read_text().splitlines()]


def _split(line: str) -> tuple:
    """``(imitated, PPO)`` decisions from the plan line or the done line."""
    imitated = re.search(r"([\d,]+) decisions imitating", line)
    ppo = re.search(r"([\d,]+) (?:decisions )?of PPO", line)
    return (int(imitated.group(1).replace(",", "")) if imitated else 0, int(ppo.group(1).replace(",", "")))


# ------------------------------------------------------------------ intervals
def test_format_ci_prints_an_interval_only_where_the_sets_give_one():
    spread = mean_ci([0.5, 1.0, 0.0, 1.0])
    assert format_ci(spread, pct=True) == (f"{100 * spread['mean']:.1f}% [{100 * spread['lo']:.1f}, "
                                           f"{100 * spread['hi']:.1f}]")
    margin = mean_ci([1.0, 2.0, 3.0])
    assert format_ci(margin) == f"{margin['mean']:+.2f} [{margin['lo']:+.2f}, {margin['hi']:+.2f}]"
    assert format_ci(mean_ci([0.5]), pct=True) == "50.0% (n=1: no interval)"
    assert format_ci(mean_ci([0.5, 0.5, 0.5]), pct=True) == "50.0% (n=3, all equal: no interval)"
    assert format_ci(mean_ci([0.1, 0.1, 0.1])) == "+0.10 (n=3, all equal: no interval)"   # 0.1 * 3 / 3 != 0.1
    assert format_ci(mean_ci([]), pct=True) == "- (n=0: no samples)"
    assert "[" not in format_ci({"mean": 0.5, "lo": float("nan"), "hi": float("nan"), "n": 5}, pct=True)


def test_the_arena_table_says_when_one_set_gives_no_interval():
    res = arena_evaluate("dominoes_v0", ["random", "normal"], deals=1, processes=1, progress=False)
    assert res["pairs"][0]["score_a"]["n"] == 1
    assert "(n=1: no interval)" in markdown(res)


# ------------------------------------------------------------------ train.py
def test_steps_is_the_whole_budget_split_as_documented_and_printed_first(tmp_path, capsys):
    """dominoes_v0's recipe imitates 1.5M decisions and then runs 4M of PPO: --steps 2000 gets exactly 545
    imitated and 1455 of PPO, says so before anything runs, and again when done."""
    train = _load("train")
    out = train.run(["--env", "dominoes_v0", "--steps", "2000", "--out", str(tmp_path), "--quiet"] + SMALL)
    err = capsys.readouterr().err
    cfg = json.loads((tmp_path / "config.json").read_text())
    assert (cfg["bc_steps"], cfg["total_steps"]) == (545, 1455) == (out["bc_decisions"], out["steps"])
    plan = "dominoes_v0: 545 decisions imitating normal (the warm start), then 1,455 of PPO (--steps 2,000, " \
           "shared out as the documented 1,500,000 + 4,000,000)"
    done = f"dominoes_v0: done 545 decisions imitating + 1,455 of PPO = 2,000 in {out['iteration']} iterations\n"
    assert err.index(plan) < err.index("dominoes_v0 imitation") < err.index("dominoes_v0 PPO") < err.index(done)


def test_a_short_budget_with_the_documented_rollouts_is_done_as_announced_with_a_learning_curve(tmp_path, capsys):
    """Issue 31.5: --steps 1500 with dominoes_v0's documented rollouts (128 matches x 64 decisions, 8,192 per
    iteration) did 8,192 imitated decisions where it announced 409, and PPO one iteration past its budget:
    one dot of a curve. The rollouts shrink to fit: the announced split is the done split (the budget
    exactly), the log has a line per iteration and the curve several evaluations."""
    train = _load("train")
    out = train.run(["--env", "dominoes_v0", "--steps", "1500", "--hidden", "16", "--eval-deals", "2",
                     "--eval-opponents", "random", "--out", str(tmp_path), "--quiet", "--no-progress"])
    err = capsys.readouterr().err
    assert abs(out["bc_decisions"] + out["steps"] - 1500) <= 150   # within 10% (exactly, in fact)
    plan = next(x for x in err.splitlines() if x.startswith("dominoes_v0: ") and "(--steps 1,500" in x)
    assert _split(plan) == (out["bc_decisions"], out["steps"]) == (409, 1091)
    done = [x for x in err.splitlines() if x.startswith("dominoes_v0: done ")]
    assert len(done) == 1 and _split(done[0]) == _split(plan)
    assert "fitted to the budget: rollouts of" in plan
    its = [x for x in _log(tmp_path) if "iteration" in x]
    assert len(its) == out["iteration"] >= 5 and its[-1]["steps"] == 1091
    assert sum("eval" in x for x in its) >= 3   # the points of the learning curve
    bc = [x for x in _log(tmp_path) if "bc_decisions" in x and "iteration" not in x]
    assert [x["bc_decisions"] for x in bc] == [409]


def test_explicit_rollouts_are_kept_and_the_budget_still_exact():
    pytest.importorskip("torch", reason=TRAIN_EXTRA)
    from agents.rl.configs import config_for
    from agents.rl.train import fit_to_budget, split_budget

    cfg = split_budget(config_for("dominoes_v0"), 1500)
    notes = fit_to_budget(cfg)
    assert cfg.num_envs * cfg.rollout_ticks <= cfg.total_steps // 5 and cfg.rollout_ticks == 8 and notes
    kept = split_budget(config_for("dominoes_v0", num_envs=8, rollout_ticks=64), 1500)
    fit_to_budget(kept, {"num_envs", "rollout_ticks", "eval_every"})
    assert (kept.num_envs, kept.rollout_ticks, kept.eval_every) == (8, 64, 25)
    big = split_budget(config_for("dominoes_v0"), 5_500_000)
    assert fit_to_budget(big) == [] and (big.num_envs, big.rollout_ticks, big.eval_every) == (128, 64, 25)


def test_no_arguments_prints_the_usage_and_exits_2(capsys):
    from agents.rl import train

    assert train.main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: kozel-train [-h] --env GAME") and "kozel-train --help" in err


def test_python_m_agents_rl_train_is_the_training_command(tmp_path):
    """``python -m agents.rl.train`` used to exit 0 and do nothing: now --help is the command's help and no
    arguments its usage (status 2)."""
    cmd = [sys.executable, "-m", "agents.rl.train"]
    helped = subprocess.run(cmd + ["--help"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert helped.returncode == 0 and helped.stdout.startswith("usage: kozel-train"), helped.stderr
    assert "--steps" in helped.stdout and "kozel-train --env dominoes_v0" in helped.stdout
    bare = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert bare.returncode == 2 and bare.stderr.startswith("usage: kozel-train"), bare.stderr


def test_without_torch_help_works_and_a_run_says_what_to_install(tmp_path):
    """The base install (no torch): ``--help`` and the usage still work; a run ends in one line naming the
    extra to install, status 1, no traceback."""
    block = ("import sys; sys.modules['torch'] = None; from agents.rl.train import main; "
             "sys.exit(main(sys.argv[1:]))")
    cmd = [sys.executable, "-c", block]
    helped = subprocess.run(cmd + ["--help"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert helped.returncode == 0 and helped.stdout.startswith("usage: kozel-train"), helped.stderr
    ran = subprocess.run(cmd + ["--env", "dominoes_v0", "--steps", "100", "--out", str(tmp_path / "run")],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert ran.returncode == 1, ran.stderr
    last = ran.stderr.strip().splitlines()[-1]
    assert last.startswith("kozel-train: error: training needs PyTorch") and 'kozel_env[train]' in last
    assert "Traceback" not in ran.stderr


def test_the_console_script_is_main_and_returns_an_exit_status(tmp_path, capsys):
    """pyproject's ``kozel-train = "agents.rl.train:main"``: main returns an int (a dict would be printed and
    exit 1 by the console-script wrapper); the summary dict is :func:`agents.rl.train.run`'s."""
    import tomllib

    from agents.rl import train

    pytest.importorskip("torch", reason=TRAIN_EXTRA)
    root = Path(__file__).resolve().parents[2]
    spec = tomllib.loads((root / "pyproject.toml").read_text())["project"]["scripts"]["kozel-train"]
    assert spec == "agents.rl.train:main"
    status = train.main(["--env", "donkey_v0", "--steps", "300", "--bc-steps", "0", "--eval-every", "0",
                         "--num-envs", "4", "--rollout", "16", "--hidden", "8", "--no-progress", "--quiet",
                         "--out", str(tmp_path)])
    assert status == 0 and (tmp_path / "policy.npz").exists()
    assert json.loads(capsys.readouterr().out)["steps"] == 300


def test_bc_steps_sets_the_imitation_inside_the_budget(tmp_path):
    train = _load("train")
    out = train.run(["--env", "dominoes_v0", "--steps", "1000", "--bc-steps", "0", "--out", str(tmp_path),
                      "--quiet", "--no-progress"] + SMALL)
    assert out["bc_decisions"] == 0 and out["steps"] == 1000
    with pytest.raises(SystemExit, match="leaves nothing"):
        train.run(["--env", "dominoes_v0", "--steps", "1000", "--bc-steps", "1000", "--out", str(tmp_path / "x")])
    from agents.rl.configs import config_for
    from agents.rl.train import split_budget

    cfg = split_budget(config_for("dominoes_v0"))   # no --steps: the documented figures
    assert (cfg.bc_steps, cfg.total_steps) == (1_500_000, 4_000_000)


def test_each_phase_has_its_progress_bar_counting_the_announced_decisions(tmp_path, capsys):
    """The bars count what the plan announced, in plain numbers (the PPO bar once read ``1.00/1.00``)."""
    pytest.importorskip("tqdm", reason=TRAIN_EXTRA)
    train = _load("train")
    train.run(["--env", "dominoes_v0", "--steps", "1500", "--bc-steps", "500", "--out", str(tmp_path),
               "--quiet"] + SMALL)
    err = capsys.readouterr().err
    bar = err[err.index("dominoes_v0 imitation"):err.index("dominoes_v0 PPO")]
    assert "500/500" in bar and "accuracy" in bar and "dec/s" in bar   # tqdm: count, rate and time left
    ppo = err[err.index("dominoes_v0 PPO"):err.index("dominoes_v0: done")]
    assert "1000/1000" in ppo and "1.00/1.00" not in ppo


def test_a_run_shorter_than_eval_every_ends_on_an_evaluation(tmp_path, capsys):
    """The documented eval_every is 25 iterations: a run of a few iterations was never evaluated (kept here
    with --eval-every 25: a short budget alone would evaluate more often)."""
    train = _load("train")
    out = train.run(["--env", "dominoes_v0", "--steps", "700", "--eval-every", "25", "--out", str(tmp_path),
                     "--no-progress"] + SMALL)
    assert 1 <= out["iteration"] < 25
    assert out["last_eval"] is not None and 0.0 <= out["last_eval"]["random"]["score"] <= 1.0
    lines = _log(tmp_path)
    its = [x for x in lines if "iteration" in x]
    assert [x["iteration"] for x in its] == list(range(1, out["iteration"] + 1))   # one line per iteration
    assert "eval" in its[-1] and its[-1]["final_eval"] and not any("eval" in x for x in its[:-1])
    assert (tmp_path / "best.npz").exists()   # the final evaluation competes for best.npz too
    assert f"[final it {out['iteration']} " in capsys.readouterr().err


def test_a_run_stopped_by_the_clock_ends_on_an_evaluation(tmp_path):
    train = _load("train")
    out = train.run(["--env", "dominoes_v0", "--steps", "100000", "--bc-steps", "0", "--minutes", "0",
                      "--eval-every", "5",
                      "--out", str(tmp_path), "--no-progress", "--quiet"] + SMALL)
    assert out["iteration"] == 1 and out["last_eval"] is not None
    assert _log(tmp_path)[-1]["final_eval"] is True


def test_final_evaluation_only_where_the_last_iteration_was_not_evaluated():
    pytest.importorskip("torch", reason=TRAIN_EXTRA)
    from agents.rl.configs import config_for
    from agents.rl.ppo import PPOTrainer

    small = dict(num_envs=4, rollout_ticks=8, hidden=(8,), bc_steps=0, value_warmup=0, eval_seeds=1,
                 eval_opponents=("random",))
    tr = PPOTrainer(config_for("dominoes_v0", eval_every=2, **small))
    assert tr.final_evaluation() is None                     # nothing trained yet
    tr.train_iteration()
    fin = tr.final_evaluation()
    assert fin is tr.history[-1] and fin["final_eval"] and fin["eval"]["random"]["n"] == 1
    assert tr.final_evaluation() is None                     # evaluated already
    tr.train_iteration()
    assert "eval" in tr.history[-1] and tr.final_evaluation() is None   # a periodic evaluation (iteration 2)
    off = PPOTrainer(config_for("dominoes_v0", eval_every=0, **small))
    off.train_iteration()
    assert off.final_evaluation() is None                    # --eval-every 0: no evaluation at all


def test_the_train_extra_writes_tensorboard_logs_and_a_learning_curve(tmp_path):
    pytest.importorskip("tensorboard", reason=TRAIN_EXTRA)
    pytest.importorskip("matplotlib", reason=TRAIN_EXTRA)
    train = _load("train")
    out = train.run(["--env", "dominoes_v0", "--steps", "700", "--out", str(tmp_path), "--no-progress",
                      "--quiet"] + SMALL)
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    assert out["tensorboard"] == str(tmp_path / "tb")
    tags = EventAccumulator(out["tensorboard"]).Reload().Tags()["scalars"]
    assert {"train/vf", "train/ent", "eval/score_vs_random"} <= set(tags), tags   # per iteration, and the final eval
    assert out["learning_curve"] and (tmp_path / "learning_curve.png").stat().st_size > 1000


def test_estimate_seconds_scales_measured_speed_to_the_budget():
    pytest.importorskip("torch", reason=TRAIN_EXTRA)
    from agents.rl import train
    from agents.rl.configs import config_for

    cfg = config_for("dominoes_v0", num_envs=8, rollout_ticks=16, hidden=(16,), bc_steps=100_000,
                     total_steps=1_000_000, eval_seeds=2, eval_opponents=("random",))
    est = train.estimate_seconds(cfg, select_sets=100)
    assert all(est[k] > 0 for k in ("imitation", "ppo", "evaluations", "ship", "probe"))
    assert math.isclose(est["total"], est["imitation"] + est["ppo"] + est["evaluations"] + est["ship"])
    assert est["ppo"] > 10 * est["probe"] / 3   # a million decisions: far longer than the two measured iterations
    assert train.duration(14.2) == "14 s" and train.duration(720) == "12 min" and train.duration(3900) == "1 h 05 min"


# ------------------------------------------------------------------ reproduce_baselines.py
def test_reproduce_baselines_says_how_long_it_will_take_before_starting(tmp_path, capsys):
    rb = _load("reproduce_baselines")
    res = rb.main(["--env", "dominoes_v0", "--train", "--steps", "600", "--runs", str(tmp_path),
                   "--set", "num_envs=8", "rollout_ticks=16", "hidden=[16]", "eval_seeds=1", "--select-sets", "2",
                   "--opponents", "random", "--deals", "1", "--processes", "1", "--no-progress"])
    err = capsys.readouterr().err
    first = err.splitlines()[0]
    assert first.startswith("reproduce_baselines: about ") and "on this machine" in first
    assert "dominoes_v0: training" in err and "164 imitated + 436 PPO decisions" in err   # 600 split as documented
    assert "436 PPO decisions, then 600 fine-tuning" in err   # dominoes_v0's second stage (configs.FINETUNE)
    assert err.index(first) < err.index("dominoes_v0: 164 decisions imitating") < err.index("dominoes_v0 vs random:")
    assert "reproduce_baselines: took " in err and "(estimated " in err
    g = res["estimate"]["games"]["dominoes_v0"]
    assert g["training"]["total"] > 0 and g["evaluation"]["random"] > 0
    assert res["estimate"]["total"] == pytest.approx(g["seconds"])
    # one set: the table says it has no interval instead of printing [x, x]
    assert "(n=1: no interval)" in res["table"]
    quick = rb.main(["--checkpoints", str(tmp_path / "checkpoints"), "--opponents", "random", "--deals", "1",
                     "--processes", "1", "--no-progress", "--no-estimate"])
    assert quick["estimate"] is None and "about" not in capsys.readouterr().err
