"""The engine contract every Kozel game implements (OpenSpiel's Game/State split, Pgx's pure engine).

Engines are pure Python rules: no PettingZoo, no gymnasium. One :class:`Game` per rules engine, holding a
frozen rules config and the precomputed tables; many :class:`State` objects, each a small record of ints
and short lists (bitmasks for hands and played sets) with a cheap ``clone()``.

A match is one State: deals follow each other inside it (dealing is an internal chance step drawn from
the state's own :class:`~kozel_env.core.rng.Rng`), automatic moves (knocks, forced draws, skipped turns)
are applied inside ``apply_action`` so that ``current_player`` is always a seat with a real decision, and
``terminal`` becomes true when the match (or, with ``single_deal``, the first deal) is over.

The environment adapter (:mod:`kozel_env.core.aec`) relies only on what is declared here.
"""
from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from .spec import ObsSpec


class State(ABC):
    """One match in progress. Attributes every engine provides:

    * ``current_player`` -- seat to act, ``-1`` when terminal.
    * ``terminal`` -- the episode is over.
    * ``deals_played`` -- number of finished deals (hands, games); the adapter watches it for rewards.
    * ``last_result`` -- dict describing the last finished deal (``None`` before the first): at least
      ``"seat_points"``, a list per seat, higher is better for that seat, from which zero-sum per-deal
      rewards are derived (e.g. minus the penalty written against the seat's side).
    * ``match_result`` -- dict describing the finished match (``None`` until terminal).
    """

    SETUP_KEYS: frozenset = frozenset()
    """Keys ``new_state``'s ``setup`` accepts (``single_deal`` among them)."""

    current_player: int
    terminal: bool
    deals_played: int
    last_result: dict | None
    match_result: dict | None

    @abstractmethod
    def legal_actions(self) -> list:
        """Sorted action ids the current player may take (empty when terminal)."""
        ...

    @abstractmethod
    def apply_action(self, action: int) -> None:
        """Apply a legal action (precondition: ``action in legal_actions()``; the adapter checks)."""
        ...

    @abstractmethod
    def clone(self) -> "State":
        ...

    @abstractmethod
    def check_invariants(self) -> None:
        """Raise AssertionError if the state breaks a conservation law of its game (every tile or card
        accounted for exactly once, hand sizes, scores within bounds ...). Used by the conformance fuzzing."""
        ...

    @abstractmethod
    def returns(self) -> list:
        """Per-seat outcome of the finished episode: +1 winners, -1 losers (goats), 0 otherwise."""
        ...


class Game(ABC):
    """Static facts of one rules engine with one rules config (OpenSpiel's ``GameType``/``Game``)."""

    name: str
    num_players: int
    num_actions: int
    obs_spec: ObsSpec
    oracle_spec: ObsSpec

    state_class: type
    """The State subclass; its ``SETUP_KEYS`` are the valid ``reset(options=...)`` keys."""

    @abstractmethod
    def new_state(self, seed: int, setup: dict | None = None) -> State:
        """A fresh match from ``seed``; ``setup`` fixes hands, leader, match situation (validated)."""
        ...

    @abstractmethod
    def observe(self, state: State, player: int) -> np.ndarray:
        """The flat float32 observation of ``player`` (shape ``obs_spec.size``): only what it may know."""
        ...

    @abstractmethod
    def oracle(self, state: State) -> np.ndarray:
        """Full-information view for centralized critics (``env.state()``), shape ``oracle_spec.size``."""
        ...

    @abstractmethod
    def action_to_string(self, state: State, action: int) -> str:
        ...

    @abstractmethod
    def string_to_action(self, state: State, text: str) -> int:
        """Parse a move of the current player; raises IllegalActionError naming the legal moves."""
        ...

    @abstractmethod
    def render(self, state: State, viewer: int | None = None) -> str:
        """Readable text view of the table (``viewer=None``: everything face up)."""
        ...

    @abstractmethod
    def sample_consistent(self, state: State, player: int, rng) -> State:
        """Determinization: a full state that gives ``player`` the same observation as ``state``."""
        ...

    def legal_strings(self, state: State) -> list:
        return [self.action_to_string(state, a) for a in state.legal_actions()]
