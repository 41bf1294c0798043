"""Rule tests for dominoes_v0: one test per rule of seed 000 §1-8 and RULES D1.1-D1.9, on constructed deals."""
from __future__ import annotations

import numpy as np
import pytest

from kozel_env import dominoes_v0
from kozel_env.core.errors import IllegalActionError, InvalidOptionError
from kozel_env.core.ledger import Ledger
from kozel_env.dominoes.engine import needs_redeal
from kozel_env.dominoes.game import DominoesGame
from kozel_env.dominoes.rules import PAIRS, make_rules
from kozel_env.dominoes.tiles import ALL_TILES, PIPS, SUIT, TILES, parse_tiles, pip_total, tiles_str

from .helpers import play, position

G = DominoesGame(PAIRS)

# A standard deal used by several tests: nobody needs a redeal, player_1 holds 11.
HANDS = ["01 02 05 16 24 46 55", "04 11 13 33 35 36 56", "03 12 14 15 25 34 44", "00 06 22 23 26 45 66"]


def legal(st):
    return sorted(G.legal_strings(st))


# ---------------------------------------------------------------- §1 the set
def test_s1_double_six_set_has_28_tiles_168_points_and_7_suits_of_7():
    assert len(TILES) == 28 and sum(PIPS) == 168
    assert pip_total(parse_tiles("00")) == 0 and pip_total(parse_tiles("66")) == 12
    for n in range(7):
        assert SUIT[n].bit_count() == 7
    assert tiles_str(SUIT[0]) == "00 01 02 03 04 05 06"


# ---------------------------------------------------------------- §3 deal and redeal
def test_s3_all_28_tiles_dealt_7_each_no_stock():
    st = G.new_state(5)
    assert [h.bit_count() for h in st.hands] == [7] * 4 and st.stock == 0
    union = 0
    for h in st.hands:
        union |= h
    assert union == ALL_TILES


def test_d1_6_redeal_condition_five_doubles_or_six_of_a_number():
    assert needs_redeal(parse_tiles("00 11 22 33 44 01 02"))
    assert not needs_redeal(parse_tiles("00 11 22 33 01 02 03"))
    assert needs_redeal(parse_tiles("30 31 32 33 34 35 01"))  # the double counts once: six tiles carry 3
    assert not needs_redeal(parse_tiles("30 31 32 33 34 01 02"))


REDEAL_HANDS = ["00 11 22 33 44 01 02", "03 04 05 06 12 13 14", "15 16 23 24 25 26 34", "35 36 45 46 55 56 66"]
REDEAL_SEED = 56
"""The random deal of this seed gives player_0 a hand that RULES D1.6 redeals (found by search)."""


def test_d1_6_redeal_is_silent_and_automatic():
    kept = DominoesGame(make_rules(PAIRS, {"redeal": False})).new_state(REDEAL_SEED).hands
    assert needs_redeal(kept[0])
    st = G.new_state(REDEAL_SEED)
    redeals = [e for e in st.events if e[0] == "redeal"]
    assert redeals and redeals[0][1] == -1 and redeals[0][2] is None  # nothing public: only a spectator sees it
    assert redeals[0][3]["hands"] == [tiles_str(h) for h in kept]
    assert [tiles_str(h) for h in st.hands] != [tiles_str(h) for h in kept]
    assert not any(needs_redeal(h) for h in st.hands)
    assert st.current_player == [q for q in range(4) if st.hands[q] & parse_tiles("11")][0]


def test_d1_6_hands_that_would_be_redealt_are_refused_as_a_reset_option():
    with pytest.raises(InvalidOptionError, match="redeal=False"):
        G.new_state(3, {"hands": REDEAL_HANDS})
    with pytest.raises(InvalidOptionError, match="hands"):
        dominoes_v0.env().reset(seed=0, options={"hands": REDEAL_HANDS})


def test_d1_6_redeal_keeps_the_leader_in_later_deals():
    st = G.new_state(REDEAL_SEED, {"first_deal": False, "leader": 2})
    assert any(e[0] == "redeal" for e in st.events) and st.current_player == 2
    assert not any(needs_redeal(h) for h in st.hands)


