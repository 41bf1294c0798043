"""Every part of the six-of-spades observation equals the slow reference builder written from the part's
documented meaning (``tests/reference/six_of_spades.py``, issue 14 item 4), for every option set of
``six_of_spades_v0`` in the registry: random seeded play, at every decision for every seat.

Ten seeds per option set. To see whole matches end (sides going out, C3.7; the last deal) in a few
seconds, most seeds start late in a match (``deals_played`` one or two short of the limit, random scores
below the target, with three players sometimes a side already out); every fifth seed is a fresh match,
played for its first 60 decisions.
"""
from __future__ import annotations

import numpy as np
import pytest

from kozel_env.core.rng import Rng
from kozel_env.registry import ENVIRONMENTS, load
from tests.reference.six_of_spades import build

NAME = "six_of_spades_v0"
OPTION_SETS = ENVIRONMENTS[NAME][1]
SEEDS = 10


def _setup(game, seed: int) -> dict | None:
    r = game.rules
    if seed % 5 == 0:
        return None
    rng = Rng(1000 + seed)
    setup = {"deals_played": r.max_deals - 1 - seed % 2,
             "scores": [rng.below(r.target) for _ in range(r.num_sides)]}
    if r.num_sides == 3 and seed % 3 == 0:
        out = rng.below(3)
        setup["out"] = [out]
        setup["scores"][out] = r.target + rng.below(4)
    return setup


def compare(game, st, where: str) -> None:
    spec = game.obs_spec
    for seat in range(game.num_players):
        fast = spec.view(game.observe(st, seat))
        slow = build(game, st, seat)
        assert list(slow) == [p.name for p in spec.parts], f"{where}: the reference must give every part"
        for name, want in slow.items():
            assert want.shape == fast[name].shape, f"{where}: part {name!r} has the wrong shape"
            if not np.array_equal(fast[name], want):
                bad = np.argwhere(fast[name] != want)[:3].tolist()
                raise AssertionError(f"{where}, seat {seat}: part {name!r} differs from its documented meaning "
                                     f"at {bad}: engine {fast[name][tuple(bad[0])]}, reference "
                                     f"{want[tuple(bad[0])]}")


@pytest.mark.parametrize("opts", OPTION_SETS, ids=[f"{NAME}-{i}" for i in range(len(OPTION_SETS))])
def test_every_observation_part_matches_its_reference(opts):
    game = load(NAME).env(**opts).unwrapped.game
    decisions = ends = 0
    for seed in range(SEEDS):
        setup = _setup(game, seed)
        st = game.new_state(seed, setup)
        rng = Rng(seed)
        k = 0
        while not st.terminal and (setup is not None or k < 60):
            compare(game, st, f"{NAME} {opts} seed {seed} decision {k}")
            legal = st.legal_actions()
            st.apply_action(legal[rng.below(len(legal))])
            k += 1
        compare(game, st, f"{NAME} {opts} seed {seed} after {k} decisions")
        decisions += k
        ends += st.terminal
    assert decisions > 200 and ends >= SEEDS // 2
