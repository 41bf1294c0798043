"""``beat_or_discard_v0`` batched: the end of a round as array operations -- the scalar engine's
``_end_round`` (the trick, C1.8), ``_equalise_next`` / ``_equalise`` (equalising, C1.8), ``_refill`` /
``_draw`` (C1.9, the bottom card shown and made trump, C1.10) and ``_start_round`` / ``_clear_round`` (the
next round, its claim question, C1.13), line for line, for the games ``idx`` of the engine ``e``.

Four aces or four sixes after a refill (C1.14) are handed off to the scalar ``_four_check``
(:mod:`.beat_or_discard_moves`); the end of a game (every hand empty) goes on in :mod:`.beat_or_discard_deal`.
The stock is ``stock_seq`` (``int8[B, 36]``, the scalar draw order from position ``stock_pos``) beside the
scalar ``stock`` mask.
"""
from __future__ import annotations

import numpy as np

from ..cards.beat_or_discard.tables import ACES, PH_EQUALISE, SIXES
from .beat_or_discard_deal import clear_round, end_game
from .beat_or_discard_moves import FOUR, ask_claims, decide, hand_off
from .beat_or_discard_views import pc

I64 = np.int64


def round_ends(e, ends: np.ndarray, eqs: np.ndarray, s: np.ndarray) -> None:
    """:func:`end_round` in games ``ends`` and :func:`equalise` of cards ``s`` in games ``eqs``, then the
    equalising that follows both (engine._equalise_next) in one call."""
    t = end_round(e, ends)
    p = equalise(e, eqs, s)
    equalise_next(e, np.concatenate([ends, eqs]), np.concatenate([t, p]))


def end_round(e, idx: np.ndarray) -> np.ndarray:
    """engine._end_round: the last beater (else the leader) takes the table; returns the taker, from whom
    the equalising goes on."""
    if not len(idx):
        return idx
    lb = e.last_beater[idx]
    taker = np.where(lb >= 0, lb, e.leader[idx])
    side = e.side_of[taker]
    up = np.bitwise_or.reduce(e.table_up[idx], axis=1)
    down = e.table_down[idx]
    dn = np.bitwise_or.reduce(down, axis=1)
    e.known[idx] = np.where(down != 0, 0, e.known[idx])
    e.piles[idx, side] |= up | dn
    e.piles_up[idx, side] |= up
    e.tricks[idx, side] += 1
    e.table_up[idx] = 0
    e.table_down[idx] = 0
    for name in ("top", "lead", "locked", "acted", "best_claim"):
        getattr(e, name)[idx] = 0
    e.last_beater[idx] = -1
    e.claims[idx] = 0
    e.last_taker[idx] = taker
    e.diamond_leader[idx] = -1
    e.equalise_taker[idx] = taker
    counts = pc(e.hands[idx])
    outs = (e.out[idx, None] >> np.arange(e.num_players)) & 1
    e.equalise_to[idx] = np.where(outs == 1, 99, counts).min(axis=1)
    return taker


def equalise(e, idx: np.ndarray, s: np.ndarray) -> np.ndarray:
    """engine._equalise: face-down cards of the player's choice into the trick just taken; returns the
    player, from whom the equalising goes on."""
    if not len(idx):
        return idx
    p = e.current_player[idx]
    e.hands[idx, p] &= ~s
    e.piles[idx, e.side_of[e.equalise_taker[idx]]] |= s
    e.laid_down[idx, p] |= s
    e.known[idx, p] = 0
    return p


