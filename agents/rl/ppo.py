"""PPO self-play with an opponent pool, on many engine copies at once (PyTorch, CPU).

How a rollout is collected
--------------------------
``num_envs`` matches run side by side, driven through the engine (``game.new_state``, ``legal_actions``,
``apply_action``). Each tick every match advances by one decision; the decisions are grouped by who controls
the seat to move, and each group acts in one batch: the learner (sampling from the masked actor), a frozen
snapshot of an earlier learner, or a bot (``agents.make_agent``; one instance per seat and match). Every
controller sees only ``game.observe(state, seat)`` and the action mask. At the start of every match its seats
are assigned: with probability ``selfplay`` the learner plays every seat (all of them give training data);
otherwise the learner takes one side (the pair in pair games, one seat in every-man-for-himself games) and
the other seats go to an opponent drawn from the pool (bots and earlier snapshots).

Rewards (team-aware: the engine's per-seat points and returns are the same for partners)
----------------------------------------------------------------------------------------
At match end each learner seat gets its ``returns()`` (+1 win, -1 goat); at the end of every deal it also
gets a shaping reward ``shaping / sqrt(deals per match)`` times its zero-sum deal points over their random-
play spread, so a deal's points steer learning long before the match is decided. With ``shaping=0`` the
reward is the match outcome alone.

Each seat's decisions form its own trajectory (the rewards that arrive between two of its decisions belong
to the earlier one). Advantages are GAE(gamma, lambda) along these trajectories; a trajectory cut by the end
of a rollout is bootstrapped with the value of its next decision, and its last, still open, decision is
carried over to the next rollout, so no reward is lost.

Warm start (``bc_steps > 0``, :meth:`PPOTrainer.behaviour_cloning`): before PPO the actor imitates a bot
(``bc_teacher``, the ``normal`` bot by default) by masked cross-entropy on that bot's own moves, seen through
its own observation; optionally DAgger-style at the end (``bc_dagger``: the learner moves, the bot labels).
Then the first ``value_warmup`` PPO iterations train the critic only. Matches decided by the deal itself (no
decision at all) are skipped.

Centralized critic (``central_critic=True``): the value network reads the observation, the oracle
``game.oracle(state)`` and the seat one-hot; the actor -- the only part that is shipped and plays -- reads
the observation alone.
"""
from __future__ import annotations

import copy
import json
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from .common import game_info
from .evaluate import EVAL_SEED, evaluate
from .model import ActorCritic, TorchPolicy
from .policy import NumpyPolicy
from .threads import single_thread_math

TRAIN_SEED_BASE = 1_000_000_000


@dataclass
class PPOConfig:
    env: str = "dominoes_v0"
    env_options: dict = field(default_factory=dict)
    seed: int = 0
    total_steps: int = 2_000_000       # learner decisions collected (the training budget)
    num_envs: int = 128
    rollout_ticks: int = 64            # decisions per match copy per iteration
    hidden: tuple = (256, 256)
    central_critic: bool = True
    lr: float = 3e-4
    lr_final: float = 1e-4             # linear decay to this
    epochs: int = 4
    minibatch: int = 2048
    clip: float = 0.2
    vf_coef: float = 0.5
    ent_coef: float = 0.01
    ent_final: float = 0.003
    max_grad_norm: float = 0.5
    gamma: float = 1.0
    lam: float = 0.95
    shaping: float = 0.5
    selfplay: float = 0.5              # share of matches where the learner plays every seat
    bots: dict = field(default_factory=lambda: {"random": 1.0})  # bot opponents and their weights
    bot_share: float = 0.5             # among non-self-play matches: share against bots (rest: snapshots)
    pool_size: int = 8
    snapshot_every: int = 10           # iterations between snapshots added to the pool
    eval_every: int = 20               # iterations between evaluations (0: never)
    eval_seeds: int = 40
    eval_opponents: tuple = ("random",)
    torch_threads: int = 1
    bc_steps: int = 0                  # warm start: decisions of the teacher bot imitated before PPO (0: off)
    bc_teacher: str = "normal"
    bc_epochs: int = 2                 # passes over each teacher rollout
    bc_vs_bots: float = 0.5            # share of warm-start matches where the teacher meets the training bots
    bc_lr: float = 1e-3
    bc_dagger: float = 0.0             # last share of the cloning decisions collected DAgger-style
    value_warmup: int = 0              # first PPO iterations that train the critic only (after a warm start)

    def to_json(self) -> dict:
        d = asdict(self)
        d["hidden"] = list(self.hidden)
        d["eval_opponents"] = list(self.eval_opponents)
        return d

    @classmethod
    def from_json(cls, d: dict) -> "PPOConfig":
        d = dict(d)
        d["hidden"] = tuple(d.get("hidden", (256, 256)))
        d["eval_opponents"] = tuple(d.get("eval_opponents", ("random",)))
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in d.items() if k in known})


