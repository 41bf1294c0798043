"""Rollout collection through the batched vector env: :class:`VectorCollector` (``PPOConfig.vector=True``).

A drop-in for :class:`agents.rl.rollout.Collector` that plays the ``cfg.num_envs`` matches as ONE self-play
vector env, ``kozel_env.vector.make(cfg.env, cfg.num_envs, seed=...)`` (the envs of ``vector.BATCHED``): the
batched NumPy engine steps every match at once instead of one scalar engine state per match. What the
buffer receives is what :class:`~agents.rl.rollout.Collector` records (the shared steps are
:class:`~agents.rl.rollout.CollectorBase`):

* seat owners: at the start of every match, :meth:`CollectorBase._pick_owners` -- the learner on every seat
  with probability ``selfplay``, else the learner on one side and the other seats to a snapshot of the pool
  or a bot;
* each tick the games are grouped by the owner of the seat to move: the learner group is sampled in one
  ``model.act`` batch (its rows recorded with the value, from the central-critic input ``obs + oracle + seat
  one-hot`` where ``central_critic``, the oracle being ``venv.state()``), each snapshot group acts in one
  ``act_batch``, each bot group row by row; then one ``venv.step(actions)``;
* rewards: each ended deal's shaping reward from ``info["deals"]["seat_points"]`` and, at match end,
  ``info["returns"]``, to each seat's open transition; a finished match closes its seats' trajectories
  (``done``) and, the vector env resetting it in the same step, its next match gets new owners.

Differences from the scalar collector, by design: the matches are dealt from the vector env's per-game seed
streams (``seed = TRAIN_SEED_BASE + 100_000_000 * cfg.seed + seed_counter`` at every :meth:`restart`, where
``seed_counter`` counts the matches begun), not one engine seed per match, so the two collectors play
different deals; bots are one instance per bot name (not one per seat and match), asked with
``act(observation, action_mask)`` -- the shipped bots keep no per-match state -- and bots that need the
engine state (``needs_state``: the ``pimc`` bots) are refused, as teacher or opponent. Behaviour cloning
works here too (the teacher's moves recorded on the learner seats, ``dagger`` as in the scalar collector).
The env options are the rules options of ``cfg.env_options``; ``episode`` / ``reward`` and the AEC-only
options are ignored, as the scalar collector ignores them (it always plays whole matches).
"""
from __future__ import annotations

import numpy as np
import torch

from kozel_env import vector
from kozel_env.core.errors import InvalidOptionError

from ..registry import make_agent
from .common import GameInfo
from .model import ActorCritic
from .rollout import LEARNER, TRAIN_SEED_BASE, CollectorBase, OpponentPool

AEC_ONLY = ("episode", "reward", "render_mode", "infos", "illegal_action")
"""Options of ``cfg.env_options`` that are not rules options: left out of the vector env (whole matches)."""


