"""``pimc``: perfect-information Monte Carlo, the ``hard`` and ``crazy`` bots (seed 003: "before each card
it imagines several possible deals that fit what it has seen, plays each choice out and picks the best";
"Crazy: many more imagined deals for every decision").

For each decision with more than one legal move:

1. draw ``n`` determinizations with the engine's ``game.sample_consistent(state, seat, rng)``: full
   states that give this seat exactly its own observation -- its hand, the table, knocks, voids, draws,
   claims -- with everything it cannot see re-dealt consistently (uniformly where the engine can);
2. in each, apply every legal move and play the deal on with a fast policy for all seats (``rollout``: the
   family's ``normal`` rule by default, or ``easy``/``random``), each seat of the imagined deal acting on
   its own view of it: to the end of the deal, or for ``depth`` actions, the position then scored by the
   family's ``position_value`` (eyes taken, pips left in hand);
3. score each playout with the family's zero-sum ``deal_value`` for this seat (e.g. points written and
   eyes, or the pips the losing side counts) and play the move with the best total. The same imagined
   deals serve every move (paired comparisons): moves clearly behind the leader are dropped early
   (``prune`` standard errors), and the rollout policy's own move is kept unless the best one beats it by
   ``z`` standard errors (so a few noisy deals do not overturn a sound rule).

Options (``pimc:n=32,depth=8,z=1``): ``n``, ``rollout``, ``depth`` (0: to the end of the deal), ``z``,
``objective`` (what a playout to the end of the deal scores: ``"points"``, the family's ``deal_value``, the
default; ``"win"``, the deal's outcome for the seat's side as the episode's return counts it -- +1 won, -1
lost, relative to the table's mean -- with the points as a tie-break: :func:`deal_outcome`; it needs
``depth=0``, since a cut playout is scored in points),
``prune``, ``work`` (a cap on the playout moves of one decision: once they pass it, no more imagined deals are
drawn, after at least ``min_n``; 0 = no cap; it counts moves, not seconds, so play stays deterministic),
``min_n``, ``nest`` (in each playout the seat's own next decision is itself searched with ``nest`` imagined
deals drawn from what the seat will know then: a second level of search, expensive), ``level`` (the preset).

Presets per game family (the strategy's ``pimc_levels``): ``hard`` -- a few imagined deals and short
playouts (two rounds of play), under 50 ms a decision; ``crazy`` -- several times more imagined deals, each
played out to the end of the deal. The measured ladder (``python -m agents.ladder``) shows each step.

The engine state passed in is used only through ``sample_consistent``, which reads only what the seat may
know (see :mod:`agents.base`; a test checks that the decision does not change when the hidden cards are
re-dealt). Deterministic given the seed (a portable :class:`~kozel_env.core.rng.Rng`).
"""
from __future__ import annotations

import numpy as np

from kozel_env.core.rng import Rng

from .base import Agent
from .strategies import strategy_for

OBJECTIVES = ("points", "win")
WIN_TIE_BREAK = 1e-3
"""``objective=win``: the weight of the family's ``deal_value`` beside the deal's outcome (a tie-break: no deal
value of these games reaches 1,000, so no points outweigh a won deal)."""

DEFAULT_LEVELS = {"hard": {"n": 8, "z": 1.0}, "crazy": {"n": 32, "z": 1.0}}


