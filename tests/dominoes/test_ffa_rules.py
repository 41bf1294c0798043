"""Rule tests for dominoes_ffa_v0: every man for himself with a stock (seed 000 §9, RULES D2.1-D2.6), on
constructed deals; plus the knowledge bookkeeping of draws and its determinization."""
from __future__ import annotations

import numpy as np
import pytest

from kozel_env import dominoes_ffa_v0
from kozel_env.core.errors import InvalidOptionError
from kozel_env.core.rng import Rng
from kozel_env.dominoes import knowledge
from kozel_env.dominoes.game import DominoesGame
from kozel_env.dominoes.rules import FFA, make_rules
from kozel_env.dominoes.tiles import ALL_TILES, SUIT, parse_tiles, tiles_str

from .helpers import play, position

G2 = DominoesGame(make_rules(FFA, {"num_players": 2}))
G3 = DominoesGame(make_rules(FFA, {"num_players": 3}))
G4 = DominoesGame(make_rules(FFA, {"num_players": 4}))

# Two players: nobody needs a redeal; seat 1 lacks 1 and 2; the 14 other tiles are the stock.
H2 = ["12 13 14 15 16 23 24", "35 36 45 46 56 55 66"]
S2 = "33 04 22 00 01 02 03 05 06 11 25 26 34 44"
# Three players: the stock (7) holds no 5 or 6; seat 1 holds no 5 or 6 either.
H3 = ["56 05 06 15 16 25 26", "13 14 22 23 24 33 34", "35 36 44 45 46 55 66"]
S3 = "00 01 02 03 04 11 12"


def stock_position(game, hands, ends, stock="", current=0, **kw):
    """A mid-deal position with a stock: ``stock`` tiles (in draw order) stay off the table."""
    st = position(game, hands, ends=ends, current=current, **kw)
    order = tuple(t for t in (parse_tiles(x) for x in stock.split()))
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


def later_deal(game, hands, stock=None, leader=0, **setup):
    return game.new_state(0, {"hands": hands, "stock": stock, "first_deal": False, "leader": leader, **setup}
                          if stock else {"hands": hands, "first_deal": False, "leader": leader, **setup})


# ---------------------------------------------------------------- D2.1 the deal
@pytest.mark.parametrize("n,stock", [(2, 14), (3, 7), (4, 0)])
def test_d2_1_seven_tiles_each_and_a_stock_of_14_7_0(n, stock):
    g = DominoesGame(make_rules(FFA, {"num_players": n}))
    st = g.new_state(3)
    assert [h.bit_count() for h in st.hands] == [7] * n
    assert st.stock.bit_count() == stock
    union = st.stock
    for h in st.hands:
        assert not union & h
        union |= h
    assert union == ALL_TILES


def test_s9_every_player_for_himself_each_seat_its_own_score():
    st = G3.new_state(1)
    assert st.ledger.scores == [0, 0, 0] and not G3.rules.pairs and G3.rules.num_sides == 3


# ---------------------------------------------------------------- D2.2 drawing
def test_d2_2_a_player_who_cannot_play_draws_one_at_a_time_until_a_tile_fits():
    st = later_deal(G2, H2, S2)
    play(G2, st, "12")  # ends 1, 2: seat 1 holds neither
    assert st.current_player == 1
    assert [e[:2] for e in st.events].count(("draw", 1)) == 3  # 33, 04 do not fit; 22 does
    assert [e[3] for e in st.events if e[0] == "draw"] == ["33", "04", "22"]  # the tiles: private
    assert tiles_str(st.hands[1]) == "04 22 33 35 36 45 46 55 56 66"
    assert st.drawn == [0, 3] and st.stock.bit_count() == 11
    assert G2.legal_strings(st) == ["22R"]  # the drawn tile is the only one that fits