def test_d1_6_redeal_option_off():
    g = DominoesGame(make_rules(PAIRS, {"redeal": False}))
    st = g.new_state(3, {"hands": REDEAL_HANDS})
    assert tiles_str(st.hands[0]) == "00 01 02 11 22 33 44" and not any(e[0] == "redeal" for e in st.events)
    assert not any(e[0] == "redeal" for e in g.new_state(REDEAL_SEED).events)


# ---------------------------------------------------------------- §4 first move
def test_s4_d1_5_first_deal_holder_of_11_leads_exactly_11():
    st = G.new_state(0, {"hands": HANDS})
    assert st.current_player == 1
    assert legal(st) == ["11"]


def test_s4_d1_5_later_deal_leader_may_lead_any_tile():
    st = G.new_state(0, {"hands": HANDS, "first_deal": False, "leader": 3})
    assert st.current_player == 3
    assert legal(st) == sorted(tiles_str(st.hands[3]).split())


def test_s4_d1_5_next_deal_led_by_the_player_who_went_out():
    st = position(G, ["26", "00 01", "02 03", "04 05"], ends=(2, 4), current=0)
    play(G, st, "26L")
    assert st.deals_played == 1 and st.last_result["ended_by"] == "out"
    assert not st.first_deal and st.current_player == 0
    assert len(st.legal_actions()) == 7  # any tile of the new hand


def test_s4_d1_4_next_deal_led_by_the_fisher_even_if_his_pair_lost():
    # player_2 makes the fish; his pair holds more points and loses, yet he leads next.
    st = position(G, ["55 66", "00", "35 44", "01"], ends=(3, 5), current=2,
                  played_by={1: "03 13 23 33 34 36"})
    play(G, st, "35R")
    res = st.last_result
    assert res["ended_by"] == "fish" and res["last_mover"] == 2 and res["winners"] == [1] and res["losers"] == [0]
    assert st.current_player == 2


# ---------------------------------------------------------------- §5 play
def test_s5_line_ends_after_lead_and_after_a_double():
    st = G.new_state(0, {"hands": HANDS, "first_deal": False, "leader": 1})
    play(G, st, "35")
    assert st.ends == [3, 5]
    st = G.new_state(0, {"hands": HANDS})
    play(G, st, "11")
    assert st.ends == [1, 1]


def test_s5_tile_goes_at_an_end_with_the_same_number_and_the_other_half_becomes_the_end():
    st = position(G, ["35 00", "56", "55", "44"], ends=(3, 1), current=0)
    assert legal(st) == ["35L"]
    play(G, st, "35L")
    assert st.ends == [5, 1]


def test_s5_laying_a_double_keeps_the_end():
    st = position(G, ["33 00", "13", "55", "44"], ends=(3, 1), current=0)
    play(G, st, "33L")
    assert st.ends == [3, 1]


def test_s5_tile_fitting_both_ends_offers_both():
    st = position(G, ["35 00", "36", "55", "44"], ends=(3, 5), current=0)
    assert legal(st) == ["35L", "35R"]
    play(G, st, "35R")
    assert st.ends == [3, 3]


def test_d1_2_two_doubles_in_one_move_with_different_ends():
    st = position(G, ["33 66 01", "13", "55", "44"], ends=(3, 6), current=0)
    assert legal(st) == ["33+66", "33L", "66R"]
    play(G, st, "33+66")
    assert st.ends == [3, 6] and tiles_str(st.hands[0]) == "01"
    assert st.last_move == (parse_tiles("33").bit_length() - 1, parse_tiles("66").bit_length() - 1)


def test_d1_2_two_doubles_move_cannot_arise_with_equal_ends():
    st = position(G, ["33 66 01", "00", "55", "44"], ends=(3, 3), current=0)
    assert "33+66" not in legal(st)


def test_d1_2_two_doubles_emptying_the_hand_is_going_out():
    st = position(G, ["33 66", "00", "55", "44"], ends=(3, 6), current=0)
    play(G, st, "33+66")
    assert st.last_result["ended_by"] == "out" and st.last_result["last_mover"] == 0


def test_d1_2_two_doubles_option_off():
    g = DominoesGame(make_rules(PAIRS, {"two_doubles": False}))
    st = position(g, ["33 66 01", "00", "55", "44"], ends=(3, 6), current=0)
    assert sorted(g.legal_strings(st)) == ["33L", "66R"]


