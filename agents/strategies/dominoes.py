"""Bots for every dominoes Kozel (``dominoes_v0``, ``dominoes_ffa_v0``, ``sea_goat_v0``, ``boneyard_v0``,
``donkey_v0``): one strategy for the family, reading the observation's named parts (``hand``,
``played_by``, ``knocked``, ``ends``, ``hand_counts``, ``stock``) and decoding moves with the engine's
tables (``tile * slots + slot``, the two-doubles moves; Donkey's moves through its own decoder).

* **easy** -- sheds the heaviest tile, doubles first (the courtyard's first rule: a double is hard to get
  rid of and every pip left is written against you), but keeps a follow: each tile left in hand that fits
  an end of the line after the move counts :attr:`Strategy.keep_follow` pips (without it, in the two-player
  games with a stock, easy was no real step over random on the ladder's deals: +0.14 [-1.52, +1.80]
  points per deal in dominoes_ffa_v0); no memory; a careless random move now and then.
* **normal** -- counts: the tiles still out per number, who knocked on what (a knocked number is one that
  seat lacks for the rest of the deal without a stock). On top of shedding weight and doubles it keeps
  numbers it can follow (control), makes ends the next opponent knocked on (he must knock) and avoids ends
  its partner knocked on, takes a number nobody else holds, steers a fish only when its side's hands are
  the lighter, and goes out whenever it can.
"""
from __future__ import annotations

import numpy as np

from kozel_env.dominoes.engine import DEAD, NONE
from kozel_env.dominoes.tiles import ALL_TILES, DOUBLE, HIGH, IS_DOUBLE, LOW, NUM_TILES, OTHER, SUIT, pip_total

_W28 = 2.0 ** np.arange(NUM_TILES)
_W7 = 2.0 ** np.arange(7)
_DOUBLE_PAIRS = tuple((a, b) for a in range(7) for b in range(a + 1, 7))


