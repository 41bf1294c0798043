"""``beat_or_discard_v0`` batched, the compiled observation (issue 34): :func:`.beat_or_discard_views.observe`
(the scalar :meth:`BeatOrDiscardGame.observe <kozel_env.cards.beat_or_discard.game.BeatOrDiscardGame.observe>`,
term for term) as one loop over the games -- each part added into its 64-bit word at its ``obs_spec`` offset
(the same plan, :func:`.beat_or_discard_views.pack_plan` of :func:`.beat_or_discard_views.obs_layout`, in the
same order of parts), the words unpacked into the game's float32 row at once.

A numba kernel like those of :mod:`.beat_or_discard_jit` (``cache=True``, integers only; without numba this
module imports, unused). The parts relative to the player (seats clockwise from it, its side first: C1.13's
claims, the table, the counts; the scores' thermometers, C1.1) are gathered per game.
"""
from __future__ import annotations

import numpy as np

from ..cards.beat_or_discard.game import CLAIM_NS
from ..cards.beat_or_discard.tables import PH_ANSWER, PH_EQUALISE
from .beat_or_discard_jit import _kernel, _njit, pc
from .beat_or_discard_views import _THERMO, _pieces, pack_plan

FIELDS = ("hands", "top", "lead", "table_down", "picked", "phase", "owed", "revealed", "locked", "acted", "out",
          "trump", "table_up", "known", "claims", "piles", "piles_up", "laid_down", "scores", "terminal", "leader",
          "last_beater", "first_game", "diamond_leader", "eggs", "stock", "current_player")
"""The engine's arrays the observation reads, in the order of its state tuple."""
(HANDS, TOP, LEAD, DOWN, PICKED, PHASE, OWED, REVEALED, LOCKED, ACTED, OUT, TRUMP, UP, KNOWN, CLAIMS, PILES,
 PILES_UP, LAID, SCORES, TERMINAL, LEADER, LAST_BEATER, FIRST_GAME, DIAMOND_LEADER, EGGS, STOCK,
 CP) = range(len(FIELDS))