def test_s5_must_play_there_is_no_pass_when_a_tile_fits():
    st = position(G, ["35 00", "66", "55", "44"], ends=(3, 1), current=0)
    assert st.legal_actions() == [G.string_to_action(st, "35L")]


def test_d1_3_knock_is_automatic_public_and_free():
    # After player_0 plays, player_1 has nothing for ends 4 and 1: he knocks, player_2 is to move.
    st = position(G, ["34 00", "22 55", "44 66", "11 26"], ends=(3, 1), current=0)
    play(G, st, "34L")
    assert st.current_player == 2
    assert ("knock", 1, None, None) in st.events
    assert st.knocks[1] == (1 << 4) | (1 << 1)
    obs = G.obs_spec.view(G.observe(st, 2))
    assert obs["knocked"][3].tolist() == [0, 1, 0, 0, 1, 0, 0]  # player_1 is 3 seats after player_2
    assert st.ledger.scores == [0, 0]


def test_s5_a_played_tile_cannot_be_taken_back():
    env = dominoes_v0.env()
    env.reset(seed=0, options={"hands": HANDS})
    env.step(env.unwrapped.move_to_action("11"))
    assert all("11" not in m for m in env.unwrapped.legal_moves())


# ---------------------------------------------------------------- §6 going out and the fish
def test_s6_going_out_ends_the_deal_and_partner_tiles_do_not_count():
    st = position(G, ["26", "00 01", "55 66", "04 05"], ends=(2, 4), current=0,
                  scores=[0, 20], opened=[False, True])
    play(G, st, "26L")
    res = st.last_result
    assert res["ended_by"] == "out" and res["winners"] == [0] and res["losers"] == [1]
    assert res["written"] == [0, 1 + 4 + 5]  # seats 1 and 3 only; partner's 55 66 ignored
    assert st.ledger.scores == [0, 30]


def test_d1_4_fish_when_nobody_holds_a_fitting_tile_and_lower_pair_total_wins():
    st = position(G, ["35 12", "00", "44", "01"], ends=(3, 5), current=0,
                  played_by={1: "03 13 23 33 34 36"}, scores=[20, 20])
    play(G, st, "35R")
    res = st.last_result
    assert res["ended_by"] == "fish" and res["last_mover"] == 0
    assert res["hand_totals"] == [3 + 8, 0 + 1]
    assert res["winners"] == [1] and res["losers"] == [0] and res["written"] == [11, 0]


def test_d1_1_lone_double_values_are_not_used_to_decide_the_fish():
    # Pair 1+3 holds a lone 66 (12 plain) and 01: 13 plain < pair 0+2's 14, so pair 1+3 wins the fish.
    # Pair 0+2 writes with D1.1: lone 00 counts 25, plus 14 + 45 = 14.
    st = position(G, ["35 00", "66", "14 45", "01"], ends=(3, 5), current=0,
                  played_by={1: "03 13 23 33 34 36"})
    play(G, st, "35R")
    res = st.last_result
    assert res["hand_totals"] == [14, 13] and res["winners"] == [1]
    assert res["written"] == [25 + 14, 0]


def test_d1_1_lone_66_counts_50_for_the_losing_player():
    st = position(G, ["26", "66", "00 01", "04 05"], ends=(2, 4), current=0)
    play(G, st, "26L")
    assert st.last_result["written"] == [0, 50 + 9]


def test_d1_1_lone_double_values_option_off():
    g = DominoesGame(make_rules(PAIRS, {"lone_double_values": None}))
    st = position(g, ["26", "66", "00 01", "04 05"], ends=(2, 4), current=0)
    play(g, st, "26L")
    assert st.last_result["written"] == [0, 12 + 9]


def test_d1_8_equal_fish_totals_are_eggs_nobody_writes_total_is_carried():
    st = position(G, ["35 12", "02", "00", "01"], ends=(3, 5), current=0,
                  played_by={1: "03 13 23 33 34 36"})
    play(G, st, "35R")
    res = st.last_result
    assert res["hand_totals"] == [3, 3] and res["eggs"]
    assert res["winners"] == [] and res["losers"] == []
    assert res["written"] == [0, 0] and st.ledger.scores == [0, 0]
    assert st.ledger.eggs == 3 and res["eggs_carried_out"] == 3


