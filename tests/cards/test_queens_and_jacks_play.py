"""``queens_and_jacks_v0`` engine under random play: invariants, clone, observation, determinization.

Rules sources as in test_queens_and_jacks_rules.py (seed 003, RULES C2).
"""
from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from kozel_env.cards.deck import POINTS, card_str, deck_mask
from kozel_env.cards.queens_and_jacks import FOLLOW, QueensAndJacksGame
from kozel_env.core.bits import bits
from kozel_env.core.rng import Rng, as_rng

CONFIGS = [
    {},
    {"trumps": "named"},
    {"deck": 32, "target": 6},
    {"trumps": "named", "deck": 32},
]


def random_action(st, rng):
    la = st.legal_actions()
    return la[rng.randrange(len(la))]


def play_match(game, seed, rng, setup=None, on_step=None):
    st = game.new_state(seed, setup)
    while not st.terminal:
        if on_step is not None:
            on_step(st)
        st.apply_action(random_action(st, rng))
    return st


@pytest.mark.parametrize("opts", CONFIGS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_fuzz_random_matches_keep_every_invariant(opts):
    """Every card accounted for, scores never decrease, eyes total 120 per hand (RULES C), tricks total
    the hand size, the match ends exactly when a side reaches the target (C2.6)."""
    game = QueensAndJacksGame(**opts)
    r = game.rules
    rng = random.Random(1)
    for seed in range(12):
        st = game.new_state(seed)
        prev_scores = st.scores[:]
        deals = 0
        while not st.terminal:
            st.check_invariants()
            assert 0 <= st.current_player < 4
            assert st.legal_actions() == bits(st.legal_mask())
            obs = game.observe(st, st.current_player)
            assert obs.shape == (game.obs_spec.size,) and obs.dtype == np.float32
            assert (obs >= 0).all() and (obs <= game.obs_spec.high).all()
            st.apply_action(random_action(st, rng))
            if st.deals_played != deals:
                deals = st.deals_played
                res = st.last_result
                assert sum(res["eyes"]) == 120 and sum(res["tricks"]) == r.hand_size
                assert all(a >= b for a, b in zip(st.scores, prev_scores))
                gained = [a - b for a, b in zip(st.scores, prev_scores)]
                assert gained == res["written"]
                if res["how"] == "eggs":
                    assert gained == [0, 0] and res["next_multiplier"] == 2 * res["multiplier"]
                else:
                    assert max(gained) == res["raw"] * res["multiplier"] and min(gained) == 0
                    assert res["next_multiplier"] == 1
                assert res["seat_points"] == [res["written"][s % 2] for s in range(4)]
                prev_scores = st.scores[:]
                assert st.terminal == (max(st.scores) >= r.target)
        st.check_invariants()
        mr = st.match_result
        assert len(mr["winners"]) == 1 and mr["losers"] == mr["goats"] == [1 - mr["winners"][0]]
        w = mr["winners"][0]
        assert st.scores[w] >= r.target and st.scores[1 - w] < r.target
        assert st.returns() == [1 if s % 2 == w else -1 for s in range(4)]
        assert mr["deals"] == st.deals_played and st.current_player == -1 and st.legal_actions() == []


def test_same_seed_same_match():
    game = QueensAndJacksGame(trumps="named")
    a = play_match(game, 42, random.Random(3))
    b = play_match(game, 42, random.Random(3))
    assert a.match_result == b.match_result and a.last_result == b.last_result


def test_clone_is_independent_and_replays_identically():
    game = QueensAndJacksGame(trumps="named")
    rng = random.Random(7)
    st = game.new_state(5)
    for _ in range(13):
        st.apply_action(random_action(st, rng))
    obs = [game.observe(st, p) for p in range(4)]
    snapshot = (st.hands[:], st.played[:], st.trick[:], st.eyes[:], st.tricks[:], st.voids[:], st.scores[:],
                st.current_player, st.rng.s)
    c = st.clone()
    c2 = st.clone()
    moves = []
    while not c.terminal:  # to the end of the match, through new deals (the clone's own Rng)
        a = random_action(c, rng)
        moves.append(a)
        c.apply_action(a)
    assert (st.hands[:], st.played[:], st.trick[:], st.eyes[:], st.tricks[:], st.voids[:], st.scores[:],
            st.current_player, st.rng.s) == snapshot
    assert all((game.observe(st, p) == obs[p]).all() for p in range(4))
    for a in moves:  # the same moves on another clone give the same match (the Rng was copied)
        c2.apply_action(a)
    assert c2.match_result == c.match_result


def test_observation_is_relative_to_the_observer():
    """Seat offsets: 0 self, 1 next clockwise, 2 partner, 3 the other opponent; side 0 = own pair."""
    game = QueensAndJacksGame()
    st = game.new_state(9, {"dealer": 0, "scores": [3, 7]})
    leader = st.current_player  # seat 1
    first = st.legal_actions()[0]
    st.apply_action(first)
    for p in range(4):
        v = game.obs_spec.view(game.observe(st, p))
        off = (leader - p) % 4
        assert v["trick"][off, first] == 1 and v["trick"].sum() == 1
        assert v["played"][off, first] == 1 and v["played"].sum() == 1
        assert v["dealer"].tolist() == [1.0 if k == (0 - p) % 4 else 0.0 for k in range(4)]
        assert v["leader"][off] == 1
        assert v["hand"].sum() == st.hands[p].bit_count()
        assert v["hand"][bits(st.hands[p])].all()
        own, other = (3, 7) if p % 2 == 0 else (7, 3)
        assert v["score"].tolist() == pytest.approx([own / 12, other / 12])
        assert v["trump"].tolist() == [1, 0, 0, 0] and v["rules"].tolist() == [0, 0, 0]


def test_observation_shows_eyes_and_tricks_per_side():
    game = QueensAndJacksGame()
    rng = random.Random(2)
    st = game.new_state(1)
    while st.tricks == [0, 0]:
        st.apply_action(random_action(st, rng))
    for p in range(4):
        v = game.obs_spec.view(game.observe(st, p))
        assert v["eyes"].tolist() == pytest.approx([st.eyes[p % 2] / 120, st.eyes[1 - p % 2] / 120])
        assert v["tricks"].tolist() == pytest.approx([st.tricks[p % 2] / 9, st.tricks[1 - p % 2] / 9])


def test_observation_hides_the_other_hands():
    """Two deals that differ only in the other hands look the same to the observer."""
    game = QueensAndJacksGame()
    a = game.new_state(0, {"dealer": 3, "hands": ["QC JC AC TC KC 9C 8C 7C 6C", None, None, None]})
    b = game.new_state(1, {"dealer": 3, "hands": ["QC JC AC TC KC 9C 8C 7C 6C", None, None, None]})
    assert a.hands[1:] != b.hands[1:]
    assert (game.observe(a, 0) == game.observe(b, 0)).all()
    assert not (game.observe(a, 1) == game.observe(b, 1)).all()


def test_oracle_shows_every_hand_and_the_seat_to_move():
    game = QueensAndJacksGame()
    st = game.new_state(4, {"dealer": 1})
    v = game.oracle_spec.view(game.oracle(st))
    for s in range(4):
        assert v["hands"][s][bits(st.hands[s])].all() and v["hands"][s].sum() == 9
    assert v["to_move"].tolist() == [0, 0, 1, 0]
    assert game.oracle(st).shape == (game.oracle_spec.size,)


@pytest.mark.parametrize("opts", CONFIGS[:2])
def test_sample_consistent_keeps_the_players_observation(opts):
    """Determinization: the re-dealt state gives the player exactly the same observation, respects the
    voids shown (trumps one suit), keeps the played cards, and stays a valid state."""
    game = QueensAndJacksGame(**opts)
    rng = random.Random(11)
    srng = Rng(5)
    checked = 0
    for seed in range(6):
        st = game.new_state(seed, {"single_deal": True})
        while not st.terminal:
            for p in range(4):
                new = game.sample_consistent(st, p, srng)
                new.check_invariants()
                assert (game.observe(new, p) == game.observe(st, p)).all()
                assert new.hands[p] == st.hands[p] and new.played == st.played
                if st.trump >= 0:
                    for s in range(4):
                        for es in range(4):
                            if st.voids[s] >> es & 1:
                                assert not new.hands[s] & FOLLOW[st.trump][es]
                checked += 1
            st.apply_action(random_action(st, rng))
    assert checked > 500


def test_sample_consistent_changes_the_hidden_hands():
    game = QueensAndJacksGame()
    st = game.new_state(3)
    seen = {tuple(game.sample_consistent(st, 0, Rng(k)).hands) for k in range(20)}
    assert len(seen) > 15
    for rng in (7, np.random.default_rng(0), random.Random(0)):
        assert game.sample_consistent(st, 0, as_rng(rng)).hands[0] == st.hands[0]


def test_sample_consistent_is_uniform_over_consistent_deals():
    """Late in a hand (two cards each), enumerate every deal of the unknown cards that fits the player's
    view (hand sizes and voids) and compare with the sampler's frequencies."""
    game = QueensAndJacksGame()
    rng = random.Random(0)
    for seed in range(200):  # find a position with at least one void among the others
        st = game.new_state(seed, {"single_deal": True, "dealer": 3})
        while not st.terminal and st.hands[0].bit_count() > 2:
            st.apply_action(random_action(st, rng))
        if st.cards_in_trick == 0 and st.current_player == 0 and any(st.voids[1:]):
            break
    else:
        pytest.fail("no position with a void found")
    others = [1, 2, 3]
    unknown = bits(st.hands[1] | st.hands[2] | st.hands[3])
    sizes = [st.hands[s].bit_count() for s in others]
    consistent = []
    for perm in itertools.permutations(unknown):
        hs, i = [], 0
        for n in sizes:
            hs.append(frozenset(perm[i:i + n]))
            i += n
        ok = all(not any((st.voids[s] >> es & 1) and (FOLLOW[st.trump][es] >> c & 1) for es in range(4) for c in h)
                 for s, h in zip(others, hs))
        if ok:
            consistent.append(tuple(hs))
    consistent = sorted(set(consistent), key=str)
    assert 1 < len(consistent) < 90  # the void removed some deals
    counts = dict.fromkeys(consistent, 0)
    srng = Rng(1)
    n = 200 * len(consistent)
    for _ in range(n):
        new = game.sample_consistent(st, 0, srng)
        key = tuple(frozenset(bits(new.hands[s])) for s in others)
        counts[key] += 1  # KeyError: an inconsistent deal
    expected = n / len(consistent)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < len(consistent) + 6 * (2 * len(consistent)) ** 0.5, (chi2, len(consistent))


def test_every_card_played_once_per_hand_and_eyes_sum():
    game = QueensAndJacksGame(deck=32)
    rng = random.Random(4)
    st = game.new_state(8, {"single_deal": True})
    while not st.terminal:
        st.apply_action(random_action(st, rng))
    union = 0
    for m in st.played:
        assert not union & m
        union |= m
    assert union == deck_mask(32) and sum(POINTS[c] for c in bits(union)) == 120
    assert all(m.bit_count() == 8 for m in st.played)
    assert card_str(bits(union)[0]) == "7C"
