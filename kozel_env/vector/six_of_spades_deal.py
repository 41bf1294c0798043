"""The deal and the match of the batched ``six_of_spades_v0`` engine (:mod:`kozel_env.vector.six_of_spades`):
a new match, the deal (seed 1-2 / C3.1), the deal's penalties (C3.6) and the match's end (C3.7), as the
scalar :mod:`kozel_env.cards.six_of_spades.scoring`. A step that ends deals in some games deals all the next
deals (those of the matches that go on and the new matches of ``autoreset``) in one pass.
"""
from __future__ import annotations

import numpy as np

from ..cards.deck import NUM_CARDS
from ..cards.deck import SUIT_OF as _SUIT_OF
from ..cards.six_of_spades.tables import HAND, PH_OVER
from . import rng as vrng
from .bits import bit
from .six_of_spades_views import card_points

U64 = np.uint64
SUIT_OF = np.array(_SUIT_OF, np.int64)
_MODS = np.arange(NUM_CARDS, 1, -1, dtype=U64)
_FEW = 8
_DECK = U64((1 << NUM_CARDS) - 1)


def _deal_order(n: int) -> np.ndarray:
    """``[dealer * 2**n + key]``: the seats from the dealer's left clockwise, those whose bit of ``key`` is set
    (seats still in) first (``int64[n]``): the ``t``-th of them is dealt the ``t``-th four."""
    out = np.zeros((n << n, n), np.int64)
    for d in range(n):
        for key in range(1 << n):
            seats = [(d + 1 + j) % n for j in range(n)]
            out[(d << n) + key] = [s for s in seats if key >> s & 1] + [s for s in seats if not key >> s & 1]
    return out


_DEAL_ORDER = {n: _deal_order(n) for n in range(2, HAND + 1)}


