"""What the whole table knows about each hidden hand, when tiles are drawn (RULES D2.2, D5.3) or the opening
rule reveals something (RULES D2.3, D5.2): the bookkeeping behind the ``lacking`` observation and the
determinization of the stock games.

Without a stock a knock means "this seat lacks these numbers" for the rest of the deal (RULES D1.3). With a
stock that is no longer true: a seat that could not play drew, and the tiles it draws later may carry those
numbers. What stays true is a statement about *the tiles the seat held at that moment*. So a seat's hidden
tiles are kept as **classes**, oldest first: ``(banned, count)`` says "``count`` of the seat's tiles are
none of the tiles in the mask ``banned``". The events that change them are all public:

* the deal: one class ``(0, hand_size)``;
* the opening lead of a match (lowest double, heaviest tile, ``11``): tiles nobody can have been dealt are
  banned in every seat's deal class (see :func:`opening_bans`);
* a knock, or the start of a run of forced draws, at the open ends: the seat held no fitting tile, so the
  fitting tiles are banned in all its classes;
* each drawn tile that does not fit: a new class ``(fitting tiles, 1)`` (merged with an equal newest class);
  the drawn tile that fits is the only fitting tile of the seat, and it is played at once (the seat's
  other tiles are all banned from fitting), so it never joins a class ("pending" until played);
* a tile played from the seat's hand: removed from the oldest class that allows it.

Because every update either bans the same tiles in all classes or appends a class banning a subset of what
the older classes ban, the classes are nested (older bans are supersets of newer ones), and taking a played
tile from the oldest class that allows it keeps the most room for every later possibility: the set of hands
consistent with the classes is exactly the set of hands consistent with the public history (a hand fits
iff its tiles can be spread over the classes, Hall's condition on the nested chain, :func:`fits`).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ..core.bits import bits
from ..core.errors import KozelError
from ..core.game import State
from ..core.rng import Rng
from .tiles import ALL_TILES, DOUBLE, DOUBLES_MASK, HIGH, PIPS, SUIT, TILE_ID

AnyState = TypeVar("AnyState", bound=State)
"""A :class:`~kozel_env.dominoes.engine.DominoesState` (or a subclass), named through the engine contract's
``State``: the engine imports this module, not the other way round."""

T11 = TILE_ID[(1, 1)]


def deal_classes(count: int) -> tuple:
    return ((0, count),)


def ban(classes: tuple, mask: int) -> tuple:
    """Every tile of the seat is none of ``mask`` (a knock, or the start of forced draws)."""
    if len(classes) == 1:
        b, c = classes[0]
        return ((b | mask, c),)
    out = []
    for b, c in classes:
        b |= mask
        if out and out[-1][0] == b:
            out[-1] = (b, out[-1][1] + c)
        else:
            out.append((b, c))
    return tuple(out)


def add_drawn(classes: tuple, banned: int, count: int) -> tuple:
    """``count`` drawn tiles known not to be any of ``banned`` (they did not fit)."""
    if not count:
        return classes
    if classes and classes[-1][0] == banned:
        return classes[:-1] + ((banned, classes[-1][1] + count),)
    return classes + ((banned, count),)


def play(classes: tuple, tile: int) -> tuple:
    """The seat played ``tile`` from its hidden tiles: take it from the oldest class that allows it."""
    if len(classes) == 1:
        b, c = classes[0]
        if not b >> tile & 1:
            return ((b, c - 1),) if c > 1 else ()
    for i, (b, c) in enumerate(classes):
        if not b >> tile & 1:
            if c == 1:
                return classes[:i] + classes[i + 1:]
            return classes[:i] + ((b, c - 1),) + classes[i + 1:]
    raise KozelError(f"tile {tile} contradicts the table's knowledge {classes}")  # pragma: no cover


def total(classes: tuple) -> int:
    return sum(c for _, c in classes)


def lack_counts(classes: tuple) -> tuple:
    """For each number 0-6: how many of the seat's tiles are known not to carry it."""
    return tuple(sum(c for b, c in classes if b & SUIT[v] == SUIT[v]) for v in range(7))


def fits(classes: tuple, hand: int) -> bool:
    """Can the tiles of ``hand`` be spread over ``classes`` (Hall's condition on the nested chain)?"""
    if total(classes) != hand.bit_count():
        return False
    k = len(classes)
    need = [0] * k  # need[i]: tiles whose oldest allowed class is i
    for t in bits(hand):
        for i, (b, _) in enumerate(classes):
            if not b >> t & 1:
                need[i] += 1
                break
        else:
            return False
    tiles = cap = 0
    for i in range(k - 1, -1, -1):
        tiles += need[i]
        cap += classes[i][1]
        if tiles > cap:
            return False
    return True


