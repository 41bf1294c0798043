"""The vector env guide's loop (docs/guides/vector.md) and ``examples/vector_ppo.py`` run (torch needed)."""
import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the train extra (PyTorch): pip install -e '.[train]'")
ROOT = Path(__file__).resolve().parents[2]


def test_the_guide_loop_runs_and_its_rewards_come_from_the_env():
    text = (ROOT / "docs" / "guides" / "vector.md").read_text()
    loop = r"<!-- vector-loop -->\n(?:<!--.*-->\n)*```python\n(.*?)```\n<!-- /vector-loop -->"
    code = re.search(loop, text, re.S).group(1)
    assert len(code.strip().splitlines()) <= 24
    small = code
    for big, tiny in (("num_envs=1024", "num_envs=16"), ("range(100)", "range(2)"), ("range(32)", "range(8)")):
        small = small.replace(big, tiny)
    assert small != code
    scope = {}
    exec(compile(small, "the vector guide's loop", "exec"), scope)
    assert scope["ts"].obs.shape == (16, scope["venv"].obs_size)
    assert np.isfinite(float(scope["loss"].detach()))


def test_vector_ppo_example_trains_and_reports_its_speed():
    spec = importlib.util.spec_from_file_location("vector_ppo", ROOT / "examples" / "vector_ppo.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = mod.main(["--env", "queens_and_jacks_v0", "--num-envs", "32", "--updates", "2", "--horizon", "8",
                    "--hidden", "16", "--minibatch", "64"])
    rows = out["history"]
    assert [r["update"] for r in rows] == [1, 2]
    assert all(r["decisions_per_s"] > 0 and -1 <= r["mean_reward"] <= 1 for r in rows)
