"""The array parts of the batched ``beat_or_discard_v0`` (issue 34) against the scalar code they mirror:
beating sets (C1.3) of random hands and top cards, and whole batches stepped beside the AEC env without
``venv.state()`` in between (that call writes every game's arrays into its scalar state; without it the
scalar states are brought up to date only where the engine hands a game off to the scalar code: the match
must still be the same)."""
import numpy as np
import pytest

from kozel_env import vector
from kozel_env.cards.beat_or_discard import beats
from kozel_env.registry import ENVIRONMENTS, load
from kozel_env.vector import beat_or_discard_moves as moves
from kozel_env.vector.beat_or_discard import BatchedBeatOrDiscard

CASES = [opts for opts in ENVIRONMENTS["beat_or_discard_v0"][1]] + [
    {"mode": "solo", "num_players": 4, "reward": "points", "claim_min": 5},
    {"claims": False, "four_of_a_kind": False, "target": 70, "episode": "deal"},
]


@pytest.fixture(autouse=True)
def _arrays(monkeypatch):
    """The array moves at every batch size (a small batch would step the scalar states)."""
    monkeypatch.setattr(BatchedBeatOrDiscard, "ARRAYS_FROM", 1)


def _random_positions(gen, count, suits=4):
    """Disjoint (hand of 0-6 cards, top of 1-6 cards) from ``suits`` suits (the first: trump or not)."""
    hands, tops, trumps = [], [], []
    for _ in range(count):
        cards = gen.permutation(9 * suits)
        h, t = int(gen.integers(0, 7)), int(gen.integers(1, 7))
        hands.append(sum(1 << int(c) for c in cards[:h]))
        tops.append(sum(1 << int(c) for c in cards[h:h + t]))
        trumps.append(int(gen.integers(0, 4)))
    return np.array(hands, np.int64), np.array(tops, np.int64), np.array(trumps, np.int64)


def test_beat_sets_and_can_beat_are_the_scalar_ones():
    gen = np.random.default_rng(3)
    h, t, tr = _random_positions(gen, 3000)
    h2, t2, tr2 = _random_positions(gen, 3000, suits=2)  # two suits: many-card matchings, often with trumps
    h, t, tr = np.concatenate([h, h2]), np.concatenate([t, t2]), np.concatenate([tr, tr2 % 2])
    got = moves.beat_sets(h, t, tr)
    can = moves.can_beat(h, t, tr)
    several = 0
    for k in range(len(h)):
        want = beats.beat_sets(int(h[k]), int(t[k]), int(tr[k]))
        assert sorted(x for x in got[k].tolist() if x) == sorted(want), (h[k], t[k], tr[k])
        assert bool(can[k]) == beats.can_beat(int(h[k]), int(t[k]), int(tr[k]))
        several += len(want) > 1 and int(t[k]).bit_count() > 1
    assert several > 50


def _skip_over_at_setup(env):
    while env.unwrapped.game_state.terminal:
        env.reset()


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("options", CASES, ids=[f"bod-{i}" for i in range(len(CASES))])
def test_batches_stepped_without_state_calls_are_the_aec_env(options, seed):
    name, B = "beat_or_discard_v0", 16
    venv = vector.make(name, B, seed=seed, **options)
    assert venv.engine.arrays
    envs = [load(name).env(**options) for _ in range(B)]
    for env, s in zip(envs, vector.seeds_from(seed, B)):
        env.reset(seed=int(s))
        _skip_over_at_setup(env)
    gen = np.random.default_rng(seed)
    ts = venv.reset()
    deals = episodes = 0
    for step in range(300):
        for b, env in enumerate(envs):
            o = env.observe(env.agent_selection)
            assert np.array_equal(ts.obs[b], o["observation"]), (step, b)
            assert np.array_equal(ts.mask[b], o["action_mask"]), (step, b)
        actions = vector.random_actions(ts.mask, gen)
        ts = venv.step(actions)
        for b, env in enumerate(envs):
            st = env.unwrapped.game_state
            before = len(st.results)
            env.step(int(actions[b]))
            assert ts.rewards[b].tolist() == [np.float32(env.rewards[a]) for a in env.possible_agents], (step, b)
            assert ts.deal_over[b] == (len(st.results) > before), (step, b)
            deals += len(st.results) > before
            assert ts.done[b] == st.terminal, (step, b)
            if st.terminal:
                episodes += 1
                assert ts.info["returns"][b].tolist() == st.match_result["returns"], (step, b)
                env.reset()
                _skip_over_at_setup(env)
    assert deals >= 40 and episodes >= 1, (deals, episodes)

