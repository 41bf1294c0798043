"""The ``queens_and_jacks_v0`` :class:`~kozel_env.core.game.Game`: observation and oracle view (built by part
name from :attr:`QueensAndJacksGame.obs_spec`), move notation, the text view, and the entry points to the
set-up (:mod:`.setup`) and the determinization (:mod:`.sample`). Rules sources as in
:mod:`kozel_env.cards.queens_and_jacks`.

Move notation (RULES notation): a card ``QC``, ``TS``, ``6H`` plays it; ``trump:C`` .. ``trump:S`` names the
trump suit (named rule; parsing also accepts ``trump:clubs`` etc.).
"""
from __future__ import annotations

import numpy as np

from ...core.bits import bits
from ...core.errors import IllegalActionError, KozelError
from ...core.game import Game
from ...core.rng import Rng
from ...core.spec import ObsSpec, Part
from ..deck import FULL_DECK, NUM_CARDS, SUIT_NAMES, SUIT_OF, SUITS, card_str, cards_str, parse_card, points
from .engine import PHASE_NAMING, QueensAndJacksState
from .rules import CLASSIC, QueensAndJacksRules, make_rules, setup_checks
from .sample import sample_consistent as _sample_consistent
from .setup import new_state as _new_state
from .setup import parse_suit
from .tables import NAME_BASE, NUM_ACTIONS, STRENGTH, TRUMP_MASK

# -- the observation layout --------------------------------------------------------------------------------

_OBS_PARTS = (
    Part("hand", (36,), "own hand, by card id (suit * 9 + rank; suits C D H S, ranks 6 7 8 9 T J Q K A)"),
    Part("trick", (4, 36), "current trick: the card each seat (offset from the observer) put into it"),
    Part("played", (4, 36), "cards each seat (offset) has played this hand, current trick included"),
    Part("voids", (4, 4), "seat (offset) showed out of the suit C D H S this hand (the trump suit's column "
         "stands for all trumps, queens and jacks included)"),
    Part("trump", (4,), "trump suit C D H S one-hot (all zero while it is still to be named)"),
    Part("dealer", (4,), "dealer, seat offset one-hot"),
    Part("leader", (4,), "seat offset that led (or leads) the current trick, one-hot"),
    Part("eggs", (4,), "eggs in a row before this hand, 0 1 2 3+ one-hot (multiplier 1 2 4 8+)"),
    Part("naming", (1,), "1 while the trump suit is still to be named (named rule)"),
    Part("rules", (3,), "rules flags: named trumps, 32-card deck, match to 6"),
    Part("eyes", (2,), "eyes taken this hand by the observer's side and the other side, / 120"),
    Part("tricks", (2,), "tricks taken this hand by the observer's side and the other side, / 9"),
    Part("score", (2,), "match points of the observer's side and the other side, / target (capped at 1)"),
)
_ORACLE_PARTS = _OBS_PARTS + (
    Part("hands", (4, 36), "every seat's hand (offset from seat 0, i.e. absolute seats)"),
    Part("to_move", (4,), "seat to act, one-hot (all zero when the match is over)"),
)
OBS_SPEC = ObsSpec(_OBS_PARTS)
ORACLE_SPEC = ObsSpec(_ORACLE_PARTS)

# The observation's 0/1 parts are OR-ed into one int, bit k at flat position k (every shift below comes from
# OBS_SPEC.offset), and unpacked with OBS_SPEC.unpack_bits; the scalars are written after. The small parts
# from ``voids`` to ``rules`` are first gathered in one small int shifted once by _FLAGS.
_off = OBS_SPEC.offset
_SEAT_ORDER = tuple(tuple((r + q) & 3 for q in range(4)) for r in range(4))
"""``_SEAT_ORDER[r][q]``: the seat at offset ``q`` from observer ``r``."""
_HAND = _off("hand")
_TRICK_BIT = tuple(tuple(1 << (_off("trick", q) + c) for c in range(NUM_CARDS)) + (0,) for q in range(4))
"""``_TRICK_BIT[q][card]``: the trick row ``q`` bit of ``card``; ``[q][-1]`` (no card yet) is 0."""
_PLAYED = tuple(_off("played", q) for q in range(4))
_FLAGS = _off("voids")
_VOIDS = tuple(_off("voids", q) - _FLAGS for q in range(4))
_TRUMP_BIT = tuple(1 << (_off("trump", t) - _FLAGS) for t in range(4)) + (0,)
"""``_TRUMP_BIT[t]``; ``[-1]`` (trump to be named) is 0."""
_DEALER_BIT = tuple(1 << (_off("dealer", q) - _FLAGS) for q in range(4))
_LEADER_BIT = tuple(1 << (_off("leader", q) - _FLAGS) for q in range(4))
_EGGS_BIT = tuple(1 << (_off("eggs", k) - _FLAGS) for k in range(4))
_NAMING_BIT = 1 << (_off("naming") - _FLAGS)
_RULES_SHIFT = tuple(_off("rules", i) - _FLAGS for i in range(3))
_SCALARS = slice(_off("eyes"), _off("score") + 2)
"""``eyes``, ``tricks`` and ``score`` (two values each, in this order), written in one go."""
assert _off("tricks") == _off("eyes") + 2 and _off("score") == _off("tricks") + 2, "scalar parts moved"
assert min(_SCALARS.start, _FLAGS) > max(_PLAYED) and _SCALARS.start > _off("rules", 2), "a bit part after the scalars"
TOTAL_EYES = float(points(FULL_DECK))
"""Eyes in the deck: 120 with 36 or 32 cards (the sixes count nothing, RULES C)."""
TRICKS_SCALE = 9.0
"""The ``tricks`` part's divisor (nine tricks in a 36-card hand)."""
_ORACLE_HANDS = tuple(ORACLE_SPEC.offset("hands", q) for q in range(4))
_ORACLE_TO_MOVE = tuple(1 << ORACLE_SPEC.offset("to_move", q) for q in range(4)) + (0,)


