""":class:`kozel_env.core.rng.Rng` (splitmix64) for many games at once, bit for bit.

A batch keeps one ``uint64`` per game; :func:`draws` advances every selected game's generator by ``k`` steps
and returns the ``k`` outputs, computed in one go (splitmix64's state moves by a constant each step). The
batched engines deal from these exactly as the scalar engines deal from their ``Rng``, so a game in a batch
sees the same deals as the scalar env with the same seed.
"""
from __future__ import annotations

import numpy as np

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_C1 = np.uint64(0xBF58476D1CE4E5B9)
_C2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


def mix(s: np.ndarray) -> np.ndarray:
    """splitmix64's output function of an (already advanced) state array."""
    z = (s ^ (s >> _S30)) * _C1
    z = (z ^ (z >> _S27)) * _C2
    return z ^ (z >> _S31)


def draws(state: np.ndarray, idx: np.ndarray, k: int) -> np.ndarray:
    """The next ``k`` outputs of the generators ``state[idx]`` (``uint64[len(idx), k]``, column 0 first);
    ``state[idx]`` moves on by ``k`` steps, as ``k`` calls of ``Rng.next_u64`` would."""
    s0 = state[idx]
    steps = GOLDEN * np.arange(1, k + 1, dtype=np.uint64)
    out = mix(s0[:, None] + steps[None, :])
    state[idx] = s0 + steps[-1]
    return out


def next_u64(state: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """One output per selected generator (``Rng.next_u64``)."""
    return draws(state, idx, 1)[:, 0]


def below(state: np.ndarray, idx: np.ndarray, n: int) -> np.ndarray:
    """``Rng.below(n)`` per selected generator, as int64."""
    return (next_u64(state, idx) % np.uint64(n)).astype(np.int64)


def shuffled(state: np.ndarray, idx: np.ndarray, items) -> np.ndarray:
    """``Rng.shuffle(list(items))`` per selected generator: ``int64[len(idx), len(items)]``, row ``r`` the
    Fisher-Yates shuffle that ``Rng(state[idx[r]])`` gives (the draws for positions n-1 .. 1 in order)."""
    n = len(items)
    out = shuffles(state, idx, items, 1)[:, 0]
    advance(state, idx, np.full(len(idx), n - 1))
    return out


def shuffles(state: np.ndarray, idx: np.ndarray, items, count: int) -> np.ndarray:
    """The next ``count`` shuffles of ``items`` that the generators ``state[idx]`` would make one after the
    other (``int64[len(idx), count, len(items)]``), without moving ``state``: a caller that keeps the first
    ``u`` of them advances game ``k`` by ``u * (len(items) - 1)`` steps with :func:`advance`. Dealing with
    a redeal rule draws two at once, so a redeal rarely costs a second pass."""
    base = np.asarray(items, np.int64)
    n = len(base)
    k = len(idx)
    out = np.broadcast_to(base, (k * count, n)).copy()
    if n < 2 or k == 0:
        return out.reshape(k, count, n)
    z = draws(state.copy(), idx, (n - 1) * count).reshape(k * count, n - 1)
    js = (z % np.arange(n, 1, -1, dtype=np.uint64)).astype(np.int64)
    flat = out.reshape(-1)
    row0 = np.arange(k * count)[:, None] * n
    # swap m exchanges positions i = n-1-m and j_m of every row: one take and one put of both positions
    fi = row0 + np.arange(n - 1, 0, -1)
    pairs = np.stack([js + row0, fi])  # [2, rows, n-1]: the flat (j, i) of every swap
    swapped = np.ascontiguousarray(pairs[::-1].transpose(2, 0, 1).reshape(n - 1, -1))
    pairs = np.ascontiguousarray(pairs.transpose(2, 0, 1).reshape(n - 1, -1))
    for m in range(n - 1):
        flat[swapped[m]] = flat[pairs[m]]
    return out.reshape(k, count, n)


def advance(state: np.ndarray, idx: np.ndarray, steps: np.ndarray) -> None:
    """Move the generators ``state[idx]`` on by ``steps`` outputs each (as that many ``next_u64`` calls)."""
    state[idx] += GOLDEN * np.asarray(steps, np.uint64)


def seeds_from(seed: int, count: int) -> np.ndarray:
    """``count`` 64-bit seeds derived from one: the first ``count`` outputs of ``Rng(seed)``
    (``uint64[count]``). Game ``i`` of a batch made with ``seed`` is the scalar env reset with
    ``seed=seeds_from(seed, count)[i]``."""
    st = np.array([int(seed) & ((1 << 64) - 1)], np.uint64)
    return draws(st, np.array([0]), count)[0] if count else np.zeros(0, np.uint64)
