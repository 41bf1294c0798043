"""Every environment of the package, by name. The conformance suite (tests/test_conformance.py), the
benchmark and the docs generator iterate over this list: a new environment registers here, once.

Each entry: ``name: (module path, list of option dicts to test)``. The first option dict is the default.
"""
from __future__ import annotations

import importlib

ENVIRONMENTS = {
    "dominoes_v0": ("kozel_env.dominoes_v0", [{}]),
    "queens_and_jacks_v0": ("kozel_env.queens_and_jacks_v0", [{}, {"trumps": "named"}, {"deck": 32, "target": 6}]),
}


def load(name: str):
    """The environment module ``kozel_env.<name>`` (it has ``env()`` and ``raw_env``)."""
    if name not in ENVIRONMENTS:
        raise KeyError(f"unknown environment {name!r}; known: {sorted(ENVIRONMENTS)}")
    return importlib.import_module(ENVIRONMENTS[name][0])


def make(name: str, **options):
    return load(name).env(**options)
