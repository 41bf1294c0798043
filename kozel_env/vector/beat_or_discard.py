"""``beat_or_discard_v0`` batched (issue 34): ``B`` matches of one rules config stepped together, bit for bit
the scalar engine :mod:`kozel_env.cards.beat_or_discard` (seed 002, RULES C1).

Design (a hybrid): the state of every game is held as arrays (struct of arrays, the scalar field names:
``hands``, ``table_up``, ``table_down``, ``known``, ``laid_down``, ``claims`` per seat; ``piles``,
``piles_up``, ``tricks``, ``scores`` per side; ``top``, ``lead``, ``phase``, ``picked``, ``owed``, ``offered``,
the legal beating sets ``beats``, the stock in draw order ``stock_seq`` ... per game; card and action sets as
int64 masks). The moves of a game -- the picks, the lead, the beats and discards with the turn order that
follows them (C1.3-C1.7, C1.15), the claim question before the lead (C1.13), every forced step
(:mod:`.beat_or_discard_moves`), the end of a round: the trick, equalising, the refill with the bottom card
shown (C1.8-C1.10, :mod:`.beat_or_discard_round`) -- are array operations over all games at once; the
observations and masks are built from the arrays (:mod:`.beat_or_discard_views`). The rarer rest -- the end
of a game that ends a solo or single-deal match, puts a player out, or ends a match without auto-reset
(C1.1, C1.12, C1.16, C1.17: the other game ends, a pairs match end with auto-reset, the next deal and a new
match are arrays, :mod:`.beat_or_discard_deal`) and four of a kind after a refill or a deal (C1.14) -- is
the scalar engine's own code: each game keeps a
scalar :class:`~kozel_env.cards.beat_or_discard.engine.BeatOrDiscardState` (``states``; a match started in
arrays gets it at its first hand-off, from its seed ``match_seed``), and a game whose move reaches one of
those points is *handed off*: its arrays are written into its scalar state, the scalar method is called
where the scalar ``apply_action`` would call it, then the scalar ``_run_forced``, and the state is read back
into the arrays. The scalar state is the source of truth at those points, the arrays in between. A pairs
match that ends with auto-reset is followed at once by the next match of its stream, dealt in the same
array pass as the other games' next deals.

The moves of a round have two implementations over the same arrays, bit for bit the same: the compiled step
(:mod:`.beat_or_discard_jit`: one numba loop over the games, each game's move, forced steps and round end in
scalar style, C1.3-C1.10, C1.13, C1.15; the next deal, C1.9-C1.11, C1.14, :mod:`.beat_or_discard_jit_deal`; the
observation, :mod:`.beat_or_discard_jit_views`) and the numpy array moves above. The compiled step is used
where numba is importable (the optional extra ``fast``: ``pip install kozel_env[fast]``) unless the
environment variable ``KOZEL_JIT=0`` is set when the engine is built; the argument ``use_jit`` (True /
False) overrides both (True without numba raises ImportError). The score at a game's end
(:func:`.beat_or_discard_deal.end_game`) and the hand-offs stay as above on both paths; ``jit`` says which
path an engine takes. The kernels compile at their first call (~85 s on one busy core) into numba's cache
(``__pycache__``; a later process loads them in ~1 s).

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
import os

import numpy as np

from ..cards.beat_or_discard.game import BeatOrDiscardGame
from ..cards.beat_or_discard.setup import _match as new_match
from ..cards.beat_or_discard.tables import PH_OVER
from . import beat_or_discard_deal as deals
from . import beat_or_discard_jit as jit
from . import beat_or_discard_jit_deal as jit_deal
from . import beat_or_discard_jit_views as jit_views
from . import beat_or_discard_moves as moves
from . import beat_or_discard_round as rounds
from . import beat_or_discard_views as views
from .bits import unpack_mask
from .engine import BatchedGame

I64 = np.int64
SEAT_LISTS = ("hands", "table_up", "table_down", "known", "laid_down", "claims")
"""Per-seat fields of the scalar state held as ``int64[B, n]``."""
SIDE_LISTS = ("piles", "piles_up", "tricks")
"""Per-side fields (with the ledger's ``scores``) held as ``int64[B, S]``."""
GAME_FIELDS = ("top", "lead", "revealed", "locked", "acted", "out", "trump", "phase", "current_player", "picked",
               "owed", "offered", "leader", "last_beater", "best_claim", "claim_stop", "first_game",
               "diamond_leader", "stock", "terminal", "last_taker", "equalise_taker", "equalise_to",
               "deals_played")
"""Per-game fields of the scalar state held as ``int64[B]`` (with the ledger's ``eggs`` streak)."""
MOVED = ("top", "lead", "locked", "acted", "best_claim", "leader", "last_beater", "phase", "current_player",
         "picked", "owed", "offered", "revealed", "trump", "stock", "claim_stop", "diamond_leader", "last_taker",
         "equalise_taker", "equalise_to", "first_game", "deals_played")
"""The per-game fields the array moves change (written back before a hand-off)."""


def use_jit_default() -> bool:
    """The compiled step unless ``KOZEL_JIT=0`` (read when an engine is built), where numba is importable;
    ``KOZEL_JIT`` unset, empty or ``1``: the compiled step where numba is importable; any other value is refused,
    naming it."""
    value = os.environ.get("KOZEL_JIT", "1")
    if value not in ("", "0", "1"):
        raise ValueError(f"KOZEL_JIT={value!r}: use 0 (the numpy path) or 1 / unset (the compiled step where numba "
                         "is installed)")
    return value != "0" and jit.AVAILABLE


class _PackedSpec:
    """Stands for the scalar ``obs_spec`` in a copy of the game: ``unpack_bits`` returns the packed int, so
    that the scalar builder's ints of a small batch are unpacked in one call."""

    @staticmethod
    def unpack_bits(packed: int, count: int | None = None) -> int:
        return packed


class BatchedBeatOrDiscard(BatchedGame):
    """``B`` ``beat_or_discard_v0`` matches of ``game``'s rules config (module docstring: the design); the
    contract is :class:`~kozel_env.vector.engine.BatchedGame`."""

    engine_id = BeatOrDiscardGame.engine_id
    points_lost = True
    """C1.1: penalty points; ``seat_points`` is minus ``written`` of the seat's side (the scalar results')."""
    STATE = (("states", "match_seed", "scores", "eggs", "beats", "handoff", "handoff_arg", "stock_seq", "stock_pos",
              "mask", "mask_ok") + SEAT_LISTS + SIDE_LISTS + tuple(f for f in GAME_FIELDS if f != "current_player"))
    LEDGERS = ()
    ARRAYS_FROM = 256
    """Batches of this many games or more step in arrays; smaller ones (where the array moves' fixed cost per
    step outweighs them) step every game's scalar state, which is then the source of truth (measured: the two
    ways break even near 256 games, ~54k decisions/s each; scalar ahead at 192, arrays ~30% ahead at 320)."""

    JIT_ARRAYS_FROM = 1
    """The same for the compiled step (:mod:`.beat_or_discard_jit`), whose fixed cost per step is small: it
    steps every batch (measured with the random player, two runs each: 1 game ~5.0k / 5.3k decisions/s
    against the scalar states' ~5.0k / 4.1k; 2 games ~9.2k / 9.5k against ~6.8k / 9.5k; 4 games ~17.7k /
    19.1k against ~13.3k / 16.3k; 64 games ~2.5x)."""

    def __init__(self, game: BeatOrDiscardGame, num_envs: int, single_deal: bool = False, use_jit: bool | None = None):
        super().__init__(game, num_envs, single_deal)
        self.jit = use_jit_default() if use_jit is None else bool(use_jit)
        if self.jit and not jit.AVAILABLE:
            raise ImportError("the compiled step needs numba: pip install kozel_env[fast] (or KOZEL_JIT=0)")
        B, n, S = self.num_envs, self.num_players, self.num_sides
        self.states = np.full(B, None, object)
        self.match_seed = np.zeros(B, np.uint64)
        for name in SEAT_LISTS:
            setattr(self, name, np.zeros((B, n), I64))
        for name in SIDE_LISTS + ("scores",):
            setattr(self, name, np.zeros((B, S), I64))
        for name in GAME_FIELDS + ("eggs", "handoff", "handoff_arg", "stock_pos"):
            setattr(self, name, np.zeros(B, I64))
        self.stock_seq = np.zeros((B, 36), np.int8)  # card ids 0..35 (int8 keeps a game's state under 1 KiB)
        self.beats = np.zeros((B, moves.MAX_SETS), I64)
        self.mask = np.zeros(B, I64)
        self.mask_ok = np.zeros(B, bool)
        self.current_player[:] = -1
        self.phase[:] = PH_OVER
        self.terminal[:] = 1
        self.claim_floor = self.rules.claim_floor
        self._setup = {"single_deal": True} if self.single_deal else None
        self.obs_layout = views.obs_layout(self)
        self.obs_words = views.Words(self)
        self.arrays = self.num_envs >= (self.JIT_ARRAYS_FROM if self.jit else self.ARRAYS_FROM)
        if self.arrays:
            moves._tables()
            if self.jit:
                self._jit_tables, self._jit_scratch = jit.tables(self), jit.scratch()
                self._jit_obs = jit_views.Plan(self)
        self._packed_game = copy.copy(game)
        self._packed_game.obs_spec = _PackedSpec()

    # -- the scalar states ---------------------------------------------------------------------------------
    def _read(self, idx: np.ndarray) -> None:
        """The arrays of games ``idx`` from their scalar states."""
        sts = self.states[idx].tolist()
        if not sts:
            return
        n, S = self.num_players, self.num_sides
        seats = np.array([st.hands + st.table_up + st.table_down + st.known + st.laid_down + st.claims
                          for st in sts], I64).reshape(len(sts), len(SEAT_LISTS), n)
        for k, name in enumerate(SEAT_LISTS):
            getattr(self, name)[idx] = seats[:, k]
        sides = np.array([st.piles + st.piles_up + st.tricks + st.ledger.scores for st in sts],
                         I64).reshape(len(sts), 4, S)
        self.piles[idx], self.piles_up[idx], self.tricks[idx] = sides[:, 0], sides[:, 1], sides[:, 2]
        self.scores[idx] = sides[:, 3]
        names = GAME_FIELDS
        rows = np.array([[getattr(st, f) for f in names] + [st.ledger.eggs_streak] for st in sts], I64)
        for k, name in enumerate(names):
            getattr(self, name)[idx] = rows[:, k]
        self.eggs[idx] = rows[:, -1]
        self.rng[idx] = np.array([st.rng.s for st in sts], np.uint64)
        beats = np.zeros((len(sts), moves.MAX_SETS), I64)
        seq = np.zeros((len(sts), 36), I64)
        for k, st in enumerate(sts):
            bs = st.legal_beats
            if bs:
                beats[k, :len(bs)] = bs
            seq[k, :len(st.stock_seq)] = st.stock_seq
        self.beats[idx] = beats
        self.stock_seq[idx] = seq
        self.stock_pos[idx] = 0
        self.mask_ok[idx] = False

    def _write(self, idx: np.ndarray) -> None:
        """The scalar states of games ``idx`` from the arrays the moves change."""
        seats = np.concatenate([getattr(self, name)[idx] for name in SEAT_LISTS], axis=1).tolist()
        sides = np.concatenate([getattr(self, name)[idx] for name in SIDE_LISTS], axis=1).tolist()
        rows = np.stack([getattr(self, f)[idx] for f in MOVED], axis=1).tolist()
        beats = self.beats[idx].tolist()
        seqs = self.stock_seq[idx].tolist()
        ends = (self.stock_pos[idx] + views.pc(self.stock[idx])).tolist()
        ledgers = np.concatenate([self.scores[idx], self.eggs[idx, None]], axis=1).tolist()
        n, S = self.num_players, self.num_sides
        for st, sr, sd, row, bs, sq, pos, end, led, s in zip(self._states(idx), seats, sides, rows, beats,
                                                             seqs, self.stock_pos[idx].tolist(), ends, ledgers,
                                                             self.rng[idx].tolist()):
            (st.hands, st.table_up, st.table_down, st.known, st.laid_down,
             st.claims) = (sr[k * n:(k + 1) * n] for k in range(len(SEAT_LISTS)))
            st.piles, st.piles_up, st.tricks = sd[:S], sd[S:2 * S], sd[2 * S:]
            (st.top, st.lead, st.locked, st.acted, st.best_claim, st.leader, st.last_beater, st.phase,
             st.current_player, st.picked, st.owed, st.offered, st.revealed, st.trump, st.stock, st.claim_stop,
             st.diamond_leader, st.last_taker, st.equalise_taker, st.equalise_to, first, st.deals_played) = row
            st.first_game = bool(first)
            st.rng.s = s
            ledger = st.ledger
            ledger.scores, ledger.eggs_streak = led[:S], led[S]
            ledger.opened = [v > 0 for v in ledger.scores]  # scores only grow: opened and wrote are "above 0"
            ledger.wrote = ledger.opened[:]
            st.legal_beats = tuple(b for b in bs if b)
            st.stock_seq = tuple(sq[pos:end])
            st.legal_cache = -1
            st.events = []

    # -- matches -----------------------------------------------------------------------------------------
    def start(self, idx: np.ndarray, seeds: np.ndarray) -> None:
        """New matches in games ``idx``: ``game.new_state(seed)`` (a match over at its set-up is skipped,
        see the module docstring)."""
        idx = np.asarray(idx, I64)
        seeds = np.asarray(seeds, np.uint64)
        if self.arrays:
            self._new_matches(idx, seeds)
            return
        new_state, setup, states = self.game.new_state, self._setup, self.states
        for k in range(len(idx)):
            b = int(idx[k])
            st = new_state(int(seeds[k]), setup)
            while st.terminal:  # over before any decision (C1.14): the next match of the stream
                st = new_state(int(self.next_seeds(np.array([b]))[0]), setup)
            states[b] = st
        self.handoff[idx] = 0
        self.current_player[idx] = [st.current_player for st in states[idx]]

    def _new_matches(self, idx: np.ndarray, seeds: np.ndarray) -> None:
        """``start`` in arrays: the match situation and its deal in arrays (:func:`.beat_or_discard_deal.new_matches`),
        then the forced steps (the scalar ``new_state`` ends with ``_run_forced``)."""
        while len(idx):
            deals.new_matches(self, idx, seeds)
            over = self.handoff[idx] == moves.MATCH_OVER  # over before any decision: the next match of the stream
            live, idx = idx[~over], idx[over]
            seeds = self.next_seeds(idx)
            self._settle(live)
            handed = live[self.handoff[live] != 0]
            if len(handed):
                self._continue(handed)

    def match_states(self, idx: np.ndarray, seeds: np.ndarray) -> None:
        """New matches in games ``idx``: their scalar states are made when first needed (:meth:`_states`)."""
        self.states[idx] = None
        self.match_seed[idx] = seeds

    def _states(self, idx: np.ndarray) -> list:
        """The scalar states of games ``idx``; a match started in arrays gets its state here, at its first
        hand-off: only its match situation (setup._match of its seed; the rest is written by :meth:`_write`)."""
        states = self.states
        sts = states[idx].tolist()
        if None in sts:
            rules, setup = self.rules, self._setup or {}
            for k, b in enumerate(idx.tolist()):
                if sts[k] is None:
                    sts[k] = states[b] = new_match(rules, int(self.match_seed[b]), setup)
        return sts

    def apply(self, actions: np.ndarray) -> None:
        """One decision in every game (its forced steps included): the array moves, then the hand-offs to
        the scalar code (a small batch: the scalar ``apply_action`` of each game); the deal and match outputs
        from the scalar results; a finished match restarts at once with ``autoreset``."""
        self.clear_outputs()
        acts = np.asarray(actions, I64)
        if not self.arrays:
            self._apply_scalar(acts.tolist())
            return
        idx = (self.phase != PH_OVER).nonzero()[0]
        handoff = self.handoff
        handoff[:] = 0
        self.mask_ok[:] = False
        if self.jit:
            jit.steps(jit.state(self), idx, acts[idx], self._jit_tables, self._jit_scratch)
            self._game_ends()
        else:
            live, a = moves.picks(self, idx, acts[idx])
            moves.apply(self, live, a)
            self._settle(live)
        over = (handoff == moves.MATCH_OVER).nonzero()[0]  # the outputs recorded: the next match
        if len(over):
            handoff[over] = 0
            self.start(over, self.next_seeds(over))
        handed = handoff.nonzero()[0]
        if len(handed):
            self._continue(handed)

    def _settle(self, live: np.ndarray) -> None:
        """Games ``live`` moved on to their next real choice, all at once pass by pass: the ends of rounds
        and the equalising (handed off by the moves), then one forced step (:func:`.beat_or_discard_moves.forced`);
        the other hand-offs stay for the scalar code."""
        handoff = self.handoff
        if self.jit:
            self._forced(live)
            self._game_ends()
            return
        while len(live):
            ho = handoff[live]
            ends, eqs = live[ho == moves.END_ROUND], live[ho == moves.EQUALISE]
            if len(ends) or len(eqs):
                handoff[ends] = 0
                handoff[eqs] = 0
                rounds.round_ends(self, ends, eqs, self.handoff_arg[eqs])
                live = live[handoff[live] == 0]
            elif ho.any():
                live = live[ho == 0]
            live = moves.forced(self, live)

    def _forced(self, idx: np.ndarray) -> None:
        """The compiled step's forced steps (engine._run_forced) in games ``idx``."""
        jit.steps(jit.state(self), idx, np.full(len(idx), -1, I64), self._jit_tables, self._jit_scratch)

    def jit_deals(self, idx: np.ndarray, first: np.ndarray) -> None:
        """:func:`.beat_or_discard_deal.deal` compiled (:mod:`.beat_or_discard_jit_deal`)."""
        jit_deal.deals(jit.state(self), self.rng, np.asarray(idx, I64), np.asarray(first, bool), self._jit_tables,
                       deals.LOWEST_DIAMOND, np.zeros(36, I64), self._jit_scratch)

    def _game_ends(self) -> None:
        """The compiled step's games at the end of a game (``GAME_END``): the array ``end_game`` (the score,
        the next deal, or a hand-off of the match end), then the new deals' forced steps, until none is left."""
        handoff = self.handoff
        ends = (handoff == jit.GAME_END).nonzero()[0]
        while len(ends):
            handoff[ends] = 0
            deals.end_game(self, ends)
            dealt = ends[handoff[ends] == 0]
            self._forced(dealt)
            ends = dealt[handoff[dealt] == jit.GAME_END]

    def _apply_scalar(self, acts: list) -> None:
        """A small batch: ``apply_action`` of every game's scalar state (the source of truth in this mode)."""
        states, cp = self.states, self.current_player
        seen = []
        for b in range(self.num_envs):
            st = states[b]
            if st.terminal:
                continue
            before = st.deals_played
            st.apply_action(acts[b])
            cp[b] = st.current_player
            if st.deals_played != before:
                seen.append((b, before))
        self._outputs(seen)

    def _continue(self, idx: np.ndarray) -> None:
        """The scalar code from where the array moves handed games ``idx`` off, then the outputs."""
        self._write(idx)
        states = self.states
        seen = []
        for b, kind in zip(idx.tolist(), self.handoff[idx].tolist()):
            st = states[b]
            before = st.deals_played
            if kind == moves.FOUR:
                st._four_check()
            else:
                st._end_game()
            st._run_forced()
            if st.deals_played != before:
                seen.append((b, before))
        self._read(idx)
        self._outputs(seen)

    def _outputs(self, seen: list) -> None:
        """The outputs of the games ``b`` of ``seen`` (``(b, deals played before the step)``) whose step ended
        a deal; the auto-reset of those whose match is over."""
        states = self.states
        ended = [b for b, _ in seen]
        earlier = [(b, states[b].deals_played - k) for b, k in seen if states[b].deals_played - k > 1]
        over = [b for b in ended if states[b].terminal]
        if ended:
            self._deal_outputs(np.array(ended, I64))
        for b, k in earlier:  # the reward of ``reward="points"`` holds every deal the step ended, as the AEC env's
            for res in states[b].results[-k:-1]:
                self.step_points[b] += res["seat_points"]
        if over:
            done = np.array(over, I64)
            self._match_outputs(done)
            if self.autoreset:
                self.start(done, self.next_seeds(done))

    def _deal_outputs(self, idx: np.ndarray) -> None:
        S = self.num_sides
        written = np.zeros((len(idx), S), I64)
        scores = np.zeros((len(idx), S), I64)
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
        if self.arrays:
            stale = (~self.mask_ok).nonzero()[0]
            self.mask[stale] = views.masks(self, stale)
            self.mask_ok[stale] = True
            m = self.mask.astype(np.uint64)
        else:
            m = np.array([st.legal_mask() for st in self.states], np.uint64)
        self.legal_words = m[:, None]
        unpack_mask(self.legal_words, self.num_actions, out)
        return out

    def observe(self, out: np.ndarray | None = None) -> np.ndarray:
        """``game.observe(state, current_player)`` of every game (seat 0 where a match is over)."""
        if out is None:
            out = np.empty((self.num_envs, self.obs_size), np.float32)
        if self.arrays:
            return self._jit_obs.observe(self, out) if self.jit else views.observe(self, out)
        observe, nb = self._packed_game.observe, (self.obs_size + 7) // 8
        raw = b"".join(observe(st, max(st.current_player, 0)).to_bytes(nb, "little") for st in self.states)
        packed = np.frombuffer(raw, np.uint8).reshape(self.num_envs, nb)
        out[:] = np.unpackbits(packed, axis=1, count=self.obs_size, bitorder="little")
        return out

    def oracle(self, out: np.ndarray | None = None) -> np.ndarray:
        """``game.oracle(state)`` of every game (the scalar states brought up to date first)."""
        if out is None:
            out = np.empty((self.num_envs, self.oracle_size), np.float32)
        fresh = (self.states == None).nonzero()[0]  # noqa: E711 (an object array)
        if self.arrays:
            self._write((self.phase != PH_OVER).nonzero()[0])
        oracle = self.game.oracle
        for b, st in enumerate(self._states(np.arange(self.num_envs))):
            out[b] = oracle(st)
        self.states[fresh] = None  # made for this view only: a look changes nothing (remade the same when needed)
        return out

    def move_names(self, b: int, actions: list) -> list:
        """The moves ``actions`` of game ``b`` as ``"id=notation"`` (its phase names lead / beat, pass / done)."""
        fresh = self.states[b] is None
        if self.arrays and self.phase[b] != PH_OVER:
            self._write(np.array([b]))
        st = self._states(np.array([b]))[0]
        if fresh:
            self.states[b] = None  # as in :meth:`oracle`
        return [f"{a}={self.game.action_to_string(st, a)}" for a in actions]