class Strategy:
    pimc_levels = {"hard": {"n": 12, "depth": 8, "z": 1.0}, "crazy": {"n": 128, "z": 1.0}}
    """``hard``: ``n`` imagined deals, each move played out ``depth`` actions and the position then scored
    (:meth:`position_value`); ``crazy``: more imagined deals, played out to the end of the deal (see
    :mod:`agents.pimc`). Donkey: :attr:`donkey_levels`."""
    donkey_levels = {"hard": {"n": 12, "depth": 8, "z": 1.0}, "crazy": {"n": 48, "depth": 8, "z": 1.0}}
    """Donkey's playouts to the end of a deal (multi-double moves, dead ends) are long and noisy: against
    ``hard`` on the ladder's 400 duplicate sets, 128 deals played to the end were no real step (+1.33
    [-0.40, +3.06] points per deal), 48 deals to hard's horizon are (+3.17 [+1.48, +4.86]) at a quarter of
    the cost."""
    careless = 0.25
    keep_follow = 3.0

    def __init__(self, game):
        self.game = game
        r = game.rules
        self.rules = r
        self.n = game.num_players
        self.pairs = r.pairs
        self.E = game.num_slots
        self.hand_size = r.hand_size
        sl = game.obs_spec.slices
        self.s_hand = sl["hand"]
        self.s_played = sl["played_by"]
        self.s_knocked = sl["knocked"]
        self.s_ends = sl["ends"]
        self.s_empty = sl["line_empty"]
        self.s_counts = sl["hand_counts"]
        self.s_stock = sl.get("stock")
        self.pair_base = NUM_TILES * self.E
        self.s_house = sl.get("house")
        self.donkey = self.s_house is not None  # Donkey (RULES D4): four end slots, house, closed doubles
        if self.donkey:
            self.pimc_levels = self.donkey_levels
            from kozel_env.dominoes import donkey
            self.closed_base, self.done_action = donkey.CLOSED, donkey.DONE
        self.side_of = r.side_of

    # ------------------------------------------------------------------ reading the observation
    def _read(self, obs):
        hand = int(obs[self.s_hand] @ _W28)
        played_by = [int(x) for x in obs[self.s_played].reshape(self.n, NUM_TILES) @ _W28]
        knocked = [int(x) for x in obs[self.s_knocked].reshape(self.n, 7) @ _W7]
        ends = [int(x) for x in obs[self.s_ends].reshape(self.E, 9).argmax(1)]
        empty = obs[self.s_empty][0] > 0.5
        counts = [int(round(x * self.hand_size)) for x in obs[self.s_counts]]
        stock = int(round(obs[self.s_stock][0] * self.hand_size)) if self.s_stock is not None else 0
        return hand, played_by, knocked, ends, empty, counts, stock

    def _move(self, a: int, ends: list, empty: bool, house: bool = False):
        """(tiles mask, new ends) of action ``a`` on the line with ``ends`` (``house``: Donkey's house is
        already on the table)."""
        if self.donkey:
            return self._donkey_move(a, ends, empty, house)
        if a >= self.pair_base:
            x, y = _DOUBLE_PAIRS[a - self.pair_base]
            return (1 << DOUBLE[x]) | (1 << DOUBLE[y]), ends
        t, slot = divmod(a, self.E)
        if empty:
            return 1 << t, [LOW[t], HIGH[t]] + [8] * (self.E - 2)
        new = ends[:]
        new[slot] = OTHER[t][ends[slot]]
        return 1 << t, new

    def _donkey_move(self, a: int, ends: list, empty: bool, house: bool):
        """Donkey's moves (RULES D4, :mod:`kozel_env.dominoes.donkey`): ``tile * 4 + slot`` (a double open),
        ``112 + n * 4 + slot`` (the double ``nn`` closed: a dead end), ``140`` done; the first double of a
        deal is the house (four ends led, three ends of its number laid later; closed: all dead)."""
        E = self.E
        if a == self.done_action:
            return 0, ends
        closed = a >= self.closed_base
        if closed:
            n, slot = divmod(a - self.closed_base, E)
            t = DOUBLE[n]
        else:
            t, slot = divmod(a, E)
        v = LOW[t]
        dbl = IS_DOUBLE[t]
        if empty:
            if dbl and self.rules.house:
                return 1 << t, [DEAD if closed else v] * E
            if dbl:
                return 1 << t, ([DEAD, DEAD] if closed else [v, v]) + [NONE] * (E - 2)
            return 1 << t, [LOW[t], HIGH[t]] + [NONE] * (E - 2)
        new = ends[:]
        if dbl:
            if self.rules.house and not house:
                free = [i for i in range(E) if new[i] == NONE][:2]
                for i in free:
                    new[i] = DEAD if closed else v
            if closed:
                new[slot] = DEAD
        else:
            new[slot] = OTHER[t][new[slot]]
        return 1 << t, new

    # ------------------------------------------------------------------ easy
    def easy(self, obs, mask, rng=None) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        ends = [int(x) for x in obs[self.s_ends].reshape(self.E, 9).argmax(1)]
        house = self.donkey and obs[self.s_house][0] > 0.5
        hand = int(obs[self.s_hand] @ _W28)
        return self._easy(legal.tolist(), hand, ends, obs[self.s_empty][0] > 0.5, house)

    def _easy(self, legal, hand, ends, empty, house=False) -> int:
        best, best_score = legal[0], -1e9
        for a in legal:
            tiles, new = self._move(a, ends, empty, house)
            follow = 0
            for e in new:
                if e < 7:  # an open end (not DEAD, not NONE)
                    follow |= SUIT[e]
            score = (pip_total(tiles) + 2.5 * _count_doubles(tiles)
                     + self.keep_follow * (hand & ~tiles & follow).bit_count())
            if score > best_score:
                best, best_score = a, score
        return best

    # ------------------------------------------------------------------ normal
    def normal(self, obs, mask, rng=None) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        hand, played_by, knocked, ends, empty, counts, stock = self._read(obs)
        played = 0
        for m in played_by:
            played |= m
        house = self.donkey and obs[self.s_house][0] > 0.5
        return self._normal(legal.tolist(), hand, played, knocked, ends, empty, counts, stock, house)

    def normal_state(self, st, seat: int, legal: list) -> int:
        """:meth:`normal` read straight from an engine state, for playouts in imagined deals: the same
        decision from the same facts (own hand, the table, knocks, hand sizes, stock size), no vector."""
        n = self.n
        rel = [(seat + q) % n for q in range(n)]
        hands = st.hands
        return self._normal(legal, hands[seat], st.played, [st.knocks[q] for q in rel], st.ends,
                            not st.played, [hands[q].bit_count() for q in rel], st.stock.bit_count(),
                            self.donkey and st.house)

    def easy_state(self, st, seat: int, legal: list) -> int:
        return self._easy(legal, st.hands[seat], st.ends, not st.played, self.donkey and st.house)

    def _normal(self, legal, hand, played, knocked, ends, empty, counts, stock, house=False) -> int:
        unseen = ALL_TILES & ~hand & ~played
        n_unseen = unseen.bit_count()
        pips_unseen = pip_total(unseen)
        partner = 2 if self.pairs else -1
        nxt = 1
        best, best_score = legal[0], -1e9
        for a in legal:
            tiles, new_ends = self._move(a, ends, empty, house)
            left = hand & ~tiles
            score = pip_total(tiles) + 3.0 * _count_doubles(tiles)
            if not left:
                score += 1000.0
            else:
                open_vals = [v for v in set(new_ends) if v < 7]
                fit = 0
                for v in open_vals:
                    fit |= SUIT[v]
                # control: numbers I can follow on, and numbers nobody else holds any more
                for v in open_vals:
                    mine = (left & SUIT[v]).bit_count()
                    score += 1.5 * min(mine, 2)
                    if mine and not unseen & SUIT[v]:
                        score += 2.0
                if not left & fit:
                    score -= 3.0
                # the next seat: an opponent who knocked on every open number must knock again
                if nxt != partner and open_vals:
                    lacks = knocked[nxt]
                    hit = sum(1 for v in open_vals if lacks >> v & 1)
                    score += 6.0 if hit == len(open_vals) else 1.5 * hit
                if partner > 0 and open_vals:
                    lacks = knocked[partner]
                    hit = sum(1 for v in open_vals if lacks >> v & 1)
                    score -= 5.0 if hit == len(open_vals) else 1.0 * hit
                # a fish: nobody (me included) can play and nobody may draw
                if not stock and not (unseen | left) & fit:
                    score += self._fish_value(left, counts, pips_unseen, n_unseen)
            if score > best_score:
                best, best_score = a, score
        return best

    def _fish_value(self, left: int, counts: list, pips_unseen: int, n_unseen: int) -> float:
        """Expected gain of ending the deal in a fish now, the hidden pips spread by hand sizes."""
        per = pips_unseen / n_unseen if n_unseen else 0.0
        est = [pip_total(left)] + [per * counts[q] for q in range(1, self.n)]
        if self.pairs:
            ours, theirs = est[0] + est[2], est[1] + est[3]
            return 0.8 * theirs if ours < theirs - 2 else -1.2 * ours
        low = min(est[1:])
        return 0.8 * sum(est[1:]) / (self.n - 1) if est[0] < low - 2 else -1.2 * est[0]

    # ------------------------------------------------------------------ playouts
    def position_value(self, state, seat: int) -> float:
        """For playouts cut short (``pimc:depth=``): the hands' pips per side, relative to the mean."""
        r = self.rules
        k = r.num_sides
        tot = [0] * k
        for q, h in enumerate(state.hands):
            tot[r.side_of(q)] += pip_total(h)
        return sum(tot) / k - tot[r.side_of(seat)]

    def deal_value(self, state, seat: int) -> float:
        """Zero-sum value of the finished deal for ``seat``: the amounts the losing sides count (before the
        threshold, so a small loss still costs), relative to the table's mean; Sea Goat's instant match win
        (out on ``00``, RULES D3.3) counts as the whole target."""
        res = state.last_result
        r = self.rules
        k = r.num_sides
        mine = r.side_of(seat)
        if res["instant_win"]:
            won = res["winners"]
            a = [0.0 if s in won else float(r.target) for s in range(k)]
            return sum(a) / k - a[mine]
        a = res["amounts"]
        return sum(a) / k - a[mine]


def _count_doubles(tiles: int) -> int:
    c = 0
    while tiles:
        low = tiles & -tiles
        if IS_DOUBLE[low.bit_length() - 1]:
            c += 1
        tiles ^= low
    return c