def test_d2_2_drawing_is_automatic_and_the_drawer_plays_at_once():
    env = dominoes_ffa_v0.env()
    env.reset(seed=0, options={"hands": H2, "stock": S2, "first_deal": False, "leader": 0})
    env.step(env.unwrapped.move_to_action("12"))
    assert env.agent_selection == "player_1"
    assert env.unwrapped.legal_moves() == ["22R"]


def test_d2_2_the_last_stock_tile_is_never_drawn_the_player_knocks():
    st = later_deal(G3, H3, S3)
    play(G3, st, "56")  # ends 5, 6: seat 1 has neither, nor has the stock
    assert [e[:2] for e in st.events].count(("draw", 1)) == 6 and ("knock", 1, None, None) in st.events
    assert st.stock.bit_count() == 1 and st.drawn == [0, 6, 0]
    assert st.knocks[1] == (1 << 5) | (1 << 6)
    assert st.current_player == 2


def test_d2_2_with_one_tile_left_a_player_without_a_fit_knocks_at_once():
    st = stock_position(G2, ["46 00", "01 02"], ends=(4, 3), stock="11", current=0)
    play(G2, st, "46L")  # ends 6, 3
    assert not any(e[0] == "draw" for e in st.events) and ("knock", 1, None, None) in st.events


def test_d2_2_a_drawn_tile_that_fits_both_ends_may_go_at_either():
    st = stock_position(G2, ["34 00 01", "55 66"], ends=(4, 2), stock="11 23 12", current=0)
    play(G2, st, "34L")  # ends 3, 2; seat 1 draws 11 (no), 23 (fits both)
    assert st.current_player == 1 and st.drawn[1] == 2
    assert sorted(G2.legal_strings(st)) == ["23L", "23R"]


def test_d2_2_the_count_drawn_is_public_the_tiles_only_the_drawers():
    st = later_deal(G2, H2, S2)
    before = G2.observe(st, 0)
    play(G2, st, "12")
    o0 = G2.obs_spec.view(G2.observe(st, 0))
    o1 = G2.obs_spec.view(G2.observe(st, 1))
    assert o0["drawn"][1] == pytest.approx(3 / 7) and o0["stock"][0] == pytest.approx(11 / 7)
    assert o0["hand_counts"][1] == pytest.approx(10 / 7)
    assert tiles_str(sum(1 << int(i) for i in np.flatnonzero(o1["hand"]))) == tiles_str(st.hands[1])
    assert before.shape == G2.observe(st, 0).shape
    # Seat 0 learns nothing about which tiles were drawn: its view is the same for any consistent re-deal.
    rng = Rng(4)
    hands = set()
    for _ in range(30):
        other = G2.sample_consistent(st, 0, rng)
        assert np.array_equal(G2.observe(other, 0), G2.observe(st, 0))
        hands.add(other.hands[1])
    assert len(hands) > 1


# ---------------------------------------------------------------- D2.3 the first move
def test_d2_3_four_players_11_starts_with_11():
    st = G4.new_state(1)
    assert st.hands[st.current_player] >> parse_tiles("11").bit_length() - 1 & 1
    assert G4.legal_strings(st) == ["11"]


def test_d2_3_two_players_the_lowest_double_in_any_hand_starts_with_it():
    st = G2.new_state(0, {"hands": H2, "stock": S2})
    assert st.current_player == 1 and G2.legal_strings(st) == ["55"]  # 00, 11, 22, 33, 44 are in the stock


def test_d2_3_three_players_lowest_double_00_is_lowest():
    hands = ["00 13 14 15 16 23 24", "11 25 26 34 35 36 45", "22 46 56 01 02 03 04"]
    st = G3.new_state(0, {"hands": hands})
    assert st.current_player == 0 and G3.legal_strings(st) == ["00"]


def test_d2_3_no_double_dealt_the_heaviest_tile_starts_ties_by_higher_half():
    # No double and neither 56 nor 46 in any hand: the heaviest are 36 and 45 (9 pips); 36 has the higher half.
    hands = ["01 02 03 45 12 13 14", "04 05 06 36 15 16 23"]
    st = G2.new_state(0, {"hands": hands})
    assert st.current_player == 1 and G2.legal_strings(st) == ["36"]


