"""Loading a serialized Kozel state that came from elsewhere without running its code (issue 33.1).

OpenSpiel serializes the state of a Python game as its history, its move number and its Python attributes
pickled (``__dict__=`` and base64: ``PyState::Serialize`` in ``open_spiel/python/pybind11/python_games.cc``),
and ``pyspiel.deserialize_game_and_state`` / ``Game.deserialize_state`` unpickle those attributes with
``pickle.loads``: a crafted string runs whatever code it names. That is OpenSpiel's design for every Python
game (a Python game can override neither method), so the bridge cannot change it; it adds the loaders below,
which accept only what a Kozel state is made of and refuse anything else with one :class:`UnsafeStateError`
naming the problem, before any of the string's objects is built:

* :func:`deserialize_game_and_state` -- the text of ``pyspiel.serialize_game_and_state`` (a file, a message);
* :func:`deserialize_state` -- the text of ``state.serialize()`` for a Kozel game of yours.

Each reads the text the way OpenSpiel does (sections ``[Meta]``, ``[Game]``, ``[State]``; the state's three
lines ``history=``, ``move_number=``, ``__dict__=``), checks every line's form, unpickles the attributes with an
unpickler that knows only :data:`STATE_GLOBALS` (the bridge's engine box and the engines' state, rules and
event classes), checks that they are one engine box holding a state of the game's own engine (or a deal seed),
and only then hands OpenSpiel a text rebuilt from exactly the vetted bytes. Use them for anything you did not
serialize yourself; ``pickle.loads`` of a state is ``pickle`` (never for data from elsewhere).
"""
from __future__ import annotations

import base64
import binascii
import io
import pickle
import re

import pyspiel

from .core.errors import KozelError
from .openspiel_game import KozelGame, KozelState, _Engine

STATE_GLOBALS = frozenset({
    "kozel_env.openspiel_game._restore_engine", "kozel_env.openspiel._restore_engine",  # the latter: before 119eab1
    "kozel_env.core.rng.Rng", "kozel_env.core.game.Deferred",
    "kozel_env.core.ledger.Ledger", "kozel_env.core.ledger.LedgerRules",
    "kozel_env.dominoes.engine.DominoesState", "kozel_env.dominoes.engine._dealt",
    "kozel_env.dominoes.donkey.DonkeyState", "kozel_env.dominoes.rules.DominoesRules",
    "kozel_env.cards.queens_and_jacks.engine.QueensAndJacksState", "kozel_env.cards.queens_and_jacks.engine._dealt",
    "kozel_env.cards.queens_and_jacks.rules.QueensAndJacksRules",
    "kozel_env.cards.beat_or_discard.engine.BeatOrDiscardState", "kozel_env.cards.beat_or_discard.scoring._dealt",
    "kozel_env.cards.beat_or_discard.rules.BeatOrDiscardRules",
    "kozel_env.cards.six_of_spades.engine.SixOfSpadesState", "kozel_env.cards.six_of_spades.engine._dealt",
    "kozel_env.cards.six_of_spades.rules.SixOfSpadesRules",
})
"""Every class and function the pickled attributes of a Kozel state may name (``module.name``); the test that
round-trips every registered option set through these loaders fails if an engine starts pickling another."""

_HISTORY = re.compile(r"(-?\d+:\d+(,-?\d+:\d+)*)?")
_SECTIONS = ("[Meta]", "[Game]", "[State]")


class UnsafeStateError(KozelError):
    """A serialized state (or game and state) that is malformed or names code a Kozel state is not made of;
    nothing of it was loaded."""


