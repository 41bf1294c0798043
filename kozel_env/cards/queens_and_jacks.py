"""Card Kozel with queens and jacks always trump (seed 003, RULES C2): the rules engine.

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
from ..core.options import Bool, Choice, Int, Ints, RulesBase, Texts, check_setup, defaults_ok, option
from ..core.options import make_rules as _make_rules
from ..core.rng import Rng
from ..core.spec import ObsSpec, Part, unpack_masks
from .deck import (
    NUM_CARDS, POINTS, RANK_MASK, RJ, RQ, SUIT_MASK, SUIT_NAMES, SUIT_OF, SUITS, card_str, deck_mask,
    parse_card, strength_table,
)

# ---------------------------------------------------------------------------------------------------
# Rules config
# ---------------------------------------------------------------------------------------------------


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
        return LedgerRules(num_sides=2, target=self.target, threshold_mode="none", eggs_mode="multiply")


def make_rules(base: QueensAndJacksRules, options: dict) -> QueensAndJacksRules:
    """``base`` with the user's ``options`` checked and applied (:func:`kozel_env.core.options.make_rules`)."""
    return _make_rules(base, options)


@lru_cache(maxsize=None)
def setup_checks(rules: QueensAndJacksRules) -> dict:
    """The ``reset(options=...)`` keys and what each allows (see :meth:`QueensAndJacksGame.new_state`)."""
    return MappingProxyType({
        "hands": Texts(4, "card strings like 'QC TS 7H ...'", none_ok=True),
        "dealer": Int(0, 3),
        "leader": Int(0, 3),
        "trump": Choice(("C", "D", "H", "S", "clubs", "diamonds", "hearts", "spades", 0, 1, 2, 3)),
        "scores": Ints(2, 0, rules.target - 1, as_list=True),
        "eggs": Int(0, 30),
        "single_deal": Bool(),
    })


defaults_ok(QueensAndJacksRules)


CLASSIC = QueensAndJacksRules()
"""``queens_and_jacks_v0`` defaults: clubs trumps, 36 cards, match to 12."""

# ---------------------------------------------------------------------------------------------------
# Precomputed tables (per trump suit t = 0..3, the suit index of kozel_env.cards.deck)
# ---------------------------------------------------------------------------------------------------

NAME_BASE = 36
"""Action ``NAME_BASE + suit`` names that trump suit."""
NUM_ACTIONS = 40
NAME_ACTIONS = (36, 37, 38, 39)

QJ_MASK = RANK_MASK[RQ] | RANK_MASK[RJ]
"""The eight queens and jacks: always trumps (C2.2)."""
TRUMP_MASK = tuple(QJ_MASK | SUIT_MASK[t] for t in range(4))
FOLLOW = tuple(
    tuple(TRUMP_MASK[t] if s == t else SUIT_MASK[s] & ~QJ_MASK for s in range(4)) for t in range(4)
)
"""``FOLLOW[t][s]``: the cards that follow effective suit ``s`` when ``t`` is trump (trumps are one suit,
indexed by the trump suit's own index; a plain suit never holds its queen and jack, C2.2 / C2.4)."""
EFF = tuple(tuple(t if (TRUMP_MASK[t] >> c) & 1 else SUIT_OF[c] for c in range(NUM_CARDS)) for t in range(4))
"""``EFF[t][c]``: the effective suit of card ``c`` when ``t`` is trump."""

_PLAIN = strength_table("6789KTA")  # A T K 9 8 7 6 high to low (C2.2); Q, J -> -1
_QJ_ORDER = ("JD", "JH", "JS", "JC", "QD", "QH", "QS", "QC")  # low to high (C2.2)
STRENGTH = tuple(
    _QJ_ORDER.index(card_str(c)) + 7 if (QJ_MASK >> c) & 1 else _PLAIN[c] for c in range(NUM_CARDS)
)
"""Order inside an effective suit: plain ranks 0..6 (6 .. A), queens and jacks 7..14 (JD .. QC)."""


def _chunk_tables():
    tabs = []
    for k in range(4):
        tabs.append(tuple(tuple(k * 9 + i for i in range(9) if (m >> i) & 1) for m in range(512)))
    return tuple(tabs)


_CHUNKS = _chunk_tables()
_C0, _C1, _C2, _C3 = _CHUNKS
_NAME_LIST = [36, 37, 38, 39]
_NAME_MASK = 0xF << 36
_BIT = tuple(1 << c for c in range(NUM_CARDS))
_ROT = tuple(tuple((r + k) & 3 for k in range(4)) for r in range(4))

