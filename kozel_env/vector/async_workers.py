"""``vector.make_async(...)``: the shards of a batch stepped by worker processes, each on its own clock.

    from kozel_env import vector
    with vector.make_async("dominoes_v0", num_envs=8192, seed=0, workers=2) as venv:
        venv.async_reset()
        for _ in range(1000):
            shard, ts = venv.recv()                   # whichever shard is ready first
            venv.send(shard, policy(ts.obs, ts.mask))  # the games venv.shard_slice(shard) of the batch

The batch is cut in ``workers`` shards as with ``vector.make(..., workers=k)`` (:func:`.workers.shard_bounds`),
but every shard is stepped by a worker process of its own and no step waits for the other shards: ``send``
checks a shard's actions in this process and wakes its worker, which steps it while this process works on
another shard (a policy's forward pass, a learner's update); ``recv`` returns the next shard to come back, the
one sent first among those ready (EnvPool's ``send``/``recv``). So the caller's work and every worker's step
overlap, where ``vector.make(..., workers=k)``'s lockstep ``step`` waits for the slowest shard and leaves the
workers idle while the caller chooses the next actions (figures: ``docs/guides/speed.md``).

Every game plays from its own seeds, so shard ``i``'s ``t``-th timestep holds exactly the rows
``shard_slice(i)`` of the ``t``-th timestep of one process (``vector.make``) given the same actions
(``tests/vector/test_async_workers.py`` compares them in every batched game). A shard's timestep is that of a
:class:`~kozel_env.vector.env.TimeStep` of its games: ``seat``, ``rewards``, ``done``, ``deal_over`` and
``info`` are copies; ``obs`` and ``mask`` are copies too by default and, with ``copy=False``, views of the
shared block, valid until that shard's next ``send`` (its worker writes them again).

Bad input is refused in this process before anything moves: a shard that is not waiting for actions, actions
of the wrong shape or type, an illegal action (the error names the game by its index in the whole batch).
Opponents: None (self-play) or ``"random"`` (each game's own stream), as with ``workers=k``.
"""
from __future__ import annotations

from multiprocessing.connection import wait

import numpy as np

from ..core.errors import InvalidOptionError
from .env import TimeStep, check_actions, game_seeds, sample_from_words
from .workers import _Sharded, read_timestep, shard_bounds

_IDLE, _STEPPING, _READY = "idle", "stepping", "ready"
"""A shard's state: before the first ``async_reset``; sent (reset or actions), not received yet; received,
waiting for its actions."""


