"""Rule tests for donkey_v0: Donkey / Cross (seed 000 §11, RULES D4.1-D4.5), on constructed deals."""
from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest

from kozel_env import donkey_v0
from kozel_env.core.errors import IllegalActionError, InvalidOptionError
from kozel_env.core.rng import Rng
from kozel_env.dominoes.donkey import CLOSED, DONE, NUM_ACTIONS, DonkeyGame
from kozel_env.dominoes.engine import DEAD, NONE
from kozel_env.dominoes.game import DominoesGame
from kozel_env.dominoes.rules import DONKEY, make_rules
from kozel_env.dominoes.tiles import parse_tiles, tiles_str

from .helpers import play, position

G = DonkeyGame(DONKEY)
D, N = DEAD, NONE
HANDS = ["01 02 05 16 24 46 55", "04 11 13 33 35 36 56", "03 12 14 15 25 34 44", "00 06 22 23 26 45 66"]


def pos(hands, ends, current=0, house=False, game=G, memory=None, **kw):
    """A mid-deal Donkey position (a single-deal episode, so the final position stays on the table)."""
    st = position(game, hands, ends=ends, current=current, **kw)
    st.house = house
    st.single_deal = True
    if memory is not None:
        st.ledger.memory = list(memory)
    st.check_invariants()
    return st


def legal(st, game=G):
    return sorted(game.legal_strings(st))


# ---------------------------------------------------------------- §11: everything else as Kozel
def test_s11_four_players_seven_each_11_leads_losers_write():
    st = G.new_state(0, {"hands": HANDS})
    assert st.current_player == 1 and legal(st) == ["11"]
    assert G.num_actions == NUM_ACTIONS == 141 and G.rules.pairs and G.rules.target == 101


def test_donkey_rules_need_the_donkey_engine():
    with pytest.raises(InvalidOptionError):
        DominoesGame(DONKEY)
    with pytest.raises(InvalidOptionError):
        donkey_v0.env(two_doubles=True)
    with pytest.raises(InvalidOptionError):
        donkey_v0.env(max_doubles=5)


# ---------------------------------------------------------------- D4.1 the house
def test_d4_1_the_house_led_as_the_first_tile_gives_four_ends():
    st = G.new_state(0, {"hands": HANDS})
    play(G, st, "11")
    assert st.ends == [1, 1, 1, 1] and st.house
    assert st.current_player == 2 and legal(st) == ["12D", "12L", "12R", "12U", "14D", "14L", "14R", "14U",
                                                    "15D", "15L", "15R", "15U"]


def test_d4_1_the_house_laid_later_makes_its_end_three_ends_of_its_number():
    st = pos(["22 01", "23 13", "45", "25 35"], ends=(2, 4, N, N))
    play(G, st, "22L")  # no other double to add: the move ends by itself
    assert st.house and st.ends == [2, 4, 2, 2]


def test_d4_1_the_first_double_need_not_be_the_first_tile_and_later_doubles_are_ordinary():
    st = pos(["44 01", "13", "55", "35"], ends=(2, 4, 2, 2), house=True)
    play(G, st, "44R")
    assert st.ends == [2, 4, 2, 2]  # an ordinary open double: the end keeps its number, no new ends


def test_d4_1_a_non_double_moves_its_end_on():
    st = pos(["45 01", "23 13", "44", "25 35"], ends=(2, 4, N, N))
    play(G, st, "45R")
    assert st.ends == [2, 5, N, N] and not st.house


# ---------------------------------------------------------------- D4.2 several doubles in one move
def test_d4_2_two_doubles_in_one_move_each_at_its_own_end():
    st = pos(["22 44 01", "23 13", "45", "25 35"], ends=(2, 4, N, N))
    play(G, st, "22L")
    assert st.current_player == 0 and legal(st) == ["44R", "44Rx", "done"]
    play(G, st, "44R")  # nothing more can join: the move ends by itself
    assert st.current_player == 1 and st.last_move == tuple(parse_tiles(t).bit_length() - 1 for t in ("22", "44"))
    assert st.ends == [2, 4, 2, 2]


def test_d4_2_the_move_of_doubles_is_optional_done_ends_it():
    st = pos(["22 44 01", "23 13", "45", "25 35"], ends=(2, 4, N, N))
    play(G, st, "22L", "done")
    assert st.current_player == 1 and tiles_str(st.hands[0]) == "01 44"


