"""``beat_or_discard_v0`` batched: the end of a game and the next deal as array operations -- the scalar
:mod:`kozel_env.cards.beat_or_discard.scoring`'s ``_end_game`` (card points, the penalty table C1.1, eggs
C1.12 through the ledger's multiply rule) and ``_deal`` (C1.9-C1.11: the shuffle from the game's own
:class:`~kozel_env.core.rng.Rng` stream, bit for bit through :mod:`kozel_env.vector.rng`), for the games
``idx`` of the engine ``e``.

Only a game end that changes nothing but the scores goes through here. One that ends the match or puts a
player out (C1.16, C1.17) and every ``single_deal`` game end are handed off whole to the scalar
``_end_game`` (:mod:`.beat_or_discard_moves`), and so is four of a kind in the new deal (C1.14, the scalar
``_four_check``). The scalar ``results`` hold the deals the scalar code ended; the engine's outputs hold
every deal.
"""
from __future__ import annotations

import numpy as np

from ..cards.beat_or_discard.tables import ACES, DIAMOND_ORDER, SIXES
from ..cards.deck import DIAMONDS, NUM_CARDS, points
from . import rng as vrng
from .beat_or_discard_moves import END_GAME, FOUR, MATCH_OVER, ask_claims, hand_off
from .beat_or_discard_views import SUIT_SHIFTS

I64 = np.int64
CHUNK_POINTS = np.array([[points(m << sh) for m in range(512)] for sh in SUIT_SHIFTS], I64)
"""``CHUNK_POINTS[s, m]``: card points (deck.points) of the 9-bit chunk ``m`` of suit ``s``."""


def card_points(piles: np.ndarray) -> np.ndarray:
    """deck.points of every mask."""
    return sum(CHUNK_POINTS[s][piles >> sh & 511] for s, sh in enumerate(SUIT_SHIFTS))


def end_game(e, idx: np.ndarray) -> None:
    """scoring._end_game where the match goes on with everyone in; elsewhere the scalar one (handed off)."""
    if not len(idx):
        return
    r = e.rules
    S = e.num_sides
    ins = ((e.out[idx, None] >> np.arange(S)) & 1) == 0 if not r.pairs else np.ones((len(idx), S), bool)
    pts = card_points(e.piles[idx])
    tricks = e.tricks[idx]
    pen = np.array(r.penalties, I64)
    raw = np.where(tricks == 0, pen[3], np.where(pts >= 61, pen[0], np.where(pts >= 31, pen[1], pen[2])))
    raw = np.where(ins, raw, 0)
    two = ins.sum(axis=1) == 2
    eggs = two & ((np.where(ins, pts, 0) == 60).sum(axis=1) == 2)
    mult = np.left_shift(1, e.eggs[idx])
    written = np.where(eggs[:, None], 0, raw * mult[:, None])
    scores = e.scores[idx] + written
    ends = (ins & (scores >= r.target)).any(axis=1) | np.full(len(idx), e.single_deal)
    winners = ins & (raw == 0) & ~eggs[:, None]
    new = idx[:0]
    if r.pairs and not e.single_deal and e.autoreset:
        new = _match_over(e, idx[ends], written[ends], scores[ends], winners[ends], eggs[ends])
    else:
        hand_off(e, idx[ends], END_GAME)
    keep = ~ends
    idx, written, scores, eggs, winners = idx[keep], written[keep], scores[keep], eggs[keep], winners[keep]
    if len(idx):
        e.scores[idx] = scores
        e.eggs[idx] = np.where(eggs, e.eggs[idx] + 1, 0)
        e.deals_played[idx] += 1
        e.first_game[idx] = 0
        e.end_deal_outputs(idx, written, scores, winners, eggs)
    deal(e, np.concatenate([idx, new]), np.arange(len(idx) + len(new)) >= len(idx))


def _match_over(e, idx, written, scores, winners, eggs) -> np.ndarray:
    """scoring._end_game's match end in pairs (C1.17): the first side at the target (Ledger.at_target) is the
    goat and loses with every side at the target, the other side wins; the outputs recorded, and (auto-reset:
    the scalar state is not kept) the next match of each game's stream set up at once (:func:`new_match`),
    returned to be dealt with the other games' next deals."""
    if not len(idx):
        return idx
    e.end_deal_outputs(idx, written, scores, winners, eggs)
    at = scores >= e.rules.target
    won = np.zeros_like(at)
    won[np.arange(len(idx)), 1 - at.argmax(axis=1)] = True
    e.end_match_outputs(idx, won, at)
    new_match(e, idx, e.next_seeds(idx))
    return idx


def new_matches(e, idx: np.ndarray, seeds: np.ndarray) -> None:
    """setup.new_state(rules, seed) without set-up options (``single_deal`` aside): :func:`new_match`, then its
    first deal (:func:`deal`)."""
    new_match(e, idx, seeds)
    deal(e, idx, np.ones(len(idx), bool))


