"""``beat_or_discard_v0`` under play: the action design (every legal set reachable and nothing else), random
fuzzing with invariants, clones, determinism, and hidden information (the observation and
``sample_consistent``), in both hand sizes and both modes. Rules sources as in
``test_beat_or_discard_rules.py`` (seed 002, RULES C1).
"""
from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from kozel_env.cards.beat_or_discard import (
    A_CLAIM,
    A_DOWN,
    A_PASS,
    A_PLAY,
    PH_ANSWER,
    PH_CLAIM,
    PH_EQUALISE,
    PH_LEAD,
    PH_REBEAT,
    BeatOrDiscardGame,
    longest_suit,
    lowest_diamond_seat,
)
from kozel_env.cards.deck import DIAMONDS, FULL_DECK, SUIT_MASK, parse_card, parse_cards
from kozel_env.core.bits import bits
from kozel_env.core.rng import Rng, as_rng

from .test_beat_or_discard_rules import CLAIM_HANDS, EXAMPLE, NO_CLAIM3, do, endgame, new, rule_beats, skip_claims

CONFIGS = {
    "pairs6": {},
    "pairs4": {"hand_size": 4},
    "solo3": {"mode": "solo", "num_players": 3},
    "solo2q": {"mode": "solo", "num_players": 2, "hand_size": 4},
    "solo4": {"mode": "solo", "num_players": 4},
}
GAMES = {k: BeatOrDiscardGame(**v) for k, v in CONFIGS.items()}
IDS = list(CONFIGS)


def positions(game, seed: int, limit: int):
    """States at decisions of random play (clones), several matches long."""
    rnd = random.Random(seed)
    out = []
    s = seed
    while len(out) < limit:
        st = game.new_state(s)
        s += 1000
        while not st.terminal and len(out) < limit:
            out.append(st.clone())
            la = st.legal_actions()
            st.apply_action(la[rnd.randrange(len(la))])
    return out


# ------------------------------------------------------------------ the action design
def _reachable(st):
    """Every confirmed set reachable by picks from ``st`` (no forced play), and no dead end."""
    found = {A_PLAY: set(), A_DOWN: set()}

    def rec(s):
        m = s.legal_mask()
        assert m, "a pick led to a dead end"
        for a in range(36):
            if m >> a & 1:
                assert a > (s.picked.bit_length() - 1), "picks go in increasing card id"
                c = s.clone()
                c._apply(a)
                rec(c)
        for a in (A_PLAY, A_DOWN):
            if m >> a & 1:
                found[a].add(s.picked)

    rec(st)
    return found


def _subsets(h: int, k: int):
    return {sum(1 << c for c in comb) for comb in itertools.combinations(bits(h), k)}


def _brute_beats(h: int, top: int, trump: int):
    tl = bits(top)
    out = set()
    for m in itertools.combinations(bits(h), len(tl)):
        if any(all(rule_beats(a, b, trump) for a, b in zip(p, tl)) for p in itertools.permutations(m)):
            out.add(sum(1 << c for c in m))
    return out


def _expected(st):
    """The legal move sets by brute force from the rules (C1.3-C1.8, C1.15, seed "The leader puts down
    1 to 6 cards of one suit")."""
    p = st.current_player
    h = st.hands[p]
    ph = st.phase
    play, down = set(), set()
    if ph == PH_LEAD:
        lim = st.lead_limit()
        for s in range(4):
            hs = h & SUIT_MASK[s]
            for k in range(1, min(lim, hs.bit_count()) + 1):
                play |= _subsets(hs, k)
    elif ph in (PH_ANSWER, PH_REBEAT):
        if not st.locked >> p & 1:
            play = _brute_beats(h, st.top, st.trump)
        if ph == PH_ANSWER:
            k = st.lead.bit_count() if st.quick else h.bit_count() - st.hands[st.last_beater].bit_count()
            if k > 0:
                down = _subsets(h, k)
    elif ph == PH_EQUALISE:
        down = _subsets(h, h.bit_count() - min(st.hands[q].bit_count() for q in st.active_seats()))
    return play, down


