"""``beat_or_discard_v0`` batched, the compiled step (issue 34): one loop over the games of the batch, each
game's move and the forced steps after it played in scalar style -- the scalar engine
:mod:`kozel_env.cards.beat_or_discard.engine` line for line (``apply_action``: ``_apply``, ``_run_forced``,
``public_ask``, ``legal_mask``; the lead, beat, discard and claim, C1.3-C1.6, C1.13; the turn order ``_after``
/ ``_offer_answer`` / ``_offer_rebeat`` / ``_alive``, C1.4-C1.7, C1.15; the claim question ``_ask_claims``,
C1.13; the end of a round ``_end_round`` / ``_equalise_next`` / ``_equalise`` / ``_refill`` / ``_draw``,
C1.8-C1.10) with int64 bit masks, over the SAME struct-of-arrays state as the numpy moves
(:mod:`.beat_or_discard_moves`, :mod:`.beat_or_discard_round`).

The kernels are :func:`numba.njit` (``cache=True``, no ``parallel``, integers only: the same seed plays the
same game on every machine). numba is the optional extra ``fast`` (``pip install kozel_env[fast]``); without
it this module still imports (the functions stay plain Python, never called: :data:`AVAILABLE` is False and
the engine takes the numpy path).

Where the game leaves the round the kernel stops and hands the game off, as the numpy moves do: four of a
kind after a refill (C1.14, ``FOUR``: the scalar ``_four_check``) and the end of a game (every hand empty
after the refill, ``GAME_END``: the array :func:`.beat_or_discard_deal.end_game`, which scores, deals the
next game or hands the match end to the scalar code, after which :func:`settle` plays the new deal's
forced steps). A game stopped at a real choice keeps its legal mask (``mask``, ``mask_ok``).

The state reaches the kernels as one tuple of arrays (:func:`state`, the positions ``HANDS`` ... ``MASK_OK``),
the rules as ``int64`` ``R = (players, sides, hand size, claims, claim floor, four of a kind)``, the tables as
:func:`tables`.
"""
from __future__ import annotations

import numpy as np

from ..cards.beat_or_discard.tables import (
    A_CLAIM,
    A_DOWN,
    A_PASS,
    A_PLAY,
    ACES,
    B_CLAIM,
    B_DOWN,
    B_PASS,
    B_PLAY,
    PH_ANSWER,
    PH_CLAIM,
    PH_EQUALISE,
    PH_LEAD,
    PH_OVER,
    PH_REBEAT,
    SIXES,
    SUIT_OF_CARD,
)
from .beat_or_discard_moves import BEATERS, FOUR, MAX_SETS, _tables

try:
    import numba
except ImportError:  # the numpy path (the extra ``fast`` is not installed)
    numba = None

AVAILABLE = numba is not None
"""numba is importable: the compiled step can be used."""


def _njit(fn):
    """A helper of the kernels, inlined where it is called (numba IR inlining: every big step has one call
    site, :func:`follow`), compiled without numba's reference counting (``_nrt=False``: nothing is allocated
    inside, the arrays are the engine's, so no array's count is raised and lowered at every use of the state
    tuple)."""
    return numba.njit(cache=True, _nrt=False, inline="always")(fn) if AVAILABLE else fn


def _kernel(fn):
    """An entry point of the compiled step (as :func:`_njit`, not inlined: called from Python)."""
    return numba.njit(cache=True, _nrt=False)(fn) if AVAILABLE else fn


GAME_END = 6
"""Hand-off kind of the compiled step: every hand empty after a refill (the array ``end_game`` goes on)."""
FIELDS = ("hands", "table_up", "table_down", "known", "laid_down", "claims", "piles", "piles_up", "tricks", "top",
          "lead", "revealed", "locked", "acted", "out", "trump", "phase", "current_player", "picked", "owed",
          "offered", "leader", "last_beater", "best_claim", "claim_stop", "diamond_leader", "stock", "last_taker",
          "equalise_taker", "equalise_to", "beats", "handoff", "handoff_arg", "stock_seq", "stock_pos", "mask",
          "mask_ok")
