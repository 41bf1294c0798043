"""The engine contract every Kozel game implements (OpenSpiel's Game/State split, Pgx's pure engine).

Engines are pure Python rules: no PettingZoo, no gymnasium. One :class:`Game` per rules engine, holding a
frozen rules config and the precomputed tables; many :class:`State` objects, each a small record of ints
and short lists (bitmasks for hands and played sets) with a cheap ``clone()``.

A match is one State: deals follow each other inside it (dealing is an internal chance step drawn from
the state's own :class:`~kozel_env.core.rng.Rng`), automatic moves (knocks, forced draws, skipped turns)
are applied inside ``apply_action`` so that ``current_player`` is always a seat with a real decision, and
``terminal`` becomes true when the match (or, with ``single_deal``, the first deal) is over.

The environment adapter (:mod:`kozel_env.core.aec`), the wrappers, the OpenSpiel bridge and the agents rely
only on what is declared here. The facts every engine has are stated once, here:

* **construction**: ``GameClass(rules)`` from one frozen rules config (:class:`~kozel_env.core.options.RulesBase`;
  an env module builds it with ``make_rules(base, options)``), the tables precomputed once per config;
* **identity**: ``game.family`` (``"dominoes"`` or ``"cards"``) and ``game.engine_id`` (which rules engine);
* **sides**: ``game.sides``, ``game.side_of(seat)``, ``game.num_sides`` (from the rules config);
* **a deal ended**: ``state.results`` grows by one result per finished deal (``State._deal_over``);
* **an action is checked** in one place, :meth:`Game.check_action` (``apply_action`` assumes a legal move);
* **determinization**: ``game.sample_consistent(state, seat, rng)`` with ``rng`` an :class:`~kozel_env.core.rng.Rng`
  (:func:`~kozel_env.core.rng.as_rng` converts a seed or another generator, once, at the caller).
"""
from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from .errors import IllegalActionError
from .rng import Rng
from .spec import ObsSpec


class Deferred:
    """An event's costly part, built only when read: ``Deferred(fn, *args)`` is ``fn(*args)`` (a dict),
    computed on first use. Search and random play never read the dealt hands of a deal event, so they pay
    one small object instead of formatting 28 tiles or 36 cards. Picklable when ``fn`` is a module-level
    function; reads like the dict it stands for (``ev[3]["hands"]``, ``==``)."""

    __slots__ = ("fn", "args", "_value")

    def __init__(self, fn, *args):
        self.fn = fn
        self.args = args
        self._value = None

    def __call__(self) -> dict:
        if self._value is None:
            self._value = self.fn(*self.args)
        return self._value

    def __getitem__(self, key):
        return self()[key]

    def __eq__(self, other):
        return self() == (other() if isinstance(other, Deferred) else other)

    def __repr__(self) -> str:
        return repr(self())

    def __getstate__(self):
        return (self.fn, self.args)

    def __setstate__(self, state):
        self.fn, self.args = state
        self._value = None


class State(ABC):
    """One match in progress. Attributes every engine provides:

    * ``current_player`` -- seat to act, ``-1`` when terminal.
    * ``terminal`` -- the episode is over.
    * ``deals_played`` -- number of finished deals (hands, games).
    * ``results`` -- the signal that deals ended: a tuple of every finished deal's result, in order, one
      entry per deal however many deals one ``apply_action`` (or the set-up) finished. Engines append to it
      only through :meth:`_deal_over`. The schema of a result is :mod:`kozel_env.core.results`.
    * ``last_result`` -- ``results[-1]`` (``None`` before the first deal ends).
    * ``match_result`` -- dict describing the finished match (``None`` until terminal), same module.
    * ``events`` -- what happened in the last ``apply_action`` (or in ``new_state``), in order, as tuples
      ``(kind, seat, public, private)``: ``public`` is what every seat sees, ``private`` what only ``seat``
      (or a spectator) sees; a ``private`` part may be a :class:`Deferred` that builds it on demand (the
      dealt hands: search pays nothing for them). :mod:`kozel_env.core.record` lists the kinds. The match record
      and the leak tests read them; the rules never do.
    """

    results: tuple = ()
    events: list

    SETUP_KEYS: frozenset = frozenset()
    """Keys ``new_state``'s ``setup`` accepts (``single_deal`` among them)."""

    current_player: int
    terminal: bool
    deals_played: int
    last_result: dict | None
    match_result: dict | None

    def _deal_over(self, result: dict) -> None:
        """Record a finished deal: the one place where ``deals_played``, ``last_result`` and ``results``
        change, so that no deal can be lost between two observations."""
        self.deals_played += 1
        result["deal"] = self.deals_played
        self.last_result = result
        self.results = self.results + (result,)
        self.events.append(("deal_end", -1, self.deals_played, None))

    @abstractmethod
    def legal_actions(self) -> list:
        """Sorted action ids the current player may take (empty when terminal)."""
        ...

    @abstractmethod
    def apply_action(self, action: int) -> None:
        """Apply a legal action: precondition ``action in legal_actions()``, checked once by the caller with
        :meth:`Game.check_action` (search, which only plays legal moves, pays nothing for it)."""
        ...

    @abstractmethod
    def clone(self) -> State:
        ...

    @abstractmethod
    def check_invariants(self) -> None:
        """Raise AssertionError if the state breaks a conservation law of its game (every tile or card
        accounted for exactly once, hand sizes, scores within bounds ...). Used by the conformance fuzzing."""
        ...

    def returns(self) -> list:
        """Per-seat outcome of the finished episode: +1 winners, -1 losers (goats), 0 otherwise (all 0
        before the end)."""
        mr = self.match_result
        if mr is None:
            return [0.0] * len(self.rules.sides)
        return list(mr["returns"])


