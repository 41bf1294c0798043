"""Exceptions shared by every engine and environment."""
from __future__ import annotations


class KozelError(ValueError):
    """Base class: bad input to an engine or environment (the state is left unchanged)."""


class IllegalActionError(KozelError):
    """An action that is out of range, of the wrong type, masked out, or sent to a finished agent.

    The message names the move and lists the legal moves in the game's notation. ``action`` is the int
    action id when the move was a well-formed id that the rules do not allow now, else ``None``.
    """

    def __init__(self, message: str, action: int | None = None):
        super().__init__(message)
        self.action = action


class InvalidOptionError(KozelError):
    """A ``reset(options=...)`` entry or an ``env(**options)`` argument that the game cannot accept."""