class AsyncShardedVectorEnv(_Sharded):
    """``num_envs`` games of ``env_name`` in ``workers`` shards, each stepped by its own worker process on its
    own clock (see the module docstring). Attributes as :class:`~kozel_env.vector.env.VectorEnv`'s
    (``num_envs``, ``num_players``, ``num_actions``, ``obs_size``, ``game``, ``single_learner``) and ``workers``,
    ``bounds`` (shard ``i`` is the games ``bounds[i]`` up to ``bounds[i + 1]``), ``worker_pids``."""

    def __init__(self, env_name: str, num_envs: int, seed=None, *, workers: int, opponent=None,
                 learner_side: int | None = None, episode: str = "match", reward: str = "outcome",
                 copy: bool = True, **rules_options):
        if workers is None:  # vector.make's workers=None is one process, without workers: not this env
            raise InvalidOptionError(f"workers=None is not allowed: an int in 1..num_envs (the worker processes, "
                                     f"a shard each; num_envs={num_envs!r})")
        options = self._setup(env_name, num_envs, seed, workers, opponent, learner_side, episode, reward, copy,
                              rules_options)
        self.bounds = tuple(shard_bounds(self.num_envs, self.workers))
        self._states = [_IDLE] * self.workers
        self._sent = [0] * self.workers  # when each shard was last sent (a count): recv returns the oldest ready one
        self._clock = 0
        self._spawn(options, list(self.bounds), 0)
        try:
            for i in range(self.workers):
                self._reply(i)
        except BaseException:
            self.close()
            raise

    def shard_slice(self, shard: int) -> slice:
        """The games of ``shard`` in the whole batch (to index a batch-wide buffer)."""
        i = self._check_shard(shard)
        return slice(self.bounds[i], self.bounds[i + 1])

    # -- the API ---------------------------------------------------------------------------------------------
    def async_reset(self, seed=None) -> None:
        """Deal every game again from ``seed`` (None: the seed the env was made with), as :meth:`VectorEnv.reset
        <kozel_env.vector.env.VectorEnv.reset>`; every shard's first timestep then comes back from
        :meth:`recv`. A step still in flight is waited for and its result dropped."""
        self._open()
        seeds = game_seeds(self._seed if seed is None else seed, self.num_envs)  # checked: a bad one changes nothing
        for i in range(self.workers):
            if self._states[i] == _STEPPING:
                self._states[i] = _READY  # first: a step that failed in its worker raises here, and is over
                self._reply(i)
        self._res.views["seeds"][:] = seeds
        for i in range(self.workers):
            self._start(i, "reset")

    def send(self, shard: int, actions) -> None:
        """Step the games of ``shard`` with ``actions`` (one per game, shape ``(size of the shard,)``), which
        its worker does while this process goes on; the result comes back from :meth:`recv`. The shard must be
        waiting for actions (received and not sent since); an illegal action raises
        :class:`~kozel_env.core.errors.IllegalActionError` naming the game and nothing moves."""
        i = self._ready(shard, "send")
        lo, hi = self.bounds[i], self.bounds[i + 1]
        v = self._res.views
        a = check_actions(actions, self.num_actions, v["words"][lo:hi], v["seat"][lo:hi],
                          lambda b, moves: self._names(i, b, moves), first_game=lo)
        v["actions"][lo:hi] = a
        self._start(i, "step")

    def recv(self) -> tuple[int, TimeStep]:
        """``(shard, timestep)``: the next shard to come back (the one sent first among those ready; waits for
        one), and the timestep of its games (``shard_slice(shard)`` of the batch)."""
        self._open()
        stepping = [i for i, s in enumerate(self._states) if s == _STEPPING]
        if not stepping:
            what = "call async_reset() first" if _IDLE in self._states else "send() a shard first"
            raise RuntimeError(f"recv(): no shard is stepping; {what}")
        conns = {self._res.recvs[i]: i for i in stepping}
        i = min((conns[c] for c in wait(list(conns))), key=self._sent.__getitem__)
        self._states[i] = _READY  # first: a step that failed in its worker raises here, and is over
        self._reply(i)
        rows = slice(self.bounds[i], self.bounds[i + 1])
        v = self._res.views
        if self.copy:
            obs, mask = v["obs"][rows].copy(), v["mask"][rows].copy()
        else:  # views of the shared block, writable as vector.make(copy=False)'s (torch.from_numpy warns on a
            obs, mask = v["obs"][rows], v["mask"][rows]  # read-only array); the worker writes them again
        return i, read_timestep(v, rows, obs, mask, self.single_learner)

    def sample_actions(self, generator: np.random.Generator, shard: int) -> np.ndarray:
        """A uniformly random legal action in every game of ``shard`` (waiting for actions), drawn from
        ``generator``, as :meth:`VectorEnv.sample_actions <kozel_env.vector.env.VectorEnv.sample_actions>`."""
        i = self._ready(shard, "sample_actions")
        words = self._res.views["words"][self.bounds[i]:self.bounds[i + 1]]
        return sample_from_words(words, generator.random(len(words)))

    def state(self, shard: int) -> np.ndarray:
        """The oracle state of ``shard``'s games (waiting for actions), as :meth:`VectorEnv.state
        <kozel_env.vector.env.VectorEnv.state>`'s rows ``shard_slice(shard)``."""
        i = self._ready(shard, "state")
        self._res.sends[i].send(("state",))
        self._reply(i)
        return self._res.views["oracle"][self.bounds[i]:self.bounds[i + 1]].copy()

    # -- the workers -----------------------------------------------------------------------------------------
    def _check_shard(self, shard) -> int:
        if isinstance(shard, (bool, np.bool_)) or not isinstance(shard, (int, np.integer)) \
                or not 0 <= int(shard) < self.workers:
            raise InvalidOptionError(f"shard={shard!r} is not allowed: an int in 0..{self.workers - 1} (this env's "
                                     f"workers={self.workers} shards)")
        return int(shard)

    def _ready(self, shard, what: str) -> int:
        """``shard`` checked, waiting for actions (else a RuntimeError saying what to call first)."""
        self._open()
        i = self._check_shard(shard)
        if self._states[i] == _IDLE:
            raise RuntimeError(f"{what}(shard={i}): call async_reset() first")
        if self._states[i] == _STEPPING:
            raise RuntimeError(f"{what}(shard={i}): shard {i} is stepping; recv() it first")
        return i

    def _start(self, i: int, what: str) -> None:
        try:
            self._res.sends[i].send((what, -1))
        except OSError:
            self._exited(i)
        self._states[i] = _STEPPING
        self._clock += 1
        self._sent[i] = self._clock

    def _reply(self, i: int):
        try:
            status, payload = self._res.recvs[i].recv()
        except (EOFError, OSError):
            self._exited(i)
        if status != "ok":
            raise RuntimeError(f"vector env worker {i} failed:\n{payload}")
        return payload

    def _names(self, i: int, b: int, moves: list) -> list:
        self._res.sends[i].send(("names", b, moves))
        return self._reply(i)

    def _exited(self, i: int):
        raise RuntimeError(f"vector env worker {i} (pid {self._res.procs[i].pid}) exited") from None


def make_async(env_name: str, num_envs: int, seed=None, *, workers: int, copy: bool = True,
               **options) -> AsyncShardedVectorEnv:
    """The asynchronous vector env of ``env_name``: ``num_envs`` games in ``workers`` shards, each stepped by a
    worker process of its own (``async_reset``, then ``recv`` / ``send`` per shard: see
    :class:`AsyncShardedVectorEnv`); ``options`` as :func:`~kozel_env.vector.workers.make`'s. ``copy=False``: a
    shard's observations and masks are views of the shared block, valid until its next ``send``."""
    return AsyncShardedVectorEnv(env_name, num_envs, seed, workers=workers, copy=copy, **options)