def test_d4_2_only_ends_that_showed_the_number_at_the_start_of_the_move_count():
    st = pos(["22 44 01", "23 13", "45", "25 35"], ends=(2, 4, N, N))
    play(G, st, "22L")  # the house: U and D open now, but they did not exist when the move began
    assert st.move_slots == 0b10  # only R may still take a double
    obs = G.obs_spec.view(G.observe(st, 0))
    assert list(obs["move_slots"]) == [0, 1, 0, 0] and obs["house"][0] == 1
    assert tiles_str(sum(1 << int(i) for i in np.flatnonzero(obs["move_tiles"]))) == "22"
    other = G.obs_spec.view(G.observe(st, 2))  # the pending move is public
    assert list(other["move_slots"]) == [0, 1, 0, 0]


def test_d4_2_up_to_four_doubles_in_one_move_one_at_each_end():
    st = pos(["44 55 66 00 12", "13", "35", "23"], ends=(4, 5, 6, 0), house=True)
    play(G, st, "44L", "55R", "66U")
    assert st.current_player == 0 and legal(st) == ["00D", "00Dx", "done"]
    play(G, st, "00D")
    assert st.current_player != 0 and len(st.last_move) == 4 and tiles_str(st.hands[0]) == "12"


def test_d4_2_max_doubles_option_limits_the_move():
    g = DonkeyGame(make_rules(DONKEY, {"max_doubles": 2}))
    st = pos(["44 55 66 00 12", "13", "35", "23"], ends=(4, 5, 6, 0), house=True, game=g)
    play(g, st, "44L", "55R")
    assert st.current_player != 0 and len(st.last_move) == 2


def test_d4_2_the_double_laid_first_is_the_house_whichever_it_is():
    st = pos(["22 44 01", "23 13", "45", "25 35"], ends=(2, 4, N, N))
    play(G, st, "44R", "22L")
    assert st.ends == [2, 4, 4, 4]  # 44 laid first: the house, three ends of 4; 22 is ordinary


def test_d4_2_going_out_in_the_middle_of_a_move_ends_it():
    st = pos(["22 44", "23 13", "45", "25 35"], ends=(2, 4, N, N))
    play(G, st, "22L", "44R")
    assert st.last_result["ended_by"] == "out" and st.last_result["final_move"] == ["22", "44"]


def _outcomes(st, hand=None):
    """Every end state of the current player's move over all action sequences: (ends, tiles laid)."""
    out = set()
    p = st.current_player
    hand = st.hands[p] if hand is None else hand
    for a in st.legal_actions():
        c = st.clone()
        c.apply_action(a)
        if c.current_player == p and c.move_slots and not c.terminal:
            out |= _outcomes(c, hand)
        else:
            out.add((tuple(c.ends), tiles_str(hand & ~c.hands[p])))
    return out


def _expected(ends, house, doubles, singles):
    """Seed 000 §11 / RULES D4.2-3 directly: every nonempty set of doubles, each at a distinct end showing its
    number, in every order (the first is the house if none is down), each open or closed; plus single tiles."""
    res = set()
    for k in range(1, min(4, len(doubles)) + 1):
        for seq in permutations(doubles, k):
            for flags in range(1 << k):
                e = list(ends)
                h = house
                for i, (n, slot) in enumerate(seq):
                    closed = flags >> i & 1
                    if not h:
                        h = True
                        free = [j for j in range(4) if e[j] == N][:2]
                        for j in free:
                            e[j] = D if closed else n
                    if closed:
                        e[slot] = D
                if len({slot for _, slot in seq}) == k:
                    res.add((tuple(e), " ".join(sorted(f"{n}{n}" for n, _ in seq))))
    for (tile, slot, new) in singles:
        e = list(ends)
        e[slot] = new
        res.add((tuple(e), tile))
    return res


