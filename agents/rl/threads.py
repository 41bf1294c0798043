"""Keep numpy's BLAS (OpenBLAS) and torch on one thread.

On a small shared machine a multi-threaded BLAS waits for a free core inside every matrix product: batched
policy inference in numpy ran ~6x slower with OpenBLAS's default threads than with one. Training and
evaluation call :func:`single_thread_math` once; it finds the OpenBLAS that numpy loaded (Linux, through
``/proc/self/maps``) and sets its thread count, and does nothing where that is not possible.
"""
from __future__ import annotations

import ctypes

_SYMBOLS = ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_", "openblas_set_num_threads",
            "scipy_openblas_set_num_threads")
_done = set()


def single_thread_math(threads: int = 1, torch_too: bool = False) -> bool:
    """Limit OpenBLAS (and, with ``torch_too``, torch) to ``threads``; True if OpenBLAS was found."""
    import numpy  # noqa: F401  (make sure its BLAS is loaded)

    if torch_too:
        import torch

        torch.set_num_threads(threads)
    if threads in _done:
        return True
    try:
        with open("/proc/self/maps") as f:
            paths = sorted({line.split()[-1] for line in f if "openblas" in line.lower() and ".so" in line})
    except OSError:
        return False
    found = False
    for p in paths:
        try:
            lib = ctypes.CDLL(p)
        except OSError:
            continue
        for s in _SYMBOLS:
            fn = getattr(lib, s, None)
            if fn is not None:
                fn(ctypes.c_int(threads))
                found = True
                break
    if found:
        _done.add(threads)
    return found
