"""Beat legality for ``beat_or_discard_v0`` as bitmask table look-ups (seed 002, RULES C1.2-C1.3).

A beat covers every current top card one for one: each beating card beats a distinct top card (RULES
C1.3), where a card beats another when it is a higher card of the same suit, or a trump over a non-trump
(RULES C1.2; rank order ``6 7 8 9 J Q K T A``, :data:`~.tables.STRENGTH`). Legality is the existence of
a perfect matching.

The matching splits by suit. A non-trump card only beats lower cards of its own suit; a trump beats any
non-trump and higher trumps. So a set ``M`` beats the top cards ``T`` exactly when

* for every non-trump suit ``s``, the cards ``M_s`` each take a distinct lower card of ``T_s``
  (``dominates``), and
* the trumps ``M_t`` cover ``T_t`` with distinct higher trumps, and the trumps left over number exactly
  the non-trump top cards not taken by their own suit (any trump beats those).

Both per-suit tests have nested neighbourhoods (a card beats a prefix / is beaten by a suffix of the
suit), so Hall's condition is a single sorted scan. Results are memoised per ``(T_s, H_s)`` pair of 9-bit
suit chunks (a top chunk and a hand chunk are disjoint, so at most 3**9 keys per table).

Public helpers (masks are 36-bit card masks of :mod:`kozel_env.cards.deck`, ``trump`` a suit index):

* :func:`can_beat` -- is there any beating set in ``hand``;
* :func:`beat_sets` -- every beating set (a tuple of masks, each exactly ``popcount(top)`` cards);
* :func:`is_beat` -- does this exact set beat.
"""
from __future__ import annotations

from .tables import STRENGTH

_SH = (0, 9, 18, 27)


def _strengths(chunk: int) -> list:
    """Strengths (0..8) of the ranks in a 9-bit suit chunk, ascending."""
    return sorted(STRENGTH[r] for r in range(9) if chunk >> r & 1)  # rank r: the same strength as card r


def _subsets(chunk: int) -> list:
    """Every subset of a 9-bit chunk (as chunks), the empty set first."""
    out = [0]
    r = chunk
    while r:
        low = r & -r
        r ^= low
        out += [s | low for s in out]
    return out


def _dominates(sub: int, tops: list) -> bool:
    """Each card of ``sub`` beats a distinct card of ``tops`` (strengths, ascending) in the same suit."""
    for i, s in enumerate(_strengths(sub)):
        if sum(1 for t in tops if t < s) < i + 1:
            return False
    return True


def _covers(sub: int, tops: list) -> bool:
    """Each card of ``tops`` is beaten by a distinct higher card of ``sub`` (same suit)."""
    subs = _strengths(sub)
    for j, t in enumerate(reversed(tops)):
        if sum(1 for s in subs if s > t) < j + 1:
            return False
    return True


_NT: dict = {}
_TR: dict = {}


def _beaters(trump: int, c: int) -> int:
    out = 0
    for a in range(36):
        sa, sc = a // 9, c // 9
        if (sa == sc and STRENGTH[a] > STRENGTH[c]) or (sa == trump and sc != trump):
            out |= 1 << a
    return out


BEATERS = tuple(tuple(_beaters(t, c) for c in range(36)) for t in range(4))
"""``BEATERS[trump][card]``: the cards that beat ``card`` (RULES C1.2)."""


def _nt_entry(key: int) -> tuple:
    """Non-trump suit: ``(max cards of the suit that can be used, ((sub, deficit), ...))``; ``deficit``
    is how many top cards of the suit remain for trumps when ``sub`` is used."""
    ts, hs = key >> 9, key & 511
    tops = _strengths(ts)
    n = len(tops)
    lo = tops[0]
    useful = 0
    for r in range(9):
        if hs >> r & 1 and STRENGTH[r] > lo:
            useful |= 1 << r
    opts = []
    best = 0
    for sub in _subsets(useful):
        k = sub.bit_count()
        if k <= n and _dominates(sub, tops):
            opts.append((sub, n - k))
            best = max(best, k)
    e = (best, tuple(opts))
    _NT[key] = e
    return e


def _tr_entry(key: int) -> tuple:
    """Trump suit: ``(coverable, {extra: (sub, ...)})`` where ``sub`` covers the trump top cards and
    ``extra = |sub| - |trump tops|`` trumps are left for non-trump top cards."""
    ts, hs = key >> 9, key & 511
    tops = _strengths(ts)
    n = len(tops)
    by_extra: dict = {}
    for sub in _subsets(hs):
        k = sub.bit_count()
        if k >= n and (n == 0 or _covers(sub, tops)):
            by_extra.setdefault(k - n, []).append(sub)
    e = (bool(by_extra), {x: tuple(v) for x, v in by_extra.items()})
    _TR[key] = e
    return e


def can_beat(hand: int, top: int, trump: int) -> bool:
    """True if some set of cards of ``hand`` beats every card of ``top`` one for one (RULES C1.3)."""
    if not top & (top - 1):  # one top card (the common case): any beater
        return bool(top) and bool(hand & BEATERS[trump][top.bit_length() - 1])
    if hand.bit_count() < top.bit_count():
        return False
    need = 0
    spare = -1
    for s in (0, 1, 2, 3):
        sh = _SH[s]
        ts = top >> sh & 511
        hs = hand >> sh & 511
        if s == trump:
            if ts:
                key = ts << 9 | hs
                e = _TR.get(key) or _tr_entry(key)
                if not e[0]:
                    return False
            spare = hs.bit_count() - ts.bit_count()
        elif ts:
            key = ts << 9 | hs
            e = _NT.get(key) or _nt_entry(key)
            need += ts.bit_count() - e[0]
    return spare >= need


def beat_sets(hand: int, top: int, trump: int) -> tuple:
    """Every set of cards of ``hand`` that beats ``top`` (RULES C1.3), as 36-bit masks."""
    if not top & (top - 1):  # one top card (the common case): each beater alone
        if not top:
            return ()
        m = hand & BEATERS[trump][top.bit_length() - 1]
        out = []
        while m:
            low = m & -m
            out.append(low)
            m ^= low
        return tuple(out)
    if hand.bit_count() < top.bit_count():
        return ()
    combos = [(0, 0)]
    for s in (0, 1, 2, 3):
        if s == trump:
            continue
        sh = _SH[s]
        ts = top >> sh & 511
        if not ts:
            continue
        key = ts << 9 | (hand >> sh & 511)
        opts = (_NT.get(key) or _nt_entry(key))[1]
        combos = [(m | sub << sh, d + dd) for m, d in combos for sub, dd in opts]
    sh = _SH[trump]
    key = (top >> sh & 511) << 9 | (hand >> sh & 511)
    e = _TR.get(key) or _tr_entry(key)
    if not e[0]:
        return ()
    by_extra = e[1]
    out = []
    for m, d in combos:
        for sub in by_extra.get(d, ()):
            out.append(m | sub << sh)
    return tuple(out)


def is_beat(cards: int, top: int, trump: int) -> bool:
    """True if exactly the set ``cards`` beats ``top`` (same size, a perfect matching exists)."""
    return cards.bit_count() == top.bit_count() and cards in beat_sets(cards, top, trump)


def beats_card(a: int, b: int, trump: int) -> bool:
    """RULES C1.2: card ``a`` beats card ``b``."""
    return bool(BEATERS[trump][b] >> a & 1)
