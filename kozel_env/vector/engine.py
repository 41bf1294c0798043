"""The batched-engine contract: ``B`` games of one rules config held as NumPy arrays, stepped together.

A batched engine is built from the scalar :class:`~kozel_env.core.game.Game` (its rules config, its tables,
its observation layout) and plays exactly the same rules: ``tests/vector/test_identity.py`` steps every game
of a batch beside the scalar env with the same seed and actions and compares every observation, mask,
reward and deal result. What a batched engine provides:

* ``start(idx, seeds)`` -- new matches in games ``idx``, match ``k`` from engine seed ``seeds[k]`` (what
  ``game.new_state(seed)`` deals);
* ``apply(actions)`` -- one decision in every game (``actions[b]`` legal for ``current_player[b]``; the
  vector env checks it); afterwards the per-game outputs below tell what that decision ended;
* ``observe(out)`` / ``legal_mask(out)`` / ``oracle(out)`` -- for every game, the scalar ``observe(state,
  current_player)``, the mask of ``legal_actions()`` and ``oracle(state)``; ``legal_mask`` also leaves
  the mask packed in ``legal_words`` (``uint64[B, W]``, action ``a`` at bit ``a % 64`` of word ``a // 64``).

With ``autoreset`` set, a game whose match ends starts its next match inside the same ``apply``, from the
next seed of its stream ``seeders`` (the outputs still describe the match that ended); without it the game
waits for ``start``.

Outputs of the last ``apply`` (one row per game): ``deal_ended`` (a deal ended), ``seat_points`` (that deal's
``seat_points``), ``step_points`` (the ``seat_points`` of every deal that ended in this ``apply``, summed: the
``reward="points"`` rewards; ``seat_points`` unless one step ended two deals), ``deal_written`` /
``deal_scores`` / ``deal_winners`` / ``deal_eggs`` (its ``written``, ``scores``, winners as a side mask and
``eggs``), ``match_over`` (the match ended: the game waits for ``start``), ``returns`` (the match's
``returns``) and ``match_winners`` (its winners as a side mask).
"""
from __future__ import annotations

import copy

import numpy as np

from ..core.game import Game


