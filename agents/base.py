"""The agent interface, the engine of a game by name, the one call that asks an agent for a move, and a
helper that plays one episode with a seat -> agent map.

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

Agents are named by *specs* (``"normal"``, ``"pimc:n=32,rollout=normal"``): the name table, ``make_agent``,
``register`` and ``register_preset`` are in :mod:`agents.registry`. :func:`game_for` is the one place in
``agents`` that builds an engine :class:`~kozel_env.core.game.Game` from an env name and its options.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from kozel_env.core.game import Game, State

if TYPE_CHECKING:
    from pettingzoo import AECEnv


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


_ENV_KEYS = ("render_mode", "episode", "reward")


@functools.lru_cache(maxsize=64)
def _game_cached(env_name: str, frozen_options: tuple):
    from kozel_env.registry import load

    return load(env_name).env(**dict(frozen_options)).unwrapped.game


def game_for(env_name: str, env_options: dict | None = None) -> Game:
    """The engine game of ``env_name`` with its rules options (adapter-only options are ignored), built
    through the env as users would (so the options are checked there) and cached: one per process."""
    opts = {k: v for k, v in (env_options or {}).items() if k not in _ENV_KEYS}
    frozen = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in opts.items()))
    return _game_cached(env_name, frozen)


def decide(agent: Agent, env: AECEnv | None = None, observation: np.ndarray | None = None,
           action_mask: np.ndarray | None = None, *, state: State | None = None) -> int:
    """The action of ``agent`` for the seat to move, the one place that knows ``needs_state`` (such agents
    also get ``state=`` and ``seat=``, see the module doc).

    From an env: the seat to move in ``env``; ``observation``/``action_mask`` default to ``env.observe`` of
    that seat. From an engine state (``state=``, ``env`` unused: the trainer's and the batched evaluation's
    matches): the seat to move in ``state``, whose ``observation`` and ``action_mask`` must be given."""
    if state is None:
        if observation is None:
            o = env.observe(env.agent_selection)
            observation, action_mask = o["observation"], o["action_mask"]
        if not getattr(agent, "needs_state", False):
            return int(agent.act(observation, action_mask))
        u = env.unwrapped
        state, seat = u.game_state, u.agent_name_mapping[env.agent_selection]
    else:
        seat = state.current_player
    if getattr(agent, "needs_state", False):
        return int(agent.act(observation, action_mask, state=state, seat=seat))
    return int(agent.act(observation, action_mask))


def play_match(env: AECEnv, agents: dict, seed: int | None = None, options: dict | None = None) -> dict:
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
