"""The six-of-spades :class:`~kozel_env.core.game.Game`: observation, oracle view, move notation and text
rendering over :class:`~.engine.SixOfSpadesState`; new matches come from :mod:`.setup`, determinizations
from :mod:`.sample`.

The observation (:attr:`SixOfSpadesGame.obs_spec`, relative to the observer: seat offset 0 = self,
1 = next clockwise, ...; side offset 0 = the observer's side) is one flat float32 vector of 0/1 features
built as one Python integer from per-observer bit tables, every shift taken from the spec's
:meth:`~kozel_env.core.spec.ObsSpec.offset` by part name, and unpacked by a byte lookup table. It shows
face-up cards only: face-down cards are known to their owner alone (the taker never sees them); the
trump card is public (and who drew it); calls are public; being asked for a call, or passing, says nothing.
"""
from __future__ import annotations

import numpy as np

from ...core.bits import mask_of
from ...core.errors import IllegalActionError, KozelError
from ...core.game import Game
from ...core.rng import Rng
from ...core.spec import ObsSpec, Part
from ..deck import NUM_CARDS, SUIT_OF, SUITS, card_str, cards_str, parse_cards
from .engine import SixOfSpadesState
from .rules import CLASSIC, SixOfSpadesRules, make_rules, setup_checks
from .sample import sample_consistent
from .setup import new_state
from .tables import ACTION_OF_NAME, HAND, KIND_NAMES, MOLODKA, MOSKVA, NAMES, NUM_ACTIONS, PH_ANSWER, PH_CALL

_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(np.float32)
"""Row ``b``: the 8 bits of byte ``b`` as float32, low bit first (observation unpacking)."""
STOCK_MAX = NUM_CARDS - 2 * HAND
"""The most cards the stock can hold (two players dealt four each)."""


def observation_parts(r: SixOfSpadesRules) -> list:
    """The observation's named parts (their ``doc`` is what each encodes)."""
    n, ns = r.num_players, r.num_sides
    rel = "relative seats: 0 = you, 1 = next clockwise, ..."
    srel = "relative sides: 0 = yours" + (" (your pair)" if r.pairs else " (you)")
    return [
        Part("hand", (NUM_CARDS,), "your cards (card ids suit * 9 + rank, suits C D H S, ranks 6..A)"),
        Part("selected", (NUM_CARDS,), "cards you have chosen for the lead / answer being built"),
        Part("phase", (3,), "one-hot: call offer, lead, answer (all 0 when over)"),
        Part("to_act", (n,), f"seat to act, one-hot; {rel}"),
        Part("seat", (n,), "your absolute seat, one-hot"),
        Part("trump_suit", (4,), "trump suit one-hot C D H S"),
        Part("trump_card", (NUM_CARDS,), "the trump card (face up under the stock, then drawn)"),
        Part("trump_card_at", (n + 1,), f"0: under the stock; 1 + seat: drawn by that seat; {rel}"),
        Part("stock", (STOCK_MAX,), "cards in the stock (trump card included), thermometer"),
        Part("hand_sizes", (n, HAND + 1), f"cards in each hand, one-hot 0..4 (all 0 for a seat not playing "
                                          f"this deal); {rel}"),
        Part("in_deal", (n,), f"seats playing this deal (not out); {rel}"),
        Part("dealer", (n,), f"dealer one-hot; {rel}"),
        Part("leader", (n,), f"the leader of this round: the scheduled one before the lead, then who led "
                             f"(all 0 when over); {rel}"),
        Part("last_taker", (n,), f"who took the last trick of this deal; {rel}"),
        Part("offer", (n, 2), f"the seat asked now for a call, and the calls it may still make by the call "
             f"standing (Moskva, Molodka), whatever it holds; {rel}"),
        Part("calls", (n, 2), f"calls made before this lead: seat x (Moskva, Molodka); the last one "
             f"stands; {rel}"),
        Part("called", (2,), "this round's lead is a Moskva / Molodka call"),
        Part("lead", (NUM_CARDS,), "this round's lead"),
        Part("lead_size", (HAND,), "number of cards led, one-hot 1..4"),
        Part("top", (NUM_CARDS,), "the cards on top now"),
        Part("on_top", (n,), f"who is on top; {rel}"),
        Part("round_up", (n, NUM_CARDS), f"cards each seat laid face up this round; {rel}"),
        Part("round_down", (n,), f"seats that answered face down this round; {rel}"),
        Part("own_down", (NUM_CARDS,), "your face-down cards this round"),
        Part("taken_known", (ns, NUM_CARDS), f"cards you know each side took this deal (face up, or "
                                             f"your own face down); {srel}"),
        Part("took_trick", (ns,), f"side took a trick this deal; {srel}"),
        Part("taken_unseen", (ns, NUM_CARDS - HAND), f"cards taken by each side that you have not "
                                                     f"seen, thermometer (capped); {srel}"),
        Part("scores", (ns, 2 * r.target), f"penalty points, thermometer (capped); {srel}"),
        Part("sides_in", (ns,), f"sides still in the match; {srel}"),
        Part("deals_played", (r.max_deals,), "deals played in the match, thermometer"),
    ]


