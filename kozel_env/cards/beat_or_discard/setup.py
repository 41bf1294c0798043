"""A chosen position of ``beat_or_discard_v0`` from reset options (seed 002, RULES C1).

:func:`new_state` builds a fresh match from a seed and a ``setup`` dict (the ``reset(options=...)`` keys of
:func:`~.rules.setup_checks`, checked by the shared :func:`kozel_env.core.options.check_setup`); the
cross-option checks (hands that fit together with the stock and the piles, scores that leave two players
in, the trump of a later game) raise :class:`~kozel_env.core.errors.InvalidOptionError` here. Card strings
are read by :func:`kozel_env.cards.deck.parse_cards` (a card given twice in one string is an error; a card
given in two places is one too).
"""
from __future__ import annotations

from ...core.bits import bits
from ...core.errors import InvalidOptionError, KozelError
from ...core.ledger import Ledger
from ...core.options import check_setup
from ...core.rng import Rng
from ..deck import DIAMONDS, FULL_DECK, SUIT_NAMES, SUITS, card_str, parse_card, parse_cards
from .engine import BeatOrDiscardState
from .rules import BeatOrDiscardRules, setup_checks

_SUIT_OF_NAME = {**{letter: i for i, letter in enumerate(SUITS)}, **{name: i for i, name in enumerate(SUIT_NAMES)},
                 **{i: i for i in range(4)}}
"""The values the ``trump`` option accepts (its check returns one of them), as suit indices."""


def new_state(rules: BeatOrDiscardRules, seed: int = 0, setup: dict | None = None) -> BeatOrDiscardState:
    """A fresh match from ``seed``. ``setup`` (validated, :class:`InvalidOptionError` on bad input):

    * ``hands``: one entry per seat, a card string (``"7C 9C KC 6D 8H JS"``) or None (dealt at random);
      a hand may hold fewer than ``hand_size`` cards only when the stock is empty;
    * ``stock``: the stock in draw order (card string; its last card is the bottom card, C1.10);
      default: the cards left, drawn at random;
    * ``piles``: per side, cards already taken in tricks this game (face up; each non-empty pile counts
      as one trick);
    * ``first_game`` (default True): diamonds trump and the lowest diamond leads (C1.10-11);
    * ``leader``: the seat to lead (default: C1.11);
    * ``trump``: ``"C" "D" "H" "S"``, the trump of a later game (``first_game=False``, classic only);
    * ``scores``: penalty points per side (solo: a seat at the target or more is out);
    * ``eggs``: eggs in a row before this game (its penalties count ``2 ** eggs``, C1.12);
    * ``single_deal``: end the episode after this game.
    """
    setup = check_setup(setup_checks(rules), setup, rules.name, BeatOrDiscardState.SETUP_KEYS)
    st = _match(rules, seed, setup)
    leader = setup.get("leader")
    if leader is not None and st.out >> leader & 1:
        raise InvalidOptionError(f"leader={leader!r}: player_{leader} is out of the match")
    fixed = None
    if any(k in setup for k in ("hands", "stock", "piles")):
        fixed = _fixed_deal(st, setup)
    n = rules.num_players
    st.table_up = [0] * n
    st.table_down = [0] * n
    st.claims = [0] * n
    st.picked = 0
    st.legal_beats = ()
    st.owed = 0
    st.offered = 0
    st.equalise_taker = 0
    st.equalise_to = 0
    st.legal_cache = -1
    st._deal(fixed, leader)
    st._run_forced()
    return st


