"""Card Kozel with queens and jacks always trump (seed 003, RULES C2): the rules engine, a package.

Four players in two fixed pairs, seats (0, 2) against (1, 3), play clockwise. A point-trick game: what
counts is the eyes (card points, RULES C) in the tricks, not the number of tricks.

Rules (every item cites its source; "seed" is ``seeds/003_b4ccc5198f358dfb.txt``, "C2.n" is RULES.md):

* Deal (seed "The cards", C2.1): 36 cards six to ace, nine each, dealt three at a time from the dealer's
  left; 32-card deck (``deck=32``): no sixes, eight each in packets of 3, 3, 2. The deal passes left.
  The player left of the dealer leads the first trick.
* Trumps (seed "Trumps", C2.2): ``QC QS QH QD JC JS JH JD`` then the trump suit's ``A T K 9 8 7 6``:
  fifteen trumps (fourteen with 32 cards). Plain suits ``A T K 9 8 7 6``; a queen or jack never belongs
  to its own plain suit.
* Trump suit (seed "Choosing the trump suit", C2.3): ``trumps="clubs"`` (default): clubs in every hand;
  ``trumps="named"``: the player left of the dealer names the suit, after seeing their dealt hand and
  before the first lead, as an action.
* Tricks (seed "Playing a trick", C2.4): follow the led suit if you can, all trumps being one suit;
  otherwise any card (no obligation to trump). Highest trump wins, else the highest card of the led suit;
  the winner leads next.
* Hand (seed "Eyes" / "Scoring a hand", C2.5): A 11, T 10, K 4, Q 3, J 2 (120 eyes). 61 or more wins
  the hand and writes 2; 4 if the losers took 30 eyes or fewer; 6 if the losers took no trick. 60:60 is
  eggs: nobody writes and the next hand counts double (x4 after two eggs in a row, ...; reset after a
  decided hand) -- the shared :class:`~kozel_env.core.ledger.Ledger` with ``threshold_mode="none"``,
  ``eggs_mode="multiply"``.
* Match (seed "Winning", C2.6): points are won; the first side to ``target`` (12, or 6 for the short
  match) wins; the other side are the goats, bare goats if they finish with 0.

Actions (``num_actions = 40`` in every rules variant, independent of the seat):

* ``0..35``: play the card with that id (:mod:`kozel_env.cards.deck` ids, ``suit * 9 + rank``), notation
  ``QC``, ``TS``, ``6H`` (RULES notation).
* ``36..39``: name the trump suit clubs, diamonds, hearts, spades (named rule only), notation
  ``trump:C``, ``trump:D``, ``trump:H``, ``trump:S`` (parsing also accepts ``trump:clubs`` etc.).

Choices where the rules are silent (listed in the module so the README can repeat them):

* The first dealer of a match is drawn from the state's Rng (setup ``dealer`` fixes it).
* A hand won while the losers took tricks worth 0 eyes writes 4 (30 or fewer); "no trick" (6) is
  checked first.
* The match score can pass the target on the last hand (the whole amount is written).
* With ``single_deal`` the episode ends after the first hand: ``returns()`` gives +1 to the hand's
  winners, -1 to its losers, 0 to everybody on eggs (or the match result if that hand ended the match).

The observation (:attr:`QueensAndJacksGame.obs_spec`, everything relative to the observer, seat offset
0 = self, 1 = next clockwise (an opponent), 2 = partner, 3 = the other opponent; "side 0" = the observer's
pair) is one flat float32 vector; ``python -m kozel_env.docs`` prints the table.

Where is what: :mod:`.rules` (the rules config, its option and reset-option checks), :mod:`.tables` (action
layout, trump and follow masks, the trick-strength table), :mod:`.engine` (the state: fields, moves, deal,
scoring), :mod:`.game` (observation, oracle, notation, text view), :mod:`.setup` (a chosen position from
``reset(options=...)``), :mod:`.sample` (determinization). Imports go one way: rules <- tables <- engine <-
setup / sample <- game.
"""
from __future__ import annotations

from .engine import PHASE_NAMING, PHASE_OVER, PHASE_PLAY, QueensAndJacksState, hand_value
from .game import QueensAndJacksGame
from .rules import CLASSIC, QueensAndJacksRules, make_rules, setup_checks
from .sample import sample_consistent
from .tables import EFF, FOLLOW, NAME_BASE, NUM_ACTIONS, QJ_MASK, STRENGTH, TRUMP_MASK

__all__ = [
    "CLASSIC", "EFF", "FOLLOW", "NAME_BASE", "NUM_ACTIONS", "PHASE_NAMING", "PHASE_OVER", "PHASE_PLAY", "QJ_MASK",
    "STRENGTH", "TRUMP_MASK", "QueensAndJacksGame", "QueensAndJacksRules", "QueensAndJacksState", "hand_value",
    "make_rules", "sample_consistent", "setup_checks",
]
