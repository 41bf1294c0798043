"""Determinization of card Kozel with the six of spades: :func:`sample_consistent` re-deals what one seat
has not seen, consistently with its observation (the engine contract's
:meth:`~kozel_env.core.game.Game.sample_consistent`; the caller passes an :class:`~kozel_env.core.rng.Rng`).
"""
from __future__ import annotations

from itertools import combinations

from ...core.bits import bits, mask_of
from ...core.errors import KozelError
from ...core.rng import Rng
from ..deck import FULL_DECK, NUM_CARDS, SUIT_MASK, SUIT_OF
from .engine import SixOfSpadesState
from .tables import (
    BEATEN_BY,
    HAND,
    MOLODKA,
    MOSKVA,
    MOSKVA_CARDS,
    NOT_SIX,
    PH_ANSWER,
    PH_CALL,
    PH_LEAD,
    SIX_BIT,
    call_kind,
    covers_sorted,
    lead_sets,
)


def sample_consistent(st: SixOfSpadesState, player: int, rng: Rng) -> SixOfSpadesState:
    """Re-deal every card ``player`` has not seen -- other hands, the stock (its order too) and the
    other players' face-down cards (each stays in the same trick pile or round, with the same owner) --
    consistently with the observation: the drawn trump card stays with its drawer (in hand or among the
    drawer's later face-down cards) unless seen; before a lead, a seat that called holds that call (a
    pass says nothing: every holder is asked, C3.5); with ``calls="auto"`` nobody holds a call when the
    scheduled leader leads; a seat to move (other than ``player``) outside a call question keeps a real
    choice (the engine plays forced steps itself). Uniform by rejection; constructive
    proposals where a constraint is rare (not exactly uniform then). The future deals' Rng is re-seeded
    from ``rng``. Not conditioned on: what earlier rounds' offers and refusals said about hands that have
    since changed (that history is not part of the observation either).
    """
    r = st.rules
    if st.terminal:
        new = st.clone()
        new.rng = Rng(rng.next_u64())
        return new
    pool, groups = _slot_groups(st, player)
    # constraint: the drawn trump card is with its drawer (hand or later face-down cards)
    tc = st.trump_card
    trump_slots = None
    if st.trump_drawn_by >= 0 and pool >> tc & 1:
        trump_slots = [gi for gi, (key, cnt) in enumerate(groups)
                       if (key[0] == "hand" and key[1] == st.trump_drawn_by)
                       or (key[0] == "down" and key[1] == st.trump_drawn_by and key[3])]
    pre_lead = st.phase in (PH_CALL, PH_LEAD) and st.lead_cap == HAND and r.calls != "off"
    required = [(s, kind) for s, kind in st.calls_made if s != player] if pre_lead else []
    must_choose = st.current_player != player and st.phase != PH_CALL
    pool_cards = bits(pool)
    for attempt in range(600):
        constructive = attempt >= 100
        assign = _propose(st, groups, pool_cards, trump_slots, required, rng, constructive)
        if assign is None:
            continue
        new = _build(st, player, groups, assign, rng)
        if _consistent(st, new, pre_lead, must_choose):
            return new
    raise KozelError("no consistent determinization found")  # pragma: no cover


def _slot_groups(st: SixOfSpadesState, player: int) -> tuple:
    """The cards ``player`` has not seen (a mask) and the slots they fill: ``[(key, count)]`` with key
    ``("hand", seat)``, ``("down", seat, side or -1 for the round, laid after drawing the trump card)`` or
    ``("stock",)``."""
    ns = st.rules.num_sides
    known = st.hands[player] | st.laid_down[player]
    for sd in range(ns):
        known |= st.taken_face_up[sd]
    for s in st.seats_in_deal:
        known |= st.round_up[s]
    under = st.trump_drawn_by < 0
    if under:
        known |= 1 << st.trump_card
    pool = FULL_DECK & ~known
    groups = []
    for s in st.seats_in_deal:
        if s == player:
            continue
        groups.append((("hand", s), st.hands[s].bit_count()))
        d = st.laid_down[s]
        if d:
            post = st.down_after_trump if s == st.trump_drawn_by else 0
            for sd in list(range(ns)) + [-1]:
                b = d & (st.taken[sd] if sd >= 0 else st.round_down[s])
                if b & ~post:
                    groups.append((("down", s, sd, False), (b & ~post).bit_count()))
                if b & post:
                    groups.append((("down", s, sd, True), (b & post).bit_count()))
    nstock = len(st.stock) - (1 if under else 0)
    groups.append((("stock",), nstock))
    assert sum(c for _, c in groups) == pool.bit_count(), "slot count mismatch"
    return pool, groups


def _place(fill: dict, left: set, gi: int, choice: list | None) -> bool:
    """Add the cards ``choice`` to slot group ``gi`` (after the cards it already holds) and take them out of
    ``left``; False when no such choice exists (``None``)."""
    if choice is None:
        return False
    left.difference_update(choice)
    fill[gi] = fill.get(gi, []) + choice
    return True


