"""The deal flow and the scoring of ``beat_or_discard_v0`` (seed 002, RULES C1), as a mix-in of the state.

A game from its deal to its score: the deal (seed: ``hand_size`` cards each, the rest is the stock; trump
C1.10, leader C1.11), the refill after a trick (C1.9, the bottom card shown C1.10), four aces or four sixes
(C1.14), the penalties (C1.1) and eggs (C1.12) through the shared :class:`~kozel_env.core.ledger.Ledger`,
and the match end (pairs C1.17, solo C1.16, ``single_deal``). :class:`DealFlow` holds no field of its own:
its methods work on :class:`~.engine.BeatOrDiscardState`'s fields.
"""
from __future__ import annotations

from ...core.game import Deferred
from ..deck import DIAMONDS, NUM_CARDS, SUITS, card_str
from ..deck import points as card_points
from .tables import ACES, PH_OVER, SIXES, cards_text, lowest_diamond_seat


def penalty(points: int, tricks: int, table: tuple = (0, 2, 4, 6)) -> int:
    """C1.1: penalty points of a side from its own trick points (``tricks``: tricks it took)."""
    if tricks == 0:
        return table[3]
    if points >= 61:
        return table[0]
    if points >= 31:
        return table[1]
    return table[2]


def _dealt(hands: tuple, stock_seq: tuple) -> dict:
    """The private part of a deal event: the hands as dealt, the stock in draw order."""
    return {"hands": [cards_text(x) for x in hands], "stock": [card_str(c) for c in stock_seq]}


class DealFlow:
    """The deal, the refill and the end of a game and of the match (methods of the state)."""

    __slots__ = ()

    # -- deal and refill ----------------------------------------------------------------------------

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
        self.laid_down = [0] * n
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

    def _draw(self, q: int) -> None:
        """C1.9 / C1.10: seat ``q`` draws the stock's next card; the last one, the bottom card, is shown."""
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
        taker = self.equalise_taker
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
        pts = [card_points(p) for p in self.piles]
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
                self.out_at_deal[q] = self.deals_played
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
                    self.out_at_deal[winner] = -1
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
            "hand": cards_text(self.hands[q]),
            "multiplier": led.multiplier,
        })
        if r.pairs:
            goats = others
        else:
            for s in others:
                self.out |= 1 << s
                self.out_at_deal[s] = self.deals_played
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
            if reason == "single_deal":
                w = self.last_result["written"]

                def key(q):  # single game: by its penalty, the players out last
                    return (bool(self.out >> q & 1), w[q])
            else:
                def key(q):  # the winner first; then by how long each stayed in, then by fewer penalty points
                    e = self.out_at_deal[q]
                    return (0 if q in winners else 1, -(e if e >= 0 else 10 ** 6), scores[q])
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
        self.picked = 0
        self.legal_beats = ()
        self.owed = 0
        self.offered = 0
        self.legal_cache = -1