# ---------------------------------------------------------------- §7 scoring
def test_d1_7_threshold_13_amount_under_13_is_lost_before_opening():
    st = position(G, ["26", "00 01", "55", "04 05"], ends=(2, 4), current=0)
    play(G, st, "26L")
    assert st.last_result["losers"] == [1] and st.last_result["written"] == [0, 0] and st.ledger.scores == [0, 0]
    assert st.ledger.opened == [False, False]


def test_d1_7_threshold_13_or_more_is_written_and_opens():
    st = position(G, ["26", "00 13", "55", "04 05"], ends=(2, 4), current=0)
    play(G, st, "26L")
    assert st.last_result["written"] == [0, 13] and st.ledger.opened[1]


def test_d1_7_once_open_any_amount_is_written():
    st = position(G, ["26", "00 01", "55", "04 05"], ends=(2, 4), current=0, scores=[0, 13])
    play(G, st, "26L")
    assert st.last_result["written"] == [0, 10] and st.ledger.scores == [0, 23]


def test_d1_7_threshold_is_per_pair():
    st = position(G, ["26", "00 01", "55", "04 05"], ends=(2, 4), current=0, scores=[40, 0])
    play(G, st, "26L")
    assert st.last_result["losers"] == [1] and st.last_result["written"] == [0, 0]


def test_d1_8_eggs_go_to_the_next_losing_pair_and_the_threshold_applies_to_the_sum():
    st = position(G, ["26", "00 01", "55", "04 05"], ends=(2, 4), current=0, eggs=3)
    play(G, st, "26L")  # 10 + 3 = 13: written
    assert st.last_result["written"] == [0, 13] and st.ledger.eggs == 0


def test_d1_8_eggs_lost_with_the_amount_under_the_threshold():
    st = position(G, ["26", "00 01", "55", "02 03"], ends=(2, 4), current=0, eggs=4)
    play(G, st, "26L")  # 1 + 5 + 4 = 10 < 13: lost, eggs gone
    assert st.last_result["losers"] == [1] and st.last_result["written"] == [0, 0]
    assert st.ledger.eggs == 0 and st.ledger.scores == [0, 0]


def test_d1_8_chained_eggs_add_up():
    led = Ledger(PAIRS.ledger_rules())
    led.record_eggs(5)
    led.record_eggs(7)
    assert led.eggs == 12
    assert led.settle({0: 2}) == {0: 14}
    assert led.eggs == 0


def test_d1_8_eggs_carried_into_the_next_deal_of_the_engine():
    st = position(G, ["35 12", "02", "00", "01"], ends=(3, 5), current=0,
                  played_by={1: "03 13 23 33 34 36"})
    play(G, st, "35R")
    assert st.ledger.eggs == 3 and st.deals_played == 1 and not st.terminal


# ---------------------------------------------------------------- §8 end of the match
def test_d1_9_goats_at_101_end_the_match():
    st = position(G, ["26", "00 13", "55", "04 05"], ends=(2, 4), current=0, scores=[30, 90])
    play(G, st, "26L")
    assert st.terminal and st.match_result["goats"] == [1] and st.match_result["winners"] == [0]
    assert st.match_result["scores"] == [30, 103]
    assert st.returns() == [1.0, -1.0, 1.0, -1.0]
    assert st.match_result["titles"] == ["goats"] and st.match_result["ended_by"] == "target"


def test_d1_9_match_goes_on_below_101():
    st = position(G, ["26", "00 13", "55", "04 05"], ends=(2, 4), current=0, scores=[30, 80])
    play(G, st, "26L")
    assert not st.terminal and st.ledger.scores == [30, 93]


def test_d1_9_naked_goats_when_the_winners_wrote_nothing():
    st = position(G, ["26", "00 13", "55", "04 05"], ends=(2, 4), current=0, scores=[0, 90])
    play(G, st, "26L")
    assert st.match_result["titles"] == ["goats", "naked_goats"]


