"""The batched line dominoes with a stock (:mod:`kozel_env.vector.dominoes_stock`): ``dominoes_ffa_v0`` and
``boneyard_v0`` are the AEC env with the same seed and actions (every observation -- ``lacking``, ``drawn``,
``stock`` and ``lead_tile`` among them --, mask, oracle state, reward, deal and match result), in every option
set the registry tests and in the rules options that reach the rest of the stock engine (sleeping tiles,
the openings, pairs with a stock, the instant win, eggs to the highest loser), in self-play
(:func:`tests.vector.test_identity.run_identity`) and with a single learner. The default suite runs a few
hundred steps per option set; the ``slow`` test runs thousands of games."""
import numpy as np
import pytest

from kozel_env import vector
from kozel_env.core.errors import InvalidOptionError
from kozel_env.dominoes.knowledge import opening_lead
from kozel_env.dominoes.tiles import DOUBLE
from kozel_env.registry import ENVIRONMENTS, load
from kozel_env.vector.dominoes import BatchedDominoes
from kozel_env.vector.dominoes_stock import BatchedStockDominoes
from tests.vector import test_env
from tests.vector.test_identity import run_identity

CASES = [(name, options) for name in ("dominoes_ffa_v0", "boneyard_v0") for options in ENVIRONMENTS[name][1]] + [
    ("dominoes_ffa_v0", {"reward": "points", "episode": "deal"}),
    ("dominoes_ffa_v0", {"num_players": 4, "eggs_to": "highest", "target": 50, "reward": "points"}),
    ("dominoes_ffa_v0", {"draw": "none", "hand_size": 5}),
    ("dominoes_ffa_v0", {"out_00_wins_match": True, "out_66_amount": 100, "threshold_mode": "shared",
                         "threshold": 25}),
    ("dominoes_ffa_v0", {"num_players": 3, "out_00_wins_match": True, "target": 60}),
    ("boneyard_v0", {"reward": "points", "num_players": 3, "target": 40}),
    ("boneyard_v0", {"num_players": 4, "hand_size": 4, "threshold_mode": "remember", "episode": "deal"}),
    ("boneyard_v0", {"hand_size": 3, "opening": "11"}),
    ("dominoes_v0", {"draw": "all", "hand_size": 5}),
    ("dominoes_v0", {"opening": "11_with_four", "draw": "keep_last"}),
    ("dominoes_v0", {"opening": "lowest_double"}),
]
IDS = [f"{n}-{i}" for i, (n, _) in enumerate(CASES)]


@pytest.mark.parametrize(("name", "options"), CASES, ids=IDS)
def test_every_stock_game_is_the_aec_env_with_the_same_seed_and_actions(name, options):
    seen = run_identity(name, options, num_envs=6, steps=150, seed=7)
    assert seen["deals"] >= 20 and seen["episodes"] >= 1, seen


@pytest.mark.slow
@pytest.mark.parametrize(("name", "options"), CASES, ids=IDS)
def test_stock_identity_over_thousands_of_games(name, options):
    seen = run_identity(name, options, num_envs=300, steps=400, seed=2026)
    assert seen["deals"] >= 2000 and seen["episodes"] >= 100, seen


@pytest.mark.parametrize(("name", "options"), [("dominoes_ffa_v0", {"reward": "points"}),
                                                ("boneyard_v0", {}),
                                                ("boneyard_v0", {"episode": "deal", "two_doubles": True})])
def test_single_learner_stock_games_are_the_aec_env_with_the_opponent_moving_between(name, options):
    """The opponents' sub-batches (``take`` / ``put``) carry the stock and the table's knowledge: the
    learner's observations and rewards are the AEC env's with the opponents' moves played in between (the
    vector env's own single-learner test, two seats: it alternates between two sides)."""
    test_env.test_single_learner_mode_is_the_aec_env_with_the_opponent_moving_between_the_learner_decisions(
        name, options)


@pytest.mark.parametrize("opening", ["11", "lowest_double", "11_with_four"])
@pytest.mark.parametrize("num_players", [2, 4])
def test_the_opening_lead_is_the_scalar_rule_on_every_deal(opening, num_players):
    """RULES D1.5, D2.3, D5.2: ``11`` where the rule says so and it was dealt, else the lowest double, else
    the heaviest tile (rare with 5 or 7 tiles each: three tiles each reach it in one deal of seven)."""
    game = load("boneyard_v0").raw_env.make_game({"num_players": num_players, "hand_size": 3, "opening": opening})
    eng = BatchedStockDominoes(game, 600)
    eng.start(np.arange(600), vector.seeds_from(5, 600))
    seat, tile = eng._opening_lead(np.arange(600))
    hands = eng.hands.tolist()
    assert [opening_lead(opening, h) for h in hands] == list(zip(seat.tolist(), tile.tolist()))
    assert set(tile.tolist()) - set(DOUBLE), "no deal without a double: the heaviest tile never led"


def test_the_pairs_engine_plays_the_pairs_game_and_the_stock_engine_the_rest():
    assert type(vector.make("dominoes_v0", 2).engine) is BatchedDominoes
    assert type(vector.make("sea_goat_v0", 2).engine) is BatchedDominoes
    for name, options in (("dominoes_ffa_v0", {}), ("boneyard_v0", {"num_players": 3}),
                          ("dominoes_v0", {"opening": "11_with_four"})):
        assert type(vector.make(name, 2, **options).engine) is BatchedStockDominoes, name
    with pytest.raises(InvalidOptionError, match="every man for himself"):
        vector.make("donkey_v0", 2, pairs=False)