PHASE_NAMING, PHASE_PLAY, PHASE_OVER = 0, 1, 2


def mask_to_actions(m: int) -> list:
    """Sorted card ids of a card mask (table lookups per 9-bit suit chunk)."""
    return [*_C0[m & 511], *_C1[(m >> 9) & 511], *_C2[(m >> 18) & 511], *_C3[(m >> 27) & 511]]


def hand_value(winner_eyes: int, loser_eyes: int, loser_tricks: int) -> int:
    """Points the hand's winners write before eggs (C2.5): 6 (losers took no trick), 4 (losers took 30
    eyes or fewer), else 2."""
    if loser_tricks == 0:
        return 6
    if loser_eyes <= 30:
        return 4
    return 2


# ---------------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------------


class QueensAndJacksState(State):
    """One match. Cards are ids of :mod:`kozel_env.cards.deck`; hands and played sets are int masks.

    ``trick[seat]`` is the card that seat put into the current trick (-1: none yet); ``trick_leader``
    led it, ``trick_n`` cards are in it, ``best`` / ``best_seat`` the card winning it so far, ``led`` the
    effective suit led. ``voids[seat]`` is a 4-bit mask of effective suits (trumps indexed by the trump
    suit) the seat showed it does not hold. ``eyes`` / ``tricks`` per side this hand (side = seat % 2).
    """

    __slots__ = (
        "game", "rules", "rng", "ledger", "hands", "played", "trick", "trick_n", "trick_leader", "trick_pts",
        "best", "best_seat", "led", "voids", "eyes", "tricks", "trump", "dealer", "phase", "current_player",
        "terminal", "deals_played", "last_result", "match_result", "single_deal", "results", "events",
    )

    SETUP_KEYS = frozenset({"hands", "dealer", "leader", "trump", "scores", "eggs", "single_deal"})
    """Keys of ``new_state``'s ``setup`` (see :meth:`QueensAndJacksGame.new_state`)."""

    # -- the State contract ------------------------------------------------------------------------

    def legal_mask(self) -> int:
        """Bitmask over action ids of the legal actions (0 when terminal)."""
        ph = self.phase
        if ph == PHASE_PLAY:
            hand = self.hands[self.current_player]
            if self.trick_n:
                f = hand & FOLLOW[self.trump][self.led]
                return f if f else hand
            return hand
        if ph == PHASE_NAMING:
            return _NAME_MASK
        return 0

    def legal_actions(self) -> list:
        ph = self.phase
        if ph == PHASE_PLAY:
            m = self.hands[self.current_player]
            if self.trick_n:
                f = m & FOLLOW[self.trump][self.led]
                if f:
                    m = f
            return [*_C0[m & 511], *_C1[(m >> 9) & 511], *_C2[(m >> 18) & 511], *_C3[(m >> 27) & 511]]
        if ph == PHASE_NAMING:
            return _NAME_LIST[:]
        return []

    def apply_action(self, action: int) -> None:
        p = self.current_player
        self.events = []
        if self.phase != PHASE_PLAY:
            if self.phase == PHASE_NAMING and 36 <= action < 40:
                self.trump = action - 36
                self.phase = PHASE_PLAY
                return
            raise IllegalActionError(self._illegal_msg(action))
        if not 0 <= action < 36:
            raise IllegalActionError(self._illegal_msg(action))
        bit = _BIT[action]
        hands = self.hands
        hand = hands[p]
        if not hand & bit:
            raise IllegalActionError(self._illegal_msg(action))
        t = self.trump
        n = self.trick_n
        if n:
            led = self.led
            f = hand & FOLLOW[t][led]
            if f:
                if not f & bit:
                    raise IllegalActionError(self._illegal_msg(action))
                # followed: beats the best card iff it is stronger in the same effective suit, or it is a
                # trump over a plain best card (a plain follower on a trumped trick never beats)
                b = self.best
                if EFF[t][b] == led and STRENGTH[action] > STRENGTH[b]:
                    self.best = action
                    self.best_seat = p
            else:
                self.voids[p] |= 1 << led  # showed out of the led suit (C2.4)
                if EFF[t][action] == t:
                    b = self.best
                    if EFF[t][b] != t or STRENGTH[action] > STRENGTH[b]:
                        self.best = action
                        self.best_seat = p
        else:
            self.led = EFF[t][action]
            self.best = action
            self.best_seat = p
            self.trick_leader = p
        hands[p] = hand ^ bit
        self.played[p] |= bit
        self.trick[p] = action
        self.trick_pts += POINTS[action]
        n += 1
        if n < 4:
            self.trick_n = n
            self.current_player = (p + 1) & 3
            return
        # trick complete (C2.4): the winner takes it and leads next
        w = self.best_seat
        side = w & 1
        self.eyes[side] += self.trick_pts
        self.tricks[side] += 1
        self.trick_pts = 0
        self.trick_n = 0
        self.trick = [-1, -1, -1, -1]
        self.trick_leader = w
        self.current_player = w
        if hands[w] == 0:  # everybody is out of cards: the hand is over
            self._finish_hand()

    def clone(self) -> "QueensAndJacksState":
        c = QueensAndJacksState.__new__(QueensAndJacksState)
        c.game = self.game
        c.rules = self.rules
        c.rng = self.rng.clone()
        c.ledger = self.ledger.clone()
        c.hands = self.hands[:]
        c.played = self.played[:]
        c.trick = self.trick[:]
        c.trick_n = self.trick_n
        c.trick_leader = self.trick_leader
        c.trick_pts = self.trick_pts
        c.best = self.best
        c.best_seat = self.best_seat
        c.led = self.led
        c.voids = self.voids[:]
        c.eyes = self.eyes[:]
        c.tricks = self.tricks[:]
        c.trump = self.trump
        c.dealer = self.dealer
        c.phase = self.phase
        c.current_player = self.current_player
        c.terminal = self.terminal
        c.deals_played = self.deals_played
        c.last_result = self.last_result
        c.match_result = self.match_result
        c.results = self.results
        c.events = []
        c.single_deal = self.single_deal
        return c

    def check_invariants(self) -> None:
        """Every card of the deck exactly once in a hand or among the played cards (seed "The cards");
        hand sizes follow the trick (C2.4); eyes and tricks match the finished tricks (C2.5); voids are
        real (C2.4); scores below the target while the match runs (C2.6); the seat to move can move."""
        r = self.rules
        seen = 0
        for m in self.hands + self.played:
            assert not seen & m, "a card is in two places"
            seen |= m
        assert seen == deck_mask(r.deck), "a card is missing"
        assert all(0 <= v for v in self.ledger.scores)
        if self.terminal:
            assert self.current_player == -1 and self.match_result is not None and self.phase == PHASE_OVER
            return
        assert all(v < r.target for v in self.ledger.scores), "a side at the target but the match runs"
        n_played = sum(m.bit_count() for m in self.played)
        assert (n_played - self.trick_n) % 4 == 0 and 0 <= self.trick_n < 4
        assert sum(self.tricks) == (n_played - self.trick_n) // 4
        in_trick = [s for s in range(4) if self.trick[s] >= 0]
        assert len(in_trick) == self.trick_n
        for s in range(4):
            expect = r.hand_size - sum(self.tricks) - (1 if self.trick[s] >= 0 else 0)
            assert self.hands[s].bit_count() == expect, "wrong hand size"
            if self.trick[s] >= 0:
                assert (self.played[s] >> self.trick[s]) & 1
            if self.trump >= 0:
                for es in range(4):
                    if (self.voids[s] >> es) & 1:
                        assert not self.hands[s] & FOLLOW[self.trump][es], "a void seat holds the suit"
        all_played = 0
        for m in self.played:
            all_played |= m
        assert self.eyes[0] + self.eyes[1] + self.trick_pts == sum(POINTS[c] for c in bits(all_played))
        assert (self.phase == PHASE_NAMING) == (self.trump < 0)
        if self.phase == PHASE_NAMING:
            assert n_played == 0 and self.current_player == (self.dealer + 1) & 3
        assert self.legal_actions(), "the seat to move has no legal move"

    # -- conveniences --------------------------------------------------------------------------------

    @property
    def scores(self) -> list:
        """Match points per side (seats 0/2 = side 0, seats 1/3 = side 1)."""
        return self.ledger.scores

    @property
    def multiplier(self) -> int:
        """Factor the current hand's amount is multiplied by (2 ** eggs in a row before it)."""
        return self.ledger.multiplier

    @property
    def leader(self) -> int:
        """Seat that led (or is to lead) the current trick."""
        return self.trick_leader

    def _illegal_msg(self, action) -> str:
        g = self.game
        try:
            name = g.action_to_string(self, action)
        except Exception:  # noqa: BLE001 - out of range: show the raw value
            name = repr(action)
        if self.terminal:
            return f"illegal move {name}: the match is over"
        legal = " ".join(g.action_to_string(self, a) for a in self.legal_actions())
        why = ""
        if self.phase == PHASE_NAMING:
            why = " (the trump suit must be named first)"
        elif 0 <= action < 36 and isinstance(action, int):
            if not (self.hands[self.current_player] >> action) & 1:
                why = " (not in the hand)"
            elif self.trick_n:
                why = " (you must follow suit; trumps, queens and jacks included, are one suit)"
        return f"illegal move {name} for seat {self.current_player}{why}; legal: {legal}"

    # -- hand and match flow -------------------------------------------------------------------------

    def _start_hand(self, fixed_hands=None, trump=None) -> None:
        """Deal (C2.1) and set the trump (C2.3). ``fixed_hands``: per seat a mask or None (dealt)."""
        rules = self.rules
        d = self.dealer
        hands = [0, 0, 0, 0]
        if fixed_hands is None:
            deck = bits(deck_mask(rules.deck))
            self.rng.shuffle(deck)
            pos = 0
            for size in rules.packets:  # packets of three (3, 3, 2) from the dealer's left
                for k in (1, 2, 3, 4):
                    seat = (d + k) & 3
                    for c in deck[pos:pos + size]:
                        hands[seat] |= 1 << c
                    pos += size
        else:
            rest = deck_mask(rules.deck)
            for h in fixed_hands:
                if h is not None:
                    rest &= ~h
            deck = bits(rest)
            self.rng.shuffle(deck)
            pos = 0
            hs = rules.hand_size
            for seat in range(4):
                h = fixed_hands[seat]
                if h is None:
                    for c in deck[pos:pos + hs]:
                        hands[seat] |= 1 << c
                    pos += hs
                else:
                    hands[seat] = h
        self.hands = hands
        self.played = [0, 0, 0, 0]
        self.trick = [-1, -1, -1, -1]
        self.trick_n = 0
        self.trick_pts = 0
        self.best = -1
        self.best_seat = -1
        self.led = -1
        self.voids = [0, 0, 0, 0]
        self.eyes = [0, 0]
        self.tricks = [0, 0]
        first = (d + 1) & 3
        self.trick_leader = first
        self.current_player = first
        if rules.trumps == "clubs":
            self.trump = 0
            self.phase = PHASE_PLAY
        elif trump is not None:
            self.trump = trump
            self.phase = PHASE_PLAY
        else:
            self.trump = -1
            self.phase = PHASE_NAMING
        self.events.append(("deal", -1, {"dealer": d, "trump": SUITS[self.trump] if self.trump >= 0 else None},
                            Deferred(_dealt, tuple(hands))))

    def _finish_hand(self) -> None:
        """Score the hand (C2.5) with the shared ledger, then end the match (C2.6) or deal again."""
        e0, e1 = self.eyes
        ledger = self.ledger
        mult = ledger.multiplier
        if e0 == e1:
            ledger.record_eggs()
            winner = -1
            raw = 0
            written = [0, 0]
            how = "eggs"
        else:
            winner = 0 if e0 > e1 else 1
            loser = 1 - winner
            raw = hand_value(self.eyes[winner], self.eyes[loser], self.tricks[loser])
            w = ledger.settle({winner: raw})[winner]
            written = [0, 0]
            written[winner] = w
            how = {2: "won", 4: "losers_30_or_fewer", 6: "losers_no_trick"}[raw]
        self._deal_over({
            "ended_by": "played",
            "eggs": winner < 0,
            "winners": [winner] if winner >= 0 else [],
            "losers": [1 - winner] if winner >= 0 else [],
            "written": written,
            "scores": ledger.scores[:],
            "seat_points": [written[s & 1] for s in range(4)],
            "how": how,
            "eyes": [e0, e1],
            "tricks": self.tricks[:],
            "raw": raw,
            "multiplier": mult,
            "next_multiplier": ledger.multiplier,
            "trump": SUITS[self.trump],
            "dealer": self.dealer,
        })
        at = ledger.at_target()
        if at:
            self._end_match(at[0], "target")
        elif self.single_deal:
            self._end_match(winner, "single_deal")
        else:
            self.dealer = (self.dealer + 1) & 3  # the deal passes to the left (C2.1)
            self._start_hand()

    def _end_match(self, winner_side: int, reason: str) -> None:
        """C2.6: the first side to the target wins, the other side are the goats (bare goats with 0).
        ``reason="single_deal"``: the hand's winners and losers (nobody on eggs), no goats."""
        scores = self.ledger.scores[:]
        winners = [winner_side] if winner_side >= 0 else []
        losers = [1 - winner_side] if winner_side >= 0 else []
        titles = []
        if reason == "target":
            titles.append("goats")
            if scores[1 - winner_side] == 0:
                titles.append("bare_goats")
        self.match_result = {
            "ended_by": reason,
            "winners": winners,
            "losers": losers,
            "goats": losers if reason == "target" else [],
            "titles": sorted(titles),
            "places": [1 if s in winners or not winners else 2 for s in range(2)],
            "scores": scores,
            "deals": self.deals_played,
            "returns": [1.0 if (q & 1) in winners else (-1.0 if (q & 1) in losers else 0.0) for q in range(4)],
        }
        self.terminal = True
        self.phase = PHASE_OVER
        self.current_player = -1


