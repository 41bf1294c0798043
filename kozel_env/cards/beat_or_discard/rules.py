"""The rules config of ``beat_or_discard_v0`` (seed 002, RULES C1): one frozen dataclass, its checks.

Every field a courtyard may play differently is a named option (checked by the shared
:mod:`kozel_env.core.options` machinery); an environment passes its ``env(**options)`` through
:func:`make_rules`. ``mode="pairs"`` is four players, seats 0+2 against 1+3 (seed "In pairs"); ``"solo"``
is 2-4 players, every player for themselves (C1.16). ``hand_size=6`` is the classic game, ``4`` the quick
game (C1.15). :func:`setup_checks` declares the ``reset(options=...)`` keys.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property
from types import MappingProxyType

from ...core.errors import InvalidOptionError
from ...core.ledger import LedgerRules
from ...core.options import Bool, Choice, Int, Ints, RulesBase, Text, Texts, defaults_ok, option
from ...core.options import make_rules as _make_rules

MODES = ("pairs", "solo")


@dataclass(frozen=True)
class BeatOrDiscardRules(RulesBase):
    name: str = "beat_or_discard_v0"
    mode: str = option("pairs", Choice(MODES))
    """Seed "A match can be played in two ways": ``"pairs"`` (2 x 2, four players) or ``"solo"`` (C1.16)."""
    num_players: int = option(4, Int(2, 4))
    """4 in pairs; 2-4 in solo (seed, C1.16)."""
    hand_size: int = option(6, Choice((6, 4)))
    """6: the classic game; 4: the quick game (C1.15)."""
    target: int = option(12, Int(1, 100))
    """Penalty points that make the goat (pairs, C1.17) or put a player out (solo, C1.16)."""
    penalties: tuple = option((0, 2, 4, 6), Ints(4, 0, 100))
    """C1.1: penalty for 61 or more points, 31-60, 30 or less (tricks but few points), no trick at all."""
    claims: bool = option(True, Bool())
    """C1.13: the "I have N" claim of the lead."""
    claim_min: int = option(4, Choice((4, 5, 6)))
    """C1.13 / C1.15: cards of one suit needed to claim."""
    four_of_a_kind: bool = option(True, Bool())
    """C1.14: four aces or four sixes in one hand end the match."""

    def __post_init__(self):
        if self.mode == "pairs" and self.num_players != 4:
            raise InvalidOptionError("mode='pairs' needs num_players=4 (use mode='solo' for 2-3 players)")

    @property
    def pairs(self) -> bool:
        return self.mode == "pairs"

    @property
    def quick(self) -> bool:
        return self.hand_size == 4

    @cached_property
    def claim_floor(self) -> int:
        """Fewest cards of one suit (and so in a hand) that allow a claim (C1.13): ``claim_min``, or 99 when
        claims are off (no hand holds 99 cards)."""
        return self.claim_min if self.claims else 99

    def ledger_rules(self) -> LedgerRules:
        return LedgerRules(num_sides=self.num_sides, target=self.target, threshold_mode="none",
                           eggs_mode="multiply")


def make_rules(base: BeatOrDiscardRules, options: dict) -> BeatOrDiscardRules:
    """``base`` with the user's ``options`` checked and applied (:func:`kozel_env.core.options.make_rules`)."""
    return _make_rules(base, options)


@cache
def setup_checks(rules: BeatOrDiscardRules) -> dict:
    """The ``reset(options=...)`` keys and what each allows (see :mod:`.setup`)."""
    n, S = rules.num_players, rules.num_sides
    return MappingProxyType({
        "hands": Texts(n, "card strings like '7C 9C KC 6D 8H JS'", none_ok=True),
        "stock": Text("the stock's cards in draw order, its last card the bottom card"),
        "piles": Texts(S, "card strings (cards each side took this game)"),
        "leader": Int(0, n - 1),
        "first_game": Bool(),
        "trump": Choice(("C", "D", "H", "S", "clubs", "diamonds", "hearts", "spades", 0, 1, 2, 3)),
        "scores": Ints(S, 0, 10 * rules.target, as_list=True),
        "eggs": Int(0, 30),
        "single_deal": Bool(),
    })


defaults_ok(BeatOrDiscardRules)


CLASSIC = BeatOrDiscardRules()
"""``beat_or_discard_v0`` defaults: pairs, six cards (C1)."""
