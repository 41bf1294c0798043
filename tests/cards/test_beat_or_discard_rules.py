"""Rules of ``beat_or_discard_v0`` (seed 002 and RULES C1), one rule per test, on constructed deals.

Sources: "seed" is ``/work/shared/seeds/002_f942888aba824a05.txt``, "C1.n" is ``/work/shared/RULES.md``
section C1 (C1.1-C1.17), "C" its card-points line. Tests named ``..._quick`` use the four-card game
(C1.15), ``..._solo`` every player for themselves (C1.16).
"""
from __future__ import annotations

from functools import cache

import pytest

from kozel_env.cards.beat_or_discard import (
    A_CLAIM,
    A_DOWN,
    A_PASS,
    A_PLAY,
    ORDER,
    PH_ANSWER,
    PH_CLAIM,
    PH_EQUALISE,
    PH_LEAD,
    PH_REBEAT,
    BeatOrDiscardGame,
    beats_card,
    longest_suit,
    penalty,
)
from kozel_env.cards.deck import (
    DIAMONDS,
    FULL_DECK,
    HEARTS,
    SPADES,
    card_str,
    cards_str,
    parse_card,
    parse_cards,
    points,
)
from kozel_env.core.errors import IllegalActionError, InvalidOptionError

GAME = GAME6 = BeatOrDiscardGame()
QUICK = BeatOrDiscardGame(hand_size=4)
SOLO3 = BeatOrDiscardGame(mode="solo", num_players=3)
SOLO2 = BeatOrDiscardGame(mode="solo", num_players=2)
SOLO3Q = BeatOrDiscardGame(mode="solo", num_players=3, hand_size=4)

EXAMPLE = ["7C 9C KC 6D 8H JS", "6C AC 7D 9H QH AS", "8C TC 9D KD AD 7S", "JC 8D JD 6H 7H 8S"]


def rule_beats(a: int, b: int, trump: int) -> bool:
    """C1.2 written out independently of the engine's tables: a higher card of the same suit (order
    6 7 8 9 J Q K T A), or a trump over a non-trump."""
    ra, rb = "6789JQKTA".index(card_str(a)[0]), "6789JQKTA".index(card_str(b)[0])
    sa, sb = a // 9, b // 9
    return (sa == sb and ra > rb) or (sa == trump and sb != trump)


def new(hands=None, game=GAME, seed=0, **setup):
    if hands is not None:
        setup["hands"] = hands
    return game.new_state(seed, setup)


@cache
def game_for(rules) -> BeatOrDiscardGame:
    """The game of a state's rules config (a state does not hold its game)."""
    return BeatOrDiscardGame(rules)


def do(st, player: int, moves: str, game=None):
    """Play one move of ``player``: tokens are cards to pick (in increasing card id), then lead, beat,
    discard, pass, done or claim N. When the engine completes the move by itself (a forced pick or
    confirmation), the tokens left over are ignored; the tests check the outcome."""
    game = game or game_for(st.rules)
    assert st.current_player == player, f"expected player_{player} to move, not player_{st.current_player}"
    toks = moves.split()
    i = 0
    while i < len(toks):
        t = toks[i]
        if t == "claim" and i + 1 < len(toks) and toks[i + 1].isdigit():
            t += " " + toks[i + 1]
            i += 1
        i += 1
        st.apply_action(game.string_to_action(st, t))
        if not st.picked:
            break  # the move is complete
    return st


def skip_claims(st):
    """Every seat asked to claim before the lead declines."""
    while st.phase == PH_CLAIM:
        do(st, st.current_player, "pass")
    return st


def hand(st, q) -> str:
    return cards_str(st.hands[q])


def endgame(hands, piles=(), game=GAME, **setup):
    """A position with an empty stock: ``piles`` gives the tricks of sides 0..S-2 (default none); the last
    side's tricks hold every card not in a hand or an earlier pile."""
    S = game.num_sides
    piles = list(piles) + [""] * (S - 1 - len(piles))
    used = 0
    for h in hands:
        used |= parse_cards(h or "")
    for p in piles:
        used |= parse_cards(p)
    rest = cards_str(FULL_DECK & ~used)
    setup.setdefault("leader", 0)
    return game.new_state(0, {"hands": hands, "stock": "", "piles": piles + [rest], **setup})


# ------------------------------------------------------------------ C: card points
def test_c_card_points_a11_t10_k4_q3_j2_deck_120():
    assert points(parse_cards("AS TS KS QS JS 9S 8S 7S 6S")) == 30
    assert points(FULL_DECK) == 120


# ------------------------------------------------------------------ C1.1 penalty table
@pytest.mark.parametrize("pts,tricks,expected", [
    (120, 5, 0), (61, 1, 0), (60, 1, 2), (31, 1, 2), (30, 1, 4), (1, 1, 4), (0, 1, 4), (0, 0, 6)])
def test_c1_1_penalty_table(pts, tricks, expected):
    assert penalty(pts, tricks) == expected


# In these end positions seat 0 leads its last card, nobody can beat it and every other card is owed
# face down: the whole last round is forced and the game ends inside new_state.
LAST = ["AS", "6C", "7C", "8C"]


def test_c1_1_no_trick_at_all_takes_6_pairs():
    st = endgame(LAST, [cards_str(FULL_DECK & ~parse_cards("AS 6C 7C 8C"))])
    res = st.last_result
    assert st.deals_played == 1 and res["points"] == [120, 0] and res["tricks"][1] == 0
    assert st.ledger.scores == [0, 6]


def test_c1_1_tricks_but_no_points_take_4_quick():
    st = endgame(["6S", "7C", "8C", "9C"], [""], QUICK)  # pair 0+2 takes only the last trick: 0 points
    res = st.last_result
    assert res["points"] == [0, 120] and res["tricks"][0] == 1
    assert st.ledger.scores == [4, 0]


def test_c1_1_thirty_or_less_takes_4():
    st = endgame(LAST, ["AC TC KC QC AD TD KD QD AH TH KH QH JC JD"])  # 88 + the last trick's AS
    assert st.last_result["points"] == [99, 21] and st.ledger.scores == [0, 4]


def test_c1_1_thirty_one_to_sixty_takes_2():
    st = endgame(["9S", "6C", "7C", "8C"], ["AC TC KC QC AD TD KD QD"])
    assert st.last_result["points"] == [56, 64] and st.ledger.scores == [2, 0]


def test_c1_1_penalty_per_player_solo():
    # three players: piles seat 0 / seat 1, seat 2 gets the rest; seat 0 takes the last trick (0 points)
    st = endgame(["6S", "6C", "7C"], ["AC TC KC QC AD TD KD", "AH TH KH QH JH"], SOLO3)
    res = st.last_result
    assert res["points"] == [53, 30, 37]
    assert st.ledger.scores == [2, 4, 2]


# ------------------------------------------------------------------ C1.2 rank order and trumps
def test_c1_2_engine_beats_table_matches_the_rule():
    for t in range(4):
        for a in range(36):
            for b in range(36):
                assert beats_card(a, b, t) == rule_beats(a, b, t)


