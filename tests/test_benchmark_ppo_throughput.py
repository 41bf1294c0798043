"""benchmarks/ppo_throughput.py: the learner's throughput, ``--threads`` included (issue 35, item 1)."""
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "ppo_throughput.py"


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)


def test_a_run_with_two_torch_threads_trains_on_two_and_reports_its_row():
    out = _run("--envs", "queens_and_jacks_v0", "--selfplay", "1", "--num-envs", "8", "--central-critic", "1",
               "--collectors", "vector", "--seconds", "0.05", "--ticks", "4", "--threads", "2")
    assert out.returncode == 0, out.stderr
    row = [line for line in out.stdout.splitlines() if line.startswith("| queens_and_jacks_v0 |")]
    assert len(row) == 1 and "| vector |" in row[0]


def test_the_trainer_gets_the_thread_count():
    import importlib.util

    import torch

    spec = importlib.util.spec_from_file_location("ppo_throughput", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    before = torch.get_num_threads()
    try:
        tr = mod.trainer("queens_and_jacks_v0", 8, 1.0, True, True, ticks=4, threads=2)
        assert tr.cfg.torch_threads == 2 and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize("flag", ["--threads", "--ref-threads"])
def test_a_thread_count_below_one_is_refused_by_name(flag):
    out = _run(flag, "0")
    assert out.returncode == 2
    assert f"{flag}=0 is not allowed" in out.stderr