LEARNER = "L"


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


class PPOTrainer:
    def __init__(self, cfg: PPOConfig, run_dir=None, log_fn=None):
        self.cfg = cfg
        torch.set_num_threads(cfg.torch_threads)
        single_thread_math()
        self.info = info = game_info(cfg.env, cfg.env_options)
        self.game = info.game
        self.n = info.num_players
        self.rng = np.random.default_rng(cfg.seed)
        torch.manual_seed(cfg.seed)
        self.tgen = torch.Generator().manual_seed(cfg.seed + 1)
        self.cobs_dim = (info.obs_dim + info.oracle_dim + self.n) if cfg.central_critic else 0
        self.model = ActorCritic(info.obs_dim, info.num_actions, cfg.hidden,
                                 critic_dim=self.cobs_dim or info.obs_dim)
        self.opt = torch.optim.Adam(self.model.parameters(), lr=cfg.lr, eps=1e-5)
        self.pool = []          # frozen actor snapshots
        self.iteration = 0
        self.steps = 0
        self.matches_done = 0
        self.seconds = 0.0            # wall time spent in train_iteration (evaluations included)
        self.cpu_seconds = 0.0        # CPU time of this process in training (the machine may be shared)
        self.run_dir = Path(run_dir) if run_dir is not None else None
        self.log_fn = log_fn
        self.history = []
        self.shaping_w = cfg.shaping / math.sqrt(max(1.0, info.deals_per_match)) / info.points_std
        E = cfg.num_envs
        self.cap = E * cfg.rollout_ticks + E * self.n
        self.buf = Rollout(self.cap, info.obs_dim, self.cobs_dim, info.num_actions)
        self.pending = np.full((E, self.n), -1, np.int64)
        self.states = [None] * E
        self.owners = [None] * E      # per match: list per seat of LEARNER / ("S", k) / ("B", name)
        self.bots = [None] * E        # per match: list per seat of bot instances (or None)
        self.last_deals = [0] * E
        self.match_seed_counter = 0
        self.ep_stats = []            # learner side returns of finished matches vs opponents
        self.teacher = None           # bot spec whose moves fill the learner seats (behaviour cloning)
        self.dagger = False           # during cloning: the learner moves and the teacher only labels
        self.bc_done = 0              # teacher decisions imitated so far
        self.best_key = None          # evaluation scores of the best policy so far (best.npz)
        for e in range(E):
            self._new_match(e)

    # ------------------------------------------------------------------ matches
    def _next_seed(self) -> int:
        self.match_seed_counter += 1
        return TRAIN_SEED_BASE + self.cfg.seed * 100_000_000 + self.match_seed_counter

    def _pick_owners(self):
        cfg, n = self.cfg, self.n
        if self.teacher is not None:
            # the teacher plays the learner seats: against itself, or (share bc_vs_bots) against the
            # training bots, so the imitation also covers the positions those opponents lead to
            if not cfg.bots or self.rng.random() >= cfg.bc_vs_bots:
                return [LEARNER] * n, None
        elif self.rng.random() < cfg.selfplay or (not cfg.bots and not self.pool):
            return [LEARNER] * n, None
        use_bot = cfg.bots and (self.teacher is not None or not self.pool or self.rng.random() < cfg.bot_share)
        if use_bot:
            names = list(cfg.bots)
            w = np.array([cfg.bots[k] for k in names], float)
            opp = ("B", names[self.rng.choice(len(names), p=w / w.sum())])
        else:
            opp = ("S", int(self.rng.integers(len(self.pool))))
        side = self.info.sides[int(self.rng.integers(len(self.info.sides)))]
        return [LEARNER if s in side else opp for s in range(n)], opp

    def _new_match(self, e: int) -> None:
        seed = self._next_seed()
        self.states[e] = self.game.new_state(seed)
        while self.states[e].terminal:  # decided by the deal itself (e.g. four aces, RULES C1.14): no decision
            seed = self._next_seed()
            self.states[e] = self.game.new_state(seed)
        owners, opp = self._pick_owners()
        self.owners[e] = owners
        if (opp is not None and opp[0] == "B") or self.teacher is not None:
            from .. import make_agent

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

    # ------------------------------------------------------------------ rollout
    def _critic_input(self, st, seat, obs_row, out):
        d, od = self.info.obs_dim, self.info.oracle_dim
        out[:d] = obs_row
        out[d:d + od] = self.game.oracle(st)
        out[d + od:] = 0.0
        out[d + od + seat] = 1.0

    def collect(self, count_steps: bool = True) -> None:
        cfg, game, info, n = self.cfg, self.game, self.info, self.n
        # carry the open transitions (the last decision of each seat, its reward still to come) to the front
        sel = self.pending >= 0
        open_idx = self.pending[sel]
        self.pending[sel] = self.buf.carry(open_idx)
        buf = self.buf
        A = info.num_actions
        model = self.model
        for _ in range(cfg.rollout_ticks):
            groups = {}
            for e, st in enumerate(self.states):
                groups.setdefault(self.owners[e][st.current_player], []).append(e)
            actions = {}
            for key, es in groups.items():
                k = len(es)
                if key == LEARNER:
                    j0 = buf.n
                    j1 = j0 + k
                    obs = buf.obs[j0:j1]
                    mask = buf.mask[j0:j1]
                    mask[:] = False
                    for r, e in enumerate(es):
                        st = self.states[e]
                        p = st.current_player
                        obs[r] = game.observe(st, p)
                        mask[r, st.legal_actions()] = True
                        if self.cobs_dim:
                            self._critic_input(st, p, obs[r], buf.cobs[j0 + r])
                    play = None
                    if self.teacher is not None:  # behaviour cloning: record the teacher bot's moves
                        a = np.array([self._bot_act(self.bots[e][self.states[e].current_player], obs[r],
                                                    mask[r].astype(np.int8), self.states[e])
                                      for r, e in enumerate(es)], np.int64)
                        buf.logp[j0:j1] = 0.0
                        buf.val[j0:j1] = 0.0
                        if self.dagger:  # DAgger: the learner moves, the teacher labels its positions
                            with torch.no_grad():
                                play = model.act(torch.from_numpy(obs), torch.from_numpy(mask), self.tgen)[0].numpy()
                    else:
                        with torch.no_grad():
                            to = torch.from_numpy(obs)
                            tm = torch.from_numpy(mask)
                            a, logp = model.act(to, tm, self.tgen)
                            v = model.value(torch.from_numpy(buf.cobs[j0:j1]) if self.cobs_dim else to)
                        a = a.numpy()
                        buf.logp[j0:j1] = logp.numpy()
                        buf.val[j0:j1] = v.numpy()
                    buf.act[j0:j1] = a
                    buf.rew[j0:j1] = 0.0
                    for r, e in enumerate(es):
                        p = self.states[e].current_player
                        i = self.pending[e, p]
                        if i >= 0:
                            buf.nxt[i] = j0 + r
                            buf.final[i] = True
                        self.pending[e, p] = j0 + r
                        actions[e] = int(a[r] if play is None else play[r])
                    buf.n = j1
                else:
                    obs = np.empty((k, info.obs_dim), np.float32)
                    mask = np.zeros((k, A), np.int8)
                    for r, e in enumerate(es):
                        st = self.states[e]
                        obs[r] = game.observe(st, st.current_player)
                        mask[r, st.legal_actions()] = 1
                    if key[0] == "S":
                        a = self.pool[key[1]].act_batch(obs, mask)
                    else:
                        a = [self._bot_act(self.bots[e][self.states[e].current_player], obs[r], mask[r],
                                           self.states[e]) for r, e in enumerate(es)]
                    for r, e in enumerate(es):
                        actions[e] = int(a[r])
            for e, a in actions.items():
                st = self.states[e]
                st.apply_action(a)
                if len(st.results) != self.last_deals[e] or st.terminal:
                    self._on_deal_end(e)
        if count_steps:
            self.steps += int(buf.final[:buf.n].sum())  # counted when they enter an update

    @staticmethod
    def _bot_act(bot, obs, mask, st) -> int:
        if getattr(bot, "needs_state", False):
            return bot.act(obs, mask, state=st, seat=st.current_player)
        return bot.act(obs, mask)

    def _on_deal_end(self, e: int) -> None:
        st = self.states[e]
        buf = self.buf
        r = np.zeros(self.n)
        for res in st.results[self.last_deals[e]:]:  # every deal this step ended: none is lost
            sp = np.asarray(res["seat_points"], float)
            r += self.shaping_w * (sp - sp.mean())
        self.last_deals[e] = len(st.results)
        if st.terminal:
            ret = np.asarray(st.returns(), float)
            r += ret
            opp_seats = [s for s in range(self.n) if self.owners[e][s] != LEARNER]
            if opp_seats:
                ls = self.owners[e].index(LEARNER)
                self.ep_stats.append(ret[ls])
        for s in range(self.n):
            i = self.pending[e, s]
            if i >= 0:
                buf.rew[i] += r[s]
        if st.terminal:
            for s in range(self.n):
                i = self.pending[e, s]
                if i >= 0:
                    buf.done[i] = True
                    buf.final[i] = True
                    self.pending[e, s] = -1
            self.matches_done += 1
            self._new_match(e)

    def advantages(self):
        buf, cfg = self.buf, self.cfg
        n = buf.n
        adv = np.zeros(n, np.float32)
        g, gl = cfg.gamma, cfg.gamma * cfg.lam
        rew, val, done, nxt, final = buf.rew, buf.val, buf.done, buf.nxt, buf.final
        for j in range(n - 1, -1, -1):
            if not final[j]:
                continue
            if done[j]:
                adv[j] = rew[j] - val[j]
            else:
                k = nxt[j]
                adv[j] = rew[j] + g * val[k] - val[j] + (gl * adv[k] if final[k] else 0.0)
        idx = np.flatnonzero(final[:n])
        return idx, adv[idx], adv[idx] + val[idx]

    # ------------------------------------------------------------------ update
    def update(self, frac_done: float) -> dict:
        cfg, buf, model = self.cfg, self.buf, self.model
        idx, adv, ret = self.advantages()
        lr = cfg.lr + (cfg.lr_final - cfg.lr) * frac_done
        ent_coef = cfg.ent_coef + (cfg.ent_final - cfg.ent_coef) * frac_done
        for gr in self.opt.param_groups:
            gr["lr"] = lr
        obs = torch.from_numpy(buf.obs[idx])
        mask = torch.from_numpy(buf.mask[idx])
        cobs = torch.from_numpy(buf.cobs[idx]) if self.cobs_dim else obs
        act = torch.from_numpy(buf.act[idx])
        old_logp = torch.from_numpy(buf.logp[idx])
        old_val = torch.from_numpy(buf.val[idx])
        adv_t = torch.from_numpy(adv)
        ret_t = torch.from_numpy(ret.astype(np.float32))
        N = len(idx)
        adv_n = (adv_t - adv_t.mean()) / (adv_t.std() + 1e-8)

        def batch_loss() -> float:
            """The clipped PPO objective (policy + value terms) on the whole batch, without entropy."""
            with torch.no_grad():
                tot = 0.0
                for s in range(0, N, 8192):
                    sl = slice(s, s + 8192)
                    logp, _, v = model.evaluate(obs[sl], mask[sl], cobs[sl], act[sl])
                    ratio = (logp - old_logp[sl]).exp()
                    a = adv_n[sl]
                    pg = -torch.min(ratio * a, ratio.clamp(1 - cfg.clip, 1 + cfg.clip) * a).sum()
                    tot += float(pg + cfg.vf_coef * 0.5 * ((v - ret_t[sl]) ** 2).sum())
                return tot / max(1, N)

        loss_before = batch_loss()
        stats = {"pg": 0.0, "vf": 0.0, "ent": 0.0, "kl": 0.0, "clipfrac": 0.0}
        count = 0
        v_before = float(((old_val - ret_t) ** 2).mean())
        for _ in range(cfg.epochs):
            perm = torch.randperm(N, generator=self.tgen)
            for s in range(0, N, cfg.minibatch):
                mb = perm[s:s + cfg.minibatch]
                if len(mb) < cfg.minibatch // 4 and s > 0:
                    continue
                logp, ent, v = model.evaluate(obs[mb], mask[mb], cobs[mb], act[mb])
                a = adv_t[mb]
                a = (a - a.mean()) / (a.std() + 1e-8)
                ratio = (logp - old_logp[mb]).exp()
                pg = -torch.min(ratio * a, ratio.clamp(1 - cfg.clip, 1 + cfg.clip) * a).mean()
                vf = 0.5 * ((v - ret_t[mb]) ** 2).mean()
                e = ent.mean()
                if self.iteration < cfg.value_warmup:  # critic only, the warm-started actor stays
                    loss = cfg.vf_coef * vf
                else:
                    loss = pg + cfg.vf_coef * vf - ent_coef * e
                self.opt.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
                self.opt.step()
                with torch.no_grad():
                    lr_ = logp - old_logp[mb]
                    stats["kl"] += float(((lr_.exp() - 1) - lr_).mean())
                    stats["clipfrac"] += float(((ratio - 1).abs() > cfg.clip).float().mean())
                stats["pg"] += float(pg.detach())
                stats["vf"] += float(vf.detach())
                stats["ent"] += float(e.detach())
                count += 1
        for k in stats:
            stats[k] /= max(1, count)
        stats["vf_before"] = 0.5 * v_before
        stats["loss_before"] = loss_before
        stats["loss_after"] = batch_loss()
        stats["samples"] = N
        stats["lr"] = lr
        return stats

    # ------------------------------------------------------------------ warm start
    def behaviour_cloning(self, log_fn=None) -> dict:
        """Imitate ``cfg.bc_teacher`` for ``cfg.bc_steps`` of its decisions (streamed: each rollout of teacher
        self-play is used for ``bc_epochs`` passes of masked cross-entropy, then dropped), so that PPO starts
        from a sensible policy instead of a uniform one. In the last ``bc_dagger`` share the learner plays
        (sampling its policy) and the teacher labels the positions it reaches (DAgger), so the clone also
        learns to recover from positions its own mistakes lead to. The teacher sees only its own observation, so the
        cloned policy never learns from hidden information. Matches restart afterwards."""
        cfg = self.cfg
        actor = self.model.actor
        opt = torch.optim.Adam(actor.parameters(), lr=cfg.bc_lr)
        self.teacher = cfg.bc_teacher
        self._restart_matches()
        stats = {}
        t0 = time.perf_counter()
        c0 = time.process_time()
        while self.bc_done < cfg.bc_steps:
            self.dagger = self.bc_done >= (1.0 - cfg.bc_dagger) * cfg.bc_steps
            self.collect(count_steps=False)
            n = self.buf.n
            obs = torch.from_numpy(self.buf.obs[:n])
            mask = torch.from_numpy(self.buf.mask[:n])
            act = torch.from_numpy(self.buf.act[:n])
            tot = correct = 0.0
            k = 0
            for _ in range(cfg.bc_epochs):
                perm = torch.randperm(n, generator=self.tgen)
                for s0 in range(0, n, 512):
                    mb = perm[s0:s0 + 512]
                    logits = actor(obs[mb]).masked_fill(~mask[mb], -1e9)
                    loss = torch.nn.functional.cross_entropy(logits, act[mb])
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    opt.step()
                    tot += float(loss.detach()) * len(mb)
                    correct += float((logits.argmax(-1) == act[mb]).float().sum())
                    k += len(mb)
            self.bc_done += n
            stats = {"bc_decisions": self.bc_done, "bc_loss": tot / k, "bc_accuracy": correct / k,
                     "bc_seconds": time.perf_counter() - t0}
            if log_fn is not None:
                log_fn(stats)
            self.buf.n = 0
            self.pending[:] = -1
        self.teacher = None
        self.dagger = False
        self._restart_matches()
        self.seconds += time.perf_counter() - t0
        self.cpu_seconds += time.process_time() - c0
        if self.run_dir is not None:
            with open(self.run_dir / "log.jsonl", "a") as f:
                f.write(json.dumps(stats) + "\n")
        return stats

    def _restart_matches(self) -> None:
        self.buf.n = 0
        self.pending[:] = -1
        for e in range(self.cfg.num_envs):
            self._new_match(e)

    # ------------------------------------------------------------------ loop
    def policy(self) -> NumpyPolicy:
        return NumpyPolicy(self.model.actor_layers(), self.export_config())

    def export_config(self) -> dict:
        info = self.info
        return {"env": self.cfg.env, "env_options": self.cfg.env_options, "algo": "ppo",
                "obs_dim": info.obs_dim, "num_actions": info.num_actions, "hidden": list(self.cfg.hidden),
                "activation": "relu", "seed": self.cfg.seed, "iteration": self.iteration,
                "steps": self.steps, "matches": self.matches_done,
                "train_seconds": round(self.seconds, 1),
                "train_cpu_seconds": round(self.cpu_seconds, 1), "bc_decisions": self.bc_done, "train_config": self.cfg.to_json()}

    def evaluate_now(self) -> dict:
        pol = self.policy()
        out = {}
        for opp in self.cfg.eval_opponents:
            r = evaluate(pol, opp, self.cfg.env, self.cfg.eval_seeds, seed=EVAL_SEED, env_options=self.cfg.env_options)
            sc = r["score"]
            out[opp] = {"score": sc["mean"], "ci": sc["mean"] - sc["lo"], "lo": sc["lo"], "hi": sc["hi"],
                        "n": sc["n"], "margin": r["margin"]["mean"]}
        return out

    def _evaluate_into(self, stats: dict) -> None:
        """Evaluate the current policy into ``stats`` (``eval``, ``eval_s``) and keep it as ``best.npz`` if it
        is the best so far (score against the last, strongest, evaluation opponent first)."""
        t3 = time.perf_counter()
        stats["eval"] = self.evaluate_now()
        stats["eval_s"] = time.perf_counter() - t3
        key = tuple(stats["eval"][o]["score"] for o in reversed(self.cfg.eval_opponents))
        if self.best_key is None or key > self.best_key:
            self.best_key = key
            stats["best"] = True
            if self.run_dir is not None:
                self.policy().save(self.run_dir / "best.npz", self.export_config())

    def final_evaluation(self) -> dict | None:
        """Every run ends on an evaluation: if the last iteration was not evaluated (a run shorter than
        ``eval_every`` iterations, a budget or a clock that stopped it between two evaluations), evaluate the
        final policy now, as a periodic evaluation (it may become ``best.npz``), into that iteration's entry of
        ``history`` and ``log.jsonl``. Returns that entry, or None where there is nothing to do: no iteration
        yet, the last one already evaluated, or evaluations off (``eval_every=0``)."""
        if not self.cfg.eval_every or not self.history or "eval" in self.history[-1]:
            return None
        t0, c0 = time.perf_counter(), time.process_time()
        stats = self.history[-1]
        self._evaluate_into(stats)
        stats["final_eval"] = True
        self.seconds += time.perf_counter() - t0
        self.cpu_seconds += time.process_time() - c0
        stats["seconds"], stats["cpu_seconds"] = self.seconds, self.cpu_seconds
        if self.run_dir is not None:  # that iteration's line, rewritten with its evaluation
            log = self.run_dir / "log.jsonl"
            lines = log.read_text().splitlines() if log.exists() else []
            if lines and json.loads(lines[-1]).get("iteration") == stats["iteration"]:
                lines.pop()
            lines.append(json.dumps(stats))
            log.write_text("\n".join(lines) + "\n")
        return stats

    def train_iteration(self) -> dict:
        cfg = self.cfg
        t0 = time.perf_counter()
        c0 = time.process_time()
        self.collect()
        t1 = time.perf_counter()
        stats = self.update(min(1.0, self.steps / cfg.total_steps))
        t2 = time.perf_counter()
        self.iteration += 1
        stats.update(iteration=self.iteration, steps=self.steps, matches=self.matches_done,
                     collect_s=t1 - t0, update_s=t2 - t1)
        if self.ep_stats:
            stats["vs_pool_return"] = float(np.mean(self.ep_stats))
            self.ep_stats = []
        if cfg.snapshot_every and self.iteration % cfg.snapshot_every == 0:
            snap = copy.deepcopy(self.model.actor).eval()
            for p in snap.parameters():
                p.requires_grad_(False)
            self.pool.append(TorchPolicy(snap, self.tgen))
            self.pool = self.pool[-cfg.pool_size:]
        if cfg.eval_every and self.iteration % cfg.eval_every == 0:
            self._evaluate_into(stats)
        self.seconds += time.perf_counter() - t0
        self.cpu_seconds += time.process_time() - c0
        stats["seconds"] = self.seconds
        stats["cpu_seconds"] = self.cpu_seconds
        self.history.append(stats)
        if self.run_dir is not None:
            with open(self.run_dir / "log.jsonl", "a") as f:
                f.write(json.dumps(stats) + "\n")
        if self.log_fn is not None:
            self.log_fn(stats)
        return stats

    def done(self) -> bool:
        return self.steps >= self.cfg.total_steps

    # ------------------------------------------------------------------ checkpoints
    def save(self, path=None) -> Path:
        path = Path(path) if path is not None else self.run_dir / "last.pt"
        path.parent.mkdir(parents=True, exist_ok=True)
        torch.save({
            "config": self.cfg.to_json(), "model": self.model.state_dict(), "opt": self.opt.state_dict(),
            "pool": [p.actor.state_dict() for p in self.pool], "iteration": self.iteration,
            "steps": self.steps, "matches": self.matches_done, "seconds": self.seconds, "cpu_seconds": self.cpu_seconds, "bc_done": self.bc_done, "best_key": self.best_key, "seed_counter": self.match_seed_counter,
            "np_rng": self.rng.bit_generator.state, "torch_rng": torch.get_rng_state(),
            "tgen": self.tgen.get_state(), "history": self.history,
        }, path)
        self.policy().save(path.with_name("policy.npz"), self.export_config())
        return path

    def load(self, path) -> None:
        """Resume from a ``last.pt``: weights, optimizer, pool, counters and random generators. The matches
        that were in progress are not saved; training restarts with fresh matches."""
        ck = torch.load(path, weights_only=False)
        self.model.load_state_dict(ck["model"])
        self.opt.load_state_dict(ck["opt"])
        self.pool = []
        for sd in ck["pool"]:
            snap = copy.deepcopy(self.model.actor).eval()
            snap.load_state_dict(sd)
            for p in snap.parameters():
                p.requires_grad_(False)
            self.pool.append(TorchPolicy(snap, self.tgen))
        self.iteration, self.steps, self.matches_done = ck["iteration"], ck["steps"], ck["matches"]
        self.match_seed_counter = ck["seed_counter"]
        self.rng.bit_generator.state = ck["np_rng"]
        torch.set_rng_state(ck["torch_rng"])
        self.tgen.set_state(ck["tgen"])
        self.history = ck.get("history", [])
        self.seconds = ck.get("seconds", 0.0)
        self.bc_done = ck.get("bc_done", 0)
        self.cpu_seconds = ck.get("cpu_seconds", 0.0)
        self.best_key = ck.get("best_key")
        self._restart_matches()