def test_c1_2_rank_order_ten_between_king_and_ace():
    assert ORDER == "6789JQKTA"
    t = DIAMONDS
    c = parse_card
    assert beats_card(c("TS"), c("KS"), t) and not beats_card(c("KS"), c("TS"), t)
    assert beats_card(c("AS"), c("TS"), t) and beats_card(c("JS"), c("9S"), t)
    assert beats_card(c("6D"), c("AS"), t)  # any trump beats any non-trump
    assert not beats_card(c("AS"), c("6D"), t)
    assert beats_card(c("7D"), c("6D"), t) and not beats_card(c("6D"), c("7D"), t)  # higher trump only
    assert not beats_card(c("AH"), c("6S"), t)  # nothing else beats


def test_c1_2_ten_beats_king_queen_does_not():
    st = skip_claims(new(["KC 6D 7H 8H 9S JS", "TC 7S 8S QH KH 9D", "QC 8C 9C 6H AH JH", "6C 7C JC 6S TS QS"]))
    do(st, 0, "KC lead")
    assert st.current_player == 1 and "TC" in GAME.legal_strings(st)
    st1 = st.clone()
    do(st1, 1, "TC beat")
    assert st1.top == parse_cards("TC") and st1.last_beater == 1
    do(st, 1, "7S discard")
    assert st.current_player == 2 and st.owed == 1 and st.legal_beats == ()  # QC is below KC: no beat


# ------------------------------------------------------------------ C1.3 beat = a matching
def test_c1_3_beat_covers_every_top_card_one_for_one_mixing_suits():
    st = skip_claims(new(EXAMPLE))
    do(st, 0, "7C 9C lead")
    do(st, 1, "6C 9H discard")
    assert st.current_player == 2
    assert {"TC", "9D", "KD", "AD"} <= set(GAME.legal_strings(st))  # TC + a trump, or two trumps
    do(st, 2, "TC 9D beat")
    assert st.last_beater == 2 and st.top == parse_cards("TC 9D")  # the beater's cards are the new top cards


def test_c1_3_one_card_cannot_beat_two_top_cards():
    # AC beats either club but a beat must cover both: AC with a non-trump is only a discard
    st = skip_claims(new(["7C 9C KC 6D 8H JS", "6C AC 8D 9H QH AS", "8C TC 9D KD AD 7S", "JC 7D JD 6H 7H 8S"]))
    do(st, 0, "7C 9C lead")
    st.apply_action(GAME.string_to_action(st, "AC"))
    assert "beat" not in GAME.legal_strings(st) and "8D" in GAME.legal_strings(st)
    st.apply_action(GAME.string_to_action(st, "AS"))  # AC AS: the discard is forced and played
    assert st.table_down[1] == parse_cards("AC AS") and st.last_beater == 0 and st.current_player == 2


def test_c1_3_beat_legality_is_a_perfect_matching_bruteforce():
    import itertools
    import random

    from kozel_env.cards.beat_or_discard import beat_sets, can_beat, is_beat

    rnd = random.Random(5)
    for _ in range(400):
        cards = rnd.sample(range(36), 12)
        top = sum(1 << c for c in cards[:rnd.randint(1, 4)])
        hand_cards = cards[6:6 + rnd.randint(1, 6)]
        trump = rnd.randrange(4)
        tl = [c for c in range(36) if top >> c & 1]
        expect = set()
        for k_set in itertools.combinations(hand_cards, len(tl)):
            if any(all(rule_beats(m, t, trump) for m, t in zip(perm, tl)) for perm in itertools.permutations(k_set)):
                expect.add(sum(1 << c for c in k_set))
        h = sum(1 << c for c in hand_cards)
        assert set(beat_sets(h, top, trump)) == expect
        assert can_beat(h, top, trump) == bool(expect)
        for m in expect:
            assert is_beat(m, top, trump)


# ------------------------------------------------------------------ C1.4 discard
def test_c1_4_discard_exactly_own_size_minus_last_beaters():
    st = skip_claims(new(EXAMPLE))
    do(st, 0, "7C 9C lead")  # the leader keeps 4: seat 1 owes 6 - 4 = 2
    assert st.phase == PH_ANSWER and st.owed == 2
    st2 = skip_claims(new(EXAMPLE))
    do(st2, 0, "9C lead")  # keeps 5: seat 1 owes 1
    assert st2.owed == 1
    do(st2, 1, "6C discard")
    assert st2.current_player == 2 and st2.owed == 1


def test_c1_4_holding_more_must_beat_or_discard_never_pass():
    st = skip_claims(new(EXAMPLE))
    do(st, 0, "7C 9C lead")
    assert "pass" not in GAME.legal_strings(st)
    with pytest.raises(IllegalActionError, match="legal moves"):
        GAME.string_to_action(st, "pass")


def test_c1_4_never_a_mix_of_beat_and_discard():
    # seat 2 picks TC (a beating card) then 7S (beats nothing): TC 7S can only be a discard
    st = skip_claims(new(EXAMPLE))
    do(st, 0, "7C 9C lead")
    do(st, 1, "6C 9H discard")
    st.apply_action(GAME.string_to_action(st, "TC"))
    st.apply_action(GAME.string_to_action(st, "7S"))
    assert st.table_down[2] == parse_cards("TC 7S") and st.last_beater == 0 and st.top == parse_cards("7C 9C")


def test_c1_4_discarded_cards_lie_face_down():
    st = skip_claims(new(EXAMPLE))
    do(st, 0, "7C 9C lead")
    do(st, 1, "6C 9H discard")
    assert st.table_down[1] == parse_cards("6C 9H") and st.table_up[1] == 0
    v0 = GAME.obs_spec.view(GAME.observe(st, 0))
    assert v0["table"][1].sum() == 0 and v0["known"][1].sum() == 0  # seat 0 does not see them
    assert v0["down_counts"][1].sum() == 2  # but counts them
    v1 = GAME.obs_spec.view(GAME.observe(st, 1))
    assert v1["my_down"][parse_card("6C")] == 1 and v1["my_down"][parse_card("9H")] == 1


def test_c1_4_quick_discard_as_many_as_the_lead():
    st = skip_claims(new(QUICK_HANDS, QUICK))
    do(st, 0, "7C 8C lead")
    assert st.owed == 2 and "pass" not in QUICK.legal_strings(st)


# ------------------------------------------------------------------ C1.5 equal or fewer cards
def test_c1_5_equal_hand_may_beat_or_pass():
    hands = ["7C 9C KC 6D QD KD", "6C AC 7D 9H QH AS", "8C TC 9D AD 8H 7S", "JC 8D JD 6H 7H 8S"]
    st = skip_claims(new(hands))
    do(st, 0, "7C 9C lead")
    do(st, 1, "6C 9H discard")
    do(st, 2, "TC 9D beat")
    do(st, 3, "6H 8S discard")
    # seat 0 holds 4, as many as seat 2, the last beater: it may beat (QD KD) or pass
    assert st.current_player == 0 and st.owed == 0
    legal = GAME.legal_strings(st)
    assert "pass" in legal and "QD" in legal and "discard" not in legal
    do(st, 0, "pass")
    # seat 1 (locked, owes nothing) is skipped; seat 2 cannot beat TC 9D again: the round ends
    assert st.tricks == [1, 0] and st.last_taker == 2