def _propose(st, groups, pool_cards, trump_slots, required, rng, constructive):
    """One assignment of the unseen cards to the slot groups (a list of card lists), or None."""
    fill = {}
    left = set(pool_cards)
    if trump_slots:
        # uniform over the drawer's eligible card slots
        weights = [groups[gi][1] for gi in trump_slots]
        k = rng.below(sum(weights))
        for gi, w in zip(trump_slots, weights):
            if k < w:
                fill.setdefault(gi, []).append(st.trump_card)
                break
            k -= w
        left.discard(st.trump_card)
    gi_hand = {key[1]: gi for gi, (key, _) in enumerate(groups) if key[0] == "hand"}
    for s, kind in required:
        gi = gi_hand[s]
        if not _place(fill, left, gi, _random_callable(kind, left, fill.get(gi, []), rng)):
            return None
    cp = st.current_player
    if constructive and st.phase == PH_ANSWER and cp in gi_hand and st.hands[cp].bit_count() == st.lead_size:
        gi = gi_hand[cp]
        if not _place(fill, left, gi, _random_beating(st, left, fill.get(gi, []), rng)):
            return None
    rest = sorted(left)
    rng.shuffle(rest)
    i = 0
    out = []
    for gi, (_key, cnt) in enumerate(groups):
        got = fill.get(gi, [])
        need = cnt - len(got)
        if need < 0:
            return None
        out.append(got + rest[i:i + need])
        i += need
    return out


def _build(st, player, groups, assign, rng) -> SixOfSpadesState:
    """The state with the assignment's cards in place of the unseen ones."""
    new = st.clone()
    new.rng = Rng(rng.next_u64())
    ns = st.rules.num_sides
    others_down = 0
    for key, _count in groups:
        if key[0] == "down":
            others_down |= st.laid_down[key[1]] & (st.taken[key[2]] if key[2] >= 0 else st.round_down[key[1]])
    for s in st.seats_in_deal:
        if s != player:
            new.laid_down[s] = 0
            new.round_down[s] = 0
            new.hands[s] = 0
    new.taken = [st.taken[sd] & ~others_down for sd in range(ns)]
    if st.trump_drawn_by >= 0 and st.trump_drawn_by != player:
        new.down_after_trump = 0
    stock = []
    for (key, _), cards in zip(groups, assign):
        m = mask_of(cards)
        if key[0] == "hand":
            new.hands[key[1]] = m
        elif key[0] == "down":
            s, sd, post = key[1], key[2], key[3]
            new.laid_down[s] |= m
            if sd >= 0:
                new.taken[sd] |= m
            else:
                new.round_down[s] |= m
            if post:
                new.down_after_trump |= m
        else:
            stock = list(cards)
    new.stock = ([st.trump_card] + stock) if st.trump_drawn_by < 0 else stock
    cp = st.current_player
    if cp != player and st.phase != PH_CALL:
        # the seat to move restarts its private choice; forced card choices are replayed (never a forced
        # confirmation: that would change the table, and _consistent rejects a seat left without choice)
        new.selected = 0
        if st.phase == PH_LEAD:
            new.legal_sets = lead_sets(new.hands[cp], st.lead_cap)
        else:
            new.begin_answer()
        while True:
            legal = new.compute_legal()
            if legal & (legal - 1) or not legal or legal >> NUM_CARDS:
                break
            new.selected |= legal
    return new


def _consistent(st, new, pre_lead, must_choose) -> bool:
    """Does ``new`` agree with what the table saw: the calls (C3.5) and a seat to move with a choice?"""
    if pre_lead:
        hands = new.hands
        if st.rules.calls == "auto":
            if any(call_kind(hands[s]) >= 0 for s in new.clockwise_from(st.scheduled_leader)):
                return False  # the holder of a call would have called (C3.5, calls="auto")
        elif any(call_kind(hands[s]) != kind for s, kind in st.calls_made):
            return False
    new.legal_mask = new.compute_legal()
    if must_choose and not new.legal_mask & (new.legal_mask - 1):
        return False
    return True


def _random_callable(kind: int, left: set, fixed: list, rng: Rng):
    """A uniformly chosen four of ``kind`` made of ``fixed`` plus cards from ``left`` (its new cards)."""
    fm = mask_of(fixed)
    avail = sorted(left)
    need = HAND - len(fixed)
    if kind == MOSKVA:
        cand = [c for c in avail if MOSKVA_CARDS >> c & 1]
        opts = [combo for combo in combinations(cand, need)
                if call_kind(fm | mask_of(combo)) == MOSKVA]
    else:
        opts = []
        for s in range(4):
            cand = [c for c in avail if (SUIT_MASK[s] | SIX_BIT) >> c & 1]
            for combo in combinations(cand, need):
                m = fm | mask_of(combo)
                u = m & NOT_SIX
                if call_kind(m) == MOLODKA and u and SUIT_OF[(u & -u).bit_length() - 1] == s:
                    opts.append(combo)
    if not opts:
        return None
    return list(opts[rng.below(len(opts))])


def _random_beating(st: SixOfSpadesState, left: set, fixed: list, rng: Rng):
    """A uniformly chosen answer (``fixed`` plus cards of ``left``) that beats the top cards."""
    need = st.lead_size - len(fixed)
    fm = mask_of(fixed)
    bb = BEATEN_BY[st.trump_suit]
    useful = 0
    for t in st.top_hardest_first:
        useful |= bb[t]
    cand = [c for c in sorted(left) if useful >> c & 1]
    opts = [combo for combo in combinations(cand, need)
            if covers_sorted(fm | mask_of(combo), st.top_hardest_first, bb)]
    if not opts:
        return None
    return list(opts[rng.below(len(opts))])
