"""``beat_or_discard_v0`` batched: the observations and the legal-action masks of a whole batch from the
struct-of-arrays state of :class:`~kozel_env.vector.beat_or_discard.BatchedBeatOrDiscard`.

Both are the scalar code's, term for term: :meth:`BeatOrDiscardGame.observe
<kozel_env.cards.beat_or_discard.game.BeatOrDiscardGame.observe>` (every position from the scalar
``obs_spec`` by part name, the claim one-hots from its ``CLAIM_NS``) and :meth:`BeatOrDiscardState.legal_mask
<kozel_env.cards.beat_or_discard.engine.BeatOrDiscardState.legal_mask>` (the action bits ``B_*`` and the
phases ``PH_*`` of the scalar tables). Masks are int64 (36 card bits, 40 action bits).
"""
from __future__ import annotations

import numpy as np

from ..cards.beat_or_discard.game import CLAIM_NS
from ..cards.beat_or_discard.tables import (
    B_CLAIM,
    B_DOWN,
    B_PASS,
    B_PLAY,
    PH_ANSWER,
    PH_CLAIM,
    PH_EQUALISE,
    PH_LEAD,
    PH_OVER,
    SUIT_OF_CARD,
)
from .bits import popcount as pc

I64 = np.int64
U64 = np.uint64
SUIT_OF = np.array(SUIT_OF_CARD, I64)
"""``SUIT_OF[c]``: the mask of ``c``'s suit (tables.SUIT_OF_CARD)."""
SUIT_SHIFTS = (0, 9, 18, 27)
assert all(SUIT_OF_CARD[9 * s] == 511 << sh for s, sh in enumerate(SUIT_SHIFTS))
assert tuple(CLAIM_NS) == tuple(range(CLAIM_NS[0], CLAIM_NS[0] + len(CLAIM_NS)))


def bit_length(x: np.ndarray) -> np.ndarray:
    """``int.bit_length`` of each non-negative int64 below 2 ** 53 (exact through the float exponent)."""
    return np.frexp(x.astype(np.float64))[1].astype(I64)


def low_bit(x: np.ndarray) -> np.ndarray:
    return x & -x


def longest_suit(h: np.ndarray) -> np.ndarray:
    """tables.longest_suit of each hand: the most cards of one suit."""
    return np.maximum(np.maximum(pc(h & 511), pc(h >> 9 & 511)), np.maximum(pc(h >> 18 & 511), pc(h >> 27 & 511)))


def claim_possible(e, idx: np.ndarray, q: np.ndarray) -> np.ndarray:
    """engine.claim_possible of seat ``q`` in games ``idx`` (public counts only)."""
    k = pc(e.hands[idx, q])
    return ((k >= e.claim_floor) & (k > e.best_claim[idx]) & (q != e.leader[idx])
            & ((e.acted[idx] >> q & 1) == 0))


def claimable(e, idx: np.ndarray, q: np.ndarray) -> np.ndarray:
    """engine.claimable: a claim is possible and the longest suit is long enough."""
    n = longest_suit(e.hands[idx, q])
    return claim_possible(e, idx, q) & (n >= e.claim_floor) & (n > e.best_claim[idx])


def masks(e, idx: np.ndarray) -> np.ndarray:
    """engine.legal_mask of games ``idx`` (int64 action masks; 0 where the match is over)."""
    ph = e.phase[idx]
    cp = np.maximum(e.current_player[idx], 0)
    h = e.hands[idx, cp]
    sel = e.picked[idx]
    has = sel != 0
    le = (np.left_shift(1, bit_length(sel)) - 1)
    owed = e.owed[idx]
    m = np.where(ph == PH_CLAIM, B_PASS | np.where(claimable(e, idx, cp), B_CLAIM, 0), 0)
    lead = ph == PH_LEAD
    if lead.any():
        top_suit = SUIT_OF[np.maximum(bit_length(sel) - 1, 0)]
        more = np.where(pc(sel) < owed, h & top_suit & ~le, 0)
        m = np.where(lead, np.where(has, B_PLAY | more, h), m)
    ans = (ph > PH_LEAD) & (ph < PH_OVER)
    if ans.any():
        m = np.where(ans, _answer_mask(e, idx, h, sel, le, owed), m)
    return m