def _match(r: BeatOrDiscardRules, seed: int, setup: dict) -> BeatOrDiscardState:
    """A state with the match situation of ``setup`` (scores, players out, eggs, first game, trump), not
    dealt yet."""
    n, S = r.num_players, r.num_sides
    st = BeatOrDiscardState.__new__(BeatOrDiscardState)
    st.rules = r
    st.rng = Rng(seed)
    st.events = []
    st.results = ()
    scores = setup.get("scores", [0] * S)
    out = 0
    if r.pairs:
        if any(v >= r.target for v in scores):
            raise InvalidOptionError(f"scores {list(scores)} already reach the target {r.target}")
    else:
        for q, v in enumerate(scores):
            if v >= r.target:
                out |= 1 << q
        if n - out.bit_count() < 2:
            raise InvalidOptionError(f"scores {list(scores)}: fewer than two players are still in")
    st.ledger = Ledger(r.ledger_rules(), scores=list(scores), eggs_streak=setup.get("eggs", 0))
    first = setup.get("first_game", True)
    st.single_deal = setup.get("single_deal", False)
    st.first_game = first
    st.out = out
    st.out_at_deal = [0 if out >> q & 1 else -1 for q in range(n)]
    st.goats = None
    st.terminal = False
    st.deals_played = 0
    st.last_result = None
    st.match_result = None
    st.last_taker = 0
    st.trump = DIAMONDS
    trump = setup.get("trump")
    if trump is not None:
        t = _SUIT_OF_NAME[trump]
        if t != DIAMONDS and (first or r.quick):
            raise InvalidOptionError("trump is diamonds in the first game and in every quick game (C1.10, "
                                     "C1.15); pass first_game=False to set another trump")
        st.trump = t
    return st


def _cards(text: str, what: str, used: int) -> tuple:
    """The cards of the option ``what`` (mask, list in the given order); a card already in ``used`` (given
    for another hand, the stock or a pile) or twice in ``text`` is an InvalidOptionError."""
    try:
        mask = parse_cards(text)
    except KozelError as e:
        raise InvalidOptionError(f"{what}: {e}") from None
    seq = [parse_card(tok) for tok in text.replace(",", " ").split()]
    if mask & used:
        twice = next(c for c in seq if used >> c & 1)
        raise InvalidOptionError(f"{what}: card {card_str(twice)} is given twice")
    return mask, seq


def _given_hands(st: BeatOrDiscardState, setup: dict, used: int) -> tuple:
    """The hands of ``setup`` (None: to deal at random; a seat out of the match holds nothing), the cards
    used so far."""
    r = st.rules
    hands = [None] * r.num_players
    for q, h in enumerate(setup.get("hands", hands)):
        if h is None:
            continue
        if st.out >> q & 1:
            if h.strip():
                raise InvalidOptionError(f"hands[{q}]: player_{q} is out of the match and holds no cards")
            hands[q] = 0
            continue
        m, _ = _cards(h, f"hands[{q}]", used)
        used |= m
        if m.bit_count() > r.hand_size:
            raise InvalidOptionError(f"hands[{q}] has {m.bit_count()} cards, more than {r.hand_size}")
        hands[q] = m
    return hands, used


def _fixed_deal(st: BeatOrDiscardState, setup: dict) -> tuple:
    """``(hands, stock, stock_seq, piles, tricks)`` of a deal with the given hands, stock and piles, the rest
    dealt at random from ``st.rng``."""
    r = st.rules
    n, S, hs = r.num_players, r.num_sides, r.hand_size
    hands, used = _given_hands(st, setup, 0)
    piles = [0] * S
    tricks = [0] * S
    for s, text in enumerate(setup.get("piles", ())):
        m, _ = _cards(text, f"piles[{s}]", used)
        used |= m
        piles[s] = m
        tricks[s] = 1 if m else 0
    stock_seq = None
    if "stock" in setup:
        m, seq = _cards(setup["stock"], "stock", used)
        used |= m
        stock_seq = tuple(seq)
    rest = bits(FULL_DECK & ~used)
    st.rng.shuffle(rest)
    pos = 0
    for q in range(n):
        if hands[q] is None:
            if st.out >> q & 1:
                hands[q] = 0
                continue
            if pos + hs > len(rest):
                raise InvalidOptionError(f"not enough cards left to deal hands[{q}]")
            hands[q] = sum(1 << c for c in rest[pos:pos + hs])
            pos += hs
    left = rest[pos:]
    if stock_seq is None:
        stock_seq = tuple(left)  # the rest, shuffled above
    elif left:
        raise InvalidOptionError(f"cards {' '.join(card_str(c) for c in sorted(left))} are in no hand, "
                                 "stock or pile")
    stock = sum(1 << c for c in stock_seq)
    if stock:
        short = [q for q in range(n) if not st.out >> q & 1 and hands[q].bit_count() < hs]
        if short:
            raise InvalidOptionError(f"hands[{short[0]}] holds fewer than {hs} cards while the stock is not "
                                     "empty")
    if not any(hands):
        raise InvalidOptionError("every hand is empty")
    return (hands, stock, stock_seq, piles, tricks)