def test_d2_3_opening_option_lowest_double_with_four_players():
    g = DominoesGame(make_rules(FFA, {"num_players": 4, "opening": "lowest_double"}))
    st = g.new_state(1)
    assert g.legal_strings(st) == ["00"]


def test_d2_3_redeal_of_the_first_deal_applies_the_opening_rule_again():
    st = G2.new_state(56)  # the first deal gives seat 0 six tiles with a 4 (found by search): redealt
    redeal = [e for e in st.events if e[0] == "redeal"]
    assert redeal
    old = [parse_tiles(h) for h in redeal[0][3]["hands"]]
    assert knowledge.opening_lead("lowest_double", old) == (1, parse_tiles("00").bit_length() - 1)
    seat, tile = knowledge.opening_lead("lowest_double", st.hands)
    assert (seat, tile) != knowledge.opening_lead("lowest_double", old)  # the new deal decides the lead
    assert st.current_player == seat and st.lead_mask == 1 << tile
    hands = ["00 11 22 33 44 01 02", "03 04 05 06 12 13 14"]  # seat 0 holds five doubles: never dealt
    with pytest.raises(InvalidOptionError, match="redeal=False"):
        G2.new_state(5, {"hands": hands})


def test_d2_3_later_deals_the_player_of_the_last_tile_leads_any_tile():
    st = stock_position(G3, ["26", "00 01", "02 03"], ends=(2, 4), current=0)
    play(G3, st, "26L")
    assert st.deals_played == 1 and st.current_player == 0
    assert len(st.legal_actions()) == 7  # any of the 7 tiles


# ---------------------------------------------------------------- D2.4 the fish
def test_d2_4_fish_is_nobody_can_play_nor_draw_even_with_different_ends():
    st = stock_position(G2, ["46 00 01", "02 12"], ends=(5, 4), stock="11", current=0)
    play(G2, st, "46R")  # ends 5, 6: nobody holds either, one tile in the stock may not be drawn
    res = st.last_result
    assert res["ended_by"] == "fish" and res["last_mover"] == 0
    assert res["hand_totals"] == [1, 5] and res["winners"] == [0] and res["losers"] == [1]
    assert res["amounts"] == [0, 5] and res["written"] == [0, 0]  # under 13 before opening: lost


def test_d2_4_no_fish_while_a_player_may_still_draw():
    st = stock_position(G2, ["46 00 01", "02 12"], ends=(5, 4), stock="11 03 55 04", current=0)
    play(G2, st, "46R")
    assert st.deals_played == 0 and st.current_player == 1 and st.drawn[1] == 3  # 11, 03 miss; 55 fits
    assert st.stock.bit_count() == 1


# ---------------------------------------------------------------- D2.5 scoring
def test_d2_5_after_going_out_every_other_player_writes_his_own_hand_with_his_threshold():
    st = stock_position(G3, ["26", "55 66 14", "00 03 02"], ends=(2, 4), current=0)
    play(G3, st, "26L")
    res = st.last_result
    assert res["ended_by"] == "out" and res["last_mover"] == 0 and res["amounts"] == [0, 27, 5]
    assert res["winners"] == [0] and res["losers"] == [1, 2]
    assert res["written"] == [0, 27, 0]  # seat 2's 5 is under 13 and seat 2 is not open
    assert st.ledger.scores == [0, 27, 0] and st.ledger.opened == [False, True, False]


def test_d2_5_an_open_player_writes_any_amount():
    st = stock_position(G3, ["26", "55 66 14", "00 03 02"], ends=(2, 4), current=0,
                        scores=[0, 0, 20], opened=[False, False, True])
    play(G3, st, "26L")
    assert st.last_result["written"] == [0, 27, 5] and st.ledger.scores == [0, 27, 25]


