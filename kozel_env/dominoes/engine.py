"""The dominoes rules engine: one engine for every dominoes Kozel, its variants as :class:`DominoesRules`.

State is a handful of ints: hands, the stock and the played tiles are 28-bit masks; the line is a short
list of end values; knocks are 7-bit masks of the numbers a seat is known to lack. A match is one
:class:`DominoesState`; deals follow each other inside it.

Actions (ids never depend on the seat). With ``E`` end slots (2 on an ordinary line):

* ``tile * E + slot`` -- lay ``tile`` at end ``slot``. The lead (empty line) uses slot 0. Slot 0 is the
  left end, slot 1 the right end; after a lead ``ab`` the left end shows ``a`` and the right end ``b``.
* ``28 * E + k`` -- the two-doubles move (RULES D1.2): doubles ``aa`` and ``bb`` with ``a < b`` together,
  ``k`` indexing the 21 pairs ``(0,1), (0,2), ..., (5,6)``.

Automatic steps, applied inside ``apply_action``: knocks (RULES D1.3, recorded as public events), draws
from the stock (RULES D2.2, D5.3), dealing and redeals (RULES D1.6), scoring, the next deal.
"""
from __future__ import annotations

from functools import cache
from types import MappingProxyType

from ..core.errors import InvalidOptionError, KozelError
from ..core.game import Deferred, State
from ..core.ledger import Ledger
from ..core.options import Bool, Bools, Int, Ints, Text, Texts, check_setup
from ..core.rng import Rng
from . import knowledge
from .rules import DominoesRules
from .tiles import (
    ALL_TILES,
    DOUBLE,
    DOUBLES_MASK,
    HIGH,
    LOW,
    NUM_TILES,
    OTHER,
    SUIT,
    TILE_ID,
    parse_tiles,
    pip_total,
    tile_str,
    tiles_str,
)

DEAD = 7
"""End value of a closed (dead) end."""
NONE = 8
"""End value of a slot that holds no end (empty line, unused slot)."""
SUITX = SUIT + (0, 0)
"""SUITX[v]: tiles that fit an end showing v (nothing for DEAD and NONE)."""
DOUBLE_PAIRS = tuple((a, b) for a in range(7) for b in range(a + 1, 7))
PAIR_INDEX = {p: i for i, p in enumerate(DOUBLE_PAIRS)}
T00, T11, T66 = TILE_ID[(0, 0)], TILE_ID[(1, 1)], TILE_ID[(6, 6)]


def _dealt(hands: tuple, order) -> dict:
    """The private part of a deal event: the hands as dealt, the stock in draw order (None: no stock or a
    random draw order)."""
    return {"hands": [tiles_str(h) for h in hands], "stock": [tile_str(t) for t in order] if order else None}


@cache
def setup_checks(rules: DominoesRules) -> dict:
    """The ``reset(options=...)`` keys these rules accept, each with what it allows (one home:
    :mod:`kozel_env.core.options`); the consistency of the whole set-up is checked by the state."""
    n, s = rules.num_players, rules.num_sides
    checks = {
        "hands": Texts(n, "tile strings like '00 13 46 ...'"),
        "first_deal": Bool(),
        "leader": Int(0, n - 1),
        "scores": Ints(s, 0, rules.target - 1, as_list=True),
        "single_deal": Bool(),
    }
    if rules.threshold_mode in ("open", "shared"):
        checks["opened"] = Bools(s)
    if rules.threshold_mode in ("remember", "accumulate"):
        checks["memory"] = Ints(s, 0, max(rules.threshold - 1, 0), as_list=True)
    if rules.eggs_carry:
        checks["eggs"] = Int(0, 4 * rules.target)  # the observation shows eggs / target in 0..4
    if rules.draw != "none":
        checks["stock"] = Text("the stock's tiles in draw order, e.g. '35 00 16 ...'")
    return MappingProxyType(checks)


def needs_redeal(hand: int) -> bool:
    """RULES D1.6 / seed 000 §3: five or more doubles, or six or more tiles carrying one number."""
    if (hand & DOUBLES_MASK).bit_count() >= 5:
        return True
    return any((hand & s).bit_count() >= 6 for s in SUIT)