class VectorCollector(CollectorBase):
    """``cfg.num_envs`` matches in one vector env (``venv``), the owner of every seat (``own[game, seat]``:
    an index into ``owner_keys``, 0 being the learner) and the :class:`~agents.rl.rollout.Rollout` they fill;
    the arguments and counters are :class:`~agents.rl.rollout.CollectorBase`'s. Raises
    :class:`~kozel_env.core.errors.InvalidOptionError` for an env without a batched engine or a bot that
    needs the engine state."""

    def __init__(self, cfg, info: GameInfo, model: ActorCritic, rng: np.random.Generator,
                 generator: torch.Generator, pool: OpponentPool):
        if cfg.env not in vector.BATCHED:
            raise InvalidOptionError(f"vector=True: {cfg.env} has no batched engine (batched envs: "
                                     f"{', '.join(vector.BATCHED)}); train it with vector=False (the scalar "
                                     "collector)")
        super().__init__(cfg, info, model, rng, generator, pool)
        E = cfg.num_envs
        self._bots: dict = {}
        for name in cfg.bots or {}:
            self._bot(name)           # a bot that cannot play here fails now, not at its first match
        rules = {k: v for k, v in (cfg.env_options or {}).items() if k not in AEC_ONLY}
        self.venv = vector.make(cfg.env, E, seed=None, episode="match", reward="outcome", **rules)
        self.owner_keys: list = [LEARNER]
        self._codes = {LEARNER: 0}
        self.own = np.zeros((E, self.n), np.int64)
        self._games = np.arange(E)
        self.ts = None
        self.restart()

    # ------------------------------------------------------------------ matches
    def _bot(self, spec: str):
        """The one instance of bot ``spec`` (made when first needed, seeded from ``cfg.seed``)."""
        bot = self._bots.get(spec)
        if bot is None:
            bot = make_agent(spec, self.cfg.env, seed=self.cfg.seed * 7919 + len(self._bots),
                             env_options=self.cfg.env_options)
            if getattr(bot, "needs_state", False):
                raise InvalidOptionError(f"vector=True: bot {spec!r} needs the engine state (determinized "
                                         "search), which the vector env does not give; use vector=False")
            bot.reset()
            self._bots[spec] = bot
        return bot

    def _code(self, key) -> int:
        code = self._codes.get(key)
        if code is None:
            code = self._codes[key] = len(self.owner_keys)
            self.owner_keys.append(key)
        return code

    def _assign(self, games: np.ndarray) -> None:
        """New matches in ``games``: their seat owners (:meth:`CollectorBase._pick_owners`)."""
        for e in games:
            owners, _ = self._pick_owners()
            self.own[e] = [self._code(k) for k in owners]

    def restart(self) -> None:
        """Empty the rollout and start every match afresh (new deals: the vector env reset with a seed made
        of the matches begun so far)."""
        self.buf.n = 0
        self.pending[:] = -1
        seed = TRAIN_SEED_BASE + self.cfg.seed * 100_000_000 + self.seed_counter
        self.seed_counter += self.cfg.num_envs
        self.ts = self.venv.reset(seed=seed)
        self._assign(self._games)

    # ------------------------------------------------------------------ rollout
    def collect(self) -> int:
        """Play ``rollout_ticks`` decisions in every match into :attr:`buf` (after carrying the open
        transitions to its front); returns the learner decisions that will enter an update (``final``)."""
        self._carry_open()
        ts = self.ts
        for _ in range(self.cfg.rollout_ticks):
            code = self.own[self._games, ts.seat]
            actions = np.empty(self.cfg.num_envs, np.int64)
            for c in np.unique(code):
                games = np.flatnonzero(code == c)
                if c == 0:
                    actions[games] = self._learner_moves(ts, games)
                else:
                    actions[games] = self._opponent_moves(self.owner_keys[c], ts.obs[games], ts.mask[games])
            ts = self.venv.step(actions)
            self._ends(ts)
        self.ts = ts
        return int(self.buf.final[:self.buf.n].sum())

    def _learner_moves(self, ts: vector.TimeStep, games: np.ndarray) -> np.ndarray:
        """The learner seats to move in ``games``: record them in the buffer, link each to its seat's
        previous decision; their actions."""
        buf = self.buf
        j0 = buf.n
        j1 = j0 + len(games)
        seats = ts.seat[games]
        buf.obs[j0:j1] = ts.obs[games]
        buf.mask[j0:j1] = ts.mask[games] != 0
        if self.cobs_dim:
            d, od = self.info.obs_dim, self.info.oracle_dim
            cobs = buf.cobs[j0:j1]
            cobs[:, :d] = buf.obs[j0:j1]
            cobs[:, d:d + od] = self.venv.state()[games]
            cobs[:, d + od:] = 0.0
            cobs[np.arange(len(games)), d + od + seats] = 1.0
        a = self._learner_actions(j0, j1, self._teacher_moves)
        self._link(j0, games, seats)
        return a

    def _teacher_moves(self, obs: np.ndarray, mask: np.ndarray) -> list:
        teacher = self._bot(self.teacher)
        return [teacher.act(o, m) for o, m in zip(obs, mask)]

    def _opponent_moves(self, key, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The moves of opponent ``key`` (a snapshot: one batch; a bot: row by row)."""
        if key[0] == "S":
            return self.pool[key[1]].act_batch(obs, mask)
        bot = self._bot(key[1])
        return np.array([bot.act(o, m) for o, m in zip(obs, mask)], np.int64)

    def _ends(self, ts: vector.TimeStep) -> None:
        """The deals and matches that ``ts`` ended: their rewards to the open transitions; finished matches
        close their trajectories, count in ``ep_stats`` (against an opponent) and get new owners (the vector
        env has already started them)."""
        ended = np.flatnonzero(ts.deal_over | ts.done)
        if not len(ended):
            return
        r = np.zeros((len(ended), self.n))
        deal = ts.deal_over[ended]
        if deal.any():
            r[deal] = self._deal_rewards(ts.info["deals"]["seat_points"][ended[deal]])
        over = ts.done[ended]
        if over.any():
            r[over] += ts.info["returns"][ended[over]]
        self._credit(ended, r)
        done = ended[over]
        if len(done):
            own = self.own[done]
            vs = (own != 0).any(axis=1)                  # against an opponent: the learner side's return
            first = np.argmax(own == 0, axis=1)
            self.ep_stats.extend(float(x) for x in ts.info["returns"][done[vs], first[vs]])
            self._close(done)
            self._assign(done)
