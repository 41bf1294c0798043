"""Rules of ``queens_and_jacks_v0`` (seed 003 and RULES C2), one rule per test, on constructed deals.

Sources: "seed" is ``/work/shared/seeds/003_b4ccc5198f358dfb.txt`` (section names in quotes), "C2.n" is
``/work/shared/RULES.md`` section C2, "C" its card-points line.
"""
from __future__ import annotations

import pytest

from kozel_env.cards.deck import (
    DECK_32,
    FULL_DECK,
    R6,
    RANK_MASK,
    card_str,
    cards_str,
    parse_card,
    parse_cards,
    points,
)
from kozel_env.cards.queens_and_jacks import (
    EFF,
    FOLLOW,
    STRENGTH,
    TRUMP_MASK,
    QueensAndJacksGame,
    QueensAndJacksRules,
    hand_value,
)
from kozel_env.core.bits import bits
from kozel_env.core.errors import IllegalActionError, InvalidOptionError
from kozel_env.core.rng import Rng

GAME = QueensAndJacksGame()


def new(hands=None, game=GAME, seed=0, **setup):
    if hands is not None:
        setup["hands"] = hands
    setup.setdefault("dealer", 3)
    return game.new_state(seed, setup)


def play(st, moves: str, game=GAME):
    for m in moves.split():
        st.apply_action(game.string_to_action(st, m))
    return st


def legal(st, game=GAME):
    return set(game.legal_strings(st))


# Whole hands found once by random play with dealer 3 (seat 0 leads), written out so each scoring rule is
# pinned on a fixed deal: (hands per seat, the 36 cards in playing order, eyes per side, tricks per side).
CASES = {
    "eggs": (["7C QC AC 7D 8H 7S 8S 9S TS", "TC JC 6D QD KD AD 6H KS AS", "8C 9D JD TH QH KH AH 6S QS",
              "6C 9C KC 8D TD 7H 9H JH JS"],
             "8H 6H KH 9H 8C KC AC QD KD 9D TD 7D JS 7C JC QH QS 6C QC TC 8S AS 6S JH 8D TS AD JD TH 7H 9S 6D "
             "AH 9C 7S KS", [60, 60], [5, 4]),
    "losers_30": (["QC AC 9D JD TH KH TS JS KS", "6C 7C 8C TC 6D 7D QD 6H 7S", "JC KC AD 7H 9H QH AH 9S AS",
                   "9C 8D TD KD 8H JH 6S 8S QS"],
                  "AC QD QH 9C KC QS JD 6C KD 9D 7D AD JC JH QC 8C KH 6H 9H 8H TS 7S 9S 8S JS TC AS 6S KS 6D 7H "
                  "TD TH 7C AH 8D", [90, 30], [7, 2]),
    "losers_31": (["6C 7C KC 6D 7H 9H AH 6S JS", "TC AC 8D 8H QH KH 7S QS KS", "8C JC QC 7D TD QD JH TS AS",
                   "9C 9D JD KD AD 6H TH 8S 9S"],
                  "7H 8H 8C 6H TD AD 6D 8D 8S 6S KS AS 7D 9D JS KH KC QS QD 9C TC JC JD 6C QC TH 7C QH JH 9S AH "
                  "AC TS KD 9H 7S", [89, 31], [7, 2]),
    "losers_trick_no_eyes": (["7C 9C TD JD 7H 6S 7S 9S JS", "6C QC KC KD 6H TH QH AH AS",
                              "8C AC 7D 8D QD 9H 8S TS KS", "TC JC 6D 9D AD 8H JH KH QS"],
                             "6S AS KS 6D KC 8C TC 7C 8H 7H AH 9H TH 8D KH 7S 6H AC JC 9S QS JS QC QD QH TS JH JD "
                             "6C 8S 9D 9C TD KD 7D AD", [0, 120], [1, 8]),
    "losers_no_trick": (["TC KC TD QD JH KH 8S 9S TS", "8C QC AC KD 8H 9H AH 6S AS",
                         "7C JC 6D 7D 8D 7H 7S JS KS", "6C 9C 9D JD AD 6H TH QH QS"],
                        "KC 8C JS QS JD JH QC JC KD 7D AD TD 9C TC AC 7C 8H 7H TH KH QH QD 9H 7S 9D 9S AS 6D 6C "
                        "8S 6S KS 6H TS AH 8D", [0, 120], [0, 9]),
}


