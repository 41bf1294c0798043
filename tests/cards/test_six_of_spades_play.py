"""``six_of_spades_v0`` under random play: invariants, clone, determinism, the action design, the
observation layout (against an independent reference builder) and hidden information (sample_consistent).

Sources as in ``test_six_of_spades_rules.py`` (seed 004, RULES C3).
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from kozel_env.cards.deck import FULL_DECK, parse_card, parse_cards
from kozel_env.cards.six_of_spades import (
    A_BEAT,
    A_DOWN,
    A_LEAD,
    A_MOLODKA,
    A_PASS,
    MOLODKA,
    PH_ANSWER,
    PH_CALL,
    PH_LEAD,
    SIX_S,
    SixOfSpadesGame,
    call_kind,
    covers,
)
from kozel_env.core.bits import bits
from kozel_env.core.rng import Rng, as_rng
from tests.reference.six_of_spades import build

CONFIGS = [
    {},
    {"num_players": 3},
    {"num_players": 2},
    {"num_players": 4, "calls": "auto", "may_decline_beat": False, "refill": "round_robin"},
    {"num_players": 3, "calls": "off", "max_deals": 3},
]
IDS = ["pairs", "three", "two", "pairs-auto-forced-rr", "three-off-short"]


def C(text):
    return parse_cards(text)


def parse_cards_str(m):
    from kozel_env.cards.deck import card_str
    return [card_str(c) for c in bits(m)]


def moves(game, st, text):
    """Apply moves in notation, skipping cards the engine has already chosen for the seat (forced)."""
    for m in text.split():
        if m not in ("lead", "beat", "down", "pass", "moskva", "molodka") and st.selected >> parse_card(m) & 1:
            continue
        st.apply_action(game.string_to_action(st, m))


def play_random(game, seed, on_state=None, setup=None):
    """A whole match at random; ``on_state(st)`` before every decision. Returns the final state."""
    rnd = random.Random(seed)
    st = game.new_state(seed, setup)
    while not st.terminal:
        if on_state is not None:
            on_state(st)
        acts = st.legal_actions()
        st.apply_action(acts[rnd.randrange(len(acts))])
    return st


def expected_penalties(rules, pts, tricks, playing):
    """C3.6 written out again, independently of the engine."""
    most = max(pts[sd] for sd in playing)
    tied = [sd for sd in playing if pts[sd] == most]
    line = rules.line_three if len(playing) == 3 else rules.line
    out = {}
    for sd in playing:
        if sd in tied:
            out[sd] = 0 if len(tied) == 1 else 2
        elif tricks[sd] == 0:
            out[sd] = 6
        else:
            out[sd] = 2 if pts[sd] >= line else 4
    return out


# ------------------------------------------------------------------ fuzz: invariants and scoring
@pytest.mark.parametrize("opts", CONFIGS, ids=IDS)
def test_fuzz_invariants_scores_and_match_end(opts):
    game = SixOfSpadesGame(**opts)
    r = game.rules
    for seed in range(6):
        rnd = random.Random(seed)
        st = game.new_state(seed)
        prev_scores = st.ledger.scores[:]
        prev_in = st.in_match[:]
        deals = 0
        while not st.terminal:
            st.check_invariants()
            acts = st.legal_actions()
            # a real choice, except a call question (C3.5): every holder is asked, one without a call may
            # only pass, so that being asked says nothing
            assert len(acts) >= 2 or (st.phase == PH_CALL and acts == [A_PASS]), \
                "the seat to move must have a real choice"
            st.apply_action(acts[rnd.randrange(len(acts))])
            assert all(a >= b for a, b in zip(st.ledger.scores, prev_scores)), "scores never fall"
            if st.deals_played != deals:
                assert st.deals_played == deals + 1
                res = st.last_result
                playing = [sd for sd in range(r.num_sides) if prev_in[sd]]
                assert sum(res["points"]) == 120, "every card is taken by a side playing the deal"
                exp = expected_penalties(r, res["points"], res["tricks"], playing)
                assert {sd: res["written"][sd] for sd in playing} == exp
                assert [a - b for a, b in zip(st.ledger.scores, prev_scores)] == res["written"]
                # C3.7: who goes out
                sc = st.ledger.scores
                reached = [sd for sd in playing if sc[sd] >= r.target]
                if reached and len(reached) < len(playing):
                    assert sorted(res["out"]) == sorted(reached)
                elif reached:
                    hi = max(sc[sd] for sd in playing)
                    assert all(sc[sd] == hi for sd in res["out"]) and len(res["out"]) < len(playing)
                else:
                    assert res["out"] == []
                deals = st.deals_played
                prev_in = st.in_match[:]
            prev_scores = st.ledger.scores[:]
        st.check_invariants()
        mr = st.match_result
        left = [sd for sd in range(r.num_sides) if st.in_match[sd]]
        if mr["ended_by"] == "last_side_left":
            assert len(left) == 1 and mr["winners"] == left
        else:
            assert mr["ended_by"] == "deal_limit" and st.deals_played == r.max_deals and len(left) >= 2
            best = min(st.ledger.scores[sd] for sd in left)
            first = [sd for sd in left if st.ledger.scores[sd] == best]
            assert [sd for sd in range(r.num_sides) if mr["places"][sd] == 1] == first
            # winners are the sides with return +1: nobody when every side shares the first place
            assert mr["winners"] == ([] if len(first) == r.num_sides else first)
        assert mr["goats"] == [] and mr["titles"] == []  # seed 004 / RULES C3 name no goats
        assert set(st.returns()) <= {-1.0, 0.0, 1.0}
        assert sum(1 for x in st.returns() if x > 0) >= 1 or all(x == 0 for x in st.returns())


@pytest.mark.parametrize("opts", CONFIGS[:3], ids=IDS[:3])
def test_fuzz_single_deal_ends_after_one_deal(opts):
    game = SixOfSpadesGame(**opts)
    for seed in range(10):
        st = play_random(game, seed, setup={"single_deal": True})
        assert st.deals_played == 1 and st.terminal and st.current_player == -1
        assert not st.legal_actions()


# ------------------------------------------------------------------ clone and determinism
def test_clone_is_independent_and_replays_identically():
    game = SixOfSpadesGame()
    rnd = random.Random(3)
    st = game.new_state(3)
    steps = 0
    while not st.terminal and steps < 300:
        c = st.clone()
        before = game.oracle(st).tobytes(), st.legal_actions(), st.ledger.scores[:]
        acts = c.legal_actions()
        c.apply_action(acts[-1])
        while not c.terminal and rnd.random() < 0.7:
            c.apply_action(c.legal_actions()[0])
        assert (game.oracle(st).tobytes(), st.legal_actions(), st.ledger.scores) == before
        a = st.legal_actions()[rnd.randrange(len(st.legal_actions()))]
        c1, c2 = st.clone(), st.clone()
        c1.apply_action(a)
        c2.apply_action(a)
        assert game.oracle(c1).tobytes() == game.oracle(c2).tobytes()
        assert c1.rng.s == c2.rng.s
        st.apply_action(a)
        steps += 1


def test_same_seed_same_match():
    game = SixOfSpadesGame(num_players=3)
    a = play_random(game, 42)
    b = play_random(game, 42)
    assert a.match_result == b.match_result and game.oracle(a).tobytes() == game.oracle(b).tobytes()
    c = play_random(game, 43)
    assert game.oracle(a).tobytes() != game.oracle(c).tobytes()


# ------------------------------------------------------------------ the action design
def _reachable(st):
    """All sets the seat to move can lay, with the confirmation used: {(set, action): paths}."""
    out = {}

    def go(s):
        acts = s.legal_actions()
        assert acts, "the mask offered a card that cannot complete a legal set"
        for a in acts:
            if a >= 36:
                out[(s.selected, a)] = out.get((s.selected, a), 0) + 1
            else:
                c = s.clone()
                c._do(a)
                c.legal_mask = c.compute_legal()
                go(c)

    s = st.clone()
    s.selected = 0
    s.legal_mask = s.compute_legal()
    go(s)
    return out


def _brute_sets(st):
    """Every legal (set, confirmation) of the seat to move, from the rules directly (C3.3-C3.4)."""
    hand = st.hands[st.current_player]
    subs = []
    s = hand
    while s:
        subs.append(s)
        s = (s - 1) & hand
    want = set()
    if st.phase == PH_LEAD:
        for u in subs:
            v = u & ~(1 << SIX_S)
            if u.bit_count() <= st.lead_cap and (not v or len({c // 9 for c in bits(v)}) == 1):
                want.add((u, A_LEAD))
    else:
        ks = [u for u in subs if u.bit_count() == st.lead_size]
        can_beat = any(covers(u, st.top_cards, st.trump_suit) for u in ks)
        for u in ks:
            b = covers(u, st.top_cards, st.trump_suit)
            if b:
                want.add((u, A_BEAT))
            if st.rules.may_decline_beat or not can_beat:
                want.add((u, A_DOWN))
    return want


@pytest.mark.parametrize("opts", [{}, {"may_decline_beat": False}, {"num_players": 2}], ids=["free", "forced", "two"])
def test_every_legal_set_is_reachable_exactly_once_and_nothing_else(opts):
    game = SixOfSpadesGame(**opts)
    checked = [0]

    def check(st):
        if st.phase in (PH_LEAD, PH_ANSWER) and st.selected == 0:
            got = _reachable(st)
            assert set(got) == _brute_sets(st)
            assert all(v == 1 for v in got.values()), "a set reached by two paths"
            checked[0] += 1

    for seed in range(4):
        play_random(game, seed, on_state=check)
    assert checked[0] > 100


# ------------------------------------------------------------------ observation layout
def reference_observation(game, st, p):
    """The observation written part by part from the parts' docs (slow, independent): the one reference
    builder, ``tests/reference/six_of_spades.py``."""
    return game.obs_spec.flatten(build(game, st, p))


@pytest.mark.parametrize("opts", CONFIGS, ids=IDS)
def test_observation_matches_the_reference_builder(opts):
    game = SixOfSpadesGame(**opts)
    count = [0]

    def check(st):
        for p in range(game.num_players):
            got = game.observe(st, p)
            assert got.dtype == np.float32 and got.shape == (game.obs_spec.size,)
            want = reference_observation(game, st, p)
            if not np.array_equal(got, want):
                bad = [k for k, v in game.obs_spec.view(got).items()
                       if not np.array_equal(v, game.obs_spec.view(want)[k])]
                raise AssertionError(f"observation parts differ for seat {p}: {bad}")
        count[0] += 1

    st = play_random(game, 5, on_state=check)
    check(st)
    assert count[0] > 50
    assert game.oracle(st).shape == (game.oracle_spec.size,)


def test_observation_of_a_seat_that_is_out_matches_the_reference():
    game = SixOfSpadesGame(num_players=3)
    checked = [0]

    def check(st):
        want = reference_observation(game, st, 2)
        assert np.array_equal(game.observe(st, 2), want)
        checked[0] += 1

    st = play_random(game, 2, on_state=check, setup={"out": [2], "scores": [0, 0, 14], "single_deal": True})
    check(st)
    v = game.obs_spec.view(game.observe(st, 2))
    assert v["in_deal"][0] == 0 and v["sides_in"][0] == 0 and checked[0] > 5
    # 33 cards taken that seat 2 never saw: the thermometer is capped and spills into no other part
    hands = ["7H 8H", "6C", ""]
    st = game.new_state(0, {"out": [2], "scores": [0, 0, 14], "hands": hands, "trump_card": "9D",
                            "taken": [" ".join(sorted(set(
                                parse_cards_str(FULL_DECK & ~C("7H 8H 6C"))))), "", ""], "leader": 0})
    st.taken_face_up[0] = 0  # as if every one of them had been laid face down
    assert np.array_equal(game.observe(st, 2), reference_observation(game, st, 2))
    assert game.obs_spec.view(game.observe(st, 2))["taken_unseen"][(0 - 2) % 3].sum() == 32


def test_observation_spec_is_binary_and_names_every_part():
    game = SixOfSpadesGame()
    assert all(p.high == 1 for p in game.obs_spec.parts)
    md = game.obs_spec.markdown()
    for name in ("hand", "selected", "round_down", "taken_known", "offer", "calls", "trump_card_at"):
        assert f"`{name}`" in md


# ------------------------------------------------------------------ hidden information
@pytest.mark.parametrize("opts", CONFIGS[:4], ids=IDS[:4])
def test_leak_sample_consistent_keeps_the_observation_and_moves_face_down_cards(opts):
    """Re-deal what each player cannot see: its observation must not change; other players' face-down
    cards (and hands, stock) really move; own cards and face-down cards stay; the drawn trump card stays
    with its drawer; a call made before the lead stays in its caller's hand; the sample plays on."""
    game = SixOfSpadesGame(**opts)
    rng = Rng(7)
    moved_down = [0]
    tries = [0]

    def check(st):
        for p in range(game.num_players):
            mine = game.observe(st, p)
            for _ in range(2):
                other = game.sample_consistent(st, p, rng)
                other.check_invariants()
                assert np.array_equal(game.observe(other, p), mine), f"seat {p}'s observation leaks"
                assert other.hands[p] == st.hands[p] and other.laid_down[p] == st.laid_down[p]
                for o in st.seats_in_deal:
                    if o != p and st.laid_down[o]:
                        tries[0] += 1
                        if other.laid_down[o] != st.laid_down[o]:
                            moved_down[0] += 1
                tb = st.trump_drawn_by
                seen = st.hands[p] | st.laid_down[p] | sum(st.taken_face_up) | sum(st.round_up)
                known_tc = seen >> st.trump_card & 1
                if tb >= 0 and tb != p and not known_tc:
                    assert (other.hands[tb] | other.down_after_trump) >> st.trump_card & 1
                if st.phase == PH_CALL:  # a call made before this lead is public: the caller holds it
                    for s, kind in st.calls_made:
                        assert call_kind(other.hands[s]) == kind
        if rng.below(20) == 0:  # a determinized state plays on to the end
            other = game.sample_consistent(st, st.current_player, rng)
            rnd = random.Random(1)
            k = 0
            while not other.terminal and k < 60:
                acts = other.legal_actions()
                other.apply_action(acts[rnd.randrange(len(acts))])
                k += 1

    play_random(game, 11, on_state=check)
    assert tries[0] and moved_down[0] > tries[0] // 4, "face-down cards of others were never re-dealt"


