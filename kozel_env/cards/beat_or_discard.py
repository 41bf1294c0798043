"""Card Kozel "beat or discard" (seed 002, RULES C1): the rules engine.

Seed: ``seeds/002_f942888aba824a05.txt`` ("seed" below); ``C1.n`` is RULES.md section C1. 36 cards, six to
ace, ranks low to high ``6 7 8 9 J Q K T A`` (C1.2), card points A 11, T 10, K 4, Q 3, J 2 (RULES C).

Rules config (:class:`BeatOrDiscardRules`): ``mode="pairs"`` (four players, seats 0+2 against 1+3, shared
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
  matching, :mod:`~kozel_env.cards.beat_or_discard_beats`) or *discard* exactly ``own size - last beater's
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

from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

import numpy as np

from ..core.bits import bits
from ..core.errors import IllegalActionError, InvalidOptionError, KozelError
from ..core.game import Deferred, Game, State
from ..core.ledger import Ledger, LedgerRules
from ..core.options import (Bool, Choice, Int, Ints, RulesBase, Text, Texts, check_setup, defaults_ok,
                            option)
from ..core.options import make_rules as _make_rules
from ..core.rng import Rng
from ..core.spec import ObsSpec, Part, unpack_masks
from .beat_or_discard_beats import STRENGTH_OF_RANK, beat_sets, can_beat
from .deck import (DIAMONDS, FULL_DECK, NUM_CARDS, POINTS, R6, RA, RANK_MASK, SUIT_MASK, SUIT_NAMES, SUITS,
                   card_str, parse_card)

WORKED_EXAMPLE = __doc__[__doc__.index("Worked example:"):__doc__.index("Choices where RULES.md")].rstrip() + "\n"
"""The docstring's worked example (the environment's documentation and the README repeat it)."""

# ---------------------------------------------------------------------------------------------------
# Rules config
# ---------------------------------------------------------------------------------------------------

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

    def ledger_rules(self) -> LedgerRules:
        return LedgerRules(num_sides=self.num_sides, target=self.target, threshold_mode="none",
                           eggs_mode="multiply")


def make_rules(base: BeatOrDiscardRules, options: dict) -> BeatOrDiscardRules:
    """``base`` with the user's ``options`` checked and applied (:func:`kozel_env.core.options.make_rules`)."""
    return _make_rules(base, options)


@lru_cache(maxsize=None)
def setup_checks(rules: BeatOrDiscardRules) -> dict:
    """The ``reset(options=...)`` keys and what each allows (see :meth:`BeatOrDiscardGame.new_state`)."""
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

# ---------------------------------------------------------------------------------------------------
# Constants and tables
# ---------------------------------------------------------------------------------------------------

A_PLAY, A_DOWN, A_PASS, A_CLAIM = 36, 37, 38, 39
NUM_ACTIONS = 40
B_PLAY, B_DOWN, B_PASS, B_CLAIM = 1 << A_PLAY, 1 << A_DOWN, 1 << A_PASS, 1 << A_CLAIM

PH_CLAIM, PH_LEAD, PH_ANSWER, PH_REBEAT, PH_EQUALISE, PH_OVER = range(6)
PHASE_NAMES = ("claim?", "lead", "answer", "beat again or done", "equalise", "over")

