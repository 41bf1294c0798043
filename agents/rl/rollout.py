"""Rollout collection for PPO self-play: many matches side by side, who plays each seat, and the buffer.

How a rollout is collected
--------------------------
``num_envs`` matches run side by side, driven through the engine (``game.new_state``, ``legal_actions``,
``apply_action``). Each tick every match advances by one decision; the decisions are grouped by who controls
the seat to move, and each group acts in one batch: the learner (sampling from the masked actor), a frozen
snapshot of an earlier learner (:class:`OpponentPool`), or a bot (``agents.make_agent``; one instance per
seat and match, asked through :func:`agents.base.decide`). Every controller sees only
``game.observe(state, seat)`` and the action mask. At the start of every match its seats are assigned: with
probability ``selfplay`` the learner plays every seat (all of them give training data); otherwise the learner
takes one side (the pair in pair games, one seat in every-man-for-himself games: the contract's
``game.sides``) and the other seats go to an opponent drawn from the pool (bots and earlier snapshots).

Rewards (team-aware: the engine's per-seat points and returns are the same for partners)
----------------------------------------------------------------------------------------
At match end each learner seat gets its ``returns()`` (+1 win, -1 goat); at the end of every deal (the
contract's signal: ``state.results`` grew) it also gets a shaping reward ``shaping / sqrt(deals per match)``
times its zero-sum deal points over their random-play spread (:func:`agents.rl.common.random_play_scale`),
so a deal's points steer learning long before the match is decided. With ``shaping=0`` the reward is the
match outcome alone.

Each seat's decisions form its own trajectory (the rewards that arrive between two of its decisions belong
to the earlier one): :class:`Rollout` links them (``nxt``), and a seat's last, still open, decision is
carried over to the next rollout, so no reward is lost.

Behaviour cloning (:mod:`agents.rl.imitation`) uses the same collector with a ``teacher``: the teacher bot
plays the learner seats and its moves are recorded (``dagger``: the learner moves, the teacher labels).

Two collectors fill the buffer the same way: :class:`Collector` here steps one scalar engine state per match
(every env; bots of any kind, ``needs_state`` ones included, one instance per seat and match), and
:class:`agents.rl.vector_rollout.VectorCollector` (``PPOConfig.vector``) steps all the matches as one batched
vector env (:mod:`kozel_env.vector`, the envs of ``vector.BATCHED``). What they share -- the seat owners, the
learner's batch of moves, the trajectory links, the rewards and the match ends -- is
:class:`CollectorBase`.
"""
from __future__ import annotations

import copy
import math

import numpy as np
import torch

from ..base import decide
from ..registry import make_agent
from .common import GameInfo
from .model import ActorCritic, TorchPolicy

TRAIN_SEED_BASE = 1_000_000_000
LEARNER = "L"
"""The owner of a learner seat; opponents are ``("S", k)`` (snapshot ``k`` of the pool) or ``("B", name)``."""


class Rollout:
    """Flat transition storage with per-(match, seat) trajectory links (see the module docstring)."""

    def __init__(self, cap: int, obs_dim: int, cobs_dim: int, num_actions: int):
        self.cap = cap
        self.obs = np.zeros((cap, obs_dim), np.float32)
        self.cobs = np.zeros((cap, cobs_dim), np.float32) if cobs_dim else None
        self.mask = np.zeros((cap, num_actions), bool)
        self.act = np.zeros(cap, np.int64)
        self.logp = np.zeros(cap, np.float32)
        self.val = np.zeros(cap, np.float32)
        self.rew = np.zeros(cap, np.float32)
        self.done = np.zeros(cap, bool)
        self.nxt = np.full(cap, -1, np.int64)
        self.final = np.zeros(cap, bool)
        self.n = 0

    def carry(self, idx: np.ndarray) -> np.ndarray:
        """Restart the storage keeping only the transitions ``idx`` (moved to the front); their new indices."""
        m = len(idx)
        for name in ("obs", "mask", "act", "logp", "val", "rew") + (("cobs",) if self.cobs is not None else ()):
            arr = getattr(self, name)
            arr[:m] = arr[idx]   # fancy indexing copies first, so overlapping moves are safe
        self.done[:] = False
        self.final[:] = False
        self.nxt[:] = -1
        self.rew[m:] = 0.0
        self.n = m
        return np.arange(m)


