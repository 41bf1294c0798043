"""Rule tests for boneyard_v0: Kozel with a boneyard (seed 001, RULES D5.1-D5.6), on constructed deals."""
from __future__ import annotations

import numpy as np
import pytest

from kozel_env import boneyard_v0
from kozel_env.core.errors import InvalidOptionError
from kozel_env.core.rng import Rng
from kozel_env.dominoes import knowledge
from kozel_env.dominoes.engine import needs_redeal
from kozel_env.dominoes.game import DominoesGame
from kozel_env.dominoes.rules import BONEYARD, make_rules
from kozel_env.dominoes.tiles import parse_tiles, tiles_str

from .helpers import play, position

G2 = DominoesGame(BONEYARD)
G3 = DominoesGame(make_rules(BONEYARD, {"num_players": 3}))
G4 = DominoesGame(make_rules(BONEYARD, {"num_players": 4}))


def yard_position(game, hands, ends, stock="", current=0, memory=None, single=False, **kw):
    """A mid-hand position with ``stock`` (draw order) still in the boneyard; ``single``: the episode ends
    with this hand (its final position stays on the table)."""
    st = position(game, hands, ends=ends, current=current, **kw)
    st.single_deal = single
    if memory is not None:
        st.ledger.memory = list(memory)
    order = [parse_tiles(x) for x in stock.split()]
    mask = 0
    for m in order:
        mask |= m
    st.stock = mask
    st.played &= ~mask
    st.played_by = [m & ~mask for m in st.played_by]
    st.stock_order = tuple(m.bit_length() - 1 for m in order)
    st.lack = [knowledge.deal_classes(h.bit_count()) for h in st.hands]
    st.fresh = -1
    st.check_invariants()
    return st


# ---------------------------------------------------------------- D5.1 the deal
@pytest.mark.parametrize("n,size,yard", [(2, 7, 14), (3, 5, 13), (4, 5, 8)])
def test_d5_1_two_players_take_seven_three_or_four_take_five_the_rest_is_the_boneyard(n, size, yard):
    env = boneyard_v0.env(num_players=n)
    env.reset(seed=1)
    st = env.unwrapped.game_state
    assert [h.bit_count() for h in st.hands] == [size] * n and st.stock.bit_count() == yard
    assert not env.unwrapped.game.rules.pairs


def test_d5_1_hand_size_option_overrides_the_table():
    g = boneyard_v0.env(num_players=3, hand_size=6).unwrapped.game
    assert g.rules.hand_size == 6 and g.new_state(0).stock.bit_count() == 10
    with pytest.raises(InvalidOptionError):
        boneyard_v0.env(num_players=4, hand_size=8)


# ---------------------------------------------------------------- D5.2 the lead
def test_d5_2_the_holder_of_the_lowest_double_leads_it():
    st = G3.new_state(0, {"hands": ["12 13 14 15 16", "22 23 24 25 26", "33 34 35 36 44"]})
    assert st.current_player == 1 and G3.legal_strings(st) == ["22"]


def test_d5_2_with_no_double_dealt_the_heaviest_tile_leads():
    st = G2.new_state(0, {"hands": ["01 02 03 04 05 06 12", "13 14 15 16 23 24 56"]})
    assert st.current_player == 1 and G2.legal_strings(st) == ["56"]


def test_d5_2_option_11_leads_with_four_players_lowest_double_when_11_is_in_the_boneyard():
    g = DominoesGame(make_rules(BONEYARD, {"num_players": 4, "opening": "11_with_four"}))
    hands = ["00 12 13 14 15", "11 22 23 24 25", "33 34 35 36 16", "44 45 46 55 56"]
    st = g.new_state(0, {"hands": hands})
    assert st.current_player == 1 and g.legal_strings(st) == ["11"]
    hands[1] = "02 22 23 24 25"
    st = g.new_state(0, {"hands": hands})  # 11 lies in the boneyard: the lowest double leads
    assert st.current_player == 0 and g.legal_strings(st) == ["00"]
    st.apply_action(st.legal_actions()[0])
    assert all(cls[0][0] >> (parse_tiles("11").bit_length() - 1) & 1 for cls in st.lack)  # nobody holds 11


def test_d5_2_the_winner_of_a_blocked_hand_leads_the_next_even_if_someone_else_moved_last():
    st = yard_position(G3, ["46 33", "12", "14 01"], ends=(5, 4), current=0)
    play(G3, st, "46R")  # blocked: 6 / 3 / 6 pips -> seat 1 wins and leads the next hand
    assert st.last_result["ended_by"] == "fish" and st.last_result["winners"] == [1]
    assert st.last_result["losers"] == [0, 2]
    assert st.deals_played == 1 and st.current_player == 1 and len(st.legal_actions()) == 5


