"""Card Kozel "beat or discard" (seed 002, RULES C1): the rules engine, a package shaped like
:mod:`kozel_env.dominoes`.

Where things are: :mod:`.rules` (the frozen rules config, its option checks, ``CLASSIC``), :mod:`.tables`
(the rank order, action ids, phases, masks), :mod:`.beats` (beat legality by suit-wise matching),
:mod:`.engine` (the state: fields, moves, a round), :mod:`.scoring` (the deal, the refill and the score of
a game, the match end), :mod:`.game` (observation, oracle, notation, text view), :mod:`.setup` (a chosen
position from reset options), :mod:`.sample` (determinization).

Seed: ``seeds/002_f942888aba824a05.txt`` ("seed" below); ``C1.n`` is RULES.md section C1. 36 cards, six to
ace, ranks low to high ``6 7 8 9 J Q K T A`` (C1.2), card points A 11, T 10, K 4, Q 3, J 2 (RULES C).

Rules config (:class:`~.rules.BeatOrDiscardRules`): ``mode="pairs"`` (four players, seats 0+2 against 1+3, shared
tricks and penalties; seed "In pairs") or ``"solo"`` (``num_players`` 2-4, every player for themselves,
C1.16); ``hand_size=6`` (classic) or ``4`` (the quick game, C1.15).

The game (every item cites its source):

* Deal: ``hand_size`` cards each, the rest is the stock (seed). A match is a series of games; penalty
  points add up; a side (pairs) at ``target`` = 12 is the goat and the match ends (C1.17); solo: a player
  at 12 or more is out, the last one left wins (C1.16).
* Trump (C1.10): diamonds in the first game; the stock's bottom card is hidden, shown to all when drawn,
  and its suit is trump from that moment and in the following games. Quick game: diamonds always, the
  bottom card is neither shown nor changes anything (C1.15).
* Leader (C1.11): first game, the holder of the lowest diamond (nobody: seat 0, or the first seat still
  in); later games the taker of the previous game's last trick; within a game the trick's taker. A leader
  without cards passes the lead clockwise to the next player holding cards (C1.9).
* Lead (seed): 1 to 6 cards of one suit, face up: the round's top cards. Quick game: at most the
  smallest hand among players who still hold cards (C1.15).
* Answers (C1.3-C1.6): clockwise from the leader. A player holding more cards than the last beater
  (the leader at first) must *beat* (cover every top card one for one, any mix of suits, legality is a
  matching, :mod:`~.beats`) or *discard* exactly ``own size - last beater's
  size`` cards face down; never a mix. A player with as many cards or fewer may beat or pass; with no beat
  possible the turn is skipped. A player who discarded this round may not beat again in it (the discard
  lock) but discards again when a new beat requires it. A beater becomes the last beater; their cards are
  the new top cards.
* Beat again / Done (C1.7): when the turn comes back to the last beater they beat their own top cards
  again (if able) or say Done. The round also ends by itself when nobody who may beat can beat (and
  nobody may still claim, see below).
* Trick (C1.8): the last beater takes every table card (top, beaten, discarded); if nobody beat, the
  leader. Then every player but the taker holding more cards than the smallest hand adds face-down cards
  of their choice to that trick down to that size (equalising).
* Refill (C1.9): one card at a time round the table from the taker until hands are full or the stock is
  empty (hands may then differ by one). Players out of cards are skipped. The game ends when the stock and
  every hand are empty.
* Quick game (C1.15): each player answers once (beat the current top cards or discard as many cards as
  the lead; no pass), no beat-again and no Done; the round ends when the turn returns to the leader.
* Claims "I have N" (C1.13): a player holding 4+ cards of one suit who has not beaten or discarded this
  round may claim the lead, announcing only the length N of their longest suit. Offered after each refill
  before the lead (seats asked once, clockwise from the leader) and whenever the player's answer comes up.
  Highest N wins; ties go to the seat nearest clockwise from the leader, so a later claim must be strictly
  higher. A claim after a lead returns every card played in the round to its owner and clears the round's
  locks; the claimant then leads anything (in the quick game within its lead limit).
* Scoring (C1.1): each side's trick points: 61+ -> 0, 31-60 -> 2, 30 or less -> 4, no trick -> 6
  penalty points; 60:60 between two sides is eggs (C1.12): nothing written, the next game counts x2 (x4
  after two eggs in a row, ...), via the shared :class:`~kozel_env.core.ledger.Ledger`
  (``eggs_mode="multiply"``). Solo (C1.16): each player from their own points; eggs only when exactly two
  players are left and both took 60; several players out in the same game: fewer penalty points wins,
  tie: the taker of the last trick.
* Four aces or four sixes in one hand after the deal or a refill end the match at once (C1.14): that
  player and their partner win, everyone else takes 12 (solo: is out); aces outrank sixes.

Actions (``num_actions = 40`` in every variant; ids refer to cards, never to seats or hand positions)
---------------------------------------------------------------------------------------------------
A multi-card move (a lead, a beat, a discard, an equalising) is a *set* of cards, built one card at a
time and then confirmed:

* ``0..35`` -- pick the card with that id (:mod:`kozel_env.cards.deck`: ``suit * 9 + rank``, notation
  ``QC``, ``TS``). Cards are picked in increasing id order (clubs, diamonds, hearts, spades; ``6 7 8 9 T J
  Q K A`` inside a suit), so every set has exactly one action sequence.
* ``36`` ``lead`` / ``beat`` -- play the picked cards face up (the lead, or a beat of the top cards).
* ``37`` ``discard`` -- lay the picked cards face down (a discard, or the equalising after a trick).
* ``38`` ``pass`` / ``done`` -- pass (no beat, nothing owed; or decline to claim), ``done`` for the
  last beater.
* ``39`` ``claim`` -- claim the lead ("I have N"; N is your longest suit: the table learns it when the
  claim is made; the notation never shows it, so it tells nobody about a hand).

The mask offers a card only if the picked cards plus it can still be completed to a legal move with
higher cards of the hand: for a lead, cards of the picked suit up to the lead limit; for a discard or an
equalising of ``k`` cards, any card with enough hand cards above it; for a beat, the next card of some
legal beating set that agrees with the picks so far (the beating sets are enumerated once per turn by
suit-wise matching tables). ``beat`` is offered exactly when the picks form a legal beating set,
``discard`` exactly when they are the owed number of cards. So every legal lead, beat, discard and
equalising is reachable, and nothing else. A position whose only legal action is forced (a single card
to lead, a discard of the whole hand, a forced pick or confirmation, a skipped turn) is played
automatically: ``current_player`` has a real choice -- except a claim question (C1.13), which every seat
that could claim by the public counts gets, before the lead and with its answer, whatever it holds (then
"pass" may be its only move): whether a seat is asked never tells the table what it holds.

Worked example: one round (pairs, classic, first game: trump diamonds). Hands: player_0
``7C 9C KC 6D 8H JS`` (the lowest diamond: player_0 leads, C1.11), player_1 ``6C AC 7D 9H QH AS``,
player_2 ``8C TC 9D KD AD 7S``, player_3 ``JC 8D JD 6H 7H 8S``; each other seat holds six cards, so each
is asked whether to claim (nobody holds four of a suit: each can only pass). Each line is one decision:
the seat, the legal actions offered, the one taken, and what followed automatically::

    player_1  [pass]                pass     the claim pass before the lead (C1.13), clockwise from
    player_2  [pass]                pass     the leader
    player_3  [pass]                pass
    player_0  [7C 9C KC 6D 8H JS]   7C       any card may start a lead
    player_0  [9C KC lead]          9C       only higher clubs can join; "lead" is legal already
    player_0  [KC lead]             lead     top cards 7C 9C; player_0 keeps 4 cards
    player_1  [6C AC 7D 9H QH]      6C       6 cards, owes 2: a discard of 2 or a beat (AC 7D) ...
    player_1  [AC 7D 9H QH AS]      9H       ... 6C 9H can only be a discard: "discard" is automatic
    player_2  [8C TC 9D KD AD]      TC       TC beats 9C (or 7C)
    player_2  [9D KD AD 7S]         9D       a trump for the other club (the set may mix suits)
    player_2  [beat discard]        beat     TC 9D is also 2 cards: both are offered
    player_3  [JC 8D JD 6H 7H]      6H       could beat TC 9D with 8D JD; discards instead
    player_3  [7H 8S]               8S       "discard" automatic
    player_2  [KD done]             done     player_0 (one trump) cannot beat TC 9D and player_1 is
                                             locked: both skipped; player_2, the last beater, could
                                             beat again with KD AD, says done

player_2 takes the trick (7C 9C, TC 9D and the four face-down cards: 10 points); every hand holds 4,
so nobody equalises; everyone draws 2 from player_2 clockwise, and player_2 leads the next round. The
same sequence is pinned by ``tests/cards/test_beat_or_discard_rules.py::test_docstring_worked_example``.

Choices where RULES.md is silent (each listed in the report; named options where a courtyard may differ):

* The current leader may not claim (the lead is already theirs); the pre-lead claim pass asks every other
  seat once, clockwise from the leader, and the original leader is not asked again after being outbid.
* A claim after a lead also clears the "has acted" state of the round (it restarts), so a player whose
  beat was returned may claim later with a strictly higher N.
* The round's automatic end (C1.7) waits while some player may still claim when their answer comes up
  (a claim is that player's decision); owed discards left when a round ends by itself are laid by the
  equalising after the trick (same result: C1.8 equalises down to the smallest hand).
* In the quick game a round never ends early (every answer is owed: beat or discard).
* Four aces / sixes are checked after the deal and after each complete refill; the 12 points are
  written as such (the eggs multiplier does not apply).
* Solo ties of C1.16 when the last trick's taker is not among the tied: the tied player nearest clockwise
  from that taker wins. Solo ``returns()``: +1 the winner, -1 the goats (the first player(s) out), 0 the
  others. ``single_deal``: +1 for the lowest penalty, -1 for the highest, 0 otherwise (eggs: all 0).
* Public knowledge of a card in a hand (the revealed bottom card, a card returned face up by a claim) is
  kept while it can only be in that hand or among that player's face-down cards of the round, and
  forgotten once that player's face-down cards go to a trick. Claims are shown for the current round
  only, and the first lead's lowest-diamond inference only until the first trick: the observation (and
  ``sample_consistent``) does not carry those older inferences.
* Equalising (C1.8) is asked clockwise from the taker; the cards go face down, so the order hides
  nothing.
"""
from __future__ import annotations

