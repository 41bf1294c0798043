"""Card Kozel with the six of spades, Moskva and Molodka (seed 004, RULES C3): the rules engine.

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
   hand of at most ``cap`` cards whose cards other than ``6S`` are of one suit (this family is closed
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

The observation (:attr:`SixOfSpadesGame.obs_spec`, relative to the observer: seat offset 0 = self,
1 = next clockwise, ...; side offset 0 = the observer's side) is one flat float32 vector of 0/1 features
built as one Python integer (per-observer bit tables) and unpacked by a byte lookup table. It shows
face-up cards only: face-down cards are known to their owner alone (the taker never sees them); the
trump card is public (and who drew it); calls are public; being asked for a call, or passing, says nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from types import MappingProxyType

import numpy as np

from ..core.bits import bits
from ..core.errors import IllegalActionError, InvalidOptionError, KozelError
from ..core.game import Deferred, Game, State
from ..core.ledger import Ledger, LedgerRules
from ..core.options import (Bool, Choice, Int, Ints, RulesBase, Subset, Text, Texts, check_setup, defaults_ok,
                            option)
from ..core.options import make_rules as _make_rules
from ..core.rng import Rng
from ..core.spec import ObsSpec, Part
from .deck import (
    FULL_DECK, NUM_CARDS, POINTS, RA, RANK_MASK, RT, SPADES, SUIT_MASK, SUIT_OF, SUITS, R6, card,
    card_str, parse_cards, strength_table,
)

# ---------------------------------------------------------------------------------------------------
# Rules config
# ---------------------------------------------------------------------------------------------------

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


@lru_cache(maxsize=None)
def setup_checks(rules: SixOfSpadesRules) -> dict:
    """The ``reset(options=...)`` keys and what each allows (see :meth:`SixOfSpadesGame.new_state`)."""
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

# ---------------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------------

HAND = 4
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(np.float32)
"""Row ``b``: the 8 bits of byte ``b`` as float32, low bit first (observation unpacking)."""
SIX_S = card(R6, SPADES)
SIX_BIT = 1 << SIX_S
NOT_SIX = FULL_DECK & ~SIX_BIT
ACES = RANK_MASK[RA]
TENS = RANK_MASK[RT]
MOSKVA_CARDS = ACES | TENS | SIX_BIT
STRENGTH = strength_table("6789JQKTA")
"""Seed 2 / C3.2: rank order low to high within a suit."""

A_LEAD, A_BEAT, A_DOWN, A_MOSKVA, A_MOLODKA, A_PASS = range(36, 42)
NUM_ACTIONS = 42
NAMES = {A_LEAD: "lead", A_BEAT: "beat", A_DOWN: "down", A_MOSKVA: "moskva", A_MOLODKA: "molodka",
         A_PASS: "pass"}
ACTION_OF_NAME = {v: k for k, v in NAMES.items()}
MOSKVA, MOLODKA = 0, 1
KIND_NAMES = ("Moskva", "Molodka")

PH_CALL, PH_LEAD, PH_ANSWER, PH_OVER = 0, 1, 2, 3
PHASE_NAMES = ("call", "lead", "answer", "over")


def _beaten_by_table():
    """``BEATEN_BY[trump][t]``: mask of the cards that beat the top card ``t`` (seed 5, C3.2)."""
    table = []
    for tr in range(4):
        row = []
        for t in range(NUM_CARDS):
            if t == SIX_S:
                row.append(0)  # a top 6S cannot be beaten
                continue
            m = SIX_BIT  # 6S beats every card
            s = SUIT_OF[t]
            for c in range(s * 9, s * 9 + 9):
                if STRENGTH[c] > STRENGTH[t]:
                    m |= 1 << c
            if s != tr:
                m |= SUIT_MASK[tr]
            row.append(m)
        table.append(tuple(row))
    return tuple(table)


BEATEN_BY = _beaten_by_table()


def beats(a: int, t: int, trump: int) -> bool:
    """Does card ``a`` beat the top card ``t`` with trump suit ``trump``?"""
    return bool(BEATEN_BY[trump][t] >> a & 1)


def _covers(a: int, tops: tuple, bb: tuple, i: int = 0) -> bool:
    """Can the cards of mask ``a`` beat ``tops[i:]`` one for one (a matching)?"""
    if i == len(tops):
        return True
    cand = a & bb[tops[i]]
    while cand:
        low = cand & -cand
        if _covers(a ^ low, tops, bb, i + 1):
            return True
        cand ^= low
    return False


def covers(answer: int, top: int, trump: int) -> bool:
    """Does the set ``answer`` beat every card of the set ``top`` one for one (seed 5, C3.3)?"""
    if answer.bit_count() != top.bit_count():
        return False
    bb = BEATEN_BY[trump]
    return _covers(answer, _sorted_tops(top, bb), bb)


def _sorted_tops(top: int, bb: tuple) -> tuple:
    return tuple(sorted(bits(top), key=lambda t: bb[t].bit_count()))


def call_kind(hand: int) -> int:
    """``MOSKVA``, ``MOLODKA`` or -1 for a hand (C3.5: exactly four cards)."""
    if hand.bit_count() != HAND:
        return -1
    if not hand & ~MOSKVA_CARDS and hand & ACES:
        return MOSKVA
    u = hand & NOT_SIX
    s = SUIT_OF[(u & -u).bit_length() - 1]
    return MOLODKA if not u & ~SUIT_MASK[s] else -1


def is_lead(m: int) -> bool:
    """Cards of one suit, ``6S`` allowed to join any suit (seed 4, C3.3); size not checked."""
    u = m & NOT_SIX
    return not u or not u & ~SUIT_MASK[SUIT_OF[(u & -u).bit_length() - 1]]


def _lead_sets(hand: int, cap: int) -> tuple:
    out = []
    s = hand
    while s:
        if s.bit_count() <= cap:
            u = s & NOT_SIX
            if not u or not u & ~SUIT_MASK[SUIT_OF[(u & -u).bit_length() - 1]]:
                out.append(s)
        s = (s - 1) & hand
    return tuple(out)


def _subsets_of_size(hand: int, k: int) -> list:
    m = hand.bit_count()
    if k == m:
        return [hand]
    out = []
    if k == 1:
        while hand:
            low = hand & -hand
            out.append(low)
            hand ^= low
        return out
    s = hand
    while s:
        if s.bit_count() == k:
            out.append(s)
        s = (s - 1) & hand
    return out


def _next_cards(sets: tuple, chosen: int) -> int:
    """Cards that may be chosen next: ``c`` with ``chosen`` the smallest members of a legal set and ``c`` its
    next member (cards are chosen in increasing id, so every set has exactly one path)."""
    low = (1 << chosen.bit_length()) - 1
    out = 0
    for u in sets:
        if u & low == chosen and u != chosen:
            r = u ^ chosen
            out |= r & -r
    return out


# ---------------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------------


class SixOfSpadesState(State):
    """One match. Hands, taken and played sets are bitmasks over card ids; the stock is a list (top = end,
    ``stock[0]`` the face-up trump card while it lies there)."""

    SETUP_KEYS = frozenset({"hands", "trump_card", "stock", "taken", "dealer", "leader", "scores", "out",
                            "deals_played", "single_deal"})

    __slots__ = (
        "game", "rules", "rng", "ledger", "in_match", "out_deal", "dealer", "deals_played", "terminal",
        "current_player", "last_result", "match_result", "single_deal", "results", "events",
        # deal
        "seats", "hands", "stock", "trump_card", "trump_suit", "trump_by", "trump_down", "taken",
        "taken_up", "tricks", "down_by", "last_taker", "lone_take",
        # round
        "phase", "sched", "leader", "cap", "lead", "k", "called", "top", "tops", "top_seat", "round_up",
        "round_down", "order", "oi", "offers", "offer_i", "calls_made", "sel", "sets", "beat_sets", "legal",
    )

    # ------------------------------------------------------------------ contract
    def legal_actions(self) -> list:
        return bits(self.legal)

    def apply_action(self, action: int) -> None:
        if not isinstance(action, (int, np.integer)) or isinstance(action, bool) or not (
                0 <= action < NUM_ACTIONS and self.legal >> int(action) & 1):
            raise IllegalActionError(self._illegal_msg(action))
        self.events = []
        self._do(int(action))
        self._settle()

    def clone(self) -> "SixOfSpadesState":
        c = SixOfSpadesState.__new__(SixOfSpadesState)
        c.game = self.game
        c.rules = self.rules
        c.rng = self.rng.clone()
        c.ledger = self.ledger.clone()
        c.in_match = self.in_match[:]
        c.out_deal = self.out_deal[:]
        c.dealer = self.dealer
        c.deals_played = self.deals_played
        c.terminal = self.terminal
        c.current_player = self.current_player
        c.last_result = self.last_result
        c.match_result = self.match_result
        c.results = self.results
        c.events = []
        c.single_deal = self.single_deal
        c.seats = self.seats
        c.hands = self.hands[:]
        c.stock = self.stock[:]
        c.trump_card = self.trump_card
        c.trump_suit = self.trump_suit
        c.trump_by = self.trump_by
        c.trump_down = self.trump_down
        c.taken = self.taken[:]
        c.taken_up = self.taken_up[:]
        c.tricks = self.tricks[:]
        c.down_by = self.down_by[:]
        c.last_taker = self.last_taker
        c.lone_take = self.lone_take
        c.phase = self.phase
        c.sched = self.sched
        c.leader = self.leader
        c.cap = self.cap
        c.lead = self.lead
        c.k = self.k
        c.called = self.called
        c.top = self.top
        c.tops = self.tops
        c.top_seat = self.top_seat
        c.round_up = self.round_up[:]
        c.round_down = self.round_down[:]
        c.order = self.order
        c.oi = self.oi
        c.offers = self.offers
        c.offer_i = self.offer_i
        c.calls_made = self.calls_made
        c.sel = self.sel
        c.sets = self.sets
        c.beat_sets = self.beat_sets
        c.legal = self.legal
        return c

    # ------------------------------------------------------------------ conveniences
    @property
    def scores(self) -> list:
        """Penalty points per side (the shared ledger)."""
        return self.ledger.scores

    def side_of(self, seat: int) -> int:
        return self.rules.side_of(seat)

    def _illegal_msg(self, action) -> str:
        g = self.game
        legal = ", ".join(f"{a}={g.action_to_string(self, a)}" for a in self.legal_actions())
        if self.terminal:
            return f"the match is over: no move is legal (got {action!r})"
        try:
            text = g.action_to_string(self, int(action))
        except Exception:  # noqa: BLE001 - only for the message
            text = repr(action)
        return f"move {text} is not legal for player_{self.current_player}; legal moves: {legal}"

    # ------------------------------------------------------------------ decisions
    def _compute_legal(self) -> int:
        ph = self.phase
        if ph == PH_ANSWER:
            t = self.sel
            if t.bit_count() < self.k:
                return _next_cards(self.sets, t)
            if t in self.beat_sets:
                return (1 << A_BEAT) | ((1 << A_DOWN) if self.rules.may_decline_beat else 0)
            return 1 << A_DOWN
        if ph == PH_LEAD:
            t = self.sel
            return _next_cards(self.sets, t) | ((1 << A_LEAD) if t else 0)
        if ph == PH_CALL:
            return (1 << A_PASS) | self.call_options(self.current_player)
        return 0

    def standing_call(self) -> int:
        """The strongest call made so far before this lead (-1 none, MOSKVA, MOLODKA): C3.5."""
        return self.calls_made[-1][1] if self.calls_made else -1

    def call_options(self, s: int) -> int:
        """Action bits of the calls seat ``s`` may make now: what it holds, if that beats the standing
        call (C3.5: Moskva beats Molodka; an equal call does not beat an earlier one)."""
        kind = call_kind(self.hands[s])
        if kind < 0:
            return 0
        best = self.standing_call()
        if best < 0 or (kind == MOSKVA and best == MOLODKA):
            return 1 << (A_MOSKVA + kind)
        return 0

    def _settle(self) -> None:
        """Take every forced step, so that the seat to move has a real choice (or the match is over) --
        except a call question, which every holder gets even when it can only pass (no leak)."""
        while True:
            legal = self._compute_legal()
            if legal & (legal - 1) or not legal or self.phase == PH_CALL:
                self.legal = legal
                return
            self._do(legal.bit_length() - 1)

    def _do(self, a: int) -> None:
        p = self.current_player
        if a < 36:
            self.sel |= 1 << a
        elif a == A_LEAD:
            self._lay_lead(p, self.sel, 0)
        elif a == A_BEAT or a == A_DOWN:
            self._lay_answer(p, self.sel, a == A_BEAT)
        elif a == A_PASS:
            self.events.append(("pass", p, None, None))
            self.offer_i += 1
            self._next_offer()
        else:  # a call (C3.5): it stands unless a later seat beats it
            kind = a - A_MOSKVA
            self.calls_made = self.calls_made + ((p, kind),)
            self.events.append(("call", p, KIND_NAMES[kind], None))
            self.offer_i += 1
            self._next_offer()

    # ------------------------------------------------------------------ deal flow
    def _clockwise_from(self, seat: int) -> list:
        seats = self.seats
        i = 0
        while seats[i] != seat:
            i += 1
        return list(seats[i:] + seats[:i])

    def _next_in_deal(self, seat: int) -> int:
        n = self.rules.num_players
        s = (seat + 1) % n
        while not self.in_match[self.rules.side_of(s)]:
            s = (s + 1) % n
        return s

    def _reset_deal_fields(self) -> None:
        r = self.rules
        n, ns = r.num_players, r.num_sides
        self.seats = tuple(s for s in range(n) if self.in_match[r.side_of(s)])
        self.hands = [0] * n
        self.taken = [0] * ns
        self.taken_up = [0] * ns
        self.tricks = [0] * ns
        self.down_by = [0] * n
        self.round_up = [0] * n
        self.round_down = [0] * n
        self.trump_by = -1
        self.trump_down = 0
        self.last_taker = -1
        self.lone_take = -1
        self.phase = PH_LEAD
        self.sched = self.leader = -1
        self.cap = HAND
        self.lead = self.top = self.k = self.called = self.sel = 0
        self.tops = self.order = self.offers = self.sets = self.beat_sets = self.calls_made = ()
        self.top_seat = -1
        self.oi = self.offer_i = 0

    def _start_deal(self) -> None:
        """Seed 1-2 / C3.1: four each from the dealer's left, the next card face up under the stock."""
        self._reset_deal_fields()
        deck = list(range(NUM_CARDS))
        self.rng.shuffle(deck)
        i = 0
        for s in self._clockwise_from(self._next_in_deal(self.dealer)):
            m = 0
            for c in deck[i:i + HAND]:
                m |= 1 << c
            self.hands[s] = m
            i += HAND
        self.trump_card = deck[i]
        self.trump_suit = SUIT_OF[deck[i]]
        rest = deck[i + 1:]
        self.stock = [deck[i]] + rest  # drawn from the end: the trump card last
        self._deal_event()
        self._start_round(self._next_in_deal(self.dealer))

    def _deal_event(self) -> None:
        self.events.append(("deal", -1, {"dealer": self.dealer, "trump_card": card_str(self.trump_card)},
                            Deferred(_dealt, tuple(self.hands), tuple(self.stock))))

    def _refill(self, taker: int) -> None:
        """C3.4: back to four, the taker first, then clockwise; the trump card (``stock[0]``) comes last."""
        stock = self.stock
        if not stock:
            return
        hands = self.hands
        order = self._clockwise_from(taker)
        if self.rules.refill == "fill_each":
            for s in order:
                while stock and hands[s].bit_count() < HAND:
                    self._draw(s)
        else:
            more = True
            while stock and more:
                more = False
                for s in order:
                    if stock and hands[s].bit_count() < HAND:
                        self._draw(s)
                        more = True

    def _draw(self, s: int) -> None:
        c = self.stock.pop()
        self.hands[s] |= 1 << c
        if c == self.trump_card:
            self.trump_by = s
        self.events.append(("draw", s, card_str(c) if c == self.trump_card else None, card_str(c)))

    def _start_round(self, sched: int) -> None:
        r = self.rules
        hands = self.hands
        holders = [s for s in self._clockwise_from(sched) if hands[s]]
        self.phase = PH_LEAD
        self.lead = self.top = 0
        self.k = 0
        self.called = 0
        self.tops = ()
        self.top_seat = -1
        self.order = ()
        self.oi = 0
        self.offers = ()
        self.offer_i = 0
        self.calls_made = ()
        self.sel = 0
        self.beat_sets = ()
        if len(holders) <= 1:
            if holders:  # a lone holder takes their own cards (silent rule, see the module docstring)
                lone = holders[0]
                side = r.side_of(lone)
                m = hands[lone]
                hands[lone] = 0
                self.taken[side] |= m
                self.taken_up[side] |= m
                self.tricks[side] += 1
                self.last_taker = self.lone_take = lone
                self.events.append(("trick", lone, card_list(m), None))
            self._end_deal()
            return
        leader = holders[0]
        self.sched = self.leader = leader
        cap = HAND
        for s in holders:
            h = hands[s].bit_count()
            if h < cap:
                cap = h
        self.cap = cap
        if cap == HAND and r.calls == "auto":
            mosk = [s for s in holders if call_kind(hands[s]) == MOSKVA]
            molo = [s for s in holders if call_kind(hands[s]) == MOLODKA]
            if mosk or molo:  # the holder first in precedence always calls (C3.5)
                s, kind = (mosk[0], MOSKVA) if mosk else (molo[0], MOLODKA)
                self.current_player = s
                self.events.append(("call", s, KIND_NAMES[kind], None))
                self._lay_lead(s, hands[s], kind + 1)
                return
        if cap == HAND and r.calls == "offer":
            self.offers = tuple(holders)  # every holder is asked, whatever it holds
        self._next_offer()

    def _next_offer(self) -> None:
        if self.offer_i < len(self.offers) and self.standing_call() != MOSKVA:
            self.phase = PH_CALL
            self.current_player = self.offers[self.offer_i]
            self.sets = ()
            return
        self.offer_i = len(self.offers)
        if self.calls_made:  # the standing call leads its four (C3.5)
            s, kind = self.calls_made[-1]
            self.current_player = s
            self._lay_lead(s, self.hands[s], kind + 1)
            return
        self.phase = PH_LEAD
        self.current_player = self.leader
        self.sel = 0
        self.sets = _lead_sets(self.hands[self.leader], self.cap)

    def _lay_lead(self, p: int, m: int, called: int) -> None:
        """Seed 4 / C3.3 (a call, C3.5, leads the caller's whole four)."""
        hands = self.hands
        holders = [s for s in self._clockwise_from(p) if hands[s]]
        hands[p] &= ~m
        self.leader = p
        self.called = called
        self.lead = self.top = m
        self.k = m.bit_count()
        bb = BEATEN_BY[self.trump_suit]
        self.tops = _sorted_tops(m, bb)
        self.top_seat = p
        self.round_up[p] = m
        self.order = tuple(holders[1:])
        self.oi = 0
        self.offers = ()
        self.offer_i = 0
        self.calls_made = ()
        self.events.append(("lead", p, card_list(m), None))
        self._begin_answer()

    def _begin_answer(self) -> None:
        p = self.order[self.oi]
        self.phase = PH_ANSWER
        self.current_player = p
        self.sel = 0
        subs = _subsets_of_size(self.hands[p], self.k)
        if self.top & SIX_BIT:
            beat = ()
        else:
            bb = BEATEN_BY[self.trump_suit]
            tops = self.tops
            beat = tuple(u for u in subs if _covers(u, tops, bb))
        self.beat_sets = beat
        self.sets = beat if (beat and not self.rules.may_decline_beat) else tuple(subs)

    def _lay_answer(self, p: int, m: int, up: bool) -> None:
        """Seed 5 / C3.3: on top when it beats every top card one for one, else face down."""
        self.hands[p] &= ~m
        if up:
            self.events.append(("beat", p, card_list(m), None))
            self.round_up[p] = m
            self.top = m
            self.tops = _sorted_tops(m, BEATEN_BY[self.trump_suit])
            self.top_seat = p
        else:
            self.events.append(("down", p, m.bit_count(), card_list(m)))
            self.round_down[p] = m
            self.down_by[p] |= m
            if p == self.trump_by:
                self.trump_down |= m
        self.oi += 1
        if self.oi < len(self.order):
            self._begin_answer()
        else:
            self._finish_round()

    def _finish_round(self) -> None:
        """Seed 6 / C3.3-C3.4: the player on top takes everything, refills first and leads next."""
        r = self.rules
        t = self.top_seat
        side = r.side_of(t)
        up = down = 0
        for s in self.seats:
            up |= self.round_up[s]
            down |= self.round_down[s]
            self.round_up[s] = 0
            self.round_down[s] = 0
        self.taken[side] |= up | down
        self.taken_up[side] |= up
        self.tricks[side] += 1
        self.last_taker = t
        self.events.append(("trick", t, None, None))
        self._refill(t)
        self._start_round(t)

    # ------------------------------------------------------------------ scoring
    def deal_penalties(self) -> tuple:
        """C3.6 for the cards taken so far: (points per side, penalty per side; sides not in the deal 0)."""
        r = self.rules
        ns = r.num_sides
        pts = [sum(POINTS[c] for c in bits(self.taken[sd])) for sd in range(ns)]
        playing = [sd for sd in range(ns) if self.in_match[sd]]
        most = max(pts[sd] for sd in playing)
        tied = [sd for sd in playing if pts[sd] == most]
        line = r.line_three if len(playing) == 3 else r.line
        pen = [0] * ns
        for sd in playing:
            if sd in tied:
                pen[sd] = 0 if len(tied) == 1 else r.tie_penalty
            elif not self.tricks[sd]:
                pen[sd] = r.penalties[2]
            elif pts[sd] >= line:
                pen[sd] = r.penalties[0]
            else:
                pen[sd] = r.penalties[1]
        return pts, pen

    def _end_deal(self) -> None:
        r = self.rules
        ns = r.num_sides
        pts, pen = self.deal_penalties()
        playing = [sd for sd in range(ns) if self.in_match[sd]]
        written = self.ledger.settle({sd: pen[sd] for sd in playing if pen[sd]})
        scores = self.ledger.scores
        reached = [sd for sd in playing if scores[sd] >= r.target]
        out = []
        together = False
        if reached:
            if len(reached) == len(playing):  # C3.7: everyone left reached the target together
                together = True
                hi = max(scores[sd] for sd in playing)
                top = [sd for sd in playing if scores[sd] == hi]
                lt = r.side_of(self.last_taker) if self.last_taker >= 0 else -1
                out = [sd for sd in top if sd != lt] if (len(top) > 1 and lt in top) else top
            else:
                out = reached
        for sd in out:
            self.in_match[sd] = False
            self.out_deal[sd] = self.deals_played + 1
        most = max(pts[sd] for sd in playing)
        top = [sd for sd in playing if pts[sd] == most]
        self._deal_over({
            "ended_by": "played",
            "eggs": False,
            "winners": top if len(top) == 1 else [],
            "losers": [sd for sd in playing if written.get(sd, 0)],
            "written": [written.get(sd, 0) for sd in range(ns)],
            "scores": scores[:],
            "seat_points": [-written.get(r.side_of(s), 0) for s in range(r.num_players)],
            "points": pts,
            "tricks": self.tricks[:],
            "trump": SUITS[self.trump_suit],
            "trump_card": card_str(self.trump_card),
            "last_taker": self.last_taker,
            "lone_take": self.lone_take,
            "out": out,
            "all_reached_target": together,
        })
        remaining = [sd for sd in range(ns) if self.in_match[sd]]
        if len(remaining) <= 1:
            self._end_match("last_side_left")
        elif self.deals_played >= r.max_deals:
            self._end_match("deal_limit")
        elif self.single_deal:
            self._end_single(pen, playing)
        else:
            self.dealer = self._next_in_deal(self.dealer)
            self._start_deal()

    def _finish(self, side_place: list, reason: str, losers: list | None = None) -> None:
        """The match result (:mod:`kozel_env.core.results`): winners are the first place, losers the last;
        if every side shares the first place nobody wins or loses. Seed 004 and RULES C3 name no goats."""
        r = self.rules
        ns = r.num_sides
        worst = max(side_place)
        if worst == 1:
            winners, losers = [], []
        else:
            winners = [sd for sd in range(ns) if side_place[sd] == 1]
            if losers is None:
                losers = [sd for sd in range(ns) if side_place[sd] == worst]
        self.match_result = {
            "ended_by": reason,
            "winners": winners,
            "losers": losers,
            "goats": [],
            "titles": [],
            "places": side_place,
            "scores": self.ledger.scores[:],
            "deals": self.deals_played,
            "returns": [1.0 if r.side_of(s) in winners else (-1.0 if r.side_of(s) in losers else 0.0)
                        for s in range(r.num_players)],
        }
        self.terminal = True
        self.phase = PH_OVER
        self.current_player = -1
        self.sets = ()
        self.beat_sets = ()
        self.sel = 0

    def _end_match(self, reason: str) -> None:
        """C3.7 places: sides still in first (by fewer points), then the sides out, later out better."""
        ns = self.rules.num_sides
        scores = self.ledger.scores

        def key(sd):
            if self.in_match[sd]:
                return (0, 0, scores[sd])
            return (1, -self.out_deal[sd], scores[sd])

        keys = [key(sd) for sd in range(ns)]
        self._finish([1 + sum(1 for o in keys if o < keys[sd]) for sd in range(ns)], reason)

    def _end_single(self, pen: list, playing: list) -> None:
        """``single_deal``: the smallest penalty of the deal first; sides not playing it last."""
        ns = self.rules.num_sides
        place = [1 + sum(1 for o in playing if pen[o] < pen[sd]) if sd in playing else len(playing) + 1
                 for sd in range(ns)]
        hi = max(pen[sd] for sd in playing)
        self._finish(place, "single_deal", [sd for sd in playing if pen[sd] == hi])

    # ------------------------------------------------------------------ invariants
    def check_invariants(self) -> None:
        """Every card exactly once in a hand, the stock, a taken pile or the round (seed 1); hand sizes
        (C3.4); round sizes (C3.3); the trump card last in the stock (C3.1); scores (C3.6-C3.7); the seat
        to move has a real choice."""
        r = self.rules
        n, ns = r.num_players, r.num_sides
        seen = 0
        for m in self.hands + self.taken + self.round_up + self.round_down + [mask_of_list(self.stock)]:
            assert not seen & m, "a card is in two places"
            seen |= m
        assert len(set(self.stock)) == len(self.stock)
        assert seen == FULL_DECK, "a card is missing"
        assert all(0 <= v for v in self.ledger.scores)
        for sd in range(ns):
            assert not self.taken_up[sd] & ~self.taken[sd]
            assert (self.tricks[sd] > 0) == (self.taken[sd] != 0)
        for s in range(n):
            assert self.hands[s].bit_count() <= HAND
            assert not self.round_down[s] & ~self.down_by[s]
            if not self.in_match[r.side_of(s)] and not self.terminal:
                assert not self.hands[s] and not self.down_by[s]
        if self.stock:
            assert self.stock[0] == self.trump_card and self.trump_by < 0
        else:
            assert self.trump_by >= 0 or self.terminal
        if self.trump_by >= 0:
            assert not self.trump_down & ~self.down_by[self.trump_by]
        if self.terminal:
            assert self.current_player == -1 and self.match_result is not None and self.phase == PH_OVER
            assert not self.legal
            return
        playing = [sd for sd in range(ns) if self.in_match[sd]]
        assert len(playing) >= 2 and self.deals_played < r.max_deals
        for sd in playing:  # sides at the target play on only after the "together" rule (C3.7)
            if self.ledger.scores[sd] >= r.target:
                assert all(self.ledger.scores[o] >= r.target for o in playing), "a side at 12 still plays"
        p = self.current_player
        assert p in self.seats and self.hands[p]
        assert not self.sel & ~self.hands[p]
        if self.stock:
            if self.phase in (PH_CALL, PH_LEAD):
                assert all(self.hands[s].bit_count() == HAND for s in self.seats)
        if self.phase == PH_ANSWER:
            assert self.k == self.lead.bit_count() and 1 <= self.k <= self.cap
            assert is_lead(self.lead) or self.called == MOSKVA + 1
            for i, s in enumerate(self.order):
                done = self.round_up[s] | self.round_down[s]
                assert done.bit_count() == (self.k if i < self.oi else 0)
                if i >= self.oi:
                    assert self.hands[s].bit_count() >= self.k
            assert self.top == self.round_up[self.top_seat]
            assert p == self.order[self.oi]
        else:
            assert not any(self.round_up) and not any(self.round_down)
        if self.phase == PH_CALL:  # every holder is asked, even one that can only pass (C3.5, no leak)
            assert self.offers[self.offer_i] == p and self.cap == HAND and self.standing_call() != MOSKVA
            assert self.legal == self._compute_legal() and self.legal >> A_PASS & 1
            return
        assert self.legal == self._compute_legal() and self.legal & (self.legal - 1), "no real choice"