class SixOfSpadesGame(Game):
    """Static facts and tables of the six-of-spades engine for one :class:`~.rules.SixOfSpadesRules`."""

    family = "cards"

    engine_id = "six_of_spades"
    num_actions = NUM_ACTIONS
    state_class = SixOfSpadesState

    def __init__(self, rules: SixOfSpadesRules | None = None, **options):
        base = rules if rules is not None else CLASSIC
        self.rules = make_rules(base, options) if options else base
        r = self.rules
        self.name = r.name
        self.num_players = r.num_players
        self.ledger_rules = r.ledger_rules()
        self.score_bits = 2 * r.target
        parts = observation_parts(r)
        self.obs_spec = ObsSpec(parts)
        n = r.num_players
        self.oracle_spec = ObsSpec([
            Part("hands", (n, NUM_CARDS), "every hand, absolute seats"),
            Part("stock_cards", (NUM_CARDS,), "cards in the stock"),
            Part("next_card", (NUM_CARDS,), "the next card to be drawn"),
            Part("down_cards", (n, NUM_CARDS), "face-down cards laid this deal, by seat (absolute)"),
            Part("selection", (NUM_CARDS,), "the cards the seat to move has chosen so far"),
            Part("to_move", (n,), "seat to move, one-hot (all 0 when terminal)"),
        ] + [Part("seat0_" + p.name, p.shape, "seat 0's observation: " + p.doc, p.high) for p in parts])
        self._size = self.obs_spec.size
        self._nbytes = (self._size + 7) // 8
        self._hidden_size = self.oracle_spec.offset("seat0_" + parts[0].name)
        self._build_tables()

    # ------------------------------------------------------------------ states
    def setup_checks(self) -> dict:
        return setup_checks(self.rules)

    def new_state(self, seed: int = 0, setup: dict | None = None) -> SixOfSpadesState:
        """A fresh match (:func:`kozel_env.cards.six_of_spades.setup.new_state` tells the ``setup`` keys)."""
        return new_state(self.rules, seed, setup, self.ledger_rules)

    def sample_consistent(self, st: SixOfSpadesState, player: int, rng: Rng) -> SixOfSpadesState:
        """:func:`kozel_env.cards.six_of_spades.sample.sample_consistent`."""
        return sample_consistent(st, player, rng)

    # ------------------------------------------------------------------ observation
    def observe(self, st: SixOfSpadesState, player: int) -> np.ndarray:
        b = np.frombuffer(self._obs_int(st, player).to_bytes(self._nbytes, "little"), np.uint8)
        return _BYTE_BITS.take(b, axis=0).reshape(-1)[:self._size]

    def _build_tables(self) -> None:
        """Per observer, every feature bit precomputed (seat / side offsets folded in): observe() only ORs."""
        r = self.rules
        n, ns = r.num_players, r.num_sides
        at = self.obs_spec.offset
        sb = self.score_bits
        unseen_max = NUM_CARDS - HAND

        def bit(name, *index):
            return 1 << at(name, *index)

        tabs = []
        for p in range(n):
            rel = [(s - p) % n for s in range(n)]
            srel = [(sd - (p & 1)) % 2 for sd in range(ns)] if r.pairs else [(sd - p) % n for sd in range(ns)]
            seat = tuple((
                tuple(bit("hand_sizes", rel[s], c) | bit("in_deal", rel[s]) for c in range(HAND + 1)),
                at("round_up", rel[s]),
                bit("round_down", rel[s]),
            ) for s in range(n))
            side = tuple((
                at("taken_known", srel[sd]),
                bit("took_trick", srel[sd]),
                tuple(((1 << min(c, unseen_max)) - 1) << at("taken_unseen", srel[sd]) for c in range(NUM_CARDS + 1)),
                tuple(((1 << min(v, sb)) - 1) << at("scores", srel[sd]) for v in range(sb + 1)),
                bit("sides_in", srel[sd]),
            ) for sd in range(ns))
            tabs.append((
                bit("seat", p),
                seat,
                side,
                tuple(bit("to_act", rel[s]) for s in range(n)),
                tuple(bit("dealer", rel[s]) for s in range(n)),
                tuple(bit("leader", rel[s]) for s in range(n)),
                tuple(bit("last_taker", rel[s]) for s in range(n)),
                tuple(bit("on_top", rel[s]) for s in range(n)),
                (bit("trump_card_at", 0),) + tuple(bit("trump_card_at", 1 + rel[s]) for s in range(n)),
                tuple((bit("offer", rel[s], MOSKVA), bit("offer", rel[s], MOLODKA)) for s in range(n)),
                tuple((bit("calls", rel[s], MOSKVA), bit("calls", rel[s], MOLODKA)) for s in range(n)),
            ))
        self._tabs = tuple(tabs)
        self._shifts = tuple(at(name) for name in ("hand", "selected", "lead", "top", "own_down"))
        self._g_stock = tuple(((1 << c) - 1) << at("stock") for c in range(STOCK_MAX + 1))
        self._g_trump = tuple(bit("trump_suit", SUIT_OF[c]) | bit("trump_card", c) for c in range(NUM_CARDS))
        self._g_phase = tuple(bit("phase", ph) for ph in range(3))
        self._g_lsize = (0,) + tuple(bit("lead_size", k - 1) for k in range(1, HAND + 1))
        self._g_called = (0, bit("called", MOSKVA), bit("called", MOLODKA))
        self._g_deals = tuple(((1 << min(d, r.max_deals)) - 1) << at("deals_played") for d in range(r.max_deals + 1))

    def _obs_int(self, st: SixOfSpadesState, p: int) -> int:
        (seat_bit, seat_t, side_t, act_t, dealer_t, leader_t, lt_t, ontop_t, tat_t, offer_t,
         calls_t) = self._tabs[p]
        sh_hand, sh_selected, sh_lead, sh_top, sh_own_down = self._shifts
        hands = st.hands
        x = (hands[p] << sh_hand | seat_bit | self._g_trump[st.trump_card] | tat_t[st.trump_drawn_by + 1]
             | self._g_stock[len(st.stock)] | dealer_t[st.dealer])
        cp = st.current_player
        ph = st.phase
        if cp >= 0:
            x |= self._g_phase[ph] | act_t[cp] | leader_t[st.leader]
            if cp == p and st.selected:
                x |= st.selected << sh_selected
        rup, rdown = st.round_up, st.round_down
        for s in st.seats_in_deal:
            hs, rsh, rdb = seat_t[s]
            x |= hs[hands[s].bit_count()]
            if rup[s]:
                x |= rup[s] << rsh
            if rdown[s]:
                x |= rdb
        if st.last_taker >= 0:
            x |= lt_t[st.last_taker]
        if ph == PH_ANSWER:
            x |= (st.lead << sh_lead | st.top_cards << sh_top | self._g_lsize[st.lead_size]
                  | self._g_called[st.lead_call] | ontop_t[st.top_seat])
            if rdown[p]:
                x |= rdown[p] << sh_own_down
        elif ph == PH_CALL:
            s = st.call_order[st.call_index]
            best = st.standing_call()
            x |= offer_t[s][MOSKVA]
            if best < 0:
                x |= offer_t[s][MOLODKA]
            for s, kind in st.calls_made:
                x |= calls_t[s][kind]
        mydown = st.laid_down[p]
        scores = st.ledger.scores
        taken, face_up, tricks, in_match = st.taken, st.taken_face_up, st.tricks, st.in_match
        sb = self.score_bits
        for sd, (tk_sh, tt_bit, tu_t, sc_t, sin_bit) in enumerate(side_t):
            if tricks[sd]:
                tk = taken[sd]
                known = face_up[sd] | (mydown & tk)
                x |= known << tk_sh | tt_bit | tu_t[tk.bit_count() - known.bit_count()]
            v = scores[sd]
            if v:
                x |= sc_t[v if v < sb else sb]
            if in_match[sd]:
                x |= sin_bit
        dp = st.deals_played
        if dp:
            x |= self._g_deals[dp]
        return x

    def oracle(self, st: SixOfSpadesState) -> np.ndarray:
        spec = self.oracle_spec
        at = spec.offset
        x = 0
        for s in range(self.num_players):
            x |= st.hands[s] << at("hands", s)
            x |= st.laid_down[s] << at("down_cards", s)
        x |= mask_of(st.stock) << at("stock_cards")
        if st.stock:
            x |= 1 << (at("next_card") + st.stock[-1])
        x |= st.selected << at("selection")
        if st.current_player >= 0:
            x |= 1 << at("to_move", st.current_player)
        return np.concatenate([spec.unpack_bits(x, self._hidden_size), self.observe(st, 0)])

    # ------------------------------------------------------------------ notation
    def action_to_string(self, state, action: int) -> str:
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_ACTIONS:
            raise IllegalActionError(f"action {action!r} is out of range 0..{NUM_ACTIONS - 1}")
        a = int(action)
        return card_str(a) if a < NUM_CARDS else NAMES[a]

    def string_to_action(self, st: SixOfSpadesState, text: str) -> int:
        t = str(text).strip()
        a = ACTION_OF_NAME.get(t.lower())
        if a is None:
            try:
                m = parse_cards(t)
            except KozelError as e:
                raise IllegalActionError(f"cannot read move {text!r} ({e}); moves are a card to choose "
                                         f"(e.g. '7H') or one of {sorted(ACTION_OF_NAME)}; legal moves: "
                                         f"{self.legal_strings(st)}") from None
            if m.bit_count() != 1:
                raise IllegalActionError(f"move {text!r}: choose one card at a time (cards go in increasing "
                                         f"order: 6 7 8 9 T J Q K A, suits C D H S); legal moves: "
                                         f"{self.legal_strings(st)}")
            a = m.bit_length() - 1
        if st.terminal or not st.legal_mask >> a & 1:
            who = "nobody (the match is over)" if st.terminal else f"player_{st.current_player}"
            raise IllegalActionError(f"move {text!r} is not legal for {who}; legal moves: {self.legal_strings(st)}")
        return a

    # ------------------------------------------------------------------ rendering
    def _side_name(self, sd: int) -> str:
        return f"player_{sd}+player_{sd + 2}" if self.rules.pairs else f"player_{sd}"

    def render(self, st: SixOfSpadesState, viewer: int | None = None) -> str:
        r = self.rules
        ns = r.num_sides
        score = " | ".join(f"{self._side_name(sd)}: {st.ledger.scores[sd]}{'' if st.in_match[sd] else ' (out)'}"
                           for sd in range(ns))
        lines = [f"{self.name} · deal {st.deals_played + (0 if st.terminal else 1)}/{r.max_deals} · "
                 f"penalties {score}"]
        where = "under the stock" if st.trump_drawn_by < 0 else f"drawn by player_{st.trump_drawn_by}"
        lines.append(f"trump {SUITS[st.trump_suit]}: {card_str(st.trump_card)} ({where}); stock "
                     f"{len(st.stock)} cards; dealer player_{st.dealer}")
        lines += self._render_seats(st, viewer)
        lines += self._render_round(st, viewer)
        for sd in range(ns):
            if st.in_match[sd]:
                known = st.taken[sd] if viewer is None else (
                    st.taken_face_up[sd] | (st.taken[sd] & st.laid_down[viewer]))
                hidden = st.taken[sd].bit_count() - known.bit_count()
                lines.append(f"taken by {self._side_name(sd)}: {st.tricks[sd]} tricks, {cards_str(known) or '-'}"
                             + (f" + {hidden} face down" if hidden else ""))
        if st.terminal:
            res = st.match_result
            lines.append(f"match over ({res['ended_by']}): winning sides {res['winners']}, losing sides "
                         f"{res['losers']}, places {res['places']}")
        elif viewer is None or viewer == st.current_player:
            lines.append(f"legal: {' '.join(self.legal_strings(st))}")
        return "\n".join(lines)

    def _render_seats(self, st: SixOfSpadesState, viewer: int | None) -> list:
        lines = []
        for s in range(self.num_players):
            mark = "*" if s == st.current_player else " "
            if s not in st.seats_in_deal:
                lines.append(f"{mark}player_{s}: out")
                continue
            if viewer is None or viewer == s:
                hand = cards_str(st.hands[s])
                if s == st.current_player and st.selected:
                    hand += f"   chosen: {cards_str(st.selected)}"
            else:
                hand = " ".join("??" for _ in range(st.hands[s].bit_count()))
            lines.append(f"{mark}player_{s}: {hand}")
        return lines

    def _render_round(self, st: SixOfSpadesState, viewer: int | None) -> list:
        lines = []
        if st.phase == PH_CALL:
            may = "Moskva" if st.standing_call() == MOLODKA else "Moskva or Molodka"
            lines.append(f"before the lead: player_{st.call_order[st.call_index]} is asked for a call ({may}) "
                         f"or pass")
            if st.calls_made:
                lines.append("calls: " + ", ".join(f"player_{s} ({KIND_NAMES[k]})" for s, k in st.calls_made))
        if st.phase == PH_ANSWER:
            call = f" ({KIND_NAMES[st.lead_call - 1]})" if st.lead_call else ""
            parts = [f"player_{st.leader} led {cards_str(st.lead)}{call}"]
            for s in st.answer_order[:st.answer_index]:
                if st.round_up[s]:
                    parts.append(f"player_{s} beat with {cards_str(st.round_up[s])}")
                else:
                    shown = cards_str(st.round_down[s]) if viewer is None or viewer == s else \
                        f"{st.round_down[s].bit_count()} cards"
                    parts.append(f"player_{s} face down: {shown}")
            lines.append("round: " + "; ".join(parts) + f"; on top: player_{st.top_seat}")
        return lines
