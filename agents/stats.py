"""Means with their 95% confidence intervals, as the arena, the batched evaluation and training report them.

* :func:`mean_ci` -- mean and 95% interval (normal approximation) of independent samples, as a dict
  ``{"mean", "lo", "hi", "n"}``;
* :func:`rate_ci` -- the same for a rate (a match score): the interval kept within [0, 1];
* :func:`format_ci` -- such a dict as text, saying so where the samples cannot give an interval.
"""
from __future__ import annotations

import math
from collections.abc import Iterable


def mean_ci(xs: Iterable[float]) -> dict:
    """Mean and 95% confidence interval (normal approximation) of independent samples."""
    xs = list(xs)
    k = len(xs)
    if k == 0:
        return {"mean": float("nan"), "lo": float("nan"), "hi": float("nan"), "n": 0}
    m = sum(xs) / k
    if k < 2:
        return {"mean": m, "lo": float("nan"), "hi": float("nan"), "n": k}
    var = sum((x - m) ** 2 for x in xs) / (k - 1)
    h = 1.96 * math.sqrt(var / k)
    return {"mean": m, "lo": m - h, "hi": m + h, "n": k}


def format_ci(c: dict, pct: bool = False, digits: int = 2) -> str:
    """A :func:`mean_ci` result as text: ``+0.12 [+0.05, +0.19]``, or with ``pct`` (a rate)
    ``62.0% [55.1, 68.9]``. Where the samples cannot give an interval it says so instead of printing a
    meaningless one: ``n=1: no interval`` for a single sample, ``n=4, all equal: no interval`` for samples
    without spread (the normal approximation would print ``[50.0, 50.0]``), ``n=0: no samples``."""
    n = c.get("n", 0)
    m = c["mean"]
    mean = f"{100 * m:.1f}%" if pct else f"{m:+.{digits}f}"
    if n == 0 or m != m:
        return f"{'-' if m != m else mean} (n=0: no samples)"
    lo, hi = c.get("lo", float("nan")), c.get("hi", float("nan"))
    if n < 2 or lo != lo or hi != hi:
        return f"{mean} (n={n}: no interval)"
    if hi - lo <= 1e-12 * max(1.0, abs(m)):
        return f"{mean} (n={n}, all equal: no interval)"
    if pct:
        return f"{mean} [{100 * lo:.1f}, {100 * hi:.1f}]"
    return f"{mean} [{lo:+.{digits}f}, {hi:+.{digits}f}]"


def rate_ci(c: dict) -> dict:
    """A :func:`mean_ci` of a rate, its interval clipped to [0, 1] (in place; returned)."""
    if c["n"] >= 2:
        c["lo"], c["hi"] = max(0.0, c["lo"]), min(1.0, c["hi"])
    return c
