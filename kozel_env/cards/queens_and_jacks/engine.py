"""The state of a ``queens_and_jacks_v0`` match and its moves (seed 003, RULES C2): legal moves, playing a
card or naming the trump suit, the deal, scoring a hand and ending the match.

Rules sources: "seed" is ``seeds/003_b4ccc5198f358dfb.txt``, "C2.n" is RULES.md; the package docstring
(:mod:`kozel_env.cards.queens_and_jacks`) lists them all. The state holds no reference to its Game: what it
needs is its rules config (``rules``) and the module tables of :mod:`.tables`.
"""
from __future__ import annotations

from ...core.bits import bits
from ...core.game import Deferred, State
from ..deck import POINTS, SUITS, card_str, deck_mask, points
from .rules import SETUP_KEYS
from .tables import CARD_BIT, CARDS_OF_SUIT_BITS, EFF, FOLLOW, NAME_ACTIONS, NAME_BASE, NAME_MASK, STRENGTH

PHASE_NAMING, PHASE_PLAY, PHASE_OVER = 0, 1, 2
"""``state.phase``: the trump suit is to be named (named rule, C2.3), cards are played, the match is over."""

_C0, _C1, _C2, _C3 = CARDS_OF_SUIT_BITS
_NAME_LIST = list(NAME_ACTIONS)


def hand_value(winner_eyes: int, loser_eyes: int, loser_tricks: int) -> int:
    """Points the hand's winners write before eggs (C2.5): 6 (losers took no trick), 4 (losers took 30
    eyes or fewer), else 2."""
    if loser_tricks == 0:
        return 6
    if loser_eyes <= 30:
        return 4
    return 2


