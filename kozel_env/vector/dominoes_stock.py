"""The batched line dominoes with a stock and the table's knowledge of hidden tiles: ``dominoes_ffa_v0``
(every man for himself, 2-4 players, seed 000 §9, RULES D2) and ``boneyard_v0`` (seed 001, RULES D5), for
``B`` games at once -- and every other rules config of the dominoes engine's line game that the pairs engine
(:mod:`kozel_env.vector.dominoes`) does not play: sleeping tiles, the openings of RULES D2.3 / D5.2.

One scalar engine (:mod:`kozel_env.dominoes.engine`) plays these games, and this is a subclass of its
pairs engine: the deal, the moves, the legal mask, the scoring and the match are
:class:`~kozel_env.vector.dominoes.BatchedDominoes`'s, for any number of seats and sides. What it adds:

* the stock: the shuffle's positions after the hands, drawn in that order (seed 000 §3); a seat that cannot
  play draws one tile at a time until a tile fits while the stock holds more than it keeps (1 with
  ``draw="keep_last"``, RULES D2.2; 0 with ``"all"``, D5.3), else it knocks (D1.3);
* the opening lead of the match (RULES D1.5, D2.3, D5.2: ``11``, the lowest double, the heaviest tile) and
  the ``lead_tile`` part;
* the table's knowledge (:mod:`kozel_env.dominoes.knowledge`, the ``lacking`` part): each seat's hidden tiles
  as classes ``(banned, count)``, oldest first, in ``K`` slots (the deal's, then one per run of draws with
  misses); a class that runs out stays as a slot of count 0, and equal classes are not merged -- neither
  changes which tiles a class allows nor the counts the observation shows. ``lacking`` is kept up to date
  with them.

State per game beyond the pairs engine's: ``stock`` (mask), ``stock_prefix[B, S + 1]`` (the tiles of the
first ``j`` positions of the stock's order), ``stock_taken`` (tiles drawn from it this deal), ``drawn[B, n]``,
``lead_tile`` (-1 before the lead), ``fresh`` (the seat to move drew its one fitting tile: it plays that one,
no class gives it), ``cls_ban[B, n, K]`` / ``cls_count[B, n, K]`` / ``cls_used[B, n]`` (the classes) and
``lacking[B, n]`` (byte ``v`` of the ``uint64``: the seat's hidden tiles known not to carry number ``v``, 0-28;
seven counters summed in one word, none carries). ``tests/vector/test_identity_stock.py`` steps them beside
the AEC env.
"""
from __future__ import annotations

import numpy as np

from ..dominoes.game import DominoesGame
from ..dominoes.knowledge import opening_bans, resolve_opening
from ..dominoes.tiles import ALL_TILES, DOUBLE, DOUBLES_MASK, HIGH, NUM_TILES, PIPS, SUIT
from .bits import ONE, U64, lowest_bit_index
from .dominoes import _OPEN, _SUITX, DOUBLE_PAIRS, NONE, T11, BatchedDominoes

_NUM_SINGLE = NUM_TILES * 2
_TILES_OF = np.array([(a >> 1, a >> 1) for a in range(_NUM_SINGLE)]
                     + [(DOUBLE[x], DOUBLE[y]) for x, y in DOUBLE_PAIRS], U64).T.copy()
"""``_TILES_OF[:, a]``: the tiles action ``a`` lays, in the scalar ``last_move`` order (one tile: twice)."""
_HEAVIEST_FIRST = np.array(sorted(range(NUM_TILES), key=lambda t: (PIPS[t], HIGH[t]), reverse=True), np.int64)
"""Tiles by weight (pips, then the higher half), heaviest first: with no double dealt the heaviest leads
(RULES D2.3, D5.2); the key names one tile, so the seat tie-break of the scalar rule never decides."""


_M14 = U64(0x3FFF)
_COVER_LO, _COVER_HI = (np.array([sum(1 << (8 * v) for v in range(7) if (m << sh) & SUIT[v] & half == SUIT[v] & half)
                                  for m in range(1 << 14)], U64)
                        for sh, half in ((0, 0x3FFF), (14, 0x3FFF << 14)))
