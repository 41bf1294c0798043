"""Building a match of card Kozel with the six of spades, dealt at random or from a chosen position.

``reset(options=...)`` keys are checked first by the shared :func:`kozel_env.core.options.check_setup`
with :func:`~.rules.setup_checks`; the cross-checks of the position (every card placed once, four in each
hand while the stock holds cards, C3.4; the trump card drawn last, C3.1) are here. Card strings are read
by :func:`kozel_env.cards.deck.parse_cards`, the one card-string parser.
"""
from __future__ import annotations

from ...core.bits import mask_of
from ...core.errors import InvalidOptionError, KozelError
from ...core.ledger import Ledger
from ...core.options import check_setup
from ...core.rng import Rng
from ..deck import NUM_CARDS, SUIT_OF, cards_str, parse_card, parse_cards
from .engine import SixOfSpadesState
from .rules import SETUP_KEYS, SixOfSpadesRules, setup_checks
from .tables import HAND


def new_state(rules: SixOfSpadesRules, seed: int = 0, setup: dict | None = None,
              ledger_rules=None) -> SixOfSpadesState:
    """A fresh match. ``setup`` (validated, :class:`InvalidOptionError` on bad input) may hold:

    * ``hands``: one entry per seat, a card string (``"AS TS 6S KH"``) or None (dealt at random);
    * ``trump_card``: the face-up card under the stock (default: drawn at random), or a card in a
      hand (then already drawn by that seat and the stock is empty) or among ``taken`` (drawn and
      played face up; it counts as drawn by the taking side's first seat);
    * ``stock``: the stock in draw order, first drawn first, without the trump card (default: the
      rest of the deck, shuffled); with it every card must be placed;
    * ``taken``: one card string per side, cards already taken this deal (face up, one trick each);
    * ``dealer`` / ``leader``: seats (the leader sits left of the dealer; default drawn from the Rng);
    * ``scores``: penalty points per side (below the target for sides still in); ``out``: sides
      already out (three players only, at most one); ``deals_played``: deals already played;
    * ``single_deal``: end the episode after the first deal.
    With fewer than four cards in a hand the stock must be empty (C3.4). ``ledger_rules``: the rules'
    :meth:`~.rules.SixOfSpadesRules.ledger_rules` when the caller holds them already.
    """
    r = rules
    setup = check_setup(setup_checks(r), setup, r.name, SETUP_KEYS)
    st = _match_fields(r, seed, setup, ledger_rules or r.ledger_rules())
    leader = _dealer_and_leader(st, setup)
    if not any(k in setup for k in ("hands", "trump_card", "stock", "taken")):
        st.start_deal()
    else:
        _fixed_deal(st, setup, leader)
    st.settle()
    return st


def _match_fields(r: SixOfSpadesRules, seed: int, setup: dict, ledger_rules) -> SixOfSpadesState:
    """The state with its match fields set from ``setup`` (sides out, scores, deals played)."""
    ns = r.num_sides
    st = SixOfSpadesState.__new__(SixOfSpadesState)
    st.rules = r
    st.rng = Rng(seed)
    st.events = []
    st.results = ()
    out = setup.get("out", ())
    if len(out) > ns - 2:
        raise InvalidOptionError(f"out={list(out)!r}: at least two sides must still be in the match")
    st.in_match = [sd not in out for sd in range(ns)]
    st.out_after_deal = [0 if sd in out else -1 for sd in range(ns)]
    scores = setup.get("scores", [0] * ns)
    if any(scores[sd] >= r.target for sd in range(ns) if st.in_match[sd]):
        raise InvalidOptionError(f"scores={scores!r}: the sides still in must be below the target {r.target}")
    st.ledger = Ledger(ledger_rules, scores=list(scores))
    st.deals_played = setup.get("deals_played", 0)
    st.single_deal = setup.get("single_deal", False)
    st.terminal = False
    st.last_result = None
    st.match_result = None
    st.current_player = -1
    st.legal_mask = 0
    st.legal_sets = ()
    st.beating_sets = ()
    st.selected = 0
    return st


def _dealer_and_leader(st: SixOfSpadesState, setup: dict) -> int:
    """Set ``st.dealer`` and return the first leader: the seat left of the dealer (C3.1); either may be
    given, the dealer is otherwise drawn from the state's Rng."""
    r = st.rules
    active = [s for s in range(r.num_players) if st.in_match[r.side_of(s)]]
    dealer, leader = setup.get("dealer"), setup.get("leader")
    for key, v in (("dealer", dealer), ("leader", leader)):
        if v is not None and v not in active:
            raise InvalidOptionError(f"{key}={v!r}: must be a seat still in the match {active}")
    if dealer is None:
        if leader is not None:
            i = active.index(leader)
            dealer = active[i - 1]
        else:
            dealer = active[st.rng.below(len(active))]
    st.dealer = dealer
    if leader is None:
        leader = st.next_in_deal(dealer)
    elif st.next_in_deal(dealer) != leader:
        raise InvalidOptionError(f"leader must be the seat left of the dealer ({st.next_in_deal(dealer)}), "
                                 f"got {leader}")
    return leader


class _Cards:
    """Reads the card strings of a set-up, each card placed at most once over all of them."""

    def __init__(self):
        self.used = 0

    def take(self, text, what: str) -> int:
        if isinstance(text, (list, tuple)) and all(isinstance(x, str) for x in text):
            text = " ".join(text)
        if not isinstance(text, str):
            raise InvalidOptionError(f"{what} must be a card string like 'AS TS 6S KH', got {text!r}")
        try:
            m = parse_cards(text)
        except KozelError as e:
            raise InvalidOptionError(f"{what}: {e}") from None
        if m & self.used:
            raise InvalidOptionError(f"{what}: card(s) {cards_str(m & self.used)} given twice")
        self.used |= m
        return m