class OpponentPool:
    """Frozen snapshots of earlier learners (the newest ``size``), each a :class:`TorchPolicy` sampling
    with the trainer's generator."""

    def __init__(self, size: int, generator: torch.Generator):
        self.size = size
        self.generator = generator
        self.snapshots: list = []

    def __len__(self) -> int:
        return len(self.snapshots)

    def __getitem__(self, k: int) -> TorchPolicy:
        return self.snapshots[k]

    def _frozen(self, actor: torch.nn.Module, state_dict: dict | None = None) -> TorchPolicy:
        snap = copy.deepcopy(actor).eval()
        if state_dict is not None:
            snap.load_state_dict(state_dict)
        for p in snap.parameters():
            p.requires_grad_(False)
        return TorchPolicy(snap, self.generator)

    def add(self, actor: torch.nn.Module) -> None:
        """A frozen copy of ``actor`` joins the pool; the oldest leaves beyond ``size``."""
        self.snapshots.append(self._frozen(actor))
        self.snapshots = self.snapshots[-self.size:]

    def state_dicts(self) -> list:
        return [p.actor.state_dict() for p in self.snapshots]

    def load(self, actor: torch.nn.Module, state_dicts: list) -> None:
        """Replace the pool by snapshots of ``actor``'s shape with the weights ``state_dicts``."""
        self.snapshots = [self._frozen(actor, sd) for sd in state_dicts]


class CollectorBase:
    """What both collectors share (see the module docstring): the buffer and the open transitions, the counters,
    the seat owners of a new match (:meth:`_pick_owners`), the learner's moves (:meth:`_learner_actions`), the
    trajectory links (:meth:`_link`), the rewards (:meth:`_credit`) and the end of a match (:meth:`_close`).

    ``rng`` draws the seat owners; ``model`` and ``generator`` sample the learner's moves; ``pool`` holds the
    snapshots. Counters: ``matches_done``, ``seed_counter`` (match seeds drawn), ``ep_stats`` (the learner
    side's returns of the matches finished against an opponent since the trainer last read them)."""

    def __init__(self, cfg, info: GameInfo, model: ActorCritic, rng: np.random.Generator,
                 generator: torch.Generator, pool: OpponentPool):
        self.cfg, self.info, self.game, self.n = cfg, info, info.game, info.num_players
        self.model, self.rng, self.tgen, self.pool = model, rng, generator, pool
        self.cobs_dim = (info.obs_dim + info.oracle_dim + self.n) if cfg.central_critic else 0
        self.shaping_w = cfg.shaping / math.sqrt(max(1.0, info.deals_per_match)) / info.points_std
        E = cfg.num_envs
        self.buf = Rollout(E * cfg.rollout_ticks + E * self.n, info.obs_dim, self.cobs_dim, info.num_actions)
        self.pending = np.full((E, self.n), -1, np.int64)   # per match and seat: its open transition
        self.seed_counter = 0
        self.matches_done = 0
        self.ep_stats: list = []
        self.teacher = None           # bot spec whose moves fill the learner seats (behaviour cloning)
        self.dagger = False           # during cloning: the learner moves and the teacher only labels

    def _next_seed(self) -> int:
        self.seed_counter += 1
        return TRAIN_SEED_BASE + self.cfg.seed * 100_000_000 + self.seed_counter

    def _pick_owners(self) -> tuple:
        cfg, n = self.cfg, self.n
        if self.teacher is not None:
            # the teacher plays the learner seats: against itself, or (share bc_vs_bots) against the
            # training bots, so the imitation also covers the positions those opponents lead to
            if not cfg.bots or self.rng.random() >= cfg.bc_vs_bots:
                return [LEARNER] * n, None
        elif self.rng.random() < cfg.selfplay or (not cfg.bots and not len(self.pool)):
            return [LEARNER] * n, None
        use_bot = cfg.bots and (self.teacher is not None or not len(self.pool) or self.rng.random() < cfg.bot_share)
        if use_bot:
            names = list(cfg.bots)
            w = np.array([cfg.bots[k] for k in names], float)
            opp = ("B", names[self.rng.choice(len(names), p=w / w.sum())])
        else:
            opp = ("S", int(self.rng.integers(len(self.pool))))
        sides = self.info.side_seats
        side = sides[int(self.rng.integers(len(sides)))]
        return [LEARNER if s in side else opp for s in range(n)], opp

    # ------------------------------------------------------------------ shared steps of a rollout
    def _carry_open(self) -> None:
        """Before a rollout: the open transitions move to the front of the buffer (no reward is lost)."""
        sel = self.pending >= 0
        self.pending[sel] = self.buf.carry(self.pending[sel])

    def _learner_actions(self, j0: int, j1: int, teacher_moves) -> np.ndarray:
        """Buffer rows ``j0:j1`` hold the learner's decisions (``obs``, ``mask``, ``cobs`` filled): their
        action, log-prob and value -- the learner's sample, or while cloning the teacher's move
        (``teacher_moves(obs, int8 mask)``, log-prob and value 0). Returns the actions to play (with
        ``dagger``: the learner's, while the teacher's are recorded)."""
        buf, model = self.buf, self.model
        obs, mask = buf.obs[j0:j1], buf.mask[j0:j1]
        play = None
        if self.teacher is not None:  # behaviour cloning: record the teacher bot's moves
            a = np.asarray(teacher_moves(obs, mask.astype(np.int8)), np.int64)
            buf.logp[j0:j1] = 0.0
            buf.val[j0:j1] = 0.0
            if self.dagger:  # DAgger: the learner moves, the teacher labels its positions
                with torch.no_grad():
                    play = model.act(torch.from_numpy(obs), torch.from_numpy(mask), self.tgen)[0].numpy()
        else:
            with torch.no_grad():
                to = torch.from_numpy(obs)
                a, logp = model.act(to, torch.from_numpy(mask), self.tgen)
                v = model.value(torch.from_numpy(buf.cobs[j0:j1]) if self.cobs_dim else to)
            a = a.numpy()
            buf.logp[j0:j1] = logp.numpy()
            buf.val[j0:j1] = v.numpy()
        buf.act[j0:j1] = a
        buf.rew[j0:j1] = 0.0
        buf.n = j1
        return a if play is None else play

    def _link(self, j0: int, games: np.ndarray, seats: np.ndarray) -> None:
        """Row ``j0 + r`` is the decision of seat ``seats[r]`` in match ``games[r]`` (each match once): it
        follows that seat's open transition (``nxt``; the earlier one is then final) and is now the open one."""
        rows = j0 + np.arange(len(games))
        prev = self.pending[games, seats]
        has = prev >= 0
        self.buf.nxt[prev[has]] = rows[has]
        self.buf.final[prev[has]] = True
        self.pending[games, seats] = rows

    def _deal_rewards(self, seat_points: np.ndarray) -> np.ndarray:
        """The shaping reward per seat of deals with ``seat_points[..., seat]`` (module docstring)."""
        sp = np.asarray(seat_points, float)
        return self.shaping_w * (sp - sp.mean(axis=-1, keepdims=True))

    def _credit(self, games: np.ndarray, r: np.ndarray) -> None:
        """Rewards ``r[k, seat]`` of matches ``games[k]`` to each seat's open transition (a seat yet to
        decide gets none: its first decision comes after them)."""
        p = self.pending[games]
        has = p >= 0
        self.buf.rew[p[has]] += r[has]

    def _close(self, games: np.ndarray) -> None:
        """Matches ``games`` are over (their rewards credited): each seat's open transition ends its
        trajectory (``done``, final) and nothing stays open."""
        p = self.pending[games]
        has = p >= 0
        self.buf.done[p[has]] = True
        self.buf.final[p[has]] = True
        self.pending[games] = -1
        self.matches_done += len(games)


