"""The bit tools of the batched engines (:mod:`kozel_env.vector.bits`) against plain Python ints."""
import numpy as np

from kozel_env.vector.bits import popcount, select_bit, spread2


def test_select_bit_finds_the_set_bit_of_every_rank_across_words():
    gen = np.random.default_rng(0)
    words = gen.integers(0, 2 ** 63, size=(300, 3), dtype=np.int64).astype(np.uint64)
    words[::7, 1] = 0
    words[::5, 0] = 0
    for _ in range(5):
        total = popcount(words).sum(axis=1)
        k = (gen.random(300) * total).astype(np.int64)
        got = select_bit(words, k)
        for r in range(300):
            value = sum(int(w) << (64 * i) for i, w in enumerate(words[r]))
            ones = [j for j in range(192) if value >> j & 1]
            assert got[r] == ones[k[r]]


def test_spread2_interleaves_two_masks():
    gen = np.random.default_rng(1)
    a = gen.integers(0, 2 ** 28, size=100).astype(np.uint64)
    b = gen.integers(0, 2 ** 28, size=100).astype(np.uint64)
    both = spread2(a) | (spread2(b) << np.uint64(1))
    for x, y, z in zip(a.tolist(), b.tolist(), both.tolist()):
        assert all((z >> (2 * t) & 1) == (x >> t & 1) and (z >> (2 * t + 1) & 1) == (y >> t & 1) for t in range(28))
