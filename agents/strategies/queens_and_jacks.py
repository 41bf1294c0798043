"""Bots for ``queens_and_jacks_v0`` (seed 003, RULES C2): the card game with queens and jacks always trump.

Reads the observation's named parts (``hand``, ``trick``, ``played``, ``voids``, ``trump``, ``naming``,
``rules``) and the engine's tables (trump masks, effective suits, strength order, card points).

* **easy** (seed 003: "plays sensible cards but doesn't keep track of what has gone"): looks only at its
  hand and the cards on the table. Leads an ace if it has one, else a low card of its longest plain suit;
  following, it throws its fattest card on a trick its partner is winning, takes the trick with its
  cheapest winning card, or else plays its emptiest card; and now and then a careless one.
* **normal** (seed 003: "counts the cards: it cashes winners, draws trumps when it is long in them, feeds
  its partner and ducks when it can't win", and the strategy tips): knows every card played and every void
  shown. Leads a sure winner (the best card left in its suit, no ruff in sight), draws trumps with four or
  more and the top one, never leads a ten while its ace is out, leads into its partner's void; following,
  it feeds its partner only when the partner's card is safe, takes a trick only with a card that cannot be
  beaten by the players still to come (the cheapest such), and otherwise ducks with its emptiest card.
  Names (named rule) the suit that gives it the most and strongest trumps.
"""
from __future__ import annotations

import numpy as np

from kozel_env.cards.deck import POINTS, deck_mask
from kozel_env.cards.queens_and_jacks import EFF, FOLLOW, NAME_BASE, STRENGTH, TRUMP_MASK
from kozel_env.core.bits import bits as _bits

_W36 = 2.0 ** np.arange(36)
_BIT = tuple(1 << c for c in range(36))


def _beats(t: int, x: int, b: int) -> bool:
    """Card ``x`` played on a trick whose best card is ``b`` takes it over (C2.4)."""
    ex, eb = EFF[t][x], EFF[t][b]
    if ex == eb:
        return STRENGTH[x] > STRENGTH[b]
    return ex == t


def _keep_cost(t: int, c: int) -> float:
    """How much it hurts to give card ``c`` away cheaply: its eyes, and trumps by strength."""
    if EFF[t][c] == t:
        return POINTS[c] + 6.0 + STRENGTH[c]
    return POINTS[c] + 0.1 * STRENGTH[c]


