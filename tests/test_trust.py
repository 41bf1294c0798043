"""Trust the numbers: properties every registered environment holds (kozel_env/registry.py), in both reward
modes. No deal's result or reward is lost or repeated; results follow one schema; every option is checked
when given; every match can be recorded and replayed; the turn order and the viewer's render leak nothing.

Nothing here names a game except the reproductions of bugs found before (kept as regression tests).
"""
from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from kozel_env.core.bits import bits
from kozel_env.core.errors import IllegalActionError, InvalidOptionError
from kozel_env.core.results import check_deal_result, check_match_result
from kozel_env.core.rng import Rng
from kozel_env.registry import ENVIRONMENTS, load
from kozel_env.replay import ReplayMismatch, replay

from .conftest import ENV_CASES, ENV_DEFAULTS


def play_and_collect(env, rng, max_steps=100_000):
    """The AEC loop with random legal moves; for every agent, ``(reward, info)`` of each of its last()."""
    seen = {a: [] for a in env.possible_agents}
    for agent in env.agent_iter(max_steps):
        obs, reward, term, trunc, info = env.last()
        seen[agent].append((reward, info))
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    return seen


# ------------------------------------------------------------------ every deal reaches every agent once
@pytest.mark.parametrize("reward", ["points", "outcome"])
@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_every_deal_reaches_every_agent_once_in_order_with_its_reward(name, opts, reward):
    """Over a whole match: each agent's last() infos list every deal exactly once, numbered 1, 2, ... with
    none missing or repeated, the match result once at the end; and the rewards it collects sum to its
    seat's points over those deals (points: seat_points minus their mean) or to its return (outcome)."""
    env = load(name).env(reward=reward, **opts)
    env.reset(seed=31)
    seen = play_and_collect(env, np.random.default_rng(31))
    st = env.unwrapped.game_state
    assert st.terminal and len(st.results) == st.deals_played >= 1
    for agent, items in seen.items():
        seat = env.unwrapped.agent_name_mapping[agent]
        deals = [d for _, info in items for d in info.get("deals", [])]
        assert [d["deal"] for d in deals] == list(range(1, st.deals_played + 1)), f"{agent} saw {deals}"
        assert deals == list(st.results)
        assert [info["match"] for _, info in items if "match" in info] == [st.match_result]
        total = sum(r for r, _ in items)
        if reward == "points":
            expect = sum(d["seat_points"][seat] - np.mean(d["seat_points"]) for d in deals)
        else:
            expect = st.returns()[seat]
        assert total == pytest.approx(expect, abs=1e-9), f"{agent}: rewards {total} != {expect}"


@pytest.mark.parametrize("episode", ["match", "deal"])
@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_deal_and_match_results_follow_the_one_schema(name, opts, episode):
    env = load(name).env(episode=episode, **opts)
    env.reset(seed=17)
    play_and_collect(env, np.random.default_rng(17))
    g = env.unwrapped.game
    st = env.unwrapped.game_state
    for res in st.results:
        check_deal_result(res, g.num_players, g.num_sides)
    check_match_result(st.match_result, list(g.sides), g.num_sides)
    json.dumps(st.match_result)  # plain data


def _titles_by_their_rules(env, deals: list, match: dict) -> set:
    """The titles a finished match should carry, recomputed from the deal results alone by each rule:
    goats (seed 000 §8, RULES D1.9, D2.6, D3.5, D5.6; C1.16-17; C2.6), naked goats (D1.9: the winners wrote
    nothing in the whole match), bald goats (D1.9: ended by going out with 00 in the final move), bare goats
    (C2.6: the goats finish with 0). Seed 004 (six of spades) names no title."""
    g = env.unwrapped.game
    r = g.rules
    out = set()
    if not match["goats"]:
        return out
    if g.family == "dominoes":
        out.add(r.goat_title)
        if "naked_goats" in r.titles and not any(d["written"][s] for d in deals for s in match["winners"]):
            out.add("naked_goats")
        last = deals[-1]
        if "bald_goats" in r.titles and last["ended_by"] == "out" and "00" in last["final_move"]:
            out.add("bald_goats")
    else:
        out.add("goats")
        if r.name == "queens_and_jacks_v0" and all(match["scores"][s] == 0 for s in match["goats"]):
            out.add("bare_goats")
    return out


