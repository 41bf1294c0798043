"""Bots for ``six_of_spades_v0`` (seed 004, RULES C3): lead 1-4 cards of a suit, answer with as many --
on top if they beat every top card one for one, else face down; the six of spades beats everything.

A lead or an answer is built card by card (the engine's actions ``0..35`` choose a card, in increasing
id, then ``lead`` / ``beat`` / ``down`` confirm). The bots decide the whole set at the start of the turn
from what they see -- their hand, the table, the cards taken face up, the hand sizes -- and then choose its
cards one by one; recomputing the plan at each step gives the same set (the hand does not change while
cards are chosen), so the bots need no memory between steps.

* **easy**: calls Moskva or Molodka when it can; leads its six of spades with its longest suit, otherwise
  its lowest single card; answers an opponent on top by beating with its cheapest covering set, and
  otherwise lays its emptiest cards face down; no memory of the cards gone; a careless move now and then.
* **normal**: counts the cards it has seen (taken face up, on the table, the trump card) to tell which of its
  cards nobody left can beat. Leads a set that cannot be covered when it has one (the most eyes, the most
  cards: every answer then goes to it), else its emptiest single card; answering, it feeds a partner who is
  safely on top with its fattest cards face down, beats an opponent only when the trick is worth it or its
  set cannot be taken back by the players still to answer, with the cheapest such set, and otherwise
  throws its emptiest cards (never the six of spades or a high trump if it can help it).
"""
from __future__ import annotations

import numpy as np

from kozel_env.cards.deck import FULL_DECK, NUM_CARDS, POINTS, SUIT_MASK, SUIT_OF
from kozel_env.cards.six_of_spades import (
    A_BEAT,
    A_DOWN,
    A_LEAD,
    A_MOLODKA,
    A_MOSKVA,
    A_PASS,
    BEATEN_BY,
    HAND,
    SIX_BIT,
    SIX_S,
    STRENGTH,
    covers,
)
from kozel_env.core.bits import bits as _bits

from . import ViewStrategy

_W36 = 2.0 ** np.arange(NUM_CARDS)
NOT_SIX = FULL_DECK & ~SIX_BIT


def _points(m: int) -> int:
    return sum(POINTS[c] for c in _bits(m))


def _subsets(m: int) -> list:
    out = []
    s = m
    while s:
        out.append(s)
        s = (s - 1) & m
    return out


class View:
    """What one seat sees, decoded once per decision (from the observation or an imagined state)."""

    __slots__ = ("hand", "sel", "phase", "t", "sizes", "leader", "lead", "k", "top", "top_seat", "answered",
                 "unseen", "n", "up")


