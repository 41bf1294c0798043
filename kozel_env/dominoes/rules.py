"""Rules configs of the dominoes family: one frozen dataclass, one instance per game.

Every field a courtyard may play differently is a named option whose default is the RULES.md resolution;
the docstring of each field names its source. An environment passes its ``env(**options)`` through
:func:`make_rules`, so ``dominoes_v0.env(lone_double_values=None)`` switches D1.1 off.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..core.errors import InvalidOptionError
from ..core.ledger import THRESHOLD_MODES, LedgerRules
from ..core.options import Bool, Choice, Int, Ints, Optional, RulesBase, Subset, defaults_ok, option
from ..core.options import make_rules as _make_rules
from ..core.results import TITLES

OPENINGS = ("11", "lowest_double", "11_with_four")


@dataclass(frozen=True)
class DominoesRules(RulesBase):
    name: str = "dominoes_v0"
    num_players: int = option(4, Int(2, 4))
    """2-4 seats, clockwise (seed 000 §2)."""
    pairs: bool = option(True, Bool())
    """Partners opposite, seats (0, 2) and (1, 3) share a score (seed 000 §2); False: every man for himself."""
    hand_size: int = option(7, Int(1, 14))
    """Tiles dealt to each player (seed 000 §3); the rest, if any, is the stock."""
    draw: str = option("none", Choice(("none", "keep_last", "all")))
    """"none" (no stock), "keep_last" (RULES D2.2: draw while 2+ remain), "all" (RULES D5.3)."""
    opening: str = option("11", Choice(OPENINGS))
    """First deal's lead: "11" (seed 000 §4, RULES D1.5), "lowest_double" (RULES D2.3 / D5.2: the lowest
    double in any hand, ``00`` lowest; with no double dealt, the heaviest tile, ties: higher half, then
    lower seat) or "11_with_four" (RULES D2.3: "11" with four players, "lowest_double" with two or three).
    When ``11`` lies in the stock, "11" falls back to "lowest_double" (RULES D5.2 option)."""
    lone_double_values: tuple | None = option((25, 50), Optional(Ints(2, 0, 168)))
    """RULES D1.1: a losing hand of exactly one tile counts ``00`` / ``66`` as these; None: plain pips."""
    two_doubles: bool = option(True, Bool())
    """RULES D1.2: with different ends a and b, ``aa`` and ``bb`` may be played together in one move."""
    redeal: bool = option(True, Bool())
    """RULES D1.6: 5+ doubles or 6+ tiles of one number in a hand forces a silent redeal."""
    threshold: int = option(13, Int(0, 168))
    """RULES D1.7: the opening threshold (25 in Sea Goat, RULES D3.2)."""
    threshold_mode: str = option("open", Choice(THRESHOLD_MODES))
    """How the threshold works, see :class:`kozel_env.core.ledger.LedgerRules`."""
    target: int = option(101, Int(1, 1000))
    """Goats at this score or more (seed 000 §8; 125 in Sea Goat)."""
    hand_sizes: tuple | None = option(None, Optional(Ints(3, 1, 14)))
    """Tiles dealt per player with 2, 3 and 4 players, e.g. ``(7, 5, 5)`` (seed 001 / RULES D5.1); when set,
    ``hand_size`` must match it (``make_rules`` derives it from ``num_players``). None: ``hand_size``."""
    next_leader: str = option("last_mover", Choice(("last_mover", "winner")))
    """Who leads a later deal: "last_mover" -- whoever played the last tile, i.e. went out or made the
    fish (seed 000 §4, RULES D1.5, D2.3); "winner" -- the winner of the last deal (seed 001, RULES D5.2);
    several winners (or eggs): the first of them clockwise from the last mover, starting with him."""
    eggs_carry: bool = option(True, Bool())
    """RULES D1.8 / D2.5: a fish where every side ties is "eggs", its total carried to the next loss.
    False: nothing is written and nothing carried (seed 001 knows no eggs; RULES D5.4)."""
    eggs_to: str = option("each", Choice(("each", "highest")))
    """Every man for himself, when the deal after eggs has several losers (RULES silent): "each" -- every
    loser adds the carried total to its amount; "highest" -- only the loser(s) with the highest amount."""
    out_00_wins_match: bool = option(False, Bool())
    """RULES D3.3 (Sea Goat, seed 000 §10): going out with ``00`` among the tiles of the final move wins the
    match at once for the side that went out, before anything is written."""
    out_66_amount: int | None = option(None, Optional(Int(0, 1000)))
    """RULES D3.4 (Sea Goat): going out with ``66`` in the final move (and no ``00``) makes every losing
    side's amount this value (100) instead of its hand; carried eggs are still added. None: off."""
    house: bool = option(False, Bool())
    """RULES D4.1 (Donkey, seed 000 §11): the first double played in a deal is a house, open on four sides.
    Donkey options (``house``, ``max_doubles`` > 1, ``closing``) need the Donkey engine (``donkey_v0``)."""
    max_doubles: int = option(1, Int(1, 4))
    """RULES D4.2 (Donkey): a move may lay 1 to this many doubles, each at its own end that shows its number
    at the start of the move (4 in Donkey). 1: single tiles (the line's two-doubles move is ``two_doubles``)."""
    closing: bool = option(False, Bool())
    """RULES D4.3 (Donkey): each double is laid open or closed (face down); a closed double is a dead end."""
    close_lead: bool = option(False, Bool())
    """With ``closing``: may the double that leads a deal be closed? Seed 000 §11 says a house led as the
    first tile gives "four ends at once" and its earliest closing example is the second move, so a lead is
    always open (RULES silent; our reading). True: RULES D4.3 read literally -- a closed lead leaves no open
    end, so the deal is a fish at once (RULES D4.4)."""
    goat_title: str = option("goats", Choice(("goats", "sea_goats")))
    """What the match's losers are called: "goats" (seed 000 §8, RULES D1.9, D2.6, D5.6) or "sea_goats"
    (Sea Goat, seed 000 §10, RULES D3.5)."""
    titles: tuple = option(("naked_goats", "bald_goats"), Subset(("naked_goats", "bald_goats")))
    """The extra titles of RULES D1.9 given in the match result: naked goats (the winners wrote nothing in
    the whole match) and bald goats (the match ended by going out with ``00`` among the tiles of the final
    move). Seed 000 §8 (inherited by §9-11); seed 001 (boneyard) names no such titles: ``()``."""

    def __post_init__(self):
        """Cross-field rules (each field's own range is its declared check, :mod:`kozel_env.core.options`)."""
        if self.pairs and self.num_players != 4:
            raise InvalidOptionError("the pairs game needs num_players=4")
        if self.hand_sizes is not None and self.hand_size != self.hand_sizes[self.num_players - 2]:
            raise InvalidOptionError(f"hand_size {self.hand_size} differs from hand_sizes "
                                     f"{self.hand_sizes} for {self.num_players} players")
        if self.threshold_mode == "shared" and self.num_sides != 2:
            raise InvalidOptionError("threshold_mode 'shared' (one score for both, RULES D3.2) needs two sides")
        if self.threshold > self.target:
            raise InvalidOptionError(f"threshold {self.threshold} is above the target {self.target}")
        if self.two_doubles and self.cross:
            raise InvalidOptionError("two_doubles is the line's two-doubles move (RULES D1.2); the Donkey "
                                     "engine uses max_doubles (RULES D4.2): pass two_doubles=False")
        if self.num_players * self.hand_size > 28:
            raise InvalidOptionError(f"hand_size {self.hand_size} x {self.num_players} players does not fit 28 "
                                     "tiles")
        assert set(self.titles) <= set(TITLES)

    @property
    def cross(self) -> bool:
        """The Donkey engine is needed (RULES D4): a house, closing or several doubles per move."""
        return self.house or self.closing or self.max_doubles > 1

    @property
    def stock_size(self) -> int:
        return 28 - self.num_players * self.hand_size

    def ledger_rules(self) -> LedgerRules:
        return LedgerRules(num_sides=self.num_sides, target=self.target, threshold=self.threshold,
                           threshold_mode=self.threshold_mode, eggs_mode="carry")