class QueensAndJacksState(State):
    """One match. Cards are ids of :mod:`kozel_env.cards.deck`; hands and played sets are int masks; a side
    is ``seat % 2`` (seats 0+2 against 1+3); an effective suit is a suit index 0..3, all trumps counting as
    the trump suit's index (C2.4).

    Fields:

    ==================  =========================================================================================
    ``rules``           the :class:`~.rules.QueensAndJacksRules` config
    ``rng``             the :class:`~kozel_env.core.rng.Rng` the deals are drawn from
    ``ledger``          the shared :class:`~kozel_env.core.ledger.Ledger`: match points per side, eggs streak
    ``hands``           per seat, the mask of the cards it holds
    ``played``          per seat, the mask of the cards it played this hand (current trick included)
    ``trick``           per seat, the card it put into the current trick (-1: none yet)
    ``cards_in_trick``  how many cards lie in the current trick (0..3; the fourth completes it)
    ``trick_leader``    the seat that led (or is to lead) the current trick
    ``trick_eyes``      eyes (card points) of the cards in the current trick
    ``winning_card``    the card winning the current trick so far (between tricks: the last trick's; -1 before
                        the hand's first lead)
    ``winning_seat``    the seat that played ``winning_card``
    ``led_suit``        the effective suit led in the current trick (between tricks: the last one's; -1 before
                        the hand's first lead)
    ``voids``           per seat, a 4-bit mask of the effective suits it showed it does not hold this hand (C2.4)
    ``eyes``            per side, eyes taken in the finished tricks of this hand
    ``tricks``          per side, tricks taken this hand
    ``trump``           the trump suit 0..3 (C D H S), -1 while it is to be named (C2.3)
    ``dealer``          the dealer of this hand (the player on its left leads, C2.1)
    ``phase``           ``PHASE_NAMING``, ``PHASE_PLAY`` or ``PHASE_OVER``
    ``single_deal``     the episode ends after the first hand
    ==================  =========================================================================================

    and those of the :class:`~kozel_env.core.game.State` contract: ``current_player``, ``terminal``,
    ``deals_played``, ``results``, ``last_result``, ``match_result``, ``events``.
    """

    __slots__ = (
        "rules", "rng", "ledger", "hands", "played", "trick", "cards_in_trick", "trick_leader", "trick_eyes",
        "winning_card", "winning_seat", "led_suit", "voids", "eyes", "tricks", "trump", "dealer", "phase",
        "current_player", "terminal", "deals_played", "last_result", "match_result", "single_deal", "results",
        "events",
    )

    SETUP_KEYS = SETUP_KEYS
    """Keys of ``new_state``'s ``setup`` (see :meth:`QueensAndJacksGame.new_state`)."""

    # -- the State contract ------------------------------------------------------------------------

    def legal_mask(self) -> int:
        """Bitmask over action ids of the legal actions (0 when terminal): follow the led effective suit if
        possible, else any card (C2.4)."""
        ph = self.phase
        if ph == PHASE_PLAY:
            hand = self.hands[self.current_player]
            if self.cards_in_trick:
                f = hand & FOLLOW[self.trump][self.led_suit]
                return f if f else hand
            return hand
        if ph == PHASE_NAMING:
            return NAME_MASK
        return 0

    def legal_actions(self) -> list:
        ph = self.phase
        if ph == PHASE_PLAY:
            m = self.hands[self.current_player]
            if self.cards_in_trick:
                f = m & FOLLOW[self.trump][self.led_suit]
                if f:
                    m = f
            return [*_C0[m & 511], *_C1[(m >> 9) & 511], *_C2[(m >> 18) & 511], *_C3[(m >> 27) & 511]]
        if ph == PHASE_NAMING:
            return _NAME_LIST[:]
        return []

    def apply_action(self, action: int) -> None:
        """Name the trump suit (C2.3) or play a card (C2.4). Precondition: ``action`` is legal (checked once
        by :meth:`~kozel_env.core.game.Game.check_action`)."""
        p = self.current_player
        self.events = []
        if self.phase != PHASE_PLAY:  # naming (C2.3): the namer then leads
            self.trump = action - NAME_BASE
            self.phase = PHASE_PLAY
            return
        bit = CARD_BIT[action]
        hands = self.hands
        hand = hands[p]
        t = self.trump
        n = self.cards_in_trick
        if n:
            led = self.led_suit
            if hand & FOLLOW[t][led]:
                # followed: beats the winning card iff it is stronger in the same effective suit (a plain
                # follower on a trumped trick never beats)
                b = self.winning_card
                if EFF[t][b] == led and STRENGTH[action] > STRENGTH[b]:
                    self.winning_card = action
                    self.winning_seat = p
            else:
                self.voids[p] |= 1 << led  # showed out of the led suit (C2.4)
                if EFF[t][action] == t:  # a trump beats a plain winning card or a lower trump
                    b = self.winning_card
                    if EFF[t][b] != t or STRENGTH[action] > STRENGTH[b]:
                        self.winning_card = action
                        self.winning_seat = p
        else:
            self.led_suit = EFF[t][action]
            self.winning_card = action
            self.winning_seat = p
            self.trick_leader = p
        hands[p] = hand ^ bit
        self.played[p] |= bit
        self.trick[p] = action
        self.trick_eyes += POINTS[action]
        n += 1
        if n < 4:
            self.cards_in_trick = n
            self.current_player = (p + 1) & 3
            return
        # trick complete (C2.4): the winner takes it and leads next
        w = self.winning_seat
        side = w & 1
        self.eyes[side] += self.trick_eyes
        self.tricks[side] += 1
        self.trick_eyes = 0
        self.cards_in_trick = 0
        self.trick = [-1, -1, -1, -1]
        self.trick_leader = w
        self.current_player = w
        if hands[w] == 0:  # everybody is out of cards: the hand is over
            self._finish_hand()

    def clone(self) -> QueensAndJacksState:
        c = QueensAndJacksState.__new__(QueensAndJacksState)
        c.rules = self.rules
        c.rng = self.rng.clone()
        c.ledger = self.ledger.clone()
        c.hands = self.hands[:]
        c.played = self.played[:]
        c.trick = self.trick[:]
        c.cards_in_trick = self.cards_in_trick
        c.trick_leader = self.trick_leader
        c.trick_eyes = self.trick_eyes
        c.winning_card = self.winning_card
        c.winning_seat = self.winning_seat
        c.led_suit = self.led_suit
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
        n = self.cards_in_trick
        assert (n_played - n) % 4 == 0 and 0 <= n < 4
        assert sum(self.tricks) == (n_played - n) // 4
        in_trick = [s for s in range(4) if self.trick[s] >= 0]
        assert len(in_trick) == n
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
        assert self.eyes[0] + self.eyes[1] + self.trick_eyes == points(all_played)
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

    # -- hand and match flow -------------------------------------------------------------------------

    def start_hand(self, fixed_hands=None, trump=None) -> None:
        """Deal (C2.1) and set the trump (C2.3). ``fixed_hands``: per seat a mask or None (dealt from the
        rest); ``trump``: the suit index fixed by the set-up (None: clubs, or to be named)."""
        rules = self.rules
        d = self.dealer
        self.hands = hands = _deal(self.rng, rules, d, fixed_hands)
        self.played = [0, 0, 0, 0]
        self.trick = [-1, -1, -1, -1]
        self.cards_in_trick = 0
        self.trick_eyes = 0
        self.winning_card = -1
        self.winning_seat = -1
        self.led_suit = -1
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
        written = [0, 0]
        if e0 == e1:
            ledger.record_eggs()
            winner = -1
            raw = 0
            how = "eggs"
        else:
            winner = 0 if e0 > e1 else 1
            loser = 1 - winner
            raw = hand_value(self.eyes[winner], self.eyes[loser], self.tricks[loser])
            written[winner] = ledger.settle({winner: raw})[winner]
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
            self.start_hand()

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


def _deal(rng, rules, dealer: int, fixed_hands) -> list:
    """The four hands of a new deal (C2.1): the shuffled deck in packets (3, 3, 3 or 3, 3, 2) from the
    dealer's left; with ``fixed_hands`` (per seat a mask or None), the rest of the deck, shuffled, fills
    the seats given None in seat order."""
    hands = [0, 0, 0, 0]
    if fixed_hands is None:
        deck = bits(deck_mask(rules.deck))
        rng.shuffle(deck)
        pos = 0
        for size in rules.packets:
            for k in (1, 2, 3, 4):
                seat = (dealer + k) & 3
                for c in deck[pos:pos + size]:
                    hands[seat] |= 1 << c
                pos += size
        return hands
    rest = deck_mask(rules.deck)
    for h in fixed_hands:
        if h is not None:
            rest &= ~h
    deck = bits(rest)
    rng.shuffle(deck)
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
    return hands


def _dealt(hands: tuple) -> dict:
    """The private part of a deal event: the hands as dealt."""
    return {"hands": [" ".join(card_str(c) for c in bits(x)) for x in hands]}
