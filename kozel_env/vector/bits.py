"""Bit tools of the batched engines: population counts, bit spreading, and the observation packer.

An observation's 0/1 parts are OR-ed into ``uint64`` words, bit ``k`` of the packed row at flat position
``k`` of the observation (the positions come from the game's :class:`~kozel_env.core.spec.ObsSpec`, never
from a written number), and unpacked into the float32 rows in one call, as the scalar builders pack an
int and call ``ObsSpec.unpack_bits``.
"""
from __future__ import annotations

import numpy as np

from ..core.spec import ObsSpec

U64 = np.uint64
ONE = U64(1)
_ALL = U64(0xFFFFFFFFFFFFFFFF)


def popcount(x: np.ndarray) -> np.ndarray:
    """Set bits of each element, as int64."""
    return np.bitwise_count(x).astype(np.int64)


def bit(positions: np.ndarray) -> np.ndarray:
    """``1 << positions`` as uint64 (positions 0..63)."""
    return np.left_shift(ONE, positions.astype(U64))


def lowest_bit_index(x: np.ndarray) -> np.ndarray:
    """Index of the lowest set bit of each non-zero element (int64)."""
    low = x & (~x + ONE)
    return popcount(low - ONE)


_SPREAD = [(U64(16), U64(0x0000FFFF0000FFFF)), (U64(8), U64(0x00FF00FF00FF00FF)),
           (U64(4), U64(0x0F0F0F0F0F0F0F0F)), (U64(2), U64(0x3333333333333333)), (U64(1), U64(0x5555555555555555))]


def _spread_scalar(x: int) -> int:
    for sh, m in _SPREAD:
        x = (x | (x << int(sh))) & int(m)
    return x


_SPREAD14 = np.array([_spread_scalar(m) for m in range(1 << 14)], U64)
_M14, _S14, _S28 = U64(0x3FFF), U64(14), U64(28)


def spread2(x: np.ndarray) -> np.ndarray:
    """Bit ``t`` of each 28-bit value moved to bit ``2 t`` (Morton spreading): interleaving two masks
    ``spread2(a) | spread2(b) << 1`` puts ``a``'s bit ``t`` at ``2 t`` and ``b``'s at ``2 t + 1``."""
    return _SPREAD14[(x & _M14).astype(np.intp)] | (_SPREAD14[((x >> _S14) & _M14).astype(np.intp)] << _S28)


def _select8(v: int, r: int) -> int:
    """The bit of rank ``r`` of the byte ``v`` by the halving steps 4, 2, 1 (7 when ``v`` has no such bit)."""
    pos = 0
    for width in (4, 2, 1):
        low = bin(v & ((1 << width) - 1)).count("1")
        if r >= low:
            r, v, pos = r - low, v >> width, pos + width
    return pos


_SELECT8 = np.array([[_select8(v, r) for r in range(8)] for v in range(256)], np.int64)
"""``_SELECT8[byte, r]``: the position of the set bit of rank ``r`` in ``byte``."""
_SELECT_STEPS = tuple((U64(w), U64((1 << w) - 1), w) for w in (32, 16, 8))
_M8 = U64(0xFF)