@pytest.mark.parametrize("cfg", IDS)
def test_every_legal_set_is_reachable_and_nothing_else(cfg):
    game = GAMES[cfg]
    checked = 0
    for st in positions(game, 17, 260):
        if st.picked or st.phase == PH_CLAIM:
            continue
        play, down = _expected(st)
        got = _reachable(st)
        assert got[A_PLAY] == play, (game.render(st), sorted(got[A_PLAY]), sorted(play))
        assert got[A_DOWN] == down
        m = st.legal_mask()
        # pass: with nothing owed (C1.5), "done" for the last beater (C1.7), never in the quick game's answers
        owes = bool(down)
        assert bool(m >> A_PASS & 1) == ((st.phase == PH_ANSWER and not owes and not st.quick)
                                         or st.phase == PH_REBEAT)
        assert bool(m >> A_CLAIM & 1) == (st.phase == PH_ANSWER and st.claimable(st.current_player))
        checked += 1
    assert checked > 100


def test_claim_phase_offers_exactly_claim_or_pass():
    st = new(CLAIM_HANDS)
    assert st.phase == PH_CLAIM and st.legal_actions() == [A_PASS, A_CLAIM]


def test_forced_steps_are_played_automatically_except_claim_questions_the_table_sees():
    """A single legal action is played by itself, except a claim question (C1.13) that public counts
    allow: that seat is asked even when it can only pass, so being asked tells the table nothing."""
    single = 0
    for cfg in IDS:
        for st in positions(GAMES[cfg], 3, 150):
            if not st.terminal:
                m = st.legal_mask()
                if not m & (m - 1):
                    single += 1
                    assert st.public_ask() and m == 1 << A_PASS, "a forced step was not played by itself"
                    assert st.phase == PH_CLAIM or (st.phase == PH_ANSWER
                                                    and st.claim_possible(st.current_player))
                    assert not st.claimable(st.current_player)
    assert single > 0  # such questions do occur in random play


# ------------------------------------------------------------------ fuzzing and invariants
@pytest.mark.parametrize("cfg", IDS)
def test_random_play_keeps_invariants_and_ends_when_the_rules_say(cfg):
    game = GAMES[cfg]
    r = game.rules
    for seed in range(3):
        rnd = random.Random(seed)
        st = game.new_state(seed)
        prev_scores = st.ledger.scores[:]
        deals = 0
        steps = 0
        while not st.terminal:
            st.check_invariants()
            la = st.legal_actions()
            st.apply_action(la[rnd.randrange(len(la))])
            steps += 1
            if r.quick:  # C1.15: diamonds always, the bottom card never shown
                assert st.trump == DIAMONDS and st.revealed == -1
            elif st.revealed >= 0 and not st.terminal:  # C1.10: shown only once drawn, its suit is trump
                assert st.stock == 0 and st.trump == st.revealed // 9
            assert all(a >= b for a, b in zip(st.ledger.scores, prev_scores)), "a score went down"
            prev_scores = st.ledger.scores[:]
            if st.deals_played != deals:
                deals = st.deals_played
                res = st.last_result
                if "points" in res:
                    assert sum(res["points"]) == 120  # every card's points went to some side (C)
        st.check_invariants()
        mr = st.match_result
        assert steps > 20 and mr is not None and st.current_player == -1
        sc = st.ledger.scores
        if r.pairs:  # C1.17 (or C1.14): the goats' side at 12 or more, the winners' below (sides: pairs)
            assert mr["ended_by"] in ("target", "four_aces", "four_sixes")
            assert all(sc[s] >= 12 for s in mr["goats"]) and all(sc[s] < 12 for s in mr["winners"])
            assert len(mr["winners"]) == 1 and mr["goats"] == [1 - mr["winners"][0]]
        else:  # C1.16: everyone but the winner is out
            (w,) = mr["winners"]
            assert all(sc[q] >= 12 for q in range(r.num_players) if q != w)
        side = game.side_of
        assert st.returns() == [1.0 if side(q) in mr["winners"] else -1.0 if side(q) in mr["goats"] else 0.0
                                for q in range(r.num_players)]


def test_single_deal_ends_after_one_game():
    for cfg in IDS:
        st = GAMES[cfg].new_state(9, {"single_deal": True})
        rnd = random.Random(9)
        while not st.terminal:
            la = st.legal_actions()
            st.apply_action(la[rnd.randrange(len(la))])
        assert st.deals_played == 1 and st.match_result is not None


def test_clone_is_independent_and_replays_identically():
    game = GAMES["pairs6"]
    rnd = random.Random(4)
    for st in positions(game, 4, 120)[::3]:
        if st.terminal:
            continue
        before = game.oracle(st).tobytes()
        c = st.clone()
        la = c.legal_actions()
        c.apply_action(la[rnd.randrange(len(la))])
        assert game.oracle(st).tobytes() == before
        a = la[0]
        c2, c3 = st.clone(), st.clone()
        c2.apply_action(a)
        c3.apply_action(a)
        assert game.oracle(c2).tobytes() == game.oracle(c3).tobytes()
        assert c2.hands is not st.hands and c2.table_up is not st.table_up and c2.ledger is not st.ledger


