"""Pictures of the card games (``render_mode="rgb_array"``): :func:`draw` for
:class:`~kozel_env.cards.queens_and_jacks.QueensAndJacksGame` (``queens_and_jacks_v0``),
:class:`~kozel_env.cards.beat_or_discard.BeatOrDiscardGame` (``beat_or_discard_v0``) and
:class:`~kozel_env.cards.six_of_spades.SixOfSpadesGame` (``six_of_spades_v0``).

Each picture shows what the game's text ``render(state, viewer)`` shows, drawn: hands (face up for the
viewer, backs for the others; all face up with ``viewer=None``), the cards on the table, the trump, the
scores, whose turn it is and the end of the match. Face-down cards (a discard, C1.3-C1.6; an answer laid
down, C3.3) are drawn face up, on grey, only for their owner and the spectator; the cards a seat has
picked for a move it is still building are raised, for the same two. Per game:

* Queens and jacks (seed 003, RULES C2): the trick as a cross in the middle, the cards each seat has
  played this hand, the eyes and tricks of the hand, the voids shown (C2.4), the trump suit (C2.3).
* Beat or discard (seed 002, RULES C1): the top cards to beat, each seat's face-up and face-down cards
  of the round, the stock and the bottom card once shown (C1.10), claims (C1.13), the last beater, the
  locks, the tricks of each side (their points for the spectator only, as in the text view).
* Six of spades (seed 004, RULES C3): the trump card (C3.1), the stock, the round (the lead, each answer
  on top or face down, C3.3), calls offered and let go (C3.5), the cards taken by each side.
"""
from __future__ import annotations

from functools import cache

import numpy as np

from ..core import raster as R
from ..core import table as T
from ..core.bits import bits
from .deck import RANKS, SUIT_NAMES, SUIT_OF, points

CARD_W, CARD_H = 34, 48
MINI_W, MINI_H = 17, 24
FACE = (252, 251, 246)
DOWN_FACE = (206, 206, 200)
CARD_EDGE = (96, 96, 96)
RED = (204, 30, 42)
BLACK = (22, 22, 22)
BACK = (38, 66, 142)
BACK_LINE = (82, 112, 186)
BACK_EDGE = (236, 236, 240)
LIFT = 6
"""Pixels a picked (not yet laid) card is raised in its hand."""


def _ink(card: int):
    return RED if SUIT_OF[card] in (1, 2) else BLACK


def _rank(card: int) -> str:
    r = RANKS[card % 9]
    return "10" if r == "T" else r


@cache
def card_sprite(card: int, face_down_tint: bool = False) -> tuple:
    """``(rgb, mask)`` of a face-up card: rank and small suit in the top-left corner (visible when
    cards overlap), a large suit in the middle. ``face_down_tint``: the grey of a card laid face down
    that its owner may still see."""
    img = R.canvas(CARD_H, CARD_W, DOWN_FACE if face_down_tint else FACE)
    R.outline_rect(img, 0, 0, CARD_W, CARD_H, CARD_EDGE, 1, 4)
    ink = _ink(card)
    s = SUIT_OF[card]
    R.draw_text(img, 3, 3, _rank(card), ink, 2)
    R.draw_suit(img, 3, 20, s, 10, ink)
    R.draw_suit(img, 12, 24, s, 18, ink)
    return img, R.rounded_mask(CARD_W, CARD_H, 4)


@cache
def mini_sprite(card: int, face_down_tint: bool = False) -> tuple:
    """``(rgb, mask)`` of a small face-up card (rank over suit), for played and laid cards."""
    img = R.canvas(MINI_H, MINI_W, DOWN_FACE if face_down_tint else FACE)
    R.outline_rect(img, 0, 0, MINI_W, MINI_H, CARD_EDGE, 1, 3)
    ink = _ink(card)
    R.draw_text(img, 3, 3, _rank(card), ink, 1)
    R.draw_suit(img, 5, 13, SUIT_OF[card], 7, ink)
    return img, R.rounded_mask(MINI_W, MINI_H, 3)