def _answer_mask(e, idx, h, sel, le, owed) -> np.ndarray:
    """The mask of an answer, a beat again or an equalising (phases after the lead)."""
    beats = e.beats[idx]
    has = sel != 0
    r = beats & ~le[:, None]
    agree = (beats != 0) & ((beats & le[:, None]) == sel[:, None])
    nxt = np.where(r != 0, low_bit(r), B_PLAY)
    with_sel = np.bitwise_or.reduce(np.where(agree, nxt, 0), axis=1)
    without = np.bitwise_or.reduce(low_bit(beats), axis=1)
    m = np.where(has, with_sel, without)
    left = owed - pc(sel)
    av = h & ~le
    fits = (owed > 0) & (left > 0) & (pc(av) >= left)
    drop = np.where(fits, left - 1, 0)
    for _ in range(int(drop.max(initial=0))):
        top = np.where(drop > 0, np.left_shift(1, np.maximum(bit_length(av) - 1, 0)), 0)
        av = av ^ top
        drop = drop - 1
    m |= np.where(fits, av, 0)
    m |= np.where((owed > 0) & (left == 0), B_DOWN, 0)
    return m | np.where(has, 0, e.offered[idx])


def observe(e, out: np.ndarray) -> np.ndarray:
    """game.observe(state, max(current_player, 0)) of every game."""
    spec = e.game.obs_spec
    B, n = e.num_envs, e.num_players
    pk = e.packer
    pk.clear(B)
    ar = np.arange(B)
    cp = e.current_player
    p = np.maximum(cp, 0)
    mine = cp >= 0
    ph = e.phase

    def put(value, name, *index, width=64):
        pk.put(np.asarray(value, I64).astype(U64), name, *index, width=width)

    put(e.hands[ar, p], "hand", width=36)
    put(e.top, "top", width=36)
    put(e.lead, "lead", width=36)
    put(e.table_down[ar, p], "my_down", width=36)
    put(np.where(mine, e.picked, 0), "selected", width=36)
    put(np.where(mine, np.left_shift(1, np.minimum(ph, 4)), 0), "decision", width=5)
    owes = mine & ((ph == PH_ANSWER) | (ph == PH_EQUALISE))
    pk.put_count(np.where(owes, e.owed, 0), spec.offset("owed"), e.rules.hand_size)
    put(np.where(e.revealed >= 0, np.left_shift(1, np.maximum(e.revealed, 0)), 0), "revealed", width=36)
    full = (1 << n) - 1
    for name, m in (("locked", e.locked), ("acted", e.acted), ("out", e.out)):
        put(((m >> p) | (m << (n - p))) & full, name, width=n)
    put(np.left_shift(1, e.trump), "trump", width=4)
    _seat_rows(e, put, pk, ar, p)
    _side_rows(e, put, pk, ar, p)
    put(np.where(e.terminal, 0, np.left_shift(1, (e.leader - p) % n)), "leader", width=n)
    lb = e.last_beater
    put(np.where(lb >= 0, np.left_shift(1, (lb - p) % n), 0), "last_beater", width=n)
    put(e.first_game, "first_game", width=1)
    dl = e.diamond_leader
    put(np.where(dl >= 0, np.left_shift(1, (dl - p) % n), 0), "diamond_leader", width=n)
    put(np.left_shift(1, np.minimum(e.eggs, 3)), "eggs", width=4)
    pk.put_count(pc(e.stock), spec.offset("stock"), 36)
    pk.unpack(out)
    return out


def _seat_rows(e, put, pk, ar, p) -> None:
    """The parts with a row per relative seat: table, known, hand and down counts, claims."""
    spec = e.game.obs_spec
    n = e.num_players
    up = e.top != 0
    c0 = CLAIM_NS[0]
    for k in range(n):
        q = (p + k) % n
        put(np.where(up, e.table_up[ar, q], 0), "table", k, width=36)
        put(e.known[ar, q], "known", k, width=36)
        pk.put_count(pc(e.hands[ar, q]), spec.offset("hand_counts", k), e.rules.hand_size)
        pk.put_count(pc(e.table_down[ar, q]), spec.offset("down_counts", k), e.rules.hand_size)
        c = e.claims[ar, q]
        put(np.where(c > 0, np.left_shift(1, np.maximum(c - c0, 0)), 0), "claims", k, width=len(CLAIM_NS))


def _side_rows(e, put, pk, ar, p) -> None:
    """The parts with a row per relative side: pile_seen, took, pile_counts, scores."""
    spec = e.game.obs_spec
    S = e.num_sides
    mine_down = e.laid_down[ar, p]
    tg = e.rules.target
    took = np.zeros(len(ar), I64)
    for k in range(S):
        s = (p % 2 + k) % 2 if e.rules.pairs else (p + k) % e.num_players
        pl = e.piles[ar, s]
        put(np.where(pl != 0, e.piles_up[ar, s] | (pl & mine_down), 0), "pile_seen", k, width=36)
        took |= np.where(pl != 0, 1 << k, 0)
        pk.put_count(pc(pl), spec.offset("pile_counts", k), 36)
        pk.put_count(e.scores[ar, s], spec.offset("scores", k), tg)
    put(took, "took", width=S)