def test_same_seed_same_match():
    game = GAMES["pairs6"]
    a = positions(game, 7, 80)
    b = positions(game, 7, 80)
    assert [game.oracle(x).tobytes() for x in a] == [game.oracle(x).tobytes() for x in b]


# ------------------------------------------------------------------ observations and hidden information
@pytest.mark.parametrize("cfg", IDS)
def test_observation_layout_binary_and_in_bounds(cfg):
    game = GAMES[cfg]
    for st in positions(game, 5, 60):
        for p in range(game.num_players):
            o = game.observe(st, p)
            assert o.dtype == np.float32 and o.shape == (game.obs_spec.size,)
            assert set(np.unique(o)) <= {0.0, 1.0}
            assert (o <= game.obs_spec.high).all()
            v = game.obs_spec.view(o)
            assert (v["hand"] == np.unpackbits(np.frombuffer(st.hands[p].to_bytes(8, "little"), np.uint8),
                                               bitorder="little")[:36]).all()
            if st.current_player != p:
                assert v["selected"].sum() == 0 and v["decision"].sum() == 0 and v["owed"].sum() == 0
        o = game.oracle(st)
        assert o.shape == (game.oracle_spec.size,)


@pytest.mark.parametrize("cfg", IDS)
def test_sample_consistent_keeps_every_seats_observation(cfg):
    game = GAMES[cfg]
    rng = Rng(1)
    moved = 0
    for st in positions(game, 21, 120)[::2]:
        for p in range(game.num_players):
            mine = game.observe(st, p)
            for _ in range(2):
                other = game.sample_consistent(st, p, rng)
                other.check_invariants()
                assert np.array_equal(game.observe(other, p), mine), f"seat {p}'s observation leaks"
                assert other.hands[p] == st.hands[p]
                if not np.array_equal(game.oracle(other), game.oracle(st)):
                    moved += 1
    assert moved > 50


def _after_discard():
    st = skip_claims(new(EXAMPLE, seed=3))
    do(st, 0, "7C 9C lead")
    do(st, 1, "6C 9H discard")
    return st


def test_leak_discard_known_to_its_owner_only():
    game = BeatOrDiscardGame()
    st = _after_discard()
    mine0 = game.observe(st, 0)
    mine1 = game.observe(st, 1)
    rng = Rng(5)
    seen = set()
    for _ in range(60):
        o = game.sample_consistent(st, 0, rng)
        assert np.array_equal(game.observe(o, 0), mine0)
        assert o.table_down[1].bit_count() == 2 and o.table_down[1] & st.hands[0] == 0
        seen.add(o.table_down[1])
        o1 = game.sample_consistent(st, 1, rng)
        assert o1.table_down[1] == st.table_down[1] and np.array_equal(game.observe(o1, 1), mine1)
    assert len(seen) > 20  # seat 1's face-down cards really are re-dealt for seat 0
    # two different discards of seat 1 look the same to seat 0
    st2 = skip_claims(new(EXAMPLE, seed=3))
    do(st2, 0, "7C 9C lead")
    do(st2, 1, "AC QH discard")
    assert np.array_equal(game.observe(st2, 0), mine0)
    assert not np.array_equal(game.observe(st2, 1), mine1)


def test_leak_equalising_cards_in_a_trick_known_to_their_owner():
    game = BeatOrDiscardGame()
    st = endgame(NO_CLAIM3, leader=1)  # three cards each: no claim keeps the round alive (C1.7, C1.13)
    do(st, 1, "AD lead")  # nobody can beat: seat 1 takes, the others equalise down to its two cards
    assert st.phase == PH_EQUALISE and st.current_player == 2
    do(st, 2, "JS discard")
    v2 = game.obs_spec.view(game.observe(st, 2))
    v3 = game.obs_spec.view(game.observe(st, 3))
    c = parse_card("JS")
    assert v2["pile_seen"][1][c] == 1 and v3["pile_seen"][0][c] == 0  # seat 1's pair's pile
    rng = Rng(2)
    where = set()
    for _ in range(40):
        o = game.sample_consistent(st, 3, rng)
        assert np.array_equal(game.observe(o, 3), game.observe(st, 3))
        assert o.piles[1].bit_count() == st.piles[1].bit_count() and o.laid_down[2].bit_count() == 1
        where.add(o.laid_down[2])
    assert len(where) > 5


