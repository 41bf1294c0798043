"""``pimc:objective=win`` (issue 15, item 4: the ladder's step counts won deals): a playout to the end of the
deal is scored by the deal's outcome for the seat's side, exactly as the episode's return counts it, with the
family's points as a tie-break."""
from __future__ import annotations

import numpy as np
import pytest

from agents.pimc import WIN_TIE_BREAK, deal_outcome
from agents.registry import make_agent
from kozel_env.registry import load

from .helpers import ENV_CASES, ENV_NAMES


def _finished_deal(name: str, opts: dict, seed: int):
    """The engine state at the end of one random single-deal episode, and its game."""
    env = load(name).env(episode="deal", **opts)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _agent in env.agent_iter(10_000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    return env.unwrapped.game_state, env.unwrapped.game


@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_deal_outcome_is_the_single_deal_episodes_return(name, opts):
    """``deal_outcome`` is the episode's return (``state.returns()``, what the arena's deal score counts), less
    the mean over the sides (zero-sum for two sides as for four)."""
    decided = 0
    for seed in range(8):
        st, game = _finished_deal(name, opts, seed)
        rules = game.rules
        assert st.terminal
        ret = st.returns()
        by_side = [0.0] * rules.num_sides
        for q in range(game.num_players):
            by_side[rules.side_of(q)] = ret[q]
        mean = sum(by_side) / len(by_side)
        for q in range(game.num_players):
            assert deal_outcome(st, rules, q) == pytest.approx(ret[q] - mean), (seed, q, st.last_result)
        decided += any(ret)
    assert decided >= 4  # deals with a winner and a loser, not only eggs


@pytest.mark.parametrize("name", ENV_NAMES)
def test_a_whole_playout_scores_the_outcome_and_the_points_as_tie_break(name):
    bot = make_agent("hard:depth=0,objective=win,n=2", name, seed=1)
    env = load(name).env(episode="deal")
    env.reset(seed=3)
    obs, *_ = env.last()
    st = env.unwrapped.game_state
    game = env.unwrapped.game
    seat = st.current_player
    for _ in range(4):
        s = game.sample_consistent(st, seat, bot.krng)
        v = bot._playout(s, len(s.results), seat)
        assert s.terminal
        out = deal_outcome(s, game.rules, seat)
        assert v == pytest.approx(out + WIN_TIE_BREAK * bot.strategy.deal_value(s, seat))
        assert abs(v - out) < 0.5  # the points never outweigh the outcome


def test_objective_win_needs_whole_deals_and_bad_objectives_are_refused():
    with pytest.raises(ValueError, match="depth=0"):
        make_agent("hard:objective=win,depth=8", "dominoes_v0")
    with pytest.raises(ValueError, match="depth=0"):
        make_agent("expert:objective=win", "dominoes_v0")  # the shipped expert cuts at depth 8
    with pytest.raises(ValueError, match="objective"):
        make_agent("hard:objective=eyes", "dominoes_v0")
    assert make_agent("expert:objective=win,depth=0", "dominoes_v0").objective == "win"
    assert make_agent("hard", "dominoes_v0").objective == "points"