def _molodka_at_seat_2():
    game = SixOfSpadesGame()
    hands = ["7H 9H KC 8S", "8H TH JC 7C", "7D 8D JD QD", "AD JH 9C 6C"]
    st = game.new_state(0, {"hands": hands, "trump_card": "9S", "leader": 0})
    st.apply_action(A_PASS)
    st.apply_action(A_PASS)
    return game, st


def test_leak_being_asked_for_a_call_and_passing_say_nothing():
    """C3.5 with calls="offer": every holder is asked, so neither the question nor a pass tells the others
    whether the seat holds a call -- the samples do not give seat 2 its Molodka."""
    game, st = _molodka_at_seat_2()
    rng = Rng(1)
    assert st.phase == PH_CALL and st.current_player == 2 and call_kind(st.hands[2]) == MOLODKA
    for p in (0, 1, 3):  # while seat 2 is asked
        kinds = set()
        for _ in range(20):
            o = game.sample_consistent(st, p, rng)
            kinds.add(call_kind(o.hands[2]))
            assert o.current_player == 2 and np.array_equal(game.observe(o, p), game.observe(st, p))
        assert -1 in kinds
    st.apply_action(A_PASS)
    st.apply_action(A_PASS)  # seat 3 passes too: the scheduled leader leads
    assert st.phase == PH_LEAD and st.current_player == 0
    kinds = set()
    for _ in range(40):
        o = game.sample_consistent(st, 0, rng)
        assert np.array_equal(game.observe(o, 0), game.observe(st, 0)) and o.call_order == st.call_order
        kinds.add(call_kind(o.hands[2]))
    assert -1 in kinds, "a refusal was treated as proof of a call"