class PIMCAgent(Agent):
    name = "pimc"
    needs_state = True

    def __init__(self, env_name: str, seed: int = 0, env_options: dict | None = None, n: int | None = None,
                 rollout: str | None = None, level: str = "hard", depth: int | None = None,
                 z: float | None = None, prune: float | None = None, nest: int | None = None,
                 work: int | None = None, min_n: int | None = None, objective: str | None = None):
        super().__init__(env_name, seed, env_options)
        self.strategy = strategy_for(self.game)
        levels = getattr(self.strategy, "pimc_levels", DEFAULT_LEVELS)
        if level not in levels:
            raise ValueError(f"pimc level must be one of {sorted(levels)}, got {level!r}")
        preset = levels[level]
        self.level = level
        self.n = int(preset["n"] if n is None else n)
        self.rollout = preset.get("rollout", "normal") if rollout is None else rollout
        if self.n < 1:
            raise ValueError(f"pimc needs n >= 1 determinizations, got {self.n}")
        self.depth = preset.get("depth") if depth is None else depth
        if self.depth is not None and self.depth <= 0:  # depth=0: play out to the end of the deal
            self.depth = None
        self.krng = Rng(seed)
        s = self.strategy
        if self.rollout not in ("normal", "easy", "random"):
            raise ValueError(f"rollout must be 'normal', 'easy' or 'random', got {self.rollout!r}")
        self.z = float(preset.get("z", 0.0) if z is None else z)
        self.prune = float(preset.get("prune", 3.0) if prune is None else prune)
        self.nest_n = int(preset.get("nest", 0) if nest is None else nest)
        self.work = int(preset.get("work", 0) if work is None else work)
        self.min_n = int(preset.get("min_n", 4) if min_n is None else min_n)
        if self.work < 0 or self.min_n < 1:
            raise ValueError(f"pimc needs work >= 0 and min_n >= 1, got work={self.work}, min_n={self.min_n}")
        self._moves = 0  # playout moves of the current decision (the work cap counts them)
        self._policy = self._random_policy if self.rollout == "random" else getattr(s, self.rollout)
        # A family may offer the same rule read straight from an (imagined) engine state: much faster.
        self._state_policy = getattr(s, self.rollout + "_state", None) if self.rollout != "random" else None
        self.objective = preset.get("objective", "points") if objective is None else objective
        if self.objective not in OBJECTIVES:
            raise ValueError(f"pimc objective must be one of {OBJECTIVES}, got {self.objective!r}")
        self._value = s.deal_value
        if self.objective == "win":
            if self.depth is not None:
                raise ValueError(f"objective=win scores whole deals: it needs depth=0, got depth={self.depth}")
            self._value = self._win_value
        self._cutoff = getattr(s, "position_value", None)
        if self.depth is not None and self._cutoff is None:
            raise ValueError(f"depth needs a position value, which the {type(s).__module__} strategy lacks")

    def _win_value(self, state, seat: int) -> float:
        return deal_outcome(state, self.game.rules, seat) + WIN_TIE_BREAK * self.strategy.deal_value(state, seat)

    def _random_policy(self, obs, mask, rng=None) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[self.krng.below(len(legal))])

    move_values: dict = {}
    """After :meth:`act`: the playout values of each move the decision's search compared (``{move: [value in
    imagined deal 1, 2, ...]}``, the same deals in the same order for every move, fewer for a move dropped early;
    empty when no search ran). What :mod:`agents.rl.labels` learns from."""

    def act(self, observation, action_mask, state=None, seat=None) -> int:
        self.move_values = {}
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if len(legal) == 1:
            return legal[0]
        if state is None or seat is None:
            raise ValueError(f"{self.name} needs the engine state and its seat: call it through "
                             f"agents.decide(agent, env)")
        prior, legal = self._prior(observation, action_mask, legal)
        if len(legal) == 1:
            return legal[0]
        return self._search(state, seat, legal, prior, self.n, self.nest_n)

    def _prior(self, observation, action_mask, legal: list) -> tuple:
        """``(prior, candidates)``: the move the search keeps unless the imagined deals clearly beat it (the
        rollout policy's), and the moves it compares (every legal one)."""
        return self._policy(observation, action_mask, self.rng), legal

    def _search(self, state, seat: int, legal: list, prior: int, n: int, nest: int) -> int:
        """The move of ``seat`` at ``state`` by ``n`` imagined deals (see the module doc); ``nest`` > 0: in
        each playout the seat's own next decision is itself searched with ``nest`` imagined deals drawn
        from what the seat will know then."""
        k = len(legal)
        p = legal.index(prior)
        active = list(range(k))
        vals = [[] for _ in range(k)]  # vals[j][i]: playout value of move j in imagined deal i
        done = 0
        batch = max(4, -(-n // 4))
        cap = self.work if nest == self.nest_n else 0  # the cap is the decision's, not a nested search's
        if cap:
            self._moves = 0
        draw = self._sampler(state, seat, n)
        while done < n and len(active) > 1:
            if cap and done >= self.min_n and self._moves >= cap:
                break
            group = []  # the children of the imagined deals not yet scored (all of a batch, when batched)
            for _ in range(min(batch, n - done)):
                if cap and done >= self.min_n and self._moves >= cap:
                    break
                det = draw()
                deals = len(det.results)
                for j in active:
                    s = det.clone()
                    s.apply_action(legal[j])
                    group.append(s)
                if not (self.batched and not cap and not nest):
                    self._score(group, active, vals, deals, seat, nest)
                    group = []
                done += 1
            if group:
                self._score(group, active, vals, deals, seat, nest)
            if done >= n or self.prune <= 0:
                continue
            # Successive rejection: drop the moves clearly worse than the leader on the same imagined
            # deals (paired difference over prune standard errors); the rollout policy's move stays.
            best = max(active, key=lambda j: (sum(vals[j]), j == p))
            keep = []
            for j in active:
                if j == best or j == p:
                    keep.append(j)
                    continue
                m, var = _paired(vals[best], vals[j])
                if not (m > 0 and m * m * done > self.prune * self.prune * var):
                    keep.append(j)
            active = keep
        if nest == self.nest_n:  # the decision's own search, not one nested in a playout
            self.move_values = {legal[j]: vals[j] for j in range(k)}
        best = max(active, key=lambda j: (sum(vals[j]), j == p))
        if best != p and self.z > 0:
            # Leave the rollout policy's move only when the imagined deals say so clearly: the paired
            # difference (same deals) must exceed z standard errors.
            m, var = _paired(vals[best], vals[p])
            if m * m * len(vals[p]) <= self.z * self.z * var:
                return prior
        return legal[best]

    def _sampler(self, state, seat: int, n: int):
        """The imagined deals of one decision, one per call (``pimc``: each drawn by ``sample_consistent``)."""
        return lambda: self.game.sample_consistent(state, seat, self.krng)

    batched = False
    """Whether :meth:`_evaluate` scores the children of a whole batch of imagined deals at once (the
    ``expert``'s networks run batched); the per-deal order keeps the ``work`` cap and ``nest`` exact."""

    def _score(self, group: list, active: list, vals: list, deals: int, seat: int, nest: int) -> None:
        """Append the playout value of every child in ``group`` (imagined deal by imagined deal, the
        ``active`` moves in order) to ``vals``."""
        k = len(active)
        out = self._evaluate(group, deals, seat, nest)
        for i, v in enumerate(out):
            vals[active[i % k]].append(v)

    def _evaluate(self, states: list, deals: int, seat: int, nest: int) -> list:
        """The playout value for ``seat`` of each state (each the child of one candidate move)."""
        return [self._playout(s, deals, seat, nest) for s in states]

    def _rollout_move(self, s, legal: list) -> int:
        fast = self._state_policy
        if fast is not None:
            return fast(s, s.current_player, legal)
        mask = np.zeros(self.game.num_actions, np.int8)
        mask[legal] = 1
        return self._policy(self.game.observe(s, s.current_player), mask, self.rng)

    def _playout(self, s, deals: int, seat: int, nest: int = 0) -> float:
        left = self.depth
        move = self._rollout_move
        while not deal_over(s, deals):
            if left is not None:
                if left <= 0:
                    return self._cutoff(s, seat)
                left -= 1
            legal = s.legal_actions()
            self._moves += 1
            if len(legal) == 1:
                s.apply_action(legal[0])
                continue
            a = move(s, legal)
            if nest and s.current_player == seat:
                a = self._search(s, seat, legal, a, nest, 0)
                nest = 0
            s.apply_action(a)
        return self._value(s, seat)


def deal_over(s, deals: int) -> bool:
    """Whether the deal under way when ``s`` had ``deals`` results has ended (the contract's signal: a new
    entry in ``state.results``, or the end of the match)."""
    return len(s.results) != deals or s.terminal


def deal_outcome(s, rules, seat: int) -> float:
    """The finished deal's outcome for ``seat``'s side, zero-sum: the episode's return where the deal ended
    it (``state.returns()``, what the arena's deal score counts: with one deal per episode the deal's winners
    +1 and losers -1, or with three sides and more the best +1 and the worst -1), otherwise +1 for a side among
    the deal's ``winners``, -1 among its ``losers``, 0 else (eggs); less the mean over the sides."""
    k = rules.num_sides
    if s.terminal:
        o = [0.0] * k
        for q, r in enumerate(s.returns()):
            o[rules.side_of(q)] = r
    else:
        res = s.last_result
        won, lost = res["winners"], res["losers"]
        o = [1.0 if q in won else (-1.0 if q in lost else 0.0) for q in range(k)]
    return o[rules.side_of(seat)] - sum(o) / k


def _paired(a: list, b: list) -> tuple:
    """Mean and variance of ``a[i] - b[i]`` (the same imagined deals)."""
    d = [x - y for x, y in zip(a, b)]
    n = len(d)
    m = sum(d) / n
    var = sum((x - m) ** 2 for x in d) / max(1, n - 1)
    return m, var