def test_c1_5_no_beat_possible_turn_skipped_automatically():
    st = skip_claims(new(EXAMPLE))
    do(st, 0, "7C 9C lead")
    do(st, 1, "6C 9H discard")
    do(st, 2, "TC 9D beat")
    do(st, 3, "6H 8S discard")
    # seat 0 holds one trump only: it cannot beat TC 9D and owes nothing: skipped; seat 1 locked
    assert st.current_player == 2 and st.phase == PH_REBEAT


# ------------------------------------------------------------------ C1.6 discard lock
LOCK_HANDS = ["7C 9C KC 6D 8H JS", "6C AC 7D 9H KD AD", "8C TC 9D JD QD 7S", "JC 8D TH 6H 7H 8S"]
LOCK2 = ["7C 9C KC 6D 8D 8H", "6C AC 9H QD KD AS", "8C TC 7D JD AD 7S", "JC 9D TD 6H 7H 8S"]


def test_c1_6_discarder_may_not_beat_again_in_the_round():
    st = skip_claims(new(LOCK_HANDS))
    do(st, 0, "7C 9C lead")
    do(st, 1, "6C 9H discard")  # seat 1 could have beaten (AC 7D, KD AD ...): now locked
    assert st.locked == 0b0010
    do(st, 2, "TC 9D beat")
    do(st, 3, "6H 8S discard")
    # seat 0 cannot beat; seat 1 holds 4 = seat 2's 4 and KD AD beat TC 9D, but it is locked: skipped
    assert st.current_player == 2 and st.phase == PH_REBEAT


def test_c1_6_locked_player_discards_again_when_a_new_beat_requires_it():
    st = skip_claims(new(LOCK2))
    do(st, 0, "7C 9C lead")
    do(st, 1, "6C 9H discard")  # locked from now on
    do(st, 2, "TC 7D beat")  # TC on 9C, 7D on 7C
    do(st, 3, "6H 8S discard")  # (9D TD would have beaten)
    do(st, 0, "6D 8D beat")  # the leader beats: it holds 2 now; seat 2's JD AD can still beat: alive
    # seat 1 owes 2 again; its QD KD would beat 6D 8D but the lock allows only a discard (C1.6)
    assert st.current_player == 1 and st.phase == PH_ANSWER and st.owed == 2 and st.legal_beats == ()
    from kozel_env.cards.beat_or_discard import can_beat
    assert can_beat(st.hands[1], st.top, st.trump)
    st.apply_action(GAME.string_to_action(st, "QD"))
    assert GAME.legal_strings(st) == ["KD", "AS"]  # any second card: a discard, never "beat"
    st.apply_action(GAME.string_to_action(st, "KD"))
    assert st.table_down[1] == parse_cards("6C 9H QD KD") and st.last_beater == 0


# ------------------------------------------------------------------ C1.7 beat again / done / auto end
def test_c1_7_last_beater_beats_again_or_says_done():
    st = skip_claims(new(EXAMPLE))
    do(st, 0, "7C 9C lead")
    do(st, 1, "6C 9H discard")
    do(st, 2, "TC 9D beat")
    do(st, 3, "6H 8S discard")
    assert st.phase == PH_REBEAT and GAME.legal_strings(st) == ["KD", "done"]
    do(st, 2, "done")
    assert st.tricks == [1, 0] and st.last_taker == 2


def test_c1_7_beat_again_everyone_answers_again():
    hands = ["7C 9C KC 6D QD AD", "6C AC 7D 9H QH AS", "8C TC 9D JD KD 7S", "JC 8D 8H 6H 7H 8S"]
    st = skip_claims(new(hands))
    do(st, 0, "7C 9C lead")
    do(st, 1, "6C 9H discard")
    do(st, 2, "TC 9D beat")
    do(st, 3, "6H 8S discard")
    assert st.current_player == 0 and "pass" in GAME.legal_strings(st)  # QD AD would beat
    do(st, 0, "pass")
    do(st, 2, "JD KD beat")  # beats its own top cards again (JD on 9D, KD on TC): holds 2
    assert st.top == parse_cards("JD KD") and st.last_beater == 2
    assert st.current_player == 3 and st.owed == 2  # everyone answers again: seat 3 owes 2
    do(st, 3, "JC 7H discard")
    assert st.current_player == 0 and st.owed == 2 and "QD" in GAME.legal_strings(st)


NO_CLAIM = ["6D 6C 7C 8C 6S 7S", "AD 7H 8H 9H 8S 9S", "7D 8D JS QS KS 9C", "TC QC KC 6H JH QH"]


# Three cards each and an empty stock: the hand sizes alone rule every claim out (C1.13 needs four).
NO_CLAIM3 = ["6C 7C 6D", "AD 7H 8H", "7D 8D JS", "TC QC KC"]


def test_c1_7_round_ends_by_itself_when_nobody_can_beat():
    st = endgame(NO_CLAIM3, leader=1)
    tricks = st.tricks[:]
    do(st, 1, "AD lead")  # the top trump: nobody can beat, nobody may claim (three cards each)
    assert st.tricks == [tricks[0], tricks[1] + 1] and st.last_taker == 1  # no answers at all
    assert st.phase == PH_EQUALISE and st.current_player == 2


def test_c1_13_a_seat_that_may_claim_by_public_counts_answers_although_nobody_can_beat():
    """C1.7 ends a round by itself only when the table rules every claim out: NO_CLAIM's seats hold six
    cards, so each is asked at its answer (holding no four of a suit, it owes its discard: no claim)."""
    st = skip_claims(new(NO_CLAIM, leader=1))
    do(st, 1, "AD lead")  # nobody can beat the top trump
    for q, c in ((2, "9C"), (3, "6H"), (0, "6C")):
        assert st.current_player == q and st.phase == PH_ANSWER and st.owed == 1
        assert "claim" not in GAME.legal_strings(st) and "pass" not in GAME.legal_strings(st)
        do(st, q, c + " discard")
    assert st.tricks == [0, 1] and st.last_taker == 1  # nobody beat: the leader takes
    assert st.piles[1] == parse_cards("AD 9C 6H 6C") and st.piles_up[1] == parse_cards("AD")
    assert [h.bit_count() for h in st.hands] == [6, 6, 6, 6]  # hands were equal: nobody equalises


def test_c1_7_round_waits_for_a_possible_claim():
    hands = ["6D 6C 7C 8C 9C 7S", "AD 7H 8H 9H 8S 9S", "7D 8D JS QS KS 6S", "TC QC KC 6H JH QH"]
    st = new(hands, leader=1)
    skip_claims(st)  # seat 2 (four spades) and seat 0 (four clubs) decline before the lead
    do(st, 1, "AD lead")
    # nobody can beat AD, but seat 2 may still claim when its answer comes up
    assert st.current_player == 2 and "claim" in GAME.legal_strings(st)
    assert GAME.string_to_action(st, "claim 4") == A_CLAIM


# ------------------------------------------------------------------ C1.8 taker and equalising
def test_c1_8_last_beater_takes_every_table_card():
    st = skip_claims(new(EXAMPLE))
    do(st, 0, "7C 9C lead")
    do(st, 1, "6C 9H discard")
    do(st, 2, "TC 9D beat")
    do(st, 3, "6H 8S discard")
    do(st, 2, "done")
    assert st.piles[0] == parse_cards("7C 9C 6C 9H TC 9D 6H 8S")  # pair 0+2 (seat 2's side)
    assert st.piles_up[0] == parse_cards("7C 9C TC 9D")