"""The engine's arrays the kernels read and write, in the order of the state tuple."""
(HANDS, UP, DOWN, KNOWN, LAID, CLAIMS, PILES, PILES_UP, TRICKS, TOP, LEAD, REVEALED, LOCKED, ACTED, OUT, TRUMP,
 PHASE, CP, PICKED, OWED, OFFERED, LEADER, LAST_BEATER, BEST_CLAIM, CLAIM_STOP, DIAMOND_LEADER, STOCK, LAST_TAKER,
 EQ_TAKER, EQ_TO, BEATS, HANDOFF, HANDOFF_ARG, STOCK_SEQ, STOCK_POS, MASK, MASK_OK) = range(len(FIELDS))
N, S, HS, CLAIMS_RULE, FLOOR, FOUR_RULE = range(6)
SUIT_OF = np.array(SUIT_OF_CARD, np.int64)


def state(e) -> tuple:
    """The state tuple of engine ``e`` (its arrays, not copies)."""
    return tuple(getattr(e, name) for name in FIELDS)


def rules(e) -> np.ndarray:
    r = e.rules
    return np.array([e.num_players, e.num_sides, r.hand_size, bool(r.claims), e.claim_floor,
                     bool(r.four_of_a_kind)], np.int64)


def tables(e) -> tuple:
    """``(R, side_of, BEATERS, OK, SUIT_OF)``: the rules (:func:`rules`), the seat's side, the cards beating a card
    (``BEATERS[trump * 36 + card]``), the suit-wise beat table of :func:`.beat_or_discard_moves._tables`."""
    return rules(e), np.asarray(e.side_of, np.int64), BEATERS, _tables()[0], SUIT_OF


def scratch() -> np.ndarray:
    """The kernels' scratch: a seat's beating sets, then the cards of its hand (:func:`beat_sets`)."""
    return np.zeros(MAX_SETS + 8, np.int64)


# -- bits ------------------------------------------------------------------------------------------------------
@_njit
def pc(x) -> int:
    """Population count of a non-negative int64."""
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@_njit
def bit_length(x) -> int:
    """int.bit_length of a non-negative int64 (a binary search)."""
    n = 0
    for sh in (32, 16, 8, 4, 2, 1):
        if x >> sh:
            x >>= sh
            n += sh
    return n + (x > 0)


@_njit
def longest_suit(h) -> int:
    """tables.longest_suit: the most cards of one suit (the N of a claim, C1.13)."""
    best = 0
    for sh in (0, 9, 18, 27):
        k = pc(h >> sh & 511)
        if k > best:
            best = k
    return best


# -- beating sets (C1.2, C1.3) -----------------------------------------------------------------------------------
@_njit
def beat_sets(h, top, trump, tb, out) -> int:
    """beats.beat_sets of ``(h, top, trump)`` into ``out`` (the count returned): one top card, each beater
    alone; more, every subset of the hand of that size that passes the suit-wise table ``OK`` (C1.3)."""
    if top & (top - 1) == 0:
        if top == 0:
            return 0
        m = h & tb[2][trump * 36 + bit_length(top) - 1]
        k = 0
        while m:
            low = m & -m
            out[k] = low
            m ^= low
            k += 1
        return k
    need = pc(top)
    if pc(h) < need:
        return 0
    cards = out[MAX_SETS:]  # the hand's cards, one bit each (scratch past the sets)
    hc = 0
    m = h
    while m:
        cards[hc] = m & -m
        m ^= cards[hc]
        hc += 1
    ok_table = tb[3]
    k = 0
    for sub in range(1, 1 << hc):
        if pc(sub) != need:
            continue
        cand = 0
        for i in range(hc):
            if sub >> i & 1:
                cand |= cards[i]
        good = True
        for s in range(4):
            sh = 9 * s
            key = (top >> sh & 511) << 9 | (cand >> sh & 511)
            if s == trump:
                key |= 1 << 18
            if not ok_table[key]:
                good = False
                break
        if good:
            out[k] = cand
            k += 1
    return k


@_njit
def can_beat(h, top, trump, tb, scratch) -> bool:
    """beats.can_beat: some set of ``h`` beats every card of ``top``."""
    if top & (top - 1) == 0:
        return top != 0 and (h & tb[2][trump * 36 + bit_length(top) - 1]) != 0
    return beat_sets(h, top, trump, tb, scratch) > 0


