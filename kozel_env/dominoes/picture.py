"""Pictures of the dominoes games (``render_mode="rgb_array"``): :func:`draw` for :class:`DominoesGame`
(``dominoes_v0``, ``dominoes_ffa_v0``, ``sea_goat_v0``, ``boneyard_v0``) and :class:`DonkeyGame`
(``donkey_v0``).

What is shown is what the game's text ``render(state, viewer)`` shows (:mod:`kozel_env.dominoes.game`,
:mod:`kozel_env.dominoes.donkey`), drawn: the scores per side (and whether a pair has opened, RULES D1.7),
the eggs carried (RULES D1.8), the stock count (RULES D2, D5), each seat's hand -- face up for the viewer,
face-down tile backs for the others (all face up with ``viewer=None``) --, the tiles each seat has played
this deal, the numbers each seat knocked on (RULES D1.3), the open ends of the line (two, or four in
Donkey with dead ends of closed doubles, RULES D4.1-3), the house and a move of doubles in progress
(RULES D4.2), whose turn it is and the end of the match. The order of the tiles along the line is not
part of the state, so the line is drawn as its ends and the number of tiles on it.
"""
from __future__ import annotations

from functools import cache

import numpy as np

from ..core import raster as R
from ..core import table as T
from ..core.bits import bits
from .engine import DEAD, NONE
from .tiles import TILES

IVORY = (247, 242, 228)
EDGE = (70, 60, 48)
PIP = (24, 24, 24)
BACK = (128, 36, 44)
BACK_EDGE = (236, 214, 190)

TILE_W, SMALL_W, END = 23, 15, 31
"""Hand tiles are ``TILE_W`` pixels wide, played tiles ``SMALL_W`` (each ``2w + 1`` high); an end of the
line is a half tile, an ``END`` pixel square."""

_SPOTS = {0: (), 1: ((1, 1),), 2: ((0, 0), (2, 2)), 3: ((0, 0), (1, 1), (2, 2)),
          4: ((0, 0), (2, 0), (0, 2), (2, 2)), 5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
          6: ((0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2))}
"""Pip spots of each number on a 3x3 grid (column, row)."""


def _pips(img: np.ndarray, x: int, y: int, size: int, value: int) -> None:
    """The pips of ``value`` in the ``size`` square at ``(x, y)`` (odd sizes keep them symmetric)."""
    r = max(1.0, size / 11)
    at = [round((size - 1) * f) for f in (0.22, 0.5, 0.78)]
    for c, w in _SPOTS[value]:
        R.fill_circle(img, x + at[c], y + at[w], r, PIP)


