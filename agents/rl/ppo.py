"""PPO self-play with an opponent pool, on many engine copies at once (PyTorch, CPU).

* :class:`PPOConfig` -- every setting of a run (defined in :mod:`agents.rl.configs`, with the documented
  ones per game; importable from here too);
* :func:`advantages` -- GAE(gamma, lambda) along each seat's own trajectory in a
  :class:`~agents.rl.rollout.Rollout`: a trajectory cut by the end of a rollout is bootstrapped with the
  value of its next decision (its last, still open, decision is carried over to the next rollout);
* :func:`ppo_update` -- the clipped PPO update (policy, value and entropy terms) on one rollout;
* :class:`PPOTrainer` -- one run: the matches and their rollouts (:mod:`agents.rl.rollout`: seats, opponent
  pool, rewards; with ``vector=True`` all the matches are one batched vector env,
  :mod:`agents.rl.vector_rollout`, for the envs of ``kozel_env.vector.BATCHED``), the warm start
  (:mod:`agents.rl.imitation`), the updates, the periodic evaluations on duplicate deals
  (:mod:`agents.rl.evaluate`; the best one kept as ``best.npz``) and the resumable checkpoint (``last.pt``).
  The command-line run around it is :mod:`agents.rl.train`.

Centralized critic (``central_critic=True``): the value network reads the observation, the oracle
``game.oracle(state)`` and the seat one-hot; the actor -- the only part that is shipped and plays -- reads
the observation alone.
"""
from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from .common import game_info
from .configs import PPOConfig
from .evaluate import EVAL_SEED, evaluate
from .imitation import behaviour_cloning
from .model import ActorCritic
from .policy import STAGE_KEYS, NumpyPolicy
from .rollout import LEARNER, Collector, OpponentPool, Rollout
from .safe_load import load_checkpoint, plain
from .sparse import rows_of, take
from .threads import single_thread_math
from .vector_rollout import VectorCollector

__all__ = ["LEARNER", "PPOConfig", "PPOTrainer", "advantages", "ppo_update"]


def advantages(buf: Rollout, gamma: float, lam: float) -> tuple:
    """GAE along the trajectories of ``buf`` (see the module doc): ``(indices of the final transitions,
    their advantages, their returns)``."""
    n = buf.n
    adv = np.zeros(n, np.float32)
    g, gl = gamma, gamma * lam
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


class _Batch:
    """One rollout's final transitions as tensors, with their advantages and returns (the first ``limit`` of
    them, in the order they were collected, where given: the last iteration of a budget). The observations
    and critic inputs are kept as their nonzero entries where they are sparse (:func:`agents.rl.sparse.rows_of`:
    the first layers are computed from those)."""

    def __init__(self, buf: Rollout, gamma: float, lam: float, limit: int | None = None):
        idx, adv, ret = advantages(buf, gamma, lam)
        if limit is not None:
            idx, adv, ret = idx[:limit], adv[:limit], ret[:limit]
        self.obs = rows_of(torch.from_numpy(buf.obs[idx]))
        self.mask = torch.from_numpy(buf.mask[idx])
        self.cobs = rows_of(torch.from_numpy(buf.cobs[idx])) if buf.cobs is not None else self.obs
        self.act = torch.from_numpy(buf.act[idx])
        self.old_logp = torch.from_numpy(buf.logp[idx])
        self.old_val = torch.from_numpy(buf.val[idx])
        self.adv = torch.from_numpy(adv)
        self.ret = torch.from_numpy(ret.astype(np.float32))
        self.n = len(idx)
        self.adv_n = (self.adv - self.adv.mean()) / (self.adv.std() + 1e-8)

    def evaluate(self, model: ActorCritic, mb: torch.Tensor) -> tuple:
        """``model.evaluate`` on the minibatch ``mb`` (row indices)."""
        return model.evaluate(take(self.obs, mb), self.mask[mb], take(self.cobs, mb), self.act[mb])

    def loss(self, mb: torch.Tensor, logp: torch.Tensor, v: torch.Tensor, clip: float, vf_coef: float) -> float:
        """The clipped PPO objective (policy + value terms, the advantages normalized over the whole batch,
        no entropy) of the minibatch ``mb`` whose log-probs and values are ``logp`` and ``v``."""
        if not len(mb):
            return 0.0
        with torch.no_grad():
            ratio = (logp - self.old_logp[mb]).exp()
            a = self.adv_n[mb]
            pg = -torch.min(ratio * a, ratio.clamp(1 - clip, 1 + clip) * a).mean()
            return float(pg + vf_coef * 0.5 * ((v - self.ret[mb]) ** 2).mean())