def play_case(name, game=GAME, **setup):
    hands, moves, _, _ = CASES[name]
    st = new(hands, game=game, **setup)
    return play(st, moves, game)


# --------------------------------------------------------------------------------------- C2.1 the deal


def test_c2_1_deal_nine_each_in_threes_from_the_dealers_left():
    """seed "The cards": everyone gets nine, dealt three at a time from the dealer's left."""
    for dealer in range(4):
        st = GAME.new_state(7, {"dealer": dealer})
        deck = bits(FULL_DECK)
        Rng(7).shuffle(deck)
        for k in range(1, 5):
            seat = (dealer + k) % 4
            i = (k - 1) * 3
            expect = deck[i:i + 3] + deck[12 + i:12 + i + 3] + deck[24 + i:24 + i + 3]
            assert bits(st.hands[seat]) == sorted(expect)


def test_c2_1_deck32_eight_each_in_packets_3_3_2_no_sixes():
    """seed "The cards": with 32 cards the sixes are left out, eight each (three, three, then two)."""
    game = QueensAndJacksGame(deck=32)
    st = game.new_state(11, {"dealer": 2})
    deck = bits(DECK_32)
    Rng(11).shuffle(deck)
    for k in range(1, 5):
        seat = (2 + k) % 4
        i3, i2 = (k - 1) * 3, (k - 1) * 2
        expect = deck[i3:i3 + 3] + deck[12 + i3:12 + i3 + 3] + deck[24 + i2:24 + i2 + 2]
        assert bits(st.hands[seat]) == sorted(expect)
        assert st.hands[seat].bit_count() == 8
        assert st.hands[seat] & RANK_MASK[R6] == 0
    assert points(DECK_32) == 120


def test_c2_1_32_card_setup_rejects_sixes():
    with pytest.raises(InvalidOptionError, match="6C"):
        QueensAndJacksGame(deck=32).new_state(0, {"hands": ["6C 7C 8C 9C TC JC QC KC", None, None, None]})


def test_c2_1_player_left_of_dealer_leads_first_trick():
    """seed "The cards" / C2.1: the player on the dealer's left leads the first trick."""
    for dealer in range(4):
        st = GAME.new_state(3, {"dealer": dealer})
        assert st.current_player == (dealer + 1) % 4
        assert st.leader == (dealer + 1) % 4
    assert GAME.new_state(3, {"leader": 2}).dealer == 1


def test_c2_1_deal_passes_to_the_left():
    """seed "The cards": the deal passes to the left; the new dealer's left leads the next hand."""
    st = play_case("losers_31")  # dealer 3, a decided hand, match continues
    assert not st.terminal and st.deals_played == 1
    assert st.dealer == 0 and st.current_player == 1 and st.leader == 1
    assert all(h.bit_count() == 9 for h in st.hands) and st.played == [0, 0, 0, 0]


