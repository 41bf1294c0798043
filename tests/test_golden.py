"""Golden playthroughs: one whole seeded game per environment is pinned in tests/golden/<env>.txt.

A diff here means rules, move generation, notation or observation encoding changed: if that was the intent,
bump the env's version where behaviour changed and regenerate with
``python -m kozel_env.playthrough --write-golden tests/golden``.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from kozel_env.playthrough import changed_parts, playthrough

from .conftest import ENV_DEFAULTS

GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.mark.parametrize("name,opts", ENV_DEFAULTS)
def test_golden_playthrough(name, opts):
    path = GOLDEN / f"{name}.txt"
    assert path.exists(), f"no golden file for {name}: python -m kozel_env.playthrough --write-golden tests/golden"
    want = path.read_text().splitlines()
    got = playthrough(name, 0, opts).splitlines()
    for i, (w, g) in enumerate(zip(want, got)):
        assert w == g, f"{name} line {i + 1}: {changed_parts(w, g)}"
    assert len(want) == len(got), f"{name}: {len(got)} lines, golden has {len(want)}"


def test_golden_diff_names_the_changed_part():
    """A golden mismatch says which named observation part changed (issue 14, item 4)."""
    w = "player_0 obs=aaaa legal=[11] play=11 | hand=1a2b ends=0000 scores=ffff"
    g = "player_0 obs=bbbb legal=[11] play=11 | hand=1a2b ends=0001 scores=fffe"
    assert changed_parts(w, g) == "observation parts changed: ends, scores"
    assert "play=12" in changed_parts(w, w.replace("play=11", "play=12"))
