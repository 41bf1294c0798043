"""The state of card Kozel with the six of spades (seed 004, RULES C3): fields, moves and the deal flow.

The rules themselves are told in the package docstring (:mod:`kozel_env.cards.six_of_spades`); every
method cites its item. Scoring a finished deal and the match end are :mod:`.scoring`; building a chosen
position from reset options is :mod:`.setup`; the observation, notation and rendering are :mod:`.game`.
"""
from __future__ import annotations

from ...core.bits import bits, mask_of
from ...core.game import Deferred, State
from ..deck import FULL_DECK, NUM_CARDS, SUIT_OF, card_str, cards_str
from .rules import SETUP_KEYS
from .scoring import deal_penalties, end_deal
from .tables import (
    A_BEAT,
    A_DOWN,
    A_LEAD,
    A_MOSKVA,
    A_PASS,
    BEATEN_BY,
    HAND,
    KIND_NAMES,
    MOLODKA,
    MOSKVA,
    PH_ANSWER,
    PH_CALL,
    PH_LEAD,
    PH_OVER,
    SIX_BIT,
    call_kind,
    covers_sorted,
    hardest_first,
    is_lead,
    lead_sets,
    next_cards,
    subsets_of_size,
)


class SixOfSpadesState(State):
    """One match. Hands, taken and played sets are bitmasks over card ids (:mod:`kozel_env.cards.deck`);
    seats are absolute; per-side lists are indexed by ``rules.side_of(seat)``. The fields, besides the
    contract's ``current_player``, ``terminal``, ``deals_played``, ``results``, ``last_result``,
    ``match_result``, ``events`` and ``single_deal`` (name: meaning):

    Match

    * ``rules``: the frozen :class:`~.rules.SixOfSpadesRules`
    * ``rng``: the state's :class:`~kozel_env.core.rng.Rng` (the deals, the first dealer)
    * ``ledger``: penalty points per side (:class:`~kozel_env.core.ledger.Ledger`)
    * ``in_match``: per side, still in the match (C3.7)
    * ``out_after_deal``: per side, the deal after which it went out (-1 still in, 0 out from the set-up)
    * ``dealer``: the dealer of the current deal (the deal passes left, C3.1)

    Deal

    * ``seats_in_deal``: the seats playing this deal (their side still in), increasing
    * ``hands``: per seat, the cards held (chosen-but-unconfirmed cards included)
    * ``stock``: card ids, drawn from the end; ``stock[0]`` is the face-up trump card while it lies there
    * ``trump_card``, ``trump_suit``: the card turned up under the stock and its suit (C3.1)
    * ``trump_drawn_by``: the seat that drew the trump card, -1 while it lies under the stock
    * ``down_after_trump``: the face-down cards the trump card's drawer laid after drawing it
    * ``taken``: per side, every card it took this deal (face-down ones too)
    * ``taken_face_up``: per side, the cards among ``taken`` that were laid face up
    * ``tricks``: per side, rounds taken this deal
    * ``laid_down``: per seat, every card it laid face down this deal
    * ``last_taker``: the seat that took the last round (-1 none yet)
    * ``lone_taker``: the seat that took its own remaining cards as the last trick (-1 none)

    Round

    * ``phase``: ``PH_CALL``, ``PH_LEAD``, ``PH_ANSWER`` or ``PH_OVER``
    * ``scheduled_leader``: who leads this round unless a call takes the lead (C3.3, C3.5)
    * ``leader``: who leads (or led) this round: the scheduled leader, or the caller
    * ``lead_cap``: the most cards a lead may hold, the smallest hand among the holders (C3.4)
    * ``lead``, ``lead_size``: the cards led this round and how many (0 before the lead)
    * ``lead_call``: 0 a plain lead; ``1 + MOSKVA`` / ``1 + MOLODKA``: the lead is that call (C3.5)
    * ``top_cards``, ``top_seat``: the cards on top now (the lead, or the last answer that beat) and
      whose they are (-1 before the lead)
    * ``top_hardest_first``: ``top_cards`` in the order the matching search tries them (:func:`~.tables.hardest_first`)
    * ``round_up``, ``round_down``: per seat, the cards it laid this round face up / face down
    * ``answer_order``, ``answer_index``: the seats answering this round, in turn clockwise from the
      leader, and how many of them have answered
    * ``call_order``, ``call_index``: the seats asked for a call before this lead, in turn (empty: no
      question), and how many have been asked
    * ``calls_made``: ``((seat, kind), ...)`` the calls made before this lead; the last one stands
    * ``selected``: the cards the seat to move has chosen for the set being built
    * ``legal_sets``: the legal sets (masks) of the lead or answer being built
    * ``beating_sets``: the answers among the legal ones that beat the top cards
    * ``legal_mask``: the legal actions now, a bitmask over action ids
    """

    SETUP_KEYS = SETUP_KEYS

    __slots__ = (
        "rules", "rng", "ledger", "in_match", "out_after_deal", "dealer", "deals_played", "terminal",
        "current_player", "last_result", "match_result", "single_deal", "results", "events",
        # deal
        "seats_in_deal", "hands", "stock", "trump_card", "trump_suit", "trump_drawn_by", "down_after_trump",
        "taken", "taken_face_up", "tricks", "laid_down", "last_taker", "lone_taker",
        # round
        "phase", "scheduled_leader", "leader", "lead_cap", "lead", "lead_size", "lead_call", "top_cards",
        "top_hardest_first", "top_seat", "round_up", "round_down", "answer_order", "answer_index", "call_order",
        "call_index", "calls_made", "selected", "legal_sets", "beating_sets", "legal_mask",
    )

    # ------------------------------------------------------------------ contract
    def legal_actions(self) -> list:
        return bits(self.legal_mask)

    def apply_action(self, action: int) -> None:
        """Apply a legal action (precondition; :meth:`~kozel_env.core.game.Game.check_action` checks it)."""
        self.events = []
        self._do(int(action))
        self.settle()

    def clone(self) -> SixOfSpadesState:
        c = SixOfSpadesState.__new__(SixOfSpadesState)
        c.rules = self.rules
        c.rng = self.rng.clone()
        c.ledger = self.ledger.clone()
        c.in_match = self.in_match[:]
        c.out_after_deal = self.out_after_deal[:]
        c.dealer = self.dealer
        c.deals_played = self.deals_played
        c.terminal = self.terminal
        c.current_player = self.current_player
        c.last_result = self.last_result
        c.match_result = self.match_result
        c.results = self.results
        c.events = []
        c.single_deal = self.single_deal
        c.seats_in_deal = self.seats_in_deal
        c.hands = self.hands[:]
        c.stock = self.stock[:]
        c.trump_card = self.trump_card
        c.trump_suit = self.trump_suit
        c.trump_drawn_by = self.trump_drawn_by
        c.down_after_trump = self.down_after_trump
        c.taken = self.taken[:]
        c.taken_face_up = self.taken_face_up[:]
        c.tricks = self.tricks[:]
        c.laid_down = self.laid_down[:]
        c.last_taker = self.last_taker
        c.lone_taker = self.lone_taker
        c.phase = self.phase
        c.scheduled_leader = self.scheduled_leader
        c.leader = self.leader
        c.lead_cap = self.lead_cap
        c.lead = self.lead
        c.lead_size = self.lead_size
        c.lead_call = self.lead_call
        c.top_cards = self.top_cards
        c.top_hardest_first = self.top_hardest_first
        c.top_seat = self.top_seat
        c.round_up = self.round_up[:]
        c.round_down = self.round_down[:]
        c.answer_order = self.answer_order
        c.answer_index = self.answer_index
        c.call_order = self.call_order
        c.call_index = self.call_index
        c.calls_made = self.calls_made
        c.selected = self.selected
        c.legal_sets = self.legal_sets
        c.beating_sets = self.beating_sets
        c.legal_mask = self.legal_mask
        return c

    # ------------------------------------------------------------------ conveniences
    @property
    def scores(self) -> list:
        """Penalty points per side (the shared ledger)."""
        return self.ledger.scores

    def side_of(self, seat: int) -> int:
        return self.rules.side_of(seat)

    def deal_penalties(self) -> tuple:
        """C3.6 for the cards taken so far: (points per side, penalty per side; sides not in the deal 0)."""
        return deal_penalties(self)

    # ------------------------------------------------------------------ decisions
    def compute_legal(self) -> int:
        """The legal actions now, as a bitmask (what ``legal_mask`` holds once settled)."""
        ph = self.phase
        if ph == PH_ANSWER:
            t = self.selected
            if t.bit_count() < self.lead_size:
                return next_cards(self.legal_sets, t)
            if t in self.beating_sets:
                return (1 << A_BEAT) | ((1 << A_DOWN) if self.rules.may_decline_beat else 0)
            return 1 << A_DOWN
        if ph == PH_LEAD:
            t = self.selected
            return next_cards(self.legal_sets, t) | ((1 << A_LEAD) if t else 0)
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

    def settle(self) -> None:
        """Take every forced step, so that the seat to move has a real choice (or the match is over) --
        except a call question, which every holder gets even when it can only pass (no leak)."""
        while True:
            legal = self.compute_legal()
            if legal & (legal - 1) or not legal or self.phase == PH_CALL:
                self.legal_mask = legal
                return
            self._do(legal.bit_length() - 1)

    def _do(self, a: int) -> None:
        p = self.current_player
        if a < NUM_CARDS:
            self.selected |= 1 << a
        elif a == A_LEAD:
            self._lay_lead(p, self.selected, 0)
        elif a == A_BEAT or a == A_DOWN:
            self._lay_answer(p, self.selected, a == A_BEAT)
        elif a == A_PASS:
            self.events.append(("pass", p, None, None))
            self.call_index += 1
            self._next_offer()
        else:  # a call (C3.5): it stands unless a later seat beats it
            kind = a - A_MOSKVA
            self.calls_made = self.calls_made + ((p, kind),)
            self.events.append(("call", p, KIND_NAMES[kind], None))
            self.call_index += 1
            self._next_offer()

    # ------------------------------------------------------------------ deal flow
    def clockwise_from(self, seat: int) -> list:
        """The seats in the deal, clockwise starting at ``seat`` (a seat in the deal)."""
        seats = self.seats_in_deal
        i = 0
        while seats[i] != seat:
            i += 1
        return list(seats[i:] + seats[:i])

    def next_in_deal(self, seat: int) -> int:
        """The next seat clockwise after ``seat`` whose side is still in the match."""
        n = self.rules.num_players
        s = (seat + 1) % n
        while not self.in_match[self.rules.side_of(s)]:
            s = (s + 1) % n
        return s

    def reset_deal_fields(self) -> None:
        """Empty deal and round fields for a new deal (hands and stock still to be dealt)."""
        r = self.rules
        n, ns = r.num_players, r.num_sides
        self.seats_in_deal = tuple(s for s in range(n) if self.in_match[r.side_of(s)])
        self.hands = [0] * n
        self.taken = [0] * ns
        self.taken_face_up = [0] * ns
        self.tricks = [0] * ns
        self.laid_down = [0] * n
        self.round_up = [0] * n
        self.round_down = [0] * n
        self.trump_drawn_by = -1
        self.down_after_trump = 0
        self.last_taker = -1
        self.lone_taker = -1
        self.phase = PH_LEAD
        self.scheduled_leader = self.leader = -1
        self.lead_cap = HAND
        self.lead = self.top_cards = self.lead_size = self.lead_call = self.selected = 0
        self.top_hardest_first = self.answer_order = self.call_order = self.legal_sets = self.beating_sets = ()
        self.calls_made = ()
        self.top_seat = -1
        self.answer_index = self.call_index = 0

    def start_deal(self) -> None:
        """Seed 1-2 / C3.1: four each from the dealer's left, the next card face up under the stock."""
        self.reset_deal_fields()
        deck = list(range(NUM_CARDS))
        self.rng.shuffle(deck)
        i = 0
        for s in self.clockwise_from(self.next_in_deal(self.dealer)):
            m = 0
            for c in deck[i:i + HAND]:
                m |= 1 << c
            self.hands[s] = m
            i += HAND
        self.trump_card = deck[i]
        self.trump_suit = SUIT_OF[deck[i]]
        rest = deck[i + 1:]
        self.stock = [deck[i]] + rest  # drawn from the end: the trump card last
        self.deal_event()
        self.start_round(self.next_in_deal(self.dealer))

    def deal_event(self) -> None:
        self.events.append(("deal", -1, {"dealer": self.dealer, "trump_card": card_str(self.trump_card)},
                            Deferred(_dealt, tuple(self.hands), tuple(self.stock))))

    def _refill(self, taker: int) -> None:
        """C3.4: back to four, the taker first, then clockwise; the trump card (``stock[0]``) comes last."""
        stock = self.stock
        if not stock:
            return
        hands = self.hands
        order = self.clockwise_from(taker)
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
            self.trump_drawn_by = s
        self.events.append(("draw", s, card_str(c) if c == self.trump_card else None, card_str(c)))

    def start_round(self, scheduled: int) -> None:
        """A round led by ``scheduled`` (or the next holder after it), a call question first when calls are
        offered and every holder holds four (C3.3-C3.5); the deal ends when at most one seat holds cards."""
        r = self.rules
        hands = self.hands
        holders = [s for s in self.clockwise_from(scheduled) if hands[s]]
        self.phase = PH_LEAD
        self.lead = self.top_cards = 0
        self.lead_size = 0
        self.lead_call = 0
        self.top_hardest_first = ()
        self.top_seat = -1
        self.answer_order = ()
        self.answer_index = 0
        self.call_order = ()
        self.call_index = 0
        self.calls_made = ()
        self.selected = 0
        self.beating_sets = ()
        if len(holders) <= 1:
            if holders:  # a lone holder takes their own cards (silent rule, see the package docstring)
                lone = holders[0]
                side = r.side_of(lone)
                m = hands[lone]
                hands[lone] = 0
                self.taken[side] |= m
                self.taken_face_up[side] |= m
                self.tricks[side] += 1
                self.last_taker = self.lone_taker = lone
                self.events.append(("trick", lone, cards_str(m), None))
            end_deal(self)
            return
        leader = holders[0]
        self.scheduled_leader = self.leader = leader
        cap = HAND
        for s in holders:
            h = hands[s].bit_count()
            if h < cap:
                cap = h
        self.lead_cap = cap
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
            self.call_order = tuple(holders)  # every holder is asked, whatever it holds
        self._next_offer()

    def _next_offer(self) -> None:
        if self.call_index < len(self.call_order) and self.standing_call() != MOSKVA:
            self.phase = PH_CALL
            self.current_player = self.call_order[self.call_index]
            self.legal_sets = ()
            return
        self.call_index = len(self.call_order)
        if self.calls_made:  # the standing call leads its four (C3.5)
            s, kind = self.calls_made[-1]
            self.current_player = s
            self._lay_lead(s, self.hands[s], kind + 1)
            return
        self.phase = PH_LEAD
        self.current_player = self.leader
        self.selected = 0
        self.legal_sets = lead_sets(self.hands[self.leader], self.lead_cap)

    def _lay_lead(self, p: int, m: int, call: int) -> None:
        """Seed 4 / C3.3 (a call, C3.5, leads the caller's whole four; ``call`` as ``lead_call``)."""
        hands = self.hands
        holders = [s for s in self.clockwise_from(p) if hands[s]]
        hands[p] &= ~m
        self.leader = p
        self.lead_call = call
        self.lead = self.top_cards = m
        self.lead_size = m.bit_count()
        bb = BEATEN_BY[self.trump_suit]
        self.top_hardest_first = hardest_first(m, bb)
        self.top_seat = p
        self.round_up[p] = m
        self.answer_order = tuple(holders[1:])
        self.answer_index = 0
        self.call_order = ()
        self.call_index = 0
        self.calls_made = ()
        self.events.append(("lead", p, cards_str(m), None))
        self.begin_answer()

    def begin_answer(self) -> None:
        """The next seat in ``answer_order`` builds its answer: every subset of its hand of the lead's size
        (only the beating ones with ``may_decline_beat=False`` when one exists), seed 5 / C3.3."""
        p = self.answer_order[self.answer_index]
        self.phase = PH_ANSWER
        self.current_player = p
        self.selected = 0
        subs = subsets_of_size(self.hands[p], self.lead_size)
        if self.top_cards & SIX_BIT:
            beat = ()
        else:
            bb = BEATEN_BY[self.trump_suit]
            tops = self.top_hardest_first
            beat = tuple(u for u in subs if covers_sorted(u, tops, bb))
        self.beating_sets = beat
        self.legal_sets = beat if (beat and not self.rules.may_decline_beat) else tuple(subs)

    def _lay_answer(self, p: int, m: int, up: bool) -> None:
        """Seed 5 / C3.3: on top when it beats every top card one for one, else face down."""
        self.hands[p] &= ~m
        if up:
            self.events.append(("beat", p, cards_str(m), None))
            self.round_up[p] = m
            self.top_cards = m
            self.top_hardest_first = hardest_first(m, BEATEN_BY[self.trump_suit])
            self.top_seat = p
        else:
            self.events.append(("down", p, m.bit_count(), cards_str(m)))
            self.round_down[p] = m
            self.laid_down[p] |= m
            if p == self.trump_drawn_by:
                self.down_after_trump |= m
        self.answer_index += 1
        if self.answer_index < len(self.answer_order):
            self.begin_answer()
        else:
            self._finish_round()

    def _finish_round(self) -> None:
        """Seed 6 / C3.3-C3.4: the player on top takes everything, refills first and leads next."""
        r = self.rules
        t = self.top_seat
        side = r.side_of(t)
        up = down = 0
        for s in self.seats_in_deal:
            up |= self.round_up[s]
            down |= self.round_down[s]
            self.round_up[s] = 0
            self.round_down[s] = 0
        self.taken[side] |= up | down
        self.taken_face_up[side] |= up
        self.tricks[side] += 1
        self.last_taker = t
        self.events.append(("trick", t, None, None))
        self._refill(t)
        self.start_round(t)

    # ------------------------------------------------------------------ invariants
    def check_invariants(self) -> None:
        """Every card exactly once in a hand, the stock, a taken pile or the round (seed 1); hand sizes
        (C3.4); round sizes (C3.3); the trump card last in the stock (C3.1); scores (C3.6-C3.7); the seat
        to move has a real choice."""
        r = self.rules
        n, ns = r.num_players, r.num_sides
        seen = 0
        for m in self.hands + self.taken + self.round_up + self.round_down + [mask_of(self.stock)]:
            assert not seen & m, "a card is in two places"
            seen |= m
        assert len(set(self.stock)) == len(self.stock)
        assert seen == FULL_DECK, "a card is missing"
        assert all(0 <= v for v in self.ledger.scores)
        for sd in range(ns):
            assert not self.taken_face_up[sd] & ~self.taken[sd]
            assert (self.tricks[sd] > 0) == (self.taken[sd] != 0)
        for s in range(n):
            assert self.hands[s].bit_count() <= HAND
            assert not self.round_down[s] & ~self.laid_down[s]
            if not self.in_match[r.side_of(s)] and not self.terminal:
                assert not self.hands[s] and not self.laid_down[s]
        if self.stock:
            assert self.stock[0] == self.trump_card and self.trump_drawn_by < 0
        else:
            assert self.trump_drawn_by >= 0 or self.terminal
        if self.trump_drawn_by >= 0:
            assert not self.down_after_trump & ~self.laid_down[self.trump_drawn_by]
        if self.terminal:
            assert self.current_player == -1 and self.match_result is not None and self.phase == PH_OVER
            assert not self.legal_mask
            return
        playing = [sd for sd in range(ns) if self.in_match[sd]]
        assert len(playing) >= 2 and self.deals_played < r.max_deals
        for sd in playing:  # sides at the target play on only after the "together" rule (C3.7)
            if self.ledger.scores[sd] >= r.target:
                assert all(self.ledger.scores[o] >= r.target for o in playing), "a side at 12 still plays"
        self._check_round()

    def _check_round(self) -> None:
        """The round's part of :meth:`check_invariants` (C3.3-C3.5)."""
        p = self.current_player
        assert p in self.seats_in_deal and self.hands[p]
        assert not self.selected & ~self.hands[p]
        if self.stock:
            if self.phase in (PH_CALL, PH_LEAD):
                assert all(self.hands[s].bit_count() == HAND for s in self.seats_in_deal)
        if self.phase == PH_ANSWER:
            k = self.lead_size
            assert k == self.lead.bit_count() and 1 <= k <= self.lead_cap
            assert is_lead(self.lead) or self.lead_call == MOSKVA + 1
            for i, s in enumerate(self.answer_order):
                done = self.round_up[s] | self.round_down[s]
                assert done.bit_count() == (k if i < self.answer_index else 0)
                if i >= self.answer_index:
                    assert self.hands[s].bit_count() >= k
            assert self.top_cards == self.round_up[self.top_seat]
            assert p == self.answer_order[self.answer_index]
        else:
            assert not any(self.round_up) and not any(self.round_down)
        if self.phase == PH_CALL:  # every holder is asked, even one that can only pass (C3.5, no leak)
            assert self.call_order[self.call_index] == p and self.lead_cap == HAND
            assert self.standing_call() != MOSKVA
            assert self.legal_mask == self.compute_legal() and self.legal_mask >> A_PASS & 1
            return
        legal = self.legal_mask
        assert legal == self.compute_legal() and legal & (legal - 1), "no real choice"


def _dealt(hands: tuple, stock: tuple) -> dict:
    """The private part of a deal event: the hands as dealt, the stock in draw order (the trump card last)."""
    return {"hands": [cards_str(x) for x in hands], "stock": [card_str(c) for c in reversed(stock)]}