def test_c2_1_first_dealer_of_a_match_drawn_from_the_rng():
    """Silent in the rules: the first dealer is drawn from the state's Rng (setup dealer fixes it)."""
    dealers = {GAME.new_state(s).dealer for s in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert GAME.new_state(5).dealer == GAME.new_state(5).dealer


# ------------------------------------------------------------------------------------ C2.2 trump order


def test_c2_2_trump_order_queens_then_jacks_then_trump_suit():
    """seed "Trumps" / C2.2: QC QS QH QD JC JS JH JD, then the trump suit's A T K 9 8 7 6."""
    order = "QC QS QH QD JC JS JH JD AC TC KC 9C 8C 7C 6C".split()
    strengths = [STRENGTH[parse_card(c)] for c in order]
    assert strengths == sorted(strengths, reverse=True) and len(set(strengths)) == 15
    assert all(EFF[0][parse_card(c)] == 0 for c in order)


def test_c2_2_trump_order_decides_tricks():
    """C2.2 / C2.4 played out: JD beats AC beats TC beats KC; JC > JS > JH; QC > QS > QH > QD."""
    hands = ["QD JC AC 6H 7H 8H 9H TH KH", "QS JS TC 6S 7S 8S 9S TS KS", "QH JH KC 6D 7D 8D 9D TD KD", None]
    st = new(hands)
    assert cards_str(st.hands[3]) == "6C 7C 8C 9C QC JD AD AH AS"
    play(st, "AC TC KC JD")
    assert st.current_player == 3 and st.tricks == [0, 1] and st.eyes == [0, 11 + 10 + 4 + 2]
    play(st, "6C JC JS JH")
    assert st.current_player == 0 and st.tricks == [1, 1]
    play(st, "QD QS QH QC")
    assert st.current_player == 3


def test_c2_2_fifteen_trumps_fourteen_with_32_cards():
    """seed "Trumps": fifteen trumps (fourteen with 32 cards), whatever the trump suit."""
    for t in range(4):
        assert TRUMP_MASK[t].bit_count() == 15
        assert (TRUMP_MASK[t] & DECK_32).bit_count() == 14


def test_c2_2_queen_or_jack_never_part_of_its_plain_suit():
    """seed "Trumps" / C2.2: a queen or jack never counts as part of its own suit (clubs trump)."""
    for c in ("QH", "JH", "QD", "JS"):
        cid = parse_card(c)
        assert EFF[0][cid] == 0
        assert not FOLLOW[0][cid // 9] >> cid & 1
    assert cards_str(FOLLOW[0][2]) == "6H 7H 8H 9H TH KH AH"


def test_c2_2_plain_suit_order_a_t_k_9_8_7_6():
    """C2.2: plain suits rank A T K 9 8 7 6 (A over T over K over 9)."""
    hands = ["AH 6S 7S 8S 9S TS KS AS 6D", "KH 6C 7C 8C 9C TC QC KC AC", "TH 7D 8D 9D TD KD AD QS JS", None]
    st = new(hands)  # S3: JC QD JD 6H 7H 8H 9H QH JH
    play(st, "AH KH TH 9H")
    assert st.current_player == 0 and st.eyes == [11 + 4 + 10, 0]


def test_c2_2_off_suit_card_never_wins():
    """C2.4 with C2.2: 6D led, 7D wins over the off-suit KH; a void seat without plain diamonds (QD, JD
    are trumps) may play anything."""
    hands = ["AH 6S 7S 8S 9S TS KS AS 6D", "KH 6C 7C 8C 9C TC QC KC AC", "TH 7D 8D 9D TD KD AD QS JS", None]
    st = new(hands)
    play(st, "6D")
    assert len(legal(st)) == 9  # S1 holds no diamond
    play(st, "KH")
    assert legal(st) == {"7D", "8D", "9D", "TD", "KD", "AD"}
    play(st, "7D")
    assert len(legal(st)) == 9  # S3: QD and JD are trumps, no plain diamond
    play(st, "6H")
    assert st.current_player == 2 and st.tricks == [1, 0]


# ------------------------------------------------------------------------------------ C2.4 the tricks


TRUMP_LEAD = ["JD 6S 7S 8S 9S 6D 7D 8D 9D", "QH 7C 7H 8H 9H 6C 8C 9C TC", "TS KS AS TD KD AD 6H TH KH", None]
# S3 gets the rest: QC JC KC AC QD QS JS JH AH


def test_c2_4_must_follow_suit_trumps_are_one_suit():
    """seed "Playing a trick" / C2.4: a trump led (JD) must be followed by any trump, queens and jacks
    included (QH follows), and a plain card of the queen's suit (7H) does not."""
    st = new(TRUMP_LEAD)
    play(st, "JD")
    assert legal(st) == {"QH", "6C", "7C", "8C", "9C", "TC"}


def test_c2_4_plain_suit_led_queen_or_jack_of_that_suit_does_not_follow():
    """seed "Playing a trick": if a plain suit is led, a queen or jack of that suit doesn't follow it."""
    hands = ["AH 6S 7S 8S 9S TS KS AS 6D", "QH 7H 6C 7C 8C 9C TC KC AC", "JH 7D 8D 9D TD KD AD QS JS", None]
    st = new(hands)  # S3: QC JC QD JD 6H 8H 9H TH KH
    play(st, "AH")
    assert legal(st) == {"7H"}  # holds QH too, but QH is a trump
    play(st, "7H")
    assert len(legal(st)) == 9  # JH is S2's only heart-faced card: void in plain hearts, any card
    play(st, "7D")
    assert legal(st) == {"6H", "8H", "9H", "TH", "KH"}


def test_c2_4_no_obligation_to_trump():
    """seed "Playing a trick" / C2.4: if you can't follow, you may play any card; you don't have to trump."""
    st = new(TRUMP_LEAD)
    play(st, "6S")  # S1 holds no spade but trumps: any card is legal
    assert legal(st) == {"QH", "7C", "7H", "8H", "9H", "6C", "8C", "9C", "TC"}
    play(st, "7H")  # a discard, not a trump
    play(st, "AS")
    assert st.current_player == 3


def test_c2_4_highest_trump_wins_the_trick():
    """C2.4: the highest trump wins (QD over JD over TC; a void's discard AS counts nothing for winning)."""
    st = new(TRUMP_LEAD)
    play(st, "JD TC AS QD")
    assert st.current_player == 3 and st.tricks == [0, 1] and st.eyes == [0, 2 + 10 + 11 + 3]


def test_c2_4_a_trump_beats_the_led_plain_suit():
    """C2.4: any trump beats the highest card of a plain suit (6C takes AS)."""
    st = new(TRUMP_LEAD)
    play(st, "6S 6C AS AH")
    assert st.current_player == 1 and st.tricks == [0, 1]


def test_c2_4_highest_of_the_led_suit_wins_without_trumps():
    """C2.4: without a trump the highest card of the led suit wins; off-suit cards never do."""
    st = new(TRUMP_LEAD)
    play(st, "6S 7H TS AH")  # AH is off suit (spades led) and not a trump
    assert st.current_player == 2 and st.tricks == [1, 0] and st.eyes == [10 + 11, 0]


def test_c2_4_winner_leads_the_next_trick():
    """C2.4: the winner leads next."""
    st = new(TRUMP_LEAD)
    play(st, "JD TC AS QD")
    assert st.current_player == 3 and st.leader == 3 and st.trick == [-1, -1, -1, -1]
    assert legal(st) == set(cards_str(st.hands[3]).split()) and len(legal(st)) == 8  # leading: any card


def test_c2_4_showing_out_marks_the_seat_void_trumps_being_one_suit():
    """C2.4 consequence shown in the observation: a seat that does not follow is void in the led suit."""
    st = new(TRUMP_LEAD)
    play(st, "JD TC AS")
    assert st.voids == [0, 0, 1 << 0, 0]  # S2 void in trumps (index of the trump suit, clubs)
    obs = GAME.obs_spec.view(GAME.observe(st, 0))
    assert obs["voids"][2].tolist() == [1, 0, 0, 0]
    assert GAME.obs_spec.view(GAME.observe(st, 2))["voids"][0].tolist() == [1, 0, 0, 0]


def test_c2_4_illegal_card_raises_and_names_the_legal_moves():
    """C2.4: a card that does not follow the led trumps (7H) or is not in the hand (AS) is refused by the
    one action check, ``Game.check_action``, naming the move and the legal ones; nothing changes."""
    st = new(TRUMP_LEAD)
    play(st, "JD")
    before = (GAME.render(st), st.hands[:], st.played[:], st.trick[:], st.voids[:])
    legal = "0=6C, 1=7C, 2=8C, 3=9C, 4=TC, 24=QH"
    with pytest.raises(IllegalActionError,
                       match=f"action 19 \\(7H\\) is not legal for player_1; legal moves: {legal}$"):
        GAME.check_action(st, parse_card("7H"))
    with pytest.raises(IllegalActionError, match="legal moves: 6C 7C 8C 9C TC QH"):
        GAME.string_to_action(st, "7H")
    with pytest.raises(IllegalActionError, match=f"\\(AS\\) is not legal.*legal moves: {legal}$"):
        GAME.check_action(st, parse_card("AS"))
    assert GAME.check_action(st, parse_card("QH")) == parse_card("QH")
    assert st.hands[1].bit_count() == 9 and st.cards_in_trick == 1  # unchanged
    assert (GAME.render(st), st.hands, st.played, st.trick, st.voids) == before


# ------------------------------------------------------------------------------ C2.3 the trump suit


NAMED = QueensAndJacksGame(trumps="named")


def test_c2_3_clubs_rule_clubs_trump_every_hand_no_naming():
    """seed "Choosing the trump suit" / C2.3: with the Clubs rule clubs are trumps in every hand."""
    st = GAME.new_state(1)
    for _ in range(3):
        assert st.trump == 0 and all(a < 36 for a in st.legal_actions())
        d = st.deals_played
        while st.deals_played == d and not st.terminal:
            st.apply_action(st.legal_actions()[0])
        if st.terminal:
            break


def test_c2_3_named_rule_left_of_dealer_names_before_the_first_lead():
    """seed "Choosing the trump suit" / C2.3: the player on the dealer's left looks at their cards and
    names the trump suit before the first lead (an action: ``trump:C``..``trump:S``)."""
    st = NAMED.new_state(4, {"dealer": 1})
    assert st.current_player == 2 and st.trump == -1
    assert st.hands[2].bit_count() == 9  # the whole hand is seen before naming
    assert NAMED.legal_strings(st) == ["trump:C", "trump:D", "trump:H", "trump:S"]
    assert st.legal_actions() == [36, 37, 38, 39]
    obs = NAMED.obs_spec.view(NAMED.observe(st, 2))
    assert obs["naming"][0] == 1 and obs["trump"].sum() == 0
    card = bits(st.hands[2])[0]
    with pytest.raises(IllegalActionError, match=f"\\({card_str(card)}\\) is not legal.*legal moves: 36=trump:C, "
                       "37=trump:D, 38=trump:H, 39=trump:S$"):
        NAMED.check_action(st, card)  # the trump suit must be named first
    assert st.trump == -1 and st.hands[2].bit_count() == 9
    st.apply_action(NAMED.string_to_action(st, "trump:H"))
    assert st.trump == 2 and st.current_player == 2  # the namer also leads
    assert all(a < 36 for a in st.legal_actions())
    obs = NAMED.obs_spec.view(NAMED.observe(st, 0))
    assert obs["naming"][0] == 0 and obs["trump"].tolist() == [0, 0, 1, 0]


def test_c2_3_named_trump_suit_changes_following_and_order():
    """C2.3 with C2.2 / C2.4: named hearts: hearts join the queens and jacks, clubs are a plain suit."""
    st = new(TRUMP_LEAD, game=NAMED)
    play(st, "trump:H JD", NAMED)
    assert legal(st, NAMED) == {"QH", "7H", "8H", "9H"}
    play(st, "7H", NAMED)
    assert legal(st, NAMED) == {"6H", "TH", "KH"}
    play(st, "6H AH", NAMED)  # AH (trump ace) is below JD
    assert st.current_player == 0


def test_c2_3_named_rule_each_hand_by_the_new_dealers_left():
    """C2.3: with the Named rule the suit is named every hand, by the player left of that hand's dealer."""
    st = new(CASES["losers_31"][0], game=NAMED)
    play(st, "trump:C " + CASES["losers_31"][1], NAMED)
    assert st.deals_played == 1 and st.dealer == 0
    assert st.current_player == 1 and st.trump == -1 and st.legal_actions() == [36, 37, 38, 39]


def test_c2_3_setup_trump_fixes_the_first_hands_suit():
    st = NAMED.new_state(0, {"trump": "S", "dealer": 0})
    assert st.trump == 3 and st.current_player == 1 and all(a < 36 for a in st.legal_actions())
    with pytest.raises(InvalidOptionError, match="always clubs"):
        GAME.new_state(0, {"trump": "hearts"})


# ------------------------------------------------------------------------------------- C2.5 scoring


def test_c_card_points_a11_t10_k4_q3_j2_120_in_a_deck():
    """RULES C / seed "Eyes": A 11, T 10, K 4, Q 3, J 2, others nothing; 120 in a deck (and in 32 cards)."""
    assert [points(parse_cards(c)) for c in ("AS", "TS", "KS", "QS", "JS", "9S 8S 7S 6S")] == [11, 10, 4, 3, 2, 0]
    assert points(FULL_DECK) == 120 and points(DECK_32) == 120


@pytest.mark.parametrize("name", sorted(CASES))
def test_c2_5_every_case_deal_counts_the_eyes_of_the_tricks(name):
    _, _, eyes, tricks = CASES[name]
    st = play_case(name, single_deal=True)
    assert st.last_result["eyes"] == eyes and st.last_result["tricks"] == tricks


def test_c2_5_61_wins_the_hand_and_writes_2():
    """C2.5: 61 or more wins the hand and writes 2 (losers took 31)."""
    st = play_case("losers_31")
    r = st.last_result
    assert r["winners"] == [0] and r["losers"] == [1] and r["raw"] == 2 and r["written"] == [2, 0]
    assert st.scores == [2, 0] and r["ended_by"] == "played" and not r["eggs"]
    assert r["seat_points"] == [2, 0, 2, 0] and r["how"] == "won"


def test_c2_5_losers_with_30_or_fewer_eyes_write_4():
    """seed "Scoring a hand" / C2.5: 4 if the losers took 30 eyes or fewer ("didn't save themselves")."""
    st = play_case("losers_30")
    r = st.last_result
    assert r["eyes"] == [90, 30] and r["raw"] == 4 and st.scores == [4, 0] and r["how"] == "losers_30_or_fewer"


def test_c2_5_losers_with_a_trick_but_no_eyes_write_4():
    """C2.5 (silent case): the losers took a trick worth 0 eyes: 30 or fewer, so 4, not 6."""
    st = play_case("losers_trick_no_eyes")
    r = st.last_result
    assert r["eyes"] == [0, 120] and r["tricks"] == [1, 8] and r["raw"] == 4 and st.scores == [0, 4]


def test_c2_5_losers_without_a_trick_write_6():
    """seed "Scoring a hand" / C2.5: 6 if the losers didn't take a single trick."""
    st = play_case("losers_no_trick")
    r = st.last_result
    assert r["tricks"] == [0, 9] and r["raw"] == 6 and st.scores == [0, 6] and r["how"] == "losers_no_trick"
    assert r["seat_points"] == [0, 6, 0, 6]


def test_c2_5_hand_value_table():
    assert hand_value(120, 0, 0) == 6
    assert hand_value(120, 0, 1) == 4
    assert hand_value(90, 30, 2) == 4
    assert hand_value(89, 31, 2) == 2
    assert hand_value(61, 59, 4) == 2


def test_c2_5_eggs_at_60_60_nobody_writes_and_the_next_hand_counts_double():
    """seed "Scoring a hand" / C2.5: 60:60 is eggs: nobody writes anything, the next hand counts double."""
    st = play_case("eggs")
    r = st.last_result
    assert r["how"] == "eggs" and r["written"] == [0, 0] and r["seat_points"] == [0, 0, 0, 0]
    assert r["eggs"] and r["winners"] == [] and r["losers"] == []
    assert st.scores == [0, 0] and st.multiplier == 2 and r["next_multiplier"] == 2
    assert GAME.obs_spec.view(GAME.observe(st, 1))["eggs"].tolist() == [0, 1, 0, 0]
    # play the next (random) hand: a decided hand writes twice its value
    while st.deals_played == 1:
        st.apply_action(st.legal_actions()[0])
    r = st.last_result
    if r["how"] != "eggs":
        assert r["multiplier"] == 2 and max(r["written"]) == 2 * r["raw"] and st.multiplier == 1


def test_c2_5_double_hand_writes_twice():
    """C2.5: a hand after eggs counts double (setup eggs=1: one egg before this hand)."""
    st = play_case("losers_30", eggs=1)
    assert st.last_result["multiplier"] == 2 and st.scores == [8, 0] and st.multiplier == 1


def test_c2_5_two_eggs_in_a_row_x4_and_reset_after_a_decided_hand():
    """C2.5: x4 after two eggs in a row, and so on; reset after a decided hand."""
    st = play_case("eggs", eggs=1)
    assert st.last_result["multiplier"] == 2 and st.multiplier == 4 and st.scores == [0, 0]
    st = play_case("losers_31", eggs=2)
    assert st.last_result["multiplier"] == 4 and st.scores == [8, 0] and st.multiplier == 1
    st = play_case("losers_31", eggs=3)
    assert st.scores == [16, 0]  # x8 after three eggs


# ------------------------------------------------------------------------------------- C2.6 the match


def test_c2_6_first_side_to_12_wins_the_others_are_goats():
    """seed "Winning" / C2.6: points are won; the first side to 12 wins, the other side are the goats."""
    st = play_case("losers_31", scores=[10, 3])
    assert st.terminal and st.current_player == -1 and st.scores == [12, 3]
    mr = st.match_result
    assert mr["winners"] == [0] and mr["losers"] == [1] and mr["goats"] == [1]  # sides: pair 0+2, pair 1+3
    assert mr["titles"] == ["goats"] and mr["places"] == [1, 2] and mr["ended_by"] == "target"
    assert st.returns() == [1, -1, 1, -1] and st.legal_actions() == []


def test_c2_6_below_target_the_match_goes_on():
    st = play_case("losers_31", scores=[9, 0])
    assert not st.terminal and st.scores == [11, 0] and st.match_result is None and st.returns() == [0] * 4


def test_c2_6_bare_goats_finish_with_zero():
    """seed "Winning" / C2.6: goats without a single point are bare goats."""
    st = play_case("losers_no_trick", scores=[0, 8])
    mr = st.match_result
    assert st.terminal and mr["winners"] == [1] and mr["goats"] == [0] and mr["titles"] == ["bare_goats", "goats"]
    assert st.returns() == [-1, 1, -1, 1]


def test_c2_6_short_match_to_6():
    """seed "Winning" / C2.6: 6 points in the short match."""
    short = QueensAndJacksGame(target=6)
    st = play_case("losers_31", game=short, scores=[4, 5])
    assert st.terminal and st.match_result["winners"] == [0] and st.scores == [6, 5]
    with pytest.raises(InvalidOptionError):
        short.new_state(0, {"scores": [6, 0]})


def test_c2_6_score_may_pass_the_target():
    """Silent in the rules: the whole amount of the last hand is written (11 + 6 = 17)."""
    st = play_case("losers_no_trick", scores=[5, 11])
    assert st.terminal and st.scores == [5, 17]


def test_single_deal_ends_after_the_first_hand():
    st = play_case("losers_30", single_deal=True)
    assert st.terminal and st.deals_played == 1 and st.returns() == [1, -1, 1, -1]
    assert st.match_result["ended_by"] == "single_deal" and st.match_result["goats"] == []
    assert st.match_result["winners"] == [0] and st.match_result["losers"] == [1] and st.match_result["titles"] == []
    st = play_case("eggs", single_deal=True)
    assert st.terminal and st.returns() == [0, 0, 0, 0] and st.match_result["winners"] == []


# ----------------------------------------------------------------------------- options and notation


def test_rules_options_are_validated():
    for bad in ({"trumps": "hearts"}, {"deck": 52}, {"target": 10}, {"jokers": True}):
        with pytest.raises(InvalidOptionError):
            QueensAndJacksGame(**bad)
    assert QueensAndJacksGame(trumps="named", deck=32, target=6).rules == QueensAndJacksRules("queens_and_jacks_v0",
                                                                                              "named", 32, 6)


@pytest.mark.parametrize("setup, msg", [
    ({"jokers": 1}, "unknown reset option 'jokers'"),
    ({"hands": ["QC"] * 4}, "must hold 9"),
    ({"hands": ["QC QC 7C 8C 9C TC KC AC 6C", None, None, None]}, "twice"),
    ({"hands": ["QC JC 7C 8C 9C TC KC AC 6C", "QC JD 7D 8D 9D TD KD AD 6D", None, None]}, "already"),
    ({"hands": ["XX", None, None, None]}, "not a card"),
    ({"hands": "QC"}, "list of 4"),
    ({"dealer": 4}, "dealer=4 is not allowed: an int in 0..3"),
    ({"dealer": 0, "leader": 3}, "left of the dealer"),
    ({"scores": [12, 0]}, "scores"),
    ({"eggs": -1}, "eggs"),
    ({"trump": "X"}, "trump"),
    ({"single_deal": 1}, "single_deal"),
])
def test_setup_is_validated(setup, msg):
    with pytest.raises(InvalidOptionError, match=msg):
        NAMED.new_state(0, setup)


def test_notation_round_trip():
    st = new(TRUMP_LEAD)
    for a in range(40):
        s = GAME.action_to_string(st, a)
        assert s == (card_str(a) if a < 36 else "trump:" + "CDHS"[a - 36])
    for a in st.legal_actions():
        assert GAME.string_to_action(st, GAME.action_to_string(st, a)) == a
    assert GAME.string_to_action(st, "jd") == parse_card("JD")
    st = NAMED.new_state(0)
    assert NAMED.string_to_action(st, "trump:hearts") == 38 == NAMED.string_to_action(st, "Trump:H")
    with pytest.raises(IllegalActionError, match="legal moves: trump:C trump:D trump:H trump:S"):
        NAMED.string_to_action(st, "QC")
    with pytest.raises(IllegalActionError):
        GAME.action_to_string(st, 40)
    with pytest.raises(IllegalActionError, match="legal moves"):
        GAME.string_to_action(new(TRUMP_LEAD), "trump:C")


def test_render_hides_other_hands_for_a_viewer():
    st = new(TRUMP_LEAD)
    play(st, "JD")
    full = GAME.render(st)
    seen = GAME.render(st, viewer=1)
    assert "QH" in full and "AH" in full
    assert "QC" not in seen and "AH" not in seen and "trick JD" in seen and "QH" in seen
    assert seen.count("??") == 8 + 9 + 9 and "player_0" in seen and "legal: 6C 7C 8C 9C TC QH" in seen
