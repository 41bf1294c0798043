"""Every environment of the package, by name. The conformance suite (tests/test_conformance.py), the
benchmark and the docs generator iterate over this list: a new environment registers here, once.

Each entry: ``name: (module path, list of option dicts to test)``. The first option dict is the default.
"""
from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pettingzoo import AECEnv

ENVIRONMENTS = {
    "dominoes_v0": ("kozel_env.dominoes_v0", [
        {},
    ]),
    "dominoes_ffa_v0": ("kozel_env.dominoes_ffa_v0", [
        {},
        {"num_players": 3},
        {"num_players": 4},
        {"num_players": 3, "opening": "lowest_double", "next_leader": "winner", "eggs_to": "highest",
         "lone_double_values": None},
    ]),
    "sea_goat_v0": ("kozel_env.sea_goat_v0", [
        {},
        {"out_66_amount": None, "lone_double_values": None},
    ]),
    "donkey_v0": ("kozel_env.donkey_v0", [
        {},
        {"max_doubles": 2, "house": False, "lone_double_values": None},
        {"closing": False, "threshold_mode": "open"},
    ]),
    "boneyard_v0": ("kozel_env.boneyard_v0", [
        {},
        {"num_players": 3},
        {"num_players": 4, "opening": "11_with_four"},
        {"num_players": 4, "two_doubles": True, "redeal": True, "eggs_carry": True,
         "lone_double_values": [25, 50]},
    ]),
    "queens_and_jacks_v0": ("kozel_env.queens_and_jacks_v0", [
        {},
        {"trumps": "named"},
        {"deck": 32, "target": 6},
    ]),
    "beat_or_discard_v0": ("kozel_env.beat_or_discard_v0", [
        {},
        {"hand_size": 4},
        {"mode": "solo", "num_players": 3},
        {"mode": "solo", "num_players": 2, "hand_size": 4},
    ]),
    "six_of_spades_v0": ("kozel_env.six_of_spades_v0", [
        {},
        {"num_players": 3},
        {"num_players": 2, "calls": "auto", "may_decline_beat": False, "refill": "round_robin"},
    ]),
}


def load(name: str) -> ModuleType:
    """The environment module ``kozel_env.<name>`` (it has ``env()`` and ``raw_env``)."""
    if name not in ENVIRONMENTS:
        raise KeyError(f"unknown environment {name!r}; known: {sorted(ENVIRONMENTS)}")
    return importlib.import_module(ENVIRONMENTS[name][0])


def make(name: str, **options) -> AECEnv:
    return load(name).env(**options)