def shuffled_deck(state: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``vrng.shuffled(state, idx, range(NUM_CARDS))`` (``Rng.shuffle`` of the deck per game); for a few
    games the Fisher-Yates swaps run on Python lists (the same draws), which costs less than 35 array passes."""
    if len(idx) > _FEW:
        return vrng.shuffled(state, idx, range(NUM_CARDS))
    js = (vrng.draws(state, idx, NUM_CARDS - 1) % _MODS).tolist()
    out = []
    for row in js:
        d = list(range(NUM_CARDS))
        for m, j in enumerate(row):
            i = NUM_CARDS - 1 - m
            d[i], d[j] = d[j], d[i]
        out.append(d)
    return np.array(out, np.int64).reshape(len(idx), NUM_CARDS)


class DealFlow:
    """The deal and match methods of :class:`~kozel_env.vector.six_of_spades.BatchedSixOfSpades`."""

    def _next_in(self, idx: np.ndarray, s: np.ndarray) -> np.ndarray:
        """``next_in_deal``: the next seat clockwise after ``s`` whose side is still in the match."""
        n = self.num_players
        s = (s + 1) % n
        for _ in range(n):
            ok = self.in_match[idx, self.side_of[s]]
            if ok.all():
                break
            s = np.where(ok, s, (s + 1) % n)
        return s

    def _new_match(self, idx: np.ndarray, seeds: np.ndarray) -> None:
        self.rng[idx] = np.asarray(seeds, U64)
        self.ledger.start(idx)
        self.in_match[idx] = True
        self.round_up[idx] = 0  # a deal starts with them empty (a reset can come mid-round)
        self.round_down[idx] = 0
        self.out_after[idx] = -1
        self.deals_played[idx] = 0
        self.dealer[idx] = vrng.below(self.rng, idx, self.num_players)

    def _start_deal(self, idx: np.ndarray) -> np.ndarray:
        """Seed 1-2 / C3.1: four each from the dealer's left (seats still in), the next card face up under the
        stock, which is drawn from the end (the trump card last); the player left of the dealer leads (returned:
        the caller starts the round)."""
        n = self.num_players
        in_deal = self.in_deal[idx] = self._seats_in[self.in_match[idx] @ (1 << np.arange(self.num_sides))]
        for name in ("taken", "face_up", "tricks", "laid_down"):  # hands: all dealt below; the round's: empty
            getattr(self, name)[idx] = 0
        self.trump_drawn_by[idx] = -1
        self.last_taker[idx] = -1
        deck = shuffled_deck(self.rng, idx)
        self.deck[idx] = deck
        cards = bit(deck)
        order = _DEAL_ORDER[n][(self.dealer[idx] << n) + in_deal]
        m = np.bitwise_count(in_deal).astype(np.int64)
        dealt = np.where(np.arange(n) < m[:, None], cards[:, :HAND * n].reshape(len(idx), n, HAND).sum(axis=2), U64(0))
        self.hands[idx[:, None], order] = dealt
        base = HAND * m
        self.stock_base[idx] = base
        self.stock_len[idx] = NUM_CARDS - base
        self.stock_mask[idx] = _DECK - dealt.sum(axis=1)
        tc = deck[np.arange(len(idx)), base]
        self.trump_card[idx] = tc
        self.trump_suit[idx] = SUIT_OF[tc]
        return order[:, 0]
    def _end_deal(self, idx: np.ndarray) -> tuple:
        """C3.6 (``scoring.deal_penalties``): the side with the most points takes nothing, every other 2 with
        the line or more (21 when three sides play), 4 under it, 6 with no trick; tied most: each
        ``tie_penalty``. C3.7: sides at the target go out (``_going_out``). Then the match ends
        (``_end_match``) or the deal passes left: returns the games dealt anew and their first leaders (their
        rounds are for the caller to start)."""
        r = self.rules
        k = len(idx)
        playing = self.in_match.take(idx, axis=0)
        pts = card_points(self.taken.take(idx, axis=0))
        most = np.where(playing, pts, -1).max(axis=1, keepdims=True)
        tied = playing & (pts == most)
        ntied = tied.sum(axis=1, keepdims=True)
        line = np.where(playing.sum(axis=1, keepdims=True) == 3, r.line_three, r.line)
        p0, p1, p2 = r.penalties
        pen = np.where(pts >= line, p0, p1)
        pen = np.where(self.tricks.take(idx, axis=0) == 0, p2, pen)
        pen = np.where(tied, np.where(ntied == 1, 0, r.tie_penalty), pen)
        pen = np.where(playing, pen, 0)
        written = self.ledger.settle(idx, pen, playing & (pen != 0))
        scores = self.ledger.scores[idx]
        reached = playing & (scores >= r.target)
        dp = self.deals_played[idx] + 1
        if reached.any():
            self._going_out(idx, playing, scores, reached, dp)
        self.deals_played[idx] = dp
        winners = tied & (ntied == 1)
        self.end_deal_outputs(idx, written, scores, winners, np.zeros(k, bool))  # not one a set-up ended
        last = self.in_match.take(idx, axis=0).sum(axis=1) <= 1
        limit = ~last & (dp >= r.max_deals)
        single = ~last & ~limit & self.single_deal
        deal = [idx[~(last | limit | single)]]
        self.dealer[deal[0]] = self._next_in(deal[0], self.dealer[deal[0]])
        if (last | limit).any():
            deal.append(self._end_match(idx[last | limit]))
        if single.any():
            deal.append(self._end_single(idx[single], pen[single], playing[single]))
        deal = np.concatenate(deal) if len(deal) > 1 else deal[0]
        return deal, self._start_deal(deal)

    def _going_out(self, idx: np.ndarray, playing: np.ndarray, scores: np.ndarray, reached: np.ndarray,
                   dp: np.ndarray) -> None:
        """C3.7 (``scoring._going_out``) in games ``idx`` (a side ``reached`` the target in some): they go out
        after deal ``dp``; if every side left reached it together only the highest go out (of tied highest
        the last taker's side stays)."""
        together = reached.sum(axis=1) == playing.sum(axis=1)
        hi = np.where(playing, scores, -1).max(axis=1, keepdims=True)
        top = playing & (scores == hi)
        lt = self.last_taker[idx]
        lt_side = np.where(lt >= 0, self.side_of[np.maximum(lt, 0)], -1)
        is_lt = np.arange(self.num_sides) == lt_side[:, None]
        keep_lt = (top.sum(axis=1) > 1) & (top & is_lt).any(axis=1)
        out_t = np.where(keep_lt[:, None], top & ~is_lt, top)
        out = np.where(together[:, None], out_t, reached) & reached.any(axis=1)[:, None]
        self.in_match[idx] &= ~out
        self.out_after[idx] = np.where(out, dp[:, None], self.out_after[idx])

    def _end_match(self, idx: np.ndarray) -> np.ndarray:
        """C3.7 places (``scoring._end_match``): sides still in first, by fewer points; then the sides out,
        the later out the better (same deal: fewer points)."""
        scores = self.ledger.scores[idx]
        inm = self.in_match[idx]
        key = np.where(inm, scores, (1 << 40) + ((1000 - self.out_after[idx]) << 20) + scores)
        place = 1 + (key[:, None, :] < key[:, :, None]).sum(axis=2)
        return self._finish(idx, place, None)

    def _end_single(self, idx: np.ndarray, pen: np.ndarray, playing: np.ndarray) -> np.ndarray:
        """``single_deal`` (``scoring._end_single``): the smallest penalty of the deal first, the largest
        last; sides not playing it last."""
        pp = np.where(playing, pen, 1 << 20)
        below = (pp[:, None, :] < pp[:, :, None]) & playing[:, None, :]
        place = np.where(playing, 1 + below.sum(axis=2), playing.sum(axis=1, keepdims=True) + 1)
        hi = np.where(playing, pen, -1).max(axis=1, keepdims=True)
        return self._finish(idx, place, playing & (pen == hi))

    def _finish(self, idx: np.ndarray, place: np.ndarray, losers: np.ndarray | None) -> np.ndarray:
        """``scoring._finish``: winners the first place, losers the last (or ``losers``); nobody when every
        side shares the first place. With ``autoreset`` the next match starts: returns its games, to deal. A
        match over before any decision (``calls="auto"``: its forced set-up ended it) is played but not
        reported: the returns of the step stay those of the match that ended by a decision."""
        worst = place.max(axis=1, keepdims=True)
        share = worst == 1
        winners = (place == 1) & ~share
        lose = (place == worst) if losers is None else losers
        self.end_match_outputs(idx, winners, lose & ~share)  # keeps the returns of a match ended this step
        self.phase[idx] = PH_OVER
        self.current_player[idx] = -1
        self.sel[idx] = 0
        self.fam[idx] = 0
        self.beat_fam[idx] = 0
        if not self.autoreset:
            return idx[:0]
        self._new_match(idx, self.next_seeds(idx))
        return idx