# -- the decision ------------------------------------------------------------------------------------------------
@_njit
def claim_possible(st, b, q, R) -> bool:
    """engine.claim_possible (C1.13, public counts only)."""
    k = pc(st[HANDS][b, q])
    return k >= R[FLOOR] and k > st[BEST_CLAIM][b] and q != st[LEADER][b] and not (st[ACTED][b] >> q & 1)


@_njit
def claimable(st, b, q, R) -> bool:
    if not claim_possible(st, b, q, R):
        return False
    n = longest_suit(st[HANDS][b, q])
    return n >= R[FLOOR] and n > st[BEST_CLAIM][b]


@_njit
def legal_mask(st, b, R, tb) -> int:
    """engine.legal_mask of game ``b`` (its beating sets at the front of its ``beats`` row)."""
    ph = st[PHASE][b]
    if ph == PH_OVER:
        return 0
    p = st[CP][b]
    if ph == PH_CLAIM:
        return B_PASS | (B_CLAIM if claimable(st, b, p, R) else 0)
    h = st[HANDS][b, p]
    sel = st[PICKED][b]
    le = (1 << bit_length(sel)) - 1
    if ph == PH_LEAD:
        if sel:
            m = B_PLAY
            if pc(sel) < st[OWED][b]:
                m |= h & tb[4][bit_length(sel) - 1] & ~le
            return m
        return h
    m = 0
    beats = st[BEATS]
    for j in range(MAX_SETS):
        bs = beats[b, j]
        if bs == 0:
            break
        if sel:
            if bs & le == sel:
                r = bs & ~le
                m |= (r & -r) if r else B_PLAY
        else:
            m |= bs & -bs
    k = st[OWED][b]
    if k:
        r = k - pc(sel)
        if r > 0:
            av = h & ~le
            if pc(av) >= r:
                for _ in range(r - 1):
                    av ^= 1 << (bit_length(av) - 1)
                m |= av
        elif r == 0:
            m |= B_DOWN
    if not sel:
        m |= st[OFFERED][b]
    return m


@_njit
def decide(st, b, phase, q, owed, offered, sets, count) -> None:
    """engine._decide: seat ``q`` decides in ``phase``, nothing picked; its beating sets ``sets[:count]``."""
    st[PHASE][b] = phase
    st[CP][b] = q
    st[OWED][b] = owed
    st[OFFERED][b] = offered
    beats = st[BEATS]
    for j in range(MAX_SETS):
        beats[b, j] = sets[j] if j < count else 0
    st[PICKED][b] = 0


@_njit
def keep(st, b, m) -> None:
    st[MASK][b] = m
    st[MASK_OK][b] = True


# -- a game's move and the forced steps --------------------------------------------------------------------------
K_AFTER, K_END_ROUND, K_EQ_NEXT, K_REFILL, K_ASK, K_STOP = range(1, 7)
"""What a move leads to (:func:`follow`), ``kind + 8 * seat``: engine._after(seat), _end_round(),
_equalise_next(seat), _refill(), _ask_claims(seat), a hand-off (stop); 0: a decision is set."""


@_njit
def play(st, b, a, R, tb, scratch) -> None:
    """engine.apply_action of action ``a`` in game ``b`` (``a < 0``: engine._run_forced alone): each move
    (:func:`apply_one`) and what it leads to (:func:`follow`), then the forced steps, until a real choice (its
    mask kept), a public question (engine.public_ask, C1.13: asked even with one answer) or a hand-off."""
    while True:
        if a < 0:
            ph, p, picked = st[PHASE][b], st[CP][b], st[PICKED][b]
            ask = picked == 0 and (ph == PH_CLAIM or (ph == PH_ANSWER and claim_possible(st, b, p, R)))
            if (not ask and st[BEATS][b, 0] == 0 and st[OFFERED][b] == 0 and picked == 0 and ph >= PH_ANSWER
                    and st[OWED][b] == pc(st[HANDS][b, p])):  # owes the whole hand face down (C1.4, C1.8)
                st[PICKED][b] = st[HANDS][b, p]
                a = A_DOWN
            else:
                m = legal_mask(st, b, R, tb)
                if ask or m & (m - 1):
                    keep(st, b, m)
                    return
                a = bit_length(m) - 1
        if follow(st, b, apply_one(st, b, a, R, tb, scratch), R, tb, scratch):
            return
        a = -1