def _given_hands(st: SixOfSpadesState, setup: dict, cards: _Cards) -> list:
    """Per seat the hand ``setup["hands"]`` gives (None: to be dealt)."""
    n = st.rules.num_players
    hands = setup.get("hands")
    given = [None] * n
    if hands is None:
        return given
    if not isinstance(hands, (list, tuple)) or len(hands) != n:
        raise InvalidOptionError(f"hands must be a list of {n} card strings (or None), got {hands!r}")
    for s, h in enumerate(hands):
        if h is None:
            continue
        m = cards.take(h, f"hand of seat {s}")
        if m.bit_count() > HAND:
            raise InvalidOptionError(f"hand of seat {s} has {m.bit_count()} cards; at most {HAND}")
        if m and s not in st.seats_in_deal:
            raise InvalidOptionError(f"seat {s} is out of the match and holds no cards")
        given[s] = m
    return given


def _given_taken(st: SixOfSpadesState, setup: dict, cards: _Cards) -> None:
    """``setup["taken"]``: each side's cards taken this deal, face up, one trick each."""
    ns = st.rules.num_sides
    taken = setup.get("taken")
    if taken is None:
        return
    if not isinstance(taken, (list, tuple)) or len(taken) != ns:
        raise InvalidOptionError(f"taken must be a list of {ns} card strings, got {taken!r}")
    for sd, t in enumerate(taken):
        m = cards.take(t or "", f"taken by side {sd}")
        if m and not st.in_match[sd]:
            raise InvalidOptionError(f"side {sd} is out of the match and took nothing")
        st.taken[sd] = st.taken_face_up[sd] = m
        st.tricks[sd] = 1 if m else 0


def _given_trump(setup: dict) -> int:
    """The card id of ``setup["trump_card"]`` (-1: not given)."""
    tc = setup.get("trump_card")
    if tc is None:
        return -1
    if not isinstance(tc, str):
        raise InvalidOptionError(f"trump_card must be a card like '9D', got {tc!r}")
    try:
        trump = parse_cards(tc)
    except KozelError as e:
        raise InvalidOptionError(f"trump_card: {e}") from None
    if trump.bit_count() != 1:
        raise InvalidOptionError(f"trump_card must be one card, got {tc!r}")
    return trump.bit_length() - 1


def _given_stock(setup: dict, cards: _Cards, trump: int) -> list:
    """``setup["stock"]`` as card ids in draw order, first drawn first (empty: not given)."""
    stock_text = setup.get("stock")
    if stock_text is None:
        return []
    if isinstance(stock_text, (list, tuple)) and all(isinstance(x, str) for x in stock_text):
        stock_text = " ".join(stock_text)
    m = cards.take(stock_text, "stock")
    if trump >= 0 and m >> trump & 1:
        raise InvalidOptionError("the stock lists the cards above the trump card; leave the trump card out")
    return [parse_card(t) for t in stock_text.replace(",", " ").split()]


def _fixed_deal(st: SixOfSpadesState, setup: dict, leader: int) -> None:
    """The deal ``setup`` describes, its missing parts dealt at random from the state's Rng."""
    r = st.rules
    st.reset_deal_fields()
    cards = _Cards()
    given = _given_hands(st, setup, cards)
    _given_taken(st, setup, cards)
    trump = _given_trump(setup)
    stock = _given_stock(setup, cards, trump)
    rest = [c for c in range(NUM_CARDS) if not cards.used >> c & 1 and c != trump]
    st.rng.shuffle(rest)
    for s in st.seats_in_deal:
        if given[s] is None:
            if setup.get("hands") is not None and len(rest) < HAND:
                raise InvalidOptionError("not enough cards left to deal the hands given as None")
            given[s] = mask_of(rest[:HAND])
            rest = rest[HAND:]
        st.hands[s] = given[s]
    holder = [s for s in st.seats_in_deal if trump >= 0 and st.hands[s] >> trump & 1]
    # a trump card already taken counts as drawn (and laid face up) by the taking side's first seat
    holder += [s for s in st.seats_in_deal if trump >= 0 and st.taken[r.side_of(s)] >> trump & 1][:1]
    if trump < 0:
        if not rest:
            raise InvalidOptionError("no card is left for the trump card")
        trump = rest.pop()
    if holder:
        if stock or rest:
            raise InvalidOptionError("the trump card is drawn last: once it is drawn the stock must be empty "
                                     f"(unplaced cards: {cards_str(mask_of(stock + rest))})")
        st.trump_drawn_by = holder[0]
        st.stock = []
    else:
        if setup.get("stock") is not None and rest:
            raise InvalidOptionError(f"with an explicit stock every card must be placed; missing: "
                                     f"{cards_str(mask_of(rest))}")
        st.stock = [trump] + list(reversed(stock)) + rest
    st.trump_card = trump
    st.trump_suit = SUIT_OF[trump]
    if st.stock and any(st.hands[s].bit_count() != HAND for s in st.seats_in_deal):
        raise InvalidOptionError("while the stock holds cards every hand holds four (C3.4)")
    if not any(st.hands):
        raise InvalidOptionError("no hand holds a card")
    st.deal_event()
    st.start_round(leader)
