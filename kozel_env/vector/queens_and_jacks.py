"""``queens_and_jacks_v0`` batched (issue 16): ``B`` matches of one rules config as NumPy arrays, one decision
applied in every match at once, bit for bit the scalar engine :mod:`kozel_env.cards.queens_and_jacks`.

Rules sources as in the scalar package ("seed" is ``seeds/003_b4ccc5198f358dfb.txt``, "C2.n" is RULES.md):
the deal (C2.1), trumps and their order (C2.2), naming the trump suit (C2.3), tricks (C2.4), scoring a hand
(C2.5, eggs multiply) and the match (C2.6). Every number comes from the scalar tables
(:mod:`kozel_env.cards.queens_and_jacks.tables`, :data:`kozel_env.cards.deck.POINTS`,
:func:`~kozel_env.cards.queens_and_jacks.hand_value`) turned into arrays once at import, and every
observation position from the scalar ``OBS_SPEC`` / ``ORACLE_SPEC``.

The state differs from the scalar state only in representation:

* ``hands``, ``played`` (``uint64[B, 4]``): card masks per seat; ``trick`` (``uint64[B, 4]``): the mask of the
  card each seat put into the current trick (0: none yet; the scalar holds the card id or -1);
* ``voids`` (``uint64[B]``): the four seats' 4-bit void masks in one word, seat ``q``'s at bits ``4q..4q+3``;
* ``counts`` (``int64[B, 4]``): eyes of sides 0 and 1, then tricks of sides 0 and 1, this hand (the scalar's
  ``eyes`` and ``tricks``);
* ``trump`` (``int64[B]``): 0..3, or :data:`NAMING` (4, the scalar's -1) while the suit is to be named (C2.3);
  the scalar's ``phase`` is ``trump == NAMING`` (naming) or play (a finished match waits for ``start``);
* ``winning_card`` / ``led_suit`` before the hand's first lead: :data:`NO_CARD` (40) / :data:`NAMING` (4) or,
  after the naming action, -1 (the scalar: -1 and -1); neither is observed, and the first lead sets both.

The sentinels index spare rows and columns of the tables (all-zero masks, strength -1, no eyes), so a game
that names its trump suit goes through the same array code as a game that plays a card: its "card" has no
bit, no eyes and never counts as the trick's card, and its trick does not advance.
"""
from __future__ import annotations

import numpy as np

from ..cards.deck import NUM_CARDS, POINTS, deck_mask, points
from ..cards.queens_and_jacks.engine import hand_value
from ..cards.queens_and_jacks.game import OBS_SPEC, ORACLE_SPEC, TOTAL_EYES, TRICKS_SCALE, QueensAndJacksGame
from ..cards.queens_and_jacks.tables import EFF, FOLLOW, NAME_BASE, NAME_MASK, NUM_ACTIONS, STRENGTH
from ..core.bits import bits
from . import rng as vrng
from .bits import Packer, unpack_mask
from .engine import BatchedGame
from .ledger import BatchedLedger

U64 = np.uint64
NAMING = 4
"""``trump`` while the trump suit is to be named (C2.3); also ``led_suit`` when a hand is dealt."""
NO_CARD = NUM_ACTIONS
"""``winning_card`` before the hand's first lead (a column past every action)."""

# -- the scalar tables as arrays (one spare row / column per sentinel) -------------------------------------

_NT = NAMING + 1  # trump rows 0..3 and NAMING
_NC = NO_CARD + 1  # columns: cards 0..35, the naming actions 36..39, NO_CARD
_EFF = np.full((_NT, _NC), -1, np.int64)
"""``_EFF[t, c]``: effective suit of card ``c`` with trump ``t`` (tables.EFF, C2.4); -1 off the cards."""
_EFF[:4, :NUM_CARDS] = EFF
_EFF = _EFF.ravel()
_STRENGTH = np.full(_NC, -1, np.int64)
"""Trick strength (tables.STRENGTH, C2.2); -1 for a naming action or no card."""
_STRENGTH[:NUM_CARDS] = STRENGTH
_FOLLOW = np.zeros((_NT, _NT), U64)
"""``_FOLLOW[t, s]``: the cards following effective suit ``s`` with trump ``t`` (tables.FOLLOW, C2.4)."""
_FOLLOW[:4, :4] = FOLLOW
_FOLLOW = _FOLLOW.ravel()
_CARD_BIT = np.zeros(_NC, U64)
_CARD_BIT[:NUM_CARDS] = [1 << c for c in range(NUM_CARDS)]
_POINTS = np.zeros(_NC, np.int64)
"""Eyes of each card (deck.POINTS, C2.5); 0 off the cards."""
_POINTS[:NUM_CARDS] = POINTS
_NAME_MASK = U64(NAME_MASK)

