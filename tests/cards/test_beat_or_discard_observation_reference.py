"""``beat_or_discard_v0``'s observation, part by part, against the slow reference builder
(:mod:`tests.reference.beat_or_discard`, written from each part's documented meaning): for every option set
of the registry, random seeded play, at every decision and at the end, for every seat."""
from __future__ import annotations

import numpy as np

from kozel_env.core.rng import Rng
from kozel_env.registry import ENVIRONMENTS, load

from ..reference.beat_or_discard import build

NAME = "beat_or_discard_v0"
SEEDS = range(8)
"""Per option set (32 seeds in all; the default suite stays fast, the reference builder is slow)."""
WHOLE_MATCHES = 1
"""Seeds below this play a whole match from the start; the others one game (``single_deal``) from a match
situation drawn from the seed (a later game with its trump, scores, eggs, a solo player out), so that the
parts of later games are checked too without playing every match to its end."""


def _situation(game, seed: int) -> dict | None:
    r = game.rules
    if seed < WHOLE_MATCHES:
        return None
    rnd = Rng(seed)
    setup = {"single_deal": True, "eggs": seed % 4}
    if seed % 2:
        setup["first_game"] = False
        if not r.quick:
            setup["trump"] = "CDHS"[rnd.below(4)]
    scores = [rnd.below(r.target) for _ in range(r.num_sides)]
    if not r.pairs and r.num_players > 2 and seed % 3 == 0:
        scores[rnd.below(r.num_players)] = r.target  # that player is out (C1.16)
    setup["scores"] = scores
    return setup


def _positions(game, seed: int):
    """Every decision of one random match or game from ``seed``, then its end."""
    st = game.new_state(seed, _situation(game, seed))
    pick = Rng(seed + 1000)
    while not st.terminal:
        yield st
        legal = st.legal_actions()
        st.apply_action(legal[pick.below(len(legal))])
    yield st


def _compare(game, st, seat: int, lit: set) -> None:
    """The engine's observation equals the reference, part by part (a failure names the part); ``lit``
    collects the parts that held a 1 somewhere."""
    obs = game.observe(st, seat)
    want = build(game, st, seat)
    assert set(want) == {p.name for p in game.obs_spec.parts}, "the reference must build every part"
    for part in game.obs_spec.parts:
        w = want[part.name]
        assert w.shape == part.shape, f"reference part {part.name!r} has shape {w.shape}, not {part.shape}"
        if part.name not in lit and w.any():
            lit.add(part.name)
    if np.array_equal(obs, game.obs_spec.flatten(want)):
        return
    got = game.obs_spec.view(obs)
    for part in game.obs_spec.parts:
        w = want[part.name]
        if not np.array_equal(got[part.name], w):
            at = tuple(int(i) for i in np.argwhere(got[part.name] != w)[0])
            raise AssertionError(f"part {part.name!r} differs from its reference for seat {seat} at {at}: "
                                 f"engine {got[part.name][at]}, reference {w[at]}")


def test_every_observation_part_matches_the_reference():
    """Every option set of the registry; the parts that ever held a 1, over them all, must be every part (or
    the comparison proved little)."""
    lit = set()
    for opts in ENVIRONMENTS[NAME][1]:
        game = load(NAME).env(**opts).unwrapped.game
        decisions = 0
        for seed in SEEDS:
            for st in _positions(game, seed):
                for seat in range(game.num_players):
                    try:
                        _compare(game, st, seat, lit)
                    except AssertionError as e:
                        raise AssertionError(f"{NAME} {opts}, seed {seed}: {e}") from None
                decisions += 1
        assert decisions > 30 * len(SEEDS), opts  # whole games were played, not only their first moves
    assert lit == {p.name for p in game.obs_spec.parts}