class _Vetting(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if f"{module}.{name}" not in STATE_GLOBALS:
            raise UnsafeStateError(f"the state's pickled attributes name {module}.{name}, which is not one of the "
                                   "classes and functions a Kozel state is made of; refusing to load it (it could "
                                   "run code)")
        return super().find_class(module, name)

    def persistent_load(self, pid):
        raise UnsafeStateError("the state's pickled attributes hold a persistent id; refusing to load it")


def _vetted(game: KozelGame, blob: bytes) -> None:
    """Unpickle ``blob`` knowing only :data:`STATE_GLOBALS`; it must be ``{"_box": engine box}`` whose engine
    state (if any) is of ``game``'s engine."""
    try:
        attrs = _Vetting(io.BytesIO(blob)).load()
    except UnsafeStateError:
        raise
    except Exception as e:  # noqa: BLE001  (any failure of a crafted pickle is a refusal, never a traceback)
        why = " ".join(str(e).split())[:300]
        raise UnsafeStateError(f"the state's pickled attributes do not load: {type(e).__name__}: {why}") from None
    if not isinstance(attrs, dict) or set(attrs) != {"_box"} or type(attrs["_box"]) is not _Engine:
        raise UnsafeStateError("the state's pickled attributes are not a Kozel state's (one engine box, '_box')")
    box = attrs["_box"]
    kind = type(game.new_engine_state(0))
    for held in (box.state, box.preset):
        if held is not None and type(held) is not kind:
            raise UnsafeStateError(f"the state holds a {type(held).__name__}, not a {kind.__name__} of {game}")
    if box.state is None and box.preset is None and not (type(box.seed) is int and 0 <= box.seed < 1 << 64):
        raise UnsafeStateError(f"the state before the deal holds deal seed {box.seed!r}, not an int in 0..2**64-1")


def deserialize_state(game: KozelGame, text: str) -> KozelState:
    """``game.deserialize_state(text)`` for ``text`` from ``state.serialize()``, refusing (:class:`UnsafeStateError`)
    a malformed text or one whose pickled attributes name anything outside :data:`STATE_GLOBALS`."""
    if not isinstance(game, KozelGame):
        raise UnsafeStateError(f"{game!r} is not a Kozel game (kozel_<env name>); these loaders read Kozel states")
    if not isinstance(text, str):
        raise UnsafeStateError(f"a serialized state is text (str), got {type(text).__name__}")
    lines = text.split("\n", 2)
    if len(lines) != 3 or not lines[0].startswith("history=") or not lines[1].startswith("move_number=") \
            or not lines[2].startswith("__dict__="):
        raise UnsafeStateError("a serialized Kozel state is three lines: history=..., move_number=..., __dict__=...")
    history, number, blob = lines[0][8:], lines[1][12:], lines[2][9:]
    if not _HISTORY.fullmatch(history):
        raise UnsafeStateError(f"history={history[:60]!r} is not allowed: player:action pairs joined by ','")
    if not number.isdigit() or not number.isascii():
        raise UnsafeStateError(f"move_number={number[:60]!r} is not allowed: an int >= 0")
    try:
        raw = base64.b64decode(blob, validate=True)
    except (binascii.Error, ValueError):
        raise UnsafeStateError("__dict__= is not base64 text (the pickled attributes)") from None
    _vetted(game, raw)
    clean = base64.b64encode(raw).decode("ascii")
    return game.deserialize_state(f"history={history}\nmove_number={int(number)}\n__dict__={clean}")


def deserialize_game_and_state(text: str) -> tuple:
    """``pyspiel.deserialize_game_and_state(text)`` for a Kozel game, refusing (:class:`UnsafeStateError`) a
    malformed text, another game, or a state that :func:`deserialize_state` refuses. Returns ``(game, state)``."""
    if not isinstance(text, str):
        raise UnsafeStateError(f"a serialized game and state is text (str), got {type(text).__name__}")
    parts: dict = {}
    current = None
    for line in text.split("\n"):
        if not line or line.startswith("#"):
            continue
        if line in _SECTIONS:
            if _SECTIONS.index(line) != len(parts):
                raise UnsafeStateError(f"section {line} out of order: the sections are {', '.join(_SECTIONS)}")
            current = parts[line] = []
        elif current is None:
            raise UnsafeStateError(f"text before the [Meta] section: {line[:60]!r}")
        else:
            current.append(line)
    if len(parts) != 3 or len(parts["[Game]"]) != 1:
        raise UnsafeStateError("not the text of pyspiel.serialize_game_and_state: sections [Meta], [Game] (one line), "
                               "[State]")
    try:
        game = pyspiel.deserialize_game(parts["[Game]"][0])
    except (pyspiel.SpielError, ValueError, KeyError, TypeError) as e:
        why = " ".join(str(e).split())[:300]
        raise UnsafeStateError(f"the game {parts['[Game]'][0][:80]!r} does not load: {why}") from None
    return game, deserialize_state(game, "\n".join(parts["[State]"]))