class Plan:
    """What :func:`observe` needs besides the state: the rows' places (``plan[k] = (word, shift, spill)``),
    ``c = (players, sides, hand size, pairs, observation bits, the smallest claim N)``, the thermometers, the
    scores' pieces, and the words of one game (scratch)."""

    def __init__(self, e):
        self.plan = np.array(pack_plan(e.obs_layout), np.int64)
        self.c = np.array([e.num_players, e.num_sides, e.rules.hand_size, bool(e.rules.pairs), e.obs_size,
                           CLAIM_NS[0]], np.int64)
        self.pieces = np.array(_pieces(e.rules.target), np.int64)
        self.words = np.zeros((e.obs_size + 63) // 64, np.int64)

    def observe(self, e, out: np.ndarray) -> np.ndarray:
        rows = observe(tuple(getattr(e, name) for name in FIELDS), out, self.plan, self.c, _THERMO, self.pieces,
                       self.words)
        assert rows == len(self.plan)
        return out


@_njit
def put(words, plan, k, x) -> int:
    """Row ``k`` of the plan, ``x``, added into its word (and its high bits into the next); returns ``k + 1``."""
    w, sh, spill = plan[k, 0], plan[k, 1], plan[k, 2]
    words[w] += x << sh
    if spill:
        words[w + 1] += x >> spill
    return k + 1


@_njit
def rel(x, p, n) -> int:
    """``(x - p) % n`` of seats ``x`` and ``p``: a seat relative to the player (no division)."""
    d = x - p
    return d + n if d < 0 else d


@_njit
def seat(p, j, n) -> int:
    """``(p + j) % n`` of a seat ``p`` and ``0 <= j < n``: the ``j``-th seat clockwise from ``p``."""
    q = p + j
    return q - n if q >= n else q


@_njit
def side(p, j, n, pairs) -> int:
    """The ``j``-th side from seat ``p``'s: pairs ``(p % 2 + j) % 2``, else the seat's own (solo)."""
    return (p & 1) ^ j if pairs else seat(p, j, n)


@_njit
def game_words(st, b, words, plan, c, thermo, pieces) -> int:
    """The observation of game ``b`` (seat ``max(current_player, 0)``) into ``words``; returns the rows put."""
    n, hs = c[0], c[2]
    cp = st[CP][b]
    p = max(cp, 0)
    mine = cp >= 0
    ph = st[PHASE][b]
    k = put(words, plan, 0, st[HANDS][b, p])
    k = put(words, plan, k, st[TOP][b])
    k = put(words, plan, k, st[LEAD][b])
    k = put(words, plan, k, st[DOWN][b, p])
    k = put(words, plan, k, st[PICKED][b] if mine else 0)
    k = put(words, plan, k, (1 << min(ph, 4)) if mine else 0)
    owes = mine and (ph == PH_ANSWER or ph == PH_EQUALISE)
    k = put(words, plan, k, thermo[min(st[OWED][b], hs)] if owes else 0)
    rv = st[REVEALED][b]
    k = put(words, plan, k, (1 << rv) if rv >= 0 else 0)
    full = (1 << n) - 1
    for m in (st[LOCKED][b], st[ACTED][b], st[OUT][b]):
        k = put(words, plan, k, ((m >> p) | (m << (n - p))) & full)
    k = put(words, plan, k, 1 << st[TRUMP][b])
    shown = st[TOP][b] != 0
    for j in range(n):
        k = put(words, plan, k, st[UP][b, seat(p, j, n)] if shown else 0)
    for j in range(n):
        k = put(words, plan, k, st[KNOWN][b, seat(p, j, n)])
    for j in range(n):
        k = put(words, plan, k, thermo[min(pc(st[HANDS][b, seat(p, j, n)]), hs)])
    for j in range(n):
        k = put(words, plan, k, thermo[min(pc(st[DOWN][b, seat(p, j, n)]), hs)])
    for j in range(n):
        cl = st[CLAIMS][b, seat(p, j, n)]
        k = put(words, plan, k, (1 << max(cl - c[5], 0)) if cl > 0 else 0)
    return side_words(st, b, p, words, plan, c, thermo, pieces, k)


@_njit
def side_words(st, b, p, words, plan, c, thermo, pieces, k) -> int:
    """The rest of :func:`game_words` from row ``k``: the sides' piles and scores (its side first), the took
    bits, the seats of the round, the first game, the eggs streak, the stock count."""
    n, S, pairs = c[0], c[1], c[3]
    took = 0
    for j in range(S):
        sd = side(p, j, n, pairs)
        pl = st[PILES][b, sd]
        k = put(words, plan, k, (st[PILES_UP][b, sd] | (pl & st[LAID][b, p])) if pl else 0)
        took |= (1 << j) if pl else 0
    for j in range(S):
        sd = side(p, j, n, pairs)
        k = put(words, plan, k, thermo[pc(st[PILES][b, sd])])
    for i in range(len(pieces)):
        a, e = pieces[i, 0], pieces[i, 1]
        for j in range(S):
            sd = side(p, j, n, pairs)
            k = put(words, plan, k, thermo[min(max(st[SCORES][b, sd] - a, 0), e - a)])
    k = put(words, plan, k, took)
    k = put(words, plan, k, 0 if st[TERMINAL][b] else 1 << rel(st[LEADER][b], p, n))
    lb = st[LAST_BEATER][b]
    k = put(words, plan, k, (1 << rel(lb, p, n)) if lb >= 0 else 0)
    k = put(words, plan, k, st[FIRST_GAME][b])
    dl = st[DIAMOND_LEADER][b]
    k = put(words, plan, k, (1 << rel(dl, p, n)) if dl >= 0 else 0)
    k = put(words, plan, k, 1 << min(st[EGGS][b], 3))
    return put(words, plan, k, thermo[pc(st[STOCK][b])])


@_kernel
def observe(st, out, plan, c, thermo, pieces, words) -> int:
    """game.observe(state, max(current_player, 0)) of every game into ``out`` (float32 rows: a whole word's 64
    values in one fixed loop, which the compiler vectorises); returns the rows put per game (the plan's
    length: checked by the caller)."""
    nbits = c[4]
    k = 0
    for b in range(out.shape[0]):
        words[:] = 0
        k = game_words(st, b, words, plan, c, thermo, pieces)
        for w in range(nbits // 64):
            x = words[w]
            for j in range(64):
                out[b, 64 * w + j] = np.float32((x >> j) & 1)
        for i in range(nbits // 64 * 64, nbits):
            out[b, i] = np.float32((words[i >> 6] >> (i & 63)) & 1)
    return k
