"""Golden playthroughs: one whole seeded game per environment is pinned in tests/golden/<env>.txt.

A diff here means rules, move generation, notation or observation encoding changed: if that was the intent,
bump the env's version where behaviour changed and regenerate with
``python -m kozel_env.playthrough --write-golden tests/golden``.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from kozel_env.playthrough import playthrough

from .conftest import ENV_DEFAULTS

GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.mark.parametrize("name,opts", ENV_DEFAULTS)
def test_golden_playthrough(name, opts):
    path = GOLDEN / f"{name}.txt"
    assert path.exists(), f"no golden file for {name}: python -m kozel_env.playthrough --write-golden tests/golden"
    assert playthrough(name, 0, opts) == path.read_text()
