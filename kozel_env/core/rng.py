"""A tiny, portable pseudo-random generator (splitmix64) whose whole state is one integer.

Engines keep their randomness in an :class:`Rng` stored on the game state, so ``clone()`` copies it for
the price of one int and the same seed gives the same deals on every machine and Python version
(no dependence on ``random`` or numpy internals). Pgx-style: randomness comes only from an explicit seed.
"""
from __future__ import annotations

_M64 = (1 << 64) - 1


class Rng:
    __slots__ = ("s",)

    def __init__(self, seed: int = 0):
        self.s = int(seed) & _M64

    def clone(self) -> Rng:
        r = Rng.__new__(Rng)
        r.s = self.s
        return r

    def next_u64(self) -> int:
        self.s = s = (self.s + 0x9E3779B97F4A7C15) & _M64
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform integer in ``[0, n)`` (n >= 1); the modulo bias at 64 bits is negligible for n < 2**20."""
        return self.next_u64() % n

    def shuffle(self, items: list) -> list:
        """Fisher-Yates shuffle in place; returns ``items``."""
        for i in range(len(items) - 1, 0, -1):
            j = self.next_u64() % (i + 1)
            items[i], items[j] = items[j], items[i]
        return items

    def pick_bit(self, mask: int) -> int:
        """Index of a uniformly chosen set bit of ``mask`` (mask != 0)."""
        k = self.below(mask.bit_count())
        while k:
            mask &= mask - 1
            k -= 1
        return (mask & -mask).bit_length() - 1

    def spawn(self) -> int:
        """A fresh 64-bit seed, e.g. for the next episode."""
        return self.next_u64()


def seed_from_entropy() -> int:
    import os

    return int.from_bytes(os.urandom(8), "little")


def as_rng(rng) -> Rng:
    """The one coercion to an :class:`Rng`: an ``Rng`` is returned as is (and advanced by its user), an int
    seeds a new one, a numpy ``Generator`` or ``random.Random`` gives a 64-bit seed drawn from it."""
    if isinstance(rng, Rng):
        return rng
    if isinstance(rng, int) and not isinstance(rng, bool):
        return Rng(rng)
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy is a core dependency
        np = None
    if np is not None and isinstance(rng, np.integer):
        return Rng(int(rng))
    if hasattr(rng, "integers"):
        return Rng(int(rng.integers(0, 2 ** 63)))
    if hasattr(rng, "getrandbits"):
        return Rng(rng.getrandbits(64))
    raise TypeError(f"rng must be a kozel_env Rng, an int seed, a numpy Generator or random.Random, got {rng!r}")
