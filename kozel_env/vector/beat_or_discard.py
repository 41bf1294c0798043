"""``beat_or_discard_v0`` batched (issue 34): ``B`` matches of one rules config stepped together, bit for bit
the scalar engine :mod:`kozel_env.cards.beat_or_discard` (seed 002, RULES C1).

Design: the card game's moves are sets built card by card (leads of 1-6 cards, beating sets found by
suit-wise matching, discards, equalising, claims that take a round back, C1.3-C1.13), and almost every
decision of random play ends in such a set's confirmation or a forced one (about 80%: a pick is followed
by a forced ``lead`` / ``beat`` / ``discard`` more often than not), whose consequences (the turn order of
C1.4-C1.7, the automatic round end, claims, the trick, equalising, refill, trump from the bottom card, the
score and the match end) are the bulk of the rules. So each game keeps its scalar
:class:`~kozel_env.cards.beat_or_discard.engine.BeatOrDiscardState` (``states``, an object array) and a
decision is that state's own ``apply_action`` -- identical by construction, the scalar tables and code
being the only rules. What is batched is everything around it: the masks (the scalar ``legal_mask`` ints
packed into ``legal_words`` and unpacked in one call), the observations (the scalar builder's packed int
per game, unpacked for the whole batch in one call, every position from the scalar ``obs_spec``), the deal
and match outputs (from the scalar results), the seeds and the auto-reset.

Two cases of the scalar engine the batch treats specially:

* a match over at its set-up (four aces or four sixes dealt, C1.14, before any decision) is skipped: the
  game starts its next match from the next seed of its stream at once, as the AEC env's ``reset()``
  called again would (nothing is reported for it);
* a decision that ends a game and then the next deal by four of a kind (C1.14, which ends the match) ends
  two deals: the outputs describe the last one (the four of a kind), as the vector env reports one deal
  per step; ``step_points`` (the ``reward="points"`` rewards) sums both deals' points, as the AEC env does.
"""
from __future__ import annotations

import copy

import numpy as np

from ..cards.beat_or_discard.game import BeatOrDiscardGame
from .bits import unpack_mask
from .engine import BatchedGame


class _PackedSpec:
    """Stands for the scalar ``obs_spec`` in a copy of the game: ``unpack_bits`` returns the packed int, so
    that the scalar builder's ints of a whole batch are unpacked in one call."""

    @staticmethod
    def unpack_bits(packed: int, count: int | None = None) -> int:
        return packed


