"""Determinization helper: deal unknown items to seats under per-seat constraints.

Used by every engine's ``sample_consistent``: the items a player cannot see (other hands, the stock) are
re-dealt so that each seat keeps its public count and holds only items it may still hold (e.g. no tile of a
number it knocked on, no card of a suit it showed void in).

Rejection sampling (uniform over consistent deals) is tried first; when constraints make it unlikely to
succeed, a randomized backtracking search finds a consistent deal (not exactly uniform).
"""
from __future__ import annotations

from .bits import bits
from .errors import KozelError


def deal_constrained(pool: int, counts: dict, allowed: dict, rng, tries: int = 64,
                     require: dict | None = None) -> dict:
    """Split the bitmask ``pool`` among seats: ``counts[seat]`` items each, all within ``allowed[seat]``,
    and, for each seat in ``require``, at least one item of ``require[seat]`` (e.g. the seat to move holds
    a playable tile, which everybody knows because it was not skipped).

    ``sum(counts.values())`` must equal the pool size. Returns ``{seat: mask}``.
    Raises KozelError if no consistent deal exists.
    """
    items = bits(pool)
    seats = list(counts)
    if sum(counts.values()) != len(items):
        raise KozelError(f"cannot deal {len(items)} items into counts {counts}")
    unconstrained = all((allowed[s] & pool) == pool for s in seats)
    for _ in range(1 if unconstrained else tries):
        rng.shuffle(items)
        out, i, ok = {}, 0, True
        for s in seats:
            m = 0
            for it in items[i:i + counts[s]]:
                m |= 1 << it
            i += counts[s]
            if m & ~allowed[s] or (require and s in require and not m & require[s]):
                ok = False
                break
            out[s] = m
        if ok:
            return out
    return _backtrack(items, seats, counts, allowed, rng, require or {})


def _backtrack(items, seats, counts, allowed, rng, require) -> dict:
    # Most constrained item first; seats tried in random order.
    items = sorted(items, key=lambda it: sum(1 for s in seats if allowed[s] >> it & 1))
    left = dict(counts)
    out = {s: 0 for s in seats}

    def place(k: int) -> bool:
        if k == len(items):
            return all(out[s] & m for s, m in require.items())
        it = items[k]
        order = [s for s in seats if left[s] and allowed[s] >> it & 1]
        rng.shuffle(order)
        for s in order:
            left[s] -= 1
            out[s] |= 1 << it
            if place(k + 1):
                return True
            left[s] += 1
            out[s] &= ~(1 << it)
        return False

    if not place(0):
        raise KozelError("no deal is consistent with the constraints")
    return out