_POP9 = tuple(m.bit_count() for m in range(512))
_SUIT_OF_LOW = tuple(SUIT_MASK[c // 9] for c in range(NUM_CARDS))
_LOW9 = tuple(tuple(k * 9 + i for i in range(9) if m >> i & 1) for k in range(4) for m in range(512))
_SPECIAL = tuple(tuple(36 + i for i in range(4) if m >> i & 1) for m in range(16))
ACES, SIXES = RANK_MASK[RA], RANK_MASK[R6]
DIAMOND_ORDER = tuple(sorted((DIAMONDS * 9 + r for r in range(9)), key=lambda c: STRENGTH_OF_RANK[c % 9]))
"""The diamonds from the lowest up (C1.11)."""


def mask_to_actions(m: int) -> list:
    """Sorted action ids of an action bitmask (table look-ups per 9-bit chunk)."""
    return [*_LOW9[m & 511], *_LOW9[512 + (m >> 9 & 511)], *_LOW9[1024 + (m >> 18 & 511)],
            *_LOW9[1536 + (m >> 27 & 511)], *_SPECIAL[m >> 36 & 15]]


def longest_suit(h: int) -> int:
    """Length of the longest suit in a hand (the N of a claim, C1.13)."""
    a, b, c, d = _POP9[h & 511], _POP9[h >> 9 & 511], _POP9[h >> 18 & 511], _POP9[h >> 27 & 511]
    if b > a:
        a = b
    if c > a:
        a = c
    return d if d > a else a


def penalty(points: int, tricks: int, table: tuple = (0, 2, 4, 6)) -> int:
    """C1.1: penalty points of a side from its own trick points (``tricks``: tricks it took)."""
    if tricks == 0:
        return table[3]
    if points >= 61:
        return table[0]
    if points >= 31:
        return table[1]
    return table[2]


def points_of(mask: int) -> int:
    return sum(POINTS[c] for c in bits(mask))


def lowest_diamond_seat(hands, seats) -> int:
    """C1.11: the seat (among ``seats``) holding the lowest diamond; nobody: the first of ``seats``."""
    for c in DIAMOND_ORDER:
        b = 1 << c
        for q in seats:
            if hands[q] & b:
                return q
    return seats[0]


# ---------------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------------


class BeatOrDiscardState(State):
    """One match. Cards are ids of :mod:`kozel_env.cards.deck`; every card set is an int mask.

    Per seat (lists): ``hands``; ``tup`` / ``tdn`` the face-up / face-down cards laid on the table this
    round; ``fd`` every card the seat laid face down this game (still on the table or in a trick);
    ``known`` cards publicly known to be in the seat's hand or among its face-down cards of this round;
    ``claims`` the N claimed this round (0: none). Per side: ``piles`` the tricks' cards, ``piles_up`` the
    face-up ones, ``tricks`` how many tricks. Round: ``leader``, ``lb`` (last beater, -1 before the lead),
    ``top`` (the cards to beat), ``lead``, ``locked`` / ``acted`` seat bitmasks (discarded / beaten or
    discarded), ``best_claim``. The decision in progress: ``phase``, ``current_player``, ``sel`` (cards
    picked so far), ``beats`` (the legal beating sets of the player), ``need`` (cards owed face down; in
    the lead: the lead limit), ``opts`` (pass / claim bits). The stock: ``stock`` (mask) and
    ``stock_seq`` (draw order, its last card the bottom card, C1.10); ``revealed`` the bottom card once
    drawn (-1 before). Match: ``ledger``, ``out`` (seats out, solo), ``goats`` (the first out, solo).
    """

    __slots__ = (
        "game", "rules", "rng", "ledger", "hands", "stock", "stock_seq", "trump", "revealed", "piles",
        "piles_up", "tricks", "fd", "known", "out", "first_game", "diamond_leader", "leader", "lb", "top",
        "lead", "tup", "tdn", "locked", "acted", "claims", "best_claim", "claim_stop", "phase",
        "current_player", "sel", "beats", "need", "opts", "eq_taker", "eq_min", "last_taker", "goats",
        "elim", "terminal", "deals_played", "last_result", "match_result", "single_deal", "_lm", "results",
        "events",
    )

    SETUP_KEYS = frozenset({"hands", "stock", "piles", "leader", "first_game", "trump", "scores", "eggs",
                            "single_deal"})
    """Keys of ``new_state``'s ``setup`` (see :meth:`BeatOrDiscardGame.new_state`)."""

    # -- the State contract ------------------------------------------------------------------------

    def legal_mask(self) -> int:
        """Bitmask over action ids of the legal actions (0 when terminal)."""
        lm = self._lm
        if lm >= 0:
            return lm
        ph = self.phase
        if ph == PH_OVER:
            m = 0
        elif ph == PH_CLAIM:  # asked whatever it holds (no leak): may claim only with the long suit
            m = B_PASS | (B_CLAIM if self.claimable(self.current_player) else 0)
        else:
            h = self.hands[self.current_player]
            sel = self.sel
            le = (1 << sel.bit_length()) - 1  # the cards up to the highest pick
            if ph == PH_LEAD:
                if sel:
                    m = B_PLAY
                    if sel.bit_count() < self.need:
                        m |= h & _SUIT_OF_LOW[sel.bit_length() - 1] & ~le
                else:
                    m = h
            else:
                m = 0
                beats = self.beats
                if beats:
                    if sel:
                        for b in beats:
                            if b & le == sel:
                                r = b & ~le
                                m |= (r & -r) if r else B_PLAY
                    else:
                        for b in beats:
                            m |= b & -b
                k = self.need
                if k:
                    r = k - sel.bit_count()
                    if r > 0:
                        av = h & ~le
                        if av.bit_count() >= r:
                            for _ in range(r - 1):
                                av ^= 1 << (av.bit_length() - 1)
                            m |= av
                    elif r == 0:
                        m |= B_DOWN
                if not sel:
                    m |= self.opts
        self._lm = m
        return m

    def legal_actions(self) -> list:
        return mask_to_actions(self.legal_mask())

    def apply_action(self, action: int) -> None:
        """Apply a legal action, then every forced step that follows (see the module docstring)."""
        if self.terminal:
            raise IllegalActionError(f"illegal move {action!r}: the match is over")
        m = self._lm
        if m < 0:
            m = self.legal_mask()
        if type(action) is not int:
            if not isinstance(action, (int, np.integer)) or isinstance(action, bool):
                raise IllegalActionError(self._illegal_msg(action))
            action = int(action)
        if not 0 <= action < NUM_ACTIONS or not m >> action & 1:
            raise IllegalActionError(self._illegal_msg(action))
        self.events = []
        self._apply(action)
        self._run_forced()

    def _run_forced(self) -> None:
        """Play every forced step (a single legal action) so that the seat to move has a real choice --
        except a question the table sees being asked (:meth:`public_ask`), which is asked even when the
        seat's cards leave it one answer, so that the turn order shows nothing hidden."""
        while not self.terminal:
            if self.public_ask():
                return
            if not self.beats and not self.opts and not self.sel and self.phase >= PH_ANSWER:
                h = self.hands[self.current_player]
                if self.need == h.bit_count():  # owes the whole hand face down: forced (C1.4, C1.8)
                    self.sel = h
                    self._apply(A_DOWN)
                    continue
            m = self.legal_mask()
            if m & (m - 1):
                return
            self._apply(m.bit_length() - 1)

    def public_ask(self) -> bool:
        """The seat to move is asked something whose answer only its cards decide, at a moment the table can
        see: a claim question (C1.13) -- before the lead, or with its answer while a claim is possible by
        public counts. Such a turn is never skipped or played automatically (it may have one legal move)."""
        if self.sel or self.terminal:
            return False
        ph = self.phase
        return ph == PH_CLAIM or (ph == PH_ANSWER and self.claim_possible(self.current_player))

    def clone(self) -> "BeatOrDiscardState":
        c = BeatOrDiscardState.__new__(BeatOrDiscardState)
        c.game = self.game
        c.rules = self.rules
        c.rng = self.rng.clone()
        c.ledger = self.ledger.clone()
        c.hands = self.hands[:]
        c.stock = self.stock
        c.stock_seq = self.stock_seq
        c.trump = self.trump
        c.revealed = self.revealed
        c.piles = self.piles[:]
        c.piles_up = self.piles_up[:]
        c.tricks = self.tricks[:]
        c.fd = self.fd[:]
        c.known = self.known[:]
        c.out = self.out
        c.first_game = self.first_game
        c.diamond_leader = self.diamond_leader
        c.leader = self.leader
        c.lb = self.lb
        c.top = self.top
        c.lead = self.lead
        c.tup = self.tup[:]
        c.tdn = self.tdn[:]
        c.locked = self.locked
        c.acted = self.acted
        c.claims = self.claims[:]
        c.best_claim = self.best_claim
        c.claim_stop = self.claim_stop
        c.phase = self.phase
        c.current_player = self.current_player
        c.sel = self.sel
        c.beats = self.beats
        c.need = self.need
        c.opts = self.opts
        c.eq_taker = self.eq_taker
        c.eq_min = self.eq_min
        c.last_taker = self.last_taker
        c.goats = self.goats
        c.elim = self.elim[:]
        c.terminal = self.terminal
        c.deals_played = self.deals_played
        c.last_result = self.last_result
        c.match_result = self.match_result
        c.single_deal = self.single_deal
        c._lm = self._lm
        c.results = self.results
        c.events = []
        return c

    # -- conveniences --------------------------------------------------------------------------------

    @property
    def scores(self) -> list:
        """Penalty points per side (pairs: seats 0+2 = side 0, 1+3 = side 1; solo: per seat)."""
        return self.ledger.scores

    @property
    def multiplier(self) -> int:
        return self.ledger.multiplier

    @property
    def quick(self) -> bool:
        return self.rules.hand_size == 4

    def active_seats(self) -> list:
        return [q for q in range(self.rules.num_players) if not self.out >> q & 1]

    def holding(self, q: int) -> int:
        """The seat's cards at the start of the round: hand plus everything it laid this round."""
        return self.hands[q] | self.tup[q] | self.tdn[q]

    def claim_possible(self, q: int) -> bool:
        """C1.13 by public facts alone: ``q`` is not the leader, has not beaten or discarded this round and
        holds enough cards for a claim above the best one (N is at most its hand size)."""
        k = self.hands[q].bit_count()
        return k >= self.game._cmin and k > self.best_claim and q != self.leader and not self.acted >> q & 1

    def claimable(self, q: int) -> bool:
        """C1.13: ``q`` may claim now (not the leader, has not beaten or discarded, N high enough)."""
        if not self.claim_possible(q):
            return False
        n = longest_suit(self.hands[q])
        return n >= self.game._cmin and n > self.best_claim

    def seat_tags(self, q: int) -> list:
        """What the table shows about a seat this round (text and picture views): leader, last beater,
        locked (C1.6), its claim (C1.13)."""
        tags = []
        if q == self.leader and not self.terminal:
            tags.append("leader")
        if q == self.lb:
            tags.append("last beater")
        if self.locked >> q & 1:
            tags.append("locked")
        if self.claims[q]:
            tags.append(f"claimed {self.claims[q]}")
        return tags

    def lead_limit(self) -> int:
        """Most cards a lead may hold: 6 (seed); quick game: the smallest hand among holders (C1.15)."""
        if not self.quick:
            return 6
        return min(h.bit_count() for h in self.hands if h)

    def _illegal_msg(self, action) -> str:
        g = self.game
        try:
            name = g.action_to_string(self, int(action))
        except Exception:  # noqa: BLE001 - out of range or not an int
            name = repr(action)
        legal = ", ".join(g.action_to_string(self, a) for a in self.legal_actions())
        return f"illegal move {name} for player_{self.current_player}; legal moves: {legal}"

    # -- one action ----------------------------------------------------------------------------------

    def _apply(self, a: int) -> None:
        self._lm = -1
        if a < 36:
            self.sel |= 1 << a
            return
        ph = self.phase
        p = self.current_player
        if a == A_PLAY:
            s, self.sel = self.sel, 0
            if ph == PH_LEAD:
                self._lead(p, s)
            else:
                self._beat(p, s)
        elif a == A_DOWN:
            s, self.sel = self.sel, 0
            if ph == PH_EQUALISE:
                self._equalise(p, s)
            else:
                self._discard(p, s)
        elif a == A_PASS:
            self.events.append(("done" if ph == PH_REBEAT else "pass", p, None, None))
            if ph == PH_CLAIM:
                self._ask_claims((p + 1) % self.rules.num_players)
            elif ph == PH_REBEAT:
                self._end_round()  # "Done" (C1.7)
            else:
                self._after(p)
        else:
            self._claim(p)

    def _decide(self, phase: int, q: int, need: int = 0, opts: int = 0, beats: tuple = ()) -> None:
        self.phase = phase
        self.current_player = q
        self.need = need
        self.opts = opts
        self.beats = beats
        self.sel = 0
        self._lm = -1

    def _lead(self, p: int, s: int) -> None:
        """Seed "The leader puts down 1 to 6 cards of one suit" (C1.15 limit in the quick game)."""
        self.hands[p] &= ~s
        self.tup[p] |= s
        self.known[p] &= ~s
        self.lead = s
        self.top = s
        self.lb = p
        self.events.append(("lead", p, _cards(s), None))
        self._after(p)

    def _beat(self, p: int, s: int) -> None:
        """C1.3: the beater becomes the last beater, their cards the new top cards."""
        self.hands[p] &= ~s
        self.tup[p] |= s
        self.known[p] &= ~s
        self.top = s
        self.lb = p
        self.acted |= 1 << p
        self.events.append(("beat", p, _cards(s), None))
        self._after(p)

    def _discard(self, p: int, s: int) -> None:
        """C1.4 / C1.6: face down, and the discard lock for the rest of the round."""
        self.hands[p] &= ~s
        self.tdn[p] |= s
        self.fd[p] |= s
        self.locked |= 1 << p
        self.acted |= 1 << p
        self.events.append(("discard", p, s.bit_count(), _cards(s)))
        self._after(p)

    def _claim(self, p: int) -> None:
        """C1.13: "I have N"; after a lead every card of the round goes back to its owner."""
        n = longest_suit(self.hands[p])
        self.claims[p] = n
        self.best_claim = n
        self.leader = p
        self.events.append(("claim", p, n, None))
        if self.phase == PH_CLAIM:
            self._ask_claims((p + 1) % self.rules.num_players)
            return
        hands, tup, tdn, known, fd = self.hands, self.tup, self.tdn, self.known, self.fd
        for q in range(self.rules.num_players):
            u, d = tup[q], tdn[q]
            if u or d:
                hands[q] |= u | d
                known[q] |= u
                fd[q] &= ~d
                tup[q] = 0
                tdn[q] = 0
        self.top = 0
        self.lead = 0
        self.lb = -1
        self.locked = 0
        self.acted = 0
        self._decide(PH_LEAD, p, self.lead_limit())

    # -- turn order ----------------------------------------------------------------------------------

    def _alive(self) -> bool:
        """C1.7: the round goes on while someone who may beat can beat, or someone may still claim."""
        top, tr, locked, hands = self.top, self.trump, self.locked, self.hands
        for q in range(self.rules.num_players):
            h = hands[q]
            if h and not locked >> q & 1 and can_beat(h, top, tr):
                return True
        if self.rules.claims:  # a claim the table cannot rule out keeps the round going (no leak)
            for q in range(self.rules.num_players):
                if hands[q] and self.claim_possible(q):
                    return True
        return False

    def _after(self, p: int) -> None:
        """The next seat with a decision after ``p`` acted in the round (C1.4-C1.7, C1.15), or the end.

        The automatic end of C1.7 ("nobody who may beat can beat", and nobody may still claim) is tested
        only where it changes something: before a seat's turn that would be a bare owed discard; seats
        that may beat or claim prove the round alive, skipped seats change nothing, and the last beater
        unable to beat ends the round anyway."""
        quick = self.rules.hand_size == 4
        n = self.rules.num_players
        hands, lb = self.hands, self.lb
        q = p
        while True:
            q = q + 1 if q + 1 < n else 0
            if quick:
                if q == self.leader:  # C1.15: the round ends when the turn returns to the leader
                    self._end_round()
                    return
            elif q == lb:  # C1.7: beat again or Done; nothing to beat with: the round ends
                if not self._offer_rebeat(q):
                    self._end_round()
                return
            if hands[q]:
                got = self._offer_answer(q, True)
                if got:
                    return
                if got is None:
                    self._end_round()
                    return
                self.events.append(("skip", q, None, None))  # C1.5: cannot beat, owes nothing

    def _offer_rebeat(self, q: int) -> bool:
        bs = beat_sets(self.hands[q], self.top, self.trump)
        if not bs:
            return False
        self._decide(PH_REBEAT, q, 0, B_PASS, bs)
        return True

    def _offer_answer(self, q: int, check_alive: bool = False):
        """Give ``q`` its answer (C1.4-C1.6, C1.13; quick game C1.15): True; False if its turn is skipped
        (C1.5); None (with ``check_alive``) if it would only owe a discard but the round has ended by
        itself (C1.7)."""
        h = self.hands[q]
        bs = () if self.locked >> q & 1 else beat_sets(h, self.top, self.trump)
        cc = self.claimable(q)
        if self.rules.hand_size == 4:
            k = self.lead.bit_count()
            opts = B_CLAIM if cc else 0
        else:
            k = h.bit_count() - self.hands[self.lb].bit_count()
            if not bs and not self.claim_possible(q):  # a possible claim is asked about (no leak)
                if k <= 0:
                    return False
                if check_alive and not self._alive():
                    return None
            opts = (B_CLAIM if cc else 0) | (B_PASS if k <= 0 else 0)
        self._decide(PH_ANSWER, q, k if k > 0 else 0, opts, bs)
        return True

    def _redecide(self) -> bool:
        """Recompute the decision of the seat to move from scratch (its picks dropped); False when that seat
        would have no real choice here (used by determinization, which re-deals hidden hands)."""
        q, ph = self.current_player, self.phase
        if ph == PH_CLAIM:
            self._decide(PH_CLAIM, q)
        elif ph == PH_LEAD:
            self._decide(PH_LEAD, q, self.lead_limit())
        elif ph == PH_REBEAT:
            if not self._offer_rebeat(q):
                return False
        elif ph == PH_EQUALISE:
            self._decide(PH_EQUALISE, q, self.need)
        elif not self._offer_answer(q):
            return False
        m = self.legal_mask()
        return bool(m & (m - 1)) or self.public_ask()

    def _start_round(self, leader: int) -> None:
        self._clear_round(leader)
        self._ask_claims((leader + 1) % self.rules.num_players)

    def _clear_round(self, leader: int) -> None:
        """An empty table for a round that ``leader`` leads."""
        n = self.rules.num_players
        self.leader = leader
        self.lb = -1
        self.top = 0
        self.lead = 0
        self.tup = [0] * n
        self.tdn = [0] * n
        self.locked = 0
        self.acted = 0
        self.claims = [0] * n
        self.best_claim = 0
        self.claim_stop = leader

    def _ask_claims(self, q: int) -> None:
        """C1.13: before the lead, seats are asked once, clockwise from the leader."""
        n = self.rules.num_players
        if self.rules.claims:
            while q != self.claim_stop:
                if self.hands[q] and self.claim_possible(q):  # asked whatever it holds (no leak)
                    self._decide(PH_CLAIM, q)
                    return
                q = q + 1 if q + 1 < n else 0
        self._decide(PH_LEAD, self.leader, self.lead_limit())

    # -- trick, equalising, refill -------------------------------------------------------------------

    def _end_round(self) -> None:
        """C1.8: the last beater (else the leader) takes the table; then the equalising."""
        r = self.rules
        n = r.num_players
        taker = self.lb if self.lb >= 0 else self.leader
        side = r.side_of(taker)
        up = dn = 0
        for q in range(n):
            up |= self.tup[q]
            d = self.tdn[q]
            if d:
                dn |= d
                self.known[q] = 0  # its face-down cards went to a trick: knowledge is forgotten
        self.piles[side] |= up | dn
        self.piles_up[side] |= up
        self.tricks[side] += 1
        self.events.append(("trick", taker, None, None))
        self.tup = [0] * n
        self.tdn = [0] * n
        self.top = 0
        self.lead = 0
        self.lb = -1
        self.locked = 0
        self.acted = 0
        self.claims = [0] * n
        self.best_claim = 0
        self.last_taker = taker
        self.diamond_leader = -1
        self.eq_taker = taker
        self.eq_min = min(self.hands[q].bit_count() for q in range(n) if not self.out >> q & 1)
        self._equalise_next(taker)

    def _equalise_next(self, q: int) -> None:
        n = self.rules.num_players
        taker, mn, hands = self.eq_taker, self.eq_min, self.hands
        while True:
            q = q + 1 if q + 1 < n else 0
            if q == taker:
                break
            k = hands[q].bit_count() - mn
            if k > 0:
                self._decide(PH_EQUALISE, q, k)
                return
        self._refill()

    def _equalise(self, p: int, s: int) -> None:
        """C1.8: face-down cards of the player's choice into the trick just taken."""
        self.hands[p] &= ~s
        self.piles[self.rules.side_of(self.eq_taker)] |= s
        self.fd[p] |= s
        self.known[p] = 0
        self.events.append(("equalise", p, s.bit_count(), _cards(s)))
        self._equalise_next(p)

    def _draw(self, q: int) -> None:
        seq = self.stock_seq
        c = seq[0]
        self.stock_seq = seq[1:]
        b = 1 << c
        self.stock ^= b
        self.hands[q] |= b
        shown = None
        if not self.stock and self.rules.hand_size != 4:
            # C1.10: the bottom card is shown to everyone and its suit is trump from now on
            self.revealed = c
            self.trump = c // 9
            self.known[q] |= b
            shown = card_str(c)
        self.events.append(("draw", q, shown, card_str(c)))

    def _refill(self) -> None:
        """C1.9: one card at a time from the taker clockwise; then four of a kind (C1.14), game end."""
        r = self.rules
        n = r.num_players
        taker = self.eq_taker
        hands = self.hands
        if self.stock:
            order = [(taker + i) % n for i in range(n) if not self.out >> ((taker + i) % n) & 1]
            hs = r.hand_size
            while self.stock:
                drew = False
                for q in order:
                    if not self.stock:
                        break
                    if hands[q].bit_count() < hs:
                        self._draw(q)
                        drew = True
                if not drew:
                    break
            if r.four_of_a_kind and self._four_check():
                return
        if not any(hands):
            self._end_game()
            return
        leader = taker
        while not hands[leader]:
            leader = (leader + 1) % n
        self._start_round(leader)

    def _four_check(self) -> bool:
        """C1.14: four aces (first) or four sixes in one hand end the match."""
        for kind, m in (("four_aces", ACES), ("four_sixes", SIXES)):
            for q in self.active_seats():
                if self.hands[q] & m == m:
                    self._four_end(q, kind)
                    return True
        return False

    # -- game and match end --------------------------------------------------------------------------

    def _deal(self, fixed=None, leader=None) -> None:
        """Seed: ``hand_size`` cards each, the rest is the stock. Trump (C1.10), leader (C1.11)."""
        r = self.rules
        n = r.num_players
        act = self.active_seats()
        if fixed is None:
            cards = self.rng.shuffle(list(range(NUM_CARDS)))
            hs = r.hand_size
            hands = [0] * n
            for i, q in enumerate(act):
                for c in cards[i * hs:(i + 1) * hs]:
                    hands[q] |= 1 << c
            rest = tuple(cards[len(act) * hs:])
            self.hands = hands
            self.stock = sum(1 << c for c in rest)
            self.stock_seq = rest
            self.piles = [0] * r.num_sides
            self.piles_up = [0] * r.num_sides
            self.tricks = [0] * r.num_sides
        else:
            self.hands, self.stock, self.stock_seq, self.piles, self.tricks = fixed
            self.piles_up = self.piles[:]
        self.revealed = -1
        if r.hand_size == 4 or self.first_game:
            self.trump = DIAMONDS
        self.fd = [0] * n
        self.known = [0] * n
        self.diamond_leader = -1
        if leader is None:
            if self.first_game:
                leader = lowest_diamond_seat(self.hands, act)
                self.diamond_leader = leader
            else:
                leader = self.last_taker
                while self.out >> leader & 1:
                    leader = (leader + 1) % n
        while not self.hands[leader]:
            leader = (leader + 1) % n
        self._clear_round(leader)  # before the C1.14 check: a match that ends at the deal is still observed
        self.events.append(("deal", -1, {"leader": leader, "trump": SUITS[self.trump]},
                            Deferred(_dealt, tuple(self.hands), self.stock_seq)))
        if r.four_of_a_kind and self._four_check():
            return
        self._ask_claims((leader + 1) % n)

    def _end_game(self) -> None:
        """C1.1 penalties, C1.12 eggs (shared Ledger, multiply), C1.16 / C1.17 match end."""
        r = self.rules
        n = r.num_players
        led = self.ledger
        mult = led.multiplier
        if r.pairs:
            sides = [0, 1]
        else:
            sides = self.active_seats()
        pts = [points_of(p) for p in self.piles]
        eggs = len(sides) == 2 and pts[sides[0]] == 60 and pts[sides[1]] == 60
        raw = {}
        if eggs:
            led.record_eggs()
            written = {}
        else:
            for s in sides:
                v = penalty(pts[s], self.tricks[s], r.penalties)
                if v:
                    raw[s] = v
            written = led.settle(raw)
        S = r.num_sides
        self._deal_over({
            "ended_by": "played",
            "eggs": eggs,
            "winners": [] if eggs else [s for s in sides if not raw.get(s)],
            "losers": [s for s in sides if raw.get(s)],
            "written": [written.get(s, 0) for s in range(S)],
            "scores": led.scores[:],
            "seat_points": [-written.get(r.side_of(q), 0) for q in range(n)],
            "points": pts,
            "tricks": self.tricks[:],
            "penalties": [raw.get(s, 0) for s in range(S)],
            "multiplier": mult,
            "next_multiplier": led.multiplier,
            "trump": SUITS[self.trump],
            "last_taker": self.last_taker,
        })
        self.first_game = False
        if r.pairs:
            goats = led.at_target()
            if goats:  # C1.17: a side at the target is the goat
                self._end_match([1 - goats[0]], goats, goats, "target")
                return
        else:
            newly = [q for q in sides if led.scores[q] >= r.target]
            for q in newly:
                self.out |= 1 << q
                self.elim[q] = self.deals_played
            left = self.active_seats()
            if newly and len(left) <= 1:
                if left:
                    winner = left[0]
                else:
                    # C1.16: everyone left reached the target in this game: fewer points wins, then the
                    # taker of the last trick (nearest clockwise from it among the tied)
                    low = min(led.scores[q] for q in newly)
                    tied = [q for q in newly if led.scores[q] == low]
                    t = self.last_taker
                    winner = next((t + i) % n for i in range(n) if (t + i) % n in tied)
                    self.out &= ~(1 << winner)
                    self.elim[winner] = -1
                if self.goats is None:
                    self.goats = [q for q in newly if q != winner]
                self._end_match([winner], self.goats, self.goats, "last_one_left")
                return
            if newly and self.goats is None:
                self.goats = newly
        if self.single_deal:
            self._end_single_deal()
            return
        self._deal()

    def _four_end(self, q: int, kind: str) -> None:
        """C1.14: the holder (and partner) win; everyone else takes 12 (solo: is out)."""
        r = self.rules
        n = r.num_players
        led = self.ledger
        win_side = r.side_of(q)
        others = [s for s in range(r.num_sides) if s != win_side and (r.pairs or not self.out >> s & 1)]
        for s in others:
            led.add(s, 12)
        self._deal_over({
            "ended_by": kind,
            "eggs": False,
            "winners": [win_side],
            "losers": others,
            "written": [12 if s in others else 0 for s in range(r.num_sides)],
            "scores": led.scores[:],
            "seat_points": [-12 if r.side_of(x) in others else 0 for x in range(n)],
            "holder": q,
            "hand": _cards(self.hands[q]),
            "multiplier": led.multiplier,
        })
        if r.pairs:
            goats = others
        else:
            for s in others:
                self.out |= 1 << s
                self.elim[s] = self.deals_played
            goats = self.goats if self.goats is not None else others
            self.goats = goats
        self._end_match([win_side], goats, goats, kind)

    def _end_single_deal(self) -> None:
        """``single_deal``: the game's lowest penalty wins, the highest loses (eggs: nobody)."""
        r = self.rules
        res = self.last_result
        w = res["written"]
        play = [s for s in range(r.num_sides) if r.pairs or not self.out >> s & 1]
        hi, lo = max(w[s] for s in play), min(w[s] for s in play)
        if hi == lo:
            self._end_match([], [], [], "single_deal")
        else:
            self._end_match([s for s in play if w[s] == lo], [s for s in play if w[s] == hi], [], "single_deal")

    def _end_match(self, winners: list, losers: list, goats: list, reason: str) -> None:
        """The match result (:mod:`kozel_env.core.results`), in sides (solo: a side is a player). The goats:
        the side at the target (pairs, C1.17), everyone else after four of a kind (C1.14), the first player(s)
        out (solo, C1.16 and the seed: "the first to reach 12 ... becomes the goat")."""
        r = self.rules
        n = r.num_players
        S = r.num_sides
        scores = self.ledger.scores[:]
        if r.pairs:
            places = [1 if (s in winners or not winners) else 2 for s in range(S)]
        else:
            # the winner first; then by how long each stayed in, then by fewer penalty points
            def key(q):
                e = self.elim[q]
                return (0 if q in winners else 1, -(e if e >= 0 else 10 ** 6), scores[q])
            if reason == "single_deal":
                w = self.last_result["written"]

                def key(q):  # noqa: F811 - single game: by its penalty, the players out last
                    return (bool(self.out >> q & 1), w[q])
            keys = [key(q) for q in range(S)]
            places = [1 + sum(1 for o in keys if o < keys[q]) for q in range(S)]
        self.match_result = {
            "ended_by": reason,
            "winners": sorted(winners),
            "losers": sorted(losers),
            "goats": sorted(goats),
            "titles": ["goats"] if goats else [],
            "places": places,
            "scores": scores,
            "deals": self.deals_played,
            "returns": [1.0 if r.side_of(q) in winners else (-1.0 if r.side_of(q) in losers else 0.0)
                        for q in range(n)],
        }
        self.terminal = True
        self.phase = PH_OVER
        self.current_player = -1
        self.sel = 0
        self.beats = ()
        self.need = 0
        self.opts = 0
        self._lm = -1

    # -- checks --------------------------------------------------------------------------------------

    def check_invariants(self) -> None:
        """Every card exactly once (hands, stock, table, tricks); the public/face-down bookkeeping is
        consistent; scores never negative and below the target while the match runs (C1.16-17); the seat
        to move has a real choice (two or more legal actions)."""
        r = self.rules
        n = r.num_players
        seen = self.stock
        for m in self.hands + self.tup + self.tdn + self.piles:
            assert not seen & m, "a card is in two places"
            seen |= m
        assert seen == FULL_DECK, "a card is missing"
        for s in range(r.num_sides):
            assert self.piles_up[s] & ~self.piles[s] == 0
            assert self.tricks[s] > 0 or self.piles[s] == 0, "cards in a pile without a trick"
        allp = 0
        for p in self.piles:
            allp |= p
        up = 0
        for m in self.piles_up:
            up |= m
        for q in range(n):
            assert self.known[q] & ~(self.hands[q] | self.tdn[q]) == 0, "known card not held"
            assert self.fd[q] & ~(self.tdn[q] | allp) == 0, "face-down card lost"
            assert self.tdn[q] & ~self.fd[q] == 0
            assert self.fd[q] & up == 0
            assert self.hands[q].bit_count() <= r.hand_size
            if self.out >> q & 1 and not self.terminal:  # a match ended by C1.14 keeps the hands as dealt
                assert not self.hands[q], "a seat out of the match holds cards"
        assert all(v >= 0 for v in self.ledger.scores)
        assert sum(1 << c for c in self.stock_seq) == self.stock and len(self.stock_seq) == self.stock.bit_count()
        if self.terminal:
            assert self.current_player == -1 and self.match_result is not None and self.phase == PH_OVER
            return
        if r.pairs:
            assert all(v < r.target for v in self.ledger.scores), "a side at the target but the match runs"
        else:
            act = self.active_seats()
            assert len(act) >= 2 and all(self.ledger.scores[q] < r.target for q in act)
        cp = self.current_player
        assert 0 <= cp < n and not self.out >> cp & 1
        assert self.sel & ~self.hands[cp] == 0
        if self.lb >= 0:
            assert self.top and self.top & ~self.tup[self.lb] == 0
        m = self.legal_mask()
        assert m & (m - 1) or (m and self.public_ask()), "the seat to move has no real choice"


# ---------------------------------------------------------------------------------------------------
# Game
# ---------------------------------------------------------------------------------------------------


class BeatOrDiscardGame(Game):
    """Static facts, tables and the observation layout for one :class:`BeatOrDiscardRules`."""

    family = "cards"

    engine_id = "beat_or_discard"
    num_actions = NUM_ACTIONS
    state_class = BeatOrDiscardState

    def __init__(self, rules: BeatOrDiscardRules | None = None, **options):
        base = rules if rules is not None else CLASSIC
        self.rules = make_rules(base, options) if options else base
        r = self.rules
        self.name = r.name
        self.num_players = r.num_players
        self.ledger_rules = r.ledger_rules()
        self._cmin = r.claim_min if r.claims else 99  # no hand holds 99 cards: claims off
        self._build_spec()

    # -- observation layout --------------------------------------------------------------------------

    def _build_spec(self) -> None:
        r = self.rules
        n, S, hs = self.num_players, self.num_sides, r.hand_size
        rel = "relative seats: 0 = you, 1 = next clockwise, ..."
        srel = ("relative sides: 0 = your pair, 1 = the other pair" if r.pairs
                else "relative seats (solo: a side is a player)")
        bit_parts = [
            Part("hand", (36,), "your cards (card id = suit * 9 + rank; suits C D H S, ranks 6 7 8 9 T J Q K A)"),
            Part("selected", (36,), "cards you picked for the move you are building (your turn only)"),
            Part("top", (36,), "the round's top cards: the cards to beat (the last beater's)"),
            Part("lead", (36,), "the round's lead"),
            Part("my_down", (36,), "your face-down cards on the table this round"),
            Part("revealed", (36,), "the stock's bottom card, once drawn and shown this game (C1.10)"),
            Part("table", (n, 36), f"face-up cards each seat laid this round (lead and beats); {rel}"),
            Part("known", (n, 36), "cards publicly known to be in each seat's hand or its face-down cards "
                                   f"of this round (the drawn bottom card, cards returned by a claim); {rel}"),
            Part("pile_seen", (S, 36), f"cards in each side's tricks this game that you saw; {srel}"),
            Part("leader", (n,), f"leader of the round, one-hot; {rel}"),
            Part("last_beater", (n,), f"last beater (the leader before any beat; 0 before the lead); {rel}"),
            Part("locked", (n,), f"discarded this round: may not beat (C1.6); {rel}"),
            Part("acted", (n,), f"beat or discarded this round; {rel}"),
            Part("out", (n,), f"out of the match (solo, C1.16); {rel}"),
            Part("claims", (n, 3), f"claim of this round, N = 4, 5, 6 one-hot; {rel}"),
            Part("trump", (4,), "trump suit C D H S one-hot"),
            Part("decision", (5,), "your decision (your turn only): claim?, lead, answer, beat again/done, "
                                   "equalise"),
            Part("first_game", (1,), "1 in the match's first game (diamonds trump, lowest diamond leads)"),
            Part("diamond_leader", (n,), f"first game, before its first trick: who got the lead by holding the "
                                         f"lowest diamond; {rel}"),
            Part("took", (S,), f"took a trick this game; {srel}"),
            Part("eggs", (4,), "eggs in a row before this game: 0, 1, 2, 3+ (multiplier 1, 2, 4, 8+)"),
            Part("hand_counts", (n, hs), f"cards in each hand, thermometer (bit i: more than i cards); {rel}"),
            Part("down_counts", (n, hs), f"face-down cards each seat laid on the table this round, "
                                         f"thermometer; {rel}"),
            Part("owed", (hs,), "cards you owe face down now (discard or equalise), thermometer (your turn)"),
            Part("stock", (36,), "cards in the stock, thermometer"),
            Part("pile_counts", (S, 36), f"cards in each side's tricks, thermometer; {srel}"),
            Part("scores", (S, r.target), f"penalty points, thermometer (bit i: more than i points); {srel}"),
        ]
        self.obs_spec = ObsSpec(bit_parts)
        self.oracle_spec = ObsSpec([
            Part("hands", (n, 36), "every hand, absolute seats"),
            Part("table_down", (n, 36), "face-down cards each seat laid on the table this round, absolute seats"),
            Part("piles", (S, 36), "every side's tricks, absolute sides"),
            Part("stock_cards", (36,), "the stock"),
            Part("picked", (36,), "cards picked by the seat to move"),
            Part("to_move", (n,), "seat to move, one-hot (all 0 when terminal)"),
        ] + [Part("seat0_" + p.name, p.shape, "seat 0's observation: " + p.doc, p.high)
             for p in self.obs_spec.parts])
        self._rel = tuple(tuple((p + k) % n for k in range(n)) for p in range(n))
        if r.pairs:
            self._srel = tuple((p % 2, 1 - p % 2) for p in range(n))
        else:
            self._srel = self._rel
        self._size = self.obs_spec.size
        self._nbytes = (self._size + 7) // 8
        sl = self.obs_spec.slices
        self._sh_table = tuple(sl["table"].start + 36 * k for k in range(n))
        self._sh_known = tuple(sl["known"].start + 36 * k for k in range(n))
        self._sh_pile = tuple(sl["pile_seen"].start + 36 * k for k in range(S))
        f0 = self._o_flags = sl["leader"].start
        assert sl["claims"].start == f0 + 5 * n
        # offsets inside the flags int (bits from "leader" on)
        self._f_dec = sl["decision"].start - f0
        self._f_trump = sl["trump"].start - f0
        self._f_first = sl["first_game"].start - f0
        self._f_dl = sl["diamond_leader"].start - f0
        self._f_took = sl["took"].start - f0
        self._f_eggs = sl["eggs"].start - f0
        self._f_hc = tuple(sl["hand_counts"].start - f0 + hs * k for k in range(n))
        self._f_dc = tuple(sl["down_counts"].start - f0 + hs * k for k in range(n))
        self._f_owed = sl["owed"].start - f0
        self._f_stock = sl["stock"].start - f0
        self._f_pc = tuple(sl["pile_counts"].start - f0 + 36 * k for k in range(S))
        self._f_sc = tuple(sl["scores"].start - f0 + r.target * k for k in range(S))
        self._full = (1 << n) - 1
        self._rot = tuple(tuple(((m >> p) | (m << (n - p))) & ((1 << n) - 1) for m in range(1 << n))
                          for p in range(n))

    # -- states --------------------------------------------------------------------------------------

    def setup_checks(self) -> dict:
        return setup_checks(self.rules)

    def new_state(self, seed: int = 0, setup: dict | None = None) -> BeatOrDiscardState:
        """A fresh match from ``seed``. ``setup`` (validated, :class:`InvalidOptionError` on bad input):

        * ``hands``: one entry per seat, a card string (``"7C 9C KC 6D 8H JS"``) or None (dealt at random);
          a hand may hold fewer than ``hand_size`` cards only when the stock is empty;
        * ``stock``: the stock in draw order (card string; its last card is the bottom card, C1.10);
          default: the cards left, drawn at random;
        * ``piles``: per side, cards already taken in tricks this game (face up; each non-empty pile counts
          as one trick);
        * ``first_game`` (default True): diamonds trump and the lowest diamond leads (C1.10-11);
        * ``leader``: the seat to lead (default: C1.11);
        * ``trump``: ``"C" "D" "H" "S"``, the trump of a later game (``first_game=False``, classic only);
        * ``scores``: penalty points per side (solo: a seat at the target or more is out);
        * ``eggs``: eggs in a row before this game (its penalties count ``2 ** eggs``, C1.12);
        * ``single_deal``: end the episode after this game.
        """
        r = self.rules
        setup = check_setup(setup_checks(r), setup, r.name, BeatOrDiscardState.SETUP_KEYS)
        n, S = r.num_players, r.num_sides
        st = BeatOrDiscardState.__new__(BeatOrDiscardState)
        st.game = self
        st.rules = r
        st.rng = Rng(seed)
        st.events = []
        st.results = ()
        scores = setup.get("scores", [0] * S)
        out = 0
        if r.pairs:
            if any(v >= r.target for v in scores):
                raise InvalidOptionError(f"scores {list(scores)} already reach the target {r.target}")
        else:
            for q, v in enumerate(scores):
                if v >= r.target:
                    out |= 1 << q
            if n - out.bit_count() < 2:
                raise InvalidOptionError(f"scores {list(scores)}: fewer than two players are still in")
        st.ledger = Ledger(self.ledger_rules, scores=list(scores), eggs_streak=setup.get("eggs", 0))
        single = setup.get("single_deal", False)
        first = setup.get("first_game", True)
        st.single_deal = single
        st.first_game = first
        st.out = out
        st.elim = [0 if out >> q & 1 else -1 for q in range(n)]
        st.goats = None
        st.terminal = False
        st.deals_played = 0
        st.last_result = None
        st.match_result = None
        st.last_taker = 0
        st.trump = DIAMONDS
        trump = setup.get("trump")
        if trump is not None:
            t = _parse_suit(trump)
            if t != DIAMONDS and (first or r.quick):
                raise InvalidOptionError("trump is diamonds in the first game and in every quick game (C1.10, "
                                         "C1.15); pass first_game=False to set another trump")
            st.trump = t
        leader = setup.get("leader")
        if leader is not None and out >> leader & 1:
            raise InvalidOptionError(f"leader={leader!r}: player_{leader} is out of the match")
        fixed = None
        if any(k in setup for k in ("hands", "stock", "piles")):
            fixed = self._fixed_deal(st, setup)
        st.tup = [0] * n
        st.tdn = [0] * n
        st.claims = [0] * n
        st.sel = 0
        st.beats = ()
        st.need = 0
        st.opts = 0
        st.eq_taker = 0
        st.eq_min = 0
        st._lm = -1
        st._deal(fixed, leader)
        st._run_forced()
        return st

    def _fixed_deal(self, st: BeatOrDiscardState, setup: dict) -> tuple:
        r = self.rules
        n, S, hs = r.num_players, r.num_sides, r.hand_size
        used = 0

        def parse(text, what):
            nonlocal used
            if not isinstance(text, str):
                raise InvalidOptionError(f"{what} must be a card string like '7C 9C KC', got {text!r}")
            seq = []
            m = 0
            for tok in text.replace(",", " ").split():
                try:
                    c = parse_card(tok)
                except KozelError as e:
                    raise InvalidOptionError(f"{what}: {e}") from None
                if (m | used) >> c & 1:
                    raise InvalidOptionError(f"{what}: card {card_str(c)} is given twice")
                m |= 1 << c
                seq.append(c)
            used |= m
            return m, seq

        hands_in = setup.get("hands", [None] * n)
        if not isinstance(hands_in, (list, tuple)) or len(hands_in) != n:
            raise InvalidOptionError(f"hands must be a list of {n} entries (card string or None per seat)")
        hands = [None] * n
        for q, h in enumerate(hands_in):
            if h is None:
                continue
            if st.out >> q & 1:
                if str(h).strip():
                    raise InvalidOptionError(f"hands[{q}]: player_{q} is out of the match and holds no cards")
                hands[q] = 0
                continue
            m, _ = parse(h, f"hands[{q}]")
            if m.bit_count() > hs:
                raise InvalidOptionError(f"hands[{q}] has {m.bit_count()} cards, more than {hs}")
            hands[q] = m
        piles = [0] * S
        tricks = [0] * S
        if "piles" in setup:
            pin = setup["piles"]
            if not isinstance(pin, (list, tuple)) or len(pin) != S:
                raise InvalidOptionError(f"piles must be a list of {S} card strings (one per side)")
            for s, t in enumerate(pin):
                m, _ = parse(t or "", f"piles[{s}]")
                piles[s] = m
                tricks[s] = 1 if m else 0
        stock_seq = None
        if "stock" in setup:
            m, stock_seq = parse(setup["stock"], "stock")
            stock_seq = tuple(stock_seq)
        rest = bits(FULL_DECK & ~used)
        st.rng.shuffle(rest)
        pos = 0
        for q in range(n):
            if hands[q] is None:
                if st.out >> q & 1:
                    hands[q] = 0
                    continue
                if pos + hs > len(rest):
                    raise InvalidOptionError(f"not enough cards left to deal hands[{q}]")
                hands[q] = sum(1 << c for c in rest[pos:pos + hs])
                pos += hs
        left = rest[pos:]
        if stock_seq is None:
            stock_seq_t = tuple(left)  # the rest, shuffled above
            stock = sum(1 << c for c in left)
        else:
            if left:
                raise InvalidOptionError(f"cards {' '.join(card_str(c) for c in sorted(left))} are in no hand, "
                                         "stock or pile")
            stock_seq_t = stock_seq
            stock = sum(1 << c for c in stock_seq)
        if stock:
            short = [q for q in range(n) if not st.out >> q & 1 and hands[q].bit_count() < hs]
            if short:
                raise InvalidOptionError(f"hands[{short[0]}] holds fewer than {hs} cards while the stock is not "
                                         "empty")
        if not any(hands):
            raise InvalidOptionError("every hand is empty")
        return (hands, stock, stock_seq_t, piles, tricks)

    # -- observations --------------------------------------------------------------------------------

    def observe(self, st: BeatOrDiscardState, player: int) -> np.ndarray:
        """The parts of :attr:`obs_spec`, all 0/1: the card rows and a small int of flags and
        thermometer counts are packed into one int (offsets fixed in ``_build_spec``) and unpacked by
        numpy in one call."""
        p = player
        n = self.num_players
        hands, tdn = st.hands, st.tdn
        big = hands[p] | st.top << 72 | st.lead << 108 | tdn[p] << 144
        rot = self._rot[p]
        fl = rot[st.locked] << 2 * n | rot[st.acted] << 3 * n | rot[st.out] << 4 * n | 1 << (self._f_trump + st.trump)
        if st.current_player == p:
            ph = st.phase
            big |= st.sel << 36
            fl |= 1 << (self._f_dec + ph)
            if ph == PH_ANSWER or ph == PH_EQUALISE:
                fl |= ((1 << st.need) - 1) << self._f_owed
        if st.revealed >= 0:
            big |= 1 << (180 + st.revealed)
        rel = self._rel[p]
        if st.top:
            tup = st.tup
            sht = self._sh_table
            for k in range(n):
                big |= tup[rel[k]] << sht[k]
        known = st.known
        if any(known):
            shk = self._sh_known
            for k in range(n):
                big |= known[rel[k]] << shk[k]
        fhc, fdc = self._f_hc, self._f_dc
        for k in range(n):
            q = rel[k]
            fl |= ((1 << hands[q].bit_count()) - 1) << fhc[k] | ((1 << tdn[q].bit_count()) - 1) << fdc[k]
        fdp = st.fd[p]
        piles, piles_up, tricks = st.piles, st.piles_up, st.tricks
        shp = self._sh_pile
        f_took, fpc, fsc = self._f_took, self._f_pc, self._f_sc
        sc = st.ledger.scores
        tg = self.rules.target
        for k, s in enumerate(self._srel[p]):
            pl = piles[s]
            if pl:
                big |= (piles_up[s] | (pl & fdp)) << shp[k]
                fl |= 1 << (f_took + k) | ((1 << pl.bit_count()) - 1) << fpc[k]
            v = sc[s]
            if v:
                fl |= ((1 << (v if v < tg else tg)) - 1) << fsc[k]
        if not st.terminal:
            fl |= 1 << (st.leader - p) % n
        if st.lb >= 0:
            fl |= 1 << (n + (st.lb - p) % n)
        if st.best_claim:
            cl = st.claims
            for k in range(n):
                c = cl[rel[k]]
                if c:
                    fl |= 1 << (5 * n + 3 * k + c - 4)
        if st.first_game:
            fl |= 1 << self._f_first
        if st.diamond_leader >= 0:
            fl |= 1 << (self._f_dl + (st.diamond_leader - p) % n)
        e = st.ledger.eggs_streak
        fl |= 1 << (self._f_eggs + (e if e < 3 else 3)) | ((1 << st.stock.bit_count()) - 1) << self._f_stock
        big |= fl << self._o_flags
        return np.unpackbits(np.frombuffer(big.to_bytes(self._nbytes, "little"), np.uint8), count=self._size,
                             bitorder="little").astype(np.float32)

    def oracle(self, st: BeatOrDiscardState) -> np.ndarray:
        n = self.num_players
        rows = st.hands + st.tdn + st.piles + [st.stock, st.sel]
        to_move = np.zeros(n, np.float32)
        if st.current_player >= 0:
            to_move[st.current_player] = 1
        return np.concatenate([unpack_masks(rows, 36).ravel(), to_move, self.observe(st, 0)])

    # -- notation ------------------------------------------------------------------------------------

    def action_to_string(self, st: BeatOrDiscardState, action: int) -> str:
        if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
            a = int(action)
            if 0 <= a < 36:
                return card_str(a)
            if a == A_PLAY:
                return "lead" if st.phase == PH_LEAD else "beat"
            if a == A_DOWN:
                return "discard"
            if a == A_PASS:
                return "done" if st.phase == PH_REBEAT else "pass"
            if a == A_CLAIM:
                return "claim"  # public notation: N is announced when the claim is made (the record shows it)
        raise IllegalActionError(f"action {action!r} is out of range 0..{NUM_ACTIONS - 1}")

    _WORDS = {"lead": A_PLAY, "beat": A_PLAY, "play": A_PLAY, "discard": A_DOWN, "down": A_DOWN,
              "add": A_DOWN, "pass": A_PASS, "done": A_PASS, "claim": A_CLAIM}

    def string_to_action(self, st: BeatOrDiscardState, text: str) -> int:
        legal = st.legal_actions()
        a = None
        why = "not a move (a card like 'QC' or 'TS' to pick it; lead, beat, discard, pass, done, claim)"
        if isinstance(text, str):
            t = text.strip().lower()
            words = t.split()
            if words and words[0] in self._WORDS:
                a = self._WORDS[words[0]]
                if a == A_CLAIM and len(words) == 2 and st.current_player >= 0:
                    if words[1] != str(longest_suit(st.hands[st.current_player])):
                        a = None
                        why = "a claim announces your longest suit's length"
                elif len(words) != 1:
                    a = None
            else:
                try:
                    a = parse_card(t)
                except KozelError:
                    a = None
        if a is not None and a not in legal:
            why = "the match is over" if st.terminal else "not legal now"
            a = None
        if a is None:
            names = ", ".join(self.action_to_string(st, x) for x in legal)
            raise IllegalActionError(f"move {text!r}: {why}; legal moves: {names}")
        return a

    # -- text view -----------------------------------------------------------------------------------

    def render(self, st: BeatOrDiscardState, viewer: int | None = None) -> str:
        r = self.rules
        n = r.num_players
        led = st.ledger
        if r.pairs:
            score = f"pair 0+2: {led.scores[0]} | pair 1+3: {led.scores[1]}"
        else:
            score = " | ".join(f"player_{q}: {led.scores[q]}" + (" (out)" if st.out >> q & 1 else "")
                               for q in range(n))
        mult = led.multiplier
        lines = [f"{self.name} · game {st.deals_played + (0 if st.terminal else 1)} · trump {SUIT_NAMES[st.trump]}"
                 + (f" · x{mult}" if mult > 1 else "") + f" · penalties {score}"]
        rev = f" · bottom card shown: {card_str(st.revealed)}" if st.revealed >= 0 else ""
        lines.append(f"stock: {st.stock.bit_count()} cards{rev} · phase: {PHASE_NAMES[st.phase]}")
        for q in range(n):
            mark = "*" if q == st.current_player else " "
            if st.out >> q & 1:
                lines.append(f"{mark}player_{q}: out")
                continue
            if viewer is None or viewer == q:
                h = _cards(st.hands[q]) or "-"
                dn = _cards(st.tdn[q])
            else:
                h = "?? " * st.hands[q].bit_count()
                dn = "?? " * st.tdn[q].bit_count()
            tags = st.seat_tags(q)
            lines.append(f"{mark}player_{q}: {h.strip():<20} table up: {_cards(st.tup[q]) or '-':<14} "
                         f"down: {dn.strip() or '-'}" + (f"  [{', '.join(tags)}]" if tags else ""))
        if st.top:
            lines.append(f"top cards: {_cards(st.top)}")
        for s in range(r.num_sides):
            who = f"pair {s}+{s + 2}" if r.pairs else f"player_{s}"
            pts = points_of(st.piles[s]) if viewer is None else None
            lines.append(f"tricks {who}: {st.tricks[s]} ({st.piles[s].bit_count()} cards"
                         + (f", {pts} points" if pts is not None else "") + ")")
        if st.terminal:
            mr = st.match_result
            lines.append(f"match over ({mr['ended_by']}): winning sides {mr['winners']}, goats {mr['goats']}; "
                         f"penalties {mr['scores']}")
        elif viewer is None or viewer == st.current_player:
            if st.sel:
                lines.append(f"picked: {_cards(st.sel)}")
            lines.append(f"legal: {' '.join(self.legal_strings(st))}")
        return "\n".join(lines)

    # -- determinization -----------------------------------------------------------------------------

    def sample_consistent(self, st: BeatOrDiscardState, player: int, rng) -> BeatOrDiscardState:
        """A state giving ``player`` the same observation, with everything it cannot see re-dealt.

        Hidden from ``player``: the other hands, their face-down cards on the table and in the tricks, the
        stock. Kept: every count (hand sizes, face-down cards per seat and per trick, the stock), the
        cards publicly known in a seat's hand (they stay with that seat), this round's claims (the
        claimant's cards of the round hold a longest suit of exactly N, sampled by suit counts), the
        first lead's lowest diamond (first game, before the first trick), and a real choice for the seat
        to move when that is another seat (its picks in progress are dropped; a seat asked to claim holds
        a long enough suit). The stock order and later deals are re-seeded from ``rng`` (a kozel_env
        ``Rng``, an int seed, a numpy Generator or ``random.Random``). Uniform over the consistent states
        where practical (exact for one claimant; see :mod:`kozel_env.cards.beat_or_discard_sample`).
        """
        from .beat_or_discard_sample import sample_consistent

        return sample_consistent(st, player, _as_rng(rng))


def _dealt(hands: tuple, stock_seq: tuple) -> dict:
    """The private part of a deal event: the hands as dealt, the stock in draw order."""
    return {"hands": [_cards(x) for x in hands], "stock": [card_str(c) for c in stock_seq]}


def _cards(m: int) -> str:
    return " ".join(card_str(c) for c in sorted(bits(m), key=lambda c: (c // 9, STRENGTH_OF_RANK[c % 9])))


def _parse_suit(v):
    if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 3:
        return v
    if isinstance(v, str):
        t = v.strip().lower()
        for i, (letter, name) in enumerate(zip(SUITS, SUIT_NAMES)):
            if t in (letter.lower(), name):
                return i
    return None


def _as_rng(rng) -> Rng:
    if isinstance(rng, Rng):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return Rng(int(rng))
    if hasattr(rng, "integers"):
        return Rng(int(rng.integers(0, 2 ** 63)))
    if hasattr(rng, "getrandbits"):
        return Rng(rng.getrandbits(64))
    raise TypeError(f"rng must be a kozel_env Rng, an int seed, a numpy Generator or random.Random, got {rng!r}")


__all__ = ["BeatOrDiscardRules", "BeatOrDiscardGame", "BeatOrDiscardState", "CLASSIC", "make_rules", "penalty",
           "longest_suit", "lowest_diamond_seat"]
