"""The compiled step of the batched ``beat_or_discard_v0`` (:mod:`kozel_env.vector.beat_or_discard_jit`, issue 34):
how the path is chosen (numba importable, ``KOZEL_JIT``, ``use_jit``), the numpy path without numba, and the two
paths' whole state, observations and masks equal step by step (the AEC identity of both paths is
``test_identity_beat_or_discard.py``)."""
import os
import subprocess
import sys

import numpy as np
import pytest

from kozel_env import beat_or_discard_v0, vector
from kozel_env.vector import beat_or_discard_jit
from kozel_env.vector.beat_or_discard import BatchedBeatOrDiscard

needs_numba = pytest.mark.skipif(not beat_or_discard_jit.AVAILABLE,
                                 reason="the compiled step needs numba: pip install kozel_env[fast]")

WITHOUT_NUMBA = """
import sys
sys.modules["numba"] = None  # import numba raises ImportError
import numpy as np
from kozel_env import beat_or_discard_v0, vector
from kozel_env.vector import beat_or_discard_jit
from kozel_env.vector.beat_or_discard import BatchedBeatOrDiscard
assert not beat_or_discard_jit.AVAILABLE
venv = vector.make("beat_or_discard_v0", 300, seed=3)
assert not venv.engine.jit and venv.engine.arrays
ts = venv.reset()
gen = np.random.default_rng(0)
for _ in range(50):
    ts = venv.step(venv.sample_actions(gen))
assert ts.mask.any(axis=1).all()
try:
    BatchedBeatOrDiscard(beat_or_discard_v0.raw_env.make_game({}), 4, use_jit=True)
except ImportError as e:
    assert "kozel_env[fast]" in str(e), e
else:
    raise AssertionError("use_jit=True without numba built an engine")
print("numpy path")
"""


def test_without_numba_everything_imports_and_the_numpy_path_is_taken():
    env = {**os.environ, "KOZEL_JIT": "1"}
    run = subprocess.run([sys.executable, "-c", WITHOUT_NUMBA], capture_output=True, text=True, env=env,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    assert run.returncode == 0 and run.stdout.strip() == "numpy path", run.stderr


def test_a_bad_kozel_jit_value_is_refused_naming_it(monkeypatch):
    game = beat_or_discard_v0.raw_env.make_game({})
    monkeypatch.setenv("KOZEL_JIT", "no")
    with pytest.raises(ValueError, match="KOZEL_JIT='no': use 0"):
        BatchedBeatOrDiscard(game, 8)


@needs_numba
def test_the_path_is_chosen_by_kozel_jit_at_construction_and_by_use_jit(monkeypatch):
    game = beat_or_discard_v0.raw_env.make_game({})
    monkeypatch.delenv("KOZEL_JIT", raising=False)
    assert BatchedBeatOrDiscard(game, 8).jit
    monkeypatch.setenv("KOZEL_JIT", "0")
    eng = BatchedBeatOrDiscard(game, 8)
    assert not eng.jit and not eng.arrays  # the numpy path's small batch: the scalar states
    assert BatchedBeatOrDiscard(game, 8, use_jit=True).jit
    monkeypatch.setenv("KOZEL_JIT", "1")
    assert not BatchedBeatOrDiscard(game, 8, use_jit=False).jit
    assert BatchedBeatOrDiscard(game, 1).arrays  # the compiled step steps every batch size


def _state(eng) -> dict:
    """The state arrays (a game's beating sets in any order: each row sorted; not ``handoff_arg``, the numpy
    moves' scratch for the cards of an equalising, which they do in arrays, left behind)."""
    out = {name: getattr(eng, name).copy() for name in eng.STATE if name not in ("states", "handoff_arg")}
    out["beats"].sort(axis=1)
    return out


@needs_numba
@pytest.mark.parametrize("options", [{}, {"mode": "solo", "num_players": 3}, {"hand_size": 4}],
                         ids=["pairs", "solo3", "quick"])
def test_the_compiled_and_numpy_paths_hold_the_same_state_step_by_step(options, monkeypatch):
    """Both paths from the same seeds and actions: every state array, the observations, masks and rewards
    equal after every step (300 games, 150 steps: deals, game ends and hand-offs on the way)."""
    monkeypatch.setattr(BatchedBeatOrDiscard, "ARRAYS_FROM", 1)
    venvs = []
    for flag in ("1", "0"):
        monkeypatch.setenv("KOZEL_JIT", flag)
        venvs.append(vector.make("beat_or_discard_v0", 300, seed=11, **options))
    fast, slow = venvs
    assert fast.engine.jit and not slow.engine.jit
    a, b = fast.reset(), slow.reset()
    gen = np.random.default_rng(1)
    deals = 0
    for _ in range(150):
        assert np.array_equal(a.obs, b.obs) and np.array_equal(a.mask, b.mask)
        sa, sb = _state(fast.engine), _state(slow.engine)
        for name in sa:
            assert np.array_equal(sa[name], sb[name]), name
        acts = fast.sample_actions(gen)
        a, b = fast.step(acts), slow.step(acts)
        assert np.array_equal(a.rewards, b.rewards) and np.array_equal(a.done, b.done)
        deals += int(fast.engine.deal_ended.sum())
    assert deals >= 30, deals
