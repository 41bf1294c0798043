"""``beat_or_discard_v0`` batched: the observations and the legal-action masks of a whole batch from the
struct-of-arrays state of :class:`~kozel_env.vector.beat_or_discard.BatchedBeatOrDiscard`.

Both are the scalar code's, term for term: :meth:`BeatOrDiscardGame.observe
<kozel_env.cards.beat_or_discard.game.BeatOrDiscardGame.observe>` (every position from the scalar
``obs_spec`` by part name, the claim one-hots from its ``CLAIM_NS``) and :meth:`BeatOrDiscardState.legal_mask
<kozel_env.cards.beat_or_discard.engine.BeatOrDiscardState.legal_mask>` (the action bits ``B_*`` and the
phases ``PH_*`` of the scalar tables). Masks are int64 (36 card bits, 40 action bits). An observation is
built as 64-bit words (:class:`Words`: each part added into its word at its ``obs_spec`` offset, the parts
relative to the player gathered with one flat ``take`` per field) and unpacked into the float32 row once.
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


def seat(x: np.ndarray, idx: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``x[idx, q]`` of a per-seat array ``x[B, n]``: one flat ``take`` (cheaper than a pair of index arrays)."""
    return x.ravel().take(idx * x.shape[1] + q)


def longest_suit(h: np.ndarray) -> np.ndarray:
    """tables.longest_suit of each hand: the most cards of one suit."""
    return np.maximum(np.maximum(pc(h & 511), pc(h >> 9 & 511)), np.maximum(pc(h >> 18 & 511), pc(h >> 27 & 511)))


def claim_possible(e, idx: np.ndarray, q: np.ndarray) -> np.ndarray:
    """engine.claim_possible of seat ``q`` in games ``idx`` (public counts only)."""
    k = pc(seat(e.hands, idx, q))
    return ((k >= e.claim_floor) & (k > e.best_claim[idx]) & (q != e.leader[idx])
            & ((e.acted[idx] >> q & 1) == 0))


def claimable(e, idx: np.ndarray, q: np.ndarray) -> np.ndarray:
    """engine.claimable: a claim is possible and the longest suit is long enough."""
    n = longest_suit(seat(e.hands, idx, q))
    return claim_possible(e, idx, q) & (n >= e.claim_floor) & (n > e.best_claim[idx])


def masks(e, idx: np.ndarray) -> np.ndarray:
    """engine.legal_mask of games ``idx`` (int64 action masks; 0 where the match is over)."""
    ph = e.phase[idx]
    cp = np.maximum(e.current_player[idx], 0)
    h = seat(e.hands, idx, cp)
    sel = e.picked[idx]
    has = sel != 0
    bl = bit_length(sel)
    le = np.left_shift(1, bl) - 1
    owed = e.owed[idx]
    m = np.zeros(len(idx), I64)
    c = (ph == PH_CLAIM).nonzero()[0]
    if len(c):
        m[c] = B_PASS | np.where(claimable(e, idx[c], cp[c]), B_CLAIM, 0)
    lead = ph == PH_LEAD
    if lead.any():
        top_suit = SUIT_OF[np.maximum(bl - 1, 0)]
        more = np.where(pc(sel) < owed, h & top_suit & ~le, 0)
        m = np.where(lead, np.where(has, B_PLAY | more, h), m)
    a = ((ph > PH_LEAD) & (ph < PH_OVER)).nonzero()[0]
    if len(a):
        m[a] = _answer_mask(e, idx[a], h[a], sel[a], le[a], owed[a])
    return m


def _answer_mask(e, idx, h, sel, le, owed) -> np.ndarray:
    """The mask of an answer, a beat again or an equalising (phases after the lead). The beating sets of a
    game are at the front of its ``beats`` row (zeros after them): a game of one set or none (most) reads its
    first column alone, a game of several all the columns some such game uses (:func:`_sets_mask`)."""
    b = e.beats[idx, 0]
    has = sel != 0
    r = b & ~le
    agree = (b != 0) & ((b & le) == sel)
    m = np.where(has, np.where(agree, np.where(r != 0, low_bit(r), B_PLAY), 0), low_bit(b))
    several = (e.beats[idx, 1] != 0).nonzero()[0]
    if len(several):
        m[several] = _sets_mask(e.beats[idx[several]], sel[several], le[several])
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