@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_match_titles_follow_their_rule_items(name, opts):
    for seed in (1, 2, 3):
        env = load(name).env(**opts)
        env.reset(seed=seed)
        play_and_collect(env, np.random.default_rng(seed))
        st = env.unwrapped.game_state
        assert set(st.match_result["titles"]) == _titles_by_their_rules(env, list(st.results), st.match_result)


# ------------------------------------------------------------------ reproductions: forced play ends deals
def test_beat_or_discard_two_deals_in_one_step_are_both_rewarded_and_reported():
    """Game 1 ends 70:50 on the last card (side 1 takes 2) and game 2 deals four sixes (C1.14: 12 to the
    other side), all inside one step: rewards +-7 (2 + 12, zero-sum halves), both deals in infos."""
    env = load("beat_or_discard_v0").env(reward="points")
    env.reset(seed=1014, options=dict(
        hands=["AD KD", "6C", "7C", "8C"], stock="", first_game=False, leader=0, trump="D",
        piles=["9C TC JC QC KC AC 6D 7D 8D 9D TD JD QD 6H 7H 8H TH", "9H JH QH KH AH 6S 7S 8S 9S TS JS QS KS AS"]))
    env.step(env.unwrapped.move_to_action("AD"))
    assert env.rewards == {"player_0": 7.0, "player_1": -7.0, "player_2": 7.0, "player_3": -7.0}
    for a in env.possible_agents:
        deals = env.infos[a]["deals"]
        assert [d["deal"] for d in deals] == [1, 2]
        assert deals[0]["written"] == [0, 2] and deals[1]["ended_by"] == "four_sixes"
        assert env.infos[a]["match"]["ended_by"] == "four_sixes"


def test_six_of_spades_a_deal_that_plays_out_inside_reset_is_rewarded_and_reported():
    env = load("six_of_spades_v0").env(calls="auto", reward="points")
    env.reset(seed=0, options=dict(hands=["6C 6D 9S JS", "AH TH KH 6S", "7C 8C 9D 7S", "8D 9C 7D 8S"],
                                   trump_card="6H", dealer=0,
                                   stock="AD TD AC TC QH JH KC QC 9H 8H KD QD 7H KS QS TS JC JD AS"))
    st = env.unwrapped.game_state
    assert st.deals_played >= 1 and st.results[0]["scores"] == [6, 0]
    first = env.possible_agents[0]
    assert env.rewards[first] == -3.0 and sum(env.rewards.values()) == 0
    obs, reward, *_, info = env.last()
    assert [d["deal"] for d in info["deals"]] == [1]
    assert reward == env._cumulative_rewards[env.agent_selection] == env.rewards[env.agent_selection]


# ------------------------------------------------------------------ infos modes, illegal-action policy
@pytest.mark.parametrize("name,opts", ENV_DEFAULTS)
def test_flat_infos_have_the_same_string_keys_and_float_values_at_every_step(name, opts):
    env = load(name).env(infos="flat", **opts)
    env.reset(seed=2)
    seen = play_and_collect(env, np.random.default_rng(2))
    keys = None
    ended = 0.0
    for items in seen.values():
        for _, info in items:
            assert all(isinstance(k, str) for k in info) and all(type(v) is float for v in info.values())
            keys = keys or set(info)
            assert set(info) == keys
            ended += info["deals_ended"]
    st = env.unwrapped.game_state
    assert ended == st.deals_played * len(env.possible_agents)
    finals = [items[-1][1] for items in seen.values()]
    assert all(f["match_over"] == 1.0 for f in finals)
    assert [f["match_return"] for f in finals] == st.returns()


@pytest.mark.parametrize("name,opts", ENV_DEFAULTS)
def test_no_infos_are_empty(name, opts):
    env = load(name).env(infos="none", **opts)
    env.reset(seed=2)
    seen = play_and_collect(env, np.random.default_rng(2))
    assert all(info == {} for items in seen.values() for _, info in items)


