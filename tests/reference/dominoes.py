"""Reference observation of the dominoes engine (every line game and Donkey), from the parts' docs in
:meth:`kozel_env.dominoes.game.DominoesGame._build_spec` and the Donkey parts (RULES D4)."""
from __future__ import annotations

import numpy as np

from kozel_env.dominoes import knowledge
from kozel_env.dominoes.tiles import NUM_TILES

NO_END = 8  # "8 = no end" (an end slot with nothing to show)


def _has(mask: int, i: int) -> bool:
    return bool((mask >> i) & 1)


def _row(mask: int, width: int) -> list:
    return [1.0 if _has(mask, i) else 0.0 for i in range(width)]


def build(game, st, seat: int) -> dict:
    r = game.rules
    n = game.num_players
    spec = game.obs_spec
    names = [p.name for p in spec.parts]
    seats = [(seat + k) % n for k in range(n)]  # relative seats: 0 = you, 1 = next clockwise ...
    if r.pairs:
        sides = [(r.side_of(seat) + k) % r.num_sides for k in range(r.num_sides)]
    else:
        sides = seats
    hs = r.hand_size
    out = {}
    out["hand"] = _row(st.hands[seat], NUM_TILES)
    out["played_by"] = [_row(st.played_by[q], NUM_TILES) for q in seats]
    out["knocked"] = [_row(st.knocks[q], 7) for q in seats]
    ends = []
    for v in st.ends:  # value 0-6, 7 = dead (closed), 8 = no end
        row = [0.0] * 9
        row[v] = 1.0
        ends.append(row)
    out["ends"] = ends
    out["first_deal"] = [1.0 if st.first_deal else 0.0]
    out["line_empty"] = [1.0 if st.played == 0 else 0.0]
    out["leader"] = [1.0 if q == st.leader else 0.0 for q in seats]
    out["seat"] = [1.0 if q == seat else 0.0 for q in range(n)]
    out["opened"] = [1.0 if st.ledger.opened[sd] else 0.0 for sd in sides]
    if "lead_tile" in names:
        out["lead_tile"] = [1.0 if t == st.lead_tile else 0.0 for t in range(NUM_TILES)]
    if "house" in names:  # Donkey (RULES D4.1, D4.2)
        out["house"] = [1.0 if st.house else 0.0]
        pending = st.move_slots != 0
        out["move_tiles"] = [1.0 if pending and t in st.last_move else 0.0 for t in range(NUM_TILES)]
        out["move_slots"] = _row(st.move_slots, game.num_slots)
    out["hand_counts"] = [st.hands[q].bit_count() / hs for q in seats]
    if "stock" in names:
        out["drawn"] = [st.drawn[q] / hs for q in seats]
        out["stock"] = [st.stock.bit_count() / hs]
        out["lacking"] = [[c / hs for c in knowledge.lack_counts(st.lack[q])] for q in seats]
    led = st.ledger
    out["scores"] = [led.scores[sd] / r.target for sd in sides]
    out["memory"] = [led.memory[sd] / r.target for sd in sides]
    out["eggs"] = [led.eggs / r.target]
    return {p.name: np.array(out[p.name], np.float32).reshape(p.shape) for p in spec.parts}
