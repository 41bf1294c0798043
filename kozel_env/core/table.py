"""The table both picture modules draw on (:mod:`kozel_env.dominoes.picture`, :mod:`kozel_env.cards.picture`):
one fixed canvas size, the colours, where each seat sits, the header, seat labels and rows of tiles/cards.

Layout of the ``HEIGHT`` x ``WIDTH`` picture (the same for every game and every state, so frames make a
video): a header band (two lines: the game and deal, the scores); the seat at the bottom is the viewer
(seat 0 for the spectator view); the others follow clockwise -- left, top, right with four players,
left and right with three, top with two. Each seat's region holds its label (the seat to move is
highlighted), its hand and one row of smaller pieces (played tiles, cards on the table). The centre holds
the table itself (open ends, trick, top cards); the four corner panels hold shared facts (stock, trump).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import raster as R

WIDTH, HEIGHT = 720, 480

FELT = (31, 98, 64)
PANEL = (23, 76, 50)
HEADER = (18, 52, 36)
INK = (238, 236, 222)
DIM = (170, 196, 178)
HILITE = (250, 205, 60)
DARK = (28, 28, 28)
BANNER = (16, 30, 24)


@dataclass(frozen=True)
class Box:
    x: int
    y: int
    w: int
    h: int

    @property
    def cx(self) -> int:
        return self.x + self.w // 2

    @property
    def cy(self) -> int:
        return self.y + self.h // 2


HEADER_H = 44
REGIONS = {
    "bottom": Box(130, 372, 460, 106),
    "top": Box(130, 48, 460, 106),
    "left": Box(6, 158, 212, 210),
    "right": Box(502, 158, 212, 210),
}
CENTER = Box(224, 158, 272, 210)
PANELS = {
    "top_left": Box(4, 48, 122, 106),
    "top_right": Box(594, 48, 122, 106),
    "bottom_left": Box(4, 372, 122, 106),
    "bottom_right": Box(594, 372, 122, 106),
}
HAND_DY = {"top": 24, "bottom": 24, "left": 34, "right": 34}
"""Where a seat's hand starts below the top of its region: the narrow side regions leave room for a third
line of tags."""
TAG_LINES = {"top": 2, "bottom": 2, "left": 3, "right": 3}
PLACES = {2: ("bottom", "top"), 3: ("bottom", "left", "right"), 4: ("bottom", "left", "top", "right")}
"""Places of the seats clockwise from the bottom one, by number of players."""


def seat_places(n: int, viewer: int | None) -> dict:
    """``{seat: place name}``: the viewer (seat 0 for the spectator) at the bottom, the rest clockwise."""
    bottom = 0 if viewer is None else viewer
    return {(bottom + k) % n: place for k, place in enumerate(PLACES[n])}


@lru_cache(maxsize=32)
def _background(panels: tuple) -> np.ndarray:
    img = R.canvas(HEIGHT, WIDTH, FELT)
    img[:HEADER_H] = HEADER
    for name in panels:
        b = PANELS[name]
        R.fill_rect(img, b.x, b.y, b.w, b.h, PANEL, radius=6)
    img.setflags(write=False)
    return img


def new_table(title: str, scores: str, panels=()) -> np.ndarray:
    """A fresh picture: the felt, the header with ``title`` and ``scores``, the corner ``panels`` (names of
    :data:`PANELS`, drawn empty)."""
    img = _background(tuple(panels)).copy()
    R.draw_text(img, 8, 4, R.fit_text(title, WIDTH - 16, 2), INK, 2, bg=HEADER)
    R.draw_text(img, 8, 24, R.fit_text(scores, WIDTH - 16, 2), HILITE, 2, bg=HEADER)
    return img


def panel(name: str) -> Box:
    """The box of a corner panel (drawn by :func:`new_table`)."""
    return PANELS[name]


def panel_lines(img: np.ndarray, box: Box, lines, y: int | None = None, scale: int = 1, color=INK,
                gap: int = 3, bg=PANEL) -> int:
    """Lines of text in a box from ``y`` (default: its top), each fitted to the width; returns the next y."""
    y = box.y + 4 if y is None else y
    for line in lines:
        R.draw_text(img, box.x + 5, y, R.fit_text(line, box.w - 10, scale), color, scale, bg=bg)
        y += R.CELL_H * scale + gap
    return y


def _pack(tags, width: int, max_lines: int = 2) -> list:
    """``tags`` joined with ", " into at most ``max_lines`` lines of small text, each at most ``width``
    pixels where possible (a tag never splits; what does not fit is shortened by
    :func:`~kozel_env.core.raster.fit_text`)."""
    lines = []
    for tag in tags:
        if lines and R.text_width(lines[-1] + ", " + tag, 1) <= width:
            lines[-1] += ", " + tag
        elif len(lines) < max_lines:
            lines.append(tag)
        else:
            lines[-1] += ", " + tag
    return [R.fit_text(line, width, 1) for line in lines]


def label_width(name: str, tags=(), max_w: int = WIDTH, max_lines: int = 2) -> int:
    """Width of :func:`seat_label`'s drawing."""
    w = R.text_width(name, 2) + 10
    tw = max((R.text_width(t, 1) for t in _pack(tags, max_w - w - 6, max_lines)), default=0)
    return w + (6 + tw if tw else 0)


