"""The README stays generated from the code, and every example script runs."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from kozel_env import docs

ROOT = Path(__file__).resolve().parent.parent


def test_readme_env_tables_are_generated_from_the_observation_specs():
    text = (ROOT / "README.md").read_text()
    assert docs.splice(text, docs.generate()) == text, "run: python -m kozel_env.docs --write"


def test_readme_has_the_two_setup_commands():
    text = (ROOT / "README.md").read_text()
    assert "pip install -e . && python examples/demo.py" in text
    assert 'pip install -e ".[test,train]" && python -m pytest -q' in text


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'pip install -e ".[test,train]" && python -m pytest -q' in ci and "torch==2.13.0" in ci
    # the wheel check, outside the default suite, as a step of its own after it
    assert ci.index("python -m pytest -q -m wheel tests/test_wheel.py") > ci.index("&& python -m pytest -q")


def test_demo_plays_a_full_match_between_bots():
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "demo.py"), "--seed", "3"],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    assert "plays 11" in out and "Match over after" in out and "the goats are pair" in out


def test_benchmark_script_runs():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "throughput.py"), "--seconds", "0.2",
                          "--env", "dominoes_v0"], capture_output=True, text=True, check=True,
                         timeout=120).stdout
    assert "dominoes_v0" in out and "AEC decisions/s" in out


def test_benchmark_script_reports_the_batched_engines_and_the_pettingzoo_floor():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "throughput.py"), "--seconds", "0.05",
                          "--env", "dominoes_v0", "queens_and_jacks_v0", "--skip-aec", "--batched", "--split",
                          "--floor", "--batch-sizes", "1", "8"], capture_output=True, text=True, check=True,
                         timeout=300).stdout
    assert "PettingZoo floor" in out and "step decisions/s" in out and "where a step's" in out
    rows = [line.split() for line in out.splitlines() if line.startswith(("dominoes_v0", "queens_and_jacks_v0"))]
    assert [(r[0], r[1]) for r in rows] == [("dominoes_v0", "1"), ("dominoes_v0", "8"),
                                           ("queens_and_jacks_v0", "1"), ("queens_and_jacks_v0", "8")]
