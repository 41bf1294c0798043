"""The match ledger shared by every Kozel game: scores per side, thresholds, "eggs" and the target.

One class serves dominoes and cards. What differs between games is a frozen :class:`LedgerRules`:

* ``threshold_mode`` -- how an amount under ``threshold`` is treated:

  - ``"open"``: seed 000 §7 / RULES D1.7. Until a side has written anything, an amount under the
    threshold is lost; once the side is open, any amount is written.
  - ``"remember"``: RULES D4.5 (Donkey). In every deal an amount under the threshold is not written but
    remembered and added to the side's next loss; the memory is cleared when the side does not lose the
    next deal that has a loser (eggs keep it).
  - ``"accumulate"``: RULES D5.5 (boneyard). Under the threshold the amount is remembered and keeps
    accumulating until it lands, whatever happens in between.
  - ``"shared"``: RULES D3.2 (Sea Goat). At most one side has an open score; a losing side with the
    threshold or more wipes the other side's score and opens its own; less changes nothing; the open side
    writes any amount.
  - ``"none"``: every amount is written (card games).

* ``eggs_mode`` -- what a tied deal ("eggs") does:

  - ``"carry"``: RULES D1.8. The tied amount is carried and added to the next deal's losing side(s);
    chained eggs add up; the threshold test applies to the sum; a sum lost under the threshold takes the
    carried amount with it.
  - ``"multiply"``: RULES C1.12 / C2.5. Nothing is written; the next deal's amounts are multiplied by 2,
    by 4 after two eggs in a row, and so on; the streak resets after the first deal that is not eggs.
"""
from __future__ import annotations

from dataclasses import dataclass

THRESHOLD_MODES = ("open", "remember", "accumulate", "shared", "none")
EGGS_MODES = ("carry", "multiply")


@dataclass(frozen=True)
class LedgerRules:
    num_sides: int
    target: int
    threshold: int = 0
    threshold_mode: str = "none"
    eggs_mode: str = "carry"

    def __post_init__(self):
        if self.threshold_mode not in THRESHOLD_MODES:
            raise ValueError(f"threshold_mode must be one of {THRESHOLD_MODES}, got {self.threshold_mode!r}")
        if self.eggs_mode not in EGGS_MODES:
            raise ValueError(f"eggs_mode must be one of {EGGS_MODES}, got {self.eggs_mode!r}")


class Ledger:
    """Mutable match ledger. ``scores[side]`` only ever grows (except the Sea Goat wipe). ``wrote[side]``:
    the side has written points in this match (a score given at the start counts), which the Sea Goat wipe
    does not undo (RULES D1.9's naked goats)."""

    __slots__ = ("rules", "scores", "opened", "memory", "eggs", "eggs_streak", "wrote")

    def __init__(self, rules: LedgerRules, scores=None, opened=None, memory=None, eggs: int = 0,
                 eggs_streak: int = 0):
        n = rules.num_sides
        self.rules = rules
        self.scores = list(scores) if scores is not None else [0] * n
        self.opened = list(opened) if opened is not None else [s > 0 for s in self.scores]
        self.memory = list(memory) if memory is not None else [0] * n
        self.eggs = int(eggs)
        self.eggs_streak = int(eggs_streak)
        self.wrote = [s > 0 for s in self.scores]
        if not (len(self.scores) == len(self.opened) == len(self.memory) == n):
            raise ValueError(f"ledger needs {n} sides")

    def clone(self) -> Ledger:
        c = Ledger.__new__(Ledger)
        c.rules = self.rules
        c.scores = self.scores[:]
        c.opened = self.opened[:]
        c.memory = self.memory[:]
        c.eggs = self.eggs
        c.eggs_streak = self.eggs_streak
        c.wrote = self.wrote[:]
        return c

    @property
    def multiplier(self) -> int:
        """Factor applied to the next deal's amounts (``"multiply"`` eggs): 1, 2, 4, ..."""
        return 1 << self.eggs_streak if self.rules.eggs_mode == "multiply" else 1

    def record_eggs(self, amount: int = 0) -> None:
        """A tied deal: carry ``amount`` (``"carry"``) or raise the multiplier (``"multiply"``)."""
        if self.rules.eggs_mode == "carry":
            self.eggs += amount
        else:
            self.eggs_streak += 1

    def settle(self, losses: dict) -> dict:
        """Write a decided deal. ``losses`` maps each losing side to its raw amount for this deal.

        Returns ``{side: amount written}`` for every side in ``losses`` (0 where nothing landed). Sides not
        in ``losses`` won the deal. Eggs (carried amount or multiplier) are consumed here.
        """
        r = self.rules
        carried = self.eggs if r.eggs_mode == "carry" else 0
        mult = self.multiplier
        self.eggs = 0
        self.eggs_streak = 0
        written = {}
        mode = r.threshold_mode
        for side, raw in losses.items():
            amount = raw * mult + carried
            if mode == "none":
                w = amount
            elif mode == "open":
                w = amount if (self.opened[side] or amount >= r.threshold) else 0
            elif mode == "remember" or mode == "accumulate":
                amount += self.memory[side]
                if amount >= r.threshold:
                    w, self.memory[side] = amount, 0
                else:
                    w, self.memory[side] = 0, amount
            else:  # shared
                if self.opened[side]:
                    w = amount
                elif amount >= r.threshold:
                    w = amount
                    for other in range(r.num_sides):
                        if other != side:
                            self.scores[other] = 0
                            self.opened[other] = False
                else:
                    w = 0
            if w:
                self.scores[side] += w
                self.opened[side] = True
                self.wrote[side] = True
            written[side] = w
        if mode == "remember":
            for side in range(r.num_sides):
                if side not in losses:
                    self.memory[side] = 0
        return written

    def add(self, side: int, amount: int) -> None:
        """Write ``amount`` outside the deal's settlement (beat-or-discard C1.14: 12 to everyone else)."""
        if amount:
            self.scores[side] += amount
            self.opened[side] = True
            self.wrote[side] = True

    def at_target(self) -> list:
        """Sides whose score reached the target (the goats, or in a points-won game the winners)."""
        t = self.rules.target
        return [s for s, v in enumerate(self.scores) if v >= t]