# -- observation positions (OBS_SPEC / ORACLE_SPEC, as game.observe / game.oracle use them) ---------------

_off = OBS_SPEC.offset
_NBITS = _off("eyes")
"""The 0/1 parts come first (game.py asserts it); ``eyes``, ``tricks``, ``score`` follow, in this order."""
_SCALARS = slice(_NBITS, _off("score") + 2)
assert _off("tricks") == _off("eyes") + 2 and _off("score") == _off("tricks") + 2 == OBS_SPEC.size - 2
_HAND = _off("hand")
_TRICK = tuple(_off("trick", q) for q in range(4))
_PLAYED = tuple(_off("played", q) for q in range(4))
_FLAGS = _off("voids")
"""The small parts ``voids`` .. ``rules`` are gathered in one word put at this position (as game.py does)."""
assert all(_off("voids", q, s) == _FLAGS + 4 * q + s for q in range(4) for s in range(4)), "voids not 4 x 4"
assert _off("rules", 2) - _FLAGS < 64
_TRUMP_FLAG = np.zeros(_NT, U64)
"""``_TRUMP_FLAG[t]``: the trump one-hot bit, and for ``NAMING`` the naming bit instead."""
_TRUMP_FLAG[:4] = [1 << (_off("trump", t) - _FLAGS) for t in range(4)]
_TRUMP_FLAG[NAMING] = 1 << (_off("naming") - _FLAGS)
_SEAT_FLAG = np.array([[(1 << (_off("dealer", d) - _FLAGS)) | (1 << (_off("leader", ld) - _FLAGS))
                        for ld in range(4)] for d in range(4)], U64).ravel()
"""``_SEAT_FLAG[4 * dealer_offset + leader_offset]``: the dealer and leader one-hot bits."""
_EGGS_FLAG = np.array([1 << (_off("eggs", k) - _FLAGS) for k in range(4)], U64)
_EGGS_TOP = 3
"""The ``eggs`` part's last column stands for 3 eggs in a row or more."""
_RULES_SHIFT = tuple(_off("rules", i) - _FLAGS for i in range(3))
_Q = np.arange(4, dtype=np.int64)[:, None]
_OBS_ITEMS = ((_HAND, NUM_CARDS),) + tuple((o, NUM_CARDS) for o in _TRICK + _PLAYED) + ((_FLAGS, _NBITS - _FLAGS),)
"""The packed parts in the order ``_observe`` lists their values: (position, width) of the hand, the four trick
rows, the four played rows and the flags word."""


