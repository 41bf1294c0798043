"""The game of ``beat_or_discard_v0`` (seed 002, RULES C1): observation, oracle, notation, text view.

:class:`BeatOrDiscardGame` holds one rules config (:mod:`.rules`), the observation layout (named parts,
:class:`~kozel_env.core.spec.ObsSpec`) and the offsets the observation builder shifts by, all taken from
the spec by part name once per config. A match is built by :mod:`.setup`, played by :mod:`.engine`, and
determinized by :mod:`.sample`.
"""
from __future__ import annotations

import numpy as np

from ...core.errors import IllegalActionError, KozelError
from ...core.game import Game
from ...core.rng import Rng
from ...core.spec import ObsSpec, Part, unpack_masks
from ..deck import SUIT_NAMES, card_str, parse_card
from ..deck import points as card_points
from .engine import BeatOrDiscardState
from .rules import CLASSIC, BeatOrDiscardRules, make_rules, setup_checks
from .sample import sample_consistent as _sample_consistent
from .setup import new_state as _new_state
from .tables import (
    A_CLAIM,
    A_DOWN,
    A_PASS,
    A_PLAY,
    NUM_ACTIONS,
    PH_ANSWER,
    PH_EQUALISE,
    PH_LEAD,
    PH_REBEAT,
    PHASE_NAMES,
    cards_text,
    longest_suit,
)

CLAIM_NS = (4, 5, 6)
"""The N a claim can announce (C1.13: four or more cards of one suit, at most a full hand of six)."""
FLAG_PARTS = ("leader", "last_beater", "locked", "acted", "out", "claims", "trump", "decision", "first_game",
              "diamond_leader", "took", "eggs", "hand_counts", "down_counts", "owed", "stock", "pile_counts",
              "scores")
"""The observation parts that are not card rows: the builder packs them into one small int first (cheaper
shifts), placed at the lowest of their offsets."""


def observation_parts(r: BeatOrDiscardRules) -> list:
    """The observation layout of ``r``, part by part (the README table is generated from it)."""
    n, S, hs = r.num_players, r.num_sides, r.hand_size
    rel = "relative seats: 0 = you, 1 = next clockwise, ..."
    srel = ("relative sides: 0 = your pair, 1 = the other pair" if r.pairs
            else "relative seats (solo: a side is a player)")
    return [
        Part("hand", (36,), "your cards (card id = suit * 9 + rank; suits C D H S, ranks 6 7 8 9 T J Q K A)"),
        Part("selected", (36,), "cards you picked for the move you are building (your turn only)"),
        Part("top", (36,), "the round's top cards: the cards to beat (the last beater's)"),
        Part("lead", (36,), "the round's lead"),
        Part("my_down", (36,), "your face-down cards on the table this round"),
        Part("revealed", (36,), "the stock's bottom card, once drawn and shown this game (C1.10)"),
        Part("table", (n, 36), f"face-up cards each seat laid this round (lead and beats); {rel}"),
        Part("known", (n, 36), "cards publicly known to be in each seat's hand or its face-down cards "
                               f"of this round (the drawn bottom card, cards returned by a claim); {rel}"),
        Part("pile_seen", (S, 36), "cards in each side's tricks this game that you saw: their face-up cards and "
                                   f"your own face-down ones; {srel}"),
        Part("leader", (n,), f"leader of the round, one-hot (all 0 once the match is over); {rel}"),
        Part("last_beater", (n,), f"last beater (the leader before any beat; 0 before the lead); {rel}"),
        Part("locked", (n,), f"discarded this round: may not beat (C1.6); {rel}"),
        Part("acted", (n,), f"beat or discarded this round; {rel}"),
        Part("out", (n,), f"out of the match (solo, C1.16); {rel}"),
        Part("claims", (n, len(CLAIM_NS)), f"claim of this round, N = 4, 5, 6 one-hot; {rel}"),
        Part("trump", (4,), "trump suit C D H S one-hot"),
        Part("decision", (5,), "your decision (your turn only): claim?, lead, answer, beat again/done, "
                               "equalise"),
        Part("first_game", (1,), "1 in the match's first game (diamonds trump, lowest diamond leads)"),
        Part("diamond_leader", (n,), f"first game, before its first trick: who got the lead by holding the "
                                     f"lowest diamond; {rel}"),
        Part("took", (S,), f"took a trick this game; {srel}"),
        Part("eggs", (4,), "eggs in a row before this game: 0, 1, 2, 3+ (multiplier 1, 2, 4, 8+)"),
        Part("hand_counts", (n, hs), f"cards in each hand, thermometer (bit i: more than i cards); {rel}"),
        Part("down_counts", (n, hs), f"face-down cards each seat laid on the table this round, "
                                     f"thermometer; {rel}"),
        Part("owed", (hs,), "cards you owe face down now (discard or equalise), thermometer (your turn)"),
        Part("stock", (36,), "cards in the stock, thermometer"),
        Part("pile_counts", (S, 36), f"cards in each side's tricks, thermometer; {srel}"),
        Part("scores", (S, r.target), f"penalty points, thermometer (bit i: more than i points); {srel}"),
    ]