from .beats import beat_sets, beats_card, can_beat, is_beat
from .engine import BeatOrDiscardState
from .game import BeatOrDiscardGame
from .rules import CLASSIC, MODES, BeatOrDiscardRules, make_rules, setup_checks
from .scoring import penalty
from .tables import (
                     A_CLAIM,
                     A_DOWN,
                     A_PASS,
                     A_PLAY,
                     NUM_ACTIONS,
                     ORDER,
                     PH_ANSWER,
                     PH_CLAIM,
                     PH_EQUALISE,
                     PH_LEAD,
                     PH_OVER,
                     PH_REBEAT,
                     PHASE_NAMES,
                     STRENGTH,
                     cards_text,
                     longest_suit,
                     lowest_diamond_seat,
)

WORKED_EXAMPLE = __doc__[__doc__.index("Worked example:"):__doc__.index("Choices where RULES.md")].rstrip() + "\n"
"""The docstring's worked example (the environment's documentation and the README repeat it)."""

__all__ = ["BeatOrDiscardRules", "BeatOrDiscardGame", "BeatOrDiscardState", "CLASSIC", "MODES", "make_rules",
           "setup_checks", "penalty", "longest_suit", "lowest_diamond_seat", "cards_text", "beat_sets",
           "beats_card", "can_beat", "is_beat", "ORDER", "STRENGTH", "NUM_ACTIONS", "A_PLAY", "A_DOWN", "A_PASS",
           "A_CLAIM", "PH_CLAIM", "PH_LEAD", "PH_ANSWER", "PH_REBEAT", "PH_EQUALISE", "PH_OVER", "PHASE_NAMES",
           "WORKED_EXAMPLE"]