class Collector(CollectorBase):
    """``cfg.num_envs`` matches in progress, each a scalar engine state, who owns each seat, and the
    :class:`Rollout` they fill (the arguments and counters: :class:`CollectorBase`)."""

    def __init__(self, cfg, info: GameInfo, model: ActorCritic, rng: np.random.Generator,
                 generator: torch.Generator, pool: OpponentPool):
        super().__init__(cfg, info, model, rng, generator, pool)
        E = cfg.num_envs
        self.states = [None] * E
        self.owners = [None] * E      # per match: list per seat of LEARNER / ("S", k) / ("B", name)
        self.bots = [None] * E        # per match: list per seat of bot instances (or None)
        self.last_deals = [0] * E     # per match: len(state.results) when last looked at
        for e in range(E):
            self._new_match(e)

    # ------------------------------------------------------------------ matches
    def _new_match(self, e: int) -> None:
        seed = self._next_seed()
        self.states[e] = self.game.new_state(seed)
        while self.states[e].terminal:  # decided by the deal itself (e.g. four aces, RULES C1.14): no decision
            seed = self._next_seed()
            self.states[e] = self.game.new_state(seed)
        owners, opp = self._pick_owners()
        self.owners[e] = owners
        if (opp is not None and opp[0] == "B") or self.teacher is not None:
            bots = [None] * self.n
            for s in range(self.n):
                spec = self.teacher if owners[s] == LEARNER else opp[1]
                if spec is not None:
                    bots[s] = make_agent(spec, self.cfg.env, seed=seed * 31 + s, env_options=self.cfg.env_options)
                    bots[s].reset()
            self.bots[e] = bots
        else:
            self.bots[e] = None
        self.last_deals[e] = len(self.states[e].results)

    def restart(self) -> None:
        """Empty the rollout and start every match afresh."""
        self.buf.n = 0
        self.pending[:] = -1
        for e in range(self.cfg.num_envs):
            self._new_match(e)

    # ------------------------------------------------------------------ rollout
    def collect(self) -> int:
        """Play ``rollout_ticks`` decisions in every match into :attr:`buf` (after carrying the open
        transitions to its front); returns the learner decisions that will enter an update (``final``)."""
        self._carry_open()
        for _ in range(self.cfg.rollout_ticks):
            groups = {}
            for e, st in enumerate(self.states):
                groups.setdefault(self.owners[e][st.current_player], []).append(e)
            actions = {}
            for key, es in groups.items():
                if key == LEARNER:
                    self._learner_moves(es, actions)
                else:
                    self._opponent_moves(key, es, actions)
            for e, a in actions.items():
                st = self.states[e]
                st.apply_action(a)
                if len(st.results) != self.last_deals[e] or st.terminal:   # a deal ended
                    self._on_deal_end(e)
        return int(self.buf.final[:self.buf.n].sum())

    def _critic_input(self, st, seat: int, obs_row: np.ndarray, out: np.ndarray) -> None:
        d, od = self.info.obs_dim, self.info.oracle_dim
        out[:d] = obs_row
        out[d:d + od] = self.game.oracle(st)
        out[d + od:] = 0.0
        out[d + od + seat] = 1.0

    def _bot_move(self, e: int, obs: np.ndarray, mask: np.ndarray) -> int:
        st = self.states[e]
        return decide(self.bots[e][st.current_player], None, obs, mask, state=st)

    def _learner_moves(self, es: list, actions: dict) -> None:
        """The learner seats to move in matches ``es``: record them in the buffer (with the teacher's moves
        while cloning), link each to its seat's previous decision, and choose their actions."""
        buf, game = self.buf, self.game
        j0 = buf.n
        j1 = j0 + len(es)
        obs = buf.obs[j0:j1]
        mask = buf.mask[j0:j1]
        mask[:] = False
        seats = np.empty(len(es), np.int64)
        for r, e in enumerate(es):
            st = self.states[e]
            p = seats[r] = st.current_player
            obs[r] = game.observe(st, p)
            mask[r, st.legal_actions()] = True
            if self.cobs_dim:
                self._critic_input(st, p, obs[r], buf.cobs[j0 + r])
        a = self._learner_actions(j0, j1, lambda o, m: [self._bot_move(e, o[r], m[r]) for r, e in enumerate(es)])
        self._link(j0, np.asarray(es, np.int64), seats)
        for r, e in enumerate(es):
            actions[e] = int(a[r])

    def _opponent_moves(self, key, es: list, actions: dict) -> None:
        """The seats of opponent ``key`` (a snapshot: one batch; bots: one call each) in matches ``es``."""
        game = self.game
        obs = np.empty((len(es), self.info.obs_dim), np.float32)
        mask = np.zeros((len(es), self.info.num_actions), np.int8)
        for r, e in enumerate(es):
            st = self.states[e]
            obs[r] = game.observe(st, st.current_player)
            mask[r, st.legal_actions()] = 1
        if key[0] == "S":
            a = self.pool[key[1]].act_batch(obs, mask)
        else:
            a = [self._bot_move(e, obs[r], mask[r]) for r, e in enumerate(es)]
        for r, e in enumerate(es):
            actions[e] = int(a[r])

    def _on_deal_end(self, e: int) -> None:
        """Rewards of the deals that just ended in match ``e`` (and of the match, if over) to each seat's
        open transition; a finished match closes its trajectories and a new one starts."""
        st = self.states[e]
        r = np.zeros(self.n)
        for res in st.results[self.last_deals[e]:]:  # every deal this step ended: none is lost
            r += self._deal_rewards(res["seat_points"])
        self.last_deals[e] = len(st.results)
        if st.terminal:
            ret = np.asarray(st.returns(), float)
            r += ret
            if any(o != LEARNER for o in self.owners[e]):
                self.ep_stats.append(ret[self.owners[e].index(LEARNER)])
        self._credit(np.array([e]), r[None])
        if st.terminal:
            self._close(np.array([e]))
            self._new_match(e)
