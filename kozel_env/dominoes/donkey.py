"""Donkey ("Cross"), seed 000 §11 / RULES D4: the one dominoes engine with four end slots, the house,
closed doubles and moves of several doubles.

:class:`DonkeyState` extends :class:`~kozel_env.dominoes.engine.DominoesState` only where the line differs:
move generation and placement. Dealing, knocks, the fish, scoring (the ``"remember"`` threshold of D4.5 is a
ledger mode) and the match are the engine's.

End slots (``E = 4``), named ``L R U D``: a lead ``ab`` gives ``L = a``, ``R = b``. The house (the first
double of the deal, RULES D4.1) led as the first tile gives four ends ``L R U D`` of its number; laid later
at an end, that end keeps its number and ``U`` and ``D`` open with it (three ends of its number). A closed
double (RULES D4.3) makes its end dead (value 7); a closed house kills all its free sides.

Actions (ids never depend on the seat):

* ``tile * 4 + slot`` -- lay ``tile`` at end ``slot`` (the lead uses slot 0); a double is laid open;
* ``112 + n * 4 + slot`` -- lay the double ``nn`` closed (face down) at end ``slot``;
* ``140`` -- "done": end a move of doubles.

A move of several doubles (RULES D4.2: 1 to 4 doubles, each at its own end that showed its number at the
start of the move) is taken as consecutive actions of the same player: after a double, while another double
of the player's hand fits an end that showed its number when the move began and has had no double in this
move, the player may lay it (open or closed) or say "done". The player is asked whenever the *table* cannot
rule another double out -- an end that showed its number at the start of the move, took no double in it, and
whose double is not on the table -- even when its own hand holds none of them (then "done" is its only
move): so whether a move goes on never tells the other seats what the mover holds. The move ends by itself
only when that is public: ``max_doubles`` reached, the hand empty, or no such end left. Every combination of
doubles, ends and open/closed choices, and every choice of which double is the house (the first one laid,
D4.2), is reachable.
"""
from __future__ import annotations

import numpy as np

from ..core.bits import bits
from ..core.errors import IllegalActionError, InvalidOptionError, KozelError
from ..core.spec import BITS14, FLOAT_BYTES, Part
from .engine import DEAD, NONE, SUITX, DominoesState
from .game import DominoesGame
from .rules import DominoesRules
from .tiles import DOUBLE, DOUBLES_MASK, HIGH, IS_DOUBLE, LOW, NUM_TILES, OTHER, TILE_ID, tile_str, tiles_str

E = 4
CLOSED = NUM_TILES * E  # 112: first "closed double" id
DONE = CLOSED + 7 * E  # 140
NUM_ACTIONS = DONE + 1
SLOTS = "LRUD"
SLOT_BYTES = tuple(np.array([(m >> i) & 1 for i in range(E)], np.float32).tobytes() for m in range(1 << E))
"""SLOT_BYTES[m]: the 4 slot bits of ``m`` as float32 bytes (observation part ``move_slots``)."""
_NO_MOVE = tuple(FLOAT_BYTES[h] + BITS14[0] + BITS14[0] + SLOT_BYTES[0] for h in (0, 1))
"""The parts ``house``, ``move_tiles``, ``move_slots`` when no move of doubles is pending, by ``house``."""


