"""kozel_env: PettingZoo AEC environments for the Kozel ("goat") dominoes and card games.

``from kozel_env import dominoes_v0; env = dominoes_v0.env()``. Environment modules are imported lazily.
Importing the package registers the single-agent gymnasium views (:mod:`kozel_env.wrappers`) as
``gymnasium.make("kozel/<name>", opponents=...)``; ids only: nothing is built until ``make``.
"""
from __future__ import annotations

import importlib

from .registry import ENVIRONMENTS, load, make

__version__ = "0.2.0"
__all__ = sorted(ENVIRONMENTS) + ["ENVIRONMENTS", "load", "make"]


def __getattr__(name):
    if name in ENVIRONMENTS:
        return importlib.import_module(ENVIRONMENTS[name][0])
    if name == "vector":  # the batched engines and the vector env (kozel_env.vector)
        return importlib.import_module(".vector", __name__)
    raise AttributeError(f"module 'kozel_env' has no attribute {name!r}")


def _register_gymnasium_ids() -> None:
    from .wrappers import register_envs

    register_envs()


_register_gymnasium_ids()
