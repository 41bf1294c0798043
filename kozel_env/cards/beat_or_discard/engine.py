"""The state of ``beat_or_discard_v0`` (seed 002, RULES C1): its fields, the legal moves and the round.

Rules sources as in :mod:`kozel_env.cards.beat_or_discard` (its docstring describes the game and the
action design). This module holds one match in progress: the legal-action mask of the decision, the
moves (lead, beat, discard, claim, equalise), the turn order of a round (C1.3-C1.7, C1.13, C1.15), the
trick (C1.8) and the start of the next round; the deal, the refill and the scoring of a game live in
:mod:`.scoring`. ``apply_action`` assumes a legal action (the one check is
:meth:`kozel_env.core.game.Game.check_action`).
"""
from __future__ import annotations

from ...core.game import State
from .beats import beat_sets, can_beat
from .invariants import check_invariants
from .scoring import DealFlow
from .tables import (
    A_DOWN,
    A_PASS,
    A_PLAY,
    B_CLAIM,
    B_DOWN,
    B_PASS,
    B_PLAY,
    PH_ANSWER,
    PH_CLAIM,
    PH_EQUALISE,
    PH_LEAD,
    PH_OVER,
    PH_REBEAT,
    SUIT_OF_CARD,
    cards_text,
    longest_suit,
    mask_to_actions,
)