PRECISIONS = ("float32", "bfloat16")


def _precision(cfg: PPOConfig):
    """The update's forward passes under ``cfg.precision``: bfloat16 matrix products (``torch.autocast``; the
    weights, their gradients and Adam stay float32), or float32 as they are."""
    return torch.autocast("cpu", dtype=torch.bfloat16, enabled=cfg.precision == "bfloat16")


def ppo_update(model: ActorCritic, opt: torch.optim.Optimizer, buf: Rollout, cfg: PPOConfig,
               generator: torch.Generator, frac_done: float, critic_only: bool = False,
               limit: int | None = None) -> dict:
    """``cfg.epochs`` passes of clipped PPO over the final transitions of ``buf`` (the first ``limit`` of them
    where given), in shuffled minibatches; lr and entropy coefficient decay linearly with ``frac_done``;
    ``critic_only`` (the value warm-up) trains the value term alone. Returns the mean ``pg``, ``vf``, ``ent``,
    ``kl``, ``clipfrac``; the PPO loss (:meth:`_Batch.loss`) of the first minibatch -- a random sample of up to
    ``cfg.minibatch`` of the decisions, all of them in a smaller batch -- before the update and after it
    (``loss_before``: from the first step's own forward pass, ``loss_after``: one more pass); ``vf_before`` (the
    value loss of the whole batch at collection), ``samples``, ``lr``."""
    b = _Batch(buf, cfg.gamma, cfg.lam, limit)
    lr = cfg.lr + (cfg.lr_final - cfg.lr) * frac_done
    ent_coef = cfg.ent_coef + (cfg.ent_final - cfg.ent_coef) * frac_done
    for gr in opt.param_groups:
        gr["lr"] = lr
    sums = torch.zeros(5)   # pg, vf, ent, kl, clipfrac
    count = 0
    probe = loss_before = None
    for _ in range(cfg.epochs):
        perm = torch.randperm(b.n, generator=generator)
        for s in range(0, b.n, cfg.minibatch):
            mb = perm[s:s + cfg.minibatch]
            if len(mb) < cfg.minibatch // 4 and s > 0:
                continue
            with _precision(cfg):
                logp, ent, v = b.evaluate(model, mb)
            if probe is None:
                probe, loss_before = mb, b.loss(mb, logp, v, cfg.clip, cfg.vf_coef)
            a = b.adv[mb]
            a = (a - a.mean()) / (a.std() + 1e-8)
            ratio = (logp - b.old_logp[mb]).exp()
            pg = -torch.min(ratio * a, ratio.clamp(1 - cfg.clip, 1 + cfg.clip) * a).mean()
            vf = 0.5 * ((v - b.ret[mb]) ** 2).mean()
            e = ent.mean()
            loss = cfg.vf_coef * vf if critic_only else pg + cfg.vf_coef * vf - ent_coef * e
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
            opt.step()
            with torch.no_grad():
                lr_ = logp - b.old_logp[mb]
                sums += torch.stack([pg, vf, e, ((lr_.exp() - 1) - lr_).mean(),
                                     ((ratio - 1).abs() > cfg.clip).float().mean()])
            count += 1
    stats = dict(zip(("pg", "vf", "ent", "kl", "clipfrac"), (sums / max(1, count)).tolist()))
    if probe is None:   # no step taken (no epochs or no decisions): the loss stayed what it was
        probe = torch.arange(min(b.n, cfg.minibatch))
    with torch.no_grad(), _precision(cfg):
        logp, _, v = b.evaluate(model, probe)
    after = b.loss(probe, logp, v, cfg.clip, cfg.vf_coef)
    stats.update(loss_before=after if loss_before is None else loss_before, loss_after=after)
    stats.update(vf_before=0.5 * float(((b.old_val - b.ret) ** 2).mean()), samples=b.n, lr=lr)
    return stats


