"""The agent interface, the agent registry and a helper that plays one episode with a seat -> agent map.

An agent is any object with ``act(observation, action_mask) -> int`` (the two halves of the env's
observation dict for the seat to move); ``reset()`` is called at the start of each episode when present.
Bots here subclass :class:`Agent`, are deterministic given their seed and see only what the environment
gives their seat.

One exception, declared by ``needs_state = True`` (the ``pimc`` bots): such an agent is called as
``act(observation, action_mask, state=<engine state>, seat=<its seat>)`` and may use the engine state only
through ``game.sample_consistent(state, seat, rng)`` -- the engine's determinization, which re-deals
everything that seat cannot see consistently with what it has seen (its own hand, the table, knocks,
voids, draws, claims). That is the information the seat's observation carries, in a form the engine can
play out; the bot never reads another seat's hand. :func:`decide` makes the call either way.

Agents are named by *specs*: ``"random"``, ``"easy"``, ``"normal"``, ``"hard"``, ``"crazy"``, ``"greedy"``,
``"pimc"``, with options after a colon: ``"pimc:n=32,rollout=normal"``. :func:`make_agent` builds one;
:func:`register` adds a class (e.g. a trained policy) under a new name; :func:`register_preset` names a
spec (``hard`` is a preset of ``pimc``).
"""
from __future__ import annotations

import functools

import numpy as np


class Agent:
    """Base class. Subclasses implement :meth:`act`; ``reset`` is called at the start of each episode.

    ``env_name`` and ``env_options`` say which game (and rules options) the agent plays; ``self.game`` is
    the engine :class:`~kozel_env.core.game.Game` with those options (tables, observation layout, move
    notation), built once per process.
    """

    name = "agent"
    needs_state = False
    """True: :func:`decide` passes ``state=`` and ``seat=`` (for determinization only, see the module doc)."""

    def __init__(self, env_name: str, seed: int = 0, env_options: dict | None = None):
        self.env_name = env_name
        self.seed = seed
        self.env_options = dict(env_options or {})
        self.rng = np.random.default_rng(seed)
        self.game = game_for(env_name, self.env_options)

    def reset(self) -> None:
        pass

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:  # pragma: no cover - abstract
        raise TypeError(f"{type(self).__name__} must define act()")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.env_name!r}, seed={self.seed})"


AGENTS: dict = {}
PRESETS: dict = {}


def register(cls):
    """Class decorator: make ``cls`` buildable by :func:`make_agent` under ``cls.name``."""
    AGENTS[cls.name] = cls
    return cls


def register_preset(name: str, spec: str, doc: str = "") -> None:
    """Name a spec, e.g. ``register_preset("hard", "pimc:n=8")``; options given later override it."""
    PRESETS[name] = (spec, doc)


_ENV_KEYS = ("render_mode", "episode", "reward")


@functools.lru_cache(maxsize=64)
def _game_cached(env_name: str, frozen_options: tuple):
    from kozel_env.registry import load

    return load(env_name).env(**dict(frozen_options)).unwrapped.game


def game_for(env_name: str, env_options: dict | None = None):
    """The engine game of ``env_name`` with its rules options (adapter-only options are ignored)."""
    opts = {k: v for k, v in (env_options or {}).items() if k not in _ENV_KEYS}
    frozen = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in opts.items()))
    return _game_cached(env_name, frozen)


def parse_spec(spec: str) -> tuple:
    """``"pimc:n=16,rollout=normal"`` -> ``("pimc", {"n": 16, "rollout": "normal"})``. Values that read as
    ints, floats, ``true``/``false`` or ``none`` are converted."""
    name, _, rest = str(spec).partition(":")
    opts = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, eq, val = item.partition("=")
        if not eq:
            raise ValueError(f"agent option {item!r} in {spec!r} must read key=value")
        opts[key.strip()] = _convert(val.strip())
    return name.strip(), opts


def _convert(v: str):
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


PLUGINS = ("agents.rl",)
"""Modules that register more agents (trained policies: ``"rl"``), imported when an unknown name is asked for."""


def _load_builtin() -> None:
    from . import greedy, heuristic, pimc, random_agent  # noqa: F401  (registration)


def _load_plugins() -> None:
    import importlib

    for mod in PLUGINS:
        try:
            importlib.import_module(mod)
        except ImportError:  # pragma: no cover - a plugin that is not installed
            pass


def known_agents() -> list:
    _load_builtin()
    return sorted(set(AGENTS) | set(PRESETS))


def resolve_spec(spec: str) -> tuple:
    """A spec with presets expanded: ``"hard:n=4"`` -> ``("pimc", {... preset options ..., "n": 4})``."""
    _load_builtin()
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
        _load_plugins()
    if name not in AGENTS:
        raise KeyError(f"unknown agent {spec!r}; known: {known_agents()}")
    return AGENTS[name](env_name, seed, env_options=env_options, **opts)


def decide(agent, env, observation=None, action_mask=None) -> int:
    """The action of ``agent`` for the seat to move in ``env`` (passes the engine state to agents that
    declare ``needs_state``). ``observation``/``action_mask`` default to ``env.observe`` of that seat."""
    if observation is None:
        o = env.observe(env.agent_selection)
        observation, action_mask = o["observation"], o["action_mask"]
    if getattr(agent, "needs_state", False):
        u = env.unwrapped
        return int(agent.act(observation, action_mask, state=u.game_state,
                             seat=u.agent_name_mapping[env.agent_selection]))
    return int(agent.act(observation, action_mask))


def play_match(env, agents: dict, seed: int | None = None, options: dict | None = None) -> dict:
    """Play one episode; ``agents`` maps agent names (``player_0`` ...) to agents. Returns the cumulative
    rewards per agent name."""
    env.reset(seed=seed, options=options)
    for a in agents.values():
        if hasattr(a, "reset"):
            a.reset()
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for name in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[name] += reward
        if term or trunc:
            env.step(None)
            continue
        env.step(decide(agents[name], env, obs["observation"], obs["action_mask"]))
    return totals