class DonkeyState(DominoesState):
    __slots__ = ("house", "move_slots")

    @property
    def num_slots(self) -> int:
        return E

    def _start_deal(self, hands=None, order=None) -> None:
        self.house = False
        self.move_slots = 0
        super()._start_deal(hands, order)

    def clone(self) -> DonkeyState:
        c = super().clone()
        c.house = self.house
        c.move_slots = self.move_slots
        return c

    # ------------------------------------------------------------------ moves
    def turn_requires(self) -> int:
        """In the middle of a move of doubles the mover is asked whatever it holds (see the module
        docstring): nothing is learnt about its hand."""
        return 0 if self.move_slots else self.fit_mask()

    def fit_mask(self) -> int:
        """Tiles the seat to move could lay now: at the open ends (dead ends take nothing, RULES D4.3), or,
        in the middle of a move of doubles, the doubles that may still join it (RULES D4.2)."""
        ms = self.move_slots
        ends = self.ends
        m = 0
        if ms:
            for s in bits(ms):
                v = ends[s]
                if v < 7:
                    m |= 1 << DOUBLE[v]
            return m
        for v in ends:
            m |= SUITX[v]
        return m

    def legal_actions(self) -> list:
        """Must play (seed 000 §5): every placement of a fitting tile at an open end, each double open or
        closed (RULES D4.3); in the middle of a move of doubles, the doubles that may join it and "done"."""
        if self.terminal:
            return []
        r = self.rules
        h = self.hands[self.current_player]
        ends = self.ends
        closing = r.closing
        acts = []
        ms = self.move_slots
        if ms:
            for s in bits(ms):
                v = ends[s]
                if v < 7 and h >> DOUBLE[v] & 1:
                    acts.append(DOUBLE[v] * E + s)
                    if closing:
                        acts.append(CLOSED + v * E + s)
            acts.append(DONE)
            acts.sort()
            return acts
        if not self.played:
            for t in bits(h & self.lead_mask):
                acts.append(t * E)
                if closing and r.close_lead and IS_DOUBLE[t]:
                    acts.append(CLOSED + LOW[t] * E)
            acts.sort()
            return acts
        # Ascending ids without a sort: tiles in id order, each at its fitting slots; then closed doubles
        # (ids 112 + n * 4 + slot) by number, then slot.
        e0, e1, e2, e3 = ends
        m0 = h & SUITX[e0]
        m1 = h & SUITX[e1]
        m2 = h & SUITX[e2]
        m3 = h & SUITX[e3]
        m = m0 | m1 | m2 | m3
        rest = m
        if m2 | m3:
            while rest:
                low = rest & -rest
                t4 = (low.bit_length() - 1) * E
                if m0 & low:
                    acts.append(t4)
                if m1 & low:
                    acts.append(t4 + 1)
                if m2 & low:
                    acts.append(t4 + 2)
                if m3 & low:
                    acts.append(t4 + 3)
                rest ^= low
        else:
            while rest:
                low = rest & -rest
                t4 = (low.bit_length() - 1) * E
                if m0 & low:
                    acts.append(t4)
                if m1 & low:
                    acts.append(t4 + 1)
                rest ^= low
        dm = m & DOUBLES_MASK
        if closing and dm:
            for v in range(7):
                if dm >> DOUBLE[v] & 1:
                    for slot in range(E):
                        if ends[slot] == v:
                            acts.append(CLOSED + v * E + slot)
        return acts

    def apply_action(self, action: int) -> None:
        p = self.current_player
        self.events = []
        if action == DONE:
            self.move_slots = 0
            self._after_move(p)
            return
        if action < CLOSED and self.played and not self.tracks:
            t, slot = divmod(action, E)
            if not IS_DOUBLE[t]:  # the common move: one ordinary tile moves its end on
                ends = self.ends
                ends[slot] = OTHER[t][ends[slot]]
                bit = 1 << t
                self.hands[p] &= ~bit
                self.played |= bit
                self.played_by[p] |= bit
                self.last_mover = p
                self.last_move = (t,)
                self._after_move(p)
                return
        if action >= CLOSED:
            n, slot = divmod(action - CLOSED, E)
            t, closed = DOUBLE[n], True
        else:
            (t, slot), closed = divmod(action, E), False
        r = self.rules
        ends = self.ends
        continuing = self.move_slots != 0
        double = IS_DOUBLE[t]
        if self.tracks:
            self._track_play(p, (t,))
        if not self.played:  # the lead: one tile (there is no end yet for a second one)
            self.lead_tile = t
            v = LOW[t]
            if double and r.house:  # the house led: four ends of its number (RULES D4.1)
                self.house = True
                self.ends = [DEAD] * E if closed else [v] * E
            elif double:
                self.ends = [DEAD, DEAD, NONE, NONE] if closed else [v, v, NONE, NONE]
            else:
                self.ends = [LOW[t], HIGH[t], NONE, NONE]
            start_open = 0
        else:
            if not continuing:
                start_open = 0  # ends that show a number at the start of the move (RULES D4.2)
                for i in range(E):
                    if ends[i] < 7:
                        start_open |= 1 << i
            v = ends[slot]
            if double:
                if r.house and not self.house:  # the first double of the deal is the house (RULES D4.1)
                    self.house = True
                    free = [i for i in range(E) if ends[i] == NONE][:2]
                    for i in free:
                        ends[i] = DEAD if closed else v
                if closed:  # a closed double is a dead end (RULES D4.3)
                    ends[slot] = DEAD
            else:
                ends[slot] = OTHER[t][v]
        bit = 1 << t
        self.hands[p] &= ~bit
        self.played |= bit
        self.played_by[p] |= bit
        self.last_mover = p
        self.last_move = self.last_move + (t,) if continuing else (t,)
        if double and self.played != bit and r.max_doubles > 1 and self.hands[p]:
            ms = (self.move_slots if continuing else start_open) & ~(1 << slot)
            if len(self.last_move) < r.max_doubles:
                played = self.played
                for s in bits(ms):
                    w = self.ends[s]
                    if w < 7 and not played >> DOUBLE[w] & 1:
                        # RULES D4.2: the move may go on; asked whether or not the hand holds that double,
                        # so the turn order shows nothing hidden
                        self.move_slots = ms
                        return
        self.move_slots = 0
        self._after_move(p)

    def check_invariants(self) -> None:
        """The engine's conservation laws, plus: slots hold values 0-8, at most one house, a pending move
        only continues at ends that show a number (RULES D4.1-3)."""
        super().check_invariants()
        assert len(self.ends) == E
        if self.house:
            assert self.played & sum(1 << d for d in DOUBLE), "a house without a double"
        if self.move_slots and not self.terminal:
            assert self.last_move and all(IS_DOUBLE[t] for t in self.last_move)
            assert DONE in self.legal_actions()
            assert any(self.ends[s] < 7 and not self.played >> DOUBLE[self.ends[s]] & 1
                       for s in bits(self.move_slots)), "a move of doubles pending where none can join"