@pytest.mark.parametrize("name,opts", ENV_DEFAULTS)
def test_illegal_action_lose_ends_the_episode_against_the_offenders_side(name, opts):
    env = load(name).env(illegal_action="lose", **opts)
    env.reset(seed=4)
    agent = env.agent_selection
    mask = env.last()[0]["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    env.step(bad)
    g = env.unwrapped.game
    side = g.side_of(env.unwrapped.agent_name_mapping[agent])
    assert all(env.terminations.values())
    assert env.rewards == {a: (-1.0 if g.side_of(i) == side else 0.0) for i, a in enumerate(env.possible_agents)}
    assert env.infos[agent]["illegal_action"]["action"] == bad
    got = {}
    for a in env.agent_iter():
        obs, r, term, _, _ = env.last()
        assert term and not obs["action_mask"].any()
        got[a] = r
        env.step(None)
    assert got[agent] == -1.0 and not env.agents
    fresh = load(name).env(illegal_action="lose", **opts)
    fresh.reset(seed=4)
    for misuse in (-1, fresh.action_space(fresh.agent_selection).n, "x", None):  # API misuse still raises
        with pytest.raises(IllegalActionError):
            fresh.step(misuse)
    assert not any(fresh.terminations.values())


# ------------------------------------------------------------------ every option checked when given
def _bad_rules_options(name):
    rules_cls = type(load(name).env().unwrapped.game.rules)
    for opt, check in rules_cls.checks().items():
        for bad in check.bad_values():
            yield opt, bad


@pytest.mark.parametrize("name", list(ENVIRONMENTS))
def test_every_rules_option_refuses_bad_values_when_the_env_is_made(name):
    mod = load(name)
    n = 0
    for opt, bad in _bad_rules_options(name):
        with pytest.raises(InvalidOptionError) as e:
            mod.env(**{opt: bad})
        assert opt in str(e.value), f"{opt}={bad!r}: {e.value}"
        n += 1
    for opt, bad in [("episode", "forever"), ("reward", "money"), ("infos", "some"), ("illegal_action", "ignore"),
                     ("render_mode", "video"), ("no_such_rule", 1)]:
        with pytest.raises(InvalidOptionError, match=opt):
            mod.env(**{opt: bad})
    assert n >= 5


def _fingerprint(env):
    obs = [env.observe(a) for a in env.agents]
    return (env.state().tobytes(), env.agent_selection, tuple(o["observation"].tobytes() for o in obs),
            tuple(sorted(env._cumulative_rewards.items())))


@pytest.mark.parametrize("name,opts", ENV_DEFAULTS)
def test_every_reset_option_refuses_bad_values_and_leaves_the_env_and_its_seed_stream_as_they_were(name, opts):
    env = load(name).env(**opts)
    twin = load(name).env(**opts)
    env.reset(seed=5)
    twin.reset(seed=5)
    for e in (env, twin):
        e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    before = _fingerprint(env)
    checks = env.unwrapped.game.setup_checks()
    tried = 0
    for key, check in checks.items():
        if key == "single_deal":
            continue
        for bad in check.bad_values():
            with pytest.raises(InvalidOptionError) as e:
                env.reset(options={key: bad})
            assert key in str(e.value), f"{key}={bad!r}: {e.value}"
            assert _fingerprint(env) == before
            tried += 1
    for bad_seed in (-1, 2 ** 64, 1.5, "7", True, [1]):
        with pytest.raises(InvalidOptionError, match="seed"):
            env.reset(seed=bad_seed)
        assert _fingerprint(env) == before
    assert tried >= 8
    env.reset()
    twin.reset()  # the failed resets drew nothing from the seed stream
    assert _fingerprint(env) == _fingerprint(twin)


BAD_CALLS = [
    # (env, env kwargs, reset options) -- each must raise InvalidOptionError naming its option
    ("dominoes_v0", {"lone_double_values": ("25", "50")}, None),
    ("dominoes_v0", {"threshold": "13"}, None),
    ("dominoes_v0", {"target": 0}, None),
    ("dominoes_v0", {"num_players": 2.0}, None),
    ("dominoes_v0", {"hand_size": 2.5}, None),
    ("dominoes_v0", {"two_doubles": "no"}, None),
    ("dominoes_v0", {"max_doubles": 2.5}, None),
    ("beat_or_discard_v0", {"target": 10 ** 7}, None),
    ("dominoes_v0", {}, {"hands": [None] * 4}),
    ("dominoes_v0", {}, {"eggs": True}),
    ("dominoes_v0", {}, {"leader": True, "first_deal": False}),
    ("dominoes_v0", {}, {"first_deal": "no"}),
    ("dominoes_v0", {}, {"scores": [True, 0]}),
    ("dominoes_v0", {}, {"memory": [500, 0]}),
    ("dominoes_v0", {}, {"memory": [0, 0]}),
    ("dominoes_v0", {}, {"scores": [0, 50], "opened": [False, False]}),
    ("dominoes_v0", {}, {"eggs": 10 ** 6}),
    ("dominoes_v0", {}, {"stock": "00"}),
    ("donkey_v0", {}, {"memory": [500, 0]}),
    ("sea_goat_v0", {}, {"scores": [30, 40]}),
    ("queens_and_jacks_v0", {}, {"scores": [12, 0]}),
    ("six_of_spades_v0", {}, {"out": [0, 0]}),
    ("beat_or_discard_v0", {}, {"eggs": -1}),
]


@pytest.mark.parametrize("name,kwargs,options", BAD_CALLS)
def test_the_bad_values_users_hit_raise_one_clear_error(name, kwargs, options):
    key = next(iter(options or kwargs))
    with pytest.raises(InvalidOptionError, match=key):
        env = load(name).env(**kwargs)
        env.reset(seed=0, options=options)


def test_numpy_integers_are_accepted_as_ints():
    env = load("dominoes_v0").env(target=np.int64(61))
    env.reset(seed=np.uint64(3), options={"scores": np.array([3, 0]), "leader": np.int64(1), "first_deal": False,
                                          "eggs": np.int32(2)})
    st = env.unwrapped.game_state
    assert st.ledger.scores == [3, 0] and st.current_player == 1 and type(st.ledger.scores[0]) is int
    assert env.unwrapped.game.rules.target == 61


def test_an_unknown_reset_key_warns_and_is_ignored():
    env = load("dominoes_v0").env()
    with pytest.warns(UserWarning, match="unknown reset option"):
        env.reset(seed=0, options={"typo_option": 1})


# ------------------------------------------------------------------ record and replay
@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_replaying_the_record_reproduces_every_observation_reward_and_info(name, opts):
    for episode, reward in (("match", "points"), ("deal", "outcome")):
        env = load(name).env(episode=episode, reward=reward, **opts)
        env.reset(seed=23)
        trace = []
        rng = np.random.default_rng(23)
        for agent in env.agent_iter():
            obs, r, term, trunc, info = env.last()
            trace.append((agent, obs["observation"], obs["action_mask"], r, term, trunc, info))
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
        record = json.loads(json.dumps(env.unwrapped.record()))
        kinds = {e["type"] for e in record["events"]}
        assert {"deal", "move", "deal_end", "match_end"} <= kinds and record["finished"]
        moves = [e for e in record["events"] if e["type"] == "move"]
        assert all(isinstance(m["move"], str) for m in moves)
        _, again = replay(record)
        assert len(again) == len(trace)
        for x, y in zip(trace, again):
            assert x[0] == y[0] and np.array_equal(x[1], y[1]) and np.array_equal(x[2], y[2])
            assert x[3:] == y[3:]


def test_a_record_edited_or_from_other_rules_does_not_replay():
    env = load("queens_and_jacks_v0").env()
    env.reset(seed=1)
    for _ in range(8):
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[-1]))
    record = env.unwrapped.record()
    assert not record["finished"]
    replay(record)  # a record of a match in progress rebuilds
    bad = json.loads(json.dumps(record))
    bad["engine_seed"] += 1
    with pytest.raises(ReplayMismatch):
        replay(bad)