def test_d1_9_bald_goats_when_the_match_ends_by_going_out_on_00():
    st = position(G, ["00", "66 13", "55", "04 05"], ends=(0, 4), current=0, scores=[10, 90])
    play(G, st, "00L")
    assert "bald_goats" in st.match_result["titles"] and st.match_result["goats"] == [1]


def test_d1_9_bald_goats_also_with_00_in_a_two_doubles_final_move():
    st = position(G, ["00 44", "66 13", "55", "14 15"], ends=(0, 4), current=0, scores=[10, 90])
    play(G, st, "00+44")
    assert "bald_goats" in st.match_result["titles"]


def test_d1_9_no_bald_goats_after_a_fish():
    st = position(G, ["35 12", "00", "44", "01"], ends=(3, 5), current=0,
                  played_by={1: "03 13 23 33 34 36"}, scores=[95, 20])
    play(G, st, "35R")
    assert st.match_result["goats"] == [0] and "bald_goats" not in st.match_result["titles"]


# ---------------------------------------------------------------- the environment
def test_env_infos_at_deal_end_and_match_end():
    env = dominoes_v0.env()
    env.reset(seed=1, options={"scores": [100, 100], "opened": [True, True]})
    for _agent in env.agent_iter():
        obs, _, term, _, info = env.last()
        if term:
            assert info["match"]["goats"] and info["deals"][-1]["ended_by"] in ("out", "fish")
            assert set(info["deals"][-1]) >= {"hand_totals", "written", "eggs_carried_out", "scores"}
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))


def test_env_points_rewards_per_deal_are_zero_sum():
    env = dominoes_v0.env(reward="points")
    env.reset(seed=0)
    st = env.unwrapped.game_state
    st.hands = [parse_tiles(h) for h in ["26", "00 13", "55", "04 05"]]
    # Replace the deal with the constructed going-out position of the tests above.
    pos = position(env.unwrapped.game, ["26", "00 13", "55", "04 05"], ends=(2, 4), current=0)
    env.unwrapped._st = pos
    env.agent_selection = "player_0"
    env.unwrapped._legal = None
    env.step(env.unwrapped.move_to_action("26L"))
    assert env.rewards == {"player_0": 6.5, "player_1": -6.5, "player_2": 6.5, "player_3": -6.5}


def test_env_reset_options_set_hands_scores_and_situation():
    env = dominoes_v0.env()
    env.reset(seed=0, options={"hands": HANDS, "scores": [0, 20], "opened": [False, True], "eggs": 6})
    st = env.unwrapped.game_state
    assert [tiles_str(h) for h in st.hands] == HANDS
    assert st.ledger.scores == [0, 20] and st.ledger.opened == [False, True] and st.ledger.eggs == 6
    view = env.unwrapped.game.obs_spec.view(env.observe("player_1")["observation"])
    assert view["hand"].sum() == 7 and view["scores"][0] == pytest.approx(20 / 101)
    with pytest.raises(InvalidOptionError, match="opened"):  # a side is open exactly when it has points
        env.reset(seed=0, options={"scores": [50, 12], "opened": [True, False]})


@pytest.mark.parametrize("opts", [
    {"hands": HANDS[:3]}, {"hands": ["00 00 01 02 03 04 05"] + HANDS[1:]}, {"hands": [HANDS[0]] * 4},
    {"hands": ["77 01 02 03 04 05 06"] + HANDS[1:]}, {"leader": 2}, {"first_deal": False, "leader": 9},
    {"scores": [101, 0]}, {"scores": [1, 2, 3]}, {"eggs": -1},
])
def test_env_invalid_reset_options_raise(opts):
    env = dominoes_v0.env()
    with pytest.raises(InvalidOptionError):
        env.reset(seed=0, options=opts)


def test_notation_parses_and_formats_every_kind_of_move():
    st = position(G, ["33 66 36 01", "00", "55", "44"], ends=(3, 6), current=0)
    assert G.string_to_action(st, "63l") == G.string_to_action(st, "36L")
    assert G.action_to_string(st, G.string_to_action(st, "66+33")) == "33+66"
    with pytest.raises(IllegalActionError, match="ambiguous"):
        G.string_to_action(st, "36")
    with pytest.raises(IllegalActionError, match="legal moves"):
        G.string_to_action(st, "01L")
    assert G.string_to_action(st, "33") == G.string_to_action(st, "33L")