def test_d2_5_fish_the_lowest_total_wins_all_tied_for_lowest_win():
    st = stock_position(G3, ["46 03", "12", "14 01"], ends=(5, 4), current=0)
    play(G3, st, "46R")  # ends 5, 6: nobody fits, no stock; totals 3, 3, 6
    res = st.last_result
    assert res["ended_by"] == "fish" and res["hand_totals"] == [3, 3, 6]
    assert res["winners"] == [0, 1] and res["losers"] == [2] and res["amounts"] == [0, 0, 6]


def test_d2_5_everybody_tied_in_a_fish_is_eggs_the_total_is_carried():
    st = stock_position(G3, ["46 03", "12", "11 01"], ends=(5, 4), current=0)
    play(G3, st, "46R")  # totals 3, 3, 3
    res = st.last_result
    assert res["eggs"] and res["winners"] == [] and res["losers"] == []
    assert res["written"] == [0, 0, 0] and st.ledger.eggs == 3 and st.ledger.scores == [0, 0, 0]


def test_d2_5_lone_double_values_apply_to_each_losing_hand():
    st = stock_position(G3, ["26", "66", "00"], ends=(2, 4), current=0)
    play(G3, st, "26L")
    assert st.last_result["amounts"] == [0, 50, 25] and st.ledger.scores == [0, 50, 25]


def test_d2_5_lone_double_values_option_off():
    g = DominoesGame(make_rules(FFA, {"num_players": 3, "lone_double_values": None}))
    st = stock_position(g, ["26", "66", "00"], ends=(2, 4), current=0)
    play(g, st, "26L")
    assert st.last_result["amounts"] == [0, 12, 0] and st.last_result["losers"] == [1, 2]


def test_d2_5_tiles_in_the_stock_do_not_count():
    st = stock_position(G2, ["26", "55 66 14"], ends=(2, 4), stock="00 01 56", current=0)
    play(G2, st, "26L")
    assert st.last_result["amounts"] == [0, 27]


def test_d2_5_all_tied_is_eggs_added_to_every_loser_of_the_next_decided_deal():
    st = stock_position(G3, ["26", "55 66 14", "00 03 12"], ends=(2, 4), current=0, eggs=6)
    play(G3, st, "26L")  # losers 27 and 6: both get the 6 carried
    res = st.last_result
    assert res["eggs_carried_in"] == 6 and res["losers"] == [1, 2]
    assert res["written"] == [0, 33, 0]  # 6 + 6 = 12 < 13: lost
    assert st.ledger.eggs == 0


def test_d2_5_eggs_to_highest_option_gives_the_carried_total_to_the_biggest_loser():
    g = DominoesGame(make_rules(FFA, {"num_players": 3, "eggs_to": "highest"}))
    st = stock_position(g, ["26", "55 66 14", "00 03 12"], ends=(2, 4), current=0, eggs=10)
    play(g, st, "26L")
    assert st.last_result["losers"] == [1, 2] and st.last_result["written"] == [0, 37, 0] and st.ledger.eggs == 0


# ---------------------------------------------------------------- D2.6 the goat and places
def test_d2_6_the_player_at_101_is_the_goat_places_by_points():
    st = stock_position(G3, ["26", "55 66 14", "00 03 12"], ends=(2, 4), current=0,
                        scores=[40, 90, 10], opened=[True, True, True])
    play(G3, st, "26L")
    res = st.match_result
    assert st.terminal and res["scores"] == [40, 117, 16]
    assert res["goats"] == [1] and res["winners"] == [2] and res["places"] == [2, 3, 1]
    assert res["losers"] == [1] and res["titles"] == ["goats"] and res["ended_by"] == "target"
    assert st.returns() == [0.0, -1.0, 1.0]


