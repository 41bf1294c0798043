"""Random-play fuzzing of dominoes_ffa_v0 (seed 000 §9, RULES D2): tile conservation and the table's
knowledge after every decision, scores never fall, the match ends exactly when a player reaches 101,
clones are independent, the env plays whole matches."""
from __future__ import annotations

import numpy as np
import pytest

from kozel_env import dominoes_ffa_v0
from kozel_env.dominoes.game import DominoesGame
from kozel_env.dominoes.rules import FFA, make_rules


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_matches_keep_every_invariant_and_end_exactly_at_101(n):
    g = DominoesGame(make_rules(FFA, {"num_players": n}))
    pick = np.random.default_rng(n)
    draws = 0
    for seed in range(6):
        st = g.new_state(seed)
        scores = st.ledger.scores[:]
        while not st.terminal:
            st.check_invariants()
            assert st.stock.bit_count() >= (1 if n < 4 else 0)  # the last stock tile is never drawn (D2.2)
            legal = st.legal_actions()
            st.apply_action(legal[int(pick.integers(len(legal)))])
            draws += sum(1 for e in st.events if e[0] == "draw")
            assert all(a >= b for a, b in zip(st.ledger.scores, scores))
            scores = st.ledger.scores[:]
            assert st.terminal == any(s >= 101 for s in scores)
        st.check_invariants()
        res = st.match_result
        top = max(res["scores"])
        assert res["goats"] == [s for s in range(n) if res["scores"][s] == top]
        sc, place = res["scores"], res["places"]
        assert min(place) == 1
        assert all((sc[a] < sc[b]) == (place[a] < place[b]) for a in range(n) for b in range(n))
    assert draws > 0 or n == 4


def test_clone_is_independent_with_a_stock():
    g = DominoesGame(FFA)
    st = g.new_state(3)
    pick = np.random.default_rng(0)
    for _ in range(30):
        if st.terminal:
            break
        c = st.clone()
        before = (st.hands[:], st.stock, st.lack[:], st.drawn[:], st.rng.s, st.stock_order)
        legal = c.legal_actions()
        c.apply_action(legal[-1])
        assert (st.hands, st.stock, st.lack, st.drawn, st.rng.s, st.stock_order) == before
        st.apply_action(legal[int(pick.integers(len(legal)))])


def test_env_plays_a_whole_match_with_points_rewards():
    env = dominoes_ffa_v0.env(num_players=3, reward="points")
    env.reset(seed=2)
    pick = np.random.default_rng(2)
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        total[agent] += rew
        if term or trunc:
            env.step(None)
            continue
        env.step(int(pick.choice(np.flatnonzero(obs["action_mask"]))))
    assert abs(sum(total.values())) < 1e-6
    assert env.unwrapped.game_state.match_result["goats"]