@_njit
def follow(st, b, nxt, R, tb, scratch) -> bool:
    """Where a move leads (``K_*``), one step at a time (every step has this one call site, so that each is
    inlined once); True when the game was handed off."""
    while nxt:
        kind, q = nxt & 7, nxt >> 3
        if kind == K_AFTER:
            nxt = after(st, b, q, R, tb, scratch)
        elif kind == K_END_ROUND:
            nxt = end_round(st, b, R, tb)
        elif kind == K_EQ_NEXT:
            nxt = equalise_next(st, b, q, R, scratch)
        elif kind == K_REFILL:
            nxt = refill(st, b, R)
        elif kind == K_ASK:
            ask_claims(st, b, q, R, scratch)
            nxt = 0
        else:
            return True
    return False


@_njit
def apply_one(st, b, a, R, tb, scratch) -> int:
    """engine._apply: a card picked, or a lead / beat (A_PLAY), a discard / equalising (A_DOWN), a pass or
    done (A_PASS), a claim; returns where it leads (``K_*``)."""
    if a < 36:
        st[PICKED][b] |= 1 << a
        return 0
    ph, p = st[PHASE][b], st[CP][b]
    if a == A_PLAY or a == A_DOWN:
        s = st[PICKED][b]
        st[PICKED][b] = 0
        st[HANDS][b, p] &= ~s
        if a == A_DOWN and ph == PH_EQUALISE:  # C1.8: face down into the trick just taken
            st[PILES][b, tb[1][st[EQ_TAKER][b]]] |= s
            st[LAID][b, p] |= s
            st[KNOWN][b, p] = 0
            return K_EQ_NEXT + 8 * p
        bit = 1 << p
        if a == A_PLAY:  # C1.3: the lead or a beat; the player becomes the last beater
            st[UP][b, p] |= s
            st[KNOWN][b, p] &= ~s
            st[TOP][b] = s
            st[LAST_BEATER][b] = p
            if ph == PH_LEAD:
                st[LEAD][b] = s
            else:
                st[ACTED][b] |= bit
        else:  # C1.4, C1.6: a discard face down locks the seat for the round
            st[DOWN][b, p] |= s
            st[LAID][b, p] |= s
            st[LOCKED][b] |= bit
            st[ACTED][b] |= bit
        return K_AFTER + 8 * p
    if a == A_PASS:
        if ph == PH_CLAIM:
            return K_ASK + 8 * ((p + 1) % R[N])
        return K_END_ROUND if ph == PH_REBEAT else K_AFTER + 8 * p  # "Done" ends the round (C1.7)
    return claim(st, b, p, R, scratch) if a == A_CLAIM else 0


@_njit
def claim(st, b, p, R, scratch) -> int:
    """engine._claim (C1.13): "I have N"; before the lead the question goes on (``K_ASK``), after it every card
    of the round goes back to its owner and the claimer leads."""
    n = longest_suit(st[HANDS][b, p])
    st[CLAIMS][b, p] = n
    st[BEST_CLAIM][b] = n
    st[LEADER][b] = p
    if st[PHASE][b] == PH_CLAIM:
        return K_ASK + 8 * ((p + 1) % R[N])
    for q in range(R[N]):
        u, d = st[UP][b, q], st[DOWN][b, q]
        if u or d:
            st[HANDS][b, q] |= u | d
            st[KNOWN][b, q] |= u
            st[LAID][b, q] &= ~d
            st[UP][b, q] = 0
            st[DOWN][b, q] = 0
    st[TOP][b] = 0
    st[LEAD][b] = 0
    st[LAST_BEATER][b] = -1
    st[LOCKED][b] = 0
    st[ACTED][b] = 0
    decide(st, b, PH_LEAD, p, lead_limit(st, b, R), 0, scratch, 0)
    return 0


@_njit
def lead_limit(st, b, R) -> int:
    """Most cards a lead may hold: 6; the quick game: the smallest hand among holders (C1.15)."""
    if R[HS] != 4:
        return 6
    best = 99
    for q in range(R[N]):
        k = pc(st[HANDS][b, q])
        if 0 < k < best:
            best = k
    return best