class BeatOrDiscardState(DealFlow, State):
    """One match. Cards are ids of :mod:`kozel_env.cards.deck`; every card set is an int mask, every set of
    seats an int bitmask over seats (bit ``q``: seat ``q``). Fields:

    ==================  ===========================================================================
    **match**
    ``rules``           the frozen :class:`~.rules.BeatOrDiscardRules`
    ``rng``             the match's :class:`~kozel_env.core.rng.Rng` (deals, the stock order)
    ``ledger``          penalty points and the eggs streak (:class:`~kozel_env.core.ledger.Ledger`)
    ``first_game``      the match's first game is being played (diamonds trump, lowest diamond leads)
    ``out``             seats out of the match (bitmask; solo, C1.16)
    ``out_at_deal``     per seat: the number of deals played when it went out (0: out at the set-up;
                        -1: still in), to rank the seats at the end
    ``goats``           solo: the first player(s) out (``None`` before anyone is out)
    ``single_deal``     the episode ends after this game
    ``terminal``, ``current_player``, ``deals_played``, ``last_result``, ``match_result``, ``results``,
    ``events``          the :class:`~kozel_env.core.game.State` contract
    **this game**
    ``hands``           per seat: the cards in hand
    ``stock``           the stock (mask)
    ``stock_seq``       the stock in draw order, its last card the bottom card (C1.10)
    ``trump``           the trump suit (index into ``deck.SUITS``)
    ``revealed``        the bottom card once drawn and shown (C1.10); -1 before
    ``piles``           per side: every card of the tricks it took this game
    ``piles_up``        per side: the face-up cards among them (leads and beats)
    ``tricks``          per side: how many tricks it took this game
    ``laid_down``       per seat: every card it laid face down this game (discards and equalising, still
                        on the table or in a trick)
    ``known``           per seat: cards publicly known to be in its hand or among its face-down cards of
                        this round (the drawn bottom card, cards a claim returned face up)
    ``diamond_leader``  first game, before its first trick: the seat that got the lead by holding the
                        lowest diamond (C1.11); -1 otherwise
    ``last_taker``      the taker of the last trick (leads the next game, C1.11)
    **this round**
    ``leader``          the seat that leads (or led) the round
    ``last_beater``     the last beater: the leader once it led, then each beater (C1.3); -1 before the
                        lead
    ``top``             the cards to beat: the last beater's face-up cards
    ``lead``            the cards of the lead
    ``table_up``        per seat: its face-up cards on the table this round (its lead or beats)
    ``table_down``      per seat: its face-down cards on the table this round (discards)
    ``locked``          seats that discarded this round: they may not beat again in it (C1.6)
    ``acted``           seats that beat or discarded this round (they may not claim, C1.13)
    ``claims``          per seat: the N it claimed this round (0: none; C1.13)
    ``best_claim``      the highest N claimed this round (0: none)
    ``claim_stop``      where the claim question before the lead stops going round (the leader)
    ``equalise_taker``  after a trick: its taker, from whom the equalising and the refill go round (C1.8-9)
    ``equalise_to``     after a trick: the smallest hand, the size every other hand is brought down to
    **the decision in progress**
    ``phase``           ``PH_*`` of :mod:`.tables` (claim?, lead, answer, beat again, equalise, over)
    ``picked``          the cards picked so far for the move being built (actions ``0..35``)
    ``legal_beats``     the legal beating sets of the seat to move (masks; empty when it may not beat)
    ``owed``            cards the seat must lay face down (answer: a discard; equalise); in the lead, the
                        most cards the lead may hold (C1.15)
    ``offered``         the action bits of pass / done and claim, offered before any card is picked
    ``legal_cache``     the legal-action mask of this decision, -1 until computed
    ==================  ===========================================================================
    """

    __slots__ = (
        "rules", "rng", "ledger", "hands", "stock", "stock_seq", "trump", "revealed", "piles", "piles_up",
        "tricks", "laid_down", "known", "out", "first_game", "diamond_leader", "leader", "last_beater", "top",
        "lead", "table_up", "table_down", "locked", "acted", "claims", "best_claim", "claim_stop", "phase",
        "current_player", "picked", "legal_beats", "owed", "offered", "equalise_taker", "equalise_to",
        "last_taker", "goats", "out_at_deal", "terminal", "deals_played", "last_result", "match_result",
        "single_deal", "legal_cache", "results", "events",
    )

    SETUP_KEYS = frozenset({"hands", "stock", "piles", "leader", "first_game", "trump", "scores", "eggs",
                            "single_deal"})
    """Keys of ``new_state``'s ``setup`` (see :mod:`.setup`)."""

    # -- the State contract ------------------------------------------------------------------------

    def legal_mask(self) -> int:
        """Bitmask over action ids of the legal actions (0 when terminal)."""
        lm = self.legal_cache
        if lm >= 0:
            return lm
        ph = self.phase
        if ph == PH_OVER:
            m = 0
        elif ph == PH_CLAIM:  # asked whatever it holds (no leak): may claim only with the long suit
            m = B_PASS | (B_CLAIM if self.claimable(self.current_player) else 0)
        else:
            h = self.hands[self.current_player]
            sel = self.picked
            le = (1 << sel.bit_length()) - 1  # the cards up to the highest pick
            if ph == PH_LEAD:
                if sel:
                    m = B_PLAY
                    if sel.bit_count() < self.owed:
                        m |= h & SUIT_OF_CARD[sel.bit_length() - 1] & ~le
                else:
                    m = h
            else:
                m = 0
                beats = self.legal_beats
                if beats:
                    if sel:
                        for b in beats:
                            if b & le == sel:
                                r = b & ~le
                                m |= (r & -r) if r else B_PLAY
                    else:
                        for b in beats:
                            m |= b & -b
                k = self.owed
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
                    m |= self.offered
        self.legal_cache = m
        return m

    def legal_actions(self) -> list:
        return mask_to_actions(self.legal_mask())

    def apply_action(self, action: int) -> None:
        """Apply a legal action (precondition: ``action in legal_actions()``, an int), then every forced step
        that follows (see the package docstring)."""
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
            if not self.legal_beats and not self.offered and not self.picked and self.phase >= PH_ANSWER:
                h = self.hands[self.current_player]
                if self.owed == h.bit_count():  # owes the whole hand face down: forced (C1.4, C1.8)
                    self.picked = h
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
        if self.picked or self.terminal:
            return False
        ph = self.phase
        return ph == PH_CLAIM or (ph == PH_ANSWER and self.claim_possible(self.current_player))

    def clone(self) -> BeatOrDiscardState:
        c = BeatOrDiscardState.__new__(BeatOrDiscardState)
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
        c.laid_down = self.laid_down[:]
        c.known = self.known[:]
        c.out = self.out
        c.first_game = self.first_game
        c.diamond_leader = self.diamond_leader
        c.leader = self.leader
        c.last_beater = self.last_beater
        c.top = self.top
        c.lead = self.lead
        c.table_up = self.table_up[:]
        c.table_down = self.table_down[:]
        c.locked = self.locked
        c.acted = self.acted
        c.claims = self.claims[:]
        c.best_claim = self.best_claim
        c.claim_stop = self.claim_stop
        c.phase = self.phase
        c.current_player = self.current_player
        c.picked = self.picked
        c.legal_beats = self.legal_beats
        c.owed = self.owed
        c.offered = self.offered
        c.equalise_taker = self.equalise_taker
        c.equalise_to = self.equalise_to
        c.last_taker = self.last_taker
        c.goats = self.goats
        c.out_at_deal = self.out_at_deal[:]
        c.terminal = self.terminal
        c.deals_played = self.deals_played
        c.last_result = self.last_result
        c.match_result = self.match_result
        c.single_deal = self.single_deal
        c.legal_cache = self.legal_cache
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
        return self.hands[q] | self.table_up[q] | self.table_down[q]

    def claim_possible(self, q: int) -> bool:
        """C1.13 by public facts alone: ``q`` is not the leader, has not beaten or discarded this round and
        holds enough cards for a claim above the best one (N is at most its hand size)."""
        k = self.hands[q].bit_count()
        return (k >= self.rules.claim_floor and k > self.best_claim and q != self.leader
                and not self.acted >> q & 1)

    def claimable(self, q: int) -> bool:
        """C1.13: ``q`` may claim now (not the leader, has not beaten or discarded, N high enough)."""
        if not self.claim_possible(q):
            return False
        n = longest_suit(self.hands[q])
        return n >= self.rules.claim_floor and n > self.best_claim

    def seat_tags(self, q: int) -> list:
        """What the table shows about a seat this round (text and picture views): leader, last beater,
        locked (C1.6), its claim (C1.13)."""
        tags = []
        if q == self.leader and not self.terminal:
            tags.append("leader")
        if q == self.last_beater:
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

    # -- one action ----------------------------------------------------------------------------------

    def _apply(self, a: int) -> None:
        self.legal_cache = -1
        if a < 36:
            self.picked |= 1 << a
            return
        ph = self.phase
        p = self.current_player
        if a == A_PLAY:
            s, self.picked = self.picked, 0
            if ph == PH_LEAD:
                self._lead(p, s)
            else:
                self._beat(p, s)
        elif a == A_DOWN:
            s, self.picked = self.picked, 0
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

    def _decide(self, phase: int, q: int, owed: int = 0, offered: int = 0, legal_beats: tuple = ()) -> None:
        """Seat ``q`` is to decide in ``phase`` (the fields of the decision in progress), nothing picked yet."""
        self.phase = phase
        self.current_player = q
        self.owed = owed
        self.offered = offered
        self.legal_beats = legal_beats
        self.picked = 0
        self.legal_cache = -1

    def _lead(self, p: int, s: int) -> None:
        """Seed "The leader puts down 1 to 6 cards of one suit" (C1.15 limit in the quick game)."""
        self.hands[p] &= ~s
        self.table_up[p] |= s
        self.known[p] &= ~s
        self.lead = s
        self.top = s
        self.last_beater = p
        self.events.append(("lead", p, cards_text(s), None))
        self._after(p)

    def _beat(self, p: int, s: int) -> None:
        """C1.3: the beater becomes the last beater, their cards the new top cards."""
        self.hands[p] &= ~s
        self.table_up[p] |= s
        self.known[p] &= ~s
        self.top = s
        self.last_beater = p
        self.acted |= 1 << p
        self.events.append(("beat", p, cards_text(s), None))
        self._after(p)

    def _discard(self, p: int, s: int) -> None:
        """C1.4 / C1.6: face down, and the discard lock for the rest of the round."""
        self.hands[p] &= ~s
        self.table_down[p] |= s
        self.laid_down[p] |= s
        self.locked |= 1 << p
        self.acted |= 1 << p
        self.events.append(("discard", p, s.bit_count(), cards_text(s)))
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
        hands, table_up, table_down, known, laid_down = (self.hands, self.table_up, self.table_down, self.known,
                                                         self.laid_down)
        for q in range(self.rules.num_players):
            u, d = table_up[q], table_down[q]
            if u or d:
                hands[q] |= u | d
                known[q] |= u
                laid_down[q] &= ~d
                table_up[q] = 0
                table_down[q] = 0
        self.top = 0
        self.lead = 0
        self.last_beater = -1
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
        hands, last_beater = self.hands, self.last_beater
        q = p
        while True:
            q = q + 1 if q + 1 < n else 0
            if quick:
                if q == self.leader:  # C1.15: the round ends when the turn returns to the leader
                    self._end_round()
                    return
            elif q == last_beater:  # C1.7: beat again or Done; nothing to beat with: the round ends
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
            offered = B_CLAIM if cc else 0
        else:
            k = h.bit_count() - self.hands[self.last_beater].bit_count()
            if not bs and not self.claim_possible(q):  # a possible claim is asked about (no leak)
                if k <= 0:
                    return False
                if check_alive and not self._alive():
                    return None
            offered = (B_CLAIM if cc else 0) | (B_PASS if k <= 0 else 0)
        self._decide(PH_ANSWER, q, k if k > 0 else 0, offered, bs)
        return True

    def redecide(self) -> bool:
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
            self._decide(PH_EQUALISE, q, self.owed)
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
        self.last_beater = -1
        self.top = 0
        self.lead = 0
        self.table_up = [0] * n
        self.table_down = [0] * n
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

    # -- trick, equalising ---------------------------------------------------------------------------

    def _end_round(self) -> None:
        """C1.8: the last beater (else the leader) takes the table; then the equalising."""
        r = self.rules
        n = r.num_players
        taker = self.last_beater if self.last_beater >= 0 else self.leader
        side = r.side_of(taker)
        up = dn = 0
        for q in range(n):
            up |= self.table_up[q]
            d = self.table_down[q]
            if d:
                dn |= d
                self.known[q] = 0  # its face-down cards went to a trick: knowledge is forgotten
        self.piles[side] |= up | dn
        self.piles_up[side] |= up
        self.tricks[side] += 1
        self.events.append(("trick", taker, None, None))
        self.table_up = [0] * n
        self.table_down = [0] * n
        self.top = 0
        self.lead = 0
        self.last_beater = -1
        self.locked = 0
        self.acted = 0
        self.claims = [0] * n
        self.best_claim = 0
        self.last_taker = taker
        self.diamond_leader = -1
        self.equalise_taker = taker
        self.equalise_to = min(self.hands[q].bit_count() for q in range(n) if not self.out >> q & 1)
        self._equalise_next(taker)

    def _equalise_next(self, q: int) -> None:
        n = self.rules.num_players
        taker, mn, hands = self.equalise_taker, self.equalise_to, self.hands
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
        self.piles[self.rules.side_of(self.equalise_taker)] |= s
        self.laid_down[p] |= s
        self.known[p] = 0
        self.events.append(("equalise", p, s.bit_count(), cards_text(s)))
        self._equalise_next(p)

    def check_invariants(self) -> None:
        """The conservation laws of the game (:func:`.invariants.check_invariants`)."""
        check_invariants(self)
