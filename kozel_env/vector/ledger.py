"""The match ledger (:class:`kozel_env.core.ledger.Ledger`) for a batch of games: the same
:class:`~kozel_env.core.ledger.LedgerRules`, every field an array with one row per game.

Each method works on the games ``idx`` (an int array) and does, for each of them, exactly what the scalar
method does; ``tests/vector/test_ledger.py`` checks them against the scalar ledger on random histories.
"""
from __future__ import annotations

import numpy as np

from ..core.ledger import LedgerRules


class BatchedLedger:
    """``scores``, ``memory`` (``int64[B, sides]``), ``opened``, ``wrote`` (``bool[B, sides]``), ``eggs``
    (carried amount) and ``eggs_streak`` (``int64[B]``): the scalar ledger's fields, one row per game."""

    __slots__ = ("rules", "scores", "opened", "memory", "eggs", "eggs_streak", "wrote")

    def __init__(self, rules: LedgerRules, num_envs: int):
        s = rules.num_sides
        self.rules = rules
        self.scores = np.zeros((num_envs, s), np.int64)
        self.memory = np.zeros((num_envs, s), np.int64)
        self.opened = np.zeros((num_envs, s), bool)
        self.wrote = np.zeros((num_envs, s), bool)
        self.eggs = np.zeros(num_envs, np.int64)
        self.eggs_streak = np.zeros(num_envs, np.int64)

    def start(self, idx: np.ndarray) -> None:
        """A fresh match in games ``idx`` (no scores, nothing opened, remembered or carried)."""
        for a in (self.scores, self.memory, self.opened, self.wrote, self.eggs, self.eggs_streak):
            a[idx] = 0

    def multiplier(self, idx: np.ndarray) -> np.ndarray:
        """``Ledger.multiplier``: 2 ** eggs streak with ``"multiply"`` eggs, else 1."""
        if self.rules.eggs_mode == "multiply":
            return np.left_shift(1, self.eggs_streak[idx])
        return np.ones(len(idx), np.int64)

    def record_eggs(self, idx: np.ndarray, amount: np.ndarray | int = 0) -> None:
        """``Ledger.record_eggs`` in games ``idx``."""
        if self.rules.eggs_mode == "carry":
            self.eggs[idx] += amount
        else:
            self.eggs_streak[idx] += 1

    def settle(self, idx: np.ndarray, amounts: np.ndarray, losing: np.ndarray) -> np.ndarray:
        """``Ledger.settle`` in games ``idx``: ``losing[k, side]`` marks the sides of game ``idx[k]``'s
        ``losses`` dict, ``amounts[k, side]`` their raw amounts. Returns ``written`` (``int64[k, sides]``, 0
        outside ``losses``). Sides are settled in ascending order, as the scalar dicts list them."""
        r = self.rules
        mode = r.threshold_mode
        if r.eggs_mode == "carry":
            amount = amounts + self.eggs[idx, None]
        else:
            amount = amounts * self.multiplier(idx)[:, None]
        self.eggs[idx] = 0
        self.eggs_streak[idx] = 0
        if mode == "shared":  # a side that opens wipes the others: side by side, in ascending order
            return self._settle_shared(idx, amount, losing)
        opened = self.opened[idx]
        if mode == "none":
            w = amount
        elif mode == "open":
            w = np.where(opened | (amount >= r.threshold), amount, 0)
        else:  # remember, accumulate: the amount adds to what the side remembers
            memory = self.memory[idx]
            amount = amount + memory
            landed = amount >= r.threshold
            w = np.where(landed, amount, 0)
            memory = np.where(losing, np.where(landed, 0, amount), 0 if mode == "remember" else memory)
            self.memory[idx] = memory
        written = np.where(losing, w, 0).astype(amounts.dtype, copy=False)
        pos = written != 0
        self.scores[idx] += written
        self.opened[idx] = opened | pos
        self.wrote[idx] |= pos
        return written

    def _settle_shared(self, idx: np.ndarray, amounts: np.ndarray, losing: np.ndarray) -> np.ndarray:
        """:meth:`settle` with ``threshold_mode="shared"`` (eggs already added): side by side, as a side
        that opens wipes the scores of the others."""
        r = self.rules
        scores = self.scores[idx]
        opened = self.opened[idx]
        wrote = self.wrote[idx]
        written = np.zeros_like(amounts)
        for side in range(r.num_sides):
            lose = losing[:, side]
            amount = amounts[:, side]
            opens = lose & ~opened[:, side] & (amount >= r.threshold)
            w = np.where(opened[:, side] | opens, amount, 0)
            for other in range(r.num_sides):
                if other != side:
                    scores[opens, other] = 0
                    opened[opens, other] = False
            w = np.where(lose, w, 0)
            pos = w != 0
            scores[:, side] += w
            opened[:, side] |= pos
            wrote[:, side] |= pos
            written[:, side] = w
        self.scores[idx] = scores
        self.opened[idx] = opened
        self.wrote[idx] = wrote
        return written

    def at_target(self, idx: np.ndarray) -> np.ndarray:
        """``bool[k, sides]``: the sides of games ``idx`` at the target or above (``Ledger.at_target``)."""
        return self.scores[idx] >= self.rules.target

    def take(self, idx: np.ndarray) -> BatchedLedger:
        """The rows ``idx`` as a ledger of their own (copies)."""
        sub = BatchedLedger.__new__(BatchedLedger)
        sub.rules = self.rules
        for a in self.__slots__[1:]:
            setattr(sub, a, getattr(self, a)[idx])
        return sub

    def put(self, idx: np.ndarray, sub: BatchedLedger) -> None:
        """Write ``sub`` (from :meth:`take`) back to rows ``idx``."""
        for a in self.__slots__[1:]:
            getattr(self, a)[idx] = getattr(sub, a)

    def nbytes(self) -> int:
        """Bytes of state per game."""
        return sum(getattr(self, a)[:1].nbytes for a in self.__slots__[1:])