def test_replay_command_prints_and_checks_a_record(tmp_path, capsys):
    from kozel_env.replay import main

    env = load("dominoes_v0").env(episode="deal")
    env.reset(seed=2)
    play_and_collect(env, np.random.default_rng(2))
    path = tmp_path / "match.json"
    path.write_text(json.dumps(env.unwrapped.record()))
    assert main([str(path), "--check"]) == 0
    assert main([str(path), "--viewer", "player_1"]) == 0
    out = capsys.readouterr().out
    assert "new deal" in out and "plays" in out and "deal 1 over" in out and "match over" in out


# ------------------------------------------------------------------ hidden information: render and turns
@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_render_for_a_viewer_depends_only_on_what_that_viewer_may_see(name, opts):
    env = load(name).env(render_mode="ansi", **opts)
    env.reset(seed=13)
    game = env.unwrapped.game
    rng = Rng(5)
    differs = [0]
    checked = [0]

    def check(env, agent, obs):
        if checked[0] >= 25:
            return
        checked[0] += 1
        st = env.unwrapped.game_state
        for p in range(game.num_players):
            other = game.sample_consistent(st, p, rng)
            assert game.render(other, p) == game.render(st, p), f"player_{p}'s render leaks"
            differs[0] += game.render(other, None) != game.render(st, None)
        assert env.render(viewer=agent) == game.render(st, env.unwrapped.agent_name_mapping[agent])

    from .conftest import random_play

    random_play(env, np.random.default_rng(13), on_decision=check)
    assert differs[0] > 0, "the spectator's render never showed a hidden card"
    with pytest.raises(InvalidOptionError, match="viewer"):
        env.render(viewer="player_9")


