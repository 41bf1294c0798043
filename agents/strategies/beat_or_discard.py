"""Bots for ``beat_or_discard_v0`` (seed 002, RULES C1): lead cards of a suit; the others beat every top
card one for one or lay cards face down until they hold no more than the last beater; the last beater takes
everything on the table.

Every multi-card move (lead, beat, discard, equalising) is built card by card (actions ``0..35`` pick a
card, in increasing id, then ``36`` play / ``37`` face down confirm; ``38`` pass or done, ``39`` claim). The
bots choose the whole set at the start of a decision from what they see and then pick its cards one by one;
the plan is a function of the facts of the decision (the hand does not change while picking), so the bot
needs no memory between steps (plans are cached by those facts, for speed only).

* **easy** (no memory): leads its emptiest single card; when an opponent is on top it beats with its
  cheapest covering set (trumps and high cards cost the most), otherwise it lays its emptiest cards face
  down (or passes); says done as the last beater; never claims; a careless move now and then.
* **normal**: plays the same way, and counts the cards it has seen (its hand, the table, the face-up cards
  in the tricks, the revealed bottom card): when its partner is on top with a card nobody left can beat, it
  feeds the partner its fattest cards face down instead of its emptiest ones.

Measured (``python -m agents.arena``, 150-200 duplicate sets): leading sets nobody can cover, preferring
uncoverable beats, overtaking a partner, keeping winners out of discards, beating again and claiming with
a long suit headed by its ace or of trumps all came out even with, or worse than, the rule above, so
``normal`` leaves them out; the game's subtleties are left to the search bots.
"""
from __future__ import annotations

import numpy as np

from kozel_env.cards.beat_or_discard import (
    A_DOWN,
    A_PASS,
    A_PLAY,
    PH_ANSWER,
    PH_CLAIM,
    PH_EQUALISE,
    PH_LEAD,
    PH_REBEAT,
    STRENGTH,
    beat_sets,
)
from kozel_env.cards.deck import FULL_DECK, NUM_CARDS, POINTS, SUIT_MASK, SUIT_OF

from . import ViewStrategy

_W36 = 2.0 ** np.arange(NUM_CARDS)
_CHUNK = tuple(tuple(s * 9 + i for i in range(9) if m >> i & 1) for s in range(4) for m in range(512))


def _bits(m: int) -> tuple:
    return (_CHUNK[m & 511] + _CHUNK[512 + (m >> 9 & 511)] + _CHUNK[1024 + (m >> 18 & 511)]
            + _CHUNK[1536 + (m >> 27 & 511)])


def _keep(c: int, t: int) -> float:
    """Worth of keeping a card beyond its eyes: trumps by rank, other cards a little by rank."""
    return 4.0 + STRENGTH[c] if SUIT_OF[c] == t else 0.3 * STRENGTH[c]


def _chunk_sums(f):
    return tuple(tuple(sum(f(s * 9 + i) for i in range(9) if m >> i & 1) for m in range(512)) for s in range(4))


_PTS = _chunk_sums(lambda c: POINTS[c])
_KEEP = tuple(_chunk_sums(lambda c, t=t: _keep(c, t)) for t in range(4))


def _points(m: int) -> int:
    p = _PTS
    return p[0][m & 511] + p[1][m >> 9 & 511] + p[2][m >> 18 & 511] + p[3][m >> 27 & 511]


def _cost(m: int, t: int) -> float:
    k = _KEEP[t]
    return k[0][m & 511] + k[1][m >> 9 & 511] + k[2][m >> 18 & 511] + k[3][m >> 27 & 511]


def _subsets_of_size(m: int, k: int) -> list:
    out = []
    s = m
    while s:
        if s.bit_count() == k:
            out.append(s)
        s = (s - 1) & m
    return out


class View:
    __slots__ = ("hand", "sel", "top", "phase", "t", "lb", "need", "locked", "unseen", "limit")