def test_d4_2_every_legal_combination_of_doubles_ends_and_closing_is_reachable_and_nothing_else():
    st = pos(["22 44 01 16", "23 13", "45", "25 35"], ends=(2, 4, N, N))
    got = _outcomes(st)
    want = _expected((2, 4, N, N), False, [(2, 0), (4, 1)], [])
    assert got == want and len(want) == 11  # both closed: the same dead cross whichever was the house
    st = pos(["44 55 66 00 12 46", "13", "35", "23"], ends=(4, 5, 6, 0), house=True)
    got = _outcomes(st)
    want = _expected((4, 5, 6, 0), True, [(4, 0), (5, 1), (6, 2), (0, 3)], [("46", 0, 6), ("46", 2, 4)])
    assert got == want and len(want) == 3 ** 4 - 1 + 2


def test_d4_2_two_ends_with_the_same_number_offer_the_double_at_either():
    st = pos(["33 01", "13", "55", "35"], ends=(3, 5, 3, 6), house=True)
    assert legal(st) == ["33L", "33Lx", "33U", "33Ux"]


# ---------------------------------------------------------------- D4.3 closing
def test_d4_3_a_closed_double_is_a_dead_end():
    st = pos(["33 01", "35 13", "55", "23"], ends=(3, 5, 2, 2), house=True)
    play(G, st, "33Lx")
    # 55 is not on the table, so the mover is asked again (RULES D4.2) although it holds no double to add
    assert st.ends == [D, 5, 2, 2] and st.current_player == 0 and legal(st) == ["done"]
    play(G, st, "done")
    assert st.current_player == 1
    assert legal(st) == ["35R"]  # nothing can be attached to the closed 33


def test_d4_3_a_closed_house_kills_all_its_free_sides():
    st = pos(["22 01", "13 24", "55", "35"], ends=(2, 4, N, N))
    play(G, st, "22Lx")
    assert st.ends == [D, 4, D, D] and st.house


def test_d4_3_a_lead_is_open_by_default_close_lead_option_allows_closing_it():
    st = G.new_state(0, {"hands": HANDS})
    assert legal(st) == ["11"]
    g = DonkeyGame(make_rules(DONKEY, {"close_lead": True}))
    st = g.new_state(0, {"hands": HANDS, "single_deal": True})
    assert legal(st, g) == ["11", "11x"]
    play(g, st, "11x")  # no open end at all: a fish at once, the leader is the fisher (RULES D4.4)
    assert st.terminal and st.last_result["ended_by"] == "fish" and st.last_result["last_mover"] == 1


def test_d4_3_closing_option_off():
    g = DonkeyGame(make_rules(DONKEY, {"closing": False}))
    st = pos(["22 44 01", "23 13", "45", "25 35"], ends=(2, 4, N, N), game=g)
    assert legal(st, g) == ["22L", "44R"]


# ---------------------------------------------------------------- D4.4 the fish
def test_d4_4_early_closing_24_answered_by_22_and_44_closed_is_a_fish_the_closer_is_the_fisher():
    hands = ["24 01 03 05 06 12 13", "22 44 14 15 16 23 25", "00 11 26 33 34 35 36", "02 04 45 46 55 56 66"]
    st = G.new_state(0, {"hands": hands, "first_deal": False, "leader": 0})
    play(G, st, "24", "22Lx", "44Rx")
    res = st.last_result
    assert res["ended_by"] == "fish" and res["last_mover"] == 1 and res["final_move"] == ["22", "44"]
    assert st.current_player == 1  # the fisher leads the next deal (seed 000 §4)


def test_d4_4_fish_takes_dead_ends_into_account_and_may_have_different_open_numbers():
    st = pos(["35 12", "00", "44", "01"], ends=(3, 6, D, D), house=True,
             played_by={1: "03 13 23 33 34 36 06 16 26 46 56 66"})
    play(G, st, "35L")  # ends 5, 6: all of suit 6 is down and nobody holds a 5
    res = st.last_result
    assert res["ended_by"] == "fish" and res["last_mover"] == 0


# ---------------------------------------------------------------- D4.5 remembered points
def test_d4_5_under_13_is_not_written_but_remembered():
    st = pos(["26", "01", "55", "04"], ends=(2, 4, N, N), scores=[0, 30], opened=[False, True])
    play(G, st, "26L")  # pair 1 loses 5, although its scoring is open: threshold in every deal
    assert st.last_result["losers"] == [1] and st.last_result["written"] == [0, 0]
    assert st.ledger.memory == [0, 5] and st.ledger.scores == [0, 30]


