"""The ``expert`` agent (issue 15, item 1): search guided by the trained policy and the learned value; legal,
deterministic, sees only its seat's view, and the networks sit where its doc says."""
from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent, play_match
from agents.expert import SETTINGS, ExpertAgent, settings_for
from agents.rl.policy import load
from agents.rl.value import load_value
from kozel_env.core.rng import Rng
from kozel_env.registry import ENVIRONMENTS
from kozel_env.registry import load as load_env

from .helpers import ENV_NAMES, positions


def _decisions(name: str, seed: int, k: int, min_legal: int = 2):
    """``k`` positions of a random deal with at least ``min_legal`` legal moves: (game, state, seat, obs, mask)."""
    out = []
    for env, st, cp in positions(name, {}, seed=seed):
        if len(st.legal_actions()) >= min_legal and len(out) < k:
            game = env.unwrapped.game
            mask = np.zeros(game.num_actions, np.int8)
            mask[st.legal_actions()] = 1
            out.append((game, st.clone(), cp, game.observe(st, cp), mask))
    return out


def test_every_game_has_expert_and_fast_settings():
    assert set(SETTINGS) == set(ENVIRONMENTS)
    for name in ENVIRONMENTS:
        expert, fast = make_agent("expert", name), make_agent("expert_fast", name)
        assert isinstance(expert, ExpertAgent) and expert.level == "expert" and fast.level == "fast"
        assert fast.n * (fast.depth or 99) <= expert.n * (expert.depth or 99), "fast searches less"


@pytest.mark.parametrize("name", ENV_NAMES)
def test_expert_plays_legal_moves_through_a_deal(name):
    env = load_env(name).env(episode="deal")
    bots = {a: make_agent("expert:n=2" if i % 2 == 0 else "hard:n=2", name, seed=i)
            for i, a in enumerate(env.possible_agents)}
    play_match(env, bots, seed=3)  # the env raises IllegalActionError on any illegal move
    assert env.unwrapped.game_state.terminal


BELIEF = sorted(name for name, levels in SETTINGS.items() if any(lv.get("belief") for lv in levels.values()))
"""The games whose expert picks its imagined deals by a learned belief (``agents/checkpoints/belief/``)."""


@pytest.mark.parametrize("name,spec", [(name, "expert:n=3") for name in ENV_NAMES] +
                         [(name, "expert:n=3,belief=3") for name in BELIEF])
def test_expert_decides_from_the_seats_view_only(name, spec):
    """Re-deal everything the seat cannot see: the same expert (same seed) makes the same decision (with the
    belief too: it reads the seat's observation, and the imagined deals come from ``sample_consistent``)."""
    rng = Rng(5)
    for game, st, cp, obs, mask in _decisions(name, 6, 3):
        other = game.sample_consistent(st, cp, rng)
        a = make_agent(spec, name, seed=9).act(obs, mask, state=st, seat=cp)
        b = make_agent(spec, name, seed=9).act(obs, mask, state=other, seat=cp)
        assert a == b


def test_expert_is_deterministic_with_a_seed():
    for _game, st, cp, obs, mask in _decisions("queens_and_jacks_v0", 2, 4):
        moves = {make_agent("expert:n=4", "queens_and_jacks_v0", seed=3).act(obs, mask, state=st, seat=cp)
                 for _ in range(2)}
        assert len(moves) == 1


@pytest.mark.parametrize("name", ["dominoes_v0", "queens_and_jacks_v0"])
def test_the_prior_is_the_policys_move_not_normals(name):
    """With a search that can never overturn its prior (z huge), the expert plays the shipped policy's greedy
    move; with ``prior=normal`` it plays normal's (and the two differ somewhere, so this can fail)."""
    net = load(name)
    normal = make_agent("normal", name)
    differ = 0
    for _game, st, cp, obs, mask in _decisions(name, 11, 12):
        e = make_agent("expert:n=2,z=1e9", name).act(obs, mask, state=st, seat=cp)
        assert e == net.act(obs, mask)
        en = make_agent("expert:n=2,z=1e9,prior=normal", name).act(obs, mask, state=st, seat=cp)
        assert en == normal.act(obs, mask)
        differ += e != en
    assert differ > 0


def test_top_k_searches_only_the_policys_most_probable_moves():
    name = "dominoes_v0"
    net = load(name).policy
    seen = 0
    for _game, st, cp, obs, mask in _decisions(name, 4, 10, min_legal=3):
        p = net.probs(obs[None], mask[None])[0]
        best2 = set(np.argsort(-p)[:2].tolist())
        a = make_agent("expert:n=6,z=0,top=2", name, seed=1).act(obs, mask, state=st, seat=cp)
        assert a in best2
        assert make_agent("expert:n=6,z=0,top=1", name, seed=1).act(obs, mask, state=st, seat=cp) == int(p.argmax())
        seen += 1
    assert seen >= 3