def make_rules(base: DominoesRules, options: dict) -> DominoesRules:
    """``base`` with the user's ``options`` checked and applied (:func:`kozel_env.core.options.make_rules`).
    An explicit ``hand_size`` overrides a per-player-count deal; otherwise ``hand_sizes`` sets it (RULES D5.1)."""
    opts = dict(options)
    if "hand_size" in opts:
        opts.setdefault("hand_sizes", None)
    elif opts:
        checks = DominoesRules.checks()
        sizes = checks["hand_sizes"]("hand_sizes", opts["hand_sizes"]) if "hand_sizes" in opts else base.hand_sizes
        n = checks["num_players"]("num_players", opts["num_players"]) if "num_players" in opts else base.num_players
        if sizes is not None:
            opts["hand_size"] = sizes[n - 2]
    return _make_rules(base, opts) if opts else base


defaults_ok(DominoesRules)


PAIRS = DominoesRules()
"""``dominoes_v0``: seed 000 §1-8, RULES D1."""


FFA = DominoesRules(name="dominoes_ffa_v0", num_players=2, pairs=False, draw="keep_last",
                    opening="11_with_four")
"""``dominoes_ffa_v0``: every man for himself, 2-4 players (seed 000 §9, RULES D2)."""

SEA_GOAT = DominoesRules(name="sea_goat_v0", threshold=25, threshold_mode="shared", target=125,
                         out_00_wins_match=True, out_66_amount=100, goat_title="sea_goats")
"""``sea_goat_v0``: Sea Goat (seed 000 §10, RULES D3)."""

DONKEY = DominoesRules(name="donkey_v0", two_doubles=False, house=True, max_doubles=4, closing=True,
                       threshold_mode="remember")
"""``donkey_v0``: Donkey / Cross (seed 000 §11, RULES D4); played by :mod:`kozel_env.dominoes.donkey`."""

BONEYARD = DominoesRules(name="boneyard_v0", num_players=2, pairs=False, hand_size=7, hand_sizes=(7, 5, 5),
                         draw="all", opening="lowest_double", lone_double_values=None, two_doubles=False,
                         redeal=False, threshold_mode="accumulate", next_leader="winner", eggs_carry=False,
                         titles=())
"""``boneyard_v0``: Kozel with a boneyard, 2-4 players (seed 001, RULES D5)."""
