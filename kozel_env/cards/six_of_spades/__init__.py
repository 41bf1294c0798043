"""Card Kozel with the six of spades, Moskva and Molodka (seed 004, RULES C3): the rules engine.

The package, one file per question: :mod:`.rules` (the options config and its checks), :mod:`.tables`
(card masks, the trick-strength table, action ids), :mod:`.engine` (the state: fields, moves, deal flow),
:mod:`.scoring` (a deal's penalties, the match end), :mod:`.game` (observation, oracle, notation, text
rendering), :mod:`.setup` (building a chosen position from reset options), :mod:`.sample`
(determinization). The names other modules import are re-exported here.

Two or three players play alone, four play in two pairs across, seats (0, 2) against (1, 3). Clockwise
is increasing seat number; "left of" a seat is the next seat clockwise.

Rules (every item cites its source; "seed" is ``seeds/004_9d68d233d10b2b72.txt``, "C3.n" is RULES.md):

* Deal (seed 1-2, C3.1): 36 cards six to ace, four each; the next card goes face up under the stock, its
  suit is trump and it is the last card drawn. The deal passes left; the player left of the dealer leads
  the first round. The first dealer of a match is drawn from the state's Rng (setup ``dealer`` fixes it).
* Ranks (seed 2-3, C3.2): ``A T K Q J 9 8 7 6`` high to low. A higher card of the same suit or a trump
  against a plain card beats; ``6S`` beats every card, trumps included, counts nothing, and a ``6S`` on
  top cannot be beaten.
* Round (seed 4-6, C3.3): the leader lays 1 to 4 cards of one suit (``6S`` may join a lead of any suit).
  Every other player holding cards answers once, in turn clockwise, with the same number of cards:
  a set that beats every top card one for one (a matching: each answer card beats a distinct top card)
  goes on top, otherwise the cards go face down. Whoever is on top after the pass round takes every
  card of the round, face-down ones too, and leads next.
* Refill (seed 6, C3.4): back to four, the taker first, then clockwise; the trump card is drawn last.
  When the stock runs short hands may differ, and a lead may not hold more cards than the smallest hand
  among the players who still hold cards (so everyone still holding cards can always answer).
* Calls (seed 7, C3.5): before a lead a player holding Moskva (four cards each an ace or a ten, at least
  one ace; ``6S`` may stand in for a ten) or Molodka (four cards of one suit, or three of one suit and
  ``6S``) may call it and lead those four cards (a Moskva four may mix suits) instead of the scheduled
  leader. Moskva beats Molodka; equal calls go to the seat nearest clockwise from the scheduled leader.
* Deal score (seed 8, C3.6; card points of RULES C: A 11, T 10, K 4, Q 3, J 2, 120 in all): the side
  with the most points takes nothing; every other side takes 2 with 31 points or more (21 when three
  sides play the deal), 4 with fewer, 6 with no trick. A tie for most gives each tied side 2. Written on
  the shared :class:`~kozel_env.core.ledger.Ledger` (``threshold_mode="none"``; eggs are never used).
* Match (seed 9, C3.7): a side at 12 or more is out; the last side left wins. If every side left reaches
  12 together, only the highest goes out (tie for highest: the taker of the last trick stays). After 25
  deals the fewest penalty points win.

Actions (``num_actions = 42`` in every variant, independent of the seat; ids name cards, never seats):

* ``0..35`` -- *choose* the card with that id (:mod:`kozel_env.cards.deck` ids ``suit * 9 + rank``,
  notation ``7H``, ``TS``, ``6S``) for the lead or answer being built;
* ``36`` ``lead`` -- lay the chosen cards as the lead; ``37`` ``beat`` -- lay the chosen answer on top;
  ``38`` ``down`` -- lay the chosen answer face down;
* ``39`` ``moskva``, ``40`` ``molodka`` -- make the call offered; ``41`` ``pass`` -- let it go.

A lead or an answer is a *set* of cards, built one card at a time and then confirmed:

1. At the start of the turn the engine lists the legal sets: for a lead, every non-empty subset of the
   hand of at most ``lead_cap`` cards whose cards other than ``6S`` are of one suit (this family is closed
   under taking subsets); for an answer, every subset of the hand of exactly the lead's size (only the
   beating ones with ``may_decline_beat=False`` when a beat exists).
2. Cards are chosen in increasing card id. The mask offers a card ``c`` only if some legal set has the
   chosen cards as its smallest members and ``c`` as its next one; so every legal set is reached by
   exactly one path (no duplicate orderings, good for search) and nothing else can be built.
3. ``lead`` is offered as soon as the chosen cards form a legal lead; ``beat`` when the chosen answer is
   complete and beats the top cards; ``down`` when it is complete (and, with ``may_decline_beat=False``,
   does not beat). When only one action is legal the engine takes it itself (a one-card hand, a hand
   that must be answered whole, a complete answer that cannot beat), so ``current_player`` has a real
   choice -- except a call question (see "Calls" below), which every holder gets even with only "pass".

The chosen-but-unconfirmed cards stay in the hand and are shown only to their owner (``selected``); the
table sees the set when it is laid.

Choices where the rules are silent (named options where a courtyard might differ; see the README):

* ``may_decline_beat=True``: a player able to beat may still lay face down (any cards, face down); with
  ``False`` a player who can beat must. A complete set that beats is laid on top only by ``beat``.
* "Answers once" with fewer cards than the lead cannot happen: the C3.4 cap keeps every lead within the
  smallest hand still holding cards; players with no cards sit the round out. If the scheduled leader
  has no cards the lead passes clockwise to the next player holding cards.
* When only one player still holds cards (stock empty) nobody can answer: that player takes their own
  remaining cards as one more trick, automatically.
* ``refill="fill_each"``: each player in turn from the taker draws up to four before the next one draws
  (``"round_robin"``: one card at a time round the table).
* Calls (``calls="offer"``): only possible when every player still holding cards holds four (C3.4 cap).
  Then *every* holder is asked, once, clockwise from the scheduled leader (the scheduled leader first),
  whatever it holds -- a seat with no call can only pass -- so whose turn it is never tells the others
  who holds a call. A seat may call only what beats the call standing so far (C3.5: Moskva beats
  Molodka; of equal calls the one nearest clockwise from the scheduled leader stands, i.e. the earlier);
  after a Moskva nobody is asked any more. When everyone has been asked, the standing call leads its
  four cards, else the scheduled leader leads. This gives the C3.5 resolution of all willing callers.
  Calls are public and shown until the lead is laid (``sample_consistent`` keeps "a caller holds its
  call" until then, not in later rounds); a pass says nothing. ``calls="auto"``: the holder first in
  precedence always calls; ``"off"``: no calls.
* The 21-point line applies when three sides play the deal; with two sides left of three it is 31.
* "Every side left reaches 12 together": the highest goes out; if several tie for highest and the taker
  of the last trick is among them, it stays and the other tied sides go out; otherwise all the tied
  highest go out. Sides that stay keep their scores and play on (the rule applies again after the next
  deal). Sides that reach 12 while another side stays below all go out.
* Places: sides still in rank first (after the deal limit by fewer penalty points, ties share), then the
  sides out, the later out the better (same deal: fewer points better). ``returns()``: +1 to the seats of
  the first place, -1 to the last place, 0 otherwise (0 for all if everyone shares the first place).
* With ``single_deal`` the episode ends after the first deal: the sides with the smallest penalty in it
  win (+1), those with the largest lose (-1), 0 if all equal (or the match result if the deal ended it).

The observation is described in :mod:`.game` (:attr:`SixOfSpadesGame.obs_spec` names its parts).
"""
from __future__ import annotations

