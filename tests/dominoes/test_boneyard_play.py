"""Random-play fuzzing of boneyard_v0 (seed 001, RULES D5): invariants after every decision, the boneyard
is drawn to the last tile, scores never fall, remembered points stay under 13, the match ends exactly at 101."""
from __future__ import annotations

import numpy as np
import pytest

from kozel_env.dominoes.game import DominoesGame
from kozel_env.dominoes.rules import BONEYARD, make_rules


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_matches_keep_every_invariant_and_end_exactly_at_101(n):
    g = DominoesGame(make_rules(BONEYARD, {"num_players": n}))
    pick = np.random.default_rng(n)
    emptied = 0
    for seed in range(6):
        st = g.new_state(seed)
        scores = st.ledger.scores[:]
        while not st.terminal:
            st.check_invariants()
            legal = st.legal_actions()
            st.apply_action(legal[int(pick.integers(len(legal)))])
            emptied += st.stock == 0 and any(e[0] == "draw" for e in st.events)
            assert all(a >= b for a, b in zip(st.ledger.scores, scores))
            assert all(m < 13 for m in st.ledger.memory)
            scores = st.ledger.scores[:]
            assert st.terminal == any(s >= 101 for s in scores)
        st.check_invariants()
    assert emptied > 0  # the last boneyard tile is drawn (D5.3)


def test_clone_is_independent_with_a_boneyard():
    g = DominoesGame(BONEYARD)
    st = g.new_state(4)
    for _ in range(30):
        if st.terminal:
            break
        c = st.clone()
        before = (st.hands[:], st.stock, st.lack[:], st.rng.s)
        c.apply_action(c.legal_actions()[0])
        assert (st.hands, st.stock, st.lack, st.rng.s) == before
        st.apply_action(st.legal_actions()[-1])
