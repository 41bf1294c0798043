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
        self.offsets = {}
        offset = 0
        for p in self.parts:
            self.slices[p.name] = slice(offset, offset + p.size)
            self.offsets[p.name] = offset
            offset += p.size
        self.size = offset
        self._nbytes = (offset + 7) // 8
        self._by_name = {p.name: p for p in self.parts}
        self.high = np.concatenate([np.full(p.size, p.high, np.float32) for p in self.parts])

    def view(self, vec: np.ndarray) -> dict:
        """The named parts of a flat observation, each reshaped to its part's shape (views, no copies)."""
        return {p.name: vec[self.slices[p.name]].reshape(p.shape) for p in self.parts}

    def offset(self, name: str, *index: int) -> int:
        """The flat position of part ``name`` (of its element ``index`` when given: ``offset("trick", 2)``
        is where row 2 of the ``(4, 36)`` trick part starts). The one way a builder learns where a part
        lies; a builder that packs bits into an int shifts by these, never by a written number."""
        try:
            part = self._by_name[name]
        except KeyError:
            raise KeyError(f"no observation part {name!r}; parts: {list(self.offsets)}") from None
        off = self.offsets[name]
        if index:
            if len(index) > len(part.shape):
                raise IndexError(f"part {name!r} has shape {part.shape}, got index {index}")
            stride = part.size
            for i, n in zip(index, part.shape):
                if not 0 <= i < n:
                    raise IndexError(f"part {name!r} has shape {part.shape}, got index {index}")
                stride //= n
                off += i * stride
        return off

    def unpack_bits(self, packed: int, count: int | None = None) -> np.ndarray:
        """The packing helper: an int whose bit ``k`` is flat position ``k`` (built by OR-ing values shifted
        by :meth:`offset`) as the float32 0/1 vector; ``count`` (default: the whole spec) limits it to the
        first ``count`` positions, for a layout whose tail holds non-binary scalars."""
        n = self.size if count is None else count
        return np.unpackbits(np.frombuffer(packed.to_bytes((n + 7) // 8, "little"), np.uint8), count=n,
                             bitorder="little").astype(np.float32)

    def flatten(self, parts: dict) -> np.ndarray:
        """The flat float32 vector of a dict ``{part name: array of the part's shape}``, every part given
        (the inverse of :meth:`view`; reference builders and tests write observations this way)."""
        missing = [p.name for p in self.parts if p.name not in parts]
        extra = sorted(set(parts) - set(self.offsets))
        if missing or extra:
            raise KeyError(f"flatten needs exactly the parts {list(self.offsets)}: missing {missing}, unknown {extra}")
        out = np.empty(self.size, np.float32)
        for p in self.parts:
            a = np.asarray(parts[p.name], np.float32)
            if a.shape != p.shape:
                raise ValueError(f"part {p.name!r} has shape {p.shape}, got {a.shape}")
            out[self.slices[p.name]] = a.ravel()
        return out

    def markdown(self) -> str:
        rows = ["| part | shape | offset | range | meaning |", "|---|---|---|---|---|"]
        for p in self.parts:
            s = self.slices[p.name]
            hi = int(p.high) if float(p.high).is_integer() else p.high
            rows.append(f"| `{p.name}` | {p.shape} | {s.start} | 0..{hi} | {p.doc} |")
        rows.append(f"| total | ({self.size},) | | | float32 |")
        return "\n".join(rows)


def unpack_masks(masks, width: int) -> np.ndarray:
    """Bits ``0..width-1`` of each int in ``masks`` as a float32 array of shape ``(len(masks), width)``."""
    a = np.array(masks, dtype=np.uint64)
    bits = np.unpackbits(a.view(np.uint8).reshape(len(masks), 8), axis=1, bitorder="little")
    return bits[:, :width].astype(np.float32)


def _f32(values) -> bytes:
    return np.array(values, np.float32).tobytes()


BITS14 = tuple(_f32([(m >> i) & 1 for i in range(14)]) for m in range(1 << 14))
"""BITS14[m]: the 14 low bits of m as float32 0/1 values (lowest first), as bytes. Observation builders
join such pieces (and ``struct.pack``-ed float32 scalars) into one bytes object and convert it once with
``np.frombuffer``, several times faster than filling numpy parts one by one."""
BITS7 = tuple(_f32([(m >> i) & 1 for i in range(7)]) for m in range(1 << 7))
"""BITS7[m]: 7-bit fields, as float32 bytes."""
FLOAT_BYTES = (_f32([0.0]), _f32([1.0]))


def onehot_bytes(n: int) -> tuple:
    """onehot_bytes(n)[k]: n float32 values, 1 at position k, as bytes."""
    return tuple(_f32([float(i == k) for i in range(n)]) for k in range(n))


def floats_from_bytes(buf: bytes) -> np.ndarray:
    """A writable float32 array from the joined bytes pieces."""
    return np.frombuffer(buf, np.float32).copy()