def test_d5_2_several_winners_the_first_clockwise_from_the_last_mover_leads():
    st = yard_position(G3, ["46 12", "03", "14 02"], ends=(5, 4), current=0)
    play(G3, st, "46R")  # pips 3 / 3 / 7: seats 0 and 1 win; seat 0 made the last move
    assert st.last_result["winners"] == [0, 1] and st.current_player == 0
    st = yard_position(G3, ["46 14", "03", "12 02"], ends=(5, 4), current=0)
    play(G3, st, "46R")  # 5 / 3 / 5: seat 1 wins alone
    assert st.current_player == 1


def test_d5_2_after_playing_out_the_player_who_went_out_leads():
    st = yard_position(G2, ["26", "00 01"], ends=(2, 4), current=0, stock="55 66")
    play(G2, st, "26L")
    assert st.last_result["ended_by"] == "out" and st.last_result["last_mover"] == 0 and st.current_player == 0


# ---------------------------------------------------------------- D5.3 drawing
def test_d5_3_draw_until_a_tile_fits_the_last_boneyard_tile_may_be_drawn():
    st = yard_position(G2, ["46 00 01", "02 12"], ends=(5, 4), current=0, stock="03 55")
    play(G2, st, "46R")  # ends 5, 6: seat 1 draws 03 (no) and the last tile 55 (fits)
    assert st.current_player == 1 and st.drawn[1] == 2 and st.stock == 0
    assert G2.legal_strings(st) == ["55L"]


def test_d5_3_with_the_boneyard_empty_the_player_passes_automatically():
    st = yard_position(G2, ["46 00 55", "02 12"], ends=(5, 4), current=0, stock="03 11")
    play(G2, st, "46R")  # seat 1 draws 03, 11: nothing fits, boneyard empty: passes; seat 0 plays 55
    assert st.drawn[1] == 2 and ("knock", 1, None, None) in st.events and st.current_player == 0
    assert tiles_str(st.hands[1]) == "02 03 11 12"


# ---------------------------------------------------------------- D5.4 end of a hand
def test_d5_4_a_blocked_hand_the_fewest_pips_win_every_loser_records_his_own():
    st = yard_position(G3, ["46 12", "55 44 01", "14 02"], ends=(3, 4), current=0)
    play(G3, st, "46R")  # ends 3, 6: nobody fits, boneyard empty
    res = st.last_result
    assert res["ended_by"] == "fish" and res["hand_totals"] == [3, 19, 7]
    assert res["winners"] == [0] and res["losers"] == [1, 2] and res["amounts"] == [0, 19, 7]
    assert res["written"] == [0, 19, 0] and st.ledger.memory == [0, 0, 7]


def test_d5_4_no_block_while_the_boneyard_holds_tiles():
    st = yard_position(G2, ["46 00", "02 12"], ends=(5, 4), current=0, stock="03 01 11", single=True)
    play(G2, st, "46R")  # seat 1 draws the whole boneyard (nothing fits) before the hand is blocked
    assert st.drawn == [0, 3] and st.stock == 0 and [e[:2] for e in st.events].count(("draw", 1)) == 3
    assert st.last_result["ended_by"] == "fish" and st.last_result["hand_totals"] == [0, 2 + 3 + 3 + 1 + 2]


def test_d5_4_all_tied_nobody_loses_and_nothing_is_carried():
    st = yard_position(G2, ["46 03", "12"], ends=(5, 4), current=0)
    play(G2, st, "46R")
    res = st.last_result
    # a tie of every side is "eggs" in the result schema (kozel_env.core.results): no winners, no losers
    assert res["eggs"] and res["winners"] == [] and res["losers"] == []
    assert res["written"] == [0, 0] and st.ledger.eggs == 0 and res["eggs_carried_out"] == 0


def test_d5_4_eggs_option_carries_a_tie():
    g = DominoesGame(make_rules(BONEYARD, {"eggs_carry": True}))
    st = yard_position(g, ["46 03", "12"], ends=(5, 4), current=0)
    play(g, st, "46R")
    assert st.ledger.eggs == 3


