"""The rules config of ``queens_and_jacks_v0`` (seed 003, RULES C2): one frozen dataclass, its option checks
and the ``reset(options=...)`` checks.

Every field a table may play differently is a named option whose default is the RULES.md resolution; the
docstring of each field names its source. The sides (``side_of``, ``sides``, ``num_sides``: seats 0+2
against 1+3) come from :class:`~kozel_env.core.options.RulesBase`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from types import MappingProxyType

from ...core.ledger import LedgerRules
from ...core.options import Bool, Choice, Int, Ints, RulesBase, Texts, defaults_ok, option
from ...core.options import make_rules as _make_rules


@dataclass(frozen=True)
class QueensAndJacksRules(RulesBase):
    name: str = "queens_and_jacks_v0"
    trumps: str = option("clubs", Choice(("clubs", "named")))
    """Seed "Choosing the trump suit" / C2.3: "clubs" (every hand) or "named" (left of dealer names it)."""
    deck: int = option(36, Choice((36, 32)))
    """Seed "The cards" / C2.1: 36 cards (nine each) or 32 (no sixes, eight each, packets 3, 3, 2)."""
    target: int = option(12, Choice((12, 6)))
    """Seed "Winning" / C2.6: the first side to this many points wins (12 classic, 6 short)."""
    num_players = 4
    pairs = True
    """Seed "How to play": four players in two fixed pairs, seats 0+2 against 1+3."""

    @property
    def hand_size(self) -> int:
        return self.deck // 4

    @property
    def packets(self) -> tuple:
        """Cards per seat in each round of the deal, from the dealer's left (C2.1)."""
        return (3, 3, 3) if self.deck == 36 else (3, 3, 2)

    def ledger_rules(self) -> LedgerRules:
        """The shared ledger's rules (C2.5 / C2.6): no threshold, eggs multiply the next hand."""
        return LedgerRules(num_sides=2, target=self.target, threshold_mode="none", eggs_mode="multiply")


def make_rules(base: QueensAndJacksRules, options: dict) -> QueensAndJacksRules:
    """``base`` with the user's ``options`` checked and applied (:func:`kozel_env.core.options.make_rules`)."""
    return _make_rules(base, options)


SUIT_CHOICES = ("C", "D", "H", "S", "clubs", "diamonds", "hearts", "spades", 0, 1, 2, 3)
"""What the ``trump`` reset option accepts (a suit letter, name or index of :mod:`kozel_env.cards.deck`)."""


@cache
def setup_checks(rules: QueensAndJacksRules) -> dict:
    """The ``reset(options=...)`` keys and what each allows (see
    :meth:`~kozel_env.cards.queens_and_jacks.game.QueensAndJacksGame.new_state`); checked by the shared
    :func:`kozel_env.core.options.check_setup`."""
    return MappingProxyType({
        "hands": Texts(4, "card strings like 'QC TS 7H ...'", none_ok=True),
        "dealer": Int(0, 3),
        "leader": Int(0, 3),
        "trump": Choice(SUIT_CHOICES),
        "scores": Ints(2, 0, rules.target - 1, as_list=True),
        "eggs": Int(0, 30),
        "single_deal": Bool(),
    })


defaults_ok(QueensAndJacksRules)

CLASSIC = QueensAndJacksRules()
"""``queens_and_jacks_v0`` defaults: clubs trumps, 36 cards, match to 12."""

SETUP_KEYS = frozenset(setup_checks(CLASSIC))
"""The keys of ``setup_checks`` (the same in every rules variant): the State's ``SETUP_KEYS``."""
