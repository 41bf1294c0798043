"""Behaviour cloning, the warm start before PPO (``bc_steps > 0``).

The actor imitates a bot (``bc_teacher``, the ``normal`` bot by default) by masked cross-entropy on that
bot's own moves, seen through its own observation, so the clone never learns from hidden information. The
decisions are streamed: each rollout of the teacher's matches (:class:`agents.rl.rollout.Collector` with a
``teacher``; a share ``bc_vs_bots`` of them against the training bots) is used for ``bc_epochs`` passes and
then dropped. In the last ``bc_dagger`` share the learner plays (sampling its policy) and the teacher labels
the positions it reaches (DAgger), so the clone also learns to recover from positions its own mistakes lead
to. Then the first ``value_warmup`` PPO iterations train the critic only (:mod:`agents.rl.ppo`).
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
    obs = torch.from_numpy(buf.obs[:n])
    mask = torch.from_numpy(buf.mask[:n])
    act = torch.from_numpy(buf.act[:n])
    tot = correct = 0.0
    k = 0
    for _ in range(epochs):
        perm = torch.randperm(n, generator=generator)
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
    return tot / k, correct / k


def behaviour_cloning(collector: Collector, actor: torch.nn.Module, cfg: PPOConfig, generator: torch.Generator,
                      done: int = 0, log_fn: Callable[[dict], None] | None = None) -> tuple:
    """Imitate ``cfg.bc_teacher`` until exactly ``cfg.bc_steps`` of its decisions are imitated (``done``
    already were; of the last rollout only the decisions still due are used, in the order they were played);
    see the module doc. ``log_fn`` gets the statistics after every rollout. The matches restart
    before and after. Returns ``(decisions imitated in all, last statistics)``: ``bc_decisions``,
    ``bc_loss``, ``bc_accuracy``, ``bc_seconds``."""
    opt = torch.optim.Adam(actor.parameters(), lr=cfg.bc_lr)
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
