"""Agents for kozel_env: bots that see only what an environment gives a player.

Every agent has ``act(observation, action_mask) -> int`` (the two halves of an env observation dict) and is
deterministic given its seed. ``make_agent(name, env_name, seed)`` builds one by name.
"""
from __future__ import annotations

from .base import Agent, make_agent, play_match
from .random_agent import RandomAgent

__all__ = ["Agent", "RandomAgent", "make_agent", "play_match"]