from .engine import SixOfSpadesState
from .game import SixOfSpadesGame
from .rules import CALL_MODES, CLASSIC, REFILL_MODES, SETUP_KEYS, SixOfSpadesRules, make_rules, setup_checks
from .tables import (
    A_BEAT,
    A_DOWN,
    A_LEAD,
    A_MOLODKA,
    A_MOSKVA,
    A_PASS,
    ACES,
    ACTION_OF_NAME,
    BEATEN_BY,
    HAND,
    KIND_NAMES,
    MOLODKA,
    MOSKVA,
    MOSKVA_CARDS,
    NAMES,
    NOT_SIX,
    NUM_ACTIONS,
    PH_ANSWER,
    PH_CALL,
    PH_LEAD,
    PH_OVER,
    SIX_BIT,
    SIX_S,
    STRENGTH,
    TENS,
    beats,
    call_kind,
    covers,
    is_lead,
)

__all__ = [
    "A_BEAT", "A_DOWN", "A_LEAD", "A_MOLODKA", "A_MOSKVA", "A_PASS", "ACES", "ACTION_OF_NAME", "BEATEN_BY",
    "CALL_MODES", "CLASSIC", "HAND", "KIND_NAMES", "MOLODKA", "MOSKVA", "MOSKVA_CARDS", "NAMES", "NOT_SIX",
    "NUM_ACTIONS", "PH_ANSWER", "PH_CALL", "PH_LEAD", "PH_OVER", "REFILL_MODES", "SETUP_KEYS", "SIX_BIT", "SIX_S",
    "STRENGTH", "SixOfSpadesGame", "SixOfSpadesRules", "SixOfSpadesState", "TENS", "beats", "call_kind",
    "covers", "is_lead", "make_rules", "setup_checks",
]