def test_d4_5_the_memory_is_added_to_the_next_loss():
    st = pos(["26", "01 55", "44", "04"], ends=(2, 4, N, N), memory=[0, 5])
    play(G, st, "26L")  # pair 1 loses 15 + 5
    assert st.last_result["written"] == [0, 20] and st.ledger.memory == [0, 0]


def test_d4_5_the_memory_is_cleared_when_the_pair_does_not_lose_the_next_deal():
    st = pos(["01", "26", "55", "04"], ends=(2, 4, N, N), current=1, memory=[0, 5])
    play(G, st, "26L")  # pair 1 goes out, pair 0 loses 11
    assert st.ledger.memory == [11, 0]


def test_d4_5_eggs_keep_the_memory_and_are_combined_before_the_test():
    st = pos(["35 12", "02", "00", "01"], ends=(3, 5, N, N), house=True,
             played_by={1: "03 13 23 33 34 36"}, memory=[0, 5])
    play(G, st, "35R")  # fish 3 : 3 -> eggs
    assert st.last_result["eggs"] and st.ledger.memory == [0, 5] and st.ledger.eggs == 3
    st = pos(["26", "01 03", "55", "04"], ends=(2, 4, N, N), eggs=3, memory=[0, 5])
    play(G, st, "26L")  # 8 + 3 eggs + 5 remembered = 16
    assert st.last_result["written"] == [0, 16]


def test_d4_5_lone_double_values_apply():
    st = pos(["26", "66", "55", "00"], ends=(2, 4, N, N))
    play(G, st, "26L")
    assert st.last_result["amounts"] == [0, 75]


# ---------------------------------------------------------------- notation, observation, determinization
def test_notation_closed_doubles_done_and_errors():
    st = pos(["22 44 01", "23 13", "45", "25 35"], ends=(2, 4, N, N))
    assert G.string_to_action(st, "22lx") == CLOSED + 2 * 4 + 0
    assert G.action_to_string(st, CLOSED + 4 * 4 + 1) == "44Rx"
    with pytest.raises(IllegalActionError, match="legal moves"):
        G.string_to_action(st, "01x")
    with pytest.raises(IllegalActionError, match="ambiguous|not legal"):
        G.string_to_action(st, "done")
    play(G, st, "22L")
    assert G.string_to_action(st, "done") == DONE and G.action_to_string(st, DONE) == "done"
    assert "move in progress" in G.render(st)


def test_d4_2_a_pending_move_is_asked_whether_or_not_the_mover_holds_a_double_to_add():
    # the same table, with and without 44 in player_0's hand: the turn order is the same (nothing leaks)
    st = pos(["22 44 01", "13 03", "55 06", "35 36"], ends=(2, 4, N, N))
    play(G, st, "22L")
    assert st.current_player == 0 and legal(st) == ["44R", "44Rx", "done"]
    st = pos(["22 01", "13 24", "55 06 44", "35 36"], ends=(2, 4, N, N))
    play(G, st, "22L")
    assert st.current_player == 0 and legal(st) == ["done"] and st.move_slots == 0b10
    play(G, st, "done")
    assert st.current_player == 1 and tiles_str(st.hands[0]) == "01"
    # with 44 on the table the table rules the move out: it ends by itself
    st = pos(["22 01", "13 24", "55 06", "35 36"], ends=(2, 4, N, N))
    play(G, st, "22L")
    assert st.current_player == 1 and st.move_slots == 0


def test_sample_consistent_keeps_the_observation_and_a_pending_move_reveals_no_double():
    # the table tiles spread so that no seat's dealt hand would have been redealt (RULES D1.6)
    st = pos(["22 44 01", "13 03", "55 06", "35 36"], ends=(2, 4, N, N),
             played_by={0: "00 02 04 05", 1: "11 12 14 23 24", 2: "15 16 25 26 33", 3: "34 45 46 56 66"})
    play(G, st, "22L")
    assert st.current_player == 0 and st.move_slots
    rng = Rng(1)
    for p in (1, 2, 3):
        with_44 = 0
        for _ in range(20):
            other = G.sample_consistent(st, p, rng)
            other.check_invariants()
            with_44 += other.hands[0] >> (parse_tiles("44").bit_length() - 1) & 1
            assert np.array_equal(G.observe(other, p), G.observe(st, p))
        assert 0 < with_44 < 20  # being asked again says nothing about holding 44