def test_leak_a_standing_call_stays_with_its_caller():
    game, st = _molodka_at_seat_2()
    st.apply_action(A_MOLODKA)  # public: seat 3 is asked next (only a Moskva may beat it)
    assert st.phase == PH_CALL and st.current_player == 3 and st.calls_made == ((2, MOLODKA),)
    rng = Rng(3)
    seen = set()
    for p in (0, 1, 3):
        for _ in range(20):
            o = game.sample_consistent(st, p, rng)
            o.check_invariants()
            assert call_kind(o.hands[2]) == MOLODKA
            assert np.array_equal(game.observe(o, p), game.observe(st, p))
            seen.add(o.hands[2])
    assert len(seen) > 5, "the called four is re-dealt, not copied"


def test_leak_a_seat_to_move_keeps_a_real_choice_in_every_sample():
    """Seat 3 must answer a Moskva with its whole hand and is asked beat-or-down: everyone can see it was
    not skipped, so every determinization gives it a hand that beats the four (constructive proposal)."""
    from kozel_env.cards.six_of_spades import A_MOSKVA
    game = SixOfSpadesGame()
    st = game.new_state(0, {"hands": ["7H 9H KC 8S", "AS TH AC TD", "6H QC 8H 7S", "AD KD QD JD"],
                            "trump_card": "9D", "leader": 0})
    st.apply_action(A_PASS)  # the scheduled leader is asked first
    st.apply_action(A_MOSKVA)
    assert st.current_player == 3 and game.legal_strings(st) == ["beat", "down"]
    rng = Rng(2)
    for p in (0, 1, 2):
        for _ in range(3):
            o = game.sample_consistent(st, p, rng)
            o.check_invariants()
            assert covers(o.hands[3], st.top_cards, st.trump_suit) and o.selected == o.hands[3]
            assert np.array_equal(game.observe(o, p), game.observe(st, p))