class Strategy(ViewStrategy):
    pimc_levels = {"hard": {"n": 16, "depth": 16, "z": 1.0}, "crazy": {"n": 48, "z": 1.0}}
    """``hard``: ``n`` imagined deals, each move played out ``depth`` actions and the position then scored
    (:meth:`position_value`); ``crazy``: more imagined deals, played out to the end of the deal (see
    :mod:`agents.pimc`)."""
    careless = 0.2

    def __init__(self, game):
        self.game = game
        r = game.rules
        self.rules = r
        self.n = r.num_players
        self.pairs = r.pairs
        self.hs = r.hand_size
        self.sl = game.obs_spec.slices
        self._plans = {}

    # ------------------------------------------------------------------ views
    def _view_obs(self, obs) -> View:
        sl = self.sl
        n = self.n
        v = View()
        v.hand = int(obs[sl["hand"]] @ _W36)
        v.sel = int(obs[sl["selected"]] @ _W36)
        v.top = int(obs[sl["top"]] @ _W36)
        v.phase = int(obs[sl["decision"]].argmax())
        v.t = int(obs[sl["trump"]].argmax())
        lb = obs[sl["last_beater"]]
        v.lb = int(lb.argmax()) if lb.any() else -1
        v.need = int(obs[sl["owed"]].sum())
        v.locked = bool(obs[sl["locked"]][0])
        known = v.hand | int(obs[sl["my_down"]] @ _W36) | int(obs[sl["revealed"]] @ _W36)
        for x in obs[sl["table"]].reshape(n, NUM_CARDS) @ _W36:
            known |= int(x)
        for x in obs[sl["pile_seen"]].reshape(-1, NUM_CARDS) @ _W36:
            known |= int(x)
        v.unseen = FULL_DECK & ~known
        v.limit = self._limit([int(c) for c in obs[sl["hand_counts"]].reshape(n, self.hs).sum(1)])
        return v

    def _view_state(self, st, seat: int) -> View:
        n = self.n
        v = View()
        v.hand = st.hands[seat]
        v.sel = st.picked if st.current_player == seat else 0
        v.top = st.top
        v.phase = st.phase
        v.t = st.trump
        v.lb = (st.last_beater - seat) % n if st.last_beater >= 0 else -1
        v.need = st.owed if st.phase in (PH_ANSWER, PH_EQUALISE) else 0
        v.locked = bool(st.locked >> seat & 1)
        known = v.hand | st.table_down[seat] | ((1 << st.revealed) if st.revealed >= 0 else 0)
        for m in st.table_up:
            known |= m
        laid_down = st.laid_down[seat]
        for s in range(len(st.piles)):
            known |= st.piles_up[s] | (st.piles[s] & laid_down)
        v.unseen = FULL_DECK & ~known
        v.limit = self._limit([st.hands[(seat + q) % n].bit_count() for q in range(n)])
        return v

    def _limit(self, counts) -> int:
        if self.hs != 4:
            return 6
        held = [c for c in counts if c]
        return min(held) if held else 1

    # ------------------------------------------------------------------ decisions
    def _act(self, legal, v: View, counting: bool) -> int:
        ph = v.phase
        if ph == PH_CLAIM or ph == PH_REBEAT:
            return A_PASS if A_PASS in legal else legal[0]  # no claim; "done": take the trick now
        key = (v.hand, v.top, ph, v.t, v.lb, v.need, v.locked, v.limit, A_PASS in legal,
               v.unseen if counting else -1)
        got = self._plans.get(key)
        if got is None or not self._fits(got[0], v.sel):
            if ph == PH_LEAD:
                got = self._plan_lead(v), A_PLAY
            elif ph == PH_EQUALISE:
                got = self._plan_down(v, v.need, feed=False), A_DOWN
            else:
                got = self._plan_answer(v, counting, A_PASS in legal)
            if not v.sel:
                if len(self._plans) > 50_000:
                    self._plans.clear()
                self._plans[key] = got
        plan, confirm = got
        if plan is None:
            return confirm if confirm in legal else legal[0]
        rest = plan & ~v.sel
        if rest:
            c = (rest & -rest).bit_length() - 1
            return c if c in legal else legal[0]
        return confirm if confirm in legal else legal[-1]

    @staticmethod
    def _fits(s, sel: int) -> bool:
        if s is None:
            return not sel
        if s & sel != sel:
            return False
        return s & ((1 << sel.bit_length()) - 1) == sel

    def _unbeatable(self, c: int, v: View) -> bool:
        """No unseen card beats ``c`` (C1.2: a higher card of its suit, or any trump over a plain card)."""
        s = SUIT_OF[c]
        for x in _bits(v.unseen & SUIT_MASK[s]):
            if STRENGTH[x] > STRENGTH[c]:
                return False
        return s == v.t or not v.unseen & SUIT_MASK[v.t]

    def _plan_lead(self, v: View) -> int | None:
        t = v.t
        singles = [1 << c for c in _bits(v.hand) if self._fits(1 << c, v.sel)]
        if not singles:  # picks already made (a careless step): finish the cheapest lead that extends them
            s = SUIT_MASK[SUIT_OF[v.sel.bit_length() - 1]] & v.hand
            return v.sel if s else None
        return min(singles, key=lambda u: (_points(u) + _cost(u, t), u))

    def _plan_down(self, v: View, k: int, feed: bool) -> int | None:
        if k <= 0:
            return None
        t = v.t
        subs = [s for s in _subsets_of_size(v.hand, k) if self._fits(s, v.sel)]
        if not subs:
            return None
        if feed:
            return max(subs, key=lambda s: (_points(s) - 0.5 * _cost(s, t), s))
        return min(subs, key=lambda s: (_points(s) + _cost(s, t), s))

    def _plan_answer(self, v: View, counting: bool, can_pass: bool):
        t = v.t
        k = v.need
        partner_top = self.pairs and v.lb == 2
        if counting and partner_top and any(self._unbeatable(c, v) for c in _bits(v.top)):
            # the partner holds the trick for sure: feed it our fattest cards
            return (self._plan_down(v, k, feed=True), A_DOWN) if k > 0 else (None, A_PASS)
        if not partner_top and not v.locked and v.top:
            bs = [b for b in beat_sets(v.hand, v.top, t) if self._fits(b, v.sel)]
            if bs:
                return min(bs, key=lambda s: (_cost(s, t), s)), A_PLAY
        if k > 0:
            return self._plan_down(v, k, feed=False), A_DOWN
        return None, (A_PASS if can_pass else A_PLAY)

    # ------------------------------------------------------------------ playouts
    def position_value(self, state, seat: int) -> float:
        """For playouts cut short (``pimc:depth=``): the eyes in each side's tricks, 30 to a point."""
        pts = [_points(m) for m in state.piles]
        return (pts[self.rules.side_of(seat)] - sum(pts) / len(pts)) / 30.0

    def deal_value(self, state, seat: int) -> float:
        """Minus the seat's side's penalty relative to the table, plus a little per eye taken."""
        res = state.last_result
        pts = res["seat_points"]
        v = pts[seat] - sum(pts) / len(pts)
        p = res.get("points")
        if p:
            side = self.rules.side_of(seat)
            v += 0.02 * (p[side] - sum(p) / len(p))
        return v
