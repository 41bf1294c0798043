"""Rules of ``six_of_spades_v0`` (seed 004 and RULES C3), one rule per test, on constructed deals.

Sources: "seed n" is item n of ``/work/shared/seeds/004_9d68d233d10b2b72.txt``, "C3.n" is
``/work/shared/RULES.md`` section C3, "C" its card-points line. Tests named ``test_silent_*`` pin a choice
made where the rules are silent (listed in the engine's module docstring).
"""
from __future__ import annotations

import pytest

from kozel_env.cards.deck import FULL_DECK, POINTS, card_str, parse_card, parse_cards, points
from kozel_env.cards.six_of_spades import (
    A_BEAT,
    A_DOWN,
    A_LEAD,
    A_MOLODKA,
    A_MOSKVA,
    A_PASS,
    MOLODKA,
    MOSKVA,
    NUM_ACTIONS,
    PH_ANSWER,
    PH_CALL,
    PH_LEAD,
    SIX_S,
    SixOfSpadesGame,
    beats,
    call_kind,
    covers,
)
from kozel_env.core.bits import bits
from kozel_env.core.errors import IllegalActionError, InvalidOptionError

G4 = SixOfSpadesGame()
G3 = SixOfSpadesGame(num_players=3)
G2 = SixOfSpadesGame(num_players=2)


def C(text: str) -> int:
    return parse_cards(text)


def new(game=G4, seed=0, **setup):
    return game.new_state(seed, setup)


def skip_calls(st):
    """Answer every pending call question that offers nothing but "pass" (C3.5, ``calls="offer"``: every
    holder of four is asked, whatever it holds); stops at a seat that could call."""
    while st.phase == PH_CALL and st.legal_actions() == [A_PASS]:
        st.apply_action(A_PASS)
    return st


def lay(st, cards: str, how: str | None = None, game=G4):
    """The seat to move chooses ``cards`` (skipping those the engine already chose for it) and, if the
    confirmation is still pending, confirms with ``how`` ("lead", "beat" or "down")."""
    skip_calls(st)  # a round's pass-only call questions (no seat here could call)
    p = st.current_player
    m = C(cards)
    assert st.phase in (PH_LEAD, PH_ANSWER)
    for c in bits(m):
        if st.current_player != p or st.selected & m != st.selected:
            break
        if not st.selected >> c & 1:
            st.apply_action(c)
    if how is not None and st.current_player == p and st.selected == m:
        st.apply_action(game.string_to_action(st, how))
    return st


def legal(st, game=G4) -> set:
    return set(game.legal_strings(st))


def rest(*texts) -> str:
    used = 0
    for t in texts:
        used |= C(t)
    return " ".join(card_str(c) for c in bits(FULL_DECK & ~used))


def cards_worth(pts: int, avail: int) -> int:
    """A subset of the point cards of ``avail`` worth exactly ``pts`` (depth-first search)."""
    cands = sorted((c for c in bits(avail) if POINTS[c]), key=lambda c: -POINTS[c])

    def go(i, left, acc):
        if left == 0:
            return acc
        if i == len(cands) or left < 0:
            return None
        c = cands[i]
        return go(i + 1, left - POINTS[c], acc | 1 << c) or go(i + 1, left, acc)

    m = go(0, pts, 0)
    assert m is not None, pts
    return m


def endgame(game, side_points, hands, seed=0, **setup):
    """A deal whose last round is forced (one zero-point card each, seat 0 leads and takes it) with the
    other cards already taken so that side s holds ``side_points[s]`` (None: whatever is left)."""
    n = game.num_players
    ns = game.rules.num_sides
    used = 0
    for h in hands:
        used |= C(h)
    avail = FULL_DECK & ~used
    taken = [0] * ns
    last = ([sd for sd, pts in enumerate(side_points) if pts is None] or [ns - 1])[0]
    for sd, pts in enumerate(side_points):
        if sd != last and pts:
            taken[sd] = cards_worth(pts, avail)
            avail &= ~taken[sd]
    taken[last] = avail  # the rest, zero-point cards and the trump card included
    if side_points[last] is not None:
        assert points(avail) == side_points[last], "side points must add up to 120"
    assert len(hands) == n
    setup.setdefault("leader", 0)
    return game.new_state(seed, dict(setup, hands=hands, trump_card="9D",
                                     taken=[" ".join(card_str(c) for c in bits(t)) for t in taken]))


# A basic four-player deal: trump diamonds (9D face up), seat 0 leads, no callable hand anywhere.
BASIC = ["7H 9H KC 8S", "8H TH JC 7C", "6H QC AS 7S", "AD JH 9C 6C"]


def basic(game=G4, **setup):
    """BASIC with its round's call questions answered (nobody holds a call: every seat may only pass)."""
    setup.setdefault("leader", 0)
    return skip_calls(new(game, hands=BASIC, trump_card="9D", **setup))


# ------------------------------------------------------------------ C3.1 deal, seats, trump card
@pytest.mark.parametrize("game", [G2, G3, G4])
def test_c3_1_four_cards_each_next_card_face_up_under_stock_is_trump(game):
    for seed in range(5):
        st = game.new_state(seed)
        assert all(st.hands[s].bit_count() == 4 for s in range(game.num_players))
        assert len(st.stock) == 36 - 4 * game.num_players
        assert st.stock[0] == st.trump_card and st.trump_suit == st.trump_card // 9 and st.trump_drawn_by < 0


