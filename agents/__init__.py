"""Agents for kozel_env: bots that see only what an environment gives a player, an arena to rank them and
terminal play against them.

Every agent has ``act(observation, action_mask) -> int`` (the two halves of an env observation dict) and is
deterministic given its seed. ``make_agent(spec, env_name, seed)`` builds one by name: ``random``,
``easy``, ``normal``, ``hard``, ``crazy`` (the ladder), ``expert`` and ``expert_fast`` (the search guided by
the trained networks, :mod:`agents.expert`), ``greedy``, ``pimc:n=...``; :func:`decide` asks an agent for the
move of the seat to move in an env (the search agents also get the engine state, used only for
determinization). ``agents.arena.evaluate`` compares agents on duplicate deals; ``python -m agents.play``
lets a person play against them. ``agents.load("dominoes_v0")`` returns the shipped trained agent.
"""
from __future__ import annotations

from .base import Agent, decide, play_match
from .random_agent import RandomAgent
from .registry import known_agents, make_agent, parse_spec, register, register_preset
from .rl import load  # the shipped trained policy of a game (numpy inference, no torch needed)

__all__ = ["Agent", "RandomAgent", "decide", "known_agents", "load", "make_agent", "parse_spec", "play_match",
           "register", "register_preset"]
