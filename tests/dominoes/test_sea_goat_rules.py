"""Rule tests for sea_goat_v0: Sea Goat (seed 000 §10, RULES D3.1-D3.5), on constructed deals."""
from __future__ import annotations

import numpy as np
import pytest

from kozel_env import sea_goat_v0
from kozel_env.core.errors import InvalidOptionError
from kozel_env.core.rng import Rng
from kozel_env.dominoes.game import DominoesGame
from kozel_env.dominoes.rules import SEA_GOAT, make_rules
from kozel_env.dominoes.tiles import TILE_ID

from .helpers import play, position

G = DominoesGame(SEA_GOAT)


# ---------------------------------------------------------------- D3.1 as Kozel
def test_d3_1_four_players_in_pairs_seven_each_first_move_11():
    st = G.new_state(2)
    assert G.num_players == 4 and G.rules.pairs and st.stock == 0
    assert [h.bit_count() for h in st.hands] == [7] * 4
    assert G.legal_strings(st) == ["11"]


def test_d3_1_partner_tiles_do_not_count_and_the_other_pair_writes_after_going_out():
    st = position(G, ["26", "00 01 55", "44 66", "04 05 36"], ends=(2, 4), current=0)
    play(G, st, "26L")
    res = st.last_result
    assert res["ended_by"] == "out" and res["last_mover"] == 0
    assert res["amounts"] == [0, 29]  # 0 + 1 + 10 + 4 + 5 + 9; 44 66 ignored


# ---------------------------------------------------------------- D3.2 one score for both pairs
def test_d3_2_under_25_is_not_written_and_nothing_changes():
    st = position(G, ["26", "00 01 55", "44", "04 05"], ends=(2, 4), current=0,
                  scores=[30, 0], opened=[True, False])
    play(G, st, "26L")  # pair 1 loses 20
    assert st.last_result["losers"] == [1] and st.last_result["written"] == [0, 0] and st.ledger.scores == [30, 0]
    assert st.ledger.opened == [True, False]


def test_d3_2_25_or_more_wipes_the_other_pairs_score_and_opens_its_own():
    st = position(G, ["26", "00 01 55", "44", "04 05 36"], ends=(2, 4), current=0,
                  scores=[40, 0], opened=[True, False])
    play(G, st, "26L")  # pair 1 loses 29
    assert st.last_result["written"] == [0, 29]
    assert st.ledger.scores == [0, 29] and st.ledger.opened == [False, True]


def test_d3_2_the_pair_whose_score_is_open_writes_any_amount():
    st = position(G, ["26", "01", "44", "02"], ends=(2, 4), current=0, scores=[0, 30], opened=[False, True])
    play(G, st, "26L")  # pair 1 loses 3
    assert st.last_result["written"] == [0, 3] and st.ledger.scores == [0, 33]


def test_d3_2_carried_eggs_count_toward_the_25():
    st = position(G, ["26", "01 55", "44", "02"], ends=(2, 4), current=0, eggs=12)
    play(G, st, "26L")  # pair 1 loses 13 + 12 carried = 25
    assert st.last_result["written"] == [0, 25] and st.ledger.scores == [0, 25] and st.ledger.eggs == 0


def test_d3_2_setup_may_not_give_both_pairs_a_score():
    with pytest.raises(InvalidOptionError):
        G.new_state(0, {"scores": [10, 30]})
    env = sea_goat_v0.env()
    with pytest.raises(InvalidOptionError):
        env.reset(seed=0, options={"scores": [40, 40]})


# ---------------------------------------------------------------- D3.3 going out on 00
def test_d3_3_going_out_on_00_wins_the_match_at_once_whatever_the_score():
    st = position(G, ["00", "55 66 12", "44", "36 45"], ends=(0, 3), current=0,
                  scores=[120, 0], opened=[True, False])
    play(G, st, "00L")
    assert st.terminal
    res = st.match_result
    assert res["winners"] == [0] and res["goats"] == [1] and res["ended_by"] == "instant_win"
    assert res["losers"] == [1] and "sea_goats" in res["titles"]
    assert st.ledger.scores == [120, 0]  # nothing is written
    assert st.last_result["written"] == [0, 0] and st.last_result["instant_win"]
    assert st.last_result["winners"] == [0] and st.last_result["losers"] == [1] and not st.last_result["eggs"]
    assert st.returns() == [1.0, -1.0, 1.0, -1.0]


def test_d3_3_the_two_doubles_move_with_00_and_66_also_wins_at_once():
    st = position(G, ["00 66", "55 12", "44", "36 45"], ends=(0, 6), current=0)
    play(G, st, "00+66")
    assert st.terminal and st.match_result["ended_by"] == "instant_win" and st.match_result["winners"] == [0]


def test_d3_3_option_off_going_out_on_00_is_an_ordinary_win():
    g = DominoesGame(make_rules(SEA_GOAT, {"out_00_wins_match": False}))
    st = position(g, ["00", "55 66 12", "44", "36 45"], ends=(0, 3), current=0)
    play(g, st, "00L")
    assert not st.terminal and st.last_result["written"] == [0, 43] and not st.last_result["instant_win"]