def test_c3_1_two_or_three_play_alone_four_in_pairs_across():
    assert G2.rules.num_sides == 2 and G3.rules.num_sides == 3 and G4.rules.num_sides == 2
    assert [G4.rules.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert [G3.rules.side_of(s) for s in range(3)] == [0, 1, 2]


def test_c3_1_player_left_of_dealer_leads_first_round():
    for dealer in range(4):
        st = new(G4, seed=3, dealer=dealer, hands=BASIC, trump_card="9D")
        assert st.leader == (dealer + 1) % 4 and st.current_player == (dealer + 1) % 4


def test_c3_1_dealer_rotates_left_after_each_deal():
    st = endgame(G4, [60, None], ["7H", "6C", "7C", "8C"], dealer=3)
    assert st.deals_played == 1 and st.dealer == 0 and st.leader == 1


def test_c3_1_trump_card_is_drawn_last_and_drawer_is_public():
    # two cards left: KS on top of the face-up 9D; seat 0 leads AH alone and takes; refill from seat 0
    hands = ["AH 7H 8H 7S", "6C 7C 8C 8S", "TC JC QC 9S", "7D 8D TD JS"]
    taken = rest(*hands, "KS 9D")
    st = skip_calls(new(hands=hands, trump_card="9D", stock="KS", taken=[taken, ""], leader=0))
    assert st.phase == PH_LEAD and st.trump_drawn_by < 0
    lay(st, "AH", "lead")
    for _ in range(3):  # one card face down each (seat 3 could trump AH but lays it down)
        lay(st, card_str(bits(st.hands[st.current_player])[0]), "down")
    assert st.hands[0] == C("7H 8H 7S KS") and st.hands[1] == C("7C 8C 8S 9D")
    assert st.trump_drawn_by == 1 and not st.stock
    obs = G4.obs_spec.view(G4.observe(st, 0))
    assert obs["trump_card_at"][2] == 1 and obs["trump_card"][parse_card("9D")] == 1


# ------------------------------------------------------------------ C3.2 ranks and the six of spades
def test_c3_2_rank_order_a_t_k_q_j_9_8_7_6():
    order = "A T K Q J 9 8 7 6".split()
    for i, hi in enumerate(order):
        for lo in order[i + 1:]:
            assert beats(parse_card(hi + "H"), parse_card(lo + "H"), trump=0)
            assert not beats(parse_card(lo + "H"), parse_card(hi + "H"), trump=0)


def test_c3_2_trump_beats_any_plain_card_and_other_suits_never_beat():
    assert beats(parse_card("7D"), parse_card("AH"), trump=1)
    assert not beats(parse_card("AH"), parse_card("7D"), trump=1)
    assert not beats(parse_card("AC"), parse_card("7H"), trump=1)


def test_c3_2_six_of_spades_beats_every_card_even_the_trump_ace():
    for t in range(36):
        if t != SIX_S:
            for trump in range(4):
                assert beats(SIX_S, t, trump)


def test_c3_2_six_of_spades_on_top_cannot_be_beaten():
    for a in range(36):
        for trump in range(4):
            assert not beats(a, SIX_S, trump)


def test_c3_2_and_c_card_points_six_of_spades_counts_nothing_120_in_all():
    assert POINTS[SIX_S] == 0
    assert points(C("AH TH KH QH JH 9H")) == 11 + 10 + 4 + 3 + 2
    assert points(FULL_DECK) == 120


# ------------------------------------------------------------------ C3.3 leads and answers
def _lead_sets(st, game=G4):
    """Every set reachable by choosing cards and confirming the lead (depth-first over the mask)."""
    found = []

    def go(s):
        acts = s.legal_actions()
        assert acts, "a dead end in the selection"
        for a in acts:
            if a == A_LEAD:
                found.append(s.selected)
            elif a < 36:
                c = s.clone()
                c._do(a)
                c.legal_mask = c.compute_legal()
                go(c)

    go(st.clone())
    return found


def test_c3_3_lead_one_to_four_cards_of_one_suit():
    st = skip_calls(new(hands=["7H 9H KH KC", "8C TC JD 7S", "6H QC AS 8S", "AD JH 9C 6C"], trump_card="9D",
                        leader=0))
    got = sorted(_lead_sets(st))
    want = sorted(C(x) for x in ["7H", "9H", "KH", "KC", "7H 9H", "7H KH", "9H KH", "7H 9H KH"])
    assert got == want


def test_c3_3_six_of_spades_may_join_a_lead_of_any_suit():
    st = skip_calls(new(hands=["6S 7H 9H KC", "8C TC JD 7S", "6H QC AS 8S", "AD JH 9C 6C"], trump_card="9D",
                        leader=0))
    got = set(_lead_sets(st))
    for x in ["6S", "6S 7H", "6S 9H", "6S 7H 9H", "6S KC"]:
        assert C(x) in got
    assert C("7H KC") not in got and C("6S 7H KC") not in got


def test_c3_3_each_legal_lead_is_reached_by_exactly_one_path_and_nothing_else():
    st = skip_calls(new(hands=["6S 7S 9S KC", "8C TC JD 7H", "6H QC AS 8S", "AD JH 9C 6C"], trump_card="9D",
                        leader=0))
    found = _lead_sets(st)
    assert len(found) == len(set(found))
    hand = st.hands[0]
    want = set()
    s = hand
    while s:
        u = s & ~(1 << SIX_S)
        if not u or len({c // 9 for c in bits(u)}) == 1:
            want.add(s)
        s = (s - 1) & hand
    assert set(found) == want


def test_c3_3_every_other_player_answers_once_clockwise_with_as_many_cards():
    st = basic()
    lay(st, "7H 9H", "lead")
    assert st.lead_size == 2 and st.answer_order == (1, 2, 3) and st.current_player == 1
    seen = []
    for cards, how in (("8H TH", "beat"), ("QC AS", None), ("AD JH", "beat")):
        seen.append(st.current_player)
        lay(st, cards, how)
        assert st.lead_size == 2 or st.last_taker == 3
    assert seen == [1, 2, 3]


def test_c3_3_beating_every_top_card_one_for_one_puts_the_answer_on_top():
    st = basic()
    lay(st, "7H 9H", "lead")
    assert legal(st) == {"7C", "JC", "8H"}  # the smallest card of each 2-card set (ids: 7C < JC < 8H < TH)
    lay(st, "8H TH")
    assert legal(st) == {"beat", "down"}
    st.apply_action(A_BEAT)
    assert st.top_cards == C("8H TH") and st.top_seat == 1


def test_c3_3_a_beat_is_a_matching_not_a_greedy_pairing():
    # AH must take KH and 8H must take 7H: some pairing works
    assert covers(C("AH 8H"), C("7H KH"), trump=1)
    assert not covers(C("AH 6H"), C("7H KH"), trump=1)
    assert covers(C("7D 8C"), C("AH 7C"), trump=1)  # the trump takes the ace, 8C the 7C
    assert not covers(C("AH"), C("7H KH"), trump=1)  # the same number of cards


def test_c3_3_a_later_answer_must_beat_the_cards_on_top_not_the_lead():
    st = new(hands=["7H KC 8S JC", "TH QC 7C 6D", "9H QS 7S 8C", "AC JH 9C 6C"], trump_card="9D", leader=0)
    lay(st, "7H", "lead")
    lay(st, "TH", "beat")
    assert st.top_cards == C("TH")
    # 9H beats the led 7H but not TH: seat 2 has no beat, every choice goes face down
    assert st.current_player == 2 and st.beating_sets == ()
    lay(st, "9H")
    assert st.round_down[2] == C("9H") and st.top_seat == 1


def test_c3_3_cards_that_do_not_beat_go_face_down_and_nobody_else_sees_them():
    st = basic()
    lay(st, "7H 9H", "lead")
    lay(st, "8H TH", "beat")
    lay(st, "QC AS")
    assert st.round_down[2] == C("QC AS")
    for p in (0, 1, 3):
        v = G4.obs_spec.view(G4.observe(st, p))
        assert v["round_down"][(2 - p) % 4] == 1
        assert not v["own_down"].any() and not v["round_up"][(2 - p) % 4].any()
        assert v["hand"][parse_card("QC")] == 0
    v2 = G4.obs_spec.view(G4.observe(st, 2))
    assert v2["own_down"][parse_card("QC")] == 1 and v2["own_down"][parse_card("AS")] == 1


def test_c3_3_player_on_top_takes_everything_face_down_too_and_leads_next():
    st = basic()
    lay(st, "7H 9H", "lead")
    lay(st, "8H TH", "beat")
    lay(st, "QC AS")
    lay(st, "AD JH", "beat")
    assert st.taken[1] == C("7H 9H 8H TH QC AS AD JH") and st.tricks == [0, 1]
    assert st.taken_face_up[1] == C("7H 9H 8H TH AD JH")  # QC AS stay face down
    assert st.last_taker == 3 and st.leader == 3 and st.current_player == 3


def test_c3_3_nobody_beats_the_leader_takes():
    st = new(hands=["AH KC 8S JC", "TH QC 7C 9S", "9H QS 7S 8C", "AC JH 9C 6C"], trump_card="9D", leader=0)
    lay(st, "AH", "lead")
    for _ in range(3):
        assert st.beating_sets == ()
        lay(st, card_str(bits(st.hands[st.current_player])[0]))
    assert st.last_taker == 0 and st.tricks == [1, 0]


def test_c3_3_six_of_spades_answer_beats_the_trump_ace():
    st = new(hands=["AD KC 8S JC", "6S QC 7C 8H", "9H QS 7S 8C", "AC JH 9C 6C"], trump_card="9D", leader=0)
    lay(st, "AD", "lead")
    lay(st, "6S")
    assert legal(st) == {"beat", "down"}
    st.apply_action(A_BEAT)
    assert st.top_cards == C("6S")
    # nothing beats a 6S on top: the others can only lay face down
    assert st.current_player == 2 and st.beating_sets == ()


def test_c3_3_a_lead_holding_the_six_of_spades_cannot_be_beaten():
    st = new(hands=["6S KH 8C JC", "AH TH 7C 8H", "9H QS 7S 8D", "AD JH 9C 6C"], trump_card="9D", leader=0)
    lay(st, "6S KH", "lead")
    for _ in range(3):
        assert st.beating_sets == ()
        lay(st, " ".join(card_str(c) for c in bits(st.hands[st.current_player])[:2]))
    assert st.last_taker == 0


def test_c3_3_moskva_lead_of_mixed_suits_answered_one_for_one():
    st = new(hands=["7H 9H KC 8S", "AS TH AC TD", "6H QC 8H 7S", "AD KD QD JD"], trump_card="9D", leader=0)
    assert st.phase == PH_CALL and st.current_player == 0 and legal(st) == {"pass"}  # the scheduled leader
    st.apply_action(A_PASS)
    assert st.current_player == 1 and legal(st) == {"moskva", "pass"}
    st.apply_action(A_MOSKVA)  # nothing beats a Moskva: nobody is asked any more (seat 3's Molodka neither)
    assert st.lead == C("AS TH AC TD") and st.lead_size == 4 and st.answer_order == (2, 3, 0)
    # seat 2 cannot beat and must answer with its whole hand: face down by itself
    assert st.round_down[2] == C("6H QC 8H 7S")
    # seat 3's four trumps beat one for one (AD-TD, KD/QD/JD on AS, AC, TH): its choice
    assert st.current_player == 3 and st.selected == C("AD KD QD JD") and legal(st) == {"beat", "down"}
    st.apply_action(A_BEAT)
    # seat 0's whole hand cannot beat four trumps: down by itself, and seat 3 takes all sixteen cards
    assert st.last_taker == 3 and st.taken[1] == C("7H 9H KC 8S AS TH AC TD 6H QC 8H 7S AD KD QD JD")


# ------------------------------------------------------------------ silent: declining a beat
def test_silent_may_decline_beat_true_a_beating_set_may_go_face_down():
    st = basic()
    lay(st, "7H 9H", "lead")
    lay(st, "8H TH", "down")
    assert st.round_down[1] == C("8H TH") and st.top_seat == 0


def test_silent_may_decline_beat_false_a_player_who_can_beat_must():
    g = SixOfSpadesGame(may_decline_beat=False)
    st = basic(g)
    lay(st, "7H 9H", "lead", game=g)
    # seat 1's only beating set is 8H TH: the whole answer is forced and taken by the engine
    assert st.round_up[1] == C("8H TH") and st.top_seat == 1 and st.current_player == 2
    # seat 2 cannot beat: any two cards, face down
    assert st.beating_sets == () and len(st.legal_sets) == 6


def test_silent_a_complete_answer_that_does_not_beat_goes_down_by_itself():
    st = basic()
    lay(st, "7H 9H", "lead")
    lay(st, "7C JC")  # does not beat: no confirmation needed
    assert st.round_down[1] == C("7C JC") and st.current_player == 2


# ------------------------------------------------------------------ C3.4 refill and the lead cap
def _stocked(refill="fill_each"):
    g = SixOfSpadesGame(refill=refill)
    order = rest(*BASIC, "9D")
    st = new(g, hands=BASIC, trump_card="9D", stock=order, leader=0)
    return g, st, order.split()


def test_c3_4_refill_to_four_taker_first_then_clockwise():
    g, st, order = _stocked()
    lay(st, "7H 9H", "lead", game=g)
    lay(st, "8H TH", "beat", game=g)
    lay(st, "QC AS", game=g)
    lay(st, "AD JH", "beat", game=g)
    want = {3: order[0:2], 0: order[2:4], 1: order[4:6], 2: order[6:8]}
    for s, cards in want.items():
        assert st.hands[s] & C(" ".join(cards)) == C(" ".join(cards))
        assert st.hands[s].bit_count() == 4
    assert len(st.stock) == 20 - 8 and st.stock[0] == parse_card("9D")


def test_silent_refill_round_robin_option_one_card_at_a_time():
    g, st, order = _stocked("round_robin")
    lay(st, "7H 9H", "lead", game=g)
    lay(st, "8H TH", "beat", game=g)
    lay(st, "QC AS", game=g)
    lay(st, "AD JH", "beat", game=g)
    want = {3: [order[0], order[4]], 0: [order[1], order[5]], 1: [order[2], order[6]], 2: [order[3], order[7]]}
    for s, cards in want.items():
        assert st.hands[s] & C(" ".join(cards)) == C(" ".join(cards))


def test_c3_4_when_the_stock_runs_short_hands_differ():
    hands = ["AH 7H 8H 7S", "6C 7C 8C 8S", "TC JC QC 9S", "7D 8D TD JS"]
    st = new(hands=hands, trump_card="9D", stock="KS", taken=[rest(*hands, "KS 9D"), ""], leader=0)
    lay(st, "AH", "lead")
    for _ in range(3):
        lay(st, card_str(bits(st.hands[st.current_player])[0]), "down")
    assert [h.bit_count() for h in st.hands] == [4, 4, 3, 3]
    assert st.lead_cap == 3


def test_c3_4_lead_may_not_hold_more_than_the_smallest_hand_still_holding_cards():
    hands = ["7H 8H 9H", "7C 8C", "6D 7D 8D 9D", "JS QS"]
    st = new(hands=hands, trump_card="AD", taken=[rest(*hands), ""], leader=0)
    assert st.lead_cap == 2
    assert max(m.bit_count() for m in _lead_sets(st)) == 2
    # a player without cards does not count and sits the round out
    hands = ["7H 8H 9H", "", "6D 7D 8D", "JS QS QC"]
    st = new(hands=hands, trump_card="AD", taken=[rest(*hands), ""], leader=0)
    assert st.lead_cap == 3
    lay(st, "7H 8H 9H", "lead")
    assert st.answer_order == (2, 3)


def test_silent_lead_passes_clockwise_when_the_taker_has_no_cards():
    hands = ["AH", "8H 9C 7S", "TC JC QC", ""]
    st = new(hands=hands, trump_card="AD", taken=[rest(*hands), ""], leader=0)
    # seat 0's single card is led by the engine (the cap is one card); seat 1 answers
    assert st.lead == C("AH") and st.current_player == 1 and st.lead_cap == 1
    lay(st, "9C")
    lay(st, "JC")
    assert st.last_taker == 0 and st.hands[0] == 0
    assert st.leader == 1 and st.current_player == 1 and st.phase == PH_LEAD


def test_silent_a_lone_holder_takes_their_own_cards():
    hands = ["7H 8H", "9C"]
    st = new(G2, hands=hands, trump_card="AD", taken=[rest(*hands), ""], leader=0, single_deal=True)
    lay(st, "7H", "lead", game=G2)  # 9C goes down by itself; seat 0 takes, then alone takes 8H
    assert st.terminal and st.last_result["lone_take"] == 0
    assert st.taken[0] & C("7H 8H 9C") == C("7H 8H 9C") and st.tricks[0] == 3


# ------------------------------------------------------------------ C3.5 calls
def test_c3_5_moskva_is_four_aces_or_tens_with_an_ace_six_of_spades_for_a_ten():
    assert call_kind(C("AS AH AC AD")) == MOSKVA
    assert call_kind(C("AS TH TC TD")) == MOSKVA
    assert call_kind(C("AS TH TC 6S")) == MOSKVA
    assert call_kind(C("AS AH AC 6S")) == MOSKVA
    assert call_kind(C("TS TH TC TD")) == -1  # no ace
    assert call_kind(C("TS TH TC 6S")) == -1
    assert call_kind(C("AS TH TC KD")) == -1


def test_c3_5_molodka_is_four_of_a_suit_or_three_and_the_six_of_spades():
    assert call_kind(C("7H 9H QH KH")) == MOLODKA
    assert call_kind(C("7H 9H QH 6S")) == MOLODKA
    assert call_kind(C("6S 7S 8S 9S")) == MOLODKA
    assert call_kind(C("7H 9H 6S 8C")) == -1
    assert call_kind(C("7H 9H QH")) == -1  # four cards


def test_c3_5_every_holder_of_four_is_asked_once_clockwise_from_the_scheduled_leader():
    """calls="offer": whose turn it is never tells who holds a call -- every holder is asked, the scheduled
    leader first, and a seat with no call may only pass; then the scheduled leader leads."""
    st = new(hands=BASIC, trump_card="9D", leader=2)
    asked = []
    while st.phase == PH_CALL:
        asked.append((st.current_player, legal(st)))
        v = G4.obs_spec.view(G4.observe(st, 0))
        assert v["offer"][st.current_player].tolist() == [1, 1]  # asked now; Moskva and Molodka both open
        st.apply_action(A_PASS)
    assert asked == [(2, {"pass"}), (3, {"pass"}), (0, {"pass"}), (1, {"pass"})]
    assert st.phase == PH_LEAD and st.current_player == 2 and st.leader == 2


def test_c3_5_a_holder_may_call_and_leads_the_four_instead_of_the_scheduled_leader():
    hands = ["7H 9H KC 8S", "8H TH JC 7C", "7D 8D JD QD", "AD JH 9C 6C"]
    st = new(hands=hands, trump_card="9S", leader=0)
    for q in (0, 1):
        assert st.phase == PH_CALL and st.current_player == q and legal(st) == {"pass"}
        st.apply_action(A_PASS)
    assert st.phase == PH_CALL and st.current_player == 2 and legal(st) == {"molodka", "pass"}
    st.apply_action(A_MOLODKA)
    # seat 3 could still beat a Molodka with a Moskva: asked, it holds none
    assert st.phase == PH_CALL and st.current_player == 3 and legal(st) == {"pass"}
    st.apply_action(A_PASS)
    # everyone answers four with a whole hand and nobody can beat four trumps: seat 2 leads and takes it all
    assert st.last_taker == 2 and st.taken[0] == FULL_DECK & ~C("9S") & ~st.hands[0] & ~st.hands[1] & \
        ~st.hands[2] & ~st.hands[3] & ~sum(1 << c for c in st.stock)
    assert st.taken_face_up[0] == C("7D 8D JD QD") and st.tricks == [1, 0]


def test_c3_5_passing_leaves_the_lead_to_the_scheduled_leader_and_says_nothing():
    hands = ["7H 9H KC 8S", "8H TH JC 7C", "7D 8D JD QD", "AD JH 9C 6C"]
    plain = ["7H 9H KC 8S", "8H TH JC 7C", "7D 8D JD QS", "AD JH 9C 6C"]  # seat 2 without its Molodka
    obs = []
    for hs in (hands, plain):
        st = new(hands=hs, trump_card="9S", leader=0)
        for _ in range(4):
            assert st.phase == PH_CALL
            st.apply_action(A_PASS)
        assert st.phase == PH_LEAD and st.current_player == 0
        for p in range(4):
            assert G4.obs_spec.view(G4.observe(st, p))["calls"].sum() == 0
        obs.append([G4.observe(st, p) for p in (0, 1, 3)])
    assert all((a == b).all() for a, b in zip(*obs))  # the other seats cannot tell a refusal from no call


def test_c3_5_moskva_beats_molodka():
    hands = ["7H 9H KC 8S", "7D 8D JD QD", "6H QC 8H 7S", "AS TH AC TD"]
    st = new(hands=hands, trump_card="9S", leader=0)
    st.apply_action(A_PASS)
    assert st.current_player == 1 and legal(st) == {"molodka", "pass"}
    st.apply_action(A_MOLODKA)
    assert st.current_player == 2 and legal(st) == {"pass"}
    v = G4.obs_spec.view(G4.observe(st, 0))
    assert v["calls"][1].tolist() == [0, 1] and v["offer"][2].tolist() == [1, 0]  # only a Moskva may follow
    st.apply_action(A_PASS)
    assert st.current_player == 3 and legal(st) == {"moskva", "pass"}
    st.apply_action(A_MOSKVA)  # the Moskva stands and leads its four; nobody can beat: all forced
    assert st.last_taker == 3 and st.taken_face_up[1] & C("AS TH AC TD") == C("AS TH AC TD")
    assert st.hands[1] & C("7D 8D JD QD") == 0  # seat 1 answered with its four (the round was played)


def test_c3_5_equal_calls_go_to_the_seat_nearest_clockwise_from_the_scheduled_leader():
    hands = ["7D 8D JD QD", "7H 9H KC 8S", "6H QS 8H 7S", "7C 8C JC QC"]
    # seat 3 (nearer clockwise from the scheduled leader, seat 1) calls: seat 0's equal call cannot beat it
    st = new(hands=hands, trump_card="9S", leader=1)
    assert [st.current_player, *sorted(legal(st))] == [1, "pass"]
    st.apply_action(A_PASS)
    st.apply_action(A_PASS)
    assert st.current_player == 3 and legal(st) == {"molodka", "pass"}
    st.apply_action(A_MOLODKA)
    assert st.current_player == 0 and legal(st) == {"pass"}
    st.apply_action(A_PASS)
    assert st.last_taker == 3 and st.taken_face_up[1] & C("7C 8C JC QC") == C("7C 8C JC QC")
    # seat 3 passes: seat 0 may call, and leads
    st = new(hands=hands, trump_card="9S", leader=1)
    for _ in range(3):
        st.apply_action(A_PASS)
    assert st.current_player == 0 and legal(st) == {"molodka", "pass"}
    st.apply_action(A_MOLODKA)
    assert st.last_taker == 0 and st.taken_face_up[0] == C("7D 8D JD QD")


def test_c3_5_the_scheduled_leader_is_first_among_equal_calls():
    hands = ["7D 8D JD QD", "7H 9H KC 8S", "7C 8C JC QC", "6H QS 8H 7S"]
    st = new(hands=hands, trump_card="9S", leader=0)
    assert st.call_order == (0, 1, 2, 3) and st.current_player == 0 and legal(st) == {"molodka", "pass"}
    st.apply_action(A_MOLODKA)
    for q in (1, 2, 3):  # asked (a Moskva could beat it), seat 2's equal Molodka cannot
        assert st.phase == PH_CALL and st.current_player == q and legal(st) == {"pass"}
        st.apply_action(A_PASS)
    assert st.last_taker == 0 and st.taken_face_up[0] == C("7D 8D JD QD")


def test_c3_5_calls_only_while_every_player_holding_cards_holds_four():
    hands = ["7D 8D JD QD", "7H 9H KC", "6H QS 8H", "7C 8C JC"]
    st = new(hands=hands, trump_card="AS", taken=[rest(*hands), ""], leader=1)
    assert st.call_order == () and st.phase == PH_LEAD and st.lead_cap == 3


def test_c3_5_calls_auto_option_first_holder_always_calls():
    g = SixOfSpadesGame(calls="auto")
    hands = ["7H 9H KC 8S", "7D 8D JD QD", "6H QC 8H 7S", "AS TH AC TD"]
    st = new(g, hands=hands, trump_card="9S", leader=0)
    assert st.last_taker == 3 and st.taken_face_up[1] == C("AS TH AC TD")  # nobody can beat: all forced


def test_c3_5_calls_off_option():
    g = SixOfSpadesGame(calls="off")
    hands = ["7H 9H KC 8S", "7D 8D JD QD", "6H QC 8H 7S", "AS TH AC TD"]
    st = new(g, hands=hands, trump_card="9S", leader=0)
    assert st.phase == PH_LEAD and st.current_player == 0 and st.call_order == ()


def test_c3_5_a_call_is_public():
    hands = ["7H 9H KC 8S", "AD KD QD JD", "6H QC 8H 7S", "AS TH AC TD"]
    st = new(hands=hands, trump_card="9D", leader=0)
    st.apply_action(A_PASS)
    assert st.current_player == 1 and legal(st) == {"molodka", "pass"}
    st.apply_action(A_MOLODKA)
    for p in range(4):  # seat 1's Molodka is public, and seat 2 is asked (only a Moskva may follow)
        v = G4.obs_spec.view(G4.observe(st, p))
        assert v["calls"][(1 - p) % 4].tolist() == [0, 1] and v["calls"].sum() == 1
        assert v["offer"][(2 - p) % 4].tolist() == [1, 0] and v["phase"][PH_CALL] == 1
    st.apply_action(A_PASS)
    assert st.current_player == 3 and legal(st) == {"moskva", "pass"}
    st.apply_action(A_MOSKVA)
    assert st.current_player == 1  # seat 0 answered (forced, face down); seat 1 can beat
    for p in range(4):
        v = G4.obs_spec.view(G4.observe(st, p))
        assert v["called"][MOSKVA] == 1
        assert all(v["lead"][c] == 1 for c in bits(C("AS TH AC TD")))


# ------------------------------------------------------------------ C3.6 deal scoring
def test_c3_6_most_points_takes_nothing_31_or_more_takes_2():
    st = endgame(G2, [89, 31], ["7H", "6C"], single_deal=True)
    assert st.last_result["points"] == [89, 31] and st.last_result["written"] == [0, 2]
    assert st.last_result["winners"] == [0] and st.last_result["losers"] == [1]


def test_c3_6_fewer_than_31_takes_4():
    st = endgame(G2, [90, 30], ["7H", "6C"], single_deal=True)
    assert st.last_result["written"] == [0, 4]


def test_c3_6_a_trick_with_no_points_takes_4_and_no_trick_takes_6():
    hands = ["7H", "6C"]
    st = G2.new_state(0, dict(hands=hands, trump_card="9D", taken=[rest(*hands, "7D"), "7D"], leader=0,
                              single_deal=True))
    assert st.last_result["points"] == [120, 0] and st.last_result["written"] == [0, 4]
    st = G2.new_state(0, dict(hands=hands, trump_card="9D", taken=[rest(*hands), ""], leader=0,
                              single_deal=True))
    assert st.last_result["tricks"][1] == 0 and st.last_result["written"] == [0, 6]


def test_c3_6_a_tie_for_most_gives_each_tied_side_2():
    st = endgame(G2, [60, 60], ["7H", "6C"], single_deal=True)
    assert st.last_result["written"] == [2, 2] and st.last_result["losers"] == [0, 1]
    st = endgame(G3, [50, 50, 20], ["7H", "6C", "7C"], single_deal=True)
    assert st.last_result["written"] == [2, 2, 4]


def test_c3_6_with_three_players_the_line_is_21():
    st = endgame(G3, [79, 21, 20], ["7H", "6C", "7C"], single_deal=True)
    assert st.last_result["written"] == [0, 2, 4]


def test_c3_6_pairs_count_both_partners_tricks():
    st = endgame(G4, [70, 50], ["7H", "6C", "7C", "8C"], single_deal=True)
    assert st.last_result["written"] == [0, 2] and st.last_result["points"] == [70, 50]
    assert st.last_result["seat_points"] == [0, -2, 0, -2]


def test_silent_the_line_is_31_when_two_of_three_sides_are_left():
    st = endgame(G3, [95, None, 0], ["7H", "6C", ""], out=[2], scores=[3, 4, 13], single_deal=True)
    assert st.last_result["points"] == [95, 25, 0]
    assert st.last_result["written"] == [0, 4, 0] and st.last_result["losers"] == [1]


# ------------------------------------------------------------------ C3.7 the match
def test_c3_7_a_side_at_12_is_out_and_the_last_side_left_wins():
    st = endgame(G2, [100, 20], ["7H", "6C"], scores=[0, 8])
    assert st.terminal and st.ledger.scores == [0, 12]
    mr = st.match_result
    assert mr["ended_by"] == "last_side_left" and mr["winners"] == [0] and mr["losers"] == [1]
    assert mr["goats"] == [] and mr["titles"] == []  # seed 004 / RULES C3 name no goats
    assert st.returns() == [1.0, -1.0]


def test_c3_7_scores_go_through_the_shared_ledger():
    st = endgame(G4, [100, 20], ["7H", "6C", "7C", "8C"], scores=[3, 5])
    assert st.ledger.scores == [3, 9] and st.ledger.rules.target == 12 and st.deals_played == 1


def test_c3_7_three_players_the_out_seat_is_skipped_in_later_deals():
    st = endgame(G3, [100, None, 0], ["7H", "6C", "7C"], scores=[0, 0, 6], dealer=2)
    assert st.last_result["written"] == [0, 4, 6] and st.last_result["out"] == [2]
    assert not st.terminal and st.in_match == [True, True, False]
    assert st.seats_in_deal == (0, 1) and st.hands[2] == 0 and len(st.stock) == 36 - 8
    assert st.dealer == 0 and st.leader == 1
    mr_places = st.out_after_deal
    assert mr_places == [-1, -1, 1]


def test_c3_7_if_everyone_left_reaches_12_together_only_the_highest_goes_out():
    st = endgame(G2, [60, 60], ["7H", "6C"], scores=[11, 10])
    assert st.ledger.scores == [13, 12]
    assert st.terminal and st.match_result["winners"] == [1] and st.last_result["out"] == [0]
    assert st.last_result["all_reached_target"]


def test_c3_7_tie_for_highest_the_taker_of_the_last_trick_stays():
    st = endgame(G2, [60, 60], ["7H", "6C"], scores=[10, 10])
    assert st.ledger.scores == [12, 12] and st.last_result["last_taker"] == 0
    assert st.match_result["winners"] == [0] and st.match_result["losers"] == [1]


def test_c3_7_together_with_three_the_others_play_on():
    st = endgame(G3, [40, 40, 40], ["7H", "6C", "7C"], scores=[11, 11, 10])
    assert st.ledger.scores == [13, 13, 12]
    # highest tie between sides 0 and 1; seat 0 took the last trick and stays
    assert st.last_result["out"] == [1] and not st.terminal
    assert st.in_match == [True, False, True]
    st.check_invariants()


def test_c3_7_sides_reaching_12_while_another_stays_below_all_go_out():
    st = endgame(G3, [20, 25, 75], ["7H", "6C", "7C"], scores=[10, 8, 0])
    assert st.ledger.scores == [14, 10, 0] and not st.terminal
    st = endgame(G3, [20, 25, 75], ["7H", "6C", "7C"], scores=[10, 10, 0])
    assert st.ledger.scores == [14, 12, 0] and st.terminal
    mr = st.match_result
    assert mr["winners"] == [2] and mr["places"] == [3, 2, 1] and mr["losers"] == [0] and mr["goats"] == []
    assert st.returns() == [-1.0, 0.0, 1.0]


def test_c3_7_after_25_deals_the_fewest_penalty_points_win():
    st = endgame(G2, [100, 20], ["7H", "6C"], scores=[5, 3], deals_played=24)
    assert st.terminal and st.deals_played == 25 and st.ledger.scores == [5, 7]
    mr = st.match_result
    assert mr["ended_by"] == "deal_limit" and mr["winners"] == [0] and mr["losers"] == [1]


def test_silent_deal_limit_tie_shares_first_place_and_returns_zero():
    st = endgame(G2, [60, 60], ["7H", "6C"], scores=[4, 4], deals_played=24)
    mr = st.match_result
    # everyone shares the first place: nobody wins or loses (winners are the sides with return +1)
    assert mr["places"] == [1, 1] and mr["winners"] == [] and mr["losers"] == [] and st.returns() == [0.0, 0.0]


def test_c3_7_final_places_earlier_out_is_worse():
    st = endgame(G3, [100, None, 0], ["7H", "6C", "7C"], scores=[0, 0, 6], dealer=2)
    assert not st.terminal
    # play the rest of the match at random; seat 2 went out first, so it finishes last
    import random
    rnd = random.Random(1)
    while not st.terminal:
        acts = st.legal_actions()
        st.apply_action(acts[rnd.randrange(len(acts))])
    mr = st.match_result
    assert mr["places"][2] == 3 and sorted(mr["places"][:2]) in ([1, 2], [1, 1])
    assert mr["losers"] == [2] and mr["goats"] == []


def test_silent_single_deal_returns_follow_the_deal_penalties():
    st = endgame(G3, [79, 21, 20], ["7H", "6C", "7C"], single_deal=True)
    assert st.terminal and st.match_result["ended_by"] == "single_deal"
    assert st.match_result["winners"] == [0] and st.match_result["losers"] == [2]
    assert st.returns() == [1.0, 0.0, -1.0]


# ------------------------------------------------------------------ actions and notation
def test_action_ids_name_cards_and_moves_never_seats():
    for g in (G2, G3, G4):
        assert g.num_actions == NUM_ACTIONS == 42
    st = basic()
    assert G4.action_to_string(st, 0) == "6C" and G4.action_to_string(st, 35) == "AS"
    assert [G4.action_to_string(st, a) for a in range(36, 42)] == ["lead", "beat", "down", "moskva",
                                                                    "molodka", "pass"]


def test_cards_are_chosen_in_increasing_id_order():
    st = basic()
    lay(st, "7H 9H", "lead")
    st.apply_action(parse_card("JC"))  # seat 1 (7C JC 8H TH): after JC only a higher card may follow
    assert legal(st) == {"8H", "TH"}
    st.apply_action(parse_card("8H"))
    assert st.selected == C("JC 8H") and legal(st) == {"down"} or st.current_player == 2


def test_string_to_action_errors_name_the_legal_moves():
    st = basic()
    with pytest.raises(IllegalActionError, match="legal moves"):
        G4.string_to_action(st, "AS")
    with pytest.raises(IllegalActionError, match="legal moves"):
        G4.string_to_action(st, "7H 9H")
    with pytest.raises(IllegalActionError, match="legal moves"):
        G4.string_to_action(st, "lead")
    assert G4.string_to_action(st, "7h") == parse_card("7H")
    before = G4.oracle(st).tobytes()
    with pytest.raises(IllegalActionError, match=r"action 38 \(down\) is not legal for player_0; legal moves: .*=7H"):
        G4.check_action(st, A_DOWN)  # the one action check (the engine's apply_action assumes a legal move)
    assert G4.oracle(st).tobytes() == before


def test_setup_is_validated():
    bad = [
        {"hands": "not hands"},
        {"hands": ["7H 9H KC 8S 9S", "", "", ""]},
        {"hands": ["7H 9H", "7H", "", ""]},
        {"hands": BASIC, "trump_card": "7H"},
        {"hands": BASIC, "trump_card": "9D", "stock": "KS"},
        {"hands": ["7H", "8H", "9H", "TH"], "trump_card": "9D"},
        {"scores": [-5, 0]},
        {"scores": [12, 0]},
        {"dealer": 7},
        {"dealer": 0, "leader": 3},
        {"out": [0]},
        {"deals_played": 25},
        {"single_deal": "yes"},
        {"colour": "red"},
    ]
    for setup in bad:
        with pytest.raises(InvalidOptionError):
            G4.new_state(0, setup)
    with pytest.raises(InvalidOptionError):
        G3.new_state(0, {"out": [0, 1]})


def test_rules_options_are_validated():
    for opts in ({"num_players": 5}, {"calls": "sometimes"}, {"refill": "never"}, {"may_decline_beat": 1},
                 {"penalties": (2, 4)}, {"target": 0}, {"max_deals": 0}, {"line": 200}, {"colour": 1}):
        with pytest.raises(InvalidOptionError):
            SixOfSpadesGame(**opts)