def test_d2_6_several_at_101_the_one_with_more_points_is_the_goat():
    st = stock_position(G3, ["26", "55 66 14", "00 34 12"], ends=(2, 4), current=0,
                        scores=[0, 80, 95], opened=[True, True, True])
    play(G3, st, "26L")
    res = st.match_result
    assert res["scores"] == [0, 107, 105] and res["goats"] == [1] and res["winners"] == [0]


def test_d2_6_several_at_101_with_equal_points_are_all_goats():
    st = stock_position(G3, ["26", "55 66 14", "45 46 44"], ends=(2, 4), current=0,
                        scores=[0, 80, 80], opened=[True, True, True])
    play(G3, st, "26L")
    res = st.match_result
    assert res["scores"] == [0, 107, 107] and res["goats"] == [1, 2] and st.returns() == [1.0, -1.0, -1.0]


def test_next_leader_winner_option_fish_winner_leads_the_next_deal():
    g = DominoesGame(make_rules(FFA, {"num_players": 3, "next_leader": "winner"}))
    st = stock_position(g, ["46 33", "12", "14 01"], ends=(5, 4), current=0)
    play(g, st, "46R")  # fish by seat 0 (6 pips); seat 1 (3) wins and leads the next deal
    assert st.last_result["winners"] == [1] and st.current_player == 1
    st = stock_position(G3, ["46 33", "12", "14 01"], ends=(5, 4), current=0)
    play(G3, st, "46R")
    assert st.current_player == 0  # default: the fisher


def test_options_are_validated():
    with pytest.raises(InvalidOptionError):
        dominoes_ffa_v0.env(num_players=5)
    with pytest.raises(InvalidOptionError):
        dominoes_ffa_v0.env(eggs_to="nobody")
    with pytest.raises(InvalidOptionError):
        dominoes_ffa_v0.env(opening="22")
    env = dominoes_ffa_v0.env(num_players=3)
    with pytest.raises(InvalidOptionError):
        env.reset(options={"hands": H3, "stock": "00 01"})  # not the 7 undealt tiles
    with pytest.raises(InvalidOptionError):
        env.reset(options={"stock": S3})  # a stock order needs the hands


# ---------------------------------------------------------------- what the table knows (draws)
def test_knowledge_a_knock_with_a_stock_is_about_the_tiles_held_then_not_the_later_draws():
    # Seat 1 drew at ends 1/2 (so its 7 dealt tiles and 33, 04 carry no 1 or 2) and played 22. Later it
    # may draw a tile carrying 1 or 2 after all: only the tiles it held at the time are excluded.
    st = later_deal(G2, H2, S2)
    play(G2, st, "12", "22R")
    fit12 = SUIT[1] | SUIT[2]
    assert st.lack[1] == ((fit12, 9),)
    obs = G2.obs_spec.view(G2.observe(st, 0))
    assert list(obs["lacking"][1] * 7) == pytest.approx([0, 9, 9, 0, 0, 0, 0])
    play(G2, st, "23R")  # ends 1, 3: seat 1 holds 33, 35, 36: plays
    assert st.current_player == 1
    play(G2, st, "33R")  # seat 0 holds 13, 14, 15, 16, 24: 13L
    play(G2, st, "13L")  # ends 3, 3; seat 1 holds 35, 36: plays 35
    play(G2, st, "35L")  # ends 5, 3; seat 0 has 15 -> plays
    play(G2, st, "15L")  # ends 1, 3; seat 1: no 1, no 3 left? holds 04 36 45 46 55 56 66 -> 36
    assert "36R" in G2.legal_strings(st)
    play(G2, st, "36R")  # ends 1, 6; seat 0: 14 16 24 -> 16
    play(G2, st, "16L")  # ends 6, 6; seat 1: 46 56 66 ...
    play(G2, st, "66L")  # seat 0 holds 14 24: no 6 -> draws 00 (no), 01 (no), 02 (no), 03 (no), 05 (no), 06 (fits)
    assert st.current_player == 0 and st.drawn[0] == 6
    fit6 = SUIT[6]
    # Seat 0: its 2 old tiles lack 6 (and nothing else known), 5 misses lack 6; 06 is its one fitting tile.
    assert st.lack[0] == ((fit6, 7),)
    rng = Rng(1)
    for _ in range(20):
        other = G2.sample_consistent(st, 1, rng)
        other.check_invariants()
        assert (other.hands[0] & fit6).bit_count() == 1  # exactly the one drawn fitting tile
        assert np.array_equal(G2.observe(other, 1), G2.observe(st, 1))


