"""Behaviour cloning, the warm start before PPO (``bc_steps > 0``).

The actor imitates a bot (``bc_teacher``, the ``normal`` bot by default) by masked cross-entropy on that
bot's own moves, seen through its own observation, so the clone never learns from hidden information. The
decisions are streamed: each rollout of the teacher's matches (:class:`agents.rl.rollout.Collector` with a
``teacher``; a share ``bc_vs_bots`` of them against the training bots) is used for ``bc_epochs`` passes and
then dropped. In the last ``bc_dagger`` share the learner plays (sampling its policy) and the teacher labels
the positions it reaches (DAgger), so the clone also learns to recover from positions its own mistakes lead
to. Then the first ``value_warmup`` PPO iterations train the critic only (:mod:`agents.rl.ppo`).

With ``bc_data`` (a folder of :mod:`agents.rl.labels`: positions the policy reached, searched by a teacher) the
positions come from its chunk files in order instead of a live teacher, each chunk used for ``bc_epochs``
passes; ``bc_target="soft"`` fits each position's ``target`` (the chance that each move is the teacher's best)
by cross-entropy against the whole distribution, ``"move"`` the teacher's move.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import torch

from .rollout import Collector

if TYPE_CHECKING:
    from .configs import PPOConfig


def _cross_entropy_passes(actor: torch.nn.Module, opt: torch.optim.Optimizer, collector: Collector,
                          epochs: int, generator: torch.Generator, limit: int | None = None) -> tuple:
    """``epochs`` passes of masked cross-entropy (minibatches of 512) over the collected rollout (its first
    ``limit`` decisions where given); returns ``(mean loss, accuracy)`` over every minibatch row."""
    buf = collector.buf
    n = buf.n if limit is None else min(buf.n, limit)
    return _passes(actor, opt, torch.from_numpy(buf.obs[:n]), torch.from_numpy(buf.mask[:n]),
                   torch.from_numpy(buf.act[:n]), epochs, generator)


def _passes(actor: torch.nn.Module, opt: torch.optim.Optimizer, obs: torch.Tensor, mask: torch.Tensor,
            act: torch.Tensor, epochs: int, generator: torch.Generator, target: torch.Tensor | None = None) -> tuple:
    """``epochs`` passes of masked cross-entropy (minibatches of 512) against ``act`` (or the distributions
    ``target``, where given); returns ``(mean loss, accuracy)`` (agreement with ``act``) over every row."""
    n = len(act)
    tot = correct = 0.0
    k = 0
    for _ in range(epochs):
        perm = torch.randperm(n, generator=generator)
        for s0 in range(0, n, 512):
            mb = perm[s0:s0 + 512]
            logits = actor(obs[mb]).masked_fill(~mask[mb], -1e9)
            loss = torch.nn.functional.cross_entropy(logits, act[mb] if target is None else target[mb])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            tot += float(loss.detach()) * len(mb)
            correct += float((logits.argmax(-1) == act[mb]).float().sum())
            k += len(mb)
    return tot / k, correct / k


def behaviour_cloning(collector: Collector, actor: torch.nn.Module, cfg: PPOConfig, generator: torch.Generator,
                      done: int = 0, log_fn: Callable[[dict], None] | None = None) -> tuple:
    """Imitate ``cfg.bc_teacher`` until exactly ``cfg.bc_steps`` of its decisions are imitated (``done``
    already were; of the last rollout only the decisions still due are used, in the order they were played);
    see the module doc. ``log_fn`` gets the statistics after every rollout. The matches restart
    before and after. Returns ``(decisions imitated in all, last statistics)``: ``bc_decisions``,
    ``bc_loss``, ``bc_accuracy``, ``bc_seconds``."""
    opt = torch.optim.Adam(actor.parameters(), lr=cfg.bc_lr)
    if cfg.bc_data:
        return _from_labels(actor, opt, cfg, generator, done, log_fn)
    collector.teacher = cfg.bc_teacher
    collector.restart()
    stats = {}
    t0 = time.perf_counter()
    while done < cfg.bc_steps:
        collector.dagger = done >= (1.0 - cfg.bc_dagger) * cfg.bc_steps
        collector.collect()
        used = min(collector.buf.n, cfg.bc_steps - done)
        loss, accuracy = _cross_entropy_passes(actor, opt, collector, cfg.bc_epochs, generator, used)
        done += used
        stats = {"bc_decisions": done, "bc_loss": loss, "bc_accuracy": accuracy,
                 "bc_seconds": time.perf_counter() - t0}
        if log_fn is not None:
            log_fn(stats)
        collector.buf.n = 0
        collector.pending[:] = -1
    collector.teacher = None
    collector.dagger = False
    collector.restart()
    return done, stats


def _from_labels(actor: torch.nn.Module, opt: torch.optim.Optimizer, cfg: PPOConfig, generator: torch.Generator,
                 done: int, log_fn: Callable[[dict], None] | None) -> tuple:
    """:func:`behaviour_cloning` from the chunks of ``cfg.bc_data`` (module doc): their positions in order,
    the first ``done`` skipped, up to ``cfg.bc_steps``; a folder with fewer positions is refused
    (:class:`ValueError` naming both counts)."""
    from .labels import read_chunks
    from .safe_load import load_arrays

    if cfg.bc_target not in ("move", "soft"):
        raise ValueError(f"bc_target={cfg.bc_target!r}: 'move' (the teacher's move) or 'soft' (its move values)")
    chunks = [load_arrays(p, "labels chunk") for p in read_chunks(cfg.bc_data)]
    have = sum(len(c["move"]) for c in chunks)
    if have < cfg.bc_steps:
        raise ValueError(f"bc_steps={cfg.bc_steps:,} but {cfg.bc_data} holds {have:,} labelled positions: make "
                         f"more (python -m agents.rl.labels --positions {cfg.bc_steps}) or imitate fewer")
    stats, seen, t0 = {}, 0, time.perf_counter()
    for c in chunks:
        lo, hi = max(done - seen, 0), min(len(c["move"]), cfg.bc_steps - seen)
        seen += len(c["move"])
        if hi <= lo:
            continue
        target = torch.from_numpy(c["target"][lo:hi].astype("float32")) if cfg.bc_target == "soft" else None
        loss, accuracy = _passes(actor, opt, torch.from_numpy(c["obs"][lo:hi].astype("float32")),
                                 torch.from_numpy(c["mask"][lo:hi].astype(bool)),
                                 torch.from_numpy(c["move"][lo:hi].astype("int64")), cfg.bc_epochs, generator,
                                 target)
        done += hi - lo
        stats = {"bc_decisions": done, "bc_loss": loss, "bc_accuracy": accuracy,
                 "bc_seconds": time.perf_counter() - t0}
        if log_fn is not None:
            log_fn(stats)
        if done >= cfg.bc_steps:
            break
    return done, stats