def test_leak_face_down_cards_known_to_their_owner_only():
    game = SixOfSpadesGame()
    st = game.new_state(0, {"hands": ["7H 9H KC 8S", "8H TH JC 7C", "6H QC AS 7S", "AD JH 9C 6C"],
                            "trump_card": "9D", "leader": 0})
    moves(game, st, "pass pass pass pass 7H 9H 8H TH beat QC AS")  # nobody holds a call: four passes
    assert st.round_down[2] == C("QC AS") and st.current_player == 3
    rng = Rng(5)
    elsewhere = 0
    for p in (0, 1, 3):
        for _ in range(30):
            o = game.sample_consistent(st, p, rng)
            assert np.array_equal(game.observe(o, p), game.observe(st, p))
            assert o.round_down[2].bit_count() == 2
            elsewhere += o.round_down[2] != C("QC AS")
    assert elsewhere > 60
    o = game.sample_consistent(st, 2, rng)
    assert o.round_down[2] == C("QC AS")
    # the taker does not learn them either
    moves(game, st, "AD JH beat")
    assert st.last_taker == 3
    v3 = game.obs_spec.view(game.observe(st, 3))
    assert v3["taken_known"][0][parse_card("QC")] == 0 and v3["taken_unseen"][0][1] == 1
    v2 = game.obs_spec.view(game.observe(st, 2))
    assert v2["taken_known"][1][parse_card("QC")] == 1 and v2["taken_unseen"][1].sum() == 0


def test_render_hides_other_hands_and_face_down_cards():
    game = SixOfSpadesGame()
    st = game.new_state(0, {"hands": ["7H 9H KC 8S", "8H TH JC 7C", "6H QC AS 7S", "AD JH 9C 6C"],
                            "trump_card": "9D", "leader": 0})
    moves(game, st, "pass pass pass pass 7H 9H 8H TH beat QC AS")  # nobody holds a call: four passes
    full = game.render(st)
    assert "QC AS" in full and "player_3" in full and "legal:" in full
    v0 = game.render(st, viewer=0)
    assert "AD" not in v0 and "QC" not in v0 and "2 cards" in v0 and "KC" in v0
    v2 = game.render(st, viewer=2)
    assert "QC AS" in v2


def test_sample_consistent_accepts_other_rng_kinds_and_keeps_the_original():
    game = SixOfSpadesGame()
    st = game.new_state(9)
    before = game.oracle(st).tobytes()
    for rng in (3, np.random.default_rng(0), random.Random(0), Rng(4)):
        game.sample_consistent(st, 0, as_rng(rng))  # callers convert once (kozel_env.core.rng.as_rng)
    assert game.oracle(st).tobytes() == before