def test_c1_8_leader_takes_when_nobody_beat():
    st = endgame(NO_CLAIM3, leader=1)
    before = st.piles[1]
    do(st, 1, "AD lead")
    assert st.piles[1] == before | parse_cards("AD") and st.last_taker == 1


def test_c1_8_equalise_down_to_smallest_hand_taker_adds_nothing():
    st = endgame(NO_CLAIM3, leader=1)
    before = st.piles[1]
    do(st, 1, "AD lead")
    # seat 1 (the taker) holds 2, everyone else 3: each adds one face-down card to seat 1's trick
    for q, c in ((2, "JS"), (3, "TC"), (0, "6C")):
        assert st.phase == PH_EQUALISE and st.current_player == q and st.owed == 1
        do(st, q, c + " discard")
    assert st.piles[1] == before | parse_cards("AD JS TC 6C")
    assert [h.bit_count() for h in st.hands] == [2, 2, 2, 2]


def test_c1_8_equalised_cards_lie_face_down_then_everyone_draws_back_to_six():
    g = BeatOrDiscardGame(claims=False)  # no claim keeps the round alive: the owed cards are equalised
    st = g.new_state(0, {"hands": NO_CLAIM, "leader": 1})
    do(st, 1, "AD lead", g)
    for q, c in ((2, "9C"), (3, "6H"), (0, "6C")):
        assert st.phase == PH_EQUALISE and st.current_player == q and st.owed == 1
        do(st, q, c + " discard", g)
    assert st.piles[1] == parse_cards("AD 9C 6H 6C") and st.piles_up[1] == parse_cards("AD")
    assert st.laid_down[2] == parse_cards("9C")
    assert [h.bit_count() for h in st.hands] == [6, 6, 6, 6]  # then everyone draws back to six


def test_c1_8_equalise_quick():
    st = skip_claims(new(["6D 7C 8C 9H", "AD 7H 8H 9S", "7D 8D JS QS", "TC QC KC 6H"], QUICK, leader=1))
    do(st, 1, "AD lead")  # nobody can beat: each answers once with a discard of one (C1.15)
    for q in (2, 3, 0):
        assert st.current_player == q and st.phase == PH_ANSWER and st.owed == 1
        do(st, q, card_str(next(c for c in range(36) if st.hands[q] >> c & 1)) + " discard")
    assert st.piles[1].bit_count() == 4


# ------------------------------------------------------------------ C1.9 drawing
FREE12 = "QS TS KS KH AH TH 6S 9S TD QD QC JH"  # the cards of no EXAMPLE hand


def _example_round(st):
    do(st, 0, "7C 9C lead")
    do(st, 1, "6C 9H discard")
    do(st, 2, "TC 9D beat")
    do(st, 3, "6H 8S discard")
    do(st, 2, "done")
    return st


def test_c1_9_draw_one_at_a_time_from_the_taker_clockwise():
    st = _example_round(skip_claims(new(EXAMPLE, stock=FREE12)))
    # seat 2 took: draw order 2, 3, 0, 1, 2, 3, 0, 1
    assert st.hands[2] & parse_cards("QS AH") == parse_cards("QS AH")
    assert st.hands[3] & parse_cards("TS TH") == parse_cards("TS TH")
    assert st.hands[0] & parse_cards("KS 6S") == parse_cards("KS 6S")
    assert st.hands[1] & parse_cards("KH 9S") == parse_cards("KH 9S")
    assert st.stock == parse_cards("TD QD QC JH") and [h.bit_count() for h in st.hands] == [6, 6, 6, 6]


def test_c1_9_hands_may_differ_by_one_when_the_stock_runs_out():
    st = _example_round(skip_claims(new(EXAMPLE, stock="QS TS KS KH AH TH", piles=["6S 9S TD QD QC JH", ""])))
    assert [h.bit_count() for h in st.hands] == [5, 5, 6, 6] and st.stock == 0


def test_c1_9_player_without_cards_is_skipped():
    st = endgame(["6S", "AS 7C", "8C 9C", "TC JC"])
    assert st.current_player == 1 and st.hands[0] == 0  # seat 0's lead of its last card was forced
    do(st, 1, "AS beat")  # AS completes only a beat: played at once
    # nobody can beat AS: the round ends, seats 2 and 3 equalise down to seat 0's empty hand (forced),
    # seat 1 (the taker) keeps 7C and leads it alone: seat 0, without cards, is never asked again
    assert st.deals_played == 1
    assert st.last_result["tricks"] == [0, 3] and st.last_result["points"] == [0, 120]
    assert st.ledger.scores == [6, 0]


# ------------------------------------------------------------------ C1.10 trump
def test_c1_10_diamonds_in_the_first_game():
    st = skip_claims(new(EXAMPLE))
    assert st.trump == DIAMONDS and st.first_game


def test_c1_10_bottom_card_hidden_until_drawn():
    st = _example_round(skip_claims(new(EXAMPLE, stock=FREE12)))
    assert st.revealed == -1 and st.trump == DIAMONDS and st.stock.bit_count() == 4
    assert GAME.obs_spec.view(GAME.observe(st, 0))["revealed"].sum() == 0


def test_c1_10_bottom_card_shown_becomes_trump_and_is_known_held():
    st = _example_round(skip_claims(new(EXAMPLE, stock="QS TS KS KH AH TH 6S 9S", piles=["TD QD QC JH", ""])))
    assert st.revealed == parse_card("9S") and st.trump == SPADES
    assert st.hands[1] >> parse_card("9S") & 1  # seat 1 drew the 8th and last card
    assert st.known[1] == parse_cards("9S")
    for p in range(4):
        v = GAME.obs_spec.view(GAME.observe(st, p))
        assert v["revealed"][parse_card("9S")] == 1 and v["trump"][SPADES] == 1
        assert v["known"][(1 - p) % 4][parse_card("9S")] == 1


def test_c1_10_new_trump_beats_from_that_moment():
    st = _example_round(skip_claims(new(EXAMPLE, stock="QS TS KS KH AH TH 6S 9S", piles=["TD QD QC JH", ""])))
    from kozel_env.cards.beat_or_discard import can_beat
    assert can_beat(parse_cards("6S"), parse_cards("AH"), st.trump)  # spades now trump
    assert not can_beat(parse_cards("6D"), parse_cards("AH"), st.trump)  # diamonds no more


def test_c1_10_trump_carries_into_the_next_game():
    st = GAME.new_state(0, {"first_game": False, "trump": "H"})
    assert st.trump == HEARTS and not st.first_game
    st = endgame(["9S", "6C", "AH", "7C"], first_game=False, trump="S")  # nothing beats 9S: all forced
    assert st.deals_played == 1 and not st.terminal and st.trump == SPADES  # the next game keeps it


def test_c1_10_quick_game_diamonds_always_bottom_not_shown():
    import random
    st = QUICK.new_state(3)
    rnd = random.Random(1)
    while not st.terminal:
        assert st.trump == DIAMONDS and st.revealed == -1
        la = st.legal_actions()
        st.apply_action(la[rnd.randrange(len(la))])
    with pytest.raises(InvalidOptionError):
        QUICK.new_state(0, {"first_game": False, "trump": "S"})