@cache
def back_sprite(w: int = CARD_W, h: int = CARD_H) -> tuple:
    """``(rgb, mask)`` of a card back: a lattice inside a white border."""
    img = R.canvas(h, w, BACK_EDGE)
    inner = np.zeros((h - 4, w - 4, 3), np.uint8)
    inner[:] = BACK
    yy, xx = np.mgrid[0:h - 4, 0:w - 4]
    step = 5 if w > 20 else 4
    lattice = ((xx + yy) % step == 0) | ((xx - yy) % step == 0)
    inner[lattice] = BACK_LINE
    img[2:h - 2, 2:w - 2] = inner
    R.outline_rect(img, 0, 0, w, h, CARD_EDGE, 1, 4 if w > 20 else 3)
    return img, R.rounded_mask(w, h, 4 if w > 20 else 3)


def _cards(img, x: int, y: int, cards, count: int, area_w: int, mini: bool = False, lifted: int = 0,
           tint: bool = False) -> int:
    """Cards face up (``cards``: a list of ids) or ``count`` backs (``cards is None``) in a row from
    ``(x, y)``, overlapping to fit ``area_w``; cards in the mask ``lifted`` are raised. Returns the right
    edge."""
    w, h = (MINI_W, MINI_H) if mini else (CARD_W, CARD_H)
    k = count if cards is None else len(cards)
    pos = T.row_positions(k, w, h, area_w, 1, gap=2)
    right = x
    for i, (dx, _) in enumerate(pos):
        if cards is None:
            sprite, mask = back_sprite(w, h)
            dy = 0
        else:
            c = cards[i]
            sprite, mask = (mini_sprite if mini else card_sprite)(c, tint)
            dy = -LIFT if lifted >> c & 1 else 0
        R.blit(img, x + dx, y + dy, sprite, mask)
        right = x + dx + w
    return right


def _row_w(count: int, area_w: int, mini: bool = False) -> int:
    return T.row_width(count, MINI_W if mini else CARD_W, area_w, 1, gap=2)


