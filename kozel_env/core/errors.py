"""Exceptions shared by every engine and environment."""
from __future__ import annotations


class KozelError(ValueError):
    """Base class: bad input to an engine or environment (the state is left unchanged)."""


class IllegalActionError(KozelError):
    """An action that is out of range, of the wrong type, masked out, or sent to a finished agent.

    The message names the move and lists the legal moves in the game's notation.
    """


class InvalidOptionError(KozelError):
    """A ``reset(options=...)`` entry or an ``env(**options)`` argument that the game cannot accept."""
