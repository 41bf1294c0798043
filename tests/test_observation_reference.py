"""Every part of every environment's observation equals a slow reference builder written from the part's
documented meaning (issue 14, item 4): ``tests/reference/<engine_id>.py``. Random seeded play over every
registered option set; at each decision every seat's observation is checked, and a mismatch names the
environment, the part and the seat."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

from kozel_env.registry import load

from .conftest import ENV_CASES

SEEDS = 2  # whole matches per option set; the per-game tests in tests/cards add set-up positions


def reference_for(game):
    try:
        return importlib.import_module(f"tests.reference.{game.engine_id}")
    except ModuleNotFoundError:
        pytest.fail(f"no reference observation builder tests/reference/{game.engine_id}.py for {game.name}")


def compare(game, ref, st, where: str) -> int:
    spec = game.obs_spec
    for seat in range(game.num_players):
        fast = spec.view(game.observe(st, seat))
        slow = ref.build(game, st, seat)
        assert set(slow) == set(fast), f"{where}: reference parts {sorted(slow)} != spec parts {sorted(fast)}"
        for name, want in slow.items():
            got = fast[name]
            if not np.allclose(got, want, atol=1e-6):
                bad = np.argwhere(~np.isclose(got, want, atol=1e-6))[:3].tolist()
                raise AssertionError(f"{where}, seat {seat}: part {name!r} differs from its documented meaning "
                                     f"at {bad}: engine {got[tuple(bad[0])]}, reference {want[tuple(bad[0])]}")
    return game.num_players


@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_every_observation_part_matches_its_reference(name, opts):
    env = load(name).env(**opts)
    game = env.unwrapped.game
    ref = reference_for(game)
    rng = np.random.default_rng(3)
    checked = 0
    for seed in range(SEEDS):
        st = game.new_state(seed)
        k = 0
        while not st.terminal:
            checked += compare(game, ref, st, f"{name} {opts} seed {seed} decision {k}")
            legal = st.legal_actions()
            st.apply_action(legal[rng.integers(len(legal))])
            k += 1
        checked += compare(game, ref, st, f"{name} {opts} seed {seed} at the end")
    assert checked > 50
