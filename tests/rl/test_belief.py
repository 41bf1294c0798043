"""The learned belief over the unseen cards and tiles (issue 15, item 4: the expert's inference),
agents/rl/belief.py."""
from __future__ import annotations

import numpy as np
import pytest

from agents.base import game_for
from agents.expert import SETTINGS
from agents.rl.belief import (
    DATA_SEED,
    belief_path,
    collect,
    holders,
    load_belief,
    log_likelihood,
    num_items,
    ranking_gain,
)

SHIPPED = sorted(name for name, levels in SETTINGS.items() if any(lv.get("belief") for lv in levels.values()))


def test_holders_name_each_items_seat_from_the_seats_place():
    hands = [0b0011, 0b0100, 0b1000, 0]  # seat 0 holds items 0 and 1, seat 1 item 2, seat 2 item 3
    h = holders([hands], 1, 5)[0]        # seen from seat 1: seat 2 is one place on (class 0), seat 0 three
    assert h.shape == (5, 4)
    assert h[3].tolist() == [1, 0, 0, 0]
    assert h[0].tolist() == h[1].tolist() == [0, 0, 1, 0]
    assert h[2].tolist() == [0, 0, 0, 0]  # its own: known, no class
    assert h[4].tolist() == [0, 0, 0, 1]  # nobody's hand: anywhere else


@pytest.mark.parametrize("name", ["dominoes_v0", "boneyard_v0", "queens_and_jacks_v0", "six_of_spades_v0"])
def test_positions_are_labelled_with_the_true_holders(name):
    d = collect(name, 400, seed=3)
    game = game_for(name, None)
    n, items = game.num_players, num_items(game)
    t = d["target"]
    assert t.shape == (400, items) and t.min() >= -1 and t.max() <= n - 1
    own = (t == -1).sum(axis=1)
    assert own.max() > 0 and (own <= items).all()
    held_by_others = ((t >= 0) & (t < n - 1)).sum(axis=1)
    assert held_by_others.max() > 0  # the other seats hold cards


def test_collecting_is_deterministic():
    a, b = collect("queens_and_jacks_v0", 300, seed=4), collect("queens_and_jacks_v0", 300, seed=4)
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_log_likelihood_sums_the_holders_log_probabilities():
    logp = np.log(np.full((4, 2), 0.5))
    logp[0] = np.log([0.9, 0.1])
    hands = [[0b0001, 0b0000], [0b0000, 0b0001]]  # item 0 with seat 1 (class 0) or in neither hand
    ll = log_likelihood(logp, hands, 1)
    assert ll.tolist() == pytest.approx([np.log(0.9) + 3 * np.log(0.5), 3 * np.log(0.5)])


@pytest.mark.skipif(not SHIPPED, reason="no game's expert uses a belief network")
@pytest.mark.parametrize("name", SHIPPED)
def test_the_shipped_belief_tells_the_true_hands_from_uniform_re_deals(name):
    """On fresh positions (its own seed), the belief's log-likelihood of the true deal beats that of a deal
    ``sample_consistent`` re-draws for the seat: it knows more than the hard facts."""
    net = load_belief(name)
    assert net.config["env"] == name and net.obs_dim == game_for(name, None).obs_spec.size
    g = ranking_gain(net, name, positions=150, seed=DATA_SEED + 7)
    assert g["mean"] > 2 * g["se"] > 0, g


def test_a_missing_belief_says_how_to_train_one(tmp_path):
    with pytest.raises(FileNotFoundError, match="python -m agents.rl.belief --env dominoes_v0"):
        load_belief("dominoes_v0", tmp_path / "none.npz")


def test_training_writes_a_belief_network_that_plays_in_numpy(tmp_path):
    pytest.importorskip("torch", reason="training the belief network needs the agents extra (torch)")
    from agents.rl.belief import train

    rec = train("queens_and_jacks_v0", samples=3000, out=tmp_path, quiet=True, epochs=1, hidden=(32,))
    net = load_belief("queens_and_jacks_v0", belief_path("queens_and_jacks_v0", tmp_path))
    assert rec["samples"] == 3000 and rec["held_out"] > 0 and net.items == 36 and net.classes == 4
    assert rec["held_out_loglik"] > rec["held_out_uniform_loglik"]
    lp = net.log_probs(collect("queens_and_jacks_v0", 1, seed=2)["obs"][0])
    assert lp.shape == (36, 4) and np.allclose(np.exp(lp).sum(axis=1), 1.0)