def select_bit(words: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Per row of ``words`` (``uint64[B, W]``, bit ``j`` of word ``w`` standing for ``64 w + j``), the
    position of the set bit of rank ``k`` (0-based, below the row's popcount): the ``k``-th legal action of
    a packed mask, with no loop over rows. The word that holds it, then halving steps down to a byte, then a
    table (products with the 0/1 step flags instead of ``np.where``: fewer temporaries)."""
    k = np.array(k, np.int64)
    B, W = words.shape
    x = words[:, 0].copy()
    pos = np.zeros(B, np.int64)
    if W > 1:
        k0 = k.copy()
        for w in range(1, W):
            c = np.bitwise_count(x)
            up = k >= c  # the rank lies past this word's bits: word w
            k -= c * up
            x = np.where(up, words[:, w], x)
            pos += up * 64
        past = np.flatnonzero(k >= np.bitwise_count(x))  # no bit of that rank: word 0, as a row of no words
        if len(past):
            x[past], k[past], pos[past] = words[past, 0], k0[past], 0
    for shift, low_bits, width in _SELECT_STEPS:
        low = np.bitwise_count(x & low_bits)
        up = k >= low
        k -= low * up
        x >>= up.astype(U64) * shift
        pos += up * width
    np.minimum(k, 7, out=k)  # past the byte's bits (no such bit): as rank 7
    return pos + _SELECT8[(x & _M8).astype(np.intp), k]


class Packer:
    """Packs the first ``nbits`` positions of ``spec`` (its 0/1 parts) for a batch: :meth:`clear`, then
    :meth:`put` each part's value, then :meth:`unpack` into the float32 rows."""

    def __init__(self, spec: ObsSpec, nbits: int, rows: int = 0):
        self.spec = spec
        self.nbits = nbits
        self.words = np.zeros((rows, (nbits + 63) // 64), U64)

    def ensure(self, rows: int) -> np.ndarray:
        """The word buffer for ``rows`` observations (contents undefined: for a builder that assigns whole
        words)."""
        if len(self.words) != rows:
            self.words = np.zeros((rows, self.words.shape[1]), U64)
        return self.words

    def clear(self, rows: int) -> np.ndarray:
        """Start packing ``rows`` observations (all bits 0)."""
        words = self.ensure(rows)
        words[:] = 0
        return words

    def put(self, value: np.ndarray, name: str, *index: int, width: int = 64) -> None:
        """OR ``value`` (uint64, at most ``width`` bits) in at the flat position of part ``name``
        (element ``index``): bit ``j`` of ``value`` lands at ``spec.offset(name, *index) + j``."""
        self.put_at(value, self.spec.offset(name, *index), width)

    def put_at(self, value: np.ndarray, pos: int, width: int = 64) -> None:
        w, sh = divmod(pos, 64)
        words = self.words
        if sh:
            words[:, w] |= value << U64(sh)
            if sh + width > 64:
                words[:, w + 1] |= value >> U64(64 - sh)
        else:
            words[:, w] |= value

    def put_count(self, count: np.ndarray, pos: int, width: int) -> None:
        """A thermometer of ``count`` ones (capped at ``width``; any width, in 64-bit pieces) at ``pos``."""
        count = np.asarray(count, np.int64)
        for start in range(0, width, 64):
            w = min(64, width - start)
            c = np.clip(count - start, 0, w).astype(U64)
            self.put_at(np.where(c >= 64, _ALL, (ONE << np.minimum(c, U64(63))) - ONE), pos + start, w)

    def unpack(self, out: np.ndarray) -> None:
        """Write the packed bits as 0.0 / 1.0 into ``out[:, :nbits]``."""
        b = self.words.astype("<u8", copy=False).view(np.uint8)
        out[:, :self.nbits] = np.unpackbits(b, axis=1, count=self.nbits, bitorder="little")


def unpack_mask(words: np.ndarray, count: int, out: np.ndarray) -> None:
    """``out[:, :count]`` (an int8 mask) from packed uint64 words, bit ``k`` = action ``k``."""
    b = np.ascontiguousarray(words, "<u8").view(np.uint8)
    out[:, :count] = np.unpackbits(b, axis=1, count=count, bitorder="little")


_FEW_ROWS = 512


class Columns:
    """Packs many parts at once: ``pack(rows, layout, nbits, out)`` puts ``rows[i]`` (``uint64[B]``) at flat
    position ``layout[i][0]`` (``layout[i][1]`` bits wide) of every observation. The rows are stacked in
    position order, shifted in place, and each 64-bit word is the sum of its rows (the parts' bits do not
    overlap, so their sum is their OR): a few array calls per word where :meth:`Packer.put_at` takes a few
    per part, and every pass over contiguous rows."""

    def __init__(self):
        self._plans = {}

    @staticmethod
    def _plan(layout: tuple, nbits: int) -> tuple:
        perm = sorted(range(len(layout)), key=lambda i: layout[i][0])
        pos = np.array([layout[i][0] for i in perm], np.int64)
        width = np.array([layout[i][1] for i in perm], np.int64)
        word = pos // 64
        groups = [(w, int(np.searchsorted(word, w)), int(np.searchsorted(word, w, "right")))
                  for w in range((nbits + 63) // 64)]
        spill = np.flatnonzero(pos % 64 + width > 64)  # rows that run into the next word
        used = [w for w, a, b in groups if b > a]
        starts = [a for w, a, b in groups if b > a]
        shift = (pos % 64).astype(U64)[:, None]
        return perm, shift, groups, spill, word[spill] + 1, 64 - pos[spill] % 64, used, starts

    def pack(self, rows: list, layout: tuple, nbits: int, out: np.ndarray) -> None:
        plan = self._plans.get(layout)
        if plan is None:
            plan = self._plans[layout] = self._plan(layout, nbits)
        perm, shift, groups, spill, target, back, used, starts = plan
        v = np.stack([rows[i] for i in perm])
        hi = [v[i] >> U64(b) for i, b in zip(spill, back)]
        v <<= shift
        words = np.zeros((len(groups), v.shape[1]), U64)
        if v.shape[1] <= _FEW_ROWS:  # small batch: one call (add.reduceat runs slowly over long rows)
            words[used] = np.add.reduceat(v, starts, axis=0)
        else:
            for w, a, b in groups:
                if b > a:
                    np.sum(v[a:b], axis=0, out=words[w])
        for t, x in zip(target, hi):
            words[t] += x
        b = np.ascontiguousarray(words.T).view(np.uint8)
        out[:, :nbits] = np.unpackbits(b, axis=1, count=nbits, bitorder="little")
