"""The batched splitmix64 (:mod:`kozel_env.vector.rng`) gives the scalar :class:`~kozel_env.core.rng.Rng`'s
numbers and shuffles bit for bit: the batched deals depend on it."""
import numpy as np

from kozel_env.core.rng import Rng
from kozel_env.vector import rng as vr

SEEDS = [0, 5, 12345, 2 ** 63 + 7, 2 ** 64 - 3]


def test_draws_are_the_scalar_rng_outputs_and_advance_it():
    st = np.array(SEEDS, np.uint64)
    out = vr.draws(st, np.arange(len(SEEDS)), 5)
    for i, s in enumerate(SEEDS):
        r = Rng(s)
        assert [r.next_u64() for _ in range(5)] == out[i].tolist()
        assert int(st[i]) == r.s


def test_shuffled_is_the_scalar_fisher_yates_shuffle():
    st = np.array(SEEDS, np.uint64)
    out = vr.shuffled(st, np.arange(len(SEEDS)), range(36))
    for i, s in enumerate(SEEDS):
        r = Rng(s)
        assert r.shuffle(list(range(36))) == out[i].tolist()
        assert int(st[i]) == r.s


def test_below_and_a_subset_leave_the_other_generators_alone():
    st = np.array(SEEDS, np.uint64)
    idx = np.array([1, 3])
    got = vr.below(st, idx, 4)
    for k, i in enumerate(idx):
        assert got[k] == Rng(SEEDS[i]).below(4)
    assert int(st[0]) == SEEDS[0] and int(st[2]) == SEEDS[2]


def test_seeds_from_is_the_rng_stream():
    r = Rng(99)
    assert vr.seeds_from(99, 4).tolist() == [r.next_u64() for _ in range(4)]


def test_shuffles_are_the_next_shuffles_one_after_the_other_and_advance_moves_on():
    st = np.array(SEEDS, np.uint64)
    idx = np.arange(len(SEEDS))
    out = vr.shuffles(st, idx, range(28), 3)
    assert st.tolist() == SEEDS  # not moved
    for i, s in enumerate(SEEDS):
        r = Rng(s)
        assert [r.shuffle(list(range(28))) for _ in range(3)] == out[i].tolist()
    vr.advance(st, idx, np.full(len(SEEDS), 2 * 27))
    for i, s in enumerate(SEEDS):
        r = Rng(s)
        r.shuffle(list(range(28)))
        r.shuffle(list(range(28)))
        assert int(st[i]) == r.s