@_njit
def ask_claims(st, b, q, R, scratch) -> None:
    """engine._ask_claims (C1.13): seats asked once, clockwise from the leader; then the lead."""
    n = R[N]
    if R[CLAIMS_RULE]:
        while q != st[CLAIM_STOP][b]:
            if st[HANDS][b, q] and claim_possible(st, b, q, R):
                decide(st, b, PH_CLAIM, q, 0, 0, scratch, 0)
                return
            q = q + 1 if q + 1 < n else 0
    decide(st, b, PH_LEAD, st[LEADER][b], lead_limit(st, b, R), 0, scratch, 0)


# -- turn order (C1.4-C1.7, C1.15) -------------------------------------------------------------------------------
@_njit
def after(st, b, p, R, tb, scratch) -> int:
    """engine._after: the next seat with a decision after ``p`` acted (0), or the end of the round
    (``K_END_ROUND``)."""
    n, quick = R[N], R[HS] == 4
    q = p
    got = 0
    while got == 0:
        q = q + 1 if q + 1 < n else 0
        if quick:
            if q == st[LEADER][b]:  # C1.15: the turn is back at the leader
                return K_END_ROUND
        elif q == st[LAST_BEATER][b]:  # C1.7: beat again or done; nothing to beat with: the round ends
            got = 2
        if got == 0 and st[HANDS][b, q]:
            got = offer_answer(st, b, q, R, tb, scratch)
    if got == 2:
        k = beat_sets(st[HANDS][b, q], st[TOP][b], st[TRUMP][b], tb, scratch)
        if k:
            decide(st, b, PH_REBEAT, q, 0, B_PASS, scratch, k)
            return 0
    return 0 if got == 1 else K_END_ROUND


@_njit
def offer_answer(st, b, q, R, tb, scratch) -> int:
    """engine._offer_answer(q, True): 1 (decided), 0 (turn skipped, C1.5), -1 (the round ended by itself,
    C1.7)."""
    h = st[HANDS][b, q]
    k_sets = 0 if st[LOCKED][b] >> q & 1 else beat_sets(h, st[TOP][b], st[TRUMP][b], tb, scratch)
    cc = claimable(st, b, q, R)
    if R[HS] == 4:
        k = pc(st[LEAD][b])
        offered = B_CLAIM if cc else 0
    else:
        lb = st[LAST_BEATER][b]
        k = pc(h) - pc(st[HANDS][b, lb if lb >= 0 else lb + R[N]])
        if k_sets == 0 and not claim_possible(st, b, q, R):
            if k <= 0:
                return 0
            if not alive(st, b, R, tb, scratch):
                return -1
        offered = (B_CLAIM if cc else 0) | (B_PASS if k <= 0 else 0)
    decide(st, b, PH_ANSWER, q, k if k > 0 else 0, offered, scratch, k_sets)
    return 1


@_njit
def alive(st, b, R, tb, spare) -> bool:
    """engine._alive (C1.7): someone who may beat can beat, or someone may still claim (``spare``: scratch
    for the beating sets, unused by the caller here)."""
    top, trump, locked = st[TOP][b], st[TRUMP][b], st[LOCKED][b]
    for q in range(R[N]):
        h = st[HANDS][b, q]
        if h and not locked >> q & 1 and can_beat(h, top, trump, tb, spare):
            return True
    if R[CLAIMS_RULE]:
        for q in range(R[N]):
            if st[HANDS][b, q] and claim_possible(st, b, q, R):
                return True
    return False


# -- the end of a round (C1.8-C1.10) -----------------------------------------------------------------------------
@_njit
def end_round(st, b, R, tb) -> int:
    """engine._end_round (C1.8): the last beater (else the leader) takes the table; then the equalising from
    the taker (``K_EQ_NEXT``)."""
    n = R[N]
    lb = st[LAST_BEATER][b]
    taker = lb if lb >= 0 else st[LEADER][b]
    side = tb[1][taker]
    up = dn = 0
    for q in range(n):
        up |= st[UP][b, q]
        d = st[DOWN][b, q]
        if d:
            dn |= d
            st[KNOWN][b, q] = 0  # its face-down cards went to a trick
        st[UP][b, q] = 0
        st[DOWN][b, q] = 0
        st[CLAIMS][b, q] = 0
    st[PILES][b, side] |= up | dn
    st[PILES_UP][b, side] |= up
    st[TRICKS][b, side] += 1
    st[TOP][b] = 0
    st[LEAD][b] = 0
    st[LAST_BEATER][b] = -1
    st[LOCKED][b] = 0
    st[ACTED][b] = 0
    st[BEST_CLAIM][b] = 0
    st[LAST_TAKER][b] = taker
    st[DIAMOND_LEADER][b] = -1
    st[EQ_TAKER][b] = taker
    mn = 99
    for q in range(n):
        if not st[OUT][b] >> q & 1:
            k = pc(st[HANDS][b, q])
            if k < mn:
                mn = k
    st[EQ_TO][b] = mn
    return K_EQ_NEXT + 8 * taker


