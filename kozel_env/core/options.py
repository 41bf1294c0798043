"""Option checking, in one place for every engine and environment.

Every option a user can give -- ``env(**options)`` (the environment's own options and the game's rules
options) and ``reset(options=...)`` -- is declared once with a :class:`Check` that says what is allowed.
A value is checked (and normalised: numpy integers become ``int``, lists of numbers become tuples where a
config stores tuples) when it is given, before anything changes; a bad one raises
:class:`~kozel_env.core.errors.InvalidOptionError` naming the option, the value and what is allowed.

* Rules configs (frozen dataclasses, one per engine) declare each field with :func:`option`; their
  ``make_rules`` is :func:`make_rules` here, and they inherit the sides facts from :class:`RulesBase`.
* Reset options are declared per engine as a dict ``{key: Check}`` (``setup_checks(rules)``) and checked
  by :func:`check_setup`; cross-option consistency (hands that fit together, scores that agree with
  ``opened`` ...) stays with the engine, which raises the same error.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import MISSING, dataclass, field, fields, replace
from functools import cached_property

import numpy as np

from .errors import InvalidOptionError


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _fail(name: str, value, allowed: str):
    raise InvalidOptionError(f"{name}={value!r} is not allowed: {allowed}")


class Check(ABC):
    """What one option accepts. ``__call__(name, value)`` returns the normalised value or raises."""

    allowed: str = ""

    @abstractmethod
    def __call__(self, name: str, value):
        """The normalised value, or InvalidOptionError naming the option, the value and what is allowed."""

    def bad_values(self) -> list:
        """Values this check refuses (the registry-wide option tests feed them in)."""
        return [object()]


@dataclass(frozen=True)
class Int(Check):
    lo: int
    hi: int

    @property
    def allowed(self) -> str:
        return f"an int in {self.lo}..{self.hi}"

    def __call__(self, name, value):
        if not _is_int(value) or not self.lo <= int(value) <= self.hi:
            _fail(name, value, self.allowed)
        return int(value)

    def bad_values(self) -> list:
        return [self.lo - 1, self.hi + 1, float(self.lo), str(self.lo), True, None]


@dataclass(frozen=True)
class Bool(Check):
    allowed: str = "True or False"

    def __call__(self, name, value):
        if not isinstance(value, (bool, np.bool_)):
            _fail(name, value, self.allowed)
        return bool(value)

    def bad_values(self) -> list:
        return [0, 1, "yes", "no", None]


@dataclass(frozen=True)
class Choice(Check):
    values: tuple

    @property
    def allowed(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)

    def __call__(self, name, value):
        if _is_int(value):
            value = int(value)
        for v in self.values:  # equal and of the same kind (True is not 1, 2.0 is not 2)
            if value == v and type(value) is type(v):
                return v
        _fail(name, value, self.allowed)

    def bad_values(self) -> list:
        out = ["no_such_value", None]
        ints = [v for v in self.values if isinstance(v, int) and not isinstance(v, bool)]
        if ints:
            out += [float(ints[0]), True]
        return out


@dataclass(frozen=True)
class Optional(Check):
    """``None`` or what ``inner`` accepts."""
    inner: Check

    @property
    def allowed(self) -> str:
        return f"None or {self.inner.allowed}"

    def __call__(self, name, value):
        return None if value is None else self.inner(name, value)

    def bad_values(self) -> list:
        return [v for v in self.inner.bad_values() if v is not None]


@dataclass(frozen=True)
class Ints(Check):
    """A list or tuple of ``length`` ints in ``lo..hi`` (returned as a tuple, or a list with ``as_list``)."""
    length: int
    lo: int
    hi: int
    as_list: bool = False

    @property
    def allowed(self) -> str:
        return f"a list of {self.length} ints in {self.lo}..{self.hi}"

    def __call__(self, name, value):
        if not isinstance(value, (list, tuple, np.ndarray)) or len(value) != self.length or not all(
                _is_int(v) and self.lo <= int(v) <= self.hi for v in value):
            _fail(name, value, self.allowed)
        out = [int(v) for v in value]
        return out if self.as_list else tuple(out)

    def bad_values(self) -> list:
        return [[self.lo] * (self.length + 1), [self.hi + 1] * self.length, [True] * self.length,
                [float(self.lo)] * self.length, "x", None]


@dataclass(frozen=True)
class Bools(Check):
    length: int

    @property
    def allowed(self) -> str:
        return f"a list of {self.length} bools"

    def __call__(self, name, value):
        if not isinstance(value, (list, tuple, np.ndarray)) or len(value) != self.length or not all(
                isinstance(v, (bool, np.bool_)) for v in value):
            _fail(name, value, self.allowed)
        return [bool(v) for v in value]

    def bad_values(self) -> list:
        return [[True] * (self.length + 1), [1] * self.length, "yes", None]


@dataclass(frozen=True)
class Text(Check):
    """A string (tiles or cards in the game's notation; the engine parses it)."""
    what: str = "a string"

    @property
    def allowed(self) -> str:
        return self.what

    def __call__(self, name, value):
        if not isinstance(value, str):
            _fail(name, value, self.allowed)
        return value

    def bad_values(self) -> list:
        return [5, None, ["x"]]


@dataclass(frozen=True)
class Texts(Check):
    """A list of ``length`` strings (``None`` entries allowed with ``none_ok``)."""
    length: int
    what: str = "strings"
    none_ok: bool = False

    @property
    def allowed(self) -> str:
        extra = " (None: dealt at random)" if self.none_ok else ""
        return f"a list of {self.length} {self.what}{extra}"

    def __call__(self, name, value):
        if not isinstance(value, (list, tuple)) or len(value) != self.length or not all(
                isinstance(v, str) or (self.none_ok and v is None) for v in value):
            _fail(name, value, self.allowed)
        return list(value)

    def bad_values(self) -> list:
        out = ["not a list", [""] * (self.length + 1), [5] * self.length]
        if not self.none_ok:
            out.append([None] * self.length)
        return out


@dataclass(frozen=True)
class Subset(Check):
    """A list or tuple of distinct values from ``values`` (returned as a tuple in ``values``' order)."""
    values: tuple

    @property
    def allowed(self) -> str:
        return "a list of distinct values from " + ", ".join(repr(v) for v in self.values)

    def __call__(self, name, value):
        if not isinstance(value, (list, tuple)):
            _fail(name, value, self.allowed)
        try:
            members = set(value)
        except TypeError:  # an unhashable member (a list inside the list) is no value of ``values``
            _fail(name, value, self.allowed)
        if len(members) != len(value) or not members <= set(self.values):
            _fail(name, value, self.allowed)
        return tuple(v for v in self.values if v in value)

    def bad_values(self) -> list:
        return ["x", ["no_such_value"], [self.values[0]] * 2 if self.values else [1], [[]], None]


# ------------------------------------------------------------------ rules configs
def option(default: object, check: Check, doc: str = "") -> object:
    """A rules-config field that users may set: ``default`` and its :class:`Check`."""
    return field(default=default, metadata={"check": check, "doc": doc})


class RulesBase:
    """What every rules config states once: its sides. Subclasses are frozen dataclasses with ``name``,
    ``num_players`` and a ``pairs`` flag (two pairs across: seats 0+2 and 1+3; otherwise each seat is its
    own side)."""

    name: str
    num_players: int
    pairs: bool

    @property
    def num_sides(self) -> int:
        return 2 if self.pairs else self.num_players

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.pairs else seat

    @cached_property
    def sides(self) -> tuple:
        return tuple(self.side_of(q) for q in range(self.num_players))

    @classmethod
    def checks(cls) -> dict:
        """``{option name: Check}`` of the options users may set."""
        return {f.name: f.metadata["check"] for f in fields(cls) if "check" in f.metadata}


def make_rules(base: RulesBase, options: dict) -> RulesBase:
    """``base`` (a rules config) with the user's ``options`` checked and applied. Unknown names and bad
    values raise InvalidOptionError; cross-field rules are the config's ``__post_init__``."""
    checks = type(base).checks()
    bad = sorted(set(options) - set(checks))
    if bad:
        raise InvalidOptionError(f"unknown option(s) {bad} for {base.name}; known: {sorted(checks)}")
    clean = {k: checks[k](k, v) for k, v in options.items()}
    return replace(base, **clean)


def check_setup(checks: dict, setup: dict | None, game_name: str, known=frozenset()) -> dict:
    """Check a ``reset(options=...)`` dict against ``{key: Check}``: every key applies, every value is
    allowed. ``known`` names keys the engine knows from other variants (a clearer message). Returns the
    normalised copy (the engine adds its cross-checks)."""
    if setup is None:
        return {}
    if not isinstance(setup, dict):
        raise InvalidOptionError(f"options must be a dict, got {type(setup).__name__}")
    names = sorted(k for k in checks if k != "single_deal")
    for k in setup:
        if k not in checks:
            if k in known:
                raise InvalidOptionError(f"reset option {k!r} does not apply to {game_name} with these rules; "
                                         f"its reset options: {names}")
            raise InvalidOptionError(f"unknown reset option {k!r} for {game_name}; known: {names}")
    return {k: checks[k](k, v) for k, v in setup.items()}


def defaults_ok(cls) -> None:
    """Import-time check that every declared default passes its own check (a typo fails at once)."""
    for f in fields(cls):
        if "check" in f.metadata and f.default is not MISSING:
            f.metadata["check"](f.name, f.default)
