"""Every agent by name, as data: a name table like :mod:`kozel_env.registry`, read lazily.

Agents are named by *specs*: ``"random"``, ``"easy"``, ``"normal"``, ``"hard"``, ``"crazy"``, ``"greedy"``,
``"pimc"``, ``"rl"``, with options after a colon: ``"pimc:n=32,rollout=normal"``.

* :data:`AGENTS` -- name -> ``"module:Class"``: the class is imported the first time the name is built, so
  importing this module imports no bot (and no torch, for the wrappers and integrations of ``kozel_env``);
* :data:`PRESETS` -- name -> ``(spec, description)``: a named spec (``hard`` is ``pimc:level=hard``);
* :func:`make_agent` builds an agent from a spec; :func:`register` adds a class (e.g. a trained policy)
  under its ``name``; :func:`register_preset` names a spec; :func:`known_agents` lists every name.

A new bot adds one line to :data:`AGENTS` (its module never registers itself on import).
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the classes are imported only when built
    from .base import Agent

AGENTS: dict = {
    "random": "agents.random_agent:RandomAgent",
    "easy": "agents.heuristic:EasyAgent",
    "normal": "agents.heuristic:NormalAgent",
    "greedy": "agents.greedy:GreedyAgent",
    "pimc": "agents.pimc:PIMCAgent",
    "expert": "agents.expert:ExpertAgent",
    "rl": "agents.rl.policy:RLAgent",
}
"""Agent name -> ``"module:Class"`` (or a class, once :func:`register`-ed or loaded)."""

PRESETS: dict = {
    "hard": ("pimc:level=hard", "PIMC with the family's 'hard' number of imagined deals"),
    "crazy": ("pimc:level=crazy", "PIMC with many more imagined deals ('crazy')"),
    "expert_fast": ("expert:level=fast", "the expert search with its 'fast' settings (at most 20 ms a decision)"),
}
"""Preset name -> ``(spec, description)``; options given with the preset override the spec's."""


def register(cls: type) -> type:
    """Class decorator: make ``cls`` buildable by :func:`make_agent` under ``cls.name``."""
    AGENTS[cls.name] = cls
    return cls


def register_preset(name: str, spec: str, doc: str = "") -> None:
    """Name a spec, e.g. ``register_preset("hard", "pimc:n=8")``; options given later override it."""
    PRESETS[name] = (spec, doc)


def agent_class(name: str) -> type:
    """The class of agent ``name`` (imported on first use); KeyError listing the known names."""
    entry = AGENTS.get(name)
    if entry is None:
        raise KeyError(name)
    if isinstance(entry, str):
        module, _, attr = entry.partition(":")
        entry = AGENTS[name] = getattr(importlib.import_module(module), attr)
    return entry


def known_agents() -> list:
    """Every agent and preset name, sorted."""
    return sorted(set(AGENTS) | set(PRESETS))


def parse_spec(spec: str) -> tuple:
    """``"pimc:n=16,rollout=normal"`` -> ``("pimc", {"n": 16, "rollout": "normal"})``. Values that read as
    ints, floats, ``true``/``false`` or ``none`` are converted."""
    name, _, rest = str(spec).partition(":")
    opts = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, eq, val = item.partition("=")
        if not eq:
            raise ValueError(f"agent option {item!r} in {spec!r} must read key=value")
        opts[key.strip()] = convert(val.strip())
    return name.strip(), opts


def convert(v: str) -> bool | int | float | str | None:
    """A command-line value as ``bool``, ``None``, ``int`` or ``float`` where it reads as one, else the text."""
    low = v.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    for f in (int, float):
        try:
            return f(v)
        except ValueError:
            pass
    return v


def resolve_spec(spec: str) -> tuple:
    """A spec with presets expanded: ``"hard:n=4"`` -> ``("pimc", {... preset options ..., "n": 4})``."""
    name, opts = parse_spec(spec)
    seen = set()
    while name in PRESETS and name not in AGENTS:
        if name in seen:  # pragma: no cover - misconfiguration
            raise ValueError(f"preset loop at {name!r}")
        seen.add(name)
        base, base_opts = parse_spec(PRESETS[name][0])
        name, opts = base, {**base_opts, **opts}
    return name, opts


def make_agent(spec: str, env_name: str, seed: int = 0, env_options: dict | None = None, **options) -> Agent:
    """Build the agent named by ``spec`` (see the module doc) for ``env_name``; ``options`` override the
    spec's options. Unknown names raise KeyError listing the known ones."""
    name, opts = resolve_spec(spec)
    opts.update(options)
    if name not in AGENTS:
        raise KeyError(f"unknown agent {spec!r}; known: {known_agents()}")
    return agent_class(name)(env_name, seed, env_options=env_options, **opts)