def seat_label(img: np.ndarray, x: int, y: int, name: str, to_move: bool, tags=(), max_w: int = WIDTH,
               max_lines: int = 2) -> None:
    """A seat's name at ``(x, y)``, on a yellow box when it is to move, then its ``tags`` (small text, up
    to ``max_lines`` lines) beside it, within ``max_w`` pixels."""
    w = R.text_width(name, 2) + 10
    if to_move:
        R.fill_rect(img, x, y, w, 20, HILITE, radius=4)
        R.draw_text(img, x + 5, y + 2, name, DARK, 2, bg=HILITE)
    else:
        R.draw_text(img, x + 5, y + 2, name, INK, 2, bg=FELT)
    tx = x + w + 6
    for i, line in enumerate(_pack(tags, x + max_w - tx, max_lines)):
        R.draw_text(img, tx, y + 1 + 10 * i, line, DIM, 1, bg=FELT)


def block_x(box: Box, place: str, content_w: int) -> int:
    """Left edge of a seat's drawing: centred in the top and bottom regions, at the left elsewhere."""
    if place in ("top", "bottom"):
        return box.x + max(0, (box.w - content_w) // 2)
    return box.x


def row_width(count: int, item_w: int, area_w: int, max_rows: int = 1, gap: int = 3) -> int:
    """Width taken by :func:`row_positions`' items."""
    pos = row_positions(count, item_w, 0, area_w, max_rows, gap)
    return max((dx for dx, _ in pos), default=-item_w) + item_w


def row_positions(count: int, item_w: int, item_h: int, area_w: int, max_rows: int = 1,
                  gap: int = 3) -> list:
    """Offsets ``(dx, dy)`` of ``count`` items laid left to right in rows of at most ``area_w`` pixels:
    as few rows as possible (up to ``max_rows``), then overlapping to fit."""
    if count <= 0:
        return []
    step = item_w + gap
    per_row = max(1, (area_w - item_w) // step + 1)
    rows = -(-count // per_row)
    if rows > max_rows:
        rows = max_rows
        per_row = -(-count // rows)
        step = (area_w - item_w) / max(1, per_row - 1)
    out = []
    for i in range(count):
        r, c = divmod(i, per_row)
        out.append((int(c * step), r * (item_h + gap)))
    return out


def banner(img: np.ndarray, lines) -> None:
    """The end-of-match banner across the centre of the table."""
    lines = list(lines)
    h = 14 + 22 * len(lines)
    y = HEIGHT // 2 - h // 2
    R.fill_rect(img, 60, y, WIDTH - 120, h, BANNER, radius=8)
    R.outline_rect(img, 60, y, WIDTH - 120, h, HILITE, 2, radius=8)
    for i, line in enumerate(lines):
        R.draw_text(img, WIDTH // 2, y + 8 + 22 * i, R.fit_text(line, WIDTH - 140, 2),
                    HILITE if i == 0 else INK, 2, align="center", bg=BANNER)