"""``_COVER_LO[m]`` / ``_COVER_HI[m]``: byte ``v`` is 1 where the 14 bits ``m`` hold every tile of number ``v``
among the low / high 14 tile ids; a ban mask covers a number where both halves do."""


def _covers(bans: np.ndarray) -> np.ndarray:
    """``uint64``: byte ``v`` is 1 where a class banning ``bans`` knows its tiles not to carry number ``v``
    (every tile of the number banned: :func:`kozel_env.dominoes.knowledge.lack_counts`), else 0."""
    return _COVER_LO[(bans & _M14).astype(np.intp)] & _COVER_HI[(bans >> U64(14)).astype(np.intp)]


class BatchedStockDominoes(BatchedDominoes):
    engine_id = "dominoes"
    STATE = BatchedDominoes.STATE + ("stock", "stock_prefix", "stock_taken", "drawn", "lead_tile", "fresh",
                                     "cls_ban", "cls_count", "cls_used", "lacking")
    plays = "the dominoes engine's line game (stock, openings, 2-4 seats)"

    @classmethod
    def refusals(cls, game: DominoesGame) -> list:
        return [] if type(game) is cls.game_class else ["the Donkey's house and closed doubles (RULES D4)"]

    def __init__(self, game: DominoesGame, num_envs: int, single_deal: bool = False):
        super().__init__(game, num_envs, single_deal)
        r = self.rules
        B, n = self.num_envs, self.num_players
        self._stock_size = S = NUM_TILES - n * r.hand_size
        self._keeps = {"none": S, "keep_last": 1, "all": 0}[r.draw]
        """Tiles the stock keeps (RULES D2.2: the last is never drawn; D5.3: all may be; no draws: all)."""
        self._lacks = "lacking" in game.obs_spec.offsets
        """The stock's parts (``drawn``, ``stock``, ``lacking``) are observed: the table's knowledge is kept."""
        K = 1 + S if self._lacks else 1  # the deal's class, then at most one per stock tile drawn
        self.stock = np.zeros(B, U64)
        self.stock_prefix = np.zeros((B, S + 1), U64)
        self.stock_taken = np.zeros(B, np.int64)
        self.drawn = np.zeros((B, n), np.int64)
        self.lead_tile = np.full(B, -1, np.int64)
        self.fresh = np.zeros(B, bool)
        self.cls_ban = np.zeros((B, n, K), U64)
        self.cls_count = np.zeros((B, n, K), np.int16)
        self.cls_used = np.zeros((B, n), np.int64)
        self.lacking = np.zeros((B, n), U64)
        rule = r.opening
        self._bans = np.array([[opening_bans(rule, n, p, t) for t in range(NUM_TILES)] for p in range(n)], U64)
        """``_bans[leader, tile]``: per seat, the tiles nobody who saw the opening lead thinks it was dealt."""
        self._eleven_leads = resolve_opening(rule, n) == "11"

    def _init_views(self) -> None:
        """Tables of the flags from ``ends`` to ``opened`` (bit ``pos - f0``, every position from the
        ``obs_spec``), for any number of seats and sides."""
        off = self._spec.offset
        f0 = self._flags0
        n, s = self.num_players, self.num_sides
        self._seat_flags = np.array([(1 << (off("leader", (lead - q) % n) - f0)) | (1 << (off("seat", q) - f0))
                                     for lead in range(n) for q in range(n)], U64)
        """``_seat_flags[n * leader + seat]``: the leader relative to the seat, and the seat."""
        self._bool_flags = np.array([sum(1 << (off(name, *ix) - f0) for i, (name, ix) in enumerate(
            [("first_deal", ()), ("line_empty", ())] + [("opened", (k,)) for k in range(s)]) if code >> i & 1)
            for code in range(1 << (2 + s))], U64)
        """``_bool_flags[code]``: bits 0, 1 and 2 + k of ``code`` are first_deal, line_empty and opened of
        the relative side k."""
        self._flags_width = off("opened") + s - f0
        self._lead_at = off("lead_tile") if "lead_tile" in self._spec.offsets else None
        self._lead_bits = np.array([1 << t for t in range(NUM_TILES)] + [0], U64)
        """``_lead_bits[lead_tile]``: the tile's bit; index -1 (no lead yet): none."""
        self._knock_shift = np.array([off("knocked", k) - off("knocked") for k in range(n)], U64)
        self._turn = np.array([[(q + k) % n for q in range(n)] for k in range(n)], np.int64)
        """``_turn[k, seat]``: the seat at offset ``k`` from ``seat``."""
        self._inv_hand = 1.0 / self.rules.hand_size
        lacks = "lacking" in self._spec.offsets
        self._counts_width = 2 * n + 1 + 7 * n if lacks else n
        """The count parts, contiguous from ``hand_counts``: the hands', then ``drawn``, ``stock`` and ``lacking``."""
        o = off("hand_counts")
        w, s = self._counts_width, self.num_sides
        assert not lacks or [off("drawn"), off("stock"), off("lacking"), off("lacking", n - 1)] == [
            o + n, o + 2 * n, o + 2 * n + 1, o + 2 * n + 1 + 7 * (n - 1)]
        assert [off("scores"), off("memory"), off("eggs"), self.obs_size] == [o + w, o + w + s, o + w + 2 * s,
                                                                             o + w + 2 * s + 1]
        assert off("knocked") + 7 * n == f0 and self._flags_width <= 64

    # -- deals -----------------------------------------------------------------------------------------
    def _start_deal(self, idx: np.ndarray) -> None:
        """Deal ``hand_size`` tiles each, the rest of the shuffle is the stock in draw order (seed 000 §3,
        RULES D2.1, D5.1), silently redeal a dealt hand RULES D1.6 forbids, and lead: in the match's first
        deal the opening rule's tile (RULES D1.5, D2.3, D5.2), later the last mover or the winner."""
        tiles = self._deal_hands(idx)
        self._clear_line(idx)
        S = self._stock_size
        if S:
            bits = np.left_shift(ONE, tiles[:, NUM_TILES - S:].astype(U64))
            self.stock_prefix[idx, 1:] = np.bitwise_or.accumulate(bits, axis=1)
            self.stock[idx] = self.stock_prefix[idx, S]
        self.stock_taken[idx] = 0
        self.drawn[idx] = 0
        self.lead_tile[idx] = -1
        self.fresh[idx] = False
        if self._lacks:  # one class per seat: its dealt tiles, nothing known (knowledge.deal_classes)
            self.cls_ban[idx] = 0
            self.cls_count[idx] = 0
            self.cls_count[idx, :, 0] = self.rules.hand_size
            self.cls_used[idx] = 1
            self.lacking[idx] = 0
        leader = self.last_mover[idx].copy()
        mask = np.full(len(idx), U64(ALL_TILES))
        f = np.flatnonzero(self.first_deal[idx])
        if len(f):
            seat, tile = self._opening_lead(idx[f])
            leader[f] = seat
            mask[f] = np.left_shift(ONE, tile.astype(U64))
        self.leader[idx] = leader
        self.lead_mask[idx] = mask
        self.current_player[idx] = leader

    def _opening_lead(self, idx: np.ndarray) -> tuple:
        """``knowledge.opening_lead`` in games ``idx``: ``11`` where the rule says so and it was dealt, else
        the lowest double dealt (``00`` lowest), else the heaviest tile; the seat that holds it."""
        hands = self.hands[idx]
        dealt = np.bitwise_or.reduce(hands, axis=1)
        tile = np.full(len(idx), -1, np.int64)
        if self._eleven_leads:
            tile[(dealt >> U64(T11)) & ONE == ONE] = T11
        doubles = dealt & U64(DOUBLES_MASK)
        low = (tile < 0) & (doubles != 0)
        tile[low] = lowest_bit_index(doubles[low])  # tile ids of the doubles rise with the number
        none = np.flatnonzero(tile < 0)
        if len(none):
            held = (dealt[none, None] >> _HEAVIEST_FIRST.astype(U64)) & ONE
            tile[none] = _HEAVIEST_FIRST[np.argmax(held, axis=1)]
        seat = np.argmax((hands >> tile[:, None].astype(U64)) & ONE, axis=1)
        return seat, tile

    # -- a decision ------------------------------------------------------------------------------------
    def apply(self, actions: np.ndarray) -> None:
        """One move in every game (seed 000 §5), the table's knowledge of it, then the next seat with the
        forced draws and knocks before it (RULES D1.3, D2.2, D5.3), or the deal's end."""
        a, p, at = self._begin_decision(actions)
        li, left = self._lay(a, p, at)
        self.lead_tile[li] = a[li] >> 1
        if self._lacks:
            self._track_play(a, at, li)
        self._next_seat(p, left)

    def _track_play(self, a: np.ndarray, at: np.ndarray, li: np.ndarray) -> None:
        """The scalar ``_track_play`` (``at``: the movers' flat seat index): the tiles played leave the
        oldest class that allows them (a seat's freshly drawn tile is in none); the match's opening lead
        bans, in every seat's dealt class, what the opening rule says nobody holds (RULES D2.3, D5.2)."""
        g = np.flatnonzero(~self.fresh)
        self.fresh[:] = False
        ag = a[g]
        self._take(at[g], _TILES_OF[0][ag])
        two = np.flatnonzero(ag >= _NUM_SINGLE)
        if len(two):
            self._take(at[g[two]], _TILES_OF[1][ag[two]])
        first = li[self.lead_mask[li] != U64(ALL_TILES)]
        if len(first):
            n = self.num_players
            bans = self._bans[at[first] % n, a[first] >> 1]
            for q in range(n):
                self._ban(first * n + q, bans[:, q])

    def _classes(self) -> tuple:
        """``cls_ban``, ``cls_count``, ``cls_used`` and ``lacking`` with one row per (game, seat)."""
        m = self.num_envs * self.num_players
        return (self.cls_ban.reshape(m, -1), self.cls_count.reshape(m, -1), self.cls_used.reshape(m),
                self.lacking.reshape(m))

    def _take(self, at: np.ndarray, t: np.ndarray) -> None:
        """``knowledge.play``: tile ``t`` leaves the oldest class that allows it of the seats ``at`` (flat
        index of (game, seat)); first the deal's class, which allows it in most games."""
        cls_ban, cls_count, cls_used, lacking = self._classes()
        at0 = at * cls_ban.shape[1]  # the deal's class (slot 0) in the flat arrays
        ban0 = cls_ban.reshape(-1)[at0]
        count0 = cls_count.reshape(-1)
        c0 = count0[at0]
        first = ((ban0 >> t) & ONE == 0) & (c0 > 0)
        count0[at0] = c0 - first  # ``at`` names each seat once
        lacking[at] -= _covers(ban0) * first
        o = np.flatnonzero(~first)
        if len(o):
            at, t = at[o], t[o]
            K = int(cls_used[at].max())
            ban = cls_ban[at, :K]
            ok = ((ban >> t[:, None]) & ONE == 0) & (cls_count[at, :K] > 0)
            i = np.argmax(ok, axis=1)
            cls_count[at, i] -= 1
            lacking[at] -= _covers(ban[np.arange(len(at)), i])

    def _ban(self, at: np.ndarray, mask: np.ndarray) -> None:
        """``knowledge.ban``: none of the tiles of the seats ``at`` (flat index of (game, seat)) is in
        ``mask``, in every class in use."""
        if not len(at):
            return
        cls_ban, cls_count, cls_used, lacking = self._classes()
        K = int(cls_used[at].max())
        ban = cls_ban[at, :K] | mask[:, None]
        cls_ban[at, :K] = ban
        lacking[at] = (_covers(ban) * cls_count[at, :K].astype(U64)).sum(axis=1)

    def _next_seat(self, p: np.ndarray, left: np.ndarray) -> None:
        """Going out, else the next seat clockwise that holds a fitting tile; the scalar ``_after_move``
        (seed 000 §5-6, RULES D1.3-4, D2.2-4, D5.3-4)."""
        n = self.num_players
        out = left == 0
        ends = self.ends
        fit = _SUITX[ends[:, 0]] | _SUITX[ends[:, 1]]
        nxt = p + 1
        nxt[nxt == n] = 0
        plays = ((self.hands.reshape(-1)[np.arange(0, n * self.num_envs, n) + nxt] & fit) != 0) & ~out
        self.current_player[:] = np.where(plays, nxt, p)
        hard = np.flatnonzero(~plays & ~out)
        ends_here = out.copy()
        if len(hard):
            ends_here[self._search(hard, p[hard], fit[hard])] = True  # the fish: nobody can play
        ended = np.flatnonzero(ends_here)
        if len(ended):
            self._end_deal(ended, out[ended])

    def _search(self, g: np.ndarray, p: np.ndarray, fit: np.ndarray) -> np.ndarray:
        """In games ``g`` whose next seat holds no fitting tile: each seat from ``p + 1`` round to ``p``
        plays if it holds a fitting tile, else (its classes banning the fitting tiles, ``knowledge.ban``) draws
        until one fits while the stock allows (RULES D2.2, D5.3), else knocks on the open numbers (D1.3).
        Returns the games where nobody can play (the fish)."""
        n = self.num_players
        ends = self.ends[g]
        numbers = _OPEN[ends[:, 0]] | _OPEN[ends[:, 1]]
        draws = self._keeps < self._stock_size
        hands = self.hands.reshape(-1)
        for i in range(1, n + 1):
            q = (p + i) % n
            at = g * n + q
            keep = (hands[at] & fit) == 0
            self.current_player[g[~keep]] = q[~keep]
            if self._lacks:  # it cannot play from its hand: it holds no fitting tile (before any draw)
                c = np.flatnonzero(keep)
                self._ban(at[c], fit[c])
            if draws:
                c = np.flatnonzero(keep & (self._stock_size - self.stock_taken[g] > self._keeps))
                if len(c):
                    found = self._draw(g[c], at[c], fit[c])
                    took = c[found]
                    self.current_player[g[took]] = q[took]
                    self.fresh[g[took]] = True
                    keep[took] = False
            k = np.flatnonzero(keep)
            self.knocks.reshape(-1)[at[k]] |= numbers[k]
            g, p, fit, numbers = g[k], p[k], fit[k], numbers[k]
            if not len(g):
                break
        return g

    def _draw(self, g: np.ndarray, at: np.ndarray, fit: np.ndarray) -> np.ndarray:
        """``_draw_until_fit`` in games ``g``: the seat ``at`` (flat index of (game, seat)) draws from the
        stock in its order until a tile fits or the stock is down to what it keeps; the misses become a class
        of their own (knowledge.add_drawn). Returns whether a fitting tile was drawn."""
        pre = self.stock_prefix[g]
        taken = self.stock_taken[g]
        rows = np.arange(len(g))
        before = pre[rows, taken]
        last = self._stock_size - self._keeps  # the stock's positions up to this one may be drawn
        # fits[:, j]: a tile that fits lies among the stock's positions taken .. j - 1 (none for j <= taken)
        fits = (pre[:, :last + 1] & (fit & ~before)[:, None]) != 0
        found = fits[:, last]
        misses = last - taken - fits.sum(axis=1)
        d = misses + found
        new = pre[rows, taken + d] & ~before
        self.hands.reshape(-1)[at] |= new
        self.stock[g] &= ~new
        self.stock_taken[g] = taken + d
        self.drawn.reshape(-1)[at] += d
        if self._lacks:  # the seat's classes ban ``fit`` already (``_search``)
            a = np.flatnonzero(misses)
            cls_ban, cls_count, cls_used, lacking = self._classes()
            aa = at[a]
            slot = cls_used[aa]
            cls_ban[aa, slot] = fit[a]
            cls_count[aa, slot] = misses[a]
            cls_used[aa] = slot + 1
            lacking[aa] += _covers(fit[a]) * misses[a].astype(U64)
        return found

    # -- views -----------------------------------------------------------------------------------------
    def _view(self, seat: np.ndarray, out: np.ndarray, packer, base: int) -> None:
        """``game.observe(state, seat)`` of every game into ``out[:, base:]``, every part at its ``obs_spec``
        offset: the 0/1 parts packed (the lead tile among them), then the scalar tail (:meth:`_scalars`)."""
        off = self._spec.offset
        B, n = self.num_envs, self.num_players
        packer.clear(B)
        put = packer.put_at
        every = np.empty((B, n), np.int64)  # [B, n]: flat (game, the seat at offset k)
        rows = np.arange(0, n * B, n)
        np.add(rows, seat, out=every[:, 0])
        for k in range(1, n):
            np.add(rows, self._turn[k][seat], out=every[:, k])
        hands = self.hands.reshape(-1)[every]
        put(hands[:, 0], base + off("hand"), 28)
        played_by = self.played_by.reshape(-1)[every]
        knocks = self.knocks.reshape(-1)[every]
        knocked = knocks[:, 0].copy()
        for k in range(n):
            put(played_by[:, k], base + off("played_by", k), 28)
            if k:
                knocked |= knocks[:, k] << self._knock_shift[k]
        put(knocked, base + off("knocked"), 7 * n)
        flags = self._end_flags[self.ends[:, 0] * (NONE + 1) + self.ends[:, 1]]
        flags |= self._seat_flags[self.leader * n + seat]
        code = self.first_deal.view(np.uint8) | ((self.played == 0).view(np.uint8) << 1)
        opened = self.ledger.opened.reshape(-1)
        sides = self._side_rows(seat) if self.rules.pairs else every  # every man for himself: a side is a seat
        for k in range(self.num_sides):
            code |= opened[sides[:, k]].view(np.uint8) << (2 + k)
        flags |= self._bool_flags[code]
        put(flags, base + self._flags0, self._flags_width)
        if self._lead_at is not None:
            put(self._lead_bits[self.lead_tile], base + self._lead_at, 28)
        packer.unpack(out[:, base:] if base else out)
        self._scalars(every, hands, sides, out[:, base + off("hand_counts"):base + self.obs_size])

    def _scalars(self, every: np.ndarray, hands: np.ndarray, sides: np.ndarray, out: np.ndarray) -> None:
        """The scalar tail of the observation into ``out`` (from ``hand_counts`` on), computed in float64 and
        stored as float32 (as the scalar builder packs Python floats): the counts (the hands', then ``drawn``,
        ``stock`` and ``lacking`` where kept, gathered as bytes) times ``1 / hand_size``, then ``scores``,
        ``memory`` and ``eggs`` times ``1 / target``."""
        B, n, s = self.num_envs, self.num_players, self.num_sides
        W = self._counts_width
        counts = np.empty((B, W), np.uint8)
        counts[:, :n] = np.bitwise_count(hands)
        if self._lacks:
            counts[:, n:2 * n] = self.drawn.reshape(-1)[every]
            counts[:, 2 * n] = np.bitwise_count(self.stock)
            counts[:, 2 * n + 1:].reshape(B, n, 7)[:] = (self.lacking.reshape(-1)[every].view(np.uint8)
                                                         .reshape(B, n, 8)[:, :, :7])
        out[:, :W] = counts * self._inv_hand
        led = self.ledger
        t = self._inv_target
        out[:, W:W + s] = led.scores.reshape(-1)[sides] * t
        out[:, W + s:W + 2 * s] = led.memory.reshape(-1)[sides] * t
        out[:, W + 2 * s] = led.eggs * t

    def _side_rows(self, seat: np.ndarray) -> np.ndarray:
        """``[B, sides]``: per relative side ``k`` (0: the seat's own), the flat index of (game, that side) in
        ``[B, sides]`` arrays: pairs, the pair ``k`` places on."""
        s = self.num_sides
        return np.arange(0, s * self.num_envs, s)[:, None] + (self.side_of[seat][:, None] + np.arange(s)) % s


def line_engine(game: DominoesGame, num_envs: int, single_deal: bool = False) -> BatchedDominoes:
    """The batched engine of the dominoes engine's line games (``ENGINES["dominoes"]``): the pairs engine
    where it plays the rules (the pairs game of 7 tiles each without a stock, the 11 opening), the stock
    engine above for every other rules config."""
    cls = BatchedDominoes if not BatchedDominoes.refusals(game) else BatchedStockDominoes
    return cls(game, num_envs, single_deal)