# ---------------------------------------------------------------------------------------------------
# Game
# ---------------------------------------------------------------------------------------------------

_OBS_PARTS = (
    Part("hand", (36,), "own hand, by card id (suit * 9 + rank; suits C D H S, ranks 6 7 8 9 T J Q K A)"),
    Part("trick", (4, 36), "current trick: the card each seat (offset from the observer) put into it"),
    Part("played", (4, 36), "cards each seat (offset) has played this hand, current trick included"),
    Part("voids", (4, 4), "seat (offset) showed out of the suit C D H S (the trump suit's row = all trumps)"),
    Part("trump", (4,), "trump suit C D H S one-hot (all zero while it is still to be named)"),
    Part("dealer", (4,), "dealer, seat offset one-hot"),
    Part("leader", (4,), "seat offset that led (or leads) the current trick, one-hot"),
    Part("eggs", (4,), "eggs in a row before this hand, 0 1 2 3+ one-hot (multiplier 1 2 4 8+)"),
    Part("naming", (1,), "1 while the trump suit is still to be named (named rule)"),
    Part("rules", (3,), "rules flags: named trumps, 32-card deck, match to 6"),
    Part("eyes", (2,), "eyes taken this hand by the observer's side and the other side, / 120"),
    Part("tricks", (2,), "tricks taken this hand by the observer's side and the other side, / 9"),
    Part("score", (2,), "match points of the observer's side and the other side, / target (capped at 1)"),
)
_N_BIN = 36 + 4 * 36 + 4 * 36 + 36  # the rows built by one unpack_masks call
_OBS_SIZE = sum(p.size for p in _OBS_PARTS)
_ORACLE_PARTS = _OBS_PARTS + (
    Part("hands", (4, 36), "every seat's hand (offset from seat 0, i.e. absolute seats)"),
    Part("to_move", (4,), "seat to act, one-hot (all zero when the match is over)"),
)