def _seen_by(events, p):
    """What seat ``p`` saw of a step's events: the public part of each, and the private part of its own."""
    return [(kind, seat, pub, priv if seat == p else None) for kind, seat, pub, priv in events]


@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_turn_order_and_observations_after_a_move_depend_only_on_public_events(name, opts):
    """For a seat p that is not to move, re-deal what p cannot see. After the same move in both worlds,
    whenever the table saw the same events (the engine's public events: knocks, draws, skipped turns, laid
    cards -- what the rules make public), the next seat to act must be the same, and p's observation too
    when p also drew the same cards: whose turn it is never tells anyone more than the table saw."""
    env = load(name).env(**opts)
    env.reset(seed=19)
    game = env.unwrapped.game
    rng = Rng(11)
    pick = np.random.default_rng(19)
    compared = [0]

    def worlds(st, p, mover):
        """States p cannot tell from ``st``: a re-deal of all p cannot see, and (so that p's own draws from
        the stock stay the same) one hidden card swapped between two seats that are neither p nor the mover."""
        yield game.sample_consistent(st, p, rng)
        others = [q for q in range(game.num_players) if q not in (p, mover) and st.hands[q]]
        if len(others) >= 2:
            x, z = pick.choice(others, 2, replace=False)
            cx = int(pick.choice(bits(st.hands[x])))
            cz = int(pick.choice(bits(st.hands[z])))
            w = st.clone()
            w.hands[x] ^= (1 << cx) | (1 << cz)
            w.hands[z] ^= (1 << cx) | (1 << cz)
            if np.array_equal(game.observe(w, p), game.observe(st, p)):
                yield w

    def check(env, agent, obs):
        if compared[0] >= 400:
            return
        st = env.unwrapped.game_state
        mover = st.current_player
        for p in range(game.num_players):
            if p == mover:
                continue
            for other in worlds(st, p, mover):
                common = sorted(set(st.legal_actions()) & set(other.legal_actions()))
                for a in pick.permutation(common)[:3]:
                    s1, s2 = st.clone(), other.clone()
                    s1.apply_action(int(a))
                    s2.apply_action(int(a))
                    if any(ev[0] == "deal_end" for ev in s1.events + s2.events):
                        continue  # a new deal is dealt from each world's own future: not comparable
                    if _seen_by(s1.events, -1) != _seen_by(s2.events, -1):
                        continue  # the table saw different things (a knock, a face-up card): may differ
                    compared[0] += 1
                    assert s1.current_player == s2.current_player, (
                        f"after {game.action_to_string(st, int(a))} the turn went to player_{s1.current_player} "
                        f"or player_{s2.current_player} depending on cards player_{p} cannot see")
                    if _seen_by(s1.events, p) == _seen_by(s2.events, p):  # and p drew the same cards
                        assert np.array_equal(game.observe(s1, p), game.observe(s2, p)), \
                            f"player_{p}'s observation after the same public events differs"

    from .conftest import random_play

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        random_play(env, np.random.default_rng(19), on_decision=check)
    assert compared[0] > 20