def oracle_parts(r: BeatOrDiscardRules, obs_spec: ObsSpec) -> list:
    """The full-information layout (``env.state()``): every hidden card, then seat 0's observation."""
    n, S = r.num_players, r.num_sides
    return [
        Part("hands", (n, 36), "every hand, absolute seats"),
        Part("table_down", (n, 36), "face-down cards each seat laid on the table this round, absolute seats"),
        Part("piles", (S, 36), "every side's tricks, absolute sides"),
        Part("stock_cards", (36,), "the stock"),
        Part("picked", (36,), "cards picked by the seat to move"),
        Part("to_move", (n,), "seat to move, one-hot (all 0 when terminal)"),
    ] + [Part("seat0_" + p.name, p.shape, "seat 0's observation: " + p.doc, p.high) for p in obs_spec.parts]


class BeatOrDiscardGame(Game):
    """Static facts, tables and the observation layout for one :class:`~.rules.BeatOrDiscardRules`."""

    family = "cards"

    engine_id = "beat_or_discard"
    num_actions = NUM_ACTIONS
    state_class = BeatOrDiscardState

    def __init__(self, rules: BeatOrDiscardRules | None = None, **options):
        base = rules if rules is not None else CLASSIC
        self.rules = make_rules(base, options) if options else base
        r = self.rules
        self.name = r.name
        self.num_players = r.num_players
        self.obs_spec = ObsSpec(observation_parts(r))
        self.oracle_spec = ObsSpec(oracle_parts(r, self.obs_spec))
        self._layout()

    def _layout(self) -> None:
        """The observation builder's tables, every shift taken from ``obs_spec.offset`` by part name: card rows
        shift into the whole vector; the :data:`FLAG_PARTS` are looked up as ready bits of the flags int,
        which starts at the lowest of their offsets and is shifted there once (``_bits_*``: one-hot bits by
        index, ``_therm_*``: thermometers by count, per relative seat or side where the part has rows)."""
        r = self.rules
        n, S, hs, tg = self.num_players, self.num_sides, r.hand_size, r.target
        off = self.obs_spec.offset
        self._o_rows = (off("hand"), off("selected"), off("top"), off("lead"), off("my_down"), off("revealed"))
        self._o_table = tuple(off("table", k) for k in range(n))
        self._o_known = tuple(off("known", k) for k in range(n))
        self._o_pile = tuple(off("pile_seen", k) for k in range(S))
        f0 = self._o_flags = min(off(name) for name in FLAG_PARTS)

        def one_hot(name, width, *row):
            return tuple(1 << (off(name, *row, i) - f0) for i in range(width))

        def thermometer(name, most, *row):
            return tuple(((1 << k) - 1) << (off(name, *row) - f0) for k in range(most + 1))

        rot = tuple(tuple(((m >> p) | (m << (n - p))) & ((1 << n) - 1) for m in range(1 << n)) for p in range(n))
        self._bits_seats = tuple(tuple(tuple(x << (off(name) - f0) for x in rot[p]) for p in range(n))
                                 for name in ("locked", "acted", "out"))
        self._bits_leader = one_hot("leader", n)
        self._bits_last_beater = one_hot("last_beater", n)
        self._bits_diamond_leader = one_hot("diamond_leader", n)
        self._bits_claims = tuple(dict(zip(CLAIM_NS, one_hot("claims", len(CLAIM_NS), k))) for k in range(n))
        self._bits_trump = one_hot("trump", 4)
        self._bits_decision = one_hot("decision", 5)
        self._bits_first = 1 << (off("first_game") - f0)
        self._bits_eggs = one_hot("eggs", 4)
        self._bits_took = one_hot("took", S)
        self._therm_hand = tuple(thermometer("hand_counts", hs, k) for k in range(n))
        self._therm_down = tuple(thermometer("down_counts", hs, k) for k in range(n))
        self._therm_owed = thermometer("owed", hs)
        self._therm_stock = thermometer("stock", 36)
        self._therm_pile = tuple(thermometer("pile_counts", 36, k) for k in range(S))
        self._therm_scores = tuple(thermometer("scores", tg, k) for k in range(S))
        self._rel = tuple(tuple((p + k) % n for k in range(n)) for p in range(n))
        if r.pairs:
            self._srel = tuple((p % 2, 1 - p % 2) for p in range(n))
        else:
            self._srel = self._rel

    # -- states --------------------------------------------------------------------------------------

    def setup_checks(self) -> dict:
        return setup_checks(self.rules)

    def new_state(self, seed: int = 0, setup: dict | None = None) -> BeatOrDiscardState:
        """A fresh match from ``seed``; ``setup`` fixes hands, stock, piles, leader, match situation (see
        :func:`.setup.new_state`, which validates it)."""
        return _new_state(self.rules, seed, setup)

    # -- observations --------------------------------------------------------------------------------

    def observe(self, st: BeatOrDiscardState, player: int) -> np.ndarray:
        """The parts of :attr:`obs_spec`, all 0/1: the card rows and a small int of flags and thermometer
        counts are packed into one int (every shift from ``obs_spec.offset``, see :meth:`_layout`) and
        unpacked by :meth:`~kozel_env.core.spec.ObsSpec.unpack_bits` in one call."""
        p = player
        n = self.num_players
        o_hand, o_sel, o_top, o_lead, o_down, o_rev = self._o_rows
        hands, table_down = st.hands, st.table_down
        big = hands[p] << o_hand | st.top << o_top | st.lead << o_lead | table_down[p] << o_down
        locked, acted, out = self._bits_seats
        fl = locked[p][st.locked] | acted[p][st.acted] | out[p][st.out] | self._bits_trump[st.trump]
        if st.current_player == p:
            ph = st.phase
            big |= st.picked << o_sel
            fl |= self._bits_decision[ph]
            if ph == PH_ANSWER or ph == PH_EQUALISE:
                fl |= self._therm_owed[st.owed]
        if st.revealed >= 0:
            big |= 1 << (o_rev + st.revealed)
        rel = self._rel[p]
        if st.top:
            table_up = st.table_up
            o_table = self._o_table
            for k in range(n):
                big |= table_up[rel[k]] << o_table[k]
        known = st.known
        if any(known):
            o_known = self._o_known
            for k in range(n):
                big |= known[rel[k]] << o_known[k]
        th_hand, th_down = self._therm_hand, self._therm_down
        for k in range(n):
            q = rel[k]
            fl |= th_hand[k][hands[q].bit_count()] | th_down[k][table_down[q].bit_count()]
        mine_down = st.laid_down[p]
        piles, piles_up = st.piles, st.piles_up
        o_pile, took, th_pile, th_scores = self._o_pile, self._bits_took, self._therm_pile, self._therm_scores
        sc = st.ledger.scores
        tg = self.rules.target
        for k, s in enumerate(self._srel[p]):
            pl = piles[s]
            if pl:
                big |= (piles_up[s] | (pl & mine_down)) << o_pile[k]
                fl |= took[k] | th_pile[k][pl.bit_count()]
            v = sc[s]
            if v:
                fl |= th_scores[k][v if v < tg else tg]
        if not st.terminal:
            fl |= self._bits_leader[(st.leader - p) % n]
        if st.last_beater >= 0:
            fl |= self._bits_last_beater[(st.last_beater - p) % n]
        if st.best_claim:
            claims, bits_claims = st.claims, self._bits_claims
            for k in range(n):
                c = claims[rel[k]]
                if c:
                    fl |= bits_claims[k][c]
        if st.first_game:
            fl |= self._bits_first
        if st.diamond_leader >= 0:
            fl |= self._bits_diamond_leader[(st.diamond_leader - p) % n]
        e = st.ledger.eggs_streak
        fl |= self._bits_eggs[e if e < 3 else 3] | self._therm_stock[st.stock.bit_count()]
        big |= fl << self._o_flags
        return self.obs_spec.unpack_bits(big)

    def oracle(self, st: BeatOrDiscardState) -> np.ndarray:
        n = self.num_players
        rows = st.hands + st.table_down + st.piles + [st.stock, st.picked]
        to_move = np.zeros(n, np.float32)
        if st.current_player >= 0:
            to_move[st.current_player] = 1
        return np.concatenate([unpack_masks(rows, 36).ravel(), to_move, self.observe(st, 0)])

    # -- notation ------------------------------------------------------------------------------------

    def action_to_string(self, st: BeatOrDiscardState, action: int) -> str:
        if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
            a = int(action)
            if 0 <= a < 36:
                return card_str(a)
            if a == A_PLAY:
                return "lead" if st.phase == PH_LEAD else "beat"
            if a == A_DOWN:
                return "discard"
            if a == A_PASS:
                return "done" if st.phase == PH_REBEAT else "pass"
            if a == A_CLAIM:
                return "claim"  # public notation: N is announced when the claim is made (the record shows it)
        raise IllegalActionError(f"action {action!r} is out of range 0..{NUM_ACTIONS - 1}")

    _WORDS = {"lead": A_PLAY, "beat": A_PLAY, "play": A_PLAY, "discard": A_DOWN, "down": A_DOWN,
              "add": A_DOWN, "pass": A_PASS, "done": A_PASS, "claim": A_CLAIM}

    def string_to_action(self, st: BeatOrDiscardState, text: str) -> int:
        legal = st.legal_actions()
        a = None
        why = "not a move (a card like 'QC' or 'TS' to pick it; lead, beat, discard, pass, done, claim)"
        if isinstance(text, str):
            t = text.strip().lower()
            words = t.split()
            if words and words[0] in self._WORDS:
                a = self._WORDS[words[0]]
                if a == A_CLAIM and len(words) == 2 and st.current_player >= 0:
                    if words[1] != str(longest_suit(st.hands[st.current_player])):
                        a = None
                        why = "a claim announces your longest suit's length"
                elif len(words) != 1:
                    a = None
            else:
                try:
                    a = parse_card(t)
                except KozelError:
                    a = None
        if a is not None and a not in legal:
            why = "the match is over" if st.terminal else "not legal now"
            a = None
        if a is None:
            names = ", ".join(self.action_to_string(st, x) for x in legal)
            raise IllegalActionError(f"move {text!r}: {why}; legal moves: {names}")
        return a

    # -- text view -----------------------------------------------------------------------------------

    def render(self, st: BeatOrDiscardState, viewer: int | None = None) -> str:
        r = self.rules
        n = r.num_players
        led = st.ledger
        score = score_line(st)
        mult = led.multiplier
        lines = [f"{self.name} · game {st.deals_played + (0 if st.terminal else 1)} · trump {SUIT_NAMES[st.trump]}"
                 + (f" · x{mult}" if mult > 1 else "") + f" · penalties {score}"]
        rev = f" · bottom card shown: {card_str(st.revealed)}" if st.revealed >= 0 else ""
        lines.append(f"stock: {st.stock.bit_count()} cards{rev} · phase: {PHASE_NAMES[st.phase]}")
        for q in range(n):
            mark = "*" if q == st.current_player else " "
            if st.out >> q & 1:
                lines.append(f"{mark}player_{q}: out")
                continue
            if viewer is None or viewer == q:
                h = cards_text(st.hands[q]) or "-"
                dn = cards_text(st.table_down[q])
            else:
                h = "?? " * st.hands[q].bit_count()
                dn = "?? " * st.table_down[q].bit_count()
            tags = st.seat_tags(q)
            lines.append(f"{mark}player_{q}: {h.strip():<20} table up: {cards_text(st.table_up[q]) or '-':<14} "
                         f"down: {dn.strip() or '-'}" + (f"  [{', '.join(tags)}]" if tags else ""))
        if st.top:
            lines.append(f"top cards: {cards_text(st.top)}")
        for s in range(r.num_sides):
            who = f"pair {s}+{s + 2}" if r.pairs else f"player_{s}"
            pts = card_points(st.piles[s]) if viewer is None else None
            lines.append(f"tricks {who}: {st.tricks[s]} ({st.piles[s].bit_count()} cards"
                         + (f", {pts} points" if pts is not None else "") + ")")
        if st.terminal:
            mr = st.match_result
            lines.append(f"match over ({mr['ended_by']}): winning sides {mr['winners']}, goats {mr['goats']}; "
                         f"penalties {mr['scores']}")
        elif viewer is None or viewer == st.current_player:
            if st.picked:
                lines.append(f"picked: {cards_text(st.picked)}")
            lines.append(f"legal: {' '.join(self.legal_strings(st))}")
        return "\n".join(lines)

    # -- determinization -----------------------------------------------------------------------------

    def sample_consistent(self, st: BeatOrDiscardState, player: int, rng: Rng) -> BeatOrDiscardState:
        """A state giving ``player`` the same observation, with everything it cannot see re-dealt, drawn
        from ``rng`` (a kozel_env :class:`~kozel_env.core.rng.Rng`; callers convert a seed or another
        generator with :func:`~kozel_env.core.rng.as_rng`). What is kept and how it is drawn:
        :func:`.sample.sample_consistent`."""
        return _sample_consistent(st, player, rng)


def score_line(st: BeatOrDiscardState) -> str:
    """The penalty points so far, for the text and picture views: per pair, or per player (``(out)`` once a
    player is out at the target, C1.16)."""
    r, led = st.rules, st.ledger
    if r.pairs:
        return f"pair 0+2: {led.scores[0]} | pair 1+3: {led.scores[1]}"
    return " | ".join(f"player_{q}: {led.scores[q]}" + (" (out)" if st.out >> q & 1 else "")
                      for q in range(r.num_players))