class Strategy(ViewStrategy):
    pimc_levels = {"hard": {"n": 16, "depth": 16, "z": 1.0}, "crazy": {"n": 64, "depth": 16, "z": 1.0}}
    """``hard``: ``n`` imagined deals, each move played out ``depth`` actions (four tricks) and the position
    then scored (:meth:`position_value`); ``crazy``: four times the imagined deals, the same horizon (see
    :mod:`agents.pimc`). Measured against ``hard`` on the ladder's 200 duplicate sets, 48 deals played to the
    end of the deal were no real step (+0.12 [-0.15, +0.39] points per deal), 64 to the same horizon are
    (+0.42 [+0.16, +0.68])."""
    careless = 0.2

    def __init__(self, game):
        self.game = game
        r = game.rules
        self.rules = r
        self.n = r.num_players
        self.pairs = r.pairs
        sl = game.obs_spec.slices
        self.sl = sl
        self._plans = {}  # plan of a decision by its facts (a pure function: a cache for speed only)

    # ------------------------------------------------------------------ views
    def _view_obs(self, obs) -> View:
        sl = self.sl
        n = self.n
        v = View()
        v.n = n
        v.hand = int(obs[sl["hand"]] @ _W36)
        v.sel = int(obs[sl["selected"]] @ _W36)
        ph = obs[sl["phase"]]
        v.phase = int(ph.argmax()) if ph.any() else 3
        v.t = int(obs[sl["trump_suit"]].argmax())
        v.sizes = [int(x) for x in obs[sl["hand_sizes"]].reshape(n, HAND + 1).argmax(1)]
        v.leader = int(obs[sl["leader"]].argmax())
        v.lead = int(obs[sl["lead"]] @ _W36)
        v.k = v.lead.bit_count()
        v.top = int(obs[sl["top"]] @ _W36)
        ot = obs[sl["on_top"]]
        v.top_seat = int(ot.argmax()) if ot.any() else -1
        up = obs[sl["round_up"]].reshape(n, NUM_CARDS) @ _W36
        down = obs[sl["round_down"]]
        v.answered = [bool(up[q] or down[q]) for q in range(n)]
        v.up = 0
        for x in up:
            v.up |= int(x)
        known = v.hand | int(obs[sl["own_down"]] @ _W36)
        for x in obs[sl["taken_known"]].reshape(-1, NUM_CARDS) @ _W36:
            known |= int(x)
        for x in up:
            known |= int(x)
        tat = obs[sl["trump_card_at"]]
        if tat[0] > 0.5:  # the trump card still lies face up under the stock
            known |= int(obs[sl["trump_card"]] @ _W36)
        v.unseen = FULL_DECK & ~known
        return v

    def _view_state(self, st, seat: int) -> View:
        n = self.n
        v = View()
        v.n = n
        rel = [(seat + q) % n for q in range(n)]
        v.hand = st.hands[seat]
        v.sel = st.selected if st.current_player == seat else 0
        v.phase = st.phase
        v.t = st.trump_suit
        v.sizes = [st.hands[s].bit_count() for s in rel]
        v.leader = (st.leader - seat) % n
        v.lead = st.lead if st.phase == 2 else 0
        v.k = v.lead.bit_count()
        v.top = st.top_cards if st.phase == 2 else 0
        v.top_seat = (st.top_seat - seat) % n if st.phase == 2 and st.top_seat >= 0 else -1
        v.answered = [bool(st.round_up[s] or st.round_down[s]) for s in rel]
        v.up = 0
        for m in st.round_up:
            v.up |= m
        known = v.hand | st.laid_down[seat]
        for m in st.taken_face_up:
            known |= m
        for m in st.round_up:
            known |= m
        if st.trump_drawn_by < 0:
            known |= 1 << st.trump_card
        v.unseen = FULL_DECK & ~known
        return v

    # ------------------------------------------------------------------ one step of a plan
    def _act(self, legal, v: View, counting: bool) -> int:
        if v.phase == 0:  # a call is offered (C3.5): take it, the four lead together
            for a in (A_MOSKVA, A_MOLODKA):
                if a in legal:
                    return a
            return A_PASS if A_PASS in legal else legal[0]
        key = (v.hand, v.phase, v.t, v.top, v.lead, v.top_seat, v.up, tuple(v.sizes), tuple(v.answered),
               v.leader, v.unseen if counting else -1)
        got = self._plans.get(key)
        if got is None or not (got[0] is None or self._fits_selection(got[0], v.sel)):
            if v.phase == 1:
                got = self._plan_lead(v, counting), A_LEAD
            else:
                got = self._plan_answer(v, counting)
            if not v.sel:
                if len(self._plans) > 50_000:
                    self._plans.clear()
                self._plans[key] = got
        plan, confirm = got
        if plan is None:
            return legal[0]
        rest = plan & ~v.sel
        if rest:
            c = (rest & -rest).bit_length() - 1
            return c if c in legal else legal[0]
        return confirm if confirm in legal else legal[-1]

    def _fits_selection(self, s: int, sel: int) -> bool:
        """Set ``s`` can still be built from the chosen cards ``sel`` (they are its smallest members)."""
        if s & sel != sel:
            return False
        low = (1 << sel.bit_length()) - 1
        return s & low == sel

    # ------------------------------------------------------------------ leading
    def _cap(self, v: View) -> int:
        cap = HAND
        for q in range(v.n):
            if v.sizes[q] and v.sizes[q] < cap:
                cap = v.sizes[q]
        return cap

    def _lead_sets(self, v: View) -> list:
        cap = self._cap(v)
        out = []
        for s in _subsets(v.hand):
            if s.bit_count() > cap or not self._fits_selection(s, v.sel):
                continue
            u = s & NOT_SIX
            if u and u & ~SUIT_MASK[SUIT_OF[(u & -u).bit_length() - 1]]:
                continue
            out.append(s)
        return out

    def _beaters(self, c: int, v: View) -> int:
        """Unseen cards that beat top card ``c``."""
        return BEATEN_BY[v.t][c] & v.unseen

    def _safe_set(self, s: int, v: View) -> bool:
        """Nobody can cover ``s``: it holds the six of spades, or some card of it has no unseen beater."""
        if s & SIX_BIT:
            return True
        return any(not self._beaters(c, v) for c in _bits(s))

    def _keep(self, c: int, t: int) -> float:
        """What a card is worth keeping in hand beyond its eyes: the six of spades and trumps by rank."""
        if c == SIX_S:
            return 12.0
        if SUIT_OF[c] == t:
            return 4.0 + STRENGTH[c]
        return 0.3 * STRENGTH[c]

    def _plan_lead(self, v: View, counting: bool) -> int | None:
        sets = self._lead_sets(v)
        if not sets:
            return None
        t = v.t
        if not counting:
            if v.hand & SIX_BIT:
                return max(sets, key=lambda s: (bool(s & SIX_BIT), s.bit_count(), _points(s), s))
            singles = [s for s in sets if s.bit_count() == 1]
            pool = singles or sets
            return min(pool, key=lambda s: (sum(POINTS[c] + self._keep(c, t) for c in _bits(s)), s))
        safe = [s for s in sets if self._safe_set(s, v)]
        if safe:
            def gain(s):
                cost = 6.0 if s & SIX_BIT else 0.0
                keep = sum(self._keep(c, t) for c in _bits(s) if c != SIX_S)
                return _points(s) + 3.0 * s.bit_count() - cost - 0.2 * keep
            best = max(safe, key=lambda s: (gain(s), s))
            if gain(best) > 4:
                return best
        singles = [s for s in sets if s.bit_count() == 1 and not s & SIX_BIT] or sets
        return min(singles, key=lambda s: (sum(POINTS[c] + self._keep(c, t) for c in _bits(s)), s))

    # ------------------------------------------------------------------ answering
    def _plan_answer(self, v: View, counting: bool):
        k = v.k
        t = v.t
        subs = [s for s in _subsets(v.hand) if s.bit_count() == k and self._fits_selection(s, v.sel)]
        if not subs:
            return None, A_DOWN
        beat = [s for s in subs if not v.top & SIX_BIT and covers(s, v.top, t)]
        partner_top = self.pairs and v.top_seat == 2
        after = self._after(v)
        opp_after = [q for q in after if not (self.pairs and q == 2)]
        table = _points(v.up)  # the eyes face up on the table this round (face-down ones are not seen)

        def cost(s):
            return sum(self._keep(c, t) for c in _bits(s))

        def cheapest_down(s):
            return sum(POINTS[c] + self._keep(c, t) for c in _bits(s))

        if not counting:
            if beat and not partner_top:
                return min(beat, key=lambda s: (cost(s), s)), A_BEAT
            return min(subs, key=lambda s: (cheapest_down(s), s)), A_DOWN
        if partner_top:
            top_safe = not opp_after or self._safe_set(v.top, v)
            if top_safe:  # feed the partner: our fattest cards face down, keep the weapons
                return max(subs, key=lambda s: (_points(s) - 0.5 * cost(s), s)), A_DOWN
            safe_beat = [s for s in beat if not opp_after or self._safe_set(s, v)]
            if safe_beat and table >= 10:
                return min(safe_beat, key=lambda s: (cost(s), s)), A_BEAT
            return min(subs, key=lambda s: (cheapest_down(s), s)), A_DOWN
        if beat:
            safe_beat = [s for s in beat if not opp_after or self._safe_set(s, v)]
            if safe_beat:
                best = min(safe_beat, key=lambda s: (cost(s) - _points(s), s))
                if table + _points(best) >= 3 or cost(best) < 6:
                    return best, A_BEAT
            best = min(beat, key=lambda s: (cost(s) - 0.5 * _points(s), s))
            if table >= 10 and cost(best) < 12:
                return best, A_BEAT
        return min(subs, key=lambda s: (cheapest_down(s), s)), A_DOWN

    def _after(self, v: View) -> list:
        """Seat offsets that still answer this round after me (clockwise, before the leader)."""
        out = []
        for q in range(1, v.n):
            if q == v.leader:
                break
            if v.sizes[q] and not v.answered[q]:
                out.append(q)
        return out

    # ------------------------------------------------------------------ playouts
    def position_value(self, state, seat: int) -> float:
        """For playouts cut short (``pimc:depth=``): the eyes taken so far per side, 30 to a point."""
        pts = [_points(m) for m in state.taken]
        return (pts[self.rules.side_of(seat)] - sum(pts) / len(pts)) / 30.0

    def deal_value(self, state, seat: int) -> float:
        """Minus the seat's side's penalty relative to the table, plus a little per eye taken."""
        res = state.last_result
        pts = res["seat_points"]
        r = self.rules
        sp = res["points"]  # the eyes each side took in the deal (RULES C)
        v = pts[seat] - sum(pts) / len(pts)
        if sp:
            v += 0.02 * (sp[r.side_of(seat)] - sum(sp) / len(sp))
        return v