# ------------------------------------------------------------------ the three turn-order leaks found before
def test_donkey_mover_is_asked_to_go_on_whenever_the_table_cannot_rule_a_double_out():
    """RULES D4.2: after 22 at L the ends R (3), U and D (1) showed their number when the move began; 33 is not
    on the table, so the mover is asked again whether or not it holds 33 (here it does not: only "done")."""
    hands = ["11 00 01 02 46 56 66", "12 03 04 05 06 14 15", "13 16 24 25 26 34 33", "22 23 35 36 44 45 55"]
    views = []
    for swap in (False, True):  # the same table with 33 in the mover's hand instead of player_2's
        h = list(hands)
        if swap:
            h[2], h[3] = h[2].replace("33", "35"), h[3].replace("35", "33")
        env = load("donkey_v0").env()
        env.reset(seed=0, options={"hands": h})
        for move in ("11", "12L", "13R", "22L"):
            env.step(env.unwrapped.move_to_action(move))
        assert env.agent_selection == "player_3"
        assert env.unwrapped.legal_moves() == (["33R", "33Rx", "done"] if swap else ["done"])
        views.append(env.observe("player_0")["observation"])
    assert np.array_equal(*views), "player_0 sees whether the mover holds 33"


def test_beat_or_discard_every_seat_that_could_claim_by_public_counts_is_asked():
    """C1.13: before the lead every other seat holding enough cards is asked, clockwise from the leader,
    whatever it holds; a seat without four of a suit can only pass. The claim's notation shows no N."""
    env = load("beat_or_discard_v0").env()
    found = 0
    for seed in range(40):
        env.reset(seed=seed)
        st = env.unwrapped.game_state
        leader = st.leader
        asked = []
        while st.phase == 0:  # the claim pass before the first lead
            asked.append(st.current_player)
            moves = env.unwrapped.legal_moves()
            assert moves in (["pass"], ["pass", "claim"])
            found += moves == ["pass"]
            assert env.unwrapped.action_to_move(39) == "claim"
            env.step(env.unwrapped.move_to_action("pass"))
        assert asked == [(leader + k) % 4 for k in range(1, 4)]
    assert found > 20


def test_six_of_spades_every_holder_of_four_is_asked_for_a_call():
    """C3.5 with calls="offer": all four seats are asked clockwise from the scheduled leader (player_0), even
    those without a call (only "pass"); player_1's Moskva is asked about in its turn."""
    env = load("six_of_spades_v0").env()
    env.reset(seed=0, options=dict(hands=["7C 8C 9D 7S", "AS AH TC TD", "8D 9C 7D 8S", "6C 6D 9S JS"],
                                   trump_card="6H", dealer=3))
    u = env.unwrapped
    seen = []
    for _ in range(4):
        seen.append((env.agent_selection, u.legal_moves()))
        env.step(u.move_to_action("pass"))
    assert seen == [("player_0", ["pass"]), ("player_1", ["moskva", "pass"]), ("player_2", ["pass"]),
                    ("player_3", ["pass"])]
    assert env.agent_selection == "player_0" and "lead" not in u.legal_moves()  # the scheduled lead