class DominoesState(State):
    __slots__ = ("rules", "rng", "hands", "stock", "played", "played_by", "ends", "knocks", "drawn",
                 "current_player", "terminal", "leader", "lead_mask", "first_deal", "last_mover",
                 "last_move", "ledger", "deals_played", "last_result", "match_result", "single_deal",
                 "events", "lead_tile", "lack", "stock_order", "tracks", "fresh", "results")
    SETUP_KEYS = frozenset({"hands", "leader", "first_deal", "scores", "opened", "eggs", "memory",
                            "single_deal", "stock"})

    # ------------------------------------------------------------------ set-up
    def __init__(self, rules: DominoesRules, seed: int, setup: dict | None = None):
        setup = check_setup(setup_checks(rules), setup, rules.name, self.SETUP_KEYS)
        self.rules = rules
        self.rng = Rng(seed)
        ns = rules.num_sides
        scores = setup.get("scores", [0] * ns)
        memory = setup.get("memory", [0] * ns)
        eggs = setup.get("eggs", 0)
        opened = setup.get("opened")
        if opened is not None and opened != [v > 0 for v in scores]:
            raise InvalidOptionError(f"opened={opened!r} contradicts scores={scores!r}: a side's scoring is open "
                                     "exactly when it has points (RULES D1.7, D3.2)")
        if rules.threshold_mode == "shared" and sum(1 for v in scores if v) > 1:
            raise InvalidOptionError(f"scores={scores!r}: with one score for both (RULES D3.2) only one side "
                                     "may have points")
        self.ledger = Ledger(rules.ledger_rules(), scores, opened, memory, eggs)
        self.first_deal = setup.get("first_deal", True)
        self.single_deal = setup.get("single_deal", False)
        leader = setup.get("leader")
        if leader is not None and self.first_deal:
            raise InvalidOptionError("leader is set by the opening rule in the first deal; "
                                     "pass first_deal=False to choose the leader")
        self.last_mover = leader if leader is not None else 0
        self.deals_played = 0
        self.last_result = None
        self.match_result = None
        self.results = ()
        self.terminal = False
        self.events = []
        # Hidden-hand bookkeeping (kozel_env.dominoes.knowledge) for the stock games and the openings that
        # reveal something (RULES D2.2-3, D5.2-3); without it a knock alone says what a seat lacks.
        self.tracks = rules.draw != "none" or rules.opening != "11"
        hands = setup.get("hands")
        if hands is not None:
            hands = self._parse_hands(hands)
        order = setup.get("stock")
        if order is not None:
            order = self._parse_stock(order, hands)
        self._start_deal(hands, order)

    def _parse_hands(self, hands) -> list:
        r = self.rules
        if not isinstance(hands, (list, tuple)) or len(hands) != r.num_players:
            raise InvalidOptionError(f"hands must be a list of {r.num_players} tile strings, got {hands!r}")
        masks = []
        seen = 0
        for seat, h in enumerate(hands):
            try:
                m = parse_tiles(h)
            except KozelError as e:
                raise InvalidOptionError(f"hands[{seat}]: {e}") from None
            if m.bit_count() != r.hand_size:
                raise InvalidOptionError(f"hands[{seat}] has {m.bit_count()} tiles, the deal gives "
                                         f"{r.hand_size}")
            if m & seen:
                raise InvalidOptionError(f"hands[{seat}] repeats a tile of another hand: "
                                         f"{tile_str((m & seen).bit_length() - 1)}")
            seen |= m
            masks.append(m)
        if r.redeal:
            for seat, m in enumerate(masks):
                if needs_redeal(m):
                    raise InvalidOptionError(f"hands[{seat}] ({tiles_str(m)}) holds five doubles or six "
                                             "tiles of one number: RULES D1.6 redeals such a deal, so it never "
                                             "starts a deal; pass redeal=False to play it")
        return masks

    def _parse_stock(self, order, hands) -> tuple:
        """Setup ``stock``: the tiles left after ``hands``, in the order they will be drawn (first first)."""
        if hands is None:
            raise InvalidOptionError("the stock option needs the hands option")
        try:
            tiles = [parse_tiles(tok) for tok in order.replace(",", " ").split()]
        except KozelError as e:
            raise InvalidOptionError(f"stock: {e}") from None
        dealt = 0
        for h in hands:
            dealt |= h
        mask = 0
        for m in tiles:
            if m & mask:
                raise InvalidOptionError(f"stock repeats a tile: {order!r}")
            mask |= m
        if mask != ALL_TILES & ~dealt:
            raise InvalidOptionError(f"stock must list exactly the {28 - dealt.bit_count()} tiles not dealt, "
                                     f"got {order!r}")
        return tuple(m.bit_length() - 1 for m in tiles)

    def _start_deal(self, hands=None, order=None) -> None:
        """Deal (seed 000 §3), redeal silently (RULES D1.6), choose the leader (RULES D1.5, D2.3, D5.2)."""
        r = self.rules
        n = r.num_players
        while True:
            if hands is None:
                tiles = self.rng.shuffle(list(range(NUM_TILES)))
                k = r.hand_size
                deal = [sum(1 << t for t in tiles[i * k:(i + 1) * k]) for i in range(n)]
                if r.draw != "none":  # the shuffled rest is the stock, drawn in this (hidden) order
                    order = tuple(tiles[n * k:])
            else:
                deal, hands = hands, None
            if not (r.redeal and any(needs_redeal(h) for h in deal)):
                break
            self.events.append(("redeal", -1, None, Deferred(_dealt, tuple(deal), None)))
            order = None
        self.hands = deal
        self.stock_order = order or None
        self.lead_tile = -1
        self.lack = [knowledge.deal_classes(h.bit_count()) for h in deal]
        self.fresh = -1
        dealt = 0
        for h in deal:
            dealt |= h
        self.stock = ALL_TILES & ~dealt
        self.played = 0
        self.played_by = [0] * n
        self.ends = [NONE] * self.num_slots
        self.knocks = [0] * n
        self.drawn = [0] * n
        self.last_move = ()
        if self.first_deal:
            self.leader, tile = self._opening_lead()
            self.lead_mask = 1 << tile
        else:
            self.leader = self.last_mover
            self.lead_mask = ALL_TILES
        self.current_player = self.leader
        # the dealt hands are written out only if a record asks (a callable private part: cheap in search)
        self.events.append(("deal", -1, {"leader": self.leader, "first_deal": self.first_deal},
                            Deferred(_dealt, tuple(deal), order)))

    @property
    def num_slots(self) -> int:
        return 2

    def _opening_lead(self):
        """RULES D1.5 (``11`` leads) or D2.3 / D5.2 (lowest double, else the heaviest tile)."""
        return knowledge.opening_lead(self.rules.opening, self.hands)

    # ------------------------------------------------------------------ copying
    def clone(self) -> DominoesState:
        c = object.__new__(type(self))
        c.rules = self.rules
        c.rng = self.rng.clone()
        c.hands = self.hands[:]
        c.stock = self.stock
        c.played = self.played
        c.played_by = self.played_by[:]
        c.ends = self.ends[:]
        c.knocks = self.knocks[:]
        c.drawn = self.drawn[:]
        c.current_player = self.current_player
        c.terminal = self.terminal
        c.leader = self.leader
        c.lead_mask = self.lead_mask
        c.first_deal = self.first_deal
        c.last_mover = self.last_mover
        c.last_move = self.last_move
        c.ledger = self.ledger.clone()
        c.deals_played = self.deals_played
        c.last_result = self.last_result
        c.match_result = self.match_result
        c.results = self.results
        c.single_deal = self.single_deal
        c.events = []
        c.lead_tile = self.lead_tile
        c.lack = self.lack[:]
        c.stock_order = self.stock_order
        c.tracks = self.tracks
        c.fresh = self.fresh
        return c

    # ------------------------------------------------------------------ moves
    def fit_mask(self) -> int:
        """Tiles that fit some open end (empty line: none)."""
        m = 0
        for v in self.ends:
            m |= SUITX[v]
        return m

    def turn_requires(self) -> int:
        """Tiles of which the seat to move must hold one for it to be asked now (it was not skipped by a
        knock, RULES D1.3): public knowledge that ``sample_consistent`` keeps."""
        return self.fit_mask()

    def legal_actions(self) -> list:
        """Must play (seed 000 §5): every placement of a fitting tile, plus the two-doubles move (D1.2).
        Ascending ids, built by one pass over the fitting tiles (no sort)."""
        if self.terminal:
            return []
        h = self.hands[self.current_player]
        acts = []
        if not self.played:
            m = h & self.lead_mask
            while m:
                low = m & -m
                acts.append((low.bit_length() - 1) * 2)
                m ^= low
            return acts
        e0, e1 = self.ends
        m0 = h & SUITX[e0]
        m1 = h & SUITX[e1]
        m = m0 | m1
        while m:
            low = m & -m
            t2 = (low.bit_length() - 1) * 2
            if m0 & low:
                acts.append(t2)
            if m1 & low:
                acts.append(t2 + 1)
            m ^= low
        if e0 != e1 and e0 < 7 and e1 < 7 and self.rules.two_doubles:
            d0, d1 = DOUBLE[e0], DOUBLE[e1]
            if h >> d0 & 1 and h >> d1 & 1:
                acts.append(56 + PAIR_INDEX[(e0, e1) if e0 < e1 else (e1, e0)])
        return acts

    def apply_action(self, action: int) -> None:
        p = self.current_player
        self.events = []
        if action >= 56:
            a, b = DOUBLE_PAIRS[action - 56]
            tiles = (DOUBLE[a], DOUBLE[b])
            bit = (1 << tiles[0]) | (1 << tiles[1])
        else:
            t, slot = divmod(action, 2)
            tiles = (t,)
            bit = 1 << t
            if not self.played:
                self.ends = [LOW[t], HIGH[t]]
                self.lead_tile = t
            else:
                self.ends[slot] = OTHER[t][self.ends[slot]]
        if self.tracks:
            self._track_play(p, tiles)
        self.hands[p] &= ~bit
        self.played |= bit
        self.played_by[p] |= bit
        self.last_mover = p
        self.last_move = tiles
        self._after_move(p)

    def _track_play(self, p: int, tiles) -> None:
        """Public knowledge of ``p``'s hidden tiles after it plays ``tiles`` (see :mod:`.knowledge`); at the
        opening lead of a match, what the opening rule tells about every hand (RULES D2.3, D5.2)."""
        cls = self.lack[p]
        for t in tiles:
            if self.fresh == p:  # the tile it just drew is its only fitting tile: that is the one played
                self.fresh = -1
            elif len(cls) == 1 and not cls[0][0] >> t & 1:  # one class (the common case): one tile fewer
                b, c = cls[0]
                cls = ((b, c - 1),) if c > 1 else ()
            else:
                cls = knowledge.play(cls, t)
        self.lack[p] = cls
        if not self.played and self.lead_mask != ALL_TILES:
            bans = knowledge.opening_bans(self.rules.opening, self.rules.num_players, p, tiles[0])
            self.lack = [knowledge.ban(c, b) if b else c for c, b in zip(self.lack, bans)]

    def _after_move(self, p: int) -> None:
        """Going out, knocks and draws of the following seats, or the fish (seed 000 §5-6, RULES D1.3-4)."""
        if not self.hands[p]:
            self._end_deal("out", p)
            return
        n = self.rules.num_players
        fit = self.fit_mask()
        hands = self.hands
        q = p + 1 if p + 1 < n else 0
        if hands[q] & fit:  # the common case: the next seat plays
            self.current_player = q
            return
        limit = self._draw_limit()
        open_numbers = 0
        for v in self.ends:
            if v < 7:
                open_numbers |= 1 << v
        for i in range(1, n + 1):
            q = (p + i) % n
            if hands[q] & fit:
                self.current_player = q
                return
            if limit is not None and self._draw_until_fit(q, fit, limit):
                self.current_player = q
                self.fresh = q
                return
            self.knocks[q] |= open_numbers
            if self.tracks:
                self.lack[q] = knowledge.ban(self.lack[q], fit)
            self.events.append(("knock", q, None, None))
        self._end_deal("fish", p)

    def _draw_limit(self):
        """Fewest tiles the stock keeps (RULES D2.2: 1, the last tile is never drawn; D5.3: 0)."""
        d = self.rules.draw
        return None if d == "none" else (1 if d == "keep_last" else 0)

    def _draw_until_fit(self, q: int, fit: int, limit: int) -> bool:
        """Forced draws, one tile at a time, until a tile fits (RULES D2.2 / D5.3). Public: the count; the
        tiles are seen by the drawer only. Everybody learns that ``q`` held no fitting tile and that the
        drawn tiles before the last did not fit (:mod:`.knowledge`)."""
        stock = self.stock
        left = stock.bit_count() - limit
        if left <= 0:
            return False
        order = self.stock_order
        hand = self.hands[q]
        events = self.events
        misses = 0
        found = False
        while left > 0:
            if order:
                t = order[0]
                order = order[1:]
            else:
                t = self.rng.pick_bit(stock)
            bit = 1 << t
            stock ^= bit
            hand |= bit
            left -= 1
            events.append(("draw", q, None, tile_str(t)))
            if fit & bit:
                found = True
                break
            misses += 1
        self.stock = stock
        self.stock_order = order
        self.hands[q] = hand
        self.drawn[q] += misses + found
        cls = knowledge.ban(self.lack[q], fit)
        self.lack[q] = knowledge.add_drawn(cls, fit, misses)
        return found

    # ------------------------------------------------------------------ scoring
    def hand_value(self, seat: int) -> int:
        """RULES D1.1: a lone ``00`` or ``66`` counts the configured values; otherwise plain pips."""
        h = self.hands[seat]
        lone = self.rules.lone_double_values
        if lone is not None:
            if h == 1 << T00:
                return lone[0]
            if h == 1 << T66:
                return lone[1]
        return pip_total(h)

    def _end_deal(self, how: str, mover: int) -> None:
        """Who lost, what is written (seed 000 §6-8, RULES D1.1, D1.7-9), then the next deal or the end."""
        r = self.rules
        n = r.num_players
        side_of = r.side_of
        sides = range(r.num_sides)
        totals = [0] * r.num_sides
        values = [0] * r.num_sides
        for seat in range(n):
            totals[side_of(seat)] += pip_total(self.hands[seat])
            values[side_of(seat)] += self.hand_value(seat)
        if how == "out":
            winners = [side_of(mover)]
        else:
            low = min(totals)
            winners = [s for s in sides if totals[s] == low]
        final = self.last_move
        instant = how == "out" and r.out_00_wins_match and T00 in final  # RULES D3.3
        if how == "out" and r.out_66_amount is not None and T66 in final and T00 not in final:
            values = [r.out_66_amount] * r.num_sides  # RULES D3.4: the losers write 100 instead
        losses = {} if instant else {s: values[s] for s in sides if s not in winners}
        eggs_before = self.ledger.eggs
        if instant:
            written = {}
        elif not losses:  # every side tied in a fish: eggs (RULES D1.8), the plain total is carried
            if r.eggs_carry:
                self.ledger.record_eggs(totals[0])
            written = {}
        else:
            raw = losses
            if r.eggs_to == "highest" and len(losses) > 1 and self.ledger.eggs:
                # Only the loser(s) with the highest amount take the carried eggs (option, RULES silent).
                top = max(losses.values())
                raw = {s: v + (self.ledger.eggs if v == top else 0) for s, v in losses.items()}
                self.ledger.eggs = 0
            written = self.ledger.settle(raw)
        seat_points = [-written.get(side_of(seat), 0) for seat in range(n)]
        eggs = not losses and not instant
        self._deal_over({
            "ended_by": how,
            "eggs": eggs,
            "winners": [] if eggs else sorted(winners),
            "losers": sorted(s for s in sides if s not in winners),
            "written": [written.get(s, 0) for s in sides],
            "scores": self.ledger.scores[:],
            "seat_points": seat_points,
            "last_mover": mover,
            "final_move": [tile_str(t) for t in self.last_move],
            "hands": [tiles_str(h) for h in self.hands],
            "hand_totals": totals,
            "amounts": [losses.get(s, 0) for s in sides],
            "eggs_carried_in": eggs_before,
            "eggs_carried_out": self.ledger.eggs,
            "instant_win": instant,
        })
        self.first_deal = False
        if r.next_leader == "winner":  # RULES D5.2: the winner of the hand leads the next one
            for i in range(n):
                q = (mover + i) % n
                if side_of(q) in winners:
                    self.last_mover = q
                    break
        if instant:
            self._end_match([s for s in sides if s not in winners], instant=True)
            return
        goats = self.ledger.at_target()
        if goats or self.single_deal:
            self._end_match(goats)
        else:
            self._start_deal()

    def _end_match(self, goats: list, instant: bool = False) -> None:
        """Goats at the target (seed 000 §8, RULES D1.9; ties RULES D2.6) and the titles; ``instant``: the
        match was won at once by going out on ``00`` (RULES D3.3), ``goats`` are the other side(s).
        A single-deal episode that reached no target reports the deal's winners and losers, no goats."""
        r = self.rules
        ns = r.num_sides
        scores = self.ledger.scores
        res = self.last_result
        if goats:
            top = max(scores[s] for s in goats)
            goats = [s for s in goats if scores[s] == top]
            others = [s for s in range(ns) if s not in goats]
            # Pairs: the other pair wins. Every man for himself: the fewest points win (RULES D2.6).
            winners = others if r.pairs else [s for s in others if scores[s] == min(scores[o] for o in others)]
            losers = goats
            # RULES D2.6: places by points, fewer is better, equal points share; goats last.
            key = [(s in goats, scores[s]) for s in range(ns)]
            ended_by = "instant_win" if instant else "target"
            titles = [r.goat_title]
            if "naked_goats" in r.titles and not any(self.ledger.wrote[s] for s in winners):
                titles.append("naked_goats")  # RULES D1.9: the winners wrote nothing in the whole match
            if "bald_goats" in r.titles and res["ended_by"] == "out" and T00 in self.last_move:
                titles.append("bald_goats")  # RULES D1.9: ended by going out, 00 in the final move
        else:  # single-deal episode that reached no target: the deal decides
            winners, losers = res["winners"], res["losers"]
            key = [(s not in winners, res["amounts"][s]) for s in range(ns)]
            ended_by, titles = "single_deal", []
        places = [1 + sum(1 for o in key if o < key[s]) for s in range(ns)]
        side_of = r.side_of
        self.match_result = {
            "ended_by": ended_by,
            "winners": sorted(winners),
            "losers": sorted(losers),
            "goats": sorted(goats),
            "titles": sorted(titles),
            "places": places,
            "scores": scores[:],
            "deals": self.deals_played,
            "returns": [1.0 if side_of(q) in winners else (-1.0 if side_of(q) in losers else 0.0)
                        for q in range(r.num_players)],
        }
        self.terminal = True
        self.current_player = -1

    def check_invariants(self) -> None:
        """Every tile exactly once in a hand, the stock or the table (seed 000 §1); scores below the target
        while the match runs (seed 000 §8); the seat to move has a legal move (RULES D1.3)."""
        seen = self.stock
        for h in self.hands + [self.played]:
            assert not seen & h, "a tile is in two places"
            seen |= h
        assert seen == ALL_TILES, "a tile is missing"
        union = 0
        for m in self.played_by:
            assert not union & m
            union |= m
        assert union == self.played
        assert all(0 <= v <= NONE for v in self.ends)
        assert all(s >= 0 for s in self.ledger.scores)
        if self.tracks and not self.terminal:  # every hand agrees with what the table knows (.knowledge)
            fit = self.fit_mask()
            for q, h in enumerate(self.hands):
                extra = h.bit_count() - knowledge.total(self.lack[q])
                assert extra in (0, 1), f"seat {q}: {extra} tiles outside the known classes"
                if extra:
                    assert q == self.current_player and (h & fit).bit_count() == 1, "pending drawn tile"
                    h &= ~fit
                assert knowledge.fits(self.lack[q], h), f"seat {q}'s hand contradicts the public knowledge"
        if self.terminal:
            assert self.current_player == -1 and self.match_result is not None
        else:
            assert all(s < self.rules.target for s in self.ledger.scores)
            assert self.legal_actions(), "the seat to move has no legal move"
