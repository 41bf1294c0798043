"""Rules configs of the dominoes family: one frozen dataclass, one instance per game.

Every field a courtyard may play differently is a named option whose default is the RULES.md resolution;
the docstring of each field names its source. An environment passes its ``env(**options)`` through
:func:`make_rules`, so ``dominoes_v0.env(lone_double_values=None)`` switches D1.1 off.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

from ..core.errors import InvalidOptionError
from ..core.ledger import LedgerRules


@dataclass(frozen=True)
class DominoesRules:
    name: str = "dominoes_v0"
    num_players: int = 4
    """2-4 seats, clockwise (seed 000 §2)."""
    pairs: bool = True
    """Partners opposite, seats (0, 2) and (1, 3) share a score (seed 000 §2); False: every man for himself."""
    hand_size: int = 7
    """Tiles dealt to each player (seed 000 §3); the rest, if any, is the stock."""
    draw: str = "none"
    """"none" (no stock), "keep_last" (RULES D2.2: draw while 2+ remain), "all" (RULES D5.3)."""
    opening: str = "11"
    """First deal's lead: "11" (seed 000 §4, RULES D1.5) or "lowest_double" (RULES D2.3 / D5.2)."""
    lone_double_values: tuple | None = (25, 50)
    """RULES D1.1: a losing hand of exactly one tile counts ``00`` / ``66`` as these; None: plain pips."""
    two_doubles: bool = True
    """RULES D1.2: with different ends a and b, ``aa`` and ``bb`` may be played together in one move."""
    redeal: bool = True
    """RULES D1.6: 5+ doubles or 6+ tiles of one number in a hand forces a silent redeal."""
    threshold: int = 13
    """RULES D1.7: the opening threshold (25 in Sea Goat, RULES D3.2)."""
    threshold_mode: str = "open"
    """How the threshold works, see :class:`kozel_env.core.ledger.LedgerRules`."""
    target: int = 101
    """Goats at this score or more (seed 000 §8; 125 in Sea Goat)."""

    def __post_init__(self):
        if not 2 <= self.num_players <= 4:
            raise InvalidOptionError(f"num_players must be 2, 3 or 4, got {self.num_players!r}")
        if self.pairs and self.num_players != 4:
            raise InvalidOptionError("the pairs game needs num_players=4")
        if self.draw not in ("none", "keep_last", "all"):
            raise InvalidOptionError(f"draw must be 'none', 'keep_last' or 'all', got {self.draw!r}")
        if self.opening not in ("11", "lowest_double"):
            raise InvalidOptionError(f"opening must be '11' or 'lowest_double', got {self.opening!r}")
        if self.num_players * self.hand_size > 28 or self.hand_size < 1:
            raise InvalidOptionError(f"hand_size {self.hand_size} does not fit 28 tiles")
        if self.lone_double_values is not None and len(self.lone_double_values) != 2:
            raise InvalidOptionError("lone_double_values must be a pair (value of 00, value of 66) or None")

    @property
    def num_sides(self) -> int:
        return 2 if self.pairs else self.num_players

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.pairs else seat

    @property
    def stock_size(self) -> int:
        return 28 - self.num_players * self.hand_size

    def ledger_rules(self) -> LedgerRules:
        return LedgerRules(num_sides=self.num_sides, target=self.target, threshold=self.threshold,
                           threshold_mode=self.threshold_mode, eggs_mode="carry")


def make_rules(base: DominoesRules, options: dict) -> DominoesRules:
    """``base`` with the user's ``options`` applied; unknown names get a clear error."""
    names = {f.name for f in fields(DominoesRules)} - {"name"}
    bad = sorted(set(options) - names)
    if bad:
        raise InvalidOptionError(f"unknown option(s) {bad} for {base.name}; known: {sorted(names)}")
    opts = dict(options)
    if "lone_double_values" in opts and opts["lone_double_values"] is not None:
        opts["lone_double_values"] = tuple(opts["lone_double_values"])
    return replace(base, **opts)


PAIRS = DominoesRules()
"""``dominoes_v0``: seed 000 §1-8, RULES D1."""