def mask_of_list(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


# ---------------------------------------------------------------------------------------------------
# Game
# ---------------------------------------------------------------------------------------------------


class SixOfSpadesGame(Game):
    """Static facts and tables of the six-of-spades engine for one :class:`SixOfSpadesRules`."""

    family = "cards"

    engine_id = "six_of_spades"
    num_actions = NUM_ACTIONS
    state_class = SixOfSpadesState

    def __init__(self, rules: SixOfSpadesRules | None = None, **options):
        base = rules if rules is not None else CLASSIC
        self.rules = make_rules(base, options) if options else base
        r = self.rules
        self.name = r.name
        self.num_players = r.num_players
        self.ledger_rules = r.ledger_rules()
        self._build_spec()

    # ------------------------------------------------------------------ observation layout
    def _build_spec(self) -> None:
        r = self.rules
        n, ns = r.num_players, r.num_sides
        rel = "relative seats: 0 = you, 1 = next clockwise, ..."
        srel = "relative sides: 0 = yours" + (" (your pair)" if r.pairs else " (you)")
        self.stock_max = NUM_CARDS - 2 * HAND
        self.score_bits = 2 * r.target
        parts = [
            Part("hand", (NUM_CARDS,), "your cards (card ids suit * 9 + rank, suits C D H S, ranks 6..A)"),
            Part("selected", (NUM_CARDS,), "cards you have chosen for the lead / answer being built"),
            Part("phase", (3,), "one-hot: call offer, lead, answer (all 0 when over)"),
            Part("to_act", (n,), f"seat to act, one-hot; {rel}"),
            Part("seat", (n,), "your absolute seat, one-hot"),
            Part("trump_suit", (4,), "trump suit one-hot C D H S"),
            Part("trump_card", (NUM_CARDS,), "the trump card (face up under the stock, then drawn)"),
            Part("trump_card_at", (n + 1,), f"0: under the stock; 1 + seat: drawn by that seat; {rel}"),
            Part("stock", (self.stock_max,), "cards in the stock (trump card included), thermometer"),
            Part("hand_sizes", (n, HAND + 1), f"cards in each hand, one-hot 0..4; {rel}"),
            Part("in_deal", (n,), f"seats playing this deal (not out); {rel}"),
            Part("dealer", (n,), f"dealer one-hot; {rel}"),
            Part("leader", (n,), f"the (scheduled) leader of this round; {rel}"),
            Part("last_taker", (n,), f"who took the last trick of this deal; {rel}"),
            Part("offer", (n, 2), f"the seat asked now for a call, and the calls it may still make by the call "
                 f"standing (Moskva, Molodka), whatever it holds; {rel}"),
            Part("calls", (n, 2), f"calls made before this lead: seat x (Moskva, Molodka); the last one "
                 f"stands; {rel}"),
            Part("called", (2,), "this round's lead is a Moskva / Molodka call"),
            Part("lead", (NUM_CARDS,), "this round's lead"),
            Part("lead_size", (HAND,), "number of cards led, one-hot 1..4"),
            Part("top", (NUM_CARDS,), "the cards on top now"),
            Part("on_top", (n,), f"who is on top; {rel}"),
            Part("round_up", (n, NUM_CARDS), f"cards each seat laid face up this round; {rel}"),
            Part("round_down", (n,), f"seats that answered face down this round; {rel}"),
            Part("own_down", (NUM_CARDS,), "your face-down cards this round"),
            Part("taken_known", (ns, NUM_CARDS), f"cards you know each side took this deal (face up, or "
                                                 f"your own face down); {srel}"),
            Part("took_trick", (ns,), f"side took a trick this deal; {srel}"),
            Part("taken_unseen", (ns, NUM_CARDS - HAND), f"cards taken by each side that you have not "
                                                         f"seen, thermometer (capped); {srel}"),
            Part("scores", (ns, self.score_bits), f"penalty points, thermometer (capped); {srel}"),
            Part("sides_in", (ns,), f"sides still in the match; {srel}"),
            Part("deals_played", (r.max_deals,), "deals played in the match, thermometer"),
        ]
        self.obs_spec = ObsSpec(parts)
        self.oracle_spec = ObsSpec([
            Part("hands", (n, NUM_CARDS), "every hand, absolute seats"),
            Part("stock_cards", (NUM_CARDS,), "cards in the stock"),
            Part("next_card", (NUM_CARDS,), "the next card to be drawn"),
            Part("down_cards", (n, NUM_CARDS), "face-down cards laid this deal, by seat (absolute)"),
            Part("selection", (NUM_CARDS,), "the cards the seat to move has chosen so far"),
            Part("to_move", (n,), "seat to move, one-hot (all 0 when terminal)"),
        ] + [Part("seat0_" + p.name, p.shape, "seat 0's observation: " + p.doc, p.high)
             for p in parts])
        o = {p.name: self.obs_spec.slices[p.name].start for p in parts}
        self._off = o
        self._nbytes = (self.obs_spec.size + 7) // 8
        self._okeys = tuple(o[k] for k in (
            "hand", "selected", "phase", "to_act", "seat", "trump_suit", "trump_card", "trump_card_at",
            "stock", "hand_sizes", "in_deal", "dealer", "leader", "last_taker", "offer", "calls",
            "called", "lead", "lead_size", "top", "on_top", "round_up", "round_down", "own_down",
            "taken_known", "took_trick", "taken_unseen", "scores", "sides_in", "deals_played"))
        hidden = sum(p.size for p in self.oracle_spec.parts[:6])
        self._hidden_size = hidden
        self._hidden_bytes = (hidden + 7) // 8
        self._build_tables()

    # ------------------------------------------------------------------ states
    def setup_checks(self) -> dict:
        return setup_checks(self.rules)

    def new_state(self, seed: int = 0, setup: dict | None = None) -> SixOfSpadesState:
        """A fresh match. ``setup`` (validated, :class:`InvalidOptionError` on bad input) may hold:

        * ``hands``: one entry per seat, a card string (``"AS TS 6S KH"``) or None (dealt at random);
        * ``trump_card``: the face-up card under the stock (default: drawn at random), or a card in a
          hand (then already drawn by that seat and the stock is empty) or among ``taken`` (drawn and
          played face up; it counts as drawn by the taking side's first seat);
        * ``stock``: the stock in draw order, first drawn first, without the trump card (default: the
          rest of the deck, shuffled); with it every card must be placed;
        * ``taken``: one card string per side, cards already taken this deal (face up, one trick each);
        * ``dealer`` / ``leader``: seats (the leader sits left of the dealer; default drawn from the Rng);
        * ``scores``: penalty points per side (below the target for sides still in); ``out``: sides
          already out (three players only, at most one); ``deals_played``: deals already played;
        * ``single_deal``: end the episode after the first deal.
        With fewer than four cards in a hand the stock must be empty (C3.4).
        """
        r = self.rules
        setup = check_setup(setup_checks(r), setup, r.name, SixOfSpadesState.SETUP_KEYS)
        n, ns = r.num_players, r.num_sides
        st = SixOfSpadesState.__new__(SixOfSpadesState)
        st.game = self
        st.rules = r
        st.rng = Rng(seed)
        st.events = []
        st.results = ()
        out = setup.get("out", ())
        if len(out) > ns - 2:
            raise InvalidOptionError(f"out={list(out)!r}: at least two sides must still be in the match")
        st.in_match = [sd not in out for sd in range(ns)]
        st.out_deal = [0 if sd in out else -1 for sd in range(ns)]
        scores = setup.get("scores", [0] * ns)
        if any(scores[sd] >= r.target for sd in range(ns) if st.in_match[sd]):
            raise InvalidOptionError(f"scores={scores!r}: the sides still in must be below the target {r.target}")
        st.ledger = Ledger(self.ledger_rules, scores=list(scores))
        st.deals_played = setup.get("deals_played", 0)
        st.single_deal = setup.get("single_deal", False)
        st.terminal = False
        st.last_result = None
        st.match_result = None
        st.current_player = -1
        st.legal = 0
        st.sets = ()
        st.beat_sets = ()
        st.sel = 0
        active = [s for s in range(n) if st.in_match[r.side_of(s)]]
        dealer, leader = setup.get("dealer"), setup.get("leader")
        for key, v in (("dealer", dealer), ("leader", leader)):
            if v is not None and v not in active:
                raise InvalidOptionError(f"{key}={v!r}: must be a seat still in the match {active}")
        if dealer is None:
            if leader is not None:
                i = active.index(leader)
                dealer = active[i - 1]
            else:
                dealer = active[st.rng.below(len(active))]
        st.dealer = dealer
        if leader is None:
            leader = st._next_in_deal(dealer)
        elif st._next_in_deal(dealer) != leader:
            raise InvalidOptionError(f"leader must be the seat left of the dealer ({st._next_in_deal(dealer)}), "
                                     f"got {leader}")
        fixed = any(k in setup for k in ("hands", "trump_card", "stock", "taken"))
        if not fixed:
            st._start_deal()
        else:
            self._fixed_deal(st, setup, leader)
        st._settle()
        return st

    def _fixed_deal(self, st: SixOfSpadesState, setup: dict, leader: int) -> None:
        r = self.rules
        n, ns = r.num_players, r.num_sides
        st._reset_deal_fields()
        used = 0

        def take(text, what):
            nonlocal used
            if isinstance(text, (list, tuple)) and all(isinstance(x, str) for x in text):
                text = " ".join(text)
            if not isinstance(text, str):
                raise InvalidOptionError(f"{what} must be a card string like 'AS TS 6S KH', got {text!r}")
            try:
                m = parse_cards(text)
            except KozelError as e:
                raise InvalidOptionError(f"{what}: {e}") from None
            if m & used:
                raise InvalidOptionError(f"{what}: card(s) {card_list(m & used)} given twice")
            used |= m
            return m

        hands = setup.get("hands")
        given = [None] * n
        if hands is not None:
            if not isinstance(hands, (list, tuple)) or len(hands) != n:
                raise InvalidOptionError(f"hands must be a list of {n} card strings (or None), got {hands!r}")
            for s, h in enumerate(hands):
                if h is None:
                    continue
                m = take(h, f"hand of seat {s}")
                if m.bit_count() > HAND:
                    raise InvalidOptionError(f"hand of seat {s} has {m.bit_count()} cards; at most {HAND}")
                if m and s not in st.seats:
                    raise InvalidOptionError(f"seat {s} is out of the match and holds no cards")
                given[s] = m
        taken = setup.get("taken")
        if taken is not None:
            if not isinstance(taken, (list, tuple)) or len(taken) != ns:
                raise InvalidOptionError(f"taken must be a list of {ns} card strings, got {taken!r}")
            for sd, t in enumerate(taken):
                m = take(t or "", f"taken by side {sd}")
                if m and not st.in_match[sd]:
                    raise InvalidOptionError(f"side {sd} is out of the match and took nothing")
                st.taken[sd] = st.taken_up[sd] = m
                st.tricks[sd] = 1 if m else 0
        tc = setup.get("trump_card")
        trump = -1
        if tc is not None:
            if not isinstance(tc, str):
                raise InvalidOptionError(f"trump_card must be a card like '9D', got {tc!r}")
            try:
                trump = parse_cards(tc)
            except KozelError as e:
                raise InvalidOptionError(f"trump_card: {e}") from None
            if trump.bit_count() != 1:
                raise InvalidOptionError(f"trump_card must be one card, got {tc!r}")
            trump = trump.bit_length() - 1
        stock_text = setup.get("stock")
        stock = []
        if stock_text is not None:
            if isinstance(stock_text, (list, tuple)) and all(isinstance(x, str) for x in stock_text):
                stock_text = " ".join(stock_text)
            m = take(stock_text, "stock")
            if trump >= 0 and m >> trump & 1:
                raise InvalidOptionError("the stock lists the cards above the trump card; leave the trump card out")
            stock = [parse_cards(t).bit_length() - 1 for t in stock_text.replace(",", " ").split()]
        # random parts
        rest = [c for c in range(NUM_CARDS) if not used >> c & 1 and c != trump]
        st.rng.shuffle(rest)
        for s in st.seats:
            if given[s] is None:
                if hands is not None and len(rest) < HAND:
                    raise InvalidOptionError("not enough cards left to deal the hands given as None")
                m = 0
                for c in rest[:HAND]:
                    m |= 1 << c
                rest = rest[HAND:]
                given[s] = m
            st.hands[s] = given[s]
        holder = [s for s in st.seats if trump >= 0 and st.hands[s] >> trump & 1]
        # a trump card already taken counts as drawn (and laid face up) by the taking side's first seat
        holder += [s for s in st.seats if trump >= 0 and st.taken[r.side_of(s)] >> trump & 1][:1]
        if trump < 0:
            if not rest:
                raise InvalidOptionError("no card is left for the trump card")
            trump = rest.pop()
        if holder:
            if stock or rest:
                raise InvalidOptionError("the trump card is drawn last: once it is drawn the stock must be empty "
                                         f"(unplaced cards: {card_list(mask_of_list(stock + rest))})")
            st.trump_by = holder[0]
            st.stock = []
        else:
            if stock_text is not None and rest:
                raise InvalidOptionError(f"with an explicit stock every card must be placed; missing: "
                                         f"{card_list(mask_of_list(rest))}")
            st.stock = [trump] + list(reversed(stock)) + rest
        st.trump_card = trump
        st.trump_suit = SUIT_OF[trump]
        if st.stock and any(st.hands[s].bit_count() != HAND for s in st.seats):
            raise InvalidOptionError("while the stock holds cards every hand holds four (C3.4)")
        if not any(st.hands):
            raise InvalidOptionError("no hand holds a card")
        st._deal_event()
        st._start_round(leader)

    # ------------------------------------------------------------------ observation
    def observe(self, st: SixOfSpadesState, player: int) -> np.ndarray:
        b = np.frombuffer(self._obs_int(st, player).to_bytes(self._nbytes, "little"), np.uint8)
        return _BYTE_BITS.take(b, axis=0).reshape(-1)[:self._size]

    def _build_tables(self) -> None:
        """Per observer, every feature bit precomputed (seat / side offsets folded in): observe() only ORs."""
        r = self.rules
        n, ns = r.num_players, r.num_sides
        o = self._off
        sb = self.score_bits
        tabs = []
        for p in range(n):
            rel = [(s - p) % n for s in range(n)]
            srel = [(sd - (p & 1)) % 2 for sd in range(ns)] if r.pairs else [(sd - p) % n for sd in range(ns)]
            seat = []
            for s in range(n):
                q = rel[s]
                seat.append((
                    tuple(1 << (o["hand_sizes"] + q * (HAND + 1) + c) | 1 << (o["in_deal"] + q)
                          for c in range(HAND + 1)),
                    o["round_up"] + q * NUM_CARDS,
                    1 << (o["round_down"] + q),
                ))
            one = lambda name, q: 1 << (o[name] + q)  # noqa: E731
            side = []
            for sd in range(ns):
                q = srel[sd]
                side.append((
                    o["taken_known"] + q * NUM_CARDS,
                    1 << (o["took_trick"] + q),
                    tuple(((1 << min(c, NUM_CARDS - HAND)) - 1) << (o["taken_unseen"] + q * (NUM_CARDS - HAND))
                          for c in range(NUM_CARDS + 1)),
                    tuple(((1 << min(v, sb)) - 1) << (o["scores"] + q * sb) for v in range(sb + 1)),
                    1 << (o["sides_in"] + q),
                ))
            tabs.append((
                1 << (o["seat"] + p),
                tuple(seat),
                tuple(side),
                tuple(one("to_act", rel[s]) for s in range(n)),
                tuple(one("dealer", rel[s]) for s in range(n)),
                tuple(one("leader", rel[s]) for s in range(n)),
                tuple(one("last_taker", rel[s]) for s in range(n)),
                tuple(one("on_top", rel[s]) for s in range(n)),
                (1 << o["trump_card_at"],) + tuple(one("trump_card_at", 1 + rel[s]) for s in range(n)),
                tuple((one("offer", 2 * rel[s]), one("offer", 2 * rel[s] + 1)) for s in range(n)),
                tuple((one("calls", 2 * rel[s]), one("calls", 2 * rel[s] + 1)) for s in range(n)),
            ))
        self._tabs = tuple(tabs)
        self._g_stock = tuple(((1 << c) - 1) << o["stock"] for c in range(self.stock_max + 1))
        self._g_trump = tuple(tuple(1 << (o["trump_suit"] + SUIT_OF[c]) | 1 << (o["trump_card"] + c)
                                    for c in range(NUM_CARDS)) for _ in (0,))[0]
        self._g_phase = tuple(1 << (o["phase"] + ph) for ph in range(3))
        self._g_lsize = tuple(0 if k == 0 else 1 << (o["lead_size"] + k - 1) for k in range(HAND + 1))
        self._g_called = (0, 1 << o["called"], 1 << (o["called"] + 1))
        self._g_deals = tuple(((1 << min(d, r.max_deals)) - 1) << o["deals_played"] for d in range(r.max_deals + 1))
        self._size = self.obs_spec.size

    def _obs_int(self, st: SixOfSpadesState, p: int) -> int:
        (seat_bit, seat_t, side_t, act_t, dealer_t, leader_t, lt_t, ontop_t, tat_t, offer_t,
         decl_t) = self._tabs[p]
        o = self._off
        hands = st.hands
        x = (hands[p] << o["hand"] | seat_bit | self._g_trump[st.trump_card] | tat_t[st.trump_by + 1]
             | self._g_stock[len(st.stock)] | dealer_t[st.dealer])
        cp = st.current_player
        ph = st.phase
        if cp >= 0:
            x |= self._g_phase[ph] | act_t[cp] | leader_t[st.leader]
            if cp == p and st.sel:
                x |= st.sel << o["selected"]
        rup, rdown = st.round_up, st.round_down
        for s in st.seats:
            hs, rsh, rdb = seat_t[s]
            x |= hs[hands[s].bit_count()]
            if rup[s]:
                x |= rup[s] << rsh
            if rdown[s]:
                x |= rdb
        if st.last_taker >= 0:
            x |= lt_t[st.last_taker]
        if ph == PH_ANSWER:
            x |= (st.lead << o["lead"] | st.top << o["top"] | self._g_lsize[st.k] | self._g_called[st.called]
                  | ontop_t[st.top_seat])
            if rdown[p]:
                x |= rdown[p] << o["own_down"]
        elif ph == PH_CALL:
            s = st.offers[st.offer_i]
            best = st.standing_call()
            x |= offer_t[s][MOSKVA]
            if best < 0:
                x |= offer_t[s][MOLODKA]
            for s, kind in st.calls_made:
                x |= decl_t[s][kind]
        mydown = st.down_by[p]
        scores = st.ledger.scores
        taken, taken_up, tricks, in_match = st.taken, st.taken_up, st.tricks, st.in_match
        sb = self.score_bits
        for sd, (tk_sh, tt_bit, tu_t, sc_t, sin_bit) in enumerate(side_t):
            if tricks[sd]:
                tk = taken[sd]
                known = taken_up[sd] | (mydown & tk)
                x |= known << tk_sh | tt_bit | tu_t[tk.bit_count() - known.bit_count()]
            v = scores[sd]
            if v:
                x |= sc_t[v if v < sb else sb]
            if in_match[sd]:
                x |= sin_bit
        dp = st.deals_played
        if dp:
            x |= self._g_deals[dp]
        return x

    def oracle(self, st: SixOfSpadesState) -> np.ndarray:
        n = self.num_players
        x = 0
        off = 0
        for s in range(n):
            x |= st.hands[s] << off
            off += NUM_CARDS
        x |= mask_of_list(st.stock) << off
        off += NUM_CARDS
        if st.stock:
            x |= 1 << (off + st.stock[-1])
        off += NUM_CARDS
        for s in range(n):
            x |= st.down_by[s] << off
            off += NUM_CARDS
        x |= st.sel << off
        off += NUM_CARDS
        if st.current_player >= 0:
            x |= 1 << (off + st.current_player)
        hidden = np.unpackbits(np.frombuffer(x.to_bytes(self._hidden_bytes, "little"), np.uint8),
                               count=self._hidden_size, bitorder="little").astype(np.float32)
        return np.concatenate([hidden, self.observe(st, 0)])

    # ------------------------------------------------------------------ notation
    def action_to_string(self, state, action: int) -> str:
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_ACTIONS:
            raise IllegalActionError(f"action {action!r} is out of range 0..{NUM_ACTIONS - 1}")
        a = int(action)
        return card_str(a) if a < 36 else NAMES[a]

    def string_to_action(self, st: SixOfSpadesState, text: str) -> int:
        t = str(text).strip()
        a = ACTION_OF_NAME.get(t.lower())
        if a is None:
            try:
                m = parse_cards(t)
            except KozelError as e:
                raise IllegalActionError(f"cannot read move {text!r} ({e}); moves are a card to choose "
                                         f"(e.g. '7H') or one of {sorted(ACTION_OF_NAME)}; legal moves: "
                                         f"{self.legal_strings(st)}") from None
            if m.bit_count() != 1:
                raise IllegalActionError(f"move {text!r}: choose one card at a time (cards go in increasing "
                                         f"order: 6 7 8 9 T J Q K A, suits C D H S); legal moves: "
                                         f"{self.legal_strings(st)}")
            a = m.bit_length() - 1
        if st.terminal or not st.legal >> a & 1:
            who = "nobody (the match is over)" if st.terminal else f"player_{st.current_player}"
            raise IllegalActionError(f"move {text!r} is not legal for {who}; legal moves: {self.legal_strings(st)}")
        return a

    # ------------------------------------------------------------------ rendering
    def render(self, st: SixOfSpadesState, viewer: int | None = None) -> str:
        r = self.rules
        n, ns = r.num_players, r.num_sides

        def side_name(sd):
            if r.pairs:
                return f"player_{sd}+player_{sd + 2}"
            return f"player_{sd}"

        score = " | ".join(f"{side_name(sd)}: {st.ledger.scores[sd]}{'' if st.in_match[sd] else ' (out)'}"
                           for sd in range(ns))
        lines = [f"{self.name} · deal {st.deals_played + (0 if st.terminal else 1)}/{r.max_deals} · "
                 f"penalties {score}"]
        where = "under the stock" if st.trump_by < 0 else f"drawn by player_{st.trump_by}"
        lines.append(f"trump {SUITS[st.trump_suit]}: {card_str(st.trump_card)} ({where}); stock "
                     f"{len(st.stock)} cards; dealer player_{st.dealer}")
        for s in range(n):
            mark = "*" if s == st.current_player else " "
            if s not in st.seats:
                lines.append(f"{mark}player_{s}: out")
                continue
            if viewer is None or viewer == s:
                hand = card_list(st.hands[s])
                if s == st.current_player and st.sel:
                    hand += f"   chosen: {card_list(st.sel)}"
            else:
                hand = " ".join("??" for _ in range(st.hands[s].bit_count()))
            lines.append(f"{mark}player_{s}: {hand}")
        if st.phase == PH_CALL:
            may = "Moskva" if st.standing_call() == MOLODKA else "Moskva or Molodka"
            lines.append(f"before the lead: player_{st.offers[st.offer_i]} is asked for a call ({may}) or pass")
        if st.phase == PH_CALL and st.calls_made:
            lines.append("calls: " + ", ".join(f"player_{s} ({KIND_NAMES[k]})" for s, k in st.calls_made))
        if st.phase == PH_ANSWER:
            call = f" ({KIND_NAMES[st.called - 1]})" if st.called else ""
            parts = [f"player_{st.leader} led {card_list(st.lead)}{call}"]
            for s in st.order[:st.oi]:
                if st.round_up[s]:
                    parts.append(f"player_{s} beat with {card_list(st.round_up[s])}")
                else:
                    shown = card_list(st.round_down[s]) if viewer is None or viewer == s else \
                        f"{st.round_down[s].bit_count()} cards"
                    parts.append(f"player_{s} face down: {shown}")
            lines.append("round: " + "; ".join(parts) + f"; on top: player_{st.top_seat}")
        for sd in range(ns):
            if st.in_match[sd]:
                known = st.taken[sd] if viewer is None else (st.taken_up[sd] | (st.taken[sd] & st.down_by[viewer]))
                hidden = st.taken[sd].bit_count() - known.bit_count()
                lines.append(f"taken by {side_name(sd)}: {st.tricks[sd]} tricks, {card_list(known) or '-'}"
                             + (f" + {hidden} face down" if hidden else ""))
        if st.terminal:
            res = st.match_result
            lines.append(f"match over ({res['ended_by']}): winning sides {res['winners']}, losing sides "
                         f"{res['losers']}, places {res['places']}")
        elif viewer is None or viewer == st.current_player:
            lines.append(f"legal: {' '.join(self.legal_strings(st))}")
        return "\n".join(lines)

    # ------------------------------------------------------------------ determinization
    def sample_consistent(self, st: SixOfSpadesState, player: int, rng) -> SixOfSpadesState:
        """Re-deal every card ``player`` has not seen -- other hands, the stock (its order too) and the
        other players' face-down cards (each stays in the same trick pile or round, with the same owner) --
        consistently with the observation: the drawn trump card stays with its drawer (in hand or among the
        drawer's later face-down cards) unless seen; before a lead, a seat that called holds that call (a
        pass says nothing: every holder is asked); with ``calls="auto"`` nobody holds a call when the
        scheduled leader leads; a seat to move (other than ``player``) outside a call question keeps a real
        choice (the engine plays forced steps itself). Uniform by rejection; constructive
        proposals where a constraint is rare (not exactly uniform then). The future deals' Rng is re-seeded
        from ``rng``. Not conditioned on: what earlier rounds' offers and refusals said about hands that have
        since changed (that history is not part of the observation either).
        """
        r = self.rules
        rng = _as_rng(rng)
        if st.terminal:
            new = st.clone()
            new.rng = Rng(rng.next_u64())
            return new
        n, ns = r.num_players, r.num_sides
        known = st.hands[player] | st.down_by[player]
        for sd in range(ns):
            known |= st.taken_up[sd]
        for s in st.seats:
            known |= st.round_up[s]
        under = st.trump_by < 0
        if under:
            known |= 1 << st.trump_card
        pool = FULL_DECK & ~known
        # slot groups: ("hand", seat) / ("down", seat, side or -1 for the round, post_draw) / ("stock",)
        groups = []
        for s in st.seats:
            if s == player:
                continue
            groups.append((("hand", s), st.hands[s].bit_count()))
            d = st.down_by[s]
            if d:
                post = st.trump_down if s == st.trump_by else 0
                for sd in list(range(ns)) + [-1]:
                    b = d & (st.taken[sd] if sd >= 0 else st.round_down[s])
                    if b & ~post:
                        groups.append((("down", s, sd, False), (b & ~post).bit_count()))
                    if b & post:
                        groups.append((("down", s, sd, True), (b & post).bit_count()))
        nstock = len(st.stock) - (1 if under else 0)
        groups.append((("stock",), nstock))
        assert sum(c for _, c in groups) == pool.bit_count(), "slot count mismatch"
        # constraint: the drawn trump card is with its drawer (hand or later face-down cards)
        tc = st.trump_card
        trump_slots = None
        if not under and pool >> tc & 1:
            trump_slots = [gi for gi, (key, cnt) in enumerate(groups)
                           if (key[0] == "hand" and key[1] == st.trump_by)
                           or (key[0] == "down" and key[1] == st.trump_by and key[3])]
        pre_lead = st.phase in (PH_CALL, PH_LEAD) and st.cap == HAND and r.calls != "off"
        required = [(s, kind) for s, kind in st.calls_made if s != player] if pre_lead else []
        cp = st.current_player
        must_choose = cp != player and st.phase != PH_CALL
        pool_cards = bits(pool)
        for attempt in range(600):
            constructive = attempt >= 100
            assign = self._propose(st, groups, pool_cards, trump_slots, required, rng, constructive)
            if assign is None:
                continue
            new = self._build(st, player, groups, assign, rng)
            if self._consistent(st, new, player, pre_lead, must_choose):
                return new
        raise KozelError("no consistent determinization found")  # pragma: no cover

    def _propose(self, st, groups, pool_cards, trump_slots, required, rng, constructive):
        fill = {}
        left = set(pool_cards)
        if trump_slots:
            # uniform over the drawer's eligible card slots
            weights = [groups[gi][1] for gi in trump_slots]
            k = rng.below(sum(weights))
            for gi, w in zip(trump_slots, weights):
                if k < w:
                    fill.setdefault(gi, []).append(st.trump_card)
                    break
                k -= w
            left.discard(st.trump_card)
        gi_hand = {key[1]: gi for gi, (key, _) in enumerate(groups) if key[0] == "hand"}
        for s, kind in required:
            gi = gi_hand[s]
            fixed = fill.get(gi, [])
            choice = _random_callable(kind, left, fixed, rng)
            if choice is None:
                return None
            for c in choice:
                left.discard(c)
            fill[gi] = fixed + choice
        cp = st.current_player
        if constructive and st.phase == PH_ANSWER and cp in gi_hand and st.hands[cp].bit_count() == st.k:
            gi = gi_hand[cp]
            fixed = fill.get(gi, [])
            choice = _random_beating(st, left, fixed, rng)
            if choice is None:
                return None
            for c in choice:
                left.discard(c)
            fill[gi] = fixed + choice
        rest = sorted(left)
        rng.shuffle(rest)
        i = 0
        out = []
        for gi, (key, cnt) in enumerate(groups):
            got = fill.get(gi, [])
            need = cnt - len(got)
            if need < 0:
                return None
            out.append(got + rest[i:i + need])
            i += need
        return out

    def _build(self, st, player, groups, assign, rng) -> SixOfSpadesState:
        new = st.clone()
        new.rng = Rng(rng.next_u64())
        ns = self.rules.num_sides
        others_down = 0
        for (key, _), cards in zip(groups, assign):
            if key[0] == "down":
                others_down |= st.down_by[key[1]] & (st.taken[key[2]] if key[2] >= 0 else st.round_down[key[1]])
        for s in st.seats:
            if s != player:
                new.down_by[s] = 0
                new.round_down[s] = 0
                new.hands[s] = 0
        new.taken = [st.taken[sd] & ~others_down for sd in range(ns)]
        if st.trump_by >= 0 and st.trump_by != player:
            new.trump_down = 0
        stock = []
        for (key, _), cards in zip(groups, assign):
            m = mask_of_list(cards)
            if key[0] == "hand":
                new.hands[key[1]] = m
            elif key[0] == "down":
                s, sd, post = key[1], key[2], key[3]
                new.down_by[s] |= m
                if sd >= 0:
                    new.taken[sd] |= m
                else:
                    new.round_down[s] |= m
                if post:
                    new.trump_down |= m
            else:
                stock = list(cards)
        new.stock = ([st.trump_card] + stock) if st.trump_by < 0 else stock
        cp = st.current_player
        if cp != player and st.phase != PH_CALL:
            # the seat to move restarts its private choice; forced card choices are replayed (never a forced
            # confirmation: that would change the table, and _consistent rejects a seat left without choice)
            new.sel = 0
            if st.phase == PH_LEAD:
                new.sets = _lead_sets(new.hands[cp], st.cap)
            else:
                new._begin_answer()
            while True:
                legal = new._compute_legal()
                if legal & (legal - 1) or not legal or legal >> 36:
                    break
                new.sel |= legal
        return new

    def _consistent(self, st, new, player, pre_lead, must_choose) -> bool:
        if pre_lead:
            hands = new.hands
            if self.rules.calls == "auto":
                if any(call_kind(hands[s]) >= 0 for s in new._clockwise_from(st.sched)):
                    return False  # the holder of a call would have called (C3.5, calls="auto")
            elif any(call_kind(hands[s]) != kind for s, kind in st.calls_made):
                return False
        new.legal = new._compute_legal()
        if must_choose and not new.legal & (new.legal - 1):
            return False
        return True


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _dealt(hands: tuple, stock: tuple) -> dict:
    """The private part of a deal event: the hands as dealt, the stock in draw order (the trump card last)."""
    return {"hands": [card_list(x) for x in hands], "stock": [card_str(c) for c in reversed(stock)]}


def card_list(m: int) -> str:
    """Cards of a mask in notation, in id order (suits C D H S, ranks 6..A)."""
    return " ".join(card_str(c) for c in bits(m))


def _as_rng(rng) -> Rng:
    if isinstance(rng, Rng):
        return rng
    if isinstance(rng, (int, np.integer)):
        return Rng(int(rng))
    if hasattr(rng, "integers"):
        return Rng(int(rng.integers(0, 2 ** 63)))
    if hasattr(rng, "getrandbits"):
        return Rng(rng.getrandbits(64))
    raise TypeError(f"rng must be a kozel_env Rng, an int seed, a numpy Generator or random.Random, got {rng!r}")


def _random_callable(kind: int, left: set, fixed: list, rng: Rng):
    """A uniformly chosen four of ``kind`` made of ``fixed`` plus cards from ``left`` (its new cards)."""
    fm = mask_of_list(fixed)
    avail = sorted(left)
    need = HAND - len(fixed)
    if kind == MOSKVA:
        cand = [c for c in avail if MOSKVA_CARDS >> c & 1]
        opts = [combo for combo in combinations(cand, need)
                if call_kind(fm | mask_of_list(combo)) == MOSKVA]
    else:
        opts = []
        for s in range(4):
            cand = [c for c in avail if (SUIT_MASK[s] | SIX_BIT) >> c & 1]
            for combo in combinations(cand, need):
                m = fm | mask_of_list(combo)
                u = m & NOT_SIX
                if call_kind(m) == MOLODKA and u and SUIT_OF[(u & -u).bit_length() - 1] == s:
                    opts.append(combo)
    if not opts:
        return None
    return list(opts[rng.below(len(opts))])


def _random_beating(st: SixOfSpadesState, left: set, fixed: list, rng: Rng):
    """A uniformly chosen answer (``fixed`` plus cards of ``left``) that beats the top cards."""
    need = st.k - len(fixed)
    fm = mask_of_list(fixed)
    bb = BEATEN_BY[st.trump_suit]
    useful = 0
    for t in st.tops:
        useful |= bb[t]
    cand = [c for c in sorted(left) if useful >> c & 1]
    opts = [combo for combo in combinations(cand, need) if _covers(fm | mask_of_list(combo), st.tops, bb)]
    if not opts:
        return None
    return list(opts[rng.below(len(opts))])