# ------------------------------------------------------------------ C1.11 leader
def test_c1_11_lowest_diamond_leads_the_first_game():
    st = new(["7C 9C KC 7D 8H JS", "6C AC 6D 9H QH AS", "8C TC 9D KD AD 7S", "JC 8D JD 6H 7H 8S"])
    assert st.leader == 1 and st.diamond_leader == 1


def test_c1_11_no_diamond_dealt_seat_zero_leads():
    hands = ["7C 9C KC 6S 8H JS", "6C AC 7S 9H QH AS", "8C TC 9S KS TH TS", "JC QC 6H 7H 8S QS"]
    st = new(hands)
    assert st.claim_stop == 0 and st.diamond_leader == 0


def test_c1_11_next_game_led_by_the_last_tricks_taker():
    st = endgame(["9S", "6C", "AS", "7C"])  # seat 0 leads 9S, seat 1 must discard 6C
    assert GAME.legal_strings(st) == ["beat", "discard"]  # seat 2's only card AS is picked already
    do(st, 2, "beat")  # seat 2 beats with its last card; seat 3's discard is forced
    assert st.deals_played == 1 and not st.terminal
    assert st.last_result["last_taker"] == 2 and st.claim_stop == 2 and not st.first_game


def test_c1_11_quick_lowest_diamond_leads():
    st = new(["7C 9C 7D 8H", "6C AC 6D 9H", "8C TC 9D KD", "JC 8D JD 6H"], QUICK)
    assert st.leader == 1


# ------------------------------------------------------------------ C1.12 eggs
EGGS_PILE = "AC TC KC QC AD TD KD QD JC JD"  # 60 points


def test_c1_12_eggs_no_penalty_next_game_doubled():
    st = endgame(["6S", "6C", "7C", "8C"], [EGGS_PILE])
    res = st.last_result
    assert res["points"] == [60, 60] and res["eggs"]
    assert st.ledger.scores == [0, 0] and st.ledger.multiplier == 2


def test_c1_12_eggs_twice_in_a_row_x4_then_reset():
    st = endgame(["6S", "6C", "7C", "8C"], [EGGS_PILE], eggs=1)
    assert st.ledger.multiplier == 4
    st = endgame(["9S", "6C", "7C", "8C"], ["AC TC KC QC AD TD KD QD"], eggs=2)  # 56:64 at x4
    assert st.ledger.scores == [8, 0] and st.ledger.multiplier == 1


def test_c1_12_eggs_quick():
    st = endgame(["6S", "6C", "7C", "8C"], [EGGS_PILE], QUICK)
    assert st.last_result["eggs"] and st.ledger.multiplier == 2


def test_c1_12_eggs_solo_only_with_two_players():
    st = endgame(["6S", "6C"], [EGGS_PILE], SOLO2)
    assert st.last_result["eggs"] and st.ledger.scores == [0, 0]
    st = endgame(["6S", "6C", "7C"], [EGGS_PILE, ""], SOLO3)  # 60:0:60 between three: no eggs
    assert not st.last_result["eggs"] and st.ledger.scores == [2, 6, 2]


# ------------------------------------------------------------------ C1.13 claims
CLAIM_HANDS = ["6D 7C 8C 9H TH JS", "6S 7S 8S 9S QC KH", "7D 8D 9D JD QD AC", "TC JC 6H 7H 8H TS"]


def test_c1_13_claim_offered_before_the_lead_to_a_seat_with_four_of_a_suit():
    st = new(CLAIM_HANDS)
    assert st.leader == 0 and st.phase == PH_CLAIM and st.current_player == 1
    assert GAME.legal_strings(st) == ["pass", "claim"]  # the N is announced when made (it is 4 here)
    assert GAME.string_to_action(st, "claim 4") == A_CLAIM
    do(st, 1, "pass")
    assert st.current_player == 2 and GAME.legal_strings(st) == ["pass", "claim"]
    assert GAME.string_to_action(st, "claim 5") == A_CLAIM
    do(st, 2, "pass")
    # seat 3 (three hearts) cannot claim, but six cards could hold four of a suit: it is asked, may only pass
    assert st.phase == PH_CLAIM and st.current_player == 3 and GAME.legal_strings(st) == ["pass"]
    do(st, 3, "pass")
    assert st.phase == PH_LEAD and st.current_player == 0


def test_c1_13_highest_claim_wins_later_claims_strictly_higher():
    st = new(CLAIM_HANDS)
    do(st, 1, "claim 4")
    assert st.current_player == 2  # 5 > 4: seat 2 may still claim
    do(st, 2, "claim 5")
    assert st.leader == 2 and st.claims == [0, 4, 5, 0]
    # seat 3's six cards could still say 6: asked (it cannot, so "pass" only); the first leader is not asked
    assert st.phase == PH_CLAIM and st.current_player == 3 and GAME.legal_strings(st) == ["pass"]
    do(st, 3, "pass")
    assert st.phase == PH_LEAD and st.leader == 2 and st.current_player == 2


def test_c1_13_tie_goes_to_the_seat_nearest_the_leader():
    hands = ["6D 7C 8C 9H TH JS", "6S 7S 8S 9S QC KH", "7D 8D 9D JD QS AC", "TC JC 6H 7H 8H TS"]
    st = new(hands)
    do(st, 1, "claim 4")  # seat 2 also holds four diamonds but would have to say more than 4
    assert st.current_player == 2 and GAME.legal_strings(st) == ["pass"] and st.leader == 1
    skip_claims(st)
    assert st.phase == PH_LEAD and st.leader == 1 and st.claims == [0, 4, 0, 0]


def test_c1_13_leader_is_not_asked_to_claim():
    hands = ["6D 7D 8D 9D TH JS", "6S 7S 8C 9S QC KH", "TD JD QD AC KD 7C", "TC JC 6H 7H 8H TS"]
    st = new(hands)
    asked = []
    while st.phase == PH_CLAIM:  # every other seat is asked once, clockwise; seat 0, the leader, is not
        asked.append((st.current_player, GAME.legal_strings(st)))
        do(st, st.current_player, "pass")
    assert st.leader == 0 and asked == [(1, ["pass"]), (2, ["pass", "claim"]), (3, ["pass"])]
    assert st.phase == PH_LEAD and st.current_player == 0


def test_c1_13_claim_after_a_lead_returns_the_rounds_cards():
    st = new(CLAIM_HANDS)
    do(st, 1, "pass")
    do(st, 2, "pass")
    do(st, 3, "pass")
    do(st, 0, "7C 8C lead")
    assert st.current_player == 1 and "claim" in GAME.legal_strings(st)
    do(st, 1, "claim 4")
    assert st.hands[0] == parse_cards(CLAIM_HANDS[0]) and st.table_up == [0, 0, 0, 0]
    assert st.known[0] == parse_cards("7C 8C")  # returned face up: everybody knows
    assert st.phase == PH_LEAD and st.current_player == 1 and st.leader == 1


def test_c1_13_claim_clears_discard_locks_and_returns_face_down_cards():
    st = skip_claims(new(CLAIM_HANDS))
    do(st, 0, "7C 8C lead")
    do(st, 1, "QC KH discard")  # seat 1 discards: locked
    assert st.current_player == 2 and "claim" in GAME.legal_strings(st)
    do(st, 2, "claim 5")
    assert st.locked == 0 and st.acted == 0
    assert st.hands[1] == parse_cards(CLAIM_HANDS[1]) and st.laid_down[1] == 0 and st.known[1] == 0


