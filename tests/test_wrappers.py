"""The single-agent gymnasium view (kozel_env.wrappers): gymnasium's own checker on every env, every kind of
opponent, side play, seeding, and rewards / infos equal to what the AEC env gives the same seat."""
import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from kozel_env.core.aec import FLAT_KEYS, RENDER_MODES
from kozel_env.core.errors import IllegalActionError, InvalidOptionError
from kozel_env.registry import ENVIRONMENTS, load
from kozel_env.wrappers import OpponentPool, SingleAgentEnv, gym_id

from .conftest import ENV_DEFAULTS

WRAPPER_KEYS = ("seat", "action_mask", "illegal_action")


class Logged:
    """A seeded random policy ``f(obs, mask)`` that appends every action it takes to a shared log."""

    def __init__(self, log, seed):
        self.log, self.rng = log, np.random.default_rng(seed)

    def __call__(self, obs, mask):
        a = int(self.rng.choice(np.flatnonzero(mask)))
        self.log.append(a)
        return a


def play(env, seed, policy_seed=0, log=None, reset_options=None):
    """One episode with random legal caller moves; returns (reset info, [(obs, reward, term, info)])."""
    rng = np.random.default_rng(policy_seed)
    obs, info = env.reset(seed=seed, options=reset_options)
    steps = [(obs, None, False, info)]
    done = False
    while not done:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any() and np.array_equal(mask, info["action_mask"].astype(bool))
        a = int(rng.choice(np.flatnonzero(mask)))
        if log is not None:
            log.append(a)
        obs, reward, done, trunc, info = env.step(a)
        assert not trunc and isinstance(reward, float)
        steps.append((obs, reward, done, info))
    return steps


def replay_decisions(env_name, seed, actions, seats, reset_options=None, **env_kwargs):
    """Replay ``actions`` in the AEC env; at every turn of one of ``seats`` (and at its final dead step)
    record what ``last()`` gives it: (seat, observation, reward, info)."""
    aec = load(env_name).env(**env_kwargs)
    aec.reset(seed=seed, options=reset_options)
    it = iter(actions)
    seen = []
    for agent in aec.agent_iter():
        obs, reward, term, trunc, info = aec.last()
        seat = aec.agent_name_mapping[agent]
        if seat in seats:
            seen.append((seat, obs["observation"], reward, info))
        aec.step(None if term or trunc else next(it))
    assert next(it, None) is None, "actions left over"
    return seen, aec


def strip(info):
    return {k: v for k, v in info.items() if k not in WRAPPER_KEYS}


# ------------------------------------------------------------------ gymnasium's checker, registration
@pytest.mark.parametrize("name,opts", ENV_DEFAULTS)
def test_check_env_every_env(name, opts):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # gymnasium's checker warns about anything doubtful: make it fail
        check_env(SingleAgentEnv(name, opponents="random", **opts), skip_render_check=True)
        check_env(gymnasium.make(gym_id(name), opponents="random", **opts).unwrapped)
        check_env(SingleAgentEnv(name, opponents="random", observation="dict", side=True, **opts),
                  skip_render_check=True)


