"""The conservation laws of a ``beat_or_discard_v0`` state (seed 002, RULES C1), checked by the conformance
fuzzing (:meth:`kozel_env.core.game.State.check_invariants`)."""
from __future__ import annotations

from ...core.game import State
from ..deck import FULL_DECK
from .tables import PH_OVER


def check_invariants(st: State) -> None:
    """Of ``st``, a :class:`~kozel_env.cards.beat_or_discard.engine.BeatOrDiscardState` (annotated as the engine
    contract's ``State``: the engine imports this module, not the other way round): every card exactly once (hands,
    stock, table, tricks); the public/face-down bookkeeping is consistent; scores never negative and below the
    target while the match runs (C1.16-17); the seat to move has a real choice (two or more legal actions)."""
    r = st.rules
    n = r.num_players
    seen = st.stock
    for m in st.hands + st.table_up + st.table_down + st.piles:
        assert not seen & m, "a card is in two places"
        seen |= m
    assert seen == FULL_DECK, "a card is missing"
    for s in range(r.num_sides):
        assert st.piles_up[s] & ~st.piles[s] == 0
        assert st.tricks[s] > 0 or st.piles[s] == 0, "cards in a pile without a trick"
    allp = 0
    for p in st.piles:
        allp |= p
    up = 0
    for m in st.piles_up:
        up |= m
    for q in range(n):
        assert st.known[q] & ~(st.hands[q] | st.table_down[q]) == 0, "known card not held"
        assert st.laid_down[q] & ~(st.table_down[q] | allp) == 0, "face-down card lost"
        assert st.table_down[q] & ~st.laid_down[q] == 0
        assert st.laid_down[q] & up == 0
        assert st.hands[q].bit_count() <= r.hand_size
        if st.out >> q & 1 and not st.terminal:  # a match ended by C1.14 keeps the hands as dealt
            assert not st.hands[q], "a seat out of the match holds cards"
    assert all(v >= 0 for v in st.ledger.scores)
    assert sum(1 << c for c in st.stock_seq) == st.stock and len(st.stock_seq) == st.stock.bit_count()
    if st.terminal:
        assert st.current_player == -1 and st.match_result is not None and st.phase == PH_OVER
        return
    if r.pairs:
        assert all(v < r.target for v in st.ledger.scores), "a side at the target but the match runs"
    else:
        act = st.active_seats()
        assert len(act) >= 2 and all(st.ledger.scores[q] < r.target for q in act)
    cp = st.current_player
    assert 0 <= cp < n and not st.out >> cp & 1
    assert st.picked & ~st.hands[cp] == 0
    if st.last_beater >= 0:
        assert st.top and st.top & ~st.table_up[st.last_beater] == 0
    m = st.legal_mask()
    assert m & (m - 1) or (m and st.public_ask()), "the seat to move has no real choice"