def _word_terms(items, nbits: int) -> tuple:
    """Per 64-bit word of the packed row, the ``(item, left, shift)`` terms ORed into it: ``item << shift`` when
    ``left``, else ``item >> shift`` (the high bits of an item that crosses into the next word)."""
    words = [[] for _ in range((nbits + 63) // 64)]
    for k, (pos, width) in enumerate(items):
        w, sh = divmod(pos, 64)
        assert width <= 64 and pos + width <= nbits
        words[w].append((k, True, U64(sh)))
        if sh + width > 64:
            words[w + 1].append((k, False, U64(64 - sh)))
    assert all(words), "a packed word with no part"
    return tuple(tuple(t) for t in words)


_OBS_WORDS = _word_terms(_OBS_ITEMS, _NBITS)
_ORACLE_HANDS = tuple(ORACLE_SPEC.offset("hands", q) for q in range(4))
_ORACLE_TO_MOVE = ORACLE_SPEC.offset("to_move")
_ORACLE_TO_MOVE_BIT = np.zeros(5, U64)
"""``[seat]``: the seat to move one-hot, relative to the word that holds it; ``[-1]`` (match over): nothing."""
_ORACLE_TO_MOVE_BIT[:4] = [1 << (ORACLE_SPEC.offset("to_move", q) - _ORACLE_TO_MOVE) for q in range(4)]


class BatchedQueensAndJacks(BatchedGame):
    """``B`` ``queens_and_jacks_v0`` matches of ``game``'s rules config (see the module docstring for the
    state); the contract is :class:`~kozel_env.vector.engine.BatchedGame`."""

    engine_id = "queens_and_jacks"
    STATE = ("hands", "played", "trick", "voids", "cards_in_trick", "trick_leader", "trick_eyes", "winning_card",
             "winning_seat", "led_suit", "counts", "trump", "dealer")
    points_lost = False
    """C2.5: the winners write points, ``seat_points`` is ``written`` of the seat's side."""

    def __init__(self, game: QueensAndJacksGame, num_envs: int, single_deal: bool = False):
        super().__init__(game, num_envs, single_deal)
        r = self.rules
        B = self.num_envs
        self._named = r.trumps == "named"
        self._hand_size = r.hand_size
        self._deck = np.array(bits(deck_mask(r.deck)), np.int64)
        # deal (C2.1): deck position -> seat offset from the dealer (1..4), packets from the dealer's left
        seat_of_pos = []
        for size in r.packets:
            for k in (1, 2, 3, 4):
                seat_of_pos += [k] * size
        self._deal_cols = tuple(np.flatnonzero(np.array(seat_of_pos) == k) for k in (1, 2, 3, 4))
        # hand_value (C2.5) as a table over the losers' eyes and tricks (the winners have the rest)
        total = points(deck_mask(r.deck))
        self._hand_value = np.array([[hand_value(total - le, le, lt) for lt in range(r.hand_size + 1)]
                                     for le in range(total + 1)], np.int64)
        self._rules_flags = U64(game.rules_bits)
        self._inv_target = 1.0 / r.target  # as game.observe computes it

        self.ledger = BatchedLedger(r.ledger_rules(), B)
        self.hands = np.zeros((B, 4), U64)
        self.played = np.zeros((B, 4), U64)
        self.trick = np.zeros((B, 4), U64)
        self.voids = np.zeros(B, U64)
        self.cards_in_trick = np.zeros(B, np.int64)
        self.trick_leader = np.zeros(B, np.int64)
        self.trick_eyes = np.zeros(B, np.int64)
        self.winning_card = np.full(B, NO_CARD, np.int64)
        self.winning_seat = np.zeros(B, np.int64)
        self.led_suit = np.full(B, NAMING, np.int64)
        self.counts = np.zeros((B, 4), np.int64)
        self.trump = np.zeros(B, np.int64)
        self.dealer = np.zeros(B, np.int64)
        self._obs_packer = Packer(OBS_SPEC, _NBITS)
        self._oracle_packer = Packer(ORACLE_SPEC, ORACLE_SPEC.size)
        self._sized()

    def _sized(self) -> None:
        """Scratch arrays sized by the batch (rebuilt for a :meth:`take` subset)."""
        B = self.num_envs
        self._rows4 = np.arange(B, dtype=np.int64) * 4
        self._rows2 = np.arange(B, dtype=np.int64) * 2
        self._scalars = np.zeros((_SCALARS.stop - _SCALARS.start, B))

    # -- matches and hands ---------------------------------------------------------------------------

    def start(self, idx: np.ndarray, seeds: np.ndarray) -> None:
        """New matches in games ``idx``: ``game.new_state(seed)`` (``setup={"single_deal": True}`` when the
        batch is single-deal): the Rng seeded, no scores or eggs, the first dealer drawn (``Rng.below(4)``)
        and the first hand dealt."""
        idx = np.asarray(idx, np.int64)
        if idx.size == 0:
            return
        self._new_match(idx, seeds)
        self._start_hand(idx)

    def _new_match(self, idx: np.ndarray, seeds: np.ndarray) -> None:
        self.rng[idx] = np.asarray(seeds, U64)
        self.ledger.start(idx)
        self.dealer[idx] = vrng.below(self.rng, idx, 4)

    def _start_hand(self, idx: np.ndarray) -> None:
        """Deal (C2.1: the shuffled deck in packets from the dealer's left, ``engine._deal``) and set the
        trump (C2.3: clubs, or to be named by the player left of the dealer, who leads)."""
        deck = vrng.shuffled(self.rng, idx, self._deck)
        cardbits = np.left_shift(U64(1), deck.astype(U64))
        d = self.dealer[idx]
        rows4 = idx * 4
        hands = self.hands.reshape(-1)
        for k, cols in zip((1, 2, 3, 4), self._deal_cols):
            hands[rows4 + ((d + k) & 3)] = np.bitwise_or.reduce(cardbits[:, cols], axis=1)
        self.played[idx] = 0
        self.trick[idx] = 0
        self.voids[idx] = 0
        self.cards_in_trick[idx] = 0
        self.trick_eyes[idx] = 0
        self.winning_card[idx] = NO_CARD
        self.winning_seat[idx] = -1
        self.led_suit[idx] = NAMING
        self.counts[idx] = 0
        first = (d + 1) & 3
        self.trick_leader[idx] = first
        self.current_player[idx] = first
        self.trump[idx] = NAMING if self._named else 0

    def apply(self, actions: np.ndarray) -> None:
        """One legal decision in every game: name the trump suit (C2.3; the namer then leads) or play a card
        (C2.4: a follower beats the winning card iff stronger in the same effective suit, a trump played
        when void beats a plain winning card or a lower trump); a fourth card completes the trick."""
        self.clear_outputs()
        a = np.asarray(actions, np.int64)
        p = self.current_player
        fp = self._rows4 + p
        hands = self.hands.reshape(-1)
        hand = hands[fp]
        n = self.cards_in_trick
        t = self.trump
        led = self.led_suit
        wc = self.winning_card
        t41 = t * _NC
        followed = (hand & _FOLLOW[t * _NT + led]) != 0
        eff_a = _EFF[t41 + a]
        eff_b = _EFF[t41 + wc]
        stronger = _STRENGTH[a] > _STRENGTH[wc]
        lead = n == 0
        beats = np.where(followed, (eff_b == led) & stronger, (eff_a == t) & ((eff_b != t) | stronger))
        beats |= lead
        self.winning_card = np.where(beats, a, wc)
        self.winning_seat = np.where(beats, p, self.winning_seat)
        self.led_suit = np.where(lead, eff_a, led)
        self.trick_leader = np.where(lead, p, self.trick_leader)
        showed = ~(lead | followed)  # showed out of the led suit (C2.4)
        self.voids |= np.left_shift(showed.astype(U64), ((p * 4 + led) & 15).astype(U64))
        bit = _CARD_BIT[a]
        hands[fp] = hand ^ bit
        played = self.played.reshape(-1)
        played[fp] |= bit
        self.trick.reshape(-1)[fp] = bit
        self.trick_eyes += _POINTS[a]
        if self._named:
            naming = t == NAMING
            if naming.any():
                self.trump = np.where(naming, a - NAME_BASE, t)
                playing = ~naming
                n = n + playing
                self.cards_in_trick = n
                self.current_player = np.where(naming, p, (p + 1) & 3)
                done = np.flatnonzero(n == 4)
                if done.size:
                    self._finish_tricks(done)
                return
        n = n + 1
        self.cards_in_trick = n
        self.current_player = (p + 1) & 3
        done = np.flatnonzero(n == 4)
        if done.size:
            self._finish_tricks(done)

    def _finish_tricks(self, idx: np.ndarray) -> None:
        """Tricks complete in games ``idx`` (C2.4): the winner's side takes the eyes and the trick and the
        winner leads next; a hand whose tricks are all played is scored."""
        w = self.winning_seat[idx]
        side = idx * 4 + (w & 1)
        counts = self.counts.reshape(-1)
        counts[side] += self.trick_eyes[idx]
        counts[side + 2] += 1
        self.trick_eyes[idx] = 0
        self.cards_in_trick[idx] = 0
        self.trick[idx] = 0
        self.trick_leader[idx] = w
        self.current_player[idx] = w
        over = self.counts[idx, 2] + self.counts[idx, 3] == self._hand_size  # everybody is out of cards
        if over.any():
            self._finish_hands(idx[over])

    def _finish_hands(self, idx: np.ndarray) -> None:
        """Score the hands in games ``idx`` (C2.5) with the ledger (60:60 is eggs: the next hand counts
        double), then end the match (C2.6, ``_end_match``) or deal the next hand, the deal passing left."""
        ledger = self.ledger
        k = len(idx)
        ar = np.arange(k)
        eyes = self.counts[idx, :2]
        tricks = self.counts[idx, 2:]
        eggs = eyes[:, 0] == eyes[:, 1]
        winner = (eyes[:, 1] > eyes[:, 0]).astype(np.int64)
        loser = 1 - winner
        raw = self._hand_value[eyes[ar, loser], tricks[ar, loser]]
        winners = np.zeros((k, 2), bool)
        winners[ar, winner] = ~eggs
        losers = np.zeros((k, 2), bool)
        losers[ar, loser] = ~eggs
        written = np.zeros((k, 2), np.int64)
        if eggs.any():
            ledger.record_eggs(idx[eggs])
        dec = ~eggs
        if dec.any():
            amounts = np.zeros((k, 2), np.int64)
            amounts[ar, winner] = raw
            written[dec] = ledger.settle(idx[dec], amounts[dec], winners[dec])
        self.end_deal_outputs(idx, written, ledger.scores[idx], winners, eggs)
        at = ledger.at_target(idx)
        target = at.any(axis=1)
        if target.any():  # C2.6: the first side to the target wins, the other side are the goats
            first = np.argmax(at, axis=1)
            winners[target] = False
            winners[ar[target], first[target]] = True
            losers[target] = ~winners[target]
        ends = target | self.single_deal
        deal = idx[~ends]
        self.dealer[deal] = (self.dealer[deal] + 1) & 3
        if ends.any():
            e = idx[ends]
            self.end_match_outputs(e, winners[ends], losers[ends])
            self.current_player[e] = -1
            if self.autoreset:  # the next match, dealt with the next hands of the others in one pass
                self._new_match(e, self.next_seeds(e))
                deal = idx
        if len(deal):
            self._start_hand(deal)

    # -- views ---------------------------------------------------------------------------------------

    def legal_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """``int8[B, 40]``: ``legal_actions()`` of every game (C2.4: follow the led effective suit if
        possible, else any card; C2.3: the four naming actions while the trump suit is to be named)."""
        if out is None:
            out = np.empty((self.num_envs, self.num_actions), np.int8)
        p = self.current_player
        hand = self.hands.reshape(-1)[self._rows4 + p]
        f = hand & _FOLLOW[self.trump * _NT + self.led_suit]
        m = np.where((self.cards_in_trick != 0) & (f != 0), f, hand)
        if self._named:
            m = np.where(self.trump == NAMING, _NAME_MASK, m)
        self.legal_words = m[:, None]
        unpack_mask(self.legal_words, self.num_actions, out)
        return out

    def observe(self, out: np.ndarray | None = None) -> np.ndarray:
        """``float32[B, 366]``: ``game.observe(state, current_player)`` of every game."""
        return self._observe(self.current_player, out)

    def _observe(self, r: np.ndarray, out: np.ndarray | None) -> np.ndarray:
        """Every game's observation by seat ``r[b]`` (game.observe: seat offsets from the observer)."""
        if out is None:
            out = np.empty((self.num_envs, self.obs_size), np.float32)
        pk = self._obs_packer
        rows4 = self._rows4
        rel = rows4 + ((r + _Q) & 3)  # [q, b]: game b's seat at offset q from r[b] (flat, 4 per game)
        hand = self.hands.take(rel[0])
        trick = self.trick.take(rel)
        played = self.played.take(rel)
        sh = (r * 4 & 15).astype(U64)
        v = self.voids
        flags = ((v >> sh) | (v << (U64(16) - sh))) & U64(0xFFFF)  # seat r's voids first
        flags |= _TRUMP_FLAG.take(self.trump)
        flags |= _SEAT_FLAG.take(((self.dealer - r) & 3) * 4 + ((self.trick_leader - r) & 3))
        flags |= _EGGS_FLAG.take(np.minimum(self.ledger.eggs_streak, _EGGS_TOP))
        flags |= self._rules_flags
        values = (hand, *trick, *played, flags)
        words = pk.ensure(self.num_envs)
        for w, terms in enumerate(_OBS_WORDS):  # each word of the packed row ORed from its parts at once
            acc = None
            for k, left, shift in terms:
                x = values[k] << shift if left else values[k] >> shift
                acc = x if acc is None else acc | x
            words[:, w] = acc
        pk.unpack(out)
        s = r & 1
        own, other = rows4 + s, rows4 + (s ^ 1)  # counts columns: eyes of sides 0 1, tricks of sides 0 1
        counts = self.counts
        sc = self._scalars  # computed in float64 as game.observe does, cast once into the rows
        np.divide(counts.take(own), TOTAL_EYES, out=sc[0])
        np.divide(counts.take(other), TOTAL_EYES, out=sc[1])
        np.divide(counts.take(own + 2), TRICKS_SCALE, out=sc[2])
        np.divide(counts.take(other + 2), TRICKS_SCALE, out=sc[3])
        scores = self.ledger.scores
        it = self._inv_target
        own, other = self._rows2 + s, self._rows2 + (s ^ 1)
        np.minimum(scores.take(own) * it, 1.0, out=sc[4])
        np.minimum(scores.take(other) * it, 1.0, out=sc[5])
        out[:, _SCALARS] = sc.T
        return out

    def oracle(self, out: np.ndarray | None = None) -> np.ndarray:
        """``float32[B, 514]``: ``game.oracle(state)`` of every game (seat 0's observation, every hand by
        absolute seat, the seat to move)."""
        if out is None:
            out = np.empty((self.num_envs, self.oracle_size), np.float32)
        pk = self._oracle_packer
        pk.clear(self.num_envs)
        for q in range(4):
            pk.put_at(self.hands[:, q], _ORACLE_HANDS[q], NUM_CARDS)
        pk.put_at(_ORACLE_TO_MOVE_BIT[self.current_player], _ORACLE_TO_MOVE, 4)
        pk.unpack(out)
        out[:, :self.obs_size] = self._observe(np.zeros(self.num_envs, np.int64), None)
        return out