def new_match(e, idx: np.ndarray, seeds: np.ndarray) -> None:
    """setup._match in games ``idx``: a fresh match situation (no scores, nobody out, the first game, diamonds
    trump) from ``seeds``, the scalar states too (``e.match_states``); not dealt yet."""
    e.match_states(idx, seeds)
    e.rng[idx] = seeds
    for name in ("scores", "eggs", "out", "deals_played", "last_taker", "terminal", "picked", "owed", "offered",
                 "equalise_taker", "equalise_to", "beats", "handoff"):
        getattr(e, name)[idx] = 0
    e.mask_ok[idx] = False
    e.first_game[idx] = 1
    e.trump[idx] = DIAMONDS


def _lowest_diamond_table() -> np.ndarray:
    """``[diamond chunk]``: the place in tables.DIAMOND_ORDER of the chunk's lowest diamond (9: none)."""
    sh = SUIT_SHIFTS[DIAMONDS]
    out = np.full(512, len(DIAMOND_ORDER), I64)
    for m in range(512):
        for i, c in enumerate(DIAMOND_ORDER):
            if m << sh >> c & 1:
                out[m] = i
                break
    return out


LOWEST_DIAMOND = _lowest_diamond_table()


def deal(e, idx: np.ndarray, first: np.ndarray) -> None:
    """scoring._deal in games ``idx``: the shuffle, hands to the seats still in, the stock; the leader is the
    taker of the last trick (C1.11), the next seat in when it is out; four of a kind (C1.14) handed off.
    ``first`` (per game): the match's first game, everyone in: the holder of the lowest diamond leads
    (tables.lowest_diamond_seat; nobody: seat 0), and four of a kind ends the match at its set-up: handed
    to the engine as ``MATCH_OVER``, which starts the next match of the stream (module docstring of
    :mod:`.beat_or_discard`). The compiled step's engine deals in its kernel (:mod:`.beat_or_discard_jit_deal`)."""
    if e.jit:
        e.jit_deals(idx, first)
        return
    r = e.rules
    n, hs = e.num_players, r.hand_size
    cards = vrng.shuffled(e.rng, idx, list(range(NUM_CARDS)))
    bits = np.left_shift(1, cards)
    ins = ((e.out[idx, None] >> np.arange(n)) & 1) == 0
    slot = np.cumsum(ins, axis=1) - 1
    dealt = ins.sum(axis=1) * hs
    by_slot = np.bitwise_or.reduce(bits[:, :n * hs].reshape(len(idx), n, hs), axis=2)  # the k-th seat in: slot k
    hands = np.where(ins, by_slot[np.arange(len(idx))[:, None], np.maximum(slot, 0)], 0)
    e.hands[idx] = hands
    rest = np.arange(NUM_CARDS)[None, :] >= dealt[:, None]
    e.stock[idx] = np.bitwise_or.reduce(np.where(rest, bits, 0), axis=1)
    shift = np.clip(np.arange(NUM_CARDS)[None, :] + dealt[:, None], 0, NUM_CARDS - 1)
    e.stock_seq[idx] = cards[np.arange(len(idx))[:, None], shift]
    e.stock_pos[idx] = 0
    for name in ("piles", "piles_up", "tricks", "laid_down", "known"):
        getattr(e, name)[idx] = 0
    e.revealed[idx] = -1
    if hs == 4:
        e.trump[idx] = DIAMONDS
    e.diamond_leader[idx] = -1
    leader = e.last_taker[idx]
    out = e.out[idx]
    for _ in range(n):
        skip = (out >> leader & 1) == 1
        if not skip.any():
            break
        leader = np.where(skip, (leader + 1) % n, leader)
    if first.any():
        lowest = LOWEST_DIAMOND[hands >> SUIT_SHIFTS[DIAMONDS] & 511].argmin(axis=1)
        leader = np.where(first, lowest, leader)
        e.diamond_leader[idx[first]] = lowest[first]
    for _ in range(n):
        skip = hands[np.arange(len(idx)), leader] == 0
        if not skip.any():
            break
        leader = np.where(skip, (leader + 1) % n, leader)
    clear_round(e, idx, leader)
    if r.four_of_a_kind:
        four = (ins & (((hands & ACES) == ACES) | ((hands & SIXES) == SIXES))).any(axis=1)
        hand_off(e, idx[four & ~first], FOUR)
        hand_off(e, idx[four & first], MATCH_OVER)
        idx, leader = idx[~four], leader[~four]
    ask_claims(e, idx, (leader + 1) % n)


def clear_round(e, idx, leader) -> None:
    """engine._clear_round: an empty table for a round that ``leader`` leads."""
    e.leader[idx] = leader
    e.last_beater[idx] = -1
    e.table_up[idx] = 0
    e.table_down[idx] = 0
    e.claims[idx] = 0
    for name in ("top", "lead", "locked", "acted", "best_claim"):
        getattr(e, name)[idx] = 0
    e.claim_stop[idx] = leader
