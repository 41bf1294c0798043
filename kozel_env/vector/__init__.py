"""Batched engines and the vector env: thousands of games of one Kozel env stepped at once in NumPy.

    from kozel_env import vector
    venv = vector.make("dominoes_v0", num_envs=4096, seed=0)
    ts = venv.reset()                       # ts.seat, ts.obs, ts.mask, ts.rewards, ts.done
    ts = venv.step(actions)
    venv = vector.make("dominoes_v0", num_envs=4096, seed=0, workers=2)   # the same games, in 2 processes
    venv = vector.make_async("dominoes_v0", num_envs=8192, seed=0, workers=2)   # 2 shards, each on its own clock

:mod:`.env` documents the API (self-play and single-learner modes, seeds, rewards, auto-reset, ``workers``);
:mod:`.workers` the processes over shared memory; :mod:`.async_workers` the shards on their own clocks
(``send``/``recv``);
:mod:`.engine` the batched-engine contract; the engines: :mod:`.dominoes` (dominoes_v0, sea_goat_v0),
:mod:`.dominoes_stock` (dominoes_ffa_v0, boneyard_v0: the stock and the table's knowledge), :mod:`.donkey`
(donkey_v0), :mod:`.queens_and_jacks`, :mod:`.beat_or_discard` and :mod:`.six_of_spades`.
"""
from __future__ import annotations

from .async_workers import AsyncShardedVectorEnv, make_async
from .env import BATCHED, TimeStep, VectorEnv, random_actions
from .rng import seeds_from
from .workers import ShardedVectorEnv, make

__all__ = ["BATCHED", "AsyncShardedVectorEnv", "ShardedVectorEnv", "TimeStep", "VectorEnv", "make", "make_async",
           "random_actions", "seeds_from"]