@pytest.mark.parametrize("spec", ["expert:n=8", "expert:n=8,depth=0", "expert:n=8,playout=net",
                                  "expert:n=8,playout=side", "expert:n=8,depth=0,objective=win"])
def test_batched_playouts_decide_as_one_deal_at_a_time(spec):
    """The expert scores a whole batch of imagined deals at once (its networks run batched); the values land
    on the same moves as when every imagined deal is scored on its own (``pimc``'s order)."""
    name = "dominoes_v0"
    informative = 0
    for _game, st, cp, obs, mask in _decisions(name, 3, 6, min_legal=3):
        seen = []
        for batched in (False, True):
            agent = make_agent(spec, name, seed=2)
            agent.batched = batched
            vals = []
            score = agent._score

            def record(group, active, v, *rest, score=score, vals=vals):
                score(group, active, v, *rest)
                vals[:] = [list(x) for x in v]

            agent._score = record
            agent.act(obs, mask, state=st, seat=cp)
            seen.append(vals)
        assert [len(x) for x in seen[0]] == [len(x) for x in seen[1]]
        for a, b in zip(*seen):  # float32 products of another batch size round differently, by ~1e-7
            assert a == pytest.approx(b, rel=1e-5, abs=1e-5)
        informative += len({sum(x) for x in seen[0] if x}) > 1  # moves of different value: the order matters
    assert informative >= 3


def _played_on(agent, game, st, cp, depth: int, by_policy) -> float:
    """The value the expert's playout should give ``st`` for seat ``cp``: ``depth`` actions, each seat with a
    choice playing the shipped policy's greedy move where ``by_policy(seat)``, the rollout rule's elsewhere."""
    net = load(agent.env_name)
    mine = st.clone()
    for _ in range(depth):
        if mine.terminal or len(mine.results) != len(st.results):
            break
        legal = mine.legal_actions()
        if len(legal) == 1:
            mine.apply_action(legal[0])
        elif by_policy(mine.current_player):
            m = np.zeros(game.num_actions, np.int8)
            m[legal] = 1
            mine.apply_action(net.act(game.observe(mine, mine.current_player), m))
        else:
            mine.apply_action(agent._rollout_move(mine, legal))
    ended = mine.terminal or len(mine.results) != len(st.results)
    return agent._value(mine, cp) if ended else agent._cutoff(mine, cp)


def _playout_value(agent, st, cp) -> float:
    [v] = agent._evaluate([st.clone()], len(st.results), cp, 0)
    return v


def test_net_playouts_play_the_policys_greedy_move_for_every_seat():
    """``playout=net``: in the playouts every seat with a choice plays the shipped policy's greedy move on its
    own view of the imagined deal (and that is not what the rule's playouts give: this can fail)."""
    name = "dominoes_v0"
    agent = make_agent("expert:depth=6,playout=net", name)
    rule = make_agent("expert:depth=6", name)
    differ = 0
    for game, st, cp, _obs, _mask in _decisions(name, 5, 12):
        v = _playout_value(agent, st, cp)
        assert v == pytest.approx(_played_on(agent, game, st, cp, 6, lambda seat: True), rel=1e-5, abs=1e-5)
        differ += abs(_playout_value(rule, st, cp) - v) > 1e-4
    assert differ > 0


@pytest.mark.parametrize("name", ["dominoes_v0", "boneyard_v0"])
def test_side_playouts_play_the_policy_for_the_seats_side_and_the_rule_for_the_others(name):
    """``playout=side``: in the playouts the searching seat's own side (itself and its partner; in a game of
    each for himself, itself) plays the shipped policy's greedy move, every other seat the rollout rule's; the
    value differs from both the all-policy and the all-rule playouts somewhere (this can fail)."""
    agent = make_agent("expert:depth=8,playout=side", name)
    rule = make_agent("expert:depth=8", name)
    full = make_agent("expert:depth=8,playout=net", name)
    off_rule = off_net = 0
    for game, st, cp, _obs, _mask in _decisions(name, 5, 12):
        v = _playout_value(agent, st, cp)
        want = _played_on(agent, game, st, cp, 8, lambda seat, g=game, c=cp: g.side_of(seat) == g.side_of(c))
        assert v == pytest.approx(want, rel=1e-5, abs=1e-5)
        off_rule += abs(_playout_value(rule, st, cp) - v) > 1e-4
        off_net += abs(_playout_value(full, st, cp) - v) > 1e-4
    assert off_rule > 0 and off_net > 0