class PPOTrainer:
    """One PPO run (see the module doc). ``run_dir``: where ``log.jsonl`` and ``best.npz`` go (none: nowhere);
    ``log_fn`` gets every iteration's statistics."""

    def __init__(self, cfg: PPOConfig, run_dir=None, log_fn: Callable[[dict], None] | None = None):
        self.cfg = cfg
        if cfg.precision not in PRECISIONS:
            raise ValueError(f"precision={cfg.precision!r} is not allowed: one of {', '.join(PRECISIONS)}")
        torch.set_num_threads(cfg.torch_threads)
        single_thread_math()
        self.info = info = game_info(cfg.env, cfg.env_options)
        self.game = info.game
        self.n = info.num_players
        self.rng = np.random.default_rng(cfg.seed)
        torch.manual_seed(cfg.seed)
        self.tgen = torch.Generator().manual_seed(cfg.seed + 1)
        cobs_dim = (info.obs_dim + info.oracle_dim + self.n) if cfg.central_critic else 0
        self.model = ActorCritic(info.obs_dim, info.num_actions, cfg.hidden, critic_dim=cobs_dim or info.obs_dim)
        self.init_source = None       # with cfg.init_from: the starting policy's own training (export_config)
        if cfg.init_from:
            self.init_actor(cfg.init_from)
        # foreach: the step as a few ops over all the tensors (on CPU torch's default is a loop over them)
        self.opt = torch.optim.Adam(self.model.parameters(), lr=cfg.lr, eps=1e-5, foreach=True)
        self.pool = OpponentPool(cfg.pool_size, self.tgen)   # frozen actor snapshots
        self.iteration = 0
        self.steps = 0
        self.seconds = 0.0            # wall time spent in train_iteration (evaluations included)
        self.cpu_seconds = 0.0        # CPU time of this process in training (the machine may be shared)
        self.run_dir = Path(run_dir) if run_dir is not None else None
        self.log_fn = log_fn
        self.history = []
        self.bc_done = 0              # teacher decisions imitated so far
        self.best_key = None          # evaluation scores of the best policy so far (best.npz)
        collector = VectorCollector if cfg.vector else Collector
        self.collector = collector(cfg, info, self.model, self.rng, self.tgen, self.pool)

    def init_actor(self, source: str) -> Path:
        """Copy a trained policy's weights into the actor (``cfg.init_from``: fine-tuning a shipped policy
        instead of a warm start by imitation; the critic starts fresh, so ``value_warmup`` iterations train
        it alone first). ``source``: a policy ``.npz`` or ``"shipped"`` (``agents/checkpoints/<env>.npz``).
        Refuses a policy of another game, options or layout, naming both."""
        from .policy import CHECKPOINT_DIR, NumpyPolicy, checkpoint_path

        path = checkpoint_path(self.cfg.env) if source == "shipped" else Path(source)
        pol = NumpyPolicy.from_files(path)
        linears = [m for m in self.model.actor if isinstance(m, torch.nn.Linear)]
        got = (pol.config.get("env", self.cfg.env), pol.config.get("env_options") or {},
               [Wt.shape[::-1] for Wt, _ in pol.layers])   # (out, in), as torch stores its weights
        want = (self.cfg.env, self.cfg.env_options, [tuple(m.weight.shape) for m in linears])
        if got != want:
            raise ValueError(f"init_from {path}: a policy for {got[0]} {got[1]} with layers {got[2]}, not "
                             f"{want[0]} {want[1]} with layers {want[2]} (set hidden= to the policy's layout)")
        with torch.no_grad():
            for m, (Wt, b) in zip(linears, pol.layers):
                m.weight.copy_(torch.from_numpy(Wt.T.copy()))
                m.bias.copy_(torch.from_numpy(b.copy()))
        # what the starting policy cost, kept in the exported config (policy.training_stages reads the chain)
        try:  # a path inside the project is recorded relative to it (no machine's folders in a shipped file)
            shown = str(path.resolve().relative_to(CHECKPOINT_DIR.parent.parent))
        except ValueError:
            shown = str(path)
        self.init_source = {"path": shown, **{k: pol.config[k] for k in (*STAGE_KEYS, "init_from")
                                              if k in pol.config}}
        return path

    @property
    def matches_done(self) -> int:
        return self.collector.matches_done

    def _log_line(self, stats: dict) -> None:
        if self.run_dir is not None:
            with open(self.run_dir / "log.jsonl", "a") as f:
                f.write(json.dumps(stats) + "\n")

    # ------------------------------------------------------------------ warm start
    def behaviour_cloning(self, log_fn: Callable[[dict], None] | None = None) -> dict:
        """The warm start (:func:`agents.rl.imitation.behaviour_cloning`) up to ``cfg.bc_steps`` imitated
        decisions; its last statistics go to ``log.jsonl``. Matches restart afterwards."""
        t0, c0 = time.perf_counter(), time.process_time()
        self.bc_done, stats = behaviour_cloning(self.collector, self.model.actor, self.cfg, self.tgen,
                                                self.bc_done, log_fn)
        self.seconds += time.perf_counter() - t0
        self.cpu_seconds += time.process_time() - c0
        self._log_line(stats)
        return stats

    # ------------------------------------------------------------------ loop
    def train_iteration(self) -> dict:
        """Collect one rollout, update, snapshot into the pool and evaluate when due; returns the statistics
        (also in ``history`` and ``log.jsonl``). The budget is exact: where the rollout holds more decisions
        than ``cfg.total_steps`` leaves, only the first of them (as many as are left) enter the update, the
        rest are dropped, and the run ends on exactly ``total_steps`` decisions."""
        cfg = self.cfg
        t0 = time.perf_counter()
        c0 = time.process_time()
        collected = self.collector.collect()
        left = max(1, cfg.total_steps - self.steps)
        limit = left if collected > left else None
        self.steps += min(collected, left)  # counted when they enter an update
        t1 = time.perf_counter()
        stats = ppo_update(self.model, self.opt, self.collector.buf, cfg, self.tgen,
                           min(1.0, self.steps / cfg.total_steps), critic_only=self.iteration < cfg.value_warmup,
                           limit=limit)
        t2 = time.perf_counter()
        self.iteration += 1
        stats.update(iteration=self.iteration, steps=self.steps, matches=self.matches_done,
                     collect_s=t1 - t0, update_s=t2 - t1)
        if self.collector.ep_stats:
            stats["vs_pool_return"] = float(np.mean(self.collector.ep_stats))
            self.collector.ep_stats = []
        if cfg.snapshot_every and self.iteration % cfg.snapshot_every == 0:
            self.pool.add(self.model.actor)
        if cfg.eval_every and self.iteration % cfg.eval_every == 0:
            self._evaluate_into(stats)
        self.seconds += time.perf_counter() - t0
        self.cpu_seconds += time.process_time() - c0
        stats["seconds"] = self.seconds
        stats["cpu_seconds"] = self.cpu_seconds
        self.history.append(stats)
        self._log_line(stats)
        if self.log_fn is not None:
            self.log_fn(stats)
        return stats

    def done(self) -> bool:
        return self.steps >= self.cfg.total_steps

    # ------------------------------------------------------------------ evaluation
    def policy(self) -> NumpyPolicy:
        """The current actor in numpy (the shipped format)."""
        return NumpyPolicy(self.model.actor_layers(), self.export_config())

    def export_config(self) -> dict:
        info = self.info
        return {"env": self.cfg.env, "env_options": self.cfg.env_options, "algo": "ppo",
                "obs_dim": info.obs_dim, "num_actions": info.num_actions, "hidden": list(self.cfg.hidden),
                "activation": "relu", "seed": self.cfg.seed, "iteration": self.iteration,
                "steps": self.steps, "matches": self.matches_done,
                "train_seconds": round(self.seconds, 1),
                "train_cpu_seconds": round(self.cpu_seconds, 1), "bc_decisions": self.bc_done,
                "train_config": self.cfg.to_json(),
                **({"init_from": self.init_source} if self.init_source else {})}

    def evaluate_now(self) -> dict:
        """The current policy against each ``cfg.eval_opponents`` on ``eval_seeds`` held-out duplicate sets."""
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

    # ------------------------------------------------------------------ checkpoints
    def save(self, path: str | Path | None = None) -> Path:
        """Write ``last.pt`` (everything :meth:`load` needs) and the actor as ``policy.npz`` beside it. The
        checkpoint holds tensors and plain data only (:func:`agents.rl.safe_load.plain`), so that it loads with
        ``torch.load(weights_only=True)``: the random generators' states too (numpy's as its dict of ints)."""
        path = Path(path) if path is not None else self.run_dir / "last.pt"
        path.parent.mkdir(parents=True, exist_ok=True)
        torch.save({
            "config": plain(self.cfg.to_json(), "config"), "model": self.model.state_dict(),
            "opt": self.opt.state_dict(), "pool": self.pool.state_dicts(), "iteration": self.iteration,
            "steps": self.steps, "matches": self.matches_done, "seconds": float(self.seconds),
            "cpu_seconds": float(self.cpu_seconds), "bc_done": self.bc_done,
            "best_key": plain(self.best_key, "best_key"), "seed_counter": self.collector.seed_counter,
            "np_rng": plain(self.rng.bit_generator.state, "np_rng"), "torch_rng": torch.get_rng_state(),
            "tgen": self.tgen.get_state(), "history": plain(self.history, "history"),
            "init_source": plain(self.init_source, "init_source"),
        }, path)
        self.policy().save(path.with_name("policy.npz"), self.export_config())
        return path

    def load(self, path: str | Path) -> None:
        """Resume from a ``last.pt``: weights, optimizer, pool, counters and random generators. The matches
        that were in progress are not saved; training restarts with fresh matches. The file is loaded with
        ``weights_only=True`` (:func:`agents.rl.safe_load.load_checkpoint`): one holding anything but tensors
        and plain data is refused (:class:`~agents.rl.safe_load.UnsafeFileError`), none of its code runs."""
        ck = load_checkpoint(path)
        self.model.load_state_dict(ck["model"])
        self.opt.load_state_dict(ck["opt"])
        for group in self.opt.param_groups:   # a checkpoint from before foreach=True: the same Adam, faster
            group["foreach"] = True
        self.pool.load(self.model.actor, ck["pool"])
        self.iteration, self.steps, self.collector.matches_done = ck["iteration"], ck["steps"], ck["matches"]
        self.collector.seed_counter = ck["seed_counter"]
        self.rng.bit_generator.state = ck["np_rng"]
        torch.set_rng_state(ck["torch_rng"])
        self.tgen.set_state(ck["tgen"])
        self.history = ck.get("history", [])
        self.seconds = ck.get("seconds", 0.0)
        self.bc_done = ck.get("bc_done", 0)
        self.cpu_seconds = ck.get("cpu_seconds", 0.0)
        best = ck.get("best_key")
        self.best_key = tuple(best) if best is not None else None
        # the policy the run started from, as it was then (init_from="shipped" may name another file by now)
        self.init_source = ck.get("init_source", self.init_source)
        self.collector.restart()