def _sets_mask(beats, sel, le) -> np.ndarray:
    """The beating part of the mask of games with several beating sets (rows of ``beats``): with cards
    picked, the next card of every set that holds them (or play once one is complete); else every set's
    first card."""
    used = beats.any(axis=0).nonzero()[0]
    beats = beats[:, :used[-1] + 1]  # the columns some game uses
    r = beats & ~le[:, None]
    agree = (beats != 0) & ((beats & le[:, None]) == sel[:, None])
    nxt = np.where(r != 0, low_bit(r), B_PLAY)
    with_sel = np.bitwise_or.reduce(np.where(agree, nxt, 0), axis=1)
    without = np.bitwise_or.reduce(low_bit(beats), axis=1)
    return np.where(sel != 0, with_sel, without)


_THERMO = np.array([(1 << c) - 1 for c in range(63)], I64)
"""``_THERMO[c]``: a thermometer of ``c`` ones (``Packer.put_count`` of a part at most 62 wide)."""


def _pieces(width: int) -> list:
    """The bit ranges ``[a, b)`` of a thermometer ``width`` wide, in pieces of at most 62 bits."""
    return [(a, min(a + 62, width)) for a in range(0, width, 62)]


def _thermo(count: np.ndarray, width: int) -> list:
    """The pieces (:func:`_pieces`) of a thermometer of ``count`` ones capped at ``width``."""
    return [_THERMO[np.clip(count - a, 0, b - a)] for a, b in _pieces(width)]


def obs_layout(e) -> tuple:
    """(position, width) in ``obs_spec`` of every row :func:`observe` builds, in its order."""
    at = e.game.obs_spec.offset
    n, S, hs = e.num_players, e.num_sides, e.rules.hand_size
    out = [(at(name), w) for name, w in (("hand", 36), ("top", 36), ("lead", 36), ("my_down", 36), ("selected", 36),
                                         ("decision", 5), ("owed", hs), ("revealed", 36), ("locked", n),
                                         ("acted", n), ("out", n), ("trump", 4))]
    for name, w in (("table", 36), ("known", 36), ("hand_counts", hs), ("down_counts", hs), ("claims", len(CLAIM_NS))):
        out += [(at(name, k), w) for k in range(n)]
    for name, w in (("pile_seen", 36), ("pile_counts", 36)):
        out += [(at(name, k), w) for k in range(S)]
    out += [(at("scores", k) + a, b - a) for a, b in _pieces(e.rules.target) for k in range(S)]
    out += [(at(name), w) for name, w in (("took", S), ("leader", n), ("last_beater", n), ("first_game", 1),
                                          ("diamond_leader", n), ("eggs", 4), ("stock", 36))]
    assert all(w < len(_THERMO) for _, w in out)
    return tuple(out)