class BatchedBeatOrDiscard(BatchedGame):
    """``B`` ``beat_or_discard_v0`` matches of ``game``'s rules config (module docstring: the design); the
    contract is :class:`~kozel_env.vector.engine.BatchedGame`."""

    engine_id = BeatOrDiscardGame.engine_id
    points_lost = True
    """C1.1: penalty points; ``seat_points`` is minus ``written`` of the seat's side (the scalar results')."""
    STATE = ("states",)
    """The scalar states (the ledger is theirs); ``state_nbytes`` counts only the reference to each."""
    LEDGERS = ()

    def __init__(self, game: BeatOrDiscardGame, num_envs: int, single_deal: bool = False):
        super().__init__(game, num_envs, single_deal)
        self.states = np.full(self.num_envs, None, object)
        self.current_player[:] = -1
        self._setup = {"single_deal": True} if self.single_deal else None
        self._packed_game = copy.copy(game)
        self._packed_game.obs_spec = _PackedSpec()
        self._obs_bytes = (self.obs_size + 7) // 8
        self._legal_ints = np.zeros(self.num_envs, np.uint64)

    def _sized(self) -> None:
        self._legal_ints = np.zeros(self.num_envs, np.uint64)

    # -- matches -----------------------------------------------------------------------------------------
    def start(self, idx: np.ndarray, seeds: np.ndarray) -> None:
        """New matches in games ``idx``: ``game.new_state(seed)`` (a match over at its set-up is skipped,
        see the module docstring)."""
        idx = np.asarray(idx, np.int64)
        seeds = np.asarray(seeds, np.uint64)
        new_state, setup, states, cp = self.game.new_state, self._setup, self.states, self.current_player
        for k in range(len(idx)):
            b = int(idx[k])
            st = new_state(int(seeds[k]), setup)
            while st.terminal:  # over before any decision (C1.14): the next match of the stream
                st = new_state(int(self.next_seeds(np.array([b]))[0]), setup)
            states[b] = st
            cp[b] = st.current_player

    def apply(self, actions: np.ndarray) -> None:
        """``apply_action(actions[b])`` in every game (its forced steps included); the deal and match
        outputs from the scalar results; a finished match restarts at once with ``autoreset``."""
        self.clear_outputs()
        states, cp = self.states, self.current_player
        ended = []
        over = []
        earlier = []  # (game, deals ended): a step that ended more than one deal
        acts = np.asarray(actions, np.int64).tolist()
        for b in range(self.num_envs):
            st = states[b]
            before = st.deals_played
            st.apply_action(acts[b])
            if st.deals_played != before:
                ended.append(b)
                if st.deals_played - before > 1:
                    earlier.append((b, st.deals_played - before))
                if st.terminal:
                    over.append(b)
            cp[b] = st.current_player
        if ended:
            self._deal_outputs(np.array(ended, np.int64))
        for b, k in earlier:  # the reward of ``reward="points"`` holds every deal the step ended, as the AEC env's
            for res in states[b].results[-k:-1]:
                self.step_points[b] += res["seat_points"]
        if over:
            idx = np.array(over, np.int64)
            self._match_outputs(idx)
            if self.autoreset:
                self.start(idx, self.next_seeds(idx))

    def _deal_outputs(self, idx: np.ndarray) -> None:
        S = self.num_sides
        written = np.zeros((len(idx), S), np.int64)
        scores = np.zeros((len(idx), S), np.int64)
        winners = np.zeros((len(idx), S), bool)
        eggs = np.zeros(len(idx), bool)
        for k, b in enumerate(idx.tolist()):
            res = self.states[b].last_result
            written[k] = res["written"]
            scores[k] = res["scores"]
            winners[k, res["winners"]] = True
            eggs[k] = res["eggs"]
        self.end_deal_outputs(idx, written, scores, winners, eggs)

    def _match_outputs(self, idx: np.ndarray) -> None:
        S = self.num_sides
        winners = np.zeros((len(idx), S), bool)
        losers = np.zeros((len(idx), S), bool)
        for k, b in enumerate(idx.tolist()):
            mr = self.states[b].match_result
            winners[k, mr["winners"]] = True
            losers[k, mr["losers"]] = True
        self.end_match_outputs(idx, winners, losers)

    # -- views -------------------------------------------------------------------------------------------
    def legal_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """``int8[B, 40]``: ``legal_actions()`` of every game (also packed in ``legal_words``)."""
        if out is None:
            out = np.empty((self.num_envs, self.num_actions), np.int8)
        ints = self._legal_ints
        ints[:] = [st.legal_mask() for st in self.states]
        self.legal_words = ints[:, None].copy()
        unpack_mask(self.legal_words, self.num_actions, out)
        return out

    def observe(self, out: np.ndarray | None = None) -> np.ndarray:
        """``game.observe(state, current_player)`` of every game (seat 0 where a match is over): the scalar
        builder's packed ints, unpacked in one call."""
        if out is None:
            out = np.empty((self.num_envs, self.obs_size), np.float32)
        observe, nb = self._packed_game.observe, self._obs_bytes
        raw = b"".join(observe(st, max(st.current_player, 0)).to_bytes(nb, "little") for st in self.states)
        packed = np.frombuffer(raw, np.uint8).reshape(self.num_envs, nb)
        out[:] = np.unpackbits(packed, axis=1, count=self.obs_size, bitorder="little")
        return out

    def oracle(self, out: np.ndarray | None = None) -> np.ndarray:
        """``game.oracle(state)`` of every game."""
        if out is None:
            out = np.empty((self.num_envs, self.oracle_size), np.float32)
        oracle = self.game.oracle
        for b, st in enumerate(self.states):
            out[b] = oracle(st)
        return out

    def move_names(self, b: int, actions: list) -> list:
        """The moves ``actions`` of game ``b`` as ``"id=notation"`` (its state names lead / beat, pass / done)."""
        st = self.states[b]
        return [f"{a}={self.game.action_to_string(st, a)}" for a in actions]