def test_d3_3_the_env_reports_the_instant_win():
    env = sea_goat_v0.env()
    env.reset(seed=1)
    st = position(G, ["00", "55 66 12", "44", "36 45"], ends=(0, 3), current=0)
    env.unwrapped._st = st
    env.agent_selection = "player_0"
    env.step(env.unwrapped.move_to_action("00L"))
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0, "player_2": 1.0, "player_3": -1.0}
    assert env.infos["player_1"]["match"]["ended_by"] == "instant_win"
    assert env.infos["player_1"]["deals"][-1]["instant_win"]


# ---------------------------------------------------------------- D3.4 going out on 66
def test_d3_4_going_out_on_66_the_losing_pair_writes_100_instead_of_its_hand():
    st = position(G, ["66", "01", "44", "02"], ends=(6, 3), current=0, scores=[60, 0], opened=[True, False])
    play(G, st, "66L")
    res = st.last_result
    assert res["amounts"] == [0, 100] and res["written"] == [0, 100]
    assert st.ledger.scores == [0, 100]  # 100 >= 25 wipes pair 0


def test_d3_4_carried_eggs_are_added_to_the_100():
    st = position(G, ["66", "01", "44", "02"], ends=(6, 3), current=0, eggs=30)
    play(G, st, "66L")
    assert st.last_result["written"] == [0, 130] and st.terminal and st.match_result["goats"] == [1]


def test_d3_4_66_with_00_in_the_same_move_is_the_00_rule():
    st = position(G, ["00 66", "55 12", "44", "36 45"], ends=(0, 6), current=0, scores=[0, 10],
                  opened=[False, True])
    play(G, st, "00+66")
    assert st.match_result["ended_by"] == "instant_win" and st.ledger.scores == [0, 10]


def test_d3_4_option_off_going_out_on_66_writes_the_hand():
    g = DominoesGame(make_rules(SEA_GOAT, {"out_66_amount": None}))
    st = position(g, ["66", "01 55", "44", "02 14"], ends=(6, 3), current=0)
    play(g, st, "66L")
    assert st.last_result["amounts"] == [0, 18]


# ---------------------------------------------------------------- D3.5 sea goats at 125
def test_d3_5_a_pair_at_125_or_more_are_the_sea_goats():
    st = position(G, ["26", "01 55", "44", "02"], ends=(2, 4), current=0, scores=[0, 112], opened=[False, True])
    play(G, st, "26L")  # pair 1 writes 13: 125
    assert st.terminal and st.match_result["goats"] == [1] and st.match_result["scores"] == [0, 125]
    assert st.match_result["titles"] == ["naked_goats", "sea_goats"]  # the winners wrote nothing


def test_d3_5_124_is_not_yet_goats():
    st = position(G, ["26", "01 55", "44", "02"], ends=(2, 3), current=0, scores=[0, 111], opened=[False, True])
    play(G, st, "26L")
    assert not st.terminal and st.ledger.scores == [0, 124]


def test_d3_5_lone_double_values_apply():
    st = position(G, ["26", "66", "44", "00"], ends=(2, 4), current=0)
    play(G, st, "26L")  # 50 + 25
    assert st.last_result["amounts"] == [0, 75]


def test_d3_5_the_fish_is_as_in_kozel():
    st = position(G, ["35 12", "00", "44", "01"], ends=(3, 5), current=0, played_by={1: "03 13 23 33 34 36"})
    play(G, st, "35R")  # ends 3, 3 with all of suit 3 down: fish; pair 0: 3, pair 1: 1
    res = st.last_result
    assert res["ended_by"] == "fish" and res["winners"] == [1] and res["amounts"] == [11, 0]
    assert res["losers"] == [0] and res["written"] == [0, 0]  # under 25


def test_sample_consistent_keeps_the_observation():
    rng = Rng(5)
    pick = np.random.default_rng(5)
    checked = 0
    for seed in range(4):
        st = G.new_state(seed, {"single_deal": True})
        while not st.terminal:
            p = int(pick.integers(4))
            other = G.sample_consistent(st, p, rng)
            other.check_invariants()
            assert np.array_equal(G.observe(other, p), G.observe(st, p))
            checked += 1
            legal = st.legal_actions()
            st.apply_action(legal[int(pick.integers(len(legal)))])
    assert checked > 20


def test_sample_consistent_is_fast_when_the_seat_to_move_must_hold_the_last_fitting_tile():
    # Both ends 5; of the 5s, seat 2 sees only 15 unaccounted for: seat 3 (to move) must hold it. The core
    # backtracking sampler took minutes here; the dominoes sampler answers at once.
    hands = ["01 02 04 12 24 66", "00 03 13 26 33 44", "05 14 22 25 45", "06 11 15 16 23 36"]
    st = position(G, hands, ends=(5, 5), current=3, played_by={0: "35", 1: "56", 2: "34 55", 3: "46"})
    rng = Rng(0)
    t15 = 1 << (TILE_ID[(1, 5)])
    for _ in range(50):
        other = G.sample_consistent(st, 2, rng)
        assert other.hands[3] & t15 and np.array_equal(G.observe(other, 2), G.observe(st, 2))