class QueensAndJacksGame(Game):
    """Static facts and tables of the queens-and-jacks engine for one :class:`QueensAndJacksRules`."""

    family = "cards"

    engine_id = "queens_and_jacks"

    num_players = 4
    num_actions = NUM_ACTIONS
    obs_spec = ObsSpec(_OBS_PARTS)
    oracle_spec = ObsSpec(_ORACLE_PARTS)

    state_class = QueensAndJacksState

    def __init__(self, rules: QueensAndJacksRules | None = None, **options):
        base = rules if rules is not None else CLASSIC
        self.rules = make_rules(base, options) if options else base
        self.name = self.rules.name
        self.ledger_rules = self.rules.ledger_rules()
        r = self.rules
        self._rules_bits = ((1 << 33) if r.trumps == "named" else 0) | ((1 << 34) if r.deck == 32 else 0) | (
            (1 << 35) if r.target == 6 else 0)
        self._inv_target = 1.0 / r.target

    # -- states --------------------------------------------------------------------------------------

    def setup_checks(self) -> dict:
        return setup_checks(self.rules)

    def new_state(self, seed: int = 0, setup: dict | None = None) -> QueensAndJacksState:
        """A fresh match. ``setup`` (validated) may hold:

        * ``hands``: 4 entries, each a card string (``"QC TS 7H ..."``) or None (dealt at random from the
          rest); fixes the first hand's cards;
        * ``dealer`` (0..3) or ``leader`` (0..3, the seat left of the dealer); default: drawn from the Rng;
        * ``trump``: ``"C" "D" "H" "S"`` (or a suit name): the first hand's trump (named rule: skips the
          naming; clubs rule: only ``"C"``);
        * ``scores``: ``[side0, side1]`` match points so far, each below the target;
        * ``eggs``: eggs in a row before the first hand (its multiplier is ``2 ** eggs``);
        * ``single_deal``: end the episode after the first hand.
        """
        r = self.rules
        setup = check_setup(setup_checks(r), setup, r.name, QueensAndJacksState.SETUP_KEYS)
        st = QueensAndJacksState.__new__(QueensAndJacksState)
        st.game = self
        st.rules = r
        st.rng = Rng(seed)
        st.events = []
        st.results = ()
        st.ledger = Ledger(self.ledger_rules, scores=setup.get("scores", [0, 0]),
                           eggs_streak=setup.get("eggs", 0))
        st.single_deal = setup.get("single_deal", False)
        dealer = setup.get("dealer")
        leader = setup.get("leader")
        if dealer is not None and leader is not None and (dealer + 1) & 3 != leader:
            raise InvalidOptionError(f"leader must be the seat left of the dealer ({(dealer + 1) & 3}), got {leader}")
        if dealer is None:
            dealer = (leader - 1) & 3 if leader is not None else st.rng.below(4)
        st.dealer = dealer
        trump = setup.get("trump")
        if trump is not None:
            trump = self._parse_suit(trump)
            if r.trumps == "clubs" and trump != 0:
                raise InvalidOptionError("with trumps='clubs' the trump suit is always clubs")
        fixed = None
        if "hands" in setup:
            fixed = self._parse_hands(setup["hands"])
        st.terminal = False
        st.deals_played = 0
        st.last_result = None
        st.match_result = None
        st._start_hand(fixed, trump)
        return st

    def _parse_hands(self, hands) -> list:
        r = self.rules
        if not isinstance(hands, (list, tuple)) or len(hands) != 4:
            raise InvalidOptionError("hands must be a list of 4 entries (card string or None per seat)")
        deck = deck_mask(r.deck)
        out = []
        seen = 0
        for seat, h in enumerate(hands):
            if h is None:
                out.append(None)
                continue
            try:
                m = 0
                for tok in str(h).replace(",", " ").split():
                    c = parse_card(tok)
                    if m >> c & 1:
                        raise KozelError(f"card {tok} given twice")
                    m |= 1 << c
            except KozelError as e:
                raise InvalidOptionError(f"hands[{seat}]: {e}") from None
            if m & ~deck:
                raise InvalidOptionError(f"hands[{seat}]: {self._cards(m & ~deck)} not in the {r.deck}-card deck")
            if m & seen:
                raise InvalidOptionError(f"hands[{seat}]: {self._cards(m & seen)} already in another hand")
            if m.bit_count() != r.hand_size:
                raise InvalidOptionError(f"hands[{seat}] must hold {r.hand_size} cards, got {m.bit_count()}")
            seen |= m
            out.append(m)
        return out

    @staticmethod
    def _cards(m: int) -> str:
        return " ".join(card_str(c) for c in bits(m))

    @staticmethod
    def _parse_suit(v):
        if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 3:
            return v
        if isinstance(v, str):
            t = v.strip().lower()
            for i, (letter, name) in enumerate(zip(SUITS, SUIT_NAMES)):
                if t in (letter.lower(), name):
                    return i
        return None

    # -- observations --------------------------------------------------------------------------------

    def observe(self, state: QueensAndJacksState, player: int) -> np.ndarray:
        """The parts of :attr:`obs_spec`: the ten 36-bit rows (hand, trick x4, played x4, the flags row)
        are packed into one int and unpacked by numpy in one go, then the six scalars are written."""
        st = state
        r = player
        a, b, c, d = _ROT[r]
        trick = st.trick
        played = st.played
        voids = st.voids
        t = st.trump
        streak = st.ledger.eggs_streak
        ta, tb, tc, td = trick[a], trick[b], trick[c], trick[d]
        big = (st.hands[r]
               | (_BIT[ta] << 36 if ta >= 0 else 0) | (_BIT[tb] << 72 if tb >= 0 else 0)
               | (_BIT[tc] << 108 if tc >= 0 else 0) | (_BIT[td] << 144 if td >= 0 else 0)
               | played[a] << 180 | played[b] << 216 | played[c] << 252 | played[d] << 288
               | (voids[a] | voids[b] << 4 | voids[c] << 8 | voids[d] << 12
                  | ((1 << (16 + t)) if t >= 0 else 0)
                  | 1 << (20 + ((st.dealer - r) & 3))
                  | 1 << (24 + ((st.trick_leader - r) & 3))
                  | 1 << (28 + (streak if streak < 3 else 3))
                  | ((1 << 32) if st.phase == PHASE_NAMING else 0)
                  | self._rules_bits) << 324)
        out = np.empty(_OBS_SIZE, np.float32)
        out[:_N_BIN] = np.unpackbits(np.frombuffer(big.to_bytes(45, "little"), np.uint8), bitorder="little")
        s = r & 1
        eyes, tricks, scores = st.eyes, st.tricks, st.ledger.scores
        it = self._inv_target
        out[_N_BIN:] = (eyes[s] / 120.0, eyes[1 - s] / 120.0, tricks[s] / 9.0, tricks[1 - s] / 9.0,
                        min(scores[s] * it, 1.0), min(scores[1 - s] * it, 1.0))
        return out

    def oracle(self, state: QueensAndJacksState) -> np.ndarray:
        st = state
        out = np.empty(self.oracle_spec.size, np.float32)
        n = self.obs_spec.size
        out[:n] = self.observe(st, 0)
        cp = st.current_player
        rows = st.hands[:] + [(1 << cp) if cp >= 0 else 0]
        out[n:] = unpack_masks(rows, 36).ravel()[:4 * 36 + 4]
        return out

    # -- notation ------------------------------------------------------------------------------------

    def action_to_string(self, state, action: int) -> str:
        if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
            a = int(action)
            if 0 <= a < 36:
                return card_str(a)
            if 36 <= a < 40:
                return "trump:" + SUITS[a - 36]
        raise IllegalActionError(f"action {action!r} is out of range 0..{NUM_ACTIONS - 1}")

    def string_to_action(self, state: QueensAndJacksState, text: str) -> int:
        legal = state.legal_actions()
        a = None
        if isinstance(text, str):
            t = text.strip()
            if t.lower().startswith("trump"):
                suit = self._parse_suit(t[5:].lstrip(":= ").strip())
                if suit is not None:
                    a = 36 + suit
            else:
                try:
                    a = parse_card(t)
                except KozelError:
                    a = None
        if a is None or a not in legal:
            names = " ".join(self.action_to_string(state, x) for x in legal)
            why = "not a move (cards like 'QC', 'TS'; naming like 'trump:H')" if a is None else "not legal now"
            if state.terminal:
                why = "the match is over"
            raise IllegalActionError(f"move {text!r}: {why}; legal moves: {names}")
        return a

    # -- text view -----------------------------------------------------------------------------------

    def render(self, state: QueensAndJacksState, viewer: int | None = None) -> str:
        st = state
        mult = st.ledger.multiplier
        tr = SUIT_NAMES[st.trump] if st.trump >= 0 else "to be named"
        sc = st.ledger.scores
        lines = [
            f"{self.name} · deal {st.deals_played + 1} · dealer player_{st.dealer} · trump {tr}"
            + (f" · x{mult}" if mult > 1 else ""),
            f"match to {self.rules.target}: pair 0+2: {sc[0]} | pair 1+3: {sc[1]}",
            f"this hand: pair 0+2: {st.eyes[0]} eyes, {st.tricks[0]} tricks | "
            f"pair 1+3: {st.eyes[1]} eyes, {st.tricks[1]} tricks",
        ]
        t = st.trump
        for s in range(4):
            mark = "*" if s == st.current_player else " "
            if viewer is None or viewer == s:
                h = self._hand_str(st.hands[s], t)
            else:
                h = "?? " * st.hands[s].bit_count()
            tc = card_str(st.trick[s]) if st.trick[s] >= 0 else "--"
            void = ""
            if st.voids[s] and t >= 0:
                void = "  void: " + ",".join("trumps" if es == t else SUIT_NAMES[es]
                                             for es in range(4) if st.voids[s] >> es & 1)
            lines.append(f"{mark}player_{s}: trick {tc}  hand {h.strip():<30} played: "
                         f"{self._cards(st.played[s])}{void}")
        if st.terminal:
            mr = st.match_result
            who = " ".join(f"pair {s}+{s + 2}" for s in mr["winners"]) or "nobody"
            lines.append(f"over ({mr['ended_by']}): winners {who}; scores {mr['scores']}"
                         + (f"; {' '.join(mr['titles'])}" if mr["titles"] else ""))
        elif viewer is None or viewer == st.current_player:
            lines.append(f"legal: {' '.join(self.legal_strings(st))}")
        return "\n".join(lines)

    @staticmethod
    def _hand_str(h: int, t: int) -> str:
        if t < 0:
            return " ".join(card_str(c) for c in bits(h))
        tr = [c for c in bits(h & TRUMP_MASK[t])]
        tr.sort(key=lambda c: -STRENGTH[c])
        rest = [c for c in bits(h & ~TRUMP_MASK[t])]
        rest.sort(key=lambda c: (SUIT_OF[c], -STRENGTH[c]))
        parts = [" ".join(card_str(c) for c in tr)] if tr else []
        parts += [" ".join(card_str(c) for c in rest)] if rest else []
        return " | ".join(parts)

    # -- determinization -----------------------------------------------------------------------------

    def sample_consistent(self, state: QueensAndJacksState, player: int, rng) -> QueensAndJacksState:
        """Re-deal the other three hands uniformly among all deals consistent with what ``player`` saw:
        own hand, every played card, hand sizes and the voids shown (trumps one suit). The future deals'
        Rng is re-seeded from ``rng`` (an :class:`Rng`, an int seed, a numpy Generator or random.Random).
        """
        st = state
        r = _as_rng(rng)
        new = st.clone()
        new.rng = Rng(r.next_u64())
        if st.terminal:
            return new
        others = [s for s in range(4) if s != player]
        unknown = 0
        for s in others:
            unknown |= st.hands[s]
        t = st.trump
        # group the unknown cards by effective suit; a group may go only to the seats not void in it
        if t < 0:  # trump still to be named: nothing has been played
            groups = [(bits(unknown), (0, 1, 2))]
        else:
            groups = []
            for es in range(4):
                cards = bits(unknown & FOLLOW[t][es])
                if cards:
                    allowed = tuple(i for i, s in enumerate(others) if not (st.voids[s] >> es) & 1)
                    groups.append((cards, allowed))
        caps = tuple(st.hands[s].bit_count() for s in others)
        counts = _sample_counts(groups, caps, r)
        hands = [0, 0, 0]
        for (cards, _allowed), ks in zip(groups, counts):
            cards = cards[:]
            r.shuffle(cards)
            pos = 0
            for i in range(3):
                for c in cards[pos:pos + ks[i]]:
                    hands[i] |= 1 << c
                pos += ks[i]
        for i, s in enumerate(others):
            new.hands[s] = hands[i]
        return new


