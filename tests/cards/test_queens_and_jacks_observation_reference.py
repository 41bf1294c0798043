"""Every part of the ``queens_and_jacks_v0`` observation equals the slow reference builder written from the
part's documented meaning (``tests/reference/queens_and_jacks.py``, issue 14 item 4), for every registered
option set: seeded random play, every seat at every decision and at the end. Rules: seed 003, RULES C2."""
from __future__ import annotations

import numpy as np
import pytest

from kozel_env.registry import ENVIRONMENTS, load
from tests.reference import queens_and_jacks as reference

SEEDS = 30
OPTION_SETS = ENVIRONMENTS["queens_and_jacks_v0"][1]


def compare(game, st, where: str) -> None:
    spec = game.obs_spec
    for seat in range(4):
        fast = spec.view(game.observe(st, seat))
        slow = reference.build(game, st, seat)
        assert list(slow) == [p.name for p in spec.parts], f"{where}: the reference builds {list(slow)}"
        for name, want in slow.items():
            got = fast[name]
            if not np.array_equal(got, want):
                bad = np.argwhere(got != want)[:3].tolist()
                raise AssertionError(f"{where}, seat {seat}: part {name!r} differs from its documented meaning at "
                                     f"{bad}: engine {got[tuple(bad[0])]}, reference {want[tuple(bad[0])]}")


def setup_for(seed: int, target: int):
    """Mostly single hands; every fifteenth seed a whole match; some start with eggs in a row (the ``eggs``
    part's 1, 2 and 3+) or near the target (a last hand that passes it: ``score`` capped at 1)."""
    if seed % 15 == 0:
        return None
    setup = {"single_deal": True}
    if seed % 4 == 1:
        setup["eggs"] = seed % 5
    if seed % 3 == 2:
        setup["scores"] = [target - 1, target - 1 - seed % 2]
    return setup


@pytest.mark.parametrize("opts", OPTION_SETS, ids=[str(o) for o in OPTION_SETS])
def test_every_observation_part_matches_its_documented_meaning(opts):
    game = load("queens_and_jacks_v0").env(**opts).unwrapped.game
    rng = np.random.default_rng(5)
    decisions = 0
    for seed in range(SEEDS):
        st = game.new_state(seed, setup_for(seed, game.rules.target))
        k = 0
        while not st.terminal:
            compare(game, st, f"{opts} seed {seed} decision {k}")
            legal = st.legal_actions()
            st.apply_action(legal[rng.integers(len(legal))])
            k += 1
        compare(game, st, f"{opts} seed {seed} at the end")
        decisions += k
    assert decisions > 1000


@pytest.mark.parametrize("opts", OPTION_SETS, ids=[str(o) for o in OPTION_SETS])
def test_voids_are_the_suits_a_seat_did_not_follow(opts):
    """The ``voids`` part reads the state's ``voids``: check that field against the rule (C2.4) replayed from
    the cards played, a seat is void in the effective suit led when it played another one."""
    game = load("queens_and_jacks_v0").env(**opts).unwrapped.game
    rng = np.random.default_rng(8)
    seen = 0
    for seed in range(SEEDS):
        st = game.new_state(seed, {"single_deal": True})
        shown = [0, 0, 0, 0]
        led = None
        while not st.terminal:
            seat = st.current_player
            legal = st.legal_actions()
            a = legal[rng.integers(len(legal))]
            if a < 36:
                suit = reference.effective_suit(a, st.trump)
                if st.cards_in_trick == 0:
                    led = suit
                elif suit != led:
                    shown[seat] |= 1 << led
            st.apply_action(a)
            if not st.terminal:
                assert st.voids == shown, (seed, st.voids, shown)
                seen += sum(v.bit_count() for v in shown)
    assert seen > 100