@_njit
def equalise_next(st, b, q, R, scratch) -> int:
    """engine._equalise_next: the next seat holding more than the smallest hand (0), else the refill
    (``K_REFILL``)."""
    n, taker, mn = R[N], st[EQ_TAKER][b], st[EQ_TO][b]
    while True:
        q = q + 1 if q + 1 < n else 0
        if q == taker:
            break
        k = pc(st[HANDS][b, q]) - mn
        if k > 0:
            decide(st, b, PH_EQUALISE, q, k, 0, scratch, 0)
            return 0
    return K_REFILL


@_njit
def refill(st, b, R) -> int:
    """scoring._refill (C1.9): one card at a time from the taker clockwise; four of a kind (C1.14) and the end
    of the game handed off (``K_STOP``); else the next round, led by the taker (or the next seat holding
    cards): engine._start_round, its table cleared, then the claim question (``K_ASK``, C1.13)."""
    n, taker = R[N], st[EQ_TAKER][b]
    hands = st[HANDS]
    if st[STOCK][b]:
        while st[STOCK][b]:
            drew = False
            for i in range(n):
                q = (taker + i) % n
                if st[OUT][b] >> q & 1:
                    continue
                if not st[STOCK][b]:
                    break
                if pc(hands[b, q]) < R[HS]:
                    draw(st, b, q, R)
                    drew = True
            if not drew:
                break
        if R[FOUR_RULE]:
            for q in range(n):
                h = hands[b, q]
                if not st[OUT][b] >> q & 1 and (h & ACES == ACES or h & SIXES == SIXES):
                    st[HANDOFF][b] = FOUR
                    st[HANDOFF_ARG][b] = 0
                    return K_STOP
    leader = -1
    for i in range(n):
        q = (taker + i) % n
        if hands[b, q]:
            leader = q
            break
    if leader < 0:
        st[HANDOFF][b] = GAME_END
        st[HANDOFF_ARG][b] = 0
        return K_STOP
    clear_round(st, b, leader, R)
    return K_ASK + 8 * ((leader + 1) % R[N])


@_njit
def draw(st, b, q, R) -> None:
    """scoring._draw (C1.9, C1.10): the stock's next card; the last one, the bottom card, shown and trump."""
    pos = st[STOCK_POS][b]
    c = np.int64(st[STOCK_SEQ][b, pos])
    st[STOCK_POS][b] = pos + 1
    bit = np.int64(1) << c
    st[STOCK][b] ^= bit
    st[HANDS][b, q] |= bit
    if st[STOCK][b] == 0 and R[HS] != 4:
        st[REVEALED][b] = c
        st[TRUMP][b] = c // 9
        st[KNOWN][b, q] |= bit


@_njit
def clear_round(st, b, leader, R) -> None:
    """engine._clear_round: an empty table for a round that ``leader`` leads."""
    st[LEADER][b] = leader
    st[LAST_BEATER][b] = -1
    st[TOP][b] = 0
    st[LEAD][b] = 0
    for q in range(R[N]):
        st[UP][b, q] = 0
        st[DOWN][b, q] = 0
        st[CLAIMS][b, q] = 0
    st[LOCKED][b] = 0
    st[ACTED][b] = 0
    st[BEST_CLAIM][b] = 0
    st[CLAIM_STOP][b] = leader


# -- the batch ---------------------------------------------------------------------------------------------------
@_kernel
def steps(st, idx, acts, tb, scratch) -> None:
    """engine.apply_action of ``acts[k]`` in game ``idx[k]`` (its forced steps included; ``acts[k] < 0``: the
    forced steps alone, engine._run_forced). ``scratch``: :func:`scratch`."""
    R = tb[0]
    for k in range(len(idx)):
        play(st, idx[k], acts[k], R, tb, scratch)