def test_c1_13_no_claim_after_beating_or_discarding():
    st = skip_claims(new(CLAIM_HANDS))
    do(st, 0, "7C 8C lead")
    do(st, 1, "QC KH discard")
    assert not st.claimable(1)


def test_c1_13_claim_announces_the_number_not_the_suit():
    # seat 1 claims with four spades, or with four hearts: seat 0's observation is the same
    a = ["6D 7C 8C TH JS QS", "6S 7S 8S 9S QC KC", "7D 8D 9D JD QD AC", "TC JC 6H 7H 8H 9H"]
    b = ["6D 7C 8C TH JS QS", "6H 7H 8H 9H QC KC", "7D 8D 9D JD QD AC", "TC JC 6S 7S 8S 9S"]
    obs = []
    for hs in (a, b):
        st = new(hs, seed=1)
        assert st.current_player == 1
        do(st, 1, "claim 4")
        assert st.current_player == 2  # seat 2 (five diamonds) may outbid
        v = GAME.obs_spec.view(GAME.observe(st, 0))
        assert v["claims"][1].tolist() == [1, 0, 0]  # relative seat 1 claimed N = 4
        obs.append(GAME.observe(st, 0))
    assert (obs[0] == obs[1]).all()


def test_c1_13_quick_claim_needs_four_of_a_suit():
    st = new(["6D 7C 8C 9H", "6S 7S 8S 9S", "7D 8D 9D AC", "TC JC 6H 7H"], QUICK)
    assert st.phase == PH_CLAIM and st.current_player == 1 and QUICK.legal_strings(st) == ["pass", "claim"]
    do(st, 1, "claim 4")
    # seats 2 and 3 hold four cards, no more than the claimed 4: no higher claim is possible, nobody is asked
    assert st.leader == 1 and st.phase == PH_LEAD


def test_c1_13_claim_option_off():
    g = BeatOrDiscardGame(claims=False)
    st = g.new_state(0, {"hands": CLAIM_HANDS})
    assert st.phase == PH_LEAD and st.current_player == 0


# ------------------------------------------------------------------ C1.14 four aces or four sixes
def test_c1_14_four_aces_after_the_deal_end_the_match_partner_wins():
    st = new(["AC AD AH AS 6C 7C", None, None, None])
    assert st.terminal and st.match_result["ended_by"] == "four_aces"
    assert st.match_result["winners"] == [0] and st.match_result["goats"] == [1]  # sides: 0+2 and 1+3
    assert st.ledger.scores == [0, 12]
    res = st.last_result  # the deal that ended at once is reported like any other
    assert res["ended_by"] == "four_aces" and res["winners"] == [0] and res["written"] == [0, 12]
    assert st.returns() == [1.0, -1.0, 1.0, -1.0]


def test_c1_14_a_match_that_ends_at_the_deal_is_observed_by_every_seat():
    """Regression: with four of a kind dealt, the match ended before the first round's table existed, and
    observing the final state (as the PettingZoo env does for every seat at the end) raised."""
    st = new(["6C 6D 6H 6S 7C 8C", None, None, None])
    assert st.terminal and st.match_result["ended_by"] == "four_sixes"
    st.check_invariants()
    for seat in range(4):
        obs = GAME.observe(st, seat)
        assert obs.shape == (GAME.obs_spec.size,)
    assert st.clone().top == 0


def test_c1_14_aces_outrank_sixes():
    st = new(["6C 6D 6H 6S 7C 8C", "AC AD AH AS 7D 8D", None, None])
    assert st.terminal and st.match_result["ended_by"] == "four_aces" and st.match_result["winners"] == [1]


def test_c1_14_four_sixes_after_a_draw():
    hands = ["7C 9C KC 7D 8H JS", "6C 6H 6S AC QH AS", "8C TC 9D KD AD 7S", "JC 8D JD TH 7H 8S"]
    st = skip_claims(new(hands, leader=0, stock="QS TS KS 6D 9H JH KH AH 9S TD QD QC"))
    do(st, 0, "7C 9C lead")
    do(st, 1, "AC QH discard")
    do(st, 2, "TC 9D beat")
    do(st, 3, "TH 8S discard")
    do(st, 2, "done")
    # seat 1 draws 6D (4th card of the refill) and AH: four sixes after the refill
    assert st.terminal and st.match_result["ended_by"] == "four_sixes"
    assert st.match_result["winners"] == [1] and st.ledger.scores == [12, 0]


def test_c1_14_four_sixes_quick():
    st = new(["6C 6D 6H 6S", None, None, None], QUICK)
    assert st.terminal and st.match_result["ended_by"] == "four_sixes" and st.match_result["winners"] == [0]


def test_c1_14_solo_everyone_else_out():
    st = new(["AC AD AH AS 6C 7C", None, None], SOLO3)
    assert st.terminal and st.match_result["winners"] == [0]
    assert st.ledger.scores == [0, 12, 12] and st.returns() == [1.0, -1.0, -1.0]
    st.check_invariants()  # the seats put out keep their dealt hands: the match is over


def test_c1_14_option_off():
    st = BeatOrDiscardGame(four_of_a_kind=False).new_state(0, {"hands": ["AC AD AH AS 6C 7C", None, None, None]})
    assert not st.terminal


# ------------------------------------------------------------------ C1.15 quick game
QUICK_HANDS = ["6D 7C 8C 9H", "6C AC 7D TH", "9C TC 9D KD", "JC 8D JD 6H"]


def test_c1_15_quick_answer_once_then_round_ends_at_the_leader():
    st = skip_claims(new(QUICK_HANDS, QUICK))
    do(st, 0, "7C 8C lead")
    do(st, 1, "6C AC discard")  # as many cards as the lead
    do(st, 2, "TC 9D beat")
    assert st.current_player == 3 and st.owed == 2
    do(st, 3, "JD 6H discard")
    # back at the leader: the round ends (no beat again, no done); seat 2, the last beater, took it
    assert st.tricks == [1, 0] and st.last_taker == 2


def test_c1_15_quick_later_player_beats_the_current_top_cards():
    st = skip_claims(new(QUICK_HANDS, QUICK))
    do(st, 0, "7C 8C lead")
    do(st, 1, "6C AC discard")
    do(st, 2, "TC 9D beat")
    assert "8D" in QUICK.legal_strings(st)  # 8D JD beats TC 9D (8D on TC, JD on 9D)
    do(st, 3, "8D JD beat")
    assert st.tricks == [0, 1] and st.last_taker == 3


def test_c1_15_quick_lead_limited_to_the_smallest_hand():
    st = endgame(["6S 7S 8S", "6C 7C", "8C 9C JC", "TC QC KC"], [], QUICK)
    assert QUICK.legal_strings(st) == ["6S", "7S", "8S"]
    st.apply_action(QUICK.string_to_action(st, "6S"))
    st.apply_action(QUICK.string_to_action(st, "7S"))  # two cards: the limit; the lead is forced
    assert st.lead == parse_cards("6S 7S")
    st = endgame(["6S 7S 8S", "6C 7C", "8C 9C JC", "TC QC KC"], [], QUICK)
    st.apply_action(QUICK.string_to_action(st, "7S"))
    assert QUICK.legal_strings(st) == ["8S", "lead"]  # 7S alone or 7S 8S