def _dealt(hands: tuple) -> dict:
    """The private part of a deal event: the hands as dealt."""
    return {"hands": [" ".join(card_str(c) for c in bits(x)) for x in hands]}


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


def _compositions(n: int, allowed: tuple, caps: tuple):
    """Ways to split ``n`` cards among the 3 seats: only ``allowed`` seats, each within its capacity."""
    out = []
    a0 = 0 in allowed
    a1 = 1 in allowed
    a2 = 2 in allowed
    for k0 in range(min(n, caps[0]) + 1 if a0 else 1):
        for k1 in range(min(n - k0, caps[1]) + 1 if a1 else 1):
            k2 = n - k0 - k1
            if k2 and not a2:
                continue
            if k2 <= caps[2]:
                out.append((k0, k1, k2))
    return out


def _sample_counts(groups, caps, rng: Rng) -> list:
    """Uniform over deals: choose how many cards of each group go to each seat with probability
    proportional to the number of deals with those counts (product of multinomials), exactly (big ints)."""
    from math import comb

    memo = {}
    ng = len(groups)

    def ways(i, cap):
        if i == ng:
            return 1 if cap == (0, 0, 0) else 0
        key = (i, cap)
        if key in memo:
            return memo[key]
        n = len(groups[i][0])
        total = 0
        for ks in _compositions(n, groups[i][1], cap):
            rest = (cap[0] - ks[0], cap[1] - ks[1], cap[2] - ks[2])
            w = ways(i + 1, rest)
            if w:
                total += comb(n, ks[0]) * comb(n - ks[0], ks[1]) * w
        memo[key] = total
        return total

    if ways(0, caps) == 0:
        raise KozelError("no deal is consistent with the observation (corrupt state)")
    out = []
    cap = caps
    for i in range(ng):
        n = len(groups[i][0])
        options = []
        for ks in _compositions(n, groups[i][1], cap):
            rest = (cap[0] - ks[0], cap[1] - ks[1], cap[2] - ks[2])
            w = ways(i + 1, rest)
            if w:
                options.append((comb(n, ks[0]) * comb(n - ks[0], ks[1]) * w, ks, rest))
        total = sum(o[0] for o in options)
        x = _big_below(rng, total)
        for w, ks, rest in options:
            if x < w:
                out.append(ks)
                cap = rest
                break
            x -= w
    return out


def _big_below(rng: Rng, n: int) -> int:
    """Uniform int in [0, n) for a possibly big ``n`` (rejection on 64-bit limbs)."""
    nbits = n.bit_length()
    limbs = (nbits + 63) // 64
    while True:
        x = 0
        for _ in range(limbs):
            x = (x << 64) | rng.next_u64()
        x >>= limbs * 64 - nbits
        if x < n:
            return x

