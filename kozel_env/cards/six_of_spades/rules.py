"""The rules config of card Kozel with the six of spades (seed 004, RULES C3): options and their checks.

Every field a courtyard may play differently is a named option whose default is the RULES C3 resolution;
the docstring of each field names its source. The ``reset(options=...)`` keys are checked by the shared
:mod:`kozel_env.core.options` machinery with :func:`setup_checks`; building the position they describe is
:mod:`kozel_env.cards.six_of_spades.setup`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from types import MappingProxyType

from ...core.ledger import LedgerRules
from ...core.options import Bool, Choice, Int, Ints, RulesBase, Subset, Text, Texts, defaults_ok, option
from ...core.options import make_rules as _make_rules

CALL_MODES = ("offer", "auto", "off")
REFILL_MODES = ("fill_each", "round_robin")


@dataclass(frozen=True)
class SixOfSpadesRules(RulesBase):
    name: str = "six_of_spades_v0"
    num_players: int = option(4, Int(2, 4))
    """Seed 1 / C3.1: 2 or 3 play alone, 4 play in pairs across (seats 0+2 against 1+3)."""
    calls: str = option("offer", Choice(CALL_MODES))
    """C3.5 Moskva / Molodka: "offer" (every holder of four is asked and may call), "auto" (the first holder
    in precedence always calls), "off"."""
    may_decline_beat: bool = option(True, Bool())
    """Silent in seed/RULES: True -- a player able to beat may lay face down instead; False -- must beat."""
    refill: str = option("fill_each", Choice(REFILL_MODES))
    """C3.4 "the taker first, then clockwise": "fill_each" (each fills up in turn) or "round_robin"."""
    line: int = option(31, Int(0, 120))
    """C3.6: a losing side with this many points or more takes ``penalties[0]``, fewer ``penalties[1]``."""
    line_three: int = option(21, Int(0, 120))
    """C3.6: the line when three sides play the deal."""
    penalties: tuple = option((2, 4, 6), Ints(3, 0, 12))
    """C3.6: penalty with the line or more, under the line, with no trick."""
    tie_penalty: int = option(2, Int(0, 12))
    """C3.6: each side tied for the most points takes this."""
    target: int = option(12, Int(1, 100))
    """C3.7: a side at this many penalty points or more is out."""
    max_deals: int = option(25, Int(1, 100))
    """C3.7: after this many deals the fewest penalty points win (1..100)."""

    @property
    def pairs(self) -> bool:
        return self.num_players == 4

    def ledger_rules(self) -> LedgerRules:
        return LedgerRules(num_sides=self.num_sides, target=self.target, threshold_mode="none",
                           eggs_mode="carry")


def make_rules(base: SixOfSpadesRules, options: dict) -> SixOfSpadesRules:
    """``base`` with the user's ``options`` checked and applied (:func:`kozel_env.core.options.make_rules`)."""
    return _make_rules(base, options)


SETUP_KEYS = frozenset({"hands", "trump_card", "stock", "taken", "dealer", "leader", "scores", "out",
                        "deals_played", "single_deal"})
"""Every ``reset(options=...)`` key of this engine (:func:`setup_checks` says what each allows)."""


@cache
def setup_checks(rules: SixOfSpadesRules) -> dict:
    """The ``reset(options=...)`` keys and what each allows; the position they describe is built by
    :func:`kozel_env.cards.six_of_spades.setup.new_state`."""
    n, ns = rules.num_players, rules.num_sides
    return MappingProxyType({
        "hands": Texts(n, "card strings like 'AS TS 6S KH'", none_ok=True),
        "trump_card": Text("a card like '9D'"),
        "stock": Text("the stock's cards in draw order, e.g. 'AD TD 7C ...'"),
        "taken": Texts(ns, "card strings (cards each side took this deal)"),
        "dealer": Int(0, n - 1),
        "leader": Int(0, n - 1),
        "scores": Ints(ns, 0, 10 * rules.target, as_list=True),
        "out": Subset(tuple(range(ns))),
        "deals_played": Int(0, rules.max_deals - 1),
        "single_deal": Bool(),
    })


defaults_ok(SixOfSpadesRules)


CLASSIC = SixOfSpadesRules()
"""``six_of_spades_v0`` defaults: four players in pairs, calls offered, RULES C3 scoring."""
