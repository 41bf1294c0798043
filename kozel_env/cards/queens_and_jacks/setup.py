"""Building a chosen ``queens_and_jacks_v0`` position from ``reset(options=...)`` (the set-up): the match
situation, the first hand's cards and trump suit, parsed and cross-checked here.

Each key and the values it allows are declared once in :func:`.rules.setup_checks` and checked by the
shared :func:`kozel_env.core.options.check_setup`; this module adds the checks across keys (hands that fit
together in the deck, a leader left of the dealer, a trump the rules allow). Sources as in
:mod:`kozel_env.cards.queens_and_jacks`.
"""
from __future__ import annotations

from ...core.errors import InvalidOptionError, KozelError
from ...core.ledger import Ledger
from ...core.options import check_setup
from ...core.rng import Rng
from ..deck import SUIT_NAMES, SUITS, cards_str, deck_mask, parse_cards
from .engine import QueensAndJacksState
from .rules import SETUP_KEYS, QueensAndJacksRules, setup_checks


def new_state(rules: QueensAndJacksRules, seed: int, setup: dict | None) -> QueensAndJacksState:
    """A fresh match from ``seed`` with the (validated) ``setup``; the keys are documented at
    :meth:`~kozel_env.cards.queens_and_jacks.game.QueensAndJacksGame.new_state`."""
    setup = check_setup(setup_checks(rules), setup, rules.name, SETUP_KEYS)
    st = QueensAndJacksState.__new__(QueensAndJacksState)
    st.rules = rules
    st.rng = Rng(seed)
    st.events = []
    st.results = ()
    st.ledger = Ledger(rules.ledger_rules(), scores=setup.get("scores", [0, 0]), eggs_streak=setup.get("eggs", 0))
    st.single_deal = setup.get("single_deal", False)
    dealer = setup.get("dealer")
    leader = setup.get("leader")
    if dealer is not None and leader is not None and (dealer + 1) & 3 != leader:
        raise InvalidOptionError(f"leader must be the seat left of the dealer ({(dealer + 1) & 3}), got {leader}")
    if dealer is None:  # C2.1: the player left of the dealer leads; unset, the first dealer is drawn
        dealer = (leader - 1) & 3 if leader is not None else st.rng.below(4)
    st.dealer = dealer
    trump = setup.get("trump")
    if trump is not None:
        trump = parse_suit(trump)
        if rules.trumps == "clubs" and trump != 0:
            raise InvalidOptionError("with trumps='clubs' the trump suit is always clubs")
    fixed = parse_hands(rules, setup["hands"]) if "hands" in setup else None
    st.terminal = False
    st.deals_played = 0
    st.last_result = None
    st.match_result = None
    st.start_hand(fixed, trump)
    return st


def parse_hands(rules: QueensAndJacksRules, hands) -> list:
    """The ``hands`` option as per-seat card masks (None: dealt from the rest): every card once, in the
    deck (C2.1: 32 cards have no sixes), a whole hand each."""
    if not isinstance(hands, (list, tuple)) or len(hands) != 4:
        raise InvalidOptionError("hands must be a list of 4 entries (card string or None per seat)")
    deck = deck_mask(rules.deck)
    out = []
    seen = 0
    for seat, h in enumerate(hands):
        if h is None:
            out.append(None)
            continue
        try:
            m = parse_cards(str(h))
        except KozelError as e:
            raise InvalidOptionError(f"hands[{seat}]: {e}") from None
        if m & ~deck:
            raise InvalidOptionError(f"hands[{seat}]: {cards_str(m & ~deck)} not in the {rules.deck}-card deck")
        if m & seen:
            raise InvalidOptionError(f"hands[{seat}]: {cards_str(m & seen)} already in another hand")
        if m.bit_count() != rules.hand_size:
            raise InvalidOptionError(f"hands[{seat}] must hold {rules.hand_size} cards, got {m.bit_count()}")
        seen |= m
        out.append(m)
    return out


def parse_suit(v) -> int | None:
    """A suit index 0..3 from an index, a letter ``C D H S`` or a suit name (any case), else None."""
    if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 3:
        return v
    if isinstance(v, str):
        t = v.strip().lower()
        for i, (letter, name) in enumerate(zip(SUITS, SUIT_NAMES)):
            if t in (letter.lower(), name):
                return i
    return None
