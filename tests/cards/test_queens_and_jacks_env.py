"""The ``queens_and_jacks_v0`` PettingZoo adapter on constructed deals (seed 003, RULES C2); the generic
behaviour is covered by tests/test_conformance.py."""
from __future__ import annotations

import numpy as np
import pytest

from kozel_env import queens_and_jacks_v0
from kozel_env.core.errors import IllegalActionError, InvalidOptionError

try:  # tests/cards as a package or as a plain directory on sys.path
    from .test_queens_and_jacks_rules import CASES
except ImportError:
    from test_queens_and_jacks_rules import CASES


def play_moves(env, moves: str):
    for m in moves.split():
        env.step(env.move_to_action(m))


def test_points_rewards_are_the_hands_points_centred():
    """C2.5 through the env: a hand worth 4 gives +2 to each winner and -2 to each loser (zero-sum)."""
    hands, moves, _, _ = CASES["losers_30"]
    env = queens_and_jacks_v0.env(reward="points")
    env.reset(seed=0, options={"hands": hands, "dealer": 3})
    assert env.agent_selection == "player_0"
    play_moves(env, moves)
    assert env.rewards == {"player_0": 2.0, "player_1": -2.0, "player_2": 2.0, "player_3": -2.0}
    assert [d["seat_points"] for d in env.infos["player_0"]["deals"]] == [[4, 0, 4, 0]]
    assert not any(env.terminations.values())


def test_outcome_reward_single_deal_and_eggs():
    hands, moves, _, _ = CASES["losers_no_trick"]
    env = queens_and_jacks_v0.env(episode="deal")
    env.reset(seed=0, options={"hands": hands, "dealer": 3})
    play_moves(env, moves)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0, "player_2": -1.0, "player_3": 1.0}
    hands, moves, _, _ = CASES["eggs"]
    env.reset(seed=0, options={"hands": hands, "dealer": 3})
    play_moves(env, moves)
    assert all(env.terminations.values()) and set(env.rewards.values()) == {0.0}


def test_match_won_through_the_env():
    """C2.6: the first pair to the target wins; the others are the goats."""
    hands, moves, _, _ = CASES["losers_31"]
    env = queens_and_jacks_v0.env()
    env.reset(seed=0, options={"hands": hands, "dealer": 3, "scores": [11, 0], "eggs": 1})
    play_moves(env, moves)
    assert all(env.terminations.values())
    info = env.infos["player_0"]["match"]
    assert info["scores"] == [15, 0] and info["titles"] == ["bare_goats", "goats"] and info["winners"] == [0]
    assert info["goats"] == [1] and info["returns"] == [1.0, -1.0, 1.0, -1.0]
    assert env.rewards["player_0"] == 1.0 and env.rewards["player_1"] == -1.0


def test_named_rule_through_the_env():
    """C2.3: the player left of the dealer names the suit with actions 36..39 before the first lead."""
    env = queens_and_jacks_v0.env(trumps="named")
    env.reset(seed=1, options={"dealer": 0})
    assert env.agent_selection == "player_1"
    obs = env.observe("player_1")
    assert np.flatnonzero(obs["action_mask"]).tolist() == [36, 37, 38, 39]
    assert env.legal_moves() == ["trump:C", "trump:D", "trump:H", "trump:S"]
    with pytest.raises(IllegalActionError, match="legal moves"):
        env.step(0)
    env.step(env.move_to_action("trump:S"))
    assert env.agent_selection == "player_1" and env.game_state.trump == 3
    assert env.observe("player_1")["action_mask"][36:].sum() == 0


def test_env_options_are_validated():
    for bad in ({"trumps": "spades"}, {"deck": 24}, {"target": 101}):
        with pytest.raises(InvalidOptionError):
            queens_and_jacks_v0.env(**bad)
    env = queens_and_jacks_v0.env(deck=32)
    with pytest.raises(InvalidOptionError, match="8 cards"):
        env.reset(seed=0, options={"hands": ["QC JC AC TC KC 9C 8C 7C 8D", None, None, None]})