# ---------------------------------------------------------------- D5.5 the recording floor
def test_d5_5_a_total_under_13_is_remembered_and_accumulates_until_it_lands():
    st = yard_position(G2, ["26", "01 03"], ends=(2, 4), current=0)
    play(G2, st, "26L")  # seat 1 loses 4
    assert st.last_result["losers"] == [1] and st.last_result["written"] == [0, 0]
    assert st.ledger.memory == [0, 4] and st.ledger.scores == [0, 0]
    st = yard_position(G2, ["01 03", "26"], ends=(2, 4), current=1, memory=[0, 4])
    play(G2, st, "26L")  # seat 1 wins this hand: its memory is kept (it accumulates, RULES D5.5)
    assert st.ledger.memory == [4, 4]
    st = yard_position(G2, ["26", "12 05"], ends=(2, 4), current=0, memory=[4, 4])
    play(G2, st, "26L")  # seat 1 loses 8: 4 + 8 = 12, still under 13
    assert st.ledger.memory == [4, 12] and st.ledger.scores == [0, 0]
    st = yard_position(G2, ["26", "01"], ends=(2, 4), current=0, memory=[4, 12])
    play(G2, st, "26L")  # loses 1: 13 lands
    assert st.last_result["written"] == [0, 13] and st.ledger.memory == [4, 0] and st.ledger.scores == [0, 13]


def test_d5_5_the_floor_works_in_every_hand_even_after_recording():
    st = yard_position(G2, ["26", "01"], ends=(2, 4), current=0, scores=[0, 40], opened=[False, True])
    play(G2, st, "26L")
    assert st.last_result["losers"] == [1] and st.last_result["written"] == [0, 0] and st.ledger.memory == [0, 1]


# ---------------------------------------------------------------- D5.6 the goat
def test_d5_6_reaching_101_is_the_goat_and_the_game_ends():
    st = yard_position(G3, ["26", "55 66 14", "00 03 12"], ends=(2, 4), current=0,
                       scores=[40, 90, 10], opened=[True, True, True])
    play(G3, st, "26L")
    res = st.match_result
    assert st.terminal and res["goats"] == [1] and res["scores"] == [40, 117, 10]
    assert st.ledger.memory == [0, 0, 6] and res["winners"] == [2]


def test_d5_6_lone_double_values_are_off_by_default_and_an_option():
    st = yard_position(G2, ["26", "66"], ends=(2, 4), current=0)
    play(G2, st, "26L")
    assert st.last_result["amounts"] == [0, 12]
    g = DominoesGame(make_rules(BONEYARD, {"lone_double_values": (25, 50)}))
    st = yard_position(g, ["26", "66"], ends=(2, 4), current=0)
    play(g, st, "26L")
    assert st.last_result["amounts"] == [0, 50]


def test_seed_001_one_tile_a_move_and_no_redeal_by_default():
    st = yard_position(G2, ["33 66 01", "13 23"], ends=(3, 6), current=0)
    assert sorted(G2.legal_strings(st)) == ["33L", "66R"]  # no two-doubles move
    hands = ["00 11 22 33 44", "01 02 03 04 05", "06 12 13 14 15"]
    st = G3.new_state(0, {"hands": hands})
    assert not any(e[0] == "redeal" for e in st.events) and tiles_str(st.hands[0]) == "00 11 22 33 44"
    g = DominoesGame(make_rules(BONEYARD, {"num_players": 3, "redeal": True}))
    with pytest.raises(InvalidOptionError, match="redeal=False"):  # such hands never start a deal
        g.new_state(0, {"hands": hands})
    # the random deal of seed 56 gives seat 0 six tiles with a 4: kept by default, redealt with the option
    assert needs_redeal(G2.new_state(56).hands[0]) and not any(e[0] == "redeal" for e in G2.new_state(56).events)
    st = DominoesGame(make_rules(BONEYARD, {"redeal": True})).new_state(56)
    assert [e[0] for e in st.events].count("redeal") >= 1 and not any(needs_redeal(h) for h in st.hands)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_sample_consistent_keeps_the_observation_and_the_knowledge(n):
    g = DominoesGame(make_rules(BONEYARD, {"num_players": n}))
    rng = Rng(21)
    pick = np.random.default_rng(n)
    checked = 0
    for seed in range(4):
        st = g.new_state(seed)
        while not st.terminal and st.deals_played < 2:
            if pick.random() < 0.3:
                p = int(pick.integers(n))
                other = g.sample_consistent(st, p, rng)
                other.check_invariants()
                assert np.array_equal(g.observe(other, p), g.observe(st, p))
                for q in range(n):
                    if q != p:
                        assert other.hands[q].bit_count() == st.hands[q].bit_count()
                checked += 1
            legal = st.legal_actions()
            st.apply_action(legal[int(pick.integers(len(legal)))])
    assert checked > 20
