"""Hidden information holds on the wire: what a seat receives does not change when everything it cannot see is
re-dealt.

Two checks, in every game: (1) two tables side by side, the second dealt the same hand for the seat and the
others' hands re-dealt among them (reset options), played in lock step (the seat's moves the same, each other
seat's move at the second table one that leaves the seat knowing what the first table's move told it, another
move where there is one) -- every response the seat gets is byte-identical while the seat's observation
is the same at both tables; (2) at every step of a whole
deal, the engine state is replaced by ``game.sample_consistent`` draws for the seat -- the seat's response stays
byte-identical.
"""
from __future__ import annotations

import random

import pytest

from agents.web.table import Table
from kozel_env.core.rng import Rng
from kozel_env.registry import ENVIRONMENTS


def _deal_setup(table) -> dict:
    """The reset options that deal again what ``table`` dealt (from its record's first deal event)."""
    ev = table.record()["events"][0]
    setup = {k: v for k, v in ev["public"].items() if k != "first_deal"}
    if ev["public"].get("first_deal"):
        setup.pop("leader", None)  # the opening rule chooses the leader of a first deal
    for k, v in ev.get("private", {}).items():
        if v is not None:
            setup[k] = " ".join(v) if k == "stock" else v
    if "trump_card" in setup and setup.get("stock", "").endswith(setup["trump_card"]):  # six_of_spades: apart
        setup["stock"] = setup["stock"][:-len(setup["trump_card"])].strip()
    return setup


def _redeal(setup: dict, seat: int, rng: random.Random) -> dict:
    """``setup`` with the other seats' hands and the stock (but its bottom card, the trump card in some games)
    pooled and dealt again (same sizes)."""
    hands = [h.split() for h in setup["hands"]]
    stock = setup["stock"].split() if setup.get("stock") else []
    parts = [h for q, h in enumerate(hands) if q != seat] + [stock[:-1]]
    pool = [t for h in parts for t in h]
    rng.shuffle(pool)
    out = {**setup, "hands": []}
    for q, h in enumerate(hands):
        if q == seat:
            out["hands"].append(" ".join(h))
        else:
            out["hands"].append(" ".join(pool[:len(h)]))
            pool = pool[len(h):]
    if stock:
        out["stock"] = " ".join(pool + stock[-1:])
    return out


def _response(client, tid: str, table, seat: int) -> bytes:
    r = client.get(f"/api/tables/{tid}", params={"seat": seat, "token": table.tokens[seat]})
    assert r.status_code == 200, r.text
    return r.content


@pytest.mark.parametrize("env_name", list(ENVIRONMENTS))
def test_a_seat_receives_the_same_bytes_when_the_other_hands_are_dealt_again(env_name, client):
    store = client.app.state.tables
    rng = random.Random(5)
    compared = 0
    n = _players(env_name)
    for seed in range(1, 9):
        seat = seed % n
        probe = Table(env_name, episode="deal", seed=seed, seats=["human"] * n)
        setup = _deal_setup(probe)
        a = Table(env_name, episode="deal", seed=seed, seats=["human"] * n, setup=setup)
        b = None
        for _ in range(50):  # a re-deal that keeps the public facts of the deal (the opening rule's leader)
            try:
                b = Table(env_name, episode="deal", seed=seed, seats=["human"] * n, setup=_redeal(setup, seat, rng))
            except Exception:  # a re-deal the rules throw in (e.g. too many doubles): draw another
                continue
            if b.logs[0][0]["events"][0]["public"] == a.logs[0][0]["events"][0]["public"] and \
                    b.record()["events"][0]["private"] != a.record()["events"][0]["private"]:
                break
            b = None
        assert b is not None, "no re-deal keeps the deal's public facts"
        ta, tb = store.add(a), store.add(b)
        while _same_knowledge(a, b, seat):
            assert _response(client, ta, a, seat) == _response(client, tb, b, seat)
            compared += 1
            sa, sb = a.state, b.state
            if sa.terminal:
                break
            mover = sa.current_player
            la, lb = sa.legal_actions(), sb.legal_actions()
            if mover == seat:
                assert la == lb
                xa = xb = la[rng.randrange(len(la))]
            else:
                xa = la[rng.randrange(len(la))]
                xb = _twin_move(a, b, seat, xa, rng)
                if xb is None:
                    break
            a.human_move(mover, xa, None)
            b.human_move(mover, xb, None)
    assert compared >= 12  # more than the 8 deals' first views


def _twin_move(a, b, seat: int, xa: int, rng: random.Random) -> int | None:
    """A move at table ``b`` after which ``seat`` knows what it knows after ``xa`` at table ``a``: another move
    where there is one (a different card laid face down), so that a move the seat may not see is tested too."""
    after = a.state.clone()
    after.apply_action(xa)
    want = a.game.observe(after, seat).tobytes()
    fits = []
    for x in b.state.legal_actions():
        st = b.state.clone()
        st.apply_action(x)
        if b.game.observe(st, seat).tobytes() == want:
            fits.append(x)
    others = [x for x in fits if x != xa]
    pick = others or fits
    return pick[rng.randrange(len(pick))] if pick else None


def _same_knowledge(a, b, seat: int) -> bool:
    """The seat's observation (the engine's statement of what it knows) is the same at both tables: a move of
    another seat that the engine makes public (a knock, a skipped turn) may tell the worlds apart."""
    oa, ob = a.game.observe(a.state, seat), b.game.observe(b.state, seat)
    return oa.tobytes() == ob.tobytes() and a.state.current_player == b.state.current_player


def _players(env_name: str) -> int:
    from agents.base import game_for

    return game_for(env_name, {}).num_players


@pytest.mark.parametrize("env_name", list(ENVIRONMENTS))
def test_a_seat_receives_the_same_bytes_from_every_consistent_redeal(env_name, client):
    store = client.app.state.tables
    n = _players(env_name)
    seat = 1
    t = Table(env_name, episode="deal", seed=3, seats=["human"] * n)
    tid = store.add(t)
    rng = Rng(7)
    play = random.Random(8)
    u = t.env.unwrapped
    steps = 0
    while True:
        real = u._st
        want = _response(client, tid, t, seat)
        for _ in range(2):
            u._st = t.game.sample_consistent(real, seat, rng)
            try:
                assert _response(client, tid, t, seat) == want, f"step {steps}: the response changed"
            finally:
                u._st = real
        if real.terminal:
            break
        legal = real.legal_actions()
        t.human_move(real.current_player, legal[play.randrange(len(legal))], None)
        steps += 1
    assert steps > 5