def test_c1_15_classic_lead_not_limited():
    st = endgame(["6S 7S 8S", "6C 7C", "8C 9C JC", "TC QC KC"], [], GAME)
    st.apply_action(GAME.string_to_action(st, "6S"))
    st.apply_action(GAME.string_to_action(st, "7S"))
    assert GAME.legal_strings(st) == ["8S", "lead"]


# ------------------------------------------------------------------ C1.16 every player for themselves
def test_c1_16_solo_player_at_12_is_out_and_skipped():
    import random
    st = SOLO3.new_state(4, {"scores": [12, 3, 5]})
    assert st.out == 0b001 and st.hands[0] == 0
    rnd = random.Random(0)
    while not st.terminal and st.deals_played == 0:
        assert st.current_player in (1, 2)
        la = st.legal_actions()
        st.apply_action(la[rnd.randrange(len(la))])


def test_c1_16_solo_last_one_left_wins():
    st = endgame(["9S", "6C", "7C"], ["AC TC KC QC AD TD KD QD", ""], SOLO3, scores=[11, 11, 5])
    # seat 0: 56 -> 2 (13, out); seat 1: no trick -> 6 (17, out); seat 2: 64 -> 0
    assert st.terminal and st.match_result["winners"] == [2] and st.match_result["goats"] == [0, 1]
    assert st.returns() == [-1.0, -1.0, 1.0]


def test_c1_16_solo_goat_is_the_first_out():
    st = endgame(["9S", "6C", "7C"], ["AC TC KC QC AD TD KD QD", "AH TH KH QH AS TS KS QS"], SOLO3,
                 scores=[11, 5, 5])
    # seat 0: 56 -> 13 out; seat 1: 56 -> 7; seat 2: 8 -> 4 (9): the match goes on
    assert not st.terminal and st.out == 0b001 and st.goats == [0]
    assert st.ledger.scores == [13, 7, 9]


SIM = dict(piles=["AC AD TC KC JC JD", "AH AS TH KH KS"], game=SOLO3, eggs=2)  # 40 / 40 / 40 at x4


def test_c1_16_solo_all_out_together_fewer_points_wins():
    st = endgame(["9S", "6C", "7C"], SIM["piles"], SIM["game"], eggs=2, scores=[5, 4, 5])
    assert st.last_result["points"] == [40, 40, 40]
    assert st.ledger.scores == [13, 12, 13]
    assert st.terminal and st.match_result["winners"] == [1] and st.match_result["goats"] == [0, 2]


def test_c1_16_solo_all_out_together_tie_last_tricks_taker_wins():
    st = endgame(["9S", "6C", "7C"], SIM["piles"], SIM["game"], eggs=2, scores=[5, 5, 5])
    assert st.terminal and st.last_result["last_taker"] == 0 and st.match_result["winners"] == [0]


def test_c1_16_solo_tie_taker_not_tied_nearest_clockwise_wins():
    st = endgame(["9S", "6C", "7C"], SIM["piles"], SIM["game"], eggs=2, scores=[6, 5, 5])
    assert st.ledger.scores == [14, 13, 13] and st.match_result["winners"] == [1]


def test_c1_16_solo_quick_plays_to_the_end():
    import random
    rnd = random.Random(3)
    st = SOLO3Q.new_state(5)
    while not st.terminal:
        st.check_invariants()
        la = st.legal_actions()
        st.apply_action(la[rnd.randrange(len(la))])
    mr = st.match_result
    assert len(mr["winners"]) == 1 and mr["goats"] and mr["winners"][0] not in mr["goats"]
    assert all(st.ledger.scores[q] >= 12 for q in mr["goats"])
    assert mr["places"][mr["winners"][0]] == 1 and st.returns().count(1.0) == 1


# ------------------------------------------------------------------ C1.17 pairs match end
def test_c1_17_pairs_goat_at_12_ends_the_match():
    st = endgame(LAST, [cards_str(FULL_DECK & ~parse_cards("AS 6C 7C 8C"))], scores=[5, 6])
    assert st.terminal and st.match_result["goats"] == [1] and st.match_result["winners"] == [0]
    assert st.match_result["ended_by"] == "target"
    assert st.returns() == [1.0, -1.0, 1.0, -1.0]


def test_c1_17_pairs_below_12_plays_on():
    st = endgame(LAST, [cards_str(FULL_DECK & ~parse_cards("AS 6C 7C 8C"))], scores=[5, 5])
    assert not st.terminal and st.deals_played == 1 and st.ledger.scores == [5, 11]


# ------------------------------------------------------------------ the docstring's worked example
def test_docstring_worked_example():
    st = new(EXAMPLE)
    steps = [
        # six cards could hold four of a suit: every other seat is asked before the lead (C1.13), "pass" only
        (1, "pass", "pass"), (2, "pass", "pass"), (3, "pass", "pass"),
        (0, "7C 9C KC 6D 8H JS", "7C"), (0, "9C KC lead", "9C"), (0, "KC lead", "lead"),
        (1, "6C AC 7D 9H QH", "6C"), (1, "AC 7D 9H QH AS", "9H"),
        (2, "8C TC 9D KD AD", "TC"), (2, "9D KD AD 7S", "9D"), (2, "beat discard", "beat"),
        (3, "JC 8D JD 6H 7H", "6H"), (3, "7H 8S", "8S"), (2, "KD done", "done"),
    ]
    for seat, legal, move in steps:
        assert st.current_player == seat
        assert " ".join(GAME.legal_strings(st)) == legal
        st.apply_action(GAME.string_to_action(st, move))
    assert st.piles[0] == parse_cards("7C 9C 6C 9H TC 9D 6H 8S") and points(st.piles[0]) == 10
    assert [h.bit_count() for h in st.hands] == [6, 6, 6, 6] and st.leader == 2


# ------------------------------------------------------------------ options, setup, notation
def test_options_and_setup_validated():
    with pytest.raises(InvalidOptionError):
        BeatOrDiscardGame(mode="pairs", num_players=3)
    with pytest.raises(InvalidOptionError):
        BeatOrDiscardGame(hand_size=5)
    with pytest.raises(InvalidOptionError):
        BeatOrDiscardGame(mode="teams")
    with pytest.raises(InvalidOptionError):
        BeatOrDiscardGame(no_such_rule=1)
    with pytest.raises(InvalidOptionError):
        GAME.new_state(0, {"hands": "not hands"})
    with pytest.raises(InvalidOptionError):
        GAME.new_state(0, {"hands": ["AS AS", None, None, None]})
    with pytest.raises(InvalidOptionError):
        GAME.new_state(0, {"scores": [12, 0]})
    with pytest.raises(InvalidOptionError):
        GAME.new_state(0, {"hands": ["AS", None, None, None]})  # a short hand while the stock is not empty
    with pytest.raises(InvalidOptionError):
        GAME.new_state(0, {"hands": EXAMPLE, "stock": "QS"})  # cards in no hand, stock or pile
    with pytest.raises(InvalidOptionError):
        GAME.new_state(0, {"trump": "H"})  # the first game is diamonds
    with pytest.raises(InvalidOptionError):
        SOLO3.new_state(0, {"scores": [12, 12, 0]})  # one player left