def test_every_env_is_registered_by_importing_kozel_env():
    """``import kozel_env`` alone (not kozel_env.wrappers) registers every id; make builds the env."""
    code = ("import kozel_env, gymnasium, sys\n"
            "assert 'kozel_env.dominoes_v0' not in sys.modules\n"
            f"ids = [k for k in gymnasium.registry if k.startswith('kozel/')]\n"
            f"assert sorted(ids) == {sorted(gym_id(n) for n in ENVIRONMENTS)!r}, ids\n"
            "env = gymnasium.make('kozel/dominoes_v0', opponents='normal')\n"
            "obs, info = env.reset(seed=0)\n"
            "assert env.observation_space.contains(obs) and env.unwrapped.action_masks().any()\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_metadata_lists_the_aec_render_modes():
    assert SingleAgentEnv.metadata["render_modes"] == list(RENDER_MODES)
    env = SingleAgentEnv("queens_and_jacks_v0", render_mode="ansi", seed=0)
    assert "legal:" in env.render()


# ------------------------------------------------------------------ rewards and infos equal the AEC env's
@pytest.mark.parametrize("reward", ["outcome", "points"])
@pytest.mark.parametrize("name,opts", ENV_DEFAULTS)
def test_rewards_and_infos_equal_what_the_aec_env_gives_the_seat(name, opts, reward):
    """Every step's reward is what ``last()`` gives the seat at its next turn (everything since it acted),
    its infos are the seat's AEC infos, and observations are the seat's."""
    for seed in (3, 11):
        log = []
        env = SingleAgentEnv(name, opponents=Logged(log, seed), reward=reward, episode="deal", **opts)
        steps = play(env, seed, policy_seed=seed, log=log)
        seat = env.seats[0]
        seen, aec = replay_decisions(name, seed, log, {seat}, reward=reward, episode="deal", infos="flat", **opts)
        assert len(seen) == len(steps)
        # the first decision's last() reward (a deal ended in the set-up) goes into the first step's reward
        expect = [seen[0][2] + seen[1][2]] + [s[2] for s in seen[2:]]
        assert [s[1] for s in steps[1:]] == pytest.approx(expect)
        for (obs, _, _, info), (s, aobs, _, ainfo) in zip(steps, seen):
            assert np.array_equal(obs, aobs) and strip(info) == ainfo and info["seat"] == s == seat
        assert sum(s[1] for s in steps[1:]) == pytest.approx(sum(s[2] for s in seen))
        assert steps[-1][2] and steps[-1][3]["match_over"] == 1.0


def test_rewards_before_the_first_decision_come_with_the_first_step():
    """A six-of-spades deal that plays out inside reset (tests/test_trust.py): its points reach the seat
    with its first step's reward, and the episode's rewards still add up to the AEC env's."""
    setup = dict(hands=["6C 6D 9S JS", "AH TH KH 6S", "7C 8C 9D 7S", "8D 9C 7D 8S"], trump_card="6H", dealer=0,
                 stock="AD TD AC TC QH JH KC QC 9H 8H KD QD 7H KS QS TS JC JD AS")
    log = []
    env = SingleAgentEnv("six_of_spades_v0", opponents=Logged(log, 0), seat=0, reward="points", calls="auto",
                         target=12)
    steps = play(env, 0, log=log, reset_options=setup)
    assert steps[0][3]["deals_ended"] == 1.0  # reported at reset, rewarded with the first step
    seen, _ = replay_decisions("six_of_spades_v0", 0, log, {0}, reset_options=setup, reward="points",
                               calls="auto", target=12, infos="flat")
    assert seen[0][2] == -3.0
    assert steps[1][1] == pytest.approx(seen[0][2] + seen[1][2])
    assert [s[1] for s in steps[2:]] == pytest.approx([s[2] for s in seen[2:]])


def test_outcome_match_reward_is_the_match_return_and_each_deal_is_reported_once():
    env = SingleAgentEnv("dominoes_v0", opponents="random", seat=1)
    steps = play(env, seed=5)
    st = env.aec.unwrapped.game_state
    assert st.terminal and len(st.results) >= 1
    assert sum(s[1] for s in steps[1:]) == st.returns()[1] == steps[-1][3]["match_return"]
    assert sum(s[3]["deals_ended"] for s in steps) == len(st.results)
    assert sum(s[3]["deal_points"] for s in steps) == sum(r["seat_points"][1] for r in st.results)


def test_full_infos_and_no_infos():
    env = SingleAgentEnv("queens_and_jacks_v0", opponents="random", seat=0, infos="full")
    steps = play(env, seed=2)
    st = env.aec.unwrapped.game_state
    deals = [d for s in steps for d in s[3].get("deals", [])]
    assert deals == list(st.results) and steps[-1][3]["match"] == st.match_result
    env = SingleAgentEnv("queens_and_jacks_v0", opponents="random", infos="none", episode="deal")
    obs, info = env.reset(seed=0)
    assert info == {} and env.step(int(np.flatnonzero(env.action_masks())[0]))[4] == {}


# ------------------------------------------------------------------ side play
@pytest.mark.parametrize("reward", ["outcome", "points"])
def test_side_plays_both_seats_of_the_pair(reward):
    log = []
    env = SingleAgentEnv("dominoes_v0", opponents=Logged(log, 1), side=True, seat=3, reward=reward)
    steps = play(env, seed=8, log=log)
    assert env.seats == (1, 3)
    movers = [s[3]["seat"] for s in steps[:-1]]
    assert set(movers) == {1, 3}
    seen, aec = replay_decisions("dominoes_v0", 8, log, {1, 3}, reward=reward, infos="flat")
    decisions = seen[:-2]  # the last two: the seats' dead steps at the end
    assert [s[0] for s in decisions] == movers
    for (obs, _, _, _), (_, aobs, _, _) in zip(steps, decisions):
        assert np.array_equal(obs, aobs)  # the observation of the seat to move
    u = aec.unwrapped
    st = u.game_state
    assert sum(s[1] for s in steps[1:]) == pytest.approx(
        sum(r["seat_points"][1] - sum(r["seat_points"]) / 4 for r in st.results) if reward == "points"
        else st.returns()[1])
    assert sum(s[3]["deals_ended"] for s in steps) == len(st.results)  # each deal once, not once per seat


def test_side_in_a_free_for_all_game_is_one_seat():
    env = SingleAgentEnv("dominoes_ffa_v0", opponents="random", side=True, seat=1, num_players=3)
    env.reset(seed=0)
    assert env.seats == (1,)


def test_random_seat_each_episode():
    env = SingleAgentEnv("dominoes_v0", opponents="random")
    seats = set()
    for _ in range(20):
        env.reset()
        seats.add(env.seats[0])
    assert len(seats) > 1
    env = SingleAgentEnv("dominoes_v0", opponents="random", side=True)
    sides = {env.reset()[1]["seat"] % 2 for _ in range(20)}
    assert sides == {0, 1}


# ------------------------------------------------------------------ opponents of every kind
@pytest.mark.parametrize("opponent", ["random", "normal", "greedy", "pimc:n=2", "rl"])
def test_bot_opponents_by_name(opponent):
    env = SingleAgentEnv("dominoes_v0", opponents=opponent, episode="deal")
    for seed in range(2):
        steps = play(env, seed)
        assert steps[-1][2]
    assert all(kind == "agent" for kind, _ in env._seat_opp.values())


def test_shipped_checkpoint_is_the_rl_opponent():
    import agents

    env = SingleAgentEnv("queens_and_jacks_v0", opponents="rl", episode="deal", seed=0)
    bot = env._seat_opp[next(iter(env._seat_opp))][1]
    shipped = agents.load("queens_and_jacks_v0")
    assert [w.tolist() for w, _ in bot.policy.layers] == [w.tolist() for w, _ in shipped.policy.layers]


def test_agent_object_and_needs_state_agent():
    import agents

    calls = []

    class Spy(agents.RandomAgent):
        def act(self, observation, action_mask):
            calls.append(1)
            return super().act(observation, action_mask)

        def reset(self):
            calls.append("reset")

    env = SingleAgentEnv("dominoes_v0", opponents=Spy("dominoes_v0", 0), episode="deal")
    play(env, 0)
    assert "reset" in calls and calls.count(1) > 3
    pimc = agents.make_agent("pimc:n=2", "dominoes_v0", seed=0)
    assert pimc.needs_state
    play(SingleAgentEnv("dominoes_v0", opponents=pimc, episode="deal"), 1)


def test_plain_callable_needs_no_agents_package():
    code = ("import sys, numpy as np\n"
            "from kozel_env.wrappers import SingleAgentEnv\n"
            "env = SingleAgentEnv('queens_and_jacks_v0', opponents=lambda o, m: int(np.flatnonzero(m)[-1]))\n"
            "env.reset(seed=0); done = False\n"
            "while not done:\n"
            "    done = env.step(int(np.flatnonzero(env.action_masks())[0]))[2]\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('agents', 'torch'))\n"
            "assert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_opponent_pool_is_sampled_per_episode_and_grows():
    first, second = [], []
    pool = OpponentPool([Logged(first, 0)], max_size=2)
    env = SingleAgentEnv("dominoes_v0", opponents=pool, episode="deal", seat=0)
    play(env, 0)
    assert first and not second
    pool.add(Logged(second, 1))
    pool.add("random")  # max_size 2: the first entry leaves
    assert len(pool) == 2 and pool.policies[0].log is second
    n = len(first)
    for seed in range(6):
        play(env, seed)
    assert len(first) == n and second  # the dropped entry never played again, the new one did
    with pytest.raises(ValueError, match="empty"):
        SingleAgentEnv("dominoes_v0", opponents=OpponentPool()).reset(seed=0)
    with pytest.raises(InvalidOptionError):
        pool.add(42)


def test_an_opponent_that_plays_a_masked_out_move_raises():
    env = SingleAgentEnv("dominoes_v0", opponents=lambda o, m: int(np.flatnonzero(m == 0)[0]), seat=3)
    with pytest.raises(IllegalActionError, match="opponent"):
        env.reset(seed=0)


# ------------------------------------------------------------------ seeding
@pytest.mark.parametrize("opponents", ["random", "normal", "pool"])
def test_same_seed_same_episode(opponents):
    """The seat, the pool's draw and the bots' seeds all come from the seed (random bots included)."""
    def run(seed):
        opp = OpponentPool(["random", "greedy", "random"]) if opponents == "pool" else opponents
        env = SingleAgentEnv("six_of_spades_v0", opponents=opp, seat=None)
        steps = play(env, seed)
        return [(o.tolist(), r, d, strip(i), i["seat"]) for o, r, d, i in steps]

    assert run(7) == run(7)
    assert run(7) != run(8)


def test_reset_seed_deals_the_aec_deal_and_reset_continues_the_stream():
    env = SingleAgentEnv("queens_and_jacks_v0", opponents="random", seat=0)
    env.reset(seed=4)
    aec = load("queens_and_jacks_v0").env()
    aec.reset(seed=4)
    assert env.aec.unwrapped.game_state.hands == aec.unwrapped.game_state.hands
    a = [env.reset()[0].tolist() for _ in range(3)]
    env.reset(seed=4)
    assert [env.reset()[0].tolist() for _ in range(3)] == a


def test_an_episode_over_before_the_caller_moves_is_skipped():
    """C1.14: reset(seed=1108252530964337621) deals four sixes (tests/cards/test_beat_or_discard_play.py)."""
    env = SingleAgentEnv("beat_or_discard_v0", opponents="random")
    obs, info = env.reset(seed=1108252530964337621)
    assert env.skipped_episodes == 1 and env.action_masks().any() and info["match_over"] == 0.0
    with pytest.raises(InvalidOptionError, match="ended before"):
        env.reset(seed=0, options={"hands": ["7C 8C 9C TC JC QC", "6C 6D 6H 6S 7D 8D", None, None]})


# ------------------------------------------------------------------ moves, masks, errors
def test_illegal_move_loses_by_default_or_raises():
    env = SingleAgentEnv("dominoes_v0", opponents="random", seat=0, seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, done, trunc, info = env.step(bad)
    assert done and reward == -1.0 and info["illegal_action"] == 1.0 and info["deals_ended"] == 0.0
    assert not env.action_masks().any() and not info["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env = SingleAgentEnv("dominoes_v0", opponents="random", seat=0, seed=0, illegal_action="raise")
    before = env.action_masks().copy()
    with pytest.raises(IllegalActionError):
        env.step(bad)
    assert np.array_equal(env.action_masks(), before)
    good = np.array(np.flatnonzero(before)[0])  # a 0-d int array, as vectorized libraries pass it
    assert env.step(good)[1] == 0.0


def test_dict_observation_holds_the_mask():
    env = SingleAgentEnv("sea_goat_v0", opponents="random", observation="dict", seed=0)
    obs, info = env.reset(seed=0)
    assert set(obs) == {"observation", "action_mask"} and env.observation_space.contains(obs)
    assert np.array_equal(obs["action_mask"].astype(bool), env.action_masks())


@pytest.mark.parametrize("kwargs", [{"env_name": "chess_v0"}, {"seat": 4}, {"seat": True}, {"side": 1},
                                    {"opponents": 42}, {"opponents": "no_such_bot"}, {"observation": "image"},
                                    {"infos": "bad"}])
def test_bad_arguments(kwargs):
    kwargs = {"env_name": "dominoes_v0", **kwargs}
    with pytest.raises((InvalidOptionError, KeyError)):
        SingleAgentEnv(**kwargs)


def test_flat_infos_keep_fixed_keys():
    env = SingleAgentEnv("boneyard_v0", opponents="random", episode="deal")
    for _, _, _, info in play(env, 1):
        assert set(info) == set(FLAT_KEYS) | set(WRAPPER_KEYS)