@cache
def tile_sprite(tile: int, w: int) -> np.ndarray:
    """``(rgb, mask)`` of tile ``tile`` standing up, ``w`` by ``2w + 1`` (two ``w`` squares and the line
    between them): its smaller half on top."""
    h = 2 * w + 1
    img = R.canvas(h, w, IVORY)
    rad = max(2, w // 6)
    R.outline_rect(img, 0, 0, w, h, EDGE, 1, rad)
    R.fill_rect(img, 2, w, w - 4, 1, EDGE)
    a, b = TILES[tile]
    _pips(img, 0, 0, w, a)
    _pips(img, 0, w + 1, w, b)
    return img, R.rounded_mask(w, h, rad)


@cache
def back_sprite(w: int) -> np.ndarray:
    """``(rgb, mask)`` of a face-down tile, ``w`` by ``2w + 1``."""
    h = 2 * w + 1
    img = R.canvas(h, w, BACK)
    rad = max(2, w // 6)
    R.outline_rect(img, 0, 0, w, h, BACK_EDGE, 1, rad)
    R.outline_rect(img, 3, 3, w - 6, h - 6, (160, 70, 76), 1, 2)
    R.fill_circle(img, w // 2, h // 2, max(1, w // 8), BACK_EDGE)
    return img, R.rounded_mask(w, h, rad)


@cache
def end_sprite(value: int, size: int = END) -> np.ndarray:
    """``(rgb, mask)`` of an end of the line: a half tile showing ``value``; a dead end (a closed double,
    RULES D4.3) is a face-down half with a cross; an unused slot is an empty frame."""
    rad = 4
    if value == DEAD:
        img = R.canvas(size, size, BACK)
        R.outline_rect(img, 0, 0, size, size, BACK_EDGE, 1, rad)
        for i in range(5, size - 5):
            img[i, i - 1:i + 2] = BACK_EDGE
            img[i, size - i - 2:size - i + 1] = BACK_EDGE
        return img, R.rounded_mask(size, size, rad)
    if value == NONE:
        img = R.canvas(size, size, T.FELT)
        R.outline_rect(img, 0, 0, size, size, T.DIM, 1, rad)
        return img, R._outline_mask(size, size, 1, rad)
    img = R.canvas(size, size, IVORY)
    R.outline_rect(img, 0, 0, size, size, EDGE, 2, rad)
    _pips(img, 0, 0, size, value)
    return img, R.rounded_mask(size, size, rad)


def _tiles_row(img, x: int, y: int, tiles, count: int, w: int, area_w: int, max_rows: int = 1) -> int:
    """Tiles face up (``tiles``, a list of ids) or ``count`` backs (``tiles is None``) from ``(x, y)``;
    returns the bottom of the row(s)."""
    k = count if tiles is None else len(tiles)
    pos = T.row_positions(k, w, 2 * w + 1, area_w, max_rows, gap=3 if w > 16 else 2)
    bottom = y
    for i, (dx, dy) in enumerate(pos):
        sprite, mask = back_sprite(w) if tiles is None else tile_sprite(tiles[i], w)
        R.blit(img, x + dx, y + dy, sprite, mask)
        bottom = max(bottom, y + dy + 2 * w + 1)
    return bottom


def _side_name(rules, side: int) -> str:
    return f"pair {side}+{side + 2}" if rules.pairs else f"player_{side}"


def _scores(game, st) -> str:
    r = game.rules
    led = st.ledger
    parts = []
    for s in range(r.num_sides):
        text = f"{_side_name(r, s)}: {led.scores[s]}"
        if r.pairs and not led.opened[s]:
            text += " (not open)"
        parts.append(text)
        if led.memory[s] and r.threshold_mode in ("remember", "accumulate"):
            parts[-1] += f" (+{led.memory[s]} kept)"
    text = " | ".join(parts)
    if R.text_width(text, 2) > T.WIDTH - 16:
        text = text.replace("player_", "p")
    return text


def draw(game, state, viewer: int | None = None) -> np.ndarray:
    """The ``(480, 720, 3)`` uint8 picture of ``state``: everything face up with ``viewer=None``, else only
    what seat ``viewer`` may see (its own hand face up, the other hands as backs)."""
    st = state
    r = game.rules
    n = game.num_players
    led = st.ledger
    deal = st.deals_played + (0 if st.terminal else 1)
    title = f"{game.name}   deal {deal}"
    if led.eggs:
        title += f"   eggs {led.eggs}"
    img = T.new_table(title, _scores(game, st), ("top_right",) if r.draw != "none" else ())
    places = T.seat_places(n, viewer)

    for q, place in places.items():
        box = T.REGIONS[place]
        count = st.hands[q].bit_count()
        tags = [f"{count} tile" + ("" if count == 1 else "s")]
        if st.knocks[q]:
            tags.append("knocked on " + ",".join(str(v) for v in range(7) if st.knocks[q] >> v & 1))
        name = f"player_{q}" + (" (you)" if viewer == q else "")
        tiles = list(bits(st.hands[q])) if viewer is None or viewer == q else None
        played = list(bits(st.played_by[q]))
        max_rows = 1 if place in ("top", "bottom") else 2
        lines = T.TAG_LINES[place]
        width = max(T.label_width(name, tags, box.w, lines), 4 + T.row_width(count, TILE_W, box.w - 8, max_rows),
                    44 + T.row_width(len(played), SMALL_W, box.w - 48, gap=2))
        x = T.block_x(box, place, width)
        T.seat_label(img, x, box.y, name, q == st.current_player, tags, box.x + box.w - x, lines)
        hand_y = box.y + T.HAND_DY[place]
        y = _tiles_row(img, x + 4, hand_y, tiles, count, TILE_W, box.w - 8, max_rows)
        y = max(y, hand_y + 2 * TILE_W + 1) + 5
        R.draw_text(img, x + 5, y + 11, "played", T.DIM, 1, bg=T.FELT)
        _tiles_row(img, x + 44, y, played, 0, SMALL_W, box.w - 48)

    _draw_line(img, game, st)

    if r.draw != "none":
        b = T.panel("top_right")
        k = st.stock.bit_count()
        T.panel_lines(img, b, ["stock"], scale=2)
        _tiles_row(img, b.x + 6, b.y + 28, None, min(k, 6), SMALL_W, b.w - 12)
        R.draw_text(img, b.x + 6, b.y + 62, f"{k} tile" + ("" if k == 1 else "s"), T.INK, 2, bg=T.PANEL)
    if st.terminal:
        res = st.match_result
        goats = ", ".join(_side_name(r, g) for g in res["goats"]) or "nobody"
        T.banner(img, ["match over", f"goats: {goats}", "scores " + " ".join(str(s) for s in res["scores"])])
    return img


def _draw_line(img, game, st) -> None:
    """The centre: the ends of the line around the count of tiles on it (Donkey: the house and a move of
    doubles in progress)."""
    c = T.CENTER
    names = game.slot_names
    on_line = st.played.bit_count()
    cx, cy = c.cx, c.cy
    if len(st.ends) == 2:
        spots = [(c.x + 14, cy - END // 2), (c.x + c.w - 14 - END, cy - END // 2)]
    else:  # Donkey: L R U D around the middle
        spots = [(c.x + 14, cy - END // 2), (c.x + c.w - 14 - END, cy - END // 2),
                 (cx - END // 2, c.y + 14), (cx - END // 2, c.y + c.h - 14 - END - 24)]
    if on_line:
        for i, v in enumerate(st.ends):
            x, y = spots[i]
            sprite, mask = end_sprite(v)
            R.blit(img, x, y, sprite, mask)
            R.draw_text(img, x + END // 2, y + END + 3, names[i], T.INK, 1, align="center", bg=T.FELT)
        bar_x0, bar_x1 = spots[0][0] + END + 6, spots[1][0] - 6
        R.fill_rect(img, bar_x0, cy - 13, bar_x1 - bar_x0, 26, T.PANEL, radius=5)
        R.draw_text(img, cx, cy - 9, f"{on_line} on the line", T.INK, 2, align="center", bg=T.PANEL)
    else:
        R.draw_text(img, cx, cy - 9, "no tile yet", T.DIM, 2, align="center", bg=T.FELT)
    if hasattr(st, "house"):  # Donkey (RULES D4.1-2)
        lines = ["house: " + ("on the table" if st.house else "not yet")]
        if st.move_slots:
            laid = " ".join(f"{a}{b}" for a, b in (TILES[t] for t in st.last_move))
            may = " ".join(names[s] for s in bits(st.move_slots))
            lines.append(f"doubles move: {laid}, may add at {may} or say done")
        y = c.y + c.h - 22
        for line in lines:
            R.draw_text(img, cx, y, R.fit_text(line, c.w + 60, 1), T.INK, 1, align="center", bg=T.FELT)
            y += 11
