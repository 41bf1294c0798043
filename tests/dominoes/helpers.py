"""Constructed dominoes positions for rule tests."""
from __future__ import annotations

from kozel_env.dominoes.engine import NONE
from kozel_env.dominoes.tiles import ALL_TILES, parse_tiles


def position(game, hands, ends=None, current=0, leader=0, scores=None, opened=None, eggs=0, seed=0,
             played_by=None):
    """A mid-deal state of ``game``: ``hands`` (tile strings per seat), line ``ends`` (values; None = the
    empty line), seat ``current`` to move. Tiles in no hand are on the table (credited to ``played_by`` if
    given, else to seat 0), so every tile is accounted for."""
    st = game.new_state(seed, {"first_deal": False, "leader": leader})
    r = game.rules
    st.hands = [parse_tiles(h) for h in hands]
    in_hands = 0
    for h in st.hands:
        in_hands |= h
    st.stock = 0
    n = r.num_players
    st.played_by = [0] * n
    if ends is None:
        st.played = 0
        st.ends = [NONE] * len(st.ends)
        st.stock = ALL_TILES & ~in_hands
    else:
        st.played = ALL_TILES & ~in_hands
        if played_by:
            for seat, tiles in played_by.items():
                st.played_by[seat] = parse_tiles(tiles)
        rest = st.played
        for m in st.played_by:
            rest &= ~m
        st.played_by[0] |= rest
        st.ends = list(ends)
    st.knocks = [0] * n
    st.current_player = current
    st.leader = leader
    st.lead_mask = ALL_TILES
    if scores is not None:
        st.ledger.scores = list(scores)
        st.ledger.opened = list(opened) if opened is not None else [s > 0 for s in scores]
        st.ledger.wrote = [s > 0 for s in scores]  # a score given at the start counts as written (D1.9)
    st.ledger.eggs = eggs
    return st


def play(game, st, *moves):
    for m in moves:
        st.apply_action(game.string_to_action(st, m))
    return st