def test_knowledge_newly_drawn_tiles_may_carry_numbers_the_seat_lacked_before():
    st = later_deal(G2, H2, S2)
    play(G2, st, "12", "22R")  # seat 1 lacked 1 and 2 in its 9 tiles
    # Make seat 1 draw again at other ends, then check that the sampler may give its new tiles a 1 or a 2.
    st.lack[1] = knowledge.add_drawn(knowledge.ban(st.lack[1], SUIT[0]), SUIT[0], 2)
    assert st.lack[1] == ((SUIT[0] | SUIT[1] | SUIT[2], 9), (SUIT[0], 2))
    assert knowledge.fits(st.lack[1], parse_tiles("33 35 36 45 46 55 56 66 34 11 12"))
    assert not knowledge.fits(st.lack[1], parse_tiles("33 35 36 45 46 55 56 11 12 25 26"))  # 4 tiles of 1/2


def test_knowledge_classes_stay_nested_and_played_tiles_leave_the_oldest_class_that_allows_them():
    cls = knowledge.deal_classes(7)
    cls = knowledge.ban(cls, SUIT[3])
    cls = knowledge.add_drawn(cls, SUIT[3], 2)  # merged: both ban suit 3
    assert cls == ((SUIT[3], 9),)
    cls = knowledge.ban(cls, SUIT[5])
    cls = knowledge.add_drawn(cls, SUIT[5], 1)
    assert cls == ((SUIT[3] | SUIT[5], 9), (SUIT[5], 1))
    t33 = parse_tiles("33").bit_length() - 1
    assert knowledge.play(cls, t33) == ((SUIT[3] | SUIT[5], 9),)  # only the new class allows 33
    t11 = parse_tiles("11").bit_length() - 1
    assert knowledge.play(cls, t11) == ((SUIT[3] | SUIT[5], 8), (SUIT[5], 1))


def test_knowledge_lowest_double_opening_tells_nobody_holds_a_lower_double():
    st = G2.new_state(0, {"hands": H2, "stock": S2})
    play(G2, st, "55")  # seat 1 leads 55: 00, 11, 22, 33, 44 are in the stock
    low = parse_tiles("00 11 22 33 44")
    assert all(cls[0][0] & low == low for cls in st.lack)
    rng = Rng(2)
    for _ in range(20):
        other = G2.sample_consistent(st, 1, rng)
        assert not other.hands[0] & low


def test_knowledge_before_the_opening_lead_the_sampled_leader_is_the_same_and_leads_its_own_tile():
    st = G3.new_state(7)
    rng = Rng(3)
    for p in range(3):
        for _ in range(10):
            other = G3.sample_consistent(st, p, rng)
            assert other.current_player == st.current_player
            seat, tile = knowledge.opening_lead("lowest_double", other.hands)
            assert seat == st.leader and other.lead_mask == 1 << tile
            assert np.array_equal(G3.observe(other, p), G3.observe(st, p))
            if p == st.leader:
                assert other.lead_mask == st.lead_mask


@pytest.mark.parametrize("n", [2, 3, 4])
def test_sample_consistent_keeps_the_observation_and_the_knowledge_in_random_play(n):
    g = DominoesGame(make_rules(FFA, {"num_players": n}))
    rng = Rng(11)
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
                assert other.hands[p] == st.hands[p] and other.current_player == st.current_player
                checked += 1
            legal = st.legal_actions()
            st.apply_action(legal[int(pick.integers(len(legal)))])
    assert checked > 20