class QueensAndJacksGame(Game):
    """Static facts and tables of the queens-and-jacks engine for one :class:`QueensAndJacksRules`."""

    family = "cards"

    engine_id = "queens_and_jacks"

    num_players = 4
    num_actions = NUM_ACTIONS
    obs_spec = OBS_SPEC
    oracle_spec = ORACLE_SPEC

    state_class = QueensAndJacksState

    def __init__(self, rules: QueensAndJacksRules | None = None, **options):
        base = rules if rules is not None else CLASSIC
        self.rules = r = make_rules(base, options) if options else base
        self.name = r.name
        flags = (r.trumps == "named", r.deck == 32, r.target == 6)
        self.rules_bits = sum(1 << shift for shift, on in zip(_RULES_SHIFT, flags) if on)
        """The ``rules`` part's bits (shifted as in the packed observation, from ``voids`` on)."""
        self._inv_target = 1.0 / r.target

    # -- states --------------------------------------------------------------------------------------

    def setup_checks(self) -> dict:
        return setup_checks(self.rules)

    def new_state(self, seed: int = 0, setup: dict | None = None) -> QueensAndJacksState:
        """A fresh match. ``setup`` (validated) may hold:

        * ``hands``: 4 entries, each a card string (``"QC TS 7H ..."``) or None (dealt at random from the
          rest); fixes the first hand's cards;
        * ``dealer`` (0..3) or ``leader`` (0..3, the seat left of the dealer); default: drawn from the Rng;
        * ``trump``: ``"C" "D" "H" "S"`` (or a suit name): the first hand's trump (named rule: skips the
          naming; clubs rule: only ``"C"``);
        * ``scores``: ``[side0, side1]`` match points so far, each below the target;
        * ``eggs``: eggs in a row before the first hand (its multiplier is ``2 ** eggs``);
        * ``single_deal``: end the episode after the first hand.
        """
        return _new_state(self.rules, seed, setup)

    # -- observations --------------------------------------------------------------------------------

    def observe(self, state: QueensAndJacksState, player: int) -> np.ndarray:
        """The parts of :attr:`obs_spec`: the 0/1 parts are packed into one int (shifts from
        ``obs_spec.offset``) and unpacked by ``obs_spec.unpack_bits`` in one go, then the six scalars are
        written."""
        st = state
        r = player
        a, b, c, d = _SEAT_ORDER[r]
        trick = st.trick
        played = st.played
        voids = st.voids
        streak = st.ledger.eggs_streak
        flags = (voids[a] << _VOIDS[0] | voids[b] << _VOIDS[1] | voids[c] << _VOIDS[2] | voids[d] << _VOIDS[3]
                 | _TRUMP_BIT[st.trump]
                 | _DEALER_BIT[(st.dealer - r) & 3]
                 | _LEADER_BIT[(st.trick_leader - r) & 3]
                 | _EGGS_BIT[streak if streak < 3 else 3]
                 | (_NAMING_BIT if st.phase == PHASE_NAMING else 0)
                 | self.rules_bits)
        packed = (st.hands[r] << _HAND
                  | _TRICK_BIT[0][trick[a]] | _TRICK_BIT[1][trick[b]] | _TRICK_BIT[2][trick[c]]
                  | _TRICK_BIT[3][trick[d]]
                  | played[a] << _PLAYED[0] | played[b] << _PLAYED[1] | played[c] << _PLAYED[2]
                  | played[d] << _PLAYED[3]
                  | flags << _FLAGS)
        out = OBS_SPEC.unpack_bits(packed)
        s = r & 1
        eyes, tricks, scores = st.eyes, st.tricks, st.ledger.scores
        it = self._inv_target
        out[_SCALARS] = (eyes[s] / TOTAL_EYES, eyes[1 - s] / TOTAL_EYES, tricks[s] / TRICKS_SCALE,
                         tricks[1 - s] / TRICKS_SCALE, min(scores[s] * it, 1.0), min(scores[1 - s] * it, 1.0))
        return out

    def oracle(self, state: QueensAndJacksState) -> np.ndarray:
        """Seat 0's observation, then every hand and the seat to move (:attr:`oracle_spec`)."""
        st = state
        hands = st.hands
        packed = _ORACLE_TO_MOVE[st.current_player]
        for q in range(4):
            packed |= hands[q] << _ORACLE_HANDS[q]
        out = ORACLE_SPEC.unpack_bits(packed)
        out[:OBS_SPEC.size] = self.observe(st, 0)
        return out

    # -- notation ------------------------------------------------------------------------------------

    def action_to_string(self, state, action: int) -> str:
        if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
            a = int(action)
            if 0 <= a < NAME_BASE:
                return card_str(a)
            if NAME_BASE <= a < NUM_ACTIONS:
                return "trump:" + SUITS[a - NAME_BASE]
        raise IllegalActionError(f"action {action!r} is out of range 0..{NUM_ACTIONS - 1}")

    def string_to_action(self, state: QueensAndJacksState, text: str) -> int:
        legal = state.legal_actions()
        a = None
        if isinstance(text, str):
            t = text.strip()
            if t.lower().startswith("trump"):
                suit = parse_suit(t[5:].lstrip(":= ").strip())
                if suit is not None:
                    a = NAME_BASE + suit
            else:
                try:
                    a = parse_card(t)
                except KozelError:
                    a = None
        if a is None or a not in legal:
            names = " ".join(self.action_to_string(state, x) for x in legal)
            why = "not a move (cards like 'QC', 'TS'; naming like 'trump:H')" if a is None else "not legal now"
            if state.terminal:
                why = "the match is over"
            raise IllegalActionError(f"move {text!r}: {why}; legal moves: {names}")
        return a

    # -- text view -----------------------------------------------------------------------------------

    def render(self, state: QueensAndJacksState, viewer: int | None = None) -> str:
        st = state
        mult = st.ledger.multiplier
        tr = SUIT_NAMES[st.trump] if st.trump >= 0 else "to be named"
        sc = st.ledger.scores
        lines = [
            f"{self.name} · deal {st.deals_played + 1} · dealer player_{st.dealer} · trump {tr}"
            + (f" · x{mult}" if mult > 1 else ""),
            f"match to {self.rules.target}: pair 0+2: {sc[0]} | pair 1+3: {sc[1]}",
            f"this hand: pair 0+2: {st.eyes[0]} eyes, {st.tricks[0]} tricks | "
            f"pair 1+3: {st.eyes[1]} eyes, {st.tricks[1]} tricks",
        ]
        t = st.trump
        for s in range(4):
            mark = "*" if s == st.current_player else " "
            if viewer is None or viewer == s:
                h = _hand_str(st.hands[s], t)
            else:
                h = "?? " * st.hands[s].bit_count()
            tc = card_str(st.trick[s]) if st.trick[s] >= 0 else "--"
            void = ""
            if st.voids[s] and t >= 0:
                void = "  void: " + ",".join("trumps" if es == t else SUIT_NAMES[es]
                                             for es in range(4) if st.voids[s] >> es & 1)
            lines.append(f"{mark}player_{s}: trick {tc}  hand {h.strip():<30} played: "
                         f"{cards_str(st.played[s])}{void}")
        if st.terminal:
            mr = st.match_result
            who = " ".join(f"pair {s}+{s + 2}" for s in mr["winners"]) or "nobody"
            lines.append(f"over ({mr['ended_by']}): winners {who}; scores {mr['scores']}"
                         + (f"; {' '.join(mr['titles'])}" if mr["titles"] else ""))
        elif viewer is None or viewer == st.current_player:
            lines.append(f"legal: {' '.join(self.legal_strings(st))}")
        return "\n".join(lines)

    # -- determinization -----------------------------------------------------------------------------

    def sample_consistent(self, state: QueensAndJacksState, seat: int, rng: Rng) -> QueensAndJacksState:
        """:func:`.sample.sample_consistent`: the other hands re-dealt among the deals that fit ``seat``'s
        view, drawn from ``rng`` (an :class:`Rng`; :func:`~kozel_env.core.rng.as_rng` converts others)."""
        return _sample_consistent(state, seat, rng)


def _hand_str(h: int, t: int) -> str:
    """A hand for the text view: trumps strongest first, then the plain suits (C2.2)."""
    if t < 0:
        return cards_str(h)
    tr = bits(h & TRUMP_MASK[t])
    tr.sort(key=lambda c: -STRENGTH[c])
    rest = bits(h & ~TRUMP_MASK[t])
    rest.sort(key=lambda c: (SUIT_OF[c], -STRENGTH[c]))
    parts = [" ".join(card_str(c) for c in tr)] if tr else []
    parts += [" ".join(card_str(c) for c in rest)] if rest else []
    return " | ".join(parts)
