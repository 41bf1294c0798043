"""Random-play fuzzing of donkey_v0 (seed 000 §11, RULES D4): invariants after every decision (moves of
doubles included), scores never fall, the remembered points never reach 13, the match ends exactly at 101;
clones are independent mid-move."""
from __future__ import annotations

import numpy as np

from kozel_env import donkey_v0
from kozel_env.dominoes.donkey import DONE, DonkeyGame
from kozel_env.dominoes.rules import DONKEY, make_rules


def test_random_matches_keep_every_invariant_and_end_exactly_at_101():
    g = DonkeyGame(DONKEY)
    pick = np.random.default_rng(4)
    multi = dones = houses = 0
    for seed in range(12):
        st = g.new_state(seed)
        scores = st.ledger.scores[:]
        while not st.terminal:
            st.check_invariants()
            legal = st.legal_actions()
            a = legal[int(pick.integers(len(legal)))]
            dones += a == DONE
            houses += st.house
            p = st.current_player
            st.apply_action(a)
            multi += st.current_player == p and bool(st.move_slots)
            assert all(x >= y for x, y in zip(st.ledger.scores, scores))
            assert all(m < 13 for m in st.ledger.memory)  # remembered only below the threshold (D4.5)
            scores = st.ledger.scores[:]
            assert st.terminal == any(s >= 101 for s in scores)
    assert multi > 0 and dones > 0 and houses > 0


def test_max_doubles_is_respected_in_random_play():
    g = DonkeyGame(make_rules(DONKEY, {"max_doubles": 2}))
    pick = np.random.default_rng(5)
    for seed in range(6):
        st = g.new_state(seed)
        while not st.terminal:
            if st.move_slots:
                assert len(st.last_move) < 2
            legal = st.legal_actions()
            st.apply_action(legal[int(pick.integers(len(legal)))])
            assert len(st.last_move) <= 2


def test_clone_in_the_middle_of_a_move_is_independent():
    g = DonkeyGame(DONKEY)
    pick = np.random.default_rng(6)
    found = 0
    for seed in range(40):
        st = g.new_state(seed, {"single_deal": True})
        while not st.terminal:
            if st.move_slots:
                c = st.clone()
                before = (st.hands[:], st.ends[:], st.move_slots, st.last_move, st.house)
                c.apply_action(DONE)
                assert (st.hands, st.ends, st.move_slots, st.last_move, st.house) == before
                found += 1
            legal = st.legal_actions()
            st.apply_action(legal[int(pick.integers(len(legal)))])
    assert found > 0


def test_env_move_notation_and_mask_in_a_move_of_doubles():
    env = donkey_v0.env()
    env.reset(seed=0, options={"hands": ["01 02 05 16 24 46 55", "04 11 13 33 35 36 56",
                                         "03 12 14 15 25 34 44", "00 06 22 23 26 45 66"]})
    assert env.agent_selection == "player_1" and env.unwrapped.legal_moves() == ["11"]
    env.step(env.unwrapped.move_to_action("11"))
    mask = env.observe(env.agent_selection)["action_mask"]
    assert mask.shape == (141,) and sorted(np.flatnonzero(mask)) == env.unwrapped.legal_actions()
