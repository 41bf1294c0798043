"""Observation layouts defined once, as named parts (OpenSpiel's observer model).

An :class:`ObsSpec` is an ordered list of :class:`Part`s. It gives each part's slice of the flat float32
vector, views a vector as a dict of named, reshaped arrays, supplies the bounds of the gymnasium ``Box``,
and renders the layout as the markdown table that the README shows (``python -m kozel_env.docs``).
"""
from __future__ import annotations

from dataclasses import dataclass
from math import prod

import numpy as np


@dataclass(frozen=True)
class Part:
    name: str
    shape: tuple
    doc: str
    high: float = 1.0

    @property
    def size(self) -> int:
        return prod(self.shape)


class ObsSpec:
    def __init__(self, parts):
        self.parts = tuple(parts)
        names = [p.name for p in self.parts]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate part names in {names}")
        self.slices = {}
        offset = 0
        for p in self.parts:
            self.slices[p.name] = slice(offset, offset + p.size)
            offset += p.size
        self.size = offset
        self.high = np.concatenate([np.full(p.size, p.high, np.float32) for p in self.parts])

    def view(self, vec: np.ndarray) -> dict:
        """The named parts of a flat observation, each reshaped to its part's shape (views, no copies)."""
        return {p.name: vec[self.slices[p.name]].reshape(p.shape) for p in self.parts}

    def markdown(self) -> str:
        rows = ["| part | shape | offset | range | meaning |", "|---|---|---|---|---|"]
        for p in self.parts:
            s = self.slices[p.name]
            hi = int(p.high) if float(p.high).is_integer() else p.high
            rows.append(f"| `{p.name}` | {p.shape} | {s.start} | 0..{hi} | {p.doc} |")
        rows.append(f"| total | ({self.size},) | | | float32 |")
        return "\n".join(rows)


_SHIFTS = np.arange(64, dtype=np.uint64)


def unpack_masks(masks, width: int) -> np.ndarray:
    """Bits ``0..width-1`` of each int in ``masks`` as a float32 array of shape ``(len(masks), width)``."""
    a = np.array(masks, dtype=np.uint64)
    bits = np.unpackbits(a.view(np.uint8).reshape(len(masks), 8), axis=1, bitorder="little")
    return bits[:, :width].astype(np.float32)


BITS14 = tuple(bytes((m >> i) & 1 for i in range(14)) for m in range(1 << 14))
"""BITS14[m]: the 14 low bits of m as bytes 0/1 (lowest first). Observation builders join such pieces into
one bytes object and convert it once, which is several times faster than numpy per part."""
BITS7 = BITS14[:128]
"""BITS7[m] for m < 128 (7-bit fields), as 14 bytes; slice [:7] for the field itself."""
BITS7 = tuple(b[:7] for b in BITS7)


def onehot_bytes(n: int) -> tuple:
    """onehot_bytes(n)[k]: n bytes, 1 at position k."""
    return tuple(bytes(int(i == k) for i in range(n)) for k in range(n))