def test_longest_suit_is_the_claim_number():
    assert longest_suit(parse_cards("6S 7S 8S 9S QC KH")) == 4
    assert longest_suit(parse_cards("6S 7S 8S 9S TS JS")) == 6


def test_action_ids_refer_to_cards_not_seats():
    assert GAME.num_actions == 40 and (A_PLAY, A_DOWN, A_PASS, A_CLAIM) == (36, 37, 38, 39)
    for shift in range(4):
        hs = EXAMPLE[shift:] + EXAMPLE[:shift]
        st = skip_claims(new(hs, leader=(4 - shift) % 4))
        assert sorted(st.legal_actions()) == sorted(parse_card(c) for c in EXAMPLE[0].split())


def test_notation_round_trip_and_errors():
    st = new(CLAIM_HANDS)
    assert GAME.action_to_string(st, A_CLAIM) == "claim"  # public notation: no N (announced when made)
    assert GAME.string_to_action(st, "claim") == A_CLAIM == GAME.string_to_action(st, "claim 4")
    with pytest.raises(IllegalActionError, match="legal moves"):
        GAME.string_to_action(st, "claim 5")
    with pytest.raises(IllegalActionError, match="legal moves"):
        GAME.string_to_action(st, "AS")
    with pytest.raises(IllegalActionError):
        GAME.action_to_string(st, 40)


def test_an_illegal_move_is_refused_by_check_action_naming_it_and_the_legal_moves():
    """The one action check is ``Game.check_action`` (``apply_action`` assumes a legal move): a masked-out
    card or confirmation raises, naming the move and the legal ones, and the state is left unchanged."""
    st = do(skip_claims(new(EXAMPLE)), 0, "7C 9C lead")  # player_1 owes 2 or beats 7C 9C
    before = (GAME.observe(st, 1).tobytes(), GAME.oracle(st).tobytes(), st.legal_actions())
    for bad, name in ((parse_card("AS"), "AS"), (A_PASS, "pass"), (A_PLAY, "beat")):
        with pytest.raises(IllegalActionError, match=rf"action {bad} \({name}\) is not legal for player_1; "
                                                     r"legal moves: .*=6C, .*=AC") as e:
            GAME.check_action(st, bad)
        assert e.value.action == bad
    assert (GAME.observe(st, 1).tobytes(), GAME.oracle(st).tobytes(), st.legal_actions()) == before
    assert GAME.check_action(st, parse_card("6C")) == parse_card("6C")


def test_render_hides_other_hands():
    st = skip_claims(new(EXAMPLE))
    text = GAME.render(st, viewer=1)
    assert "6C AC 7D 9H QH AS" in text and "7C 9C KC" not in text and "?? " in text
    assert "7C 9C KC 6D 8H JS" in GAME.render(st)


# ------------------------------------------------------------------ the same rules in every mode and hand size
ALL = {"pairs6": GAME, "pairs4": QUICK, "solo3": SOLO3, "solo2": SOLO2, "solo3q": SOLO3Q}


@pytest.mark.parametrize("cfg", list(ALL))
@pytest.mark.parametrize("pile0", ["", "JC", "AC TC KC QC AD TD KD QD", "AC TC KC QC AD TD KD QD AH TH KH QH AS TS"])
def test_c1_1_penalty_from_own_points_every_config(cfg, pile0):
    game = ALL[cfg]
    n = game.num_players
    hands = ["9S", "6C", "7C", "8C"][:n]  # seat 0 takes the last trick (0 points); the rest is forced
    st = endgame(hands, [pile0] + [""] * (game.num_sides - 2), game)
    res = st.last_result
    assert st.deals_played == 1 and sum(res["points"]) == 120
    if res["eggs"]:
        assert game.num_sides == 2 and res["points"] == [60, 60] and st.ledger.scores == [0, 0]
    else:
        for s in range(game.num_sides):
            assert st.ledger.scores[s] == penalty(res["points"][s], res["tricks"][s])


@pytest.mark.parametrize("cfg", ["pairs4", "solo3q"])
def test_c1_3_quick_beat_may_mix_suits(cfg):
    game = ALL[cfg]
    hands = ["6D 7C 8C 9H", "TC 9D 6H 7H", "JC 8D 6S 7S", "QC QH QS KS"][:game.num_players]
    st = skip_claims(game.new_state(0, {"hands": hands, "leader": 0}))
    do(st, 0, "7C 8C lead")
    assert st.current_player == 1 and {"TC", "9D"} <= set(game.legal_strings(st))
    do(st, 1, "TC 9D beat")  # TC on 8C (or 7C), the trump 9D on the other
    assert st.last_beater == 1 and st.top == parse_cards("TC 9D")


def test_c1_9_quick_refill_up_to_four_from_the_taker():
    hands = ["6D 7C 8C 9H", "6C 7H 7D TC", "9D KD AD KC", "JC 8D JD 8H"]
    used = 0
    for h in hands:
        used |= parse_cards(h)
    stock = cards_str(FULL_DECK & ~used)
    st = skip_claims(QUICK.new_state(0, {"hands": hands, "stock": stock}))
    do(st, 0, "7C 8C lead")
    do(st, 1, "6C 7H discard")
    do(st, 2, "9D KD beat")  # two trumps: 9D on 7C, KD on 8C
    do(st, 3, "JC 8H discard")
    # seat 2 took; seats draw one at a time from seat 2: 2, 3, 0, 1, 2, 3, 0, 1 (two each, back to four)
    order = [parse_card(c) for c in stock.split()[:8]]
    for i, c in enumerate(order):
        assert st.hands[(2 + i) % 4] >> c & 1
    assert [h.bit_count() for h in st.hands] == [4, 4, 4, 4]


def test_c1_11_solo_lowest_diamond_leads():
    st = SOLO3.new_state(0, {"hands": ["7C 9C KC 9D 8H JS", "6C AC 7D 9H QH AS", "8C TC 8D KD AD 7S"]})
    assert st.diamond_leader == 1 and st.claim_stop == 1


def test_c1_13_solo_claim_and_outbid():
    hands = ["6D 7C 8C 9H TH JS", "6S 7S 8S 9S QC KH", "7D 8D 9D JD QD AC"]
    st = SOLO3.new_state(0, {"hands": hands})
    assert st.leader == 0 and st.current_player == 1 and SOLO3.legal_strings(st) == ["pass", "claim"]
    do(st, 1, "claim 4")
    assert st.current_player == 2 and SOLO3.legal_strings(st) == ["pass", "claim"]
    do(st, 2, "claim 5")
    assert st.leader == 2 and st.phase == PH_LEAD and st.claims == [0, 4, 5]


def test_c1_13_solo_quick_claim_after_lead_returns_cards():
    hands = ["6D 7C 8C 9H", "6S 7S 8S 9S", "7D 8D 9D AC"]
    st = SOLO3Q.new_state(0, {"hands": hands})
    do(st, 1, "pass")
    assert st.current_player == 2 and SOLO3Q.legal_strings(st) == ["pass"]  # four cards: asked, no four of a suit
    do(st, 2, "pass")
    do(st, 0, "7C 8C lead")
    do(st, 1, "claim 4")
    assert st.hands[0] == parse_cards(hands[0]) and st.leader == 1 and st.phase == PH_LEAD
