"""The learned value of a seat's position (issue 15, item 1: the expert's leaf value), agents/rl/value.py."""
from __future__ import annotations

import numpy as np
import pytest

from agents.rl.value import DATA_SEED, collect, load_value, value_path
from kozel_env.registry import ENVIRONMENTS


@pytest.mark.parametrize("name", ["dominoes_v0", "queens_and_jacks_v0"])
def test_positions_are_labelled_with_their_seats_deal_value(name):
    """In the pairs games partners share a deal's value and the other pair has its negative: within one deal
    the labels of seats ``s`` and ``s ^ 1`` are opposite and ``s`` and ``s ^ 2`` equal (and not all zero)."""
    d = collect(name, 3000, seed=3)
    checked = 0
    for key in set(zip(d["match"].tolist(), d["deal"].tolist())):
        rows = (d["match"] == key[0]) & (d["deal"] == key[1])
        by_seat = {int(s): float(v) for s, v in zip(d["seat"][rows], d["target"][rows])}
        for s, v in by_seat.items():
            if s ^ 2 in by_seat:
                assert by_seat[s ^ 2] == v
            if s ^ 1 in by_seat:
                assert by_seat[s ^ 1] == pytest.approx(-v, abs=1e-5)
                checked += 1
    assert checked > 20 and np.abs(d["target"]).max() > 0


def test_collecting_is_deterministic():
    a, b = collect("sea_goat_v0", 500, seed=4), collect("sea_goat_v0", 500, seed=4)
    assert all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("name", list(ENVIRONMENTS))
def test_every_game_ships_a_value_that_predicts_the_deal(name):
    """On positions of matches it was not trained on (another data seed), the shipped value explains part of
    the spread of the deal's outcome (R^2 > 0: better than its mean) and reads the seat's observation only."""
    net = load_value(name)
    assert net.config["env"] == name and net.obs_dim == collect(name, 1, seed=1)["obs"].shape[1]
    d = collect(name, 4000, seed=DATA_SEED + 1)
    pred = net.value(d["obs"])
    r2 = 1.0 - np.mean((pred - d["target"]) ** 2) / np.var(d["target"])
    assert r2 > 0.0, f"{name}: R^2 {r2:.3f} on fresh positions"
    assert net.value(d["obs"][0]) == pytest.approx(pred[0], rel=1e-5)


def test_training_writes_a_value_network_that_plays_in_numpy(tmp_path):
    pytest.importorskip("torch", reason="training the value network needs the agents extra (torch)")
    from agents.rl.value import train

    rec = train("queens_and_jacks_v0", samples=3000, out=tmp_path, quiet=True, epochs=1, hidden=(32,))
    net = load_value("queens_and_jacks_v0", value_path("queens_and_jacks_v0", tmp_path))
    assert rec["samples"] >= 2900 and rec["held_out"] > 0 and net.config["held_out_r2"] == rec["held_out_r2"]
    v = net.value(collect("queens_and_jacks_v0", 100, seed=2)["obs"][:10])
    assert v.shape == (10,) and np.isfinite(v).all()