def test_leak_claim_number_kept_suit_resampled():
    game = BeatOrDiscardGame()
    st = new(CLAIM_HANDS, seed=2)
    do(st, 1, "claim 4")  # seat 1: four spades; seat 2 is asked next
    rng = Rng(3)
    suits, can = set(), set()
    for _ in range(80):
        o = game.sample_consistent(st, 0, rng)
        o.check_invariants()
        assert longest_suit(o.holding(1)) == 4  # C1.13: exactly N, never more
        assert np.array_equal(game.observe(o, 0), game.observe(st, 0))
        # seat 2 is asked because its six cards could outbid 4 (public), not because it holds five of a suit
        assert o.current_player == 2 and o.claim_possible(2)
        can.add(o.claimable(2))
        suits.add(max(range(4), key=lambda s: (o.hands[1] & SUIT_MASK[s]).bit_count()))
    assert len(suits) >= 3
    # seat 2 can claim 5 in truth, yet the samples do not make it so: being asked says nothing about it
    assert st.claimable(2) and False in can


def test_leak_claim_after_lead_returned_cards_stay_known():
    game = BeatOrDiscardGame()
    st = new(CLAIM_HANDS, seed=2)
    do(st, 1, "pass")
    do(st, 2, "pass")
    do(st, 3, "pass")
    do(st, 0, "7C 8C lead")
    do(st, 1, "claim 4")
    rng = Rng(4)
    for p in (2, 3):
        for _ in range(30):
            o = game.sample_consistent(st, p, rng)
            assert o.hands[0] & parse_cards("7C 8C") == parse_cards("7C 8C")  # returned face up: public
            assert longest_suit(o.holding(1)) == 4
            assert np.array_equal(game.observe(o, p), game.observe(st, p))


def test_leak_first_lead_lowest_diamond_is_respected():
    game = BeatOrDiscardGame()
    st = new(EXAMPLE, seed=5)  # seat 0 leads by holding 6D, the lowest diamond dealt
    assert st.diamond_leader == 0
    rng = Rng(6)
    for p in (1, 2, 3):
        for _ in range(30):
            o = game.sample_consistent(st, p, rng)
            assert lowest_diamond_seat([o.holding(q) for q in range(4)], [0, 1, 2, 3]) == 0
            assert np.array_equal(game.observe(o, p), game.observe(st, p))


def test_leak_revealed_bottom_card_stays_with_its_drawer():
    game = BeatOrDiscardGame()
    st = skip_claims(new(EXAMPLE, stock="QS TS KS KH AH TH 6S 9S", piles=["TD QD QC JH", ""]))
    do(st, 0, "7C 9C lead")
    do(st, 1, "6C 9H discard")
    do(st, 2, "TC 9D beat")
    do(st, 3, "6H 8S discard")
    do(st, 2, "done")
    c = parse_card("9S")
    assert st.hands[1] >> c & 1 and st.known[1] >> c & 1
    rng = Rng(7)
    for _ in range(30):
        o = game.sample_consistent(st, 0, rng)
        assert o.hands[1] >> c & 1
        assert np.array_equal(game.observe(o, 0), game.observe(st, 0))


def test_sample_for_another_seat_to_move_keeps_a_real_choice():
    game = BeatOrDiscardGame()
    rng = Rng(8)
    for st in positions(game, 30, 200)[::4]:
        if st.terminal:
            continue
        for p in range(4):
            if p != st.current_player:
                o = game.sample_consistent(st, p, rng)
                o.check_invariants()
                assert o.current_player == st.current_player and o.phase == st.phase


def test_sample_consistent_from_seeds_and_generators_converted_by_as_rng():
    """The contract: ``sample_consistent`` takes an Rng; a caller holding a seed or another generator converts
    it once with ``as_rng`` (the engine has no coercion of its own)."""
    game = BeatOrDiscardGame()
    st = _after_discard()
    for r in (5, np.random.default_rng(1), random.Random(2), Rng(3)):
        o = game.sample_consistent(st, 0, as_rng(r))
        assert np.array_equal(game.observe(o, 0), game.observe(st, 0))


def test_every_card_accounted_in_samples():
    game = BeatOrDiscardGame(mode="solo", num_players=3)
    rng = Rng(9)
    for st in positions(game, 40, 90)[::3]:
        o = game.sample_consistent(st, 1, rng)
        allc = o.stock
        for m in o.hands + o.table_up + o.table_down + o.piles:
            assert not allc & m
            allc |= m
        assert allc == FULL_DECK