def resolve_opening(rule: str, num_players: int) -> str:
    """RULES D2.3: "11_with_four" is "11" with four players and "lowest_double" otherwise."""
    if rule == "11_with_four":
        return "11" if num_players == 4 else "lowest_double"
    return rule


def opening_lead(rule: str, hands: list) -> tuple:
    """The opening seat and tile (RULES D1.5, D2.3, D5.2): ``11`` if the rule says so and it was dealt;
    else the lowest double in any hand (``00`` lowest); else the heaviest tile (ties: higher half, then the
    lower seat)."""
    if resolve_opening(rule, len(hands)) == "11":
        for seat, h in enumerate(hands):
            if h >> T11 & 1:
                return seat, T11
    for d in DOUBLE:
        for seat, h in enumerate(hands):
            if h >> d & 1:
                return seat, d
    best = None
    for seat, h in enumerate(hands):
        for t in bits(h):
            key = (PIPS[t], HIGH[t], -seat)
            if best is None or key > best[0]:
                best = (key, seat, t)
    return best[1], best[2]


def opening_bans(rule: str, num_players: int, leader: int, tile: int) -> list:
    """Per seat, the tiles it cannot have been dealt once everyone has seen the opening lead ``tile``."""
    rule = resolve_opening(rule, num_players)
    if rule == "11" and tile == T11:
        return [0] * num_players  # the holder of 11 always leads it: nothing more is learnt
    base = 1 << T11 if rule == "11" else 0  # 11 was not dealt, or it would have led
    if tile in DOUBLE:
        lower = sum(1 << d for d in DOUBLE if d < tile)
        return [base | lower] * num_players
    # No double in any hand: the lead is the heaviest tile (ties: higher half, then lower seat).
    lead_key = (PIPS[tile], HIGH[tile], -leader)
    out = []
    for seat in range(num_players):
        heavier = sum(1 << t for t in range(28) if t != tile and (PIPS[t], HIGH[t], -seat) > lead_key)
        out.append(base | DOUBLES_MASK | heavier)
    return out


# ---------------------------------------------------------------------- determinization
def deal(pool: int, counts: dict, allowed: dict, rng: Rng, tries: int = 64, require: dict | None = None) -> dict:
    """Split the tiles of ``pool`` among seats, ``counts[seat]`` each, within ``allowed[seat]``, and for each
    seat in ``require`` at least one tile of ``require[seat]`` (the seat to move holds a fitting tile).

    Rejection sampling first (uniform over consistent deals); when the constraints make that unlikely, a
    capacity matching (augmenting paths, random orders; a random choice for each required tile) finds a
    consistent deal in polynomial time and random swaps between seats spread it. (A plain backtracking
    search that checks ``require`` only at the leaves takes minutes on some positions.)"""
    items = bits(pool)
    seats = [s for s in counts if counts[s]]
    require = require or {}
    if sum(counts.values()) != len(items):
        raise KozelError(f"cannot deal {len(items)} tiles into counts {counts}")
    for _ in range(tries):
        rng.shuffle(items)
        out, i = {}, 0
        for s in seats:
            m = 0
            for it in items[i:i + counts[s]]:
                m |= 1 << it
            i += counts[s]
            if m & ~allowed[s] or (s in require and not m & require[s]):
                break
            out[s] = m
        else:
            if all(s in out for s in require):
                return _complete(out, counts)
    for _ in range(4 * len(items) + 4):
        caps = dict(counts)
        forced = {}
        for s, m in require.items():
            cand = [it for it in items if m >> it & 1 and allowed[s] >> it & 1 and it not in forced]
            if not cand or not caps.get(s):
                raise KozelError("no deal is consistent with the constraints")
            it = cand[rng.below(len(cand))]
            forced[it] = s
            caps[s] -= 1
        rest = [it for it in items if it not in forced]
        owner = _match(rest, caps, allowed, rng)
        if owner is None:
            if not require:
                break
            continue
        for _ in range(8 * len(rest)):  # random swaps that keep every constraint
            a = rest[rng.below(len(rest))]
            b = rest[rng.below(len(rest))]
            sa, sb = owner[a], owner[b]
            if sa != sb and allowed[sa] >> b & 1 and allowed[sb] >> a & 1:
                owner[a], owner[b] = sb, sa
        owner.update(forced)
        out = {s: 0 for s in seats}
        for it, s in owner.items():
            out[s] |= 1 << it
        return _complete(out, counts)
    raise KozelError("no deal is consistent with the constraints")