def pack_plan(layout: tuple) -> tuple:
    """Per row of ``layout``: ``(word, shift, spill)`` -- the row goes into 64-bit word ``word`` shifted left by
    ``shift``, and its high bits into the next word shifted right by ``spill`` (0: it fits)."""
    return tuple((pos // 64, pos % 64, 64 - pos % 64 if pos % 64 + w > 64 else 0) for pos, w in layout)


class Words:
    """The packed observations of a batch, built word by word: :meth:`start`, then ``put(row, k)`` adds row
    ``k`` of the layout (the parts' bits do not overlap, so adding is OR-ing) into its word(s), no stacked copy
    of the rows, then :meth:`unpack`. The buffers are kept per batch size (a sub-batch shares them)."""

    def __init__(self, e):
        self.plan = pack_plan(e.obs_layout)
        self.nwords = (e.obs_size + 63) // 64
        self.nbits = e.obs_size
        self.bufs = {}

    def start(self, B: int) -> None:
        if B not in self.bufs:
            self.bufs[B] = np.zeros((self.nwords, B), I64), np.empty(B, I64)
        self.words, self.tmp = self.bufs[B]
        self.words[:] = 0

    def put(self, x: np.ndarray, k: int) -> None:
        w, sh, spill = self.plan[k]
        words, tmp = self.words, self.tmp
        if sh:
            np.left_shift(x, sh, out=tmp)
            np.add(words[w], tmp, out=words[w])
        else:
            np.add(words[w], x, out=words[w])
        if spill:
            np.right_shift(x, spill, out=tmp)
            np.add(words[w + 1], tmp, out=words[w + 1])

    def unpack(self, out: np.ndarray) -> None:
        b = np.ascontiguousarray(self.words.T).view(np.uint8)
        out[:, :self.nbits] = np.unpackbits(b, axis=1, count=self.nbits, bitorder="little")


def observe(e, out: np.ndarray) -> np.ndarray:
    """game.observe(state, max(current_player, 0)) of every game: every part a row (:func:`obs_layout` says
    where each goes), added into its 64-bit word (:class:`Words`), the words unpacked at the end; the seats'
    and sides' parts relative to the player gathered with one ``take`` each."""
    B, n, S, hs = e.num_envs, e.num_players, e.num_sides, e.rules.hand_size
    wd = e.obs_words
    wd.start(B)
    put = wd.put
    cp = e.current_player
    p = np.maximum(cp, 0)
    mine = cp >= 0
    ph = e.phase
    base = np.arange(0, B * n, n)
    me = base + p
    seats = base + (p + np.arange(n)[:, None]) % n  # [relative seat, game]: the flat index of the absolute seat
    if e.rules.pairs:
        sides = np.arange(0, B * S, S) + ((p % 2) + np.arange(S)[:, None]) % 2
    else:
        sides = seats[:S] // n * S + seats[:S] % n
    take = np.take
    put(take(e.hands, me), 0)
    put(e.top, 1)
    put(e.lead, 2)
    down = take(e.table_down, seats)
    put(down[0], 3)
    put(np.where(mine, e.picked, 0), 4)
    put(np.where(mine, np.left_shift(1, np.minimum(ph, 4)), 0), 5)
    owes = mine & ((ph == PH_ANSWER) | (ph == PH_EQUALISE))
    put(_THERMO[np.where(owes, np.minimum(e.owed, hs), 0)], 6)
    put(np.where(e.revealed >= 0, np.left_shift(1, np.maximum(e.revealed, 0)), 0), 7)
    full = (1 << n) - 1
    for k, m in enumerate((e.locked, e.acted, e.out)):
        put(((m >> p) | (m << (n - p))) & full, 8 + k)
    put(np.left_shift(1, e.trump), 11)
    r = 12
    up = take(e.table_up, seats)
    up *= e.top != 0
    claims = take(e.claims, seats)
    claims = np.where(claims > 0, np.left_shift(1, np.maximum(claims - CLAIM_NS[0], 0)), 0)
    counts = np.minimum(pc(take(e.hands, seats)), hs)
    for rows in (up, take(e.known, seats), _THERMO[counts], _THERMO[np.minimum(pc(down), hs)], claims):
        for x in rows:
            put(x, r)
            r += 1
    pl = take(e.piles, sides)
    seen = np.where(pl != 0, take(e.piles_up, sides) | (pl & take(e.laid_down, me)), 0)
    for rows in (seen, _THERMO[pc(pl)], *_thermo(take(e.scores, sides), e.rules.target)):
        for x in rows:
            put(x, r)
            r += 1
    put(((pl != 0) << np.arange(S)[:, None]).sum(axis=0), r)
    put(np.where(e.terminal, 0, np.left_shift(1, (e.leader - p) % n)), r + 1)
    put(np.where(e.last_beater >= 0, np.left_shift(1, (e.last_beater - p) % n), 0), r + 2)
    put(e.first_game, r + 3)
    put(np.where(e.diamond_leader >= 0, np.left_shift(1, (e.diamond_leader - p) % n), 0), r + 4)
    put(np.left_shift(1, np.minimum(e.eggs, 3)), r + 5)
    put(_THERMO[pc(e.stock)], r + 6)
    wd.unpack(out)
    return out