class DonkeyGame(DominoesGame):
    """Donkey (seed 000 §11, RULES D4) on the dominoes game: four end slots, the closed-double and "done"
    actions, the observation parts of the house and the pending move."""

    state_class = DonkeyState
    num_slots = E
    slot_names = SLOTS

    def __init__(self, rules: DominoesRules):
        if rules.draw != "none":
            raise InvalidOptionError("the Donkey engine plays without a stock (seed 000 §11: as Kozel, 7 each)")
        if rules.two_doubles:
            raise InvalidOptionError("Donkey uses max_doubles (RULES D4.2), not two_doubles")
        super().__init__(rules)

    def _count_actions(self) -> int:
        return NUM_ACTIONS

    def _extra_bit_parts(self) -> list:
        return super()._extra_bit_parts() + [
            Part("house", (1,), "1 once this deal's house (its first double, RULES D4.1) is on the table"),
            Part("move_tiles", (NUM_TILES,), "the doubles laid so far in the move being made (RULES D4.2); "
                 "all 0 when no move of doubles is pending"),
            Part("move_slots", (E,), "end slots L R U D where the move being made may still add a double "
                 "(they showed their number when the move began and took no double in it); public: the mover "
                 "is asked whether or not it holds such a double"),
        ]

    def _extra_bytes(self, st: DonkeyState, player: int) -> bytes:
        ms = st.move_slots
        if ms:
            move = 0
            for t in st.last_move:
                move |= 1 << t
            tail = FLOAT_BYTES[st.house] + BITS14[move & 0x3FFF] + BITS14[move >> 14] + SLOT_BYTES[ms]
        else:
            tail = _NO_MOVE[st.house]
        if self.rules.opening != "11":
            return super()._extra_bytes(st, player) + tail
        return tail

    # ------------------------------------------------------------------ notation
    def action_to_string(self, st: DonkeyState, action: int) -> str:
        """``35`` (lead), ``35L``, ``33Lx`` (a closed double), ``11x`` (a closed lead), ``done``."""
        if not 0 <= action < NUM_ACTIONS:
            raise IllegalActionError(f"action {action} is out of range 0..{NUM_ACTIONS - 1}")
        if action == DONE:
            return "done"
        if action >= CLOSED:
            n, slot = divmod(action - CLOSED, E)
            t, suffix = DOUBLE[n], "x"
        else:
            (t, slot), suffix = divmod(action, E), ""
        if not st.played:
            return tile_str(t) + suffix
        return tile_str(t) + SLOTS[slot] + suffix

    def string_to_action(self, st: DonkeyState, text: str) -> int:
        legal = st.legal_actions()
        t = str(text).strip().upper().replace(" ", "")
        try:
            if t in ("DONE", "."):
                cands = [DONE]
            else:
                if len(t) < 2 or not t[:2].isdigit():
                    raise KozelError(f"cannot read move {text!r}")
                a, b = t[:2]
                rest = t[2:]
                closed = rest.endswith("X")
                if closed:
                    rest = rest[:-1]
                if max(a, b) > "6":
                    raise KozelError(f"{text!r}: tile halves are 0-6")
                if rest and (len(rest) != 1 or rest not in SLOTS):
                    raise KozelError(f"cannot read move {text!r} (ends are L R U D, 'x' closes a double)")
                tile = TILE_ID[(int(a), int(b))]
                if closed and not IS_DOUBLE[tile]:
                    raise KozelError(f"{text!r}: only a double can be closed")
                slots = range(E) if not rest else [SLOTS.index(rest)]
                base = (CLOSED + LOW[tile] * E) if closed else tile * E
                cands = [base + s for s in slots]
        except KozelError as e:
            raise IllegalActionError(f"{e}; legal moves: {self.legal_strings(st)}") from None
        ok = [c for c in cands if c in legal]
        if len(ok) == 1:
            return ok[0]
        if len(ok) > 1:
            raise IllegalActionError(f"move {text!r} is ambiguous: say one of "
                                     f"{[self.action_to_string(st, c) for c in ok]}")
        raise IllegalActionError(f"move {text!r} is not legal for player_{st.current_player}; "
                                 f"legal moves: {self.legal_strings(st)}")

    def render(self, st: DonkeyState, viewer: int | None = None) -> str:
        text = super().render(st, viewer)
        extra = "house: " + ("on the table" if st.house else "not yet")
        if st.move_slots:
            laid = tiles_str(sum(1 << t for t in st.last_move))
            may = " ".join(SLOTS[s] for s in bits(st.move_slots))
            extra += f"; move in progress by player_{st.current_player}: {laid}, may add at {may} or say done"
        lines = text.split("\n")
        return "\n".join(lines[:2] + [extra] + lines[2:])