def _match(items: list, caps: dict, allowed: dict, rng: Rng):
    """Each item to a seat that allows it, at most ``caps[seat]`` per seat (augmenting paths); None if
    impossible."""
    seats = [s for s in caps if caps[s]]
    owner = {}
    held = {s: [] for s in seats}

    def augment(it, seen) -> bool:
        order = [s for s in seats if allowed[s] >> it & 1 and s not in seen]
        rng.shuffle(order)
        for s in order:
            if len(held[s]) < caps[s]:
                held[s].append(it)
                owner[it] = s
                return True
        for s in order:
            seen.add(s)
            for other in list(held[s]):
                held[s].remove(other)
                if augment(other, seen):
                    held[s].append(it)
                    owner[it] = s
                    return True
                held[s].append(other)
        return False

    items = list(items)
    rng.shuffle(items)
    for it in items:
        if not augment(it, set()):
            return None
    return owner


def _complete(out: dict, counts: dict) -> dict:
    for s in counts:
        out.setdefault(s, 0)
    return out


def sample_hidden(st: AnyState, player: int, rng: Rng, needs_redeal: Callable, tries: int = 400) -> AnyState:
    """A full state that ``player`` cannot tell from ``st`` (a :class:`~kozel_env.dominoes.engine.DominoesState`):
    the other hands and the stock re-dealt from the tiles ``player`` does not see, so that every seat keeps its
    count, its known classes (knocks, forced draws, the opening), the seat to move holds a fitting tile, a dealt
    hand that would have forced a redeal never appears (RULES D1.6), and before the opening lead the opening rule
    names the same leader (the sampled state leads the sampled opening tile)."""
    r = st.rules
    n = r.num_players
    hands = st.hands
    pool = ALL_TILES & ~hands[player] & ~st.played
    counts, allowed, owner = {}, {}, {}
    fit = st.fit_mask()
    cp = st.current_player
    pre_lead = not st.played and st.lead_mask != ALL_TILES
    bans = [0] * n
    if pre_lead and st.leader == player:
        # The player knows its own opening tile, hence what nobody else can hold (RULES D2.3 / D5.2).
        tile = (st.lead_mask & -st.lead_mask).bit_length() - 1
        bans = opening_bans(r.opening, n, player, tile)
    pending = {}
    for q in range(n):
        if q == player:
            continue
        cls = st.lack[q]
        extra = hands[q].bit_count() - total(cls)
        if extra:  # the tile it just drew fits: it holds exactly one fitting tile
            key = (q, -1)
            counts[key], allowed[key], owner[key] = extra, fit, q
            pending[q] = True
        for i, (b, c) in enumerate(cls):
            key = (q, i)
            counts[key], allowed[key], owner[key] = c, ALL_TILES & ~b & ~bans[q], q
    counts[-1], allowed[-1], owner[-1] = st.stock.bit_count(), ALL_TILES, -1
    check_fit = st.played and cp >= 0 and cp != player and cp not in pending and fit
    check_redeal = r.redeal
    # After some plain tries, the fitting tile of the seat to move is put in its newest class (the class
    # that allows the most), so a position where it must hold the one fitting tile left is sampled fast.
    force = {(cp, len(st.lack[cp]) - 1): fit} if check_fit and st.lack[cp] else None
    for attempt in range(tries):
        dealt = deal(pool, counts, allowed, rng, require=force if attempt >= 16 else None)
        new_hands = list(hands)
        for q in range(n):
            if q != player:
                new_hands[q] = 0
        for key, m in dealt.items():
            if owner[key] >= 0:
                new_hands[owner[key]] |= m
        if check_fit and not new_hands[cp] & fit:
            continue
        if check_redeal and any(q != player and not st.drawn[q] and needs_redeal(new_hands[q] | st.played_by[q])
                                for q in range(n)):
            continue
        if pre_lead and st.leader != player:
            seat, tile = opening_lead(r.opening, new_hands)
            if seat != st.leader:
                continue
        break
    else:  # pragma: no cover - only for positions far rarer than the tries allow
        raise KozelError("sample_consistent found no consistent deal")
    new = st.clone()
    new.hands = new_hands
    new.stock = dealt[-1]
    new.rng = Rng(rng.next_u64())
    new.stock_order = None
    if pre_lead:
        new.lead_mask = 1 << opening_lead(r.opening, new_hands)[1]
    return new