class _Seat:
    """One seat's drawing: label, hand and a row of small cards (``(caption, cards or None, count,
    tint)`` segments)."""

    def __init__(self, name: str, to_move: bool, tags, hand, count: int, lifted: int = 0, row=()):
        self.name, self.to_move, self.tags = name, to_move, list(tags)
        self.hand, self.count, self.lifted, self.row = hand, count, lifted, list(row)

    def draw(self, img, place: str) -> None:
        box = T.REGIONS[place]
        aw = box.w - 8
        row = [(cap, cards, count if cards is None else len(cards), tint) for cap, cards, count, tint in self.row]
        row = [seg for seg in row if seg[2]]  # empty segments are not drawn
        row_w = sum(R.text_width(cap, 1) + 14 + _row_w(k, aw // 2, True) for cap, _c, k, _t in row)
        lines = T.TAG_LINES[place]
        width = max(T.label_width(self.name, self.tags, box.w, lines), 4 + _row_w(self.count, aw), 4 + row_w)
        x = T.block_x(box, place, width)
        T.seat_label(img, x, box.y, self.name, self.to_move, self.tags, box.x + box.w - x, lines)
        hand_y = box.y + T.HAND_DY[place] + LIFT
        if self.count:
            _cards(img, x + 4, hand_y, self.hand, self.count, aw, lifted=self.lifted)
        y = hand_y + CARD_H + 4
        cx = x + 5
        for caption, cards, k, tint in row:
            R.draw_text(img, cx, y + 8, caption, T.DIM, 1, bg=T.FELT)
            cx += R.text_width(caption, 1) + 6
            cx = _cards(img, cx, y, cards, k, min(aw // 2, box.x + box.w - cx), True, tint=tint) + 8


def _hand_cards(hand: int, order) -> list:
    return sorted(bits(hand), key=order)


def draw(game, state, viewer: int | None = None) -> np.ndarray:
    """The ``(480, 720, 3)`` uint8 picture of ``state``: everything face up with ``viewer=None``, else only
    what seat ``viewer`` may see."""
    from .beat_or_discard import BeatOrDiscardGame
    from .queens_and_jacks import QueensAndJacksGame
    from .six_of_spades import SixOfSpadesGame

    if isinstance(game, QueensAndJacksGame):
        return _queens_and_jacks(game, state, viewer)
    if isinstance(game, BeatOrDiscardGame):
        return _beat_or_discard(game, state, viewer)
    if isinstance(game, SixOfSpadesGame):
        return _six_of_spades(game, state, viewer)
    raise TypeError(f"no card picture for {type(game).__name__}")


def _name(q: int, viewer) -> str:
    return f"player_{q}" + (" (you)" if viewer == q else "")


def _count(k: int, word: str = "card") -> str:
    return f"{k} {word}" + ("" if k == 1 else "s")


def _suit_panel(img, corner: str, title: str, suit: int, caption: str) -> T.Box:
    b = T.panel(corner)
    R.draw_text(img, b.x + 6, b.y + 4, title, T.INK, 2, bg=T.PANEL)
    if suit >= 0:
        R.fill_rect(img, b.x + 6, b.y + 26, 40, 40, FACE, radius=6)
        R.draw_suit(img, b.x + 10, b.y + 30, suit, 32, RED if suit in (1, 2) else BLACK)
    R.draw_text(img, b.x + 6, b.y + 74, R.fit_text(caption, b.w - 12, 2), T.INK, 2, bg=T.PANEL)
    return b


# ----------------------------------------------------------------------------- queens and jacks (C2)
def _queens_and_jacks(game, st, viewer) -> np.ndarray:
    from .queens_and_jacks import PHASE_NAMING, STRENGTH, TRUMP_MASK

    t = st.trump
    mult = st.ledger.multiplier
    sc = st.ledger.scores
    title = f"{game.name}   deal {st.deals_played + 1}   dealer player_{st.dealer}"
    title += f"   x{mult}" if mult > 1 else ""
    img = T.new_table(title, f"match to {game.rules.target}: pair 0+2: {sc[0]} | pair 1+3: {sc[1]}",
                      ("top_left", "top_right"))
    _suit_panel(img, "top_right", "trump", t, SUIT_NAMES[t] if t >= 0 else "to name")
    b = T.panel("top_left")
    T.panel_lines(img, b, ["this hand"], scale=2)
    T.panel_lines(img, b, [f"pair 0+2: {st.eyes[0]} eyes", f"  {_count(st.tricks[0], 'trick')}",
                           f"pair 1+3: {st.eyes[1]} eyes", f"  {_count(st.tricks[1], 'trick')}"], y=b.y + 28)

    def order(c):  # as the text view: trumps first, strongest first, then by suit (C2.2)
        if t >= 0 and TRUMP_MASK[t] >> c & 1:
            return (-1, -STRENGTH[c])
        return (SUIT_OF[c], -STRENGTH[c])

    places = T.seat_places(4, viewer)
    for q, place in places.items():
        k = st.hands[q].bit_count()
        tags = [_count(k)] + (["dealer"] if q == st.dealer else [])
        if st.voids[q] and t >= 0:
            tags.append("void: " + ",".join("trumps" if es == t else SUIT_NAMES[es]
                                             for es in range(4) if st.voids[q] >> es & 1))
        shown = viewer is None or viewer == q
        hand = _hand_cards(st.hands[q], order) if shown else None
        played = sorted(bits(st.played[q]), key=order)
        _Seat(_name(q, viewer), q == st.current_player, tags, hand, k,
              row=[("played", played, 0, False)]).draw(img, place)
    # the trick, each card in front of the seat that played it (C2.4)
    c = T.CENTER
    spots = {"bottom": (c.cx - CARD_W // 2, c.cy + 14), "top": (c.cx - CARD_W // 2, c.cy - 14 - CARD_H),
             "left": (c.cx - CARD_W - 28, c.cy - CARD_H // 2), "right": (c.cx + 28, c.cy - CARD_H // 2)}
    for q, place in places.items():
        if st.trick[q] >= 0:
            sprite, mask = card_sprite(st.trick[q])
            R.blit(img, *spots[place], sprite, mask)
    if st.phase == PHASE_NAMING:
        R.draw_text(img, c.cx, c.cy - 9, f"player_{st.current_player} names trumps", T.INK, 2, align="center",
                    bg=T.FELT)
    if st.terminal:
        mr = st.match_result
        who = " ".join(f"pair {s}+{s + 2}" for s in mr["winners"]) or "nobody"
        lines = [f"over ({mr['ended_by']})", f"winners: {who}", "scores " + " ".join(str(s) for s in mr["scores"])]
        if mr["titles"]:
            lines.append(" ".join(mr["titles"]))
        T.banner(img, lines)
    return img


# ------------------------------------------------------------------------------ beat or discard (C1)
def _beat_or_discard(game, st, viewer) -> np.ndarray:
    from .beat_or_discard import PHASE_NAMES, STRENGTH
    from .beat_or_discard.game import score_line

    r = game.rules
    n = r.num_players
    led = st.ledger
    mult = led.multiplier
    score = score_line(st)
    title = f"{game.name}   game {st.deals_played + (0 if st.terminal else 1)}" + (f"   x{mult}" if mult > 1 else "")
    img = T.new_table(title, "penalties " + score, ("top_left", "top_right"))
    _suit_panel(img, "top_left", "trump", st.trump, SUIT_NAMES[st.trump])
    b = T.panel("top_right")
    k = st.stock.bit_count()
    R.draw_text(img, b.x + 6, b.y + 4, "stock", T.INK, 2, bg=T.PANEL)
    if k:
        _cards(img, b.x + 8, b.y + 26, None, min(k, 5), 60, mini=True)
    R.draw_text(img, b.x + 6, b.y + 54, _count(k), T.INK, 2, bg=T.PANEL)
    if st.revealed >= 0:  # the bottom card, shown to all when drawn (C1.10)
        R.draw_text(img, b.x + 6, b.y + 84, "shown", T.DIM, 1, bg=T.PANEL)
        sprite, mask = mini_sprite(st.revealed)
        R.blit(img, b.x + 44, b.y + 76, sprite, mask)

    def order(c):
        return (c // 9, STRENGTH[c])

    for q, place in T.seat_places(n, viewer).items():
        name = _name(q, viewer)
        if st.out >> q & 1:
            _Seat(name, q == st.current_player, ["out"], None, 0).draw(img, place)
            continue
        shown = viewer is None or viewer == q
        kq = st.hands[q].bit_count()
        tags = [_count(kq)] + st.seat_tags(q)
        lifted = st.picked if q == st.current_player and (viewer is None or viewer == st.current_player) else 0
        up = sorted(bits(st.table_up[q]), key=order)
        down = sorted(bits(st.table_down[q]), key=order) if shown else None
        row = [("table", up, 0, False), ("down", down, st.table_down[q].bit_count(), True)]
        _Seat(name, q == st.current_player, tags, sorted(bits(st.hands[q]), key=order) if shown else None,
              kq, lifted, row).draw(img, place)
    c = T.CENTER
    R.draw_text(img, c.cx, c.y + 2, f"phase: {PHASE_NAMES[st.phase]}", T.INK, 1, align="center", bg=T.FELT)
    if st.top:
        R.draw_text(img, c.cx, c.y + 22, "top cards", T.DIM, 1, align="center", bg=T.FELT)
        top = sorted(bits(st.top), key=order)
        w = _row_w(len(top), c.w - 12)
        _cards(img, c.cx - w // 2, c.y + 36, top, 0, c.w - 12)
    y = c.y + c.h - 12 * r.num_sides - 4
    for s in range(r.num_sides):
        who = f"pair {s}+{s + 2}" if r.pairs else f"player_{s}"
        text = f"tricks {who}: {st.tricks[s]} ({_count(st.piles[s].bit_count())}"
        text += f", {points(st.piles[s])} points)" if viewer is None else ")"
        R.draw_text(img, c.cx, y, R.fit_text(text, c.w, 1), T.INK, 1, align="center", bg=T.FELT)
        y += 12
    if st.terminal:
        mr = st.match_result
        T.banner(img, [f"match over ({mr['ended_by']})", f"winning sides {mr['winners']}, goats {mr['goats']}",
                       "penalties " + " ".join(str(s) for s in mr["scores"])])
    return img


# ------------------------------------------------------------------------------- six of spades (C3)
def _six_of_spades(game, st, viewer) -> np.ndarray:
    from .six_of_spades import KIND_NAMES, PH_ANSWER, PH_CALL

    r = game.rules
    n, ns = r.num_players, r.num_sides

    def side_name(sd):
        return f"pair {sd}+{sd + 2}" if r.pairs else f"player_{sd}"

    score = " | ".join(f"{side_name(sd)}: {st.ledger.scores[sd]}" + ("" if st.in_match[sd] else " (out)")
                       for sd in range(ns))
    title = (f"{game.name}   deal {st.deals_played + (0 if st.terminal else 1)}/{r.max_deals}   "
             f"dealer player_{st.dealer}")
    img = T.new_table(title, "penalties " + score, ("top_left", "top_right"))
    # the trump card (C3.1): under the stock until drawn, public throughout
    b = T.panel("top_right")
    R.draw_text(img, b.x + 6, b.y + 4, "trump", T.INK, 2, bg=T.PANEL)
    sprite, mask = card_sprite(st.trump_card)
    R.blit(img, b.x + 8, b.y + 26, sprite, mask)
    where = ["under the", "stock"] if st.trump_drawn_by < 0 else ["drawn by", f"player_{st.trump_drawn_by}"]
    T.panel_lines(img, T.Box(b.x + 44, b.y + 30, b.w - 44, 40), where)
    b = T.panel("top_left")
    k = len(st.stock)
    R.draw_text(img, b.x + 6, b.y + 4, "stock", T.INK, 2, bg=T.PANEL)
    if k:
        _cards(img, b.x + 8, b.y + 26, None, min(k, 5), 60, mini=True)
    R.draw_text(img, b.x + 6, b.y + 54, _count(k), T.INK, 2, bg=T.PANEL)

    answering = st.phase == PH_ANSWER
    for q, place in T.seat_places(n, viewer).items():
        name = _name(q, viewer)
        if q not in st.seats_in_deal:
            _Seat(name, q == st.current_player, ["out"], None, 0).draw(img, place)
            continue
        shown = viewer is None or viewer == q
        kq = st.hands[q].bit_count()
        tags = [_count(kq)] + (["dealer"] if q == st.dealer else [])
        if answering and q == st.top_seat:
            tags.append("on top")
        lifted = st.selected if q == st.current_player and shown else 0
        row = []
        if answering and (q == st.leader or q in st.answer_order[:st.answer_index]):
            if st.round_up[q]:
                row.append(("led" if q == st.leader else "beat", list(bits(st.round_up[q])), 0, False))
            else:
                down = list(bits(st.round_down[q])) if shown else None
                row.append(("down", down, st.round_down[q].bit_count(), True))
        _Seat(name, q == st.current_player, tags, list(bits(st.hands[q])) if shown else None, kq, lifted,
              row).draw(img, place)

    c = T.CENTER
    lines = []
    if st.phase == PH_CALL:
        lines.append(f"player_{st.call_order[st.call_index]} is asked for a call")
        if st.calls_made:
            lines.append("calls: " + ", ".join(f"player_{s} ({KIND_NAMES[k]})" for s, k in st.calls_made))
    if answering:
        call = f" ({KIND_NAMES[st.lead_call - 1]})" if st.lead_call else ""
        lines.append(f"player_{st.leader} led{call}; on top: player_{st.top_seat}")
        top = list(bits(st.top_cards))
        w = _row_w(len(top), c.w - 12)
        _cards(img, c.cx - w // 2, c.y + 34, top, 0, c.w - 12)
    y = c.y + 4
    for line in lines:
        R.draw_text(img, c.cx, y, R.fit_text(line, c.w + 40, 1), T.INK, 1, align="center", bg=T.FELT)
        y += 12
    y = c.y + c.h - 12 * ns - 4
    for sd in range(ns):
        if not st.in_match[sd]:
            continue
        text = f"taken by {side_name(sd)}: {_count(st.tricks[sd], 'trick')}, {_count(st.taken[sd].bit_count())}"
        if viewer is None:
            text += f", {points(st.taken[sd])} points"
        R.draw_text(img, c.cx, y, R.fit_text(text, c.w + 40, 1), T.INK, 1, align="center", bg=T.FELT)
        y += 12
    if st.terminal:
        res = st.match_result
        T.banner(img, [f"match over ({res['ended_by']})", f"winning sides {res['winners']}",
                       f"places {res['places']}"])
    return img