class Strategy:
    pimc_levels = {"hard": {"n": 16, "z": 1.0, "work": 1500}, "crazy": {"n": 128, "z": 1.0}}
    """``hard``: ``n`` imagined deals, each move played out to the end of the deal (a queens-and-jacks deal
    is short: 9 tricks), at most ``work`` playout moves a decision once 4 imagined deals are in: an early
    decision with 8-9 legal cards would otherwise play about 5,000 moves (70 ms at the 95th percentile on
    one core, up to 185 ms under load); capped, its 95th percentile is about 31 ms (the 50 ms budget of
    ``hard``). ``crazy``: eight times the imagined deals, uncapped (see :mod:`agents.pimc`). Against
    ``hard`` on the ladder's 150 duplicate sets, 64 deals were no real step (+0.05 [-0.11, +0.21] points
    per deal), 128 are (+0.35 [+0.21, +0.50])."""
    careless = 0.2

    def __init__(self, game):
        self.game = game
        sl = game.obs_spec.slices
        self.s_hand = sl["hand"]
        self.s_trick = sl["trick"]
        self.s_played = sl["played"]
        self.s_voids = sl["voids"]
        self.s_trump = sl["trump"]
        self.s_naming = sl["naming"]
        self.deck = deck_mask(game.rules.deck)

    # ------------------------------------------------------------------ reading
    def _read(self, obs):
        hand = int(obs[self.s_hand] @ _W36)
        rows = obs[self.s_trick].reshape(4, 36)
        trick = [-1, -1, -1, -1]
        k = 0
        for q in (1, 2, 3):
            row = rows[q]
            if row.any():
                trick[q] = int(row.argmax())
                k += 1
        played = 0
        for x in obs[self.s_played].reshape(4, 36) @ _W36:
            played |= int(x)
        v = obs[self.s_voids].reshape(4, 4) @ (1.0, 2.0, 4.0, 8.0)
        voids = [int(x) for x in v]
        tr = obs[self.s_trump]
        t = int(tr.argmax()) if tr.any() else -1
        return hand, t, trick, k, played, voids

    def _state_view(self, st, seat):
        trick = [st.trick[(seat + q) & 3] for q in range(4)]
        played = st.played[0] | st.played[1] | st.played[2] | st.played[3]
        voids = [st.voids[(seat + q) & 3] for q in range(4)]
        return st.hands[seat], st.trump, trick, st.cards_in_trick, played, voids

    # ------------------------------------------------------------------ entry points
    def easy(self, obs, mask, rng=None) -> int:
        legal = np.flatnonzero(mask).tolist()
        if len(legal) == 1:
            return legal[0]
        if legal[0] >= NAME_BASE:
            return self._name(int(obs[self.s_hand] @ _W36))
        return self._easy(legal, *self._read(obs))

    def normal(self, obs, mask, rng=None) -> int:
        legal = np.flatnonzero(mask).tolist()
        if len(legal) == 1:
            return legal[0]
        if legal[0] >= NAME_BASE:
            return self._name(int(obs[self.s_hand] @ _W36))
        return self._normal(legal, *self._read(obs))

    def easy_state(self, st, seat, legal) -> int:
        if legal[0] >= NAME_BASE:
            return self._name(st.hands[seat])
        return self._easy(legal, *self._state_view(st, seat))

    def normal_state(self, st, seat, legal) -> int:
        if legal[0] >= NAME_BASE:
            return self._name(st.hands[seat])
        return self._normal(legal, *self._state_view(st, seat))

    # ------------------------------------------------------------------ naming (named rule, C2.3)
    def _name(self, hand: int) -> int:
        best, best_v = 0, -1.0
        for s in range(4):
            tr = hand & TRUMP_MASK[s]
            v = sum(1.0 + 0.05 * STRENGTH[c] for c in _bits(tr)) + 0.01 * s
            if v > best_v:
                best, best_v = s, v
        return NAME_BASE + best

    # ------------------------------------------------------------------ trick helpers
    @staticmethod
    def _best(t, trick, k):
        """(best card, its seat offset) of the trick so far, played by offsets 4-k .. 3."""
        best, who = -1, -1
        for q in range(4 - k, 4):
            c = trick[q]
            if best < 0 or _beats(t, c, best):
                best, who = c, q
        return best, who

    # ------------------------------------------------------------------ easy
    def _easy(self, legal, hand, t, trick, k, played, voids) -> int:
        if k == 0:
            aces = [c for c in legal if c % 9 == 8 and EFF[t][c] != t]
            if aces:
                return aces[0]
            return self._low_from_long(legal, hand, t, played=None)
        best, who = self._best(t, trick, k)
        if who == 2:  # partner is winning: feed
            return max(legal, key=lambda c: (POINTS[c] - (6 + STRENGTH[c] if EFF[t][c] == t else 0), -c))
        winners = [c for c in legal if _beats(t, c, best)]
        if winners:
            return min(winners, key=lambda c: (_keep_cost(t, c), c))
        return min(legal, key=lambda c: (_keep_cost(t, c), c))

    def _low_from_long(self, legal, hand, t, played) -> int:
        """A low card of the longest plain suit (not a ten whose ace is still out, when counting)."""
        plain = [c for c in legal if EFF[t][c] != t]
        if not plain:
            return min(legal, key=lambda c: (STRENGTH[c], c))
        length = {}
        for c in plain:
            s = EFF[t][c]
            length[s] = length.get(s, 0) + 1

        def key(c):
            s = EFF[t][c]
            ace = s * 9 + 8
            bad_ten = played is not None and c % 9 == 4 and not (played >> ace) & 1 and not hand >> ace & 1
            return (bad_ten, POINTS[c] >= 10, -length[s], POINTS[c], STRENGTH[c], c)

        return min(plain, key=key)

    # ------------------------------------------------------------------ normal
    def _normal(self, legal, hand, t, trick, k, played, voids) -> int:
        unseen = self.deck & ~hand & ~played
        trumps = TRUMP_MASK[t]
        unseen_trumps = unseen & trumps
        if k == 0:
            return self._lead(legal, hand, t, unseen, unseen_trumps, voids)
        best, who = self._best(t, trick, k)
        led = EFF[t][trick[4 - k]]
        after = [q for q in range(1, 4 - k)]  # seats still to play after me (offsets)
        opp_after = [q for q in after if q != 2]
        on_table = sum(POINTS[trick[q]] for q in range(4 - k, 4))
        if who == 2 and self._safe(t, best, led, unseen, voids, opp_after):
            # partner has it: feed the fattest card that is not a trump worth keeping
            return max(legal, key=lambda c: (POINTS[c] - (6 + STRENGTH[c] if EFF[t][c] == t else 0), -c))
        sure = [c for c in legal if _beats(t, c, best) and self._safe(t, c, led, unseen, voids, opp_after)]
        if sure:
            c = min(sure, key=lambda c: ((1, STRENGTH[c]) if EFF[t][c] == t else (0, -POINTS[c]), c))
            worth = on_table + POINTS[c]
            if EFF[t][c] != t or worth >= 3 or STRENGTH[c] < 7:
                if who != 2 or worth >= 3:
                    return c
        return min(legal, key=lambda c: (_keep_cost(t, c), c))

    def _safe(self, t, c, led, unseen, voids, opp_after) -> bool:
        """No opponent still to play can hold a card that beats ``c`` on this trick, as far as the voids and
        the cards gone tell (a plain suit with one or no card out is assumed ruffable)."""
        if not opp_after:
            return True
        ec = EFF[t][c]
        follow = FOLLOW[t][led]
        unseen_led = unseen & follow
        for q in opp_after:
            vq = voids[q]
            if ec == led and not (vq >> led) & 1:  # a higher card of the led suit
                for x in _bits(unseen_led):
                    if STRENGTH[x] > STRENGTH[c]:
                        return False
            if not (vq >> t) & 1:
                ut = unseen & TRUMP_MASK[t]
                if led != t:
                    may_ruff = (vq >> led) & 1 or unseen_led.bit_count() <= 1
                    if may_ruff and ut and (ec != t or any(STRENGTH[x] > STRENGTH[c] for x in _bits(ut))):
                        return False
                elif ec == t and any(STRENGTH[x] > STRENGTH[c] for x in _bits(ut)):
                    return False
        return True

    def _lead(self, legal, hand, t, unseen, unseen_trumps, voids) -> int:
        mine_t = [c for c in legal if EFF[t][c] == t]
        top_unseen = max((STRENGTH[x] for x in _bits(unseen_trumps)), default=-1)
        if mine_t:
            top = max(mine_t, key=lambda c: STRENGTH[c])
            # draw trumps when long and holding the top one (seed 003 tips)
            if unseen_trumps and STRENGTH[top] > top_unseen and len(mine_t) >= 4:
                return top
        # cash sure winners in plain suits
        opp_void_ruff = [q for q in (1, 3) if not (voids[q] >> t) & 1]
        cash = []
        for c in legal:
            s = EFF[t][c]
            if s == t:
                continue
            out = unseen & FOLLOW[t][s]
            if any(STRENGTH[x] > STRENGTH[c] for x in _bits(out)):
                continue
            if unseen_trumps and (any((voids[q] >> s) & 1 for q in opp_void_ruff) or out.bit_count() <= 1):
                continue
            cash.append(c)
        if cash:
            return max(cash, key=lambda c: (POINTS[c], -c))
        if mine_t and unseen_trumps and STRENGTH[max(mine_t, key=lambda c: STRENGTH[c])] > top_unseen \
                and len(mine_t) >= 2 and len(mine_t) * 3 >= unseen_trumps.bit_count():
            return max(mine_t, key=lambda c: STRENGTH[c])
        # lead into the partner's void (the partner may ruff) unless the opponents are void too
        if not (voids[2] >> t) & 1 and unseen_trumps:
            for c in sorted(legal, key=lambda c: (POINTS[c], STRENGTH[c])):
                s = EFF[t][c]
                if s != t and (voids[2] >> s) & 1 and not any((voids[q] >> s) & 1 for q in (1, 3)) \
                        and POINTS[c] < 10:
                    return c
        return self._low_from_long(legal, hand, t, played=self.deck & ~hand & ~unseen)

    # ------------------------------------------------------------------ playouts
    def position_value(self, state, seat: int) -> float:
        """For playouts cut short (``pimc:depth=``): the eyes taken so far, 30 eyes to a point."""
        s = seat & 1
        return (state.eyes[s] - state.eyes[1 - s]) / 30.0

    def deal_value(self, state, seat: int) -> float:
        """Points written for the seat's side minus the other side's, plus a little for each eye of margin
        (so that 31 saved eyes or a near miss count in the playout)."""
        res = state.last_result
        pts = res["seat_points"]
        eyes = res["eyes"]
        s = seat & 1
        return (pts[seat] - pts[(seat + 1) & 3]) + 0.02 * (eyes[s] - eyes[1 - s])
