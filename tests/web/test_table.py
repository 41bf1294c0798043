"""The table store and the per-seat view builder of :mod:`agents.web.table`."""
from __future__ import annotations

import time

import pytest

from agents.web.table import BadRequest, Table, Tables, state_view


class _Item:
    touched = 0.0


def test_the_store_keeps_at_most_max_tables_dropping_the_least_recently_used():
    store = Tables(max_tables=3, ttl=100.0)
    keys = [store.add(_Item()) for _ in range(3)]
    store.get(keys[0])  # used again: the oldest is now keys[1]
    newest = store.add(_Item())
    assert len(store) == 3
    with pytest.raises(BadRequest, match="unknown or expired"):
        store.get(keys[1])
    assert store.get(keys[0]) and store.get(newest)


def test_an_idle_table_expires_after_ttl_seconds():
    store = Tables(max_tables=3, ttl=0.05)
    key = store.add(_Item())
    store.items[key].touched = time.monotonic()
    time.sleep(0.1)
    with pytest.raises(BadRequest) as e:
        store.get(key)
    assert e.value.status == 404 and len(store) == 0


def test_a_seats_view_shows_its_own_hand_only_and_the_spectators_every_hand():
    t = Table("queens_and_jacks_v0", seats=["normal"] * 4, seed=3)
    seat = state_view(t.game, t.state, 2)
    everyone = state_view(t.game, t.state, None)
    assert list(seat["hands"]) == ["2"] and len(everyone["hands"]) == 4
    assert seat["hands"]["2"] == everyone["hands"]["2"] and len(seat["hands"]["2"]) == seat["counts"][2]


@pytest.mark.parametrize("env_name", ["dominoes_v0", "sea_goat_v0", "dominoes_ffa_v0"])
def test_the_dominoes_line_follows_the_public_moves_with_each_tile_turned_to_its_end(env_name):
    for seed in range(8):  # random play reaches the two-doubles move ("33+44") too
        t = Table(env_name, seats=["random"] * t_players(env_name), episode="deal", seed=seed)
        while not t.state.terminal:
            t.advance(1)
            line = t.line
            chain = [[b, a] for a, b in reversed(line["arms"]["L"])] + [line["center"]] + line["arms"]["R"]
            assert all(x[1] == y[0] for x, y in zip(chain, chain[1:])), chain
            assert [chain[0][0], chain[-1][1]] == list(t.state.ends)
            assert len(chain) == bin(t.state.played).count("1")


def t_players(env_name: str) -> int:
    from agents.base import game_for

    return game_for(env_name, {}).num_players