class Game(ABC):
    """Static facts of one rules engine with one rules config (OpenSpiel's ``GameType``/``Game``).

    Built as ``GameClass(rules)`` from one frozen rules config (every engine's ``__init__`` takes just that
    and precomputes its tables). ``rules`` states the sides (``rules.num_sides``, ``rules.side_of(seat)``,
    ``rules.sides``: the side of each seat), here repeated as attributes."""

    name: str
    family: str
    """``"dominoes"`` or ``"cards"``."""
    engine_id: str
    """Which rules engine: ``"dominoes"`` (every line game and Donkey), ``"queens_and_jacks"``,
    ``"beat_or_discard"``, ``"six_of_spades"``. Agents find their game strategy by it."""
    num_players: int
    num_actions: int
    obs_spec: ObsSpec
    oracle_spec: ObsSpec
    rules: object

    @property
    def num_sides(self) -> int:
        return self.rules.num_sides

    @property
    def sides(self) -> tuple:
        """``sides[seat]``: the side (pair, or the player alone) the seat plays for."""
        return self.rules.sides

    def side_of(self, seat: int) -> int:
        return self.rules.sides[seat]

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
    def sample_consistent(self, state: State, seat: int, rng: Rng) -> State:
        """Determinization: a full state that gives ``seat`` the same observation as ``state``, every hidden
        tile or card re-dealt as the table's knowledge allows, drawn from ``rng`` (advanced)."""
        ...

    def legal_strings(self, state: State) -> list:
        return [self.action_to_string(state, a) for a in state.legal_actions()]

    def check_action(self, state: State, action, who: str | None = None, legal: list | None = None) -> int:
        """The one place where an action is checked: the int action id of ``action`` if the player to move
        may take it now, else :class:`IllegalActionError` naming the move and the legal moves (its ``action``
        is the id when a well-formed id was masked out). Nothing changes. ``who`` names the mover in the
        message (default ``player_<seat>``); ``legal`` is ``state.legal_actions()`` when the caller has it."""
        if legal is None:
            legal = state.legal_actions()
        if type(action) is int and action in legal:  # the common case, first (legal is [] when terminal)
            return action
        who = who or f"player_{state.current_player}"
        if state.terminal:
            raise IllegalActionError(f"{who} cannot act: the match is over (got {action!r})")

        def legal_text() -> str:
            return ", ".join(f"{a}={self.action_to_string(state, a)}" for a in legal)

        if action is None:
            raise IllegalActionError(f"{who} must act (None is only for agents that are done); legal "
                                     f"moves: {legal_text()}")
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            if isinstance(action, (float, np.floating)) and float(action).is_integer():
                raise IllegalActionError(f"action must be an int action id, got float {action!r}; legal "
                                         f"moves: {legal_text()}")
            raise IllegalActionError(f"action must be an int action id, got {type(action).__name__} "
                                     f"{action!r}; use move_to_action() for move text; legal moves: "
                                     f"{legal_text()}")
        a = int(action)
        if not 0 <= a < self.num_actions:
            raise IllegalActionError(f"action {a} is out of range 0..{self.num_actions - 1}; legal "
                                     f"moves: {legal_text()}")
        if a not in legal:
            raise IllegalActionError(f"action {a} ({self.action_to_string(state, a)}) is not legal for {who}; "
                                     f"legal moves: {legal_text()}", action=a)
        return a