def test_scores_land_on_their_moves():
    """``_score``: a group holds the children of one imagined deal after another, the active moves in order."""
    agent = make_agent("expert", "dominoes_v0")
    agent._evaluate = lambda states, deals, seat, nest: list(states)
    vals = [[] for _ in range(4)]
    agent._score(["a0", "a2", "a3", "b0", "b2", "b3"], [0, 2, 3], vals, 0, 0, 0)
    assert vals == [["a0", "b0"], [], ["a2", "b2"], ["a3", "b3"]]


def test_a_cut_playout_is_scored_by_the_value_of_the_seats_observation():
    name = "dominoes_v0"
    agent = make_agent("expert", name)
    vnet = load_value(name)
    for game, st, _cp, _obs, _mask in _decisions(name, 8, 3):
        for seat in range(game.num_players):
            assert agent._cutoff(st, seat) == pytest.approx(float(vnet.value(game.observe(st, seat))))
    pos = make_agent("expert:leaf=position", name)
    assert pos._cutoff == pos.strategy.position_value


def test_bad_expert_options_are_refused():
    with pytest.raises(ValueError, match="level"):
        make_agent("expert:level=grandmaster", "dominoes_v0")
    with pytest.raises(ValueError, match="prior"):
        make_agent("expert:prior=oracle", "dominoes_v0")
    with pytest.raises(ValueError, match="leaf"):
        make_agent("expert:leaf=oracle", "dominoes_v0")
    with pytest.raises(ValueError, match="top"):
        make_agent("expert:top=-1", "dominoes_v0")
    with pytest.raises(ValueError, match="playout"):
        make_agent("expert:playout=oracle", "dominoes_v0")
    with pytest.raises(KeyError, match="no expert settings"):
        settings_for("chess_v0", "expert")


def test_expert_needs_the_state():
    game, st, cp, obs, mask = _decisions("dominoes_v0", 1, 1)[0]
    with pytest.raises(ValueError, match="decide"):
        make_agent("expert", "dominoes_v0").act(obs, mask)


def test_networks_of_other_options_are_refused_with_the_way_out():
    """The shipped networks read the default options' observation; other options say what to do instead."""
    with pytest.raises(ValueError, match="leaf=position"):
        make_agent("expert:prior=normal,playout=rule,belief=0", "six_of_spades_v0", env_options={"num_players": 3})
    with pytest.raises(ValueError, match="prior=normal, top=0, playout=rule"):
        make_agent("expert:leaf=position,belief=0", "six_of_spades_v0", env_options={"num_players": 3})
    with pytest.raises(ValueError, match="belief=0"):
        make_agent("expert:prior=normal,leaf=position,playout=rule,belief=4", "six_of_spades_v0",
                   env_options={"num_players": 3})
    bot = make_agent("expert:prior=normal,leaf=position,playout=rule,belief=0,n=2", "six_of_spades_v0",
                     env_options={"num_players": 3})
    env = load_env("six_of_spades_v0").env(episode="deal", num_players=3)
    play_match(env, dict.fromkeys(env.possible_agents, bot), seed=2)
    assert env.unwrapped.game_state.terminal


@pytest.mark.skipif(not BELIEF, reason="no game's expert uses a belief network")
@pytest.mark.parametrize("name", BELIEF)
def test_belief_serves_the_likeliest_imagined_deals_first(name):
    """``belief=k``: ``k * n`` imagined deals drawn, served by a Gumbel top-k draw on the belief's likelihood;
    with a huge ``belief_temp`` the noise vanishes and the ``n`` served are the pool's ``n`` likeliest."""
    from agents.rl.belief import log_likelihood

    for _game, st, cp, _obs, _mask in _decisions(name, 4, 2):
        agent = make_agent("expert:belief=4,belief_temp=1e9", name, seed=3)
        game = agent.game
        pool = []
        real = game.sample_consistent

        def drawn(state, seat, rng, real=real, pool=pool):
            pool.append(real(state, seat, rng))
            return pool[-1]

        game.sample_consistent = drawn
        try:
            draw = agent._sampler(st, cp, 5)
            served = [draw() for _ in range(5)]
        finally:
            del game.sample_consistent
        assert len(pool) == 20 and all(any(s is p for p in pool) for s in served)
        ll = log_likelihood(agent.belief_net.log_probs(game.observe(st, cp)), [d.hands for d in pool], cp)
        got = log_likelihood(agent.belief_net.log_probs(game.observe(st, cp)), [d.hands for d in served], cp)
        assert got.tolist() == pytest.approx(sorted(ll.tolist(), reverse=True)[:5])
        assert len({round(x, 9) for x in ll.tolist()}) > 5  # the likelihood ranks these deals at all


def test_bad_belief_options_are_refused():
    with pytest.raises(ValueError, match="belief"):
        make_agent("expert:belief=1", "dominoes_v0")
    with pytest.raises(ValueError, match="belief"):
        make_agent("expert:belief=-2", "dominoes_v0")