def _row(m: int) -> list:
    return [m >> c & 1 for c in range(36)]


def _thermo(k: int, width: int) -> list:
    return [1 if i < k else 0 for i in range(width)]


@pytest.mark.parametrize("cfg", IDS)
def test_observation_parts_decode_to_the_state(cfg):
    game = GAMES[cfg]
    r = game.rules
    n, hs = game.num_players, r.hand_size
    for st in positions(game, 8, 150)[::3]:
        for p in range(n):
            v = {k: a.astype(int).tolist() for k, a in game.obs_spec.view(game.observe(st, p)).items()}
            rel = [(p + k) % n for k in range(n)]
            srel = [p % 2, 1 - p % 2] if r.pairs else rel
            mine = st.current_player == p
            assert v["hand"] == _row(st.hands[p])
            assert v["selected"] == _row(st.picked if mine else 0)
            assert v["top"] == _row(st.top) and v["lead"] == _row(st.lead) and v["my_down"] == _row(st.table_down[p])
            assert v["revealed"] == _row(1 << st.revealed if st.revealed >= 0 else 0)
            assert v["table"] == [_row(st.table_up[q]) for q in rel]
            assert v["known"] == [_row(st.known[q]) for q in rel]
            assert v["pile_seen"] == [_row(st.piles_up[s] | (st.piles[s] & st.laid_down[p])) for s in srel]
            one = lambda seat, rel=rel: [1 if seat >= 0 and q == seat else 0 for q in rel]  # noqa: E731
            assert v["leader"] == one(-1 if st.terminal else st.leader)
            assert v["last_beater"] == one(st.last_beater)
            assert v["locked"] == [st.locked >> q & 1 for q in rel]
            assert v["acted"] == [st.acted >> q & 1 for q in rel]
            assert v["out"] == [st.out >> q & 1 for q in rel]
            assert v["claims"] == [[1 if st.claims[q] == k else 0 for k in (4, 5, 6)] for q in rel]
            assert v["trump"] == [1 if s == st.trump else 0 for s in range(4)]
            assert v["decision"] == [1 if mine and st.phase == k else 0 for k in range(5)]
            assert v["first_game"] == [int(st.first_game)]
            assert v["diamond_leader"] == one(st.diamond_leader)
            assert v["took"] == [1 if st.tricks[s] else 0 for s in srel]
            e = st.ledger.eggs_streak
            assert v["eggs"] == [1 if min(e, 3) == k else 0 for k in range(4)]
            assert v["hand_counts"] == [_thermo(st.hands[q].bit_count(), hs) for q in rel]
            assert v["down_counts"] == [_thermo(st.table_down[q].bit_count(), hs) for q in rel]
            owed = st.owed if mine and st.phase in (PH_ANSWER, PH_EQUALISE) else 0
            assert v["owed"] == _thermo(owed, hs)
            assert v["stock"] == _thermo(st.stock.bit_count(), 36)
            assert v["pile_counts"] == [_thermo(st.piles[s].bit_count(), 36) for s in srel]
            assert v["scores"] == [_thermo(min(st.ledger.scores[s], r.target), r.target) for s in srel]


@pytest.mark.parametrize("episode", ["match", "deal"])
def test_env_match_over_at_the_deal_c1_14_terminates_every_agent_at_reset(episode):
    """C1.14 (four of a kind dealt) ends the match before anyone moves: the env must say so at reset --
    every agent terminated with its outcome reward and the match in its infos, then ``step(None)`` each
    -- instead of handing a seat an all-zero action mask. Seed 1108252530964337621 deals it at random."""
    from kozel_env import beat_or_discard_v0

    env = beat_or_discard_v0.env(episode=episode)
    for kwargs in ({"seed": 1108252530964337621},
                   {"seed": 0, "options": {"hands": ["7C 8C 9C TC JC QC", "6C 6D 6H 6S 7D 8D", None, None]}}):
        env.reset(**kwargs)
        assert env.game_state.match_result["ended_by"] == "four_sixes"
        winners = env.game_state.match_result["winners"]  # sides
        seen = []
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            assert term and not trunc and info["match"]["ended_by"] == "four_sixes"
            assert [d["ended_by"] for d in info["deals"]] == ["four_sixes"]  # the deal is reported too
            seat = env.agent_name_mapping[agent]
            assert reward == (1.0 if env.unwrapped.game.side_of(seat) in winners else -1.0)
            assert obs["action_mask"].sum() == 0
            seen.append(agent)
            env.step(None)
        assert sorted(seen) == sorted(env.possible_agents) and not env.agents