class BatchedGame:
    """Shared fields and outputs; a subclass (one per scalar engine) adds its state arrays and rules."""

    engine_id = ""

    def __init__(self, game: Game, num_envs: int, single_deal: bool = False):
        self.game = game
        self.rules = game.rules
        self.num_envs = B = int(num_envs)
        self.single_deal = bool(single_deal)
        n = self.num_players = game.num_players
        s = self.num_sides = game.num_sides
        self.num_actions = game.num_actions
        self.obs_size = game.obs_spec.size
        self.oracle_size = game.oracle_spec.size
        self.side_of = np.array(game.sides, np.int64)
        self.rng = np.zeros(B, np.uint64)
        self.seeders = np.zeros(B, np.uint64)
        self.autoreset = False
        self.current_player = np.zeros(B, np.int64)
        self.deal_ended = np.zeros(B, bool)
        self.seat_points = np.zeros((B, n), np.int64)
        self.step_points = np.zeros((B, n), np.int64)
        self.deal_written = np.zeros((B, s), np.int64)
        self.deal_scores = np.zeros((B, s), np.int64)
        self.deal_winners = np.zeros((B, s), bool)
        self.deal_eggs = np.zeros(B, bool)
        self.match_over = np.zeros(B, bool)
        self.returns = np.zeros((B, n), np.float64)
        self.match_winners = np.zeros((B, s), bool)
        self.legal_words = np.zeros((B, (self.num_actions + 63) // 64), np.uint64)

    # -- the contract ------------------------------------------------------------------------------------
    def start(self, idx: np.ndarray, seeds: np.ndarray) -> None:  # pragma: no cover - abstract
        raise TypeError(f"{type(self).__name__} must define start()")

    def apply(self, actions: np.ndarray) -> None:  # pragma: no cover - abstract
        raise TypeError(f"{type(self).__name__} must define apply()")

    def observe(self, out: np.ndarray | None = None) -> np.ndarray:  # pragma: no cover - abstract
        raise TypeError(f"{type(self).__name__} must define observe()")

    def legal_mask(self, out: np.ndarray | None = None) -> np.ndarray:  # pragma: no cover - abstract
        raise TypeError(f"{type(self).__name__} must define legal_mask()")

    def oracle(self, out: np.ndarray | None = None) -> np.ndarray:  # pragma: no cover - abstract
        raise TypeError(f"{type(self).__name__} must define oracle()")

    # -- shared helpers ----------------------------------------------------------------------------------
    def clear_outputs(self) -> None:
        """Before an ``apply``: nothing ended yet in any game (every output zero)."""
        for name in self._OUTPUTS:
            getattr(self, name).fill(0)

    def end_deal_outputs(self, idx: np.ndarray, written: np.ndarray, scores: np.ndarray, winners: np.ndarray,
                         eggs: np.ndarray) -> None:
        """Record a deal that ended in games ``idx`` (``written``, ``scores``, ``winners`` per side). In a game
        whose match already ended in this step the deal was dealt by the next match and ended inside its set-up,
        before any decision: it is played, not reported (the env's docstring)."""
        told = ~self.match_over[idx]
        if not told.all():
            idx, written, scores, winners, eggs = (x[told] for x in (idx, written, scores, winners, eggs))
        self.deal_ended[idx] = True
        self.deal_written[idx] = written
        self.deal_scores[idx] = scores
        self.deal_winners[idx] = winners
        self.deal_eggs[idx] = eggs
        self.seat_points[idx] = -written[:, self.side_of] if self.points_lost else written[:, self.side_of]
        self.step_points[idx] += self.seat_points[idx]

    points_lost = True
    """``seat_points`` is minus ``written`` (points are bad, dominoes) or ``written`` (points won, cards)."""

    def next_seeds(self, idx: np.ndarray) -> np.ndarray:
        """The engine seeds of the next matches of games ``idx``, from each game's own stream (``seeders``:
        what the AEC env's ``reset()`` spawns from its seed)."""
        from .rng import next_u64

        return next_u64(self.seeders, idx)

    def end_match_outputs(self, idx: np.ndarray, winners: np.ndarray, losers: np.ndarray) -> None:
        """Record the end of the match in games ``idx``: +1 to the winners' seats, -1 to the losers'. A game
        whose match already ended in this step keeps that match's result: the next one, over before any
        decision (its set-up played it out), is skipped."""
        told = ~self.match_over[idx]
        if not told.all():
            idx, winners, losers = idx[told], winners[told], losers[told]
        self.match_over[idx] = True
        self.match_winners[idx] = winners
        w = winners[:, self.side_of]
        lo = losers[:, self.side_of]
        self.returns[idx] = np.where(w, 1.0, np.where(lo, -1.0, 0.0))

    STATE: tuple = ()
    """The subclass's per-game state arrays (first axis: the game), by attribute name."""
    LEDGERS: tuple = ("ledger",)
    """Attributes holding a :class:`~kozel_env.vector.ledger.BatchedLedger`."""
    _OUTPUTS = ("deal_ended", "seat_points", "step_points", "deal_written", "deal_scores", "deal_winners", "deal_eggs",
                "match_over", "returns", "match_winners")
    _COMMON = ("rng", "seeders", "current_player") + _OUTPUTS

    def move_names(self, b: int, actions: list) -> list:
        """The moves ``actions`` of game ``b`` as ``"id=notation"`` (for error messages)."""
        return [f"{a}={self.game.action_to_string(None, a)}" for a in actions]

    def _sized(self) -> None:
        """Rebuild the scratch arrays that depend on the batch size (a subclass that keeps any)."""

    def _per_game(self) -> tuple:
        return self._COMMON + tuple(self.STATE)

    def take(self, idx: np.ndarray) -> BatchedGame:
        """A batch of the games ``idx`` alone (copies of their rows), to step a subset: ``sub.apply(...)``,
        then :meth:`put` writes it back."""
        sub = copy.copy(self)
        sub.num_envs = len(idx)
        for name in self._per_game():
            setattr(sub, name, getattr(self, name)[idx])
        for name in self.LEDGERS:
            setattr(sub, name, getattr(self, name).take(idx))
        sub._sized()
        return sub

    def put(self, idx: np.ndarray, sub: BatchedGame) -> None:
        """Write the games of ``sub`` (from :meth:`take`) back to rows ``idx``."""
        for name in self._per_game():
            getattr(self, name)[idx] = getattr(sub, name)
        for name in self.LEDGERS:
            getattr(self, name).put(idx, getattr(sub, name))

    def state_nbytes(self) -> int:
        """Bytes of game state per game: one row of every per-game array, the ledger's included."""
        total = sum(getattr(self, name)[:1].nbytes for name in self._per_game())
        return total + sum(getattr(self, name).nbytes() for name in self.LEDGERS)
