"""Random-play fuzzing of sea_goat_v0 (seed 000 §10, RULES D3): invariants after every decision, at most
one pair with points, a score only falls when the other pair wipes it, the match ends exactly at 125 or on
going out with 00."""
from __future__ import annotations

import numpy as np

from kozel_env.dominoes.game import DominoesGame
from kozel_env.dominoes.rules import SEA_GOAT
from kozel_env.dominoes.tiles import TILE_ID

T00 = TILE_ID[(0, 0)]


def test_random_matches_keep_one_score_for_both_and_end_exactly_when_the_rules_say():
    g = DominoesGame(SEA_GOAT)
    pick = np.random.default_rng(1)
    instant = wipes = 0
    for seed in range(25):
        st = g.new_state(seed)
        scores = st.ledger.scores[:]
        while not st.terminal:
            st.check_invariants()
            legal = st.legal_actions()
            deals = st.deals_played
            st.apply_action(legal[int(pick.integers(len(legal)))])
            now = st.ledger.scores
            assert sum(1 for s in now if s) <= 1  # one score for both (D3.2)
            for side in (0, 1):
                if now[side] < scores[side]:  # only a wipe by the other pair, with 25 or more
                    wipes += 1
                    assert now[side] == 0 and now[1 - side] - scores[1 - side] >= 25
            if st.deals_played != deals:
                res = st.last_result
                out00 = res["ended_by"] == "out" and "00" in res["final_move"]
                assert st.terminal == (out00 or max(now) >= 125)
                instant += out00
            scores = now[:]
        if st.match_result.get("instant_win"):
            assert st.last_result["final_move"].count("00") == 1
    assert instant > 0 and wipes > 0


def test_clone_is_independent():
    g = DominoesGame(SEA_GOAT)
    st = g.new_state(9)
    for _ in range(20):
        if st.terminal:
            break
        c = st.clone()
        before = (st.hands[:], st.ends[:], st.ledger.scores[:], st.played)
        c.apply_action(c.legal_actions()[0])
        assert (st.hands, st.ends, st.ledger.scores, st.played) == before
        st.apply_action(st.legal_actions()[-1])