def equalise_next(e, idx: np.ndarray, q: np.ndarray) -> None:
    """engine._equalise_next: the next seat clockwise that holds more than the smallest hand, else the
    refill. A seat that owes its whole hand lays it down at once (engine._run_forced's forced step,
    :func:`equalise`), and the turn goes on from it."""
    if not len(idx):
        return
    n = e.num_players
    done = []
    for _ in range(n):
        if not len(idx):
            break
        q = (q + 1) % n
        back = q == e.equalise_taker[idx]
        done.append(idx[back])
        idx, q = idx[~back], q[~back]
        h = e.hands[idx, q]
        c = pc(h)
        k = c - e.equalise_to[idx]
        owes = k > 0
        decide(e, idx[owes], PH_EQUALISE, q[owes], k[owes])
        whole = owes & (k == c)
        if whole.any():
            i, p, s = idx[whole], q[whole], h[whole]
            e.hands[i, p] = 0
            e.piles[i, e.side_of[e.equalise_taker[i]]] |= s
            e.laid_down[i, p] |= s
            e.known[i, p] = 0
        go = ~owes | whole
        idx, q = idx[go], q[go]
    refill(e, np.concatenate(done + [idx]))


def refill(e, idx: np.ndarray) -> None:
    """engine._refill: one card at a time from the taker clockwise; four of a kind and the game's end handed
    off; else the next round, led by the taker (or the next seat clockwise holding cards)."""
    if not len(idx):
        return
    n = e.num_players
    taker = e.equalise_taker[idx]
    had = e.stock[idx] != 0
    if had.any():
        _draws(e, idx[had], taker[had])
    if e.rules.four_of_a_kind:
        h = e.hands[idx]
        ins = ((e.out[idx, None] >> np.arange(n)) & 1) == 0
        four = had & (ins & (((h & ACES) == ACES) | ((h & SIXES) == SIXES))).any(axis=1)
        hand_off(e, idx[four], FOUR)
        idx, taker = idx[~four], taker[~four]
    empty = ~e.hands[idx].any(axis=1)
    end_game(e, idx[empty])
    idx, leader = idx[~empty], taker[~empty]
    for _ in range(n):
        none = e.hands[idx, leader] == 0
        if not none.any():
            break
        leader = np.where(none, (leader + 1) % n, leader)
    start_round(e, idx, leader)


def _draws(e, idx: np.ndarray, taker: np.ndarray) -> None:
    """scoring._refill's draws in one go: round after round, each seat in (clockwise from the taker) with
    fewer than ``hand_size`` cards draws the stock's next card (scoring._draw), until the stock is empty;
    the last card, the bottom card, is shown and its suit is trump (C1.10; not in the quick game)."""
    n, hs, m = e.num_players, e.rules.hand_size, len(idx)
    order = (taker[:, None] + np.arange(n)) % n
    g = idx[:, None]
    ins = (e.out[g] >> order & 1) == 0
    need = np.where(ins, np.maximum(hs - pc(e.hands[g, order]), 0), 0)
    takes = need[:, None, :] > np.arange(hs)[None, :, None]  # [game, round, seat in order]
    k = np.cumsum(takes.reshape(m, -1), axis=1).reshape(m, hs, n) - 1  # the draw's place in the stock
    left = pc(e.stock[idx])
    takes &= k < left[:, None, None]
    pos = e.stock_pos[idx]
    cards = e.stock_seq[idx[:, None, None], np.clip(pos[:, None, None] + k, 0, 35)].astype(I64)
    got = np.bitwise_or.reduce(np.where(takes, np.left_shift(1, cards), 0), axis=1)
    e.hands[g, order] |= got
    e.stock[idx] ^= np.bitwise_or.reduce(got, axis=1)
    e.stock_pos[idx] = pos + np.minimum(need.sum(axis=1), left)
    if hs != 4:
        last = e.stock[idx] == 0
        i, t, k, pos, left = idx[last], takes[last], k[last], pos[last], left[last]
        c = e.stock_seq[i, pos + left - 1].astype(I64)
        q = order[last][np.arange(len(i)), ((k == (left - 1)[:, None, None]) & t).any(axis=1).argmax(axis=1)]
        e.revealed[i] = c
        e.trump[i] = c // 9
        e.known[i, q] |= np.left_shift(1, c)


def start_round(e, idx: np.ndarray, leader: np.ndarray) -> None:
    """engine._start_round: an empty table (``_clear_round``), then the claim question (C1.13)."""
    if not len(idx):
        return
    clear_round(e, idx, leader)
    ask_claims(e, idx, (leader + 1) % e.num_players)
