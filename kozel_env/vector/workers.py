"""``vector.make(..., workers=k)``: one batch of games stepped in ``k`` worker processes, a shard each.

    from kozel_env import vector
    with vector.make("dominoes_v0", num_envs=4096, seed=0, workers=2) as venv:
        ts = venv.reset()
        ts = venv.step(venv.sample_actions(rng))

The batch is cut in ``k`` shards, shard ``i`` the games ``i * B // k`` up to ``(i + 1) * B // k``, each a
:class:`~kozel_env.vector.env.VectorEnv` of its own: the caller's process steps the first one and ``k - 1``
worker processes the others (so ``k`` processes step games, on ``k`` cores), which write their observations,
masks, rewards and the rest straight into one block of shared memory (:mod:`multiprocessing.shared_memory`).
A step checks the actions in the caller's process, writes them there, wakes every worker (one message on a
pipe each) and steps the first shard meanwhile. Its observations and masks are new arrays at every step, as
in one process, and nobody copies them: every process writes its rows straight into an output block of
shared memory, handed out as that step's arrays, and a block is written again only once no array over it
(nor a view of one) is left. The usual ``ts = venv.step(a)`` loop takes turns with two blocks; a caller that
keeps more keeps them as they are, up to :data:`POOL` blocks, and past that a step copies the workers' rows
out into new arrays of its own (so does one where ``/dev/shm`` lacks room). With ``copy=False`` the
observations and masks are views of one shared block instead, as with gymnasium's
``AsyncVectorEnv(copy=False)``: the next ``step`` or ``reset`` overwrites them, so a caller that keeps them
copies them itself. Every game plays from its own
seeds, so a batch gives the same results whatever ``k`` (``tests/vector/test_workers.py`` compares every obs,
mask, reward, done, deal_over and info with one process): self-play, and the single-learner mode with
``opponent="random"`` (each game draws the random opponent's moves from its own stream); other opponents are
Python objects of the caller's process and are refused (:class:`~kozel_env.core.errors.InvalidOptionError`).

The workers are fresh interpreters (``python -c``, running :func:`main`), so a caller that imported torch
or runs threads forks nothing, and a script needs no ``if __name__ == "__main__"`` guard. ``close()`` (or
leaving a ``with`` block) stops them and frees the shared memory; so does garbage collection of the env and
the interpreter's exit. A worker whose parent dies reads the end of its pipe and exits.
"""
from __future__ import annotations

import atexit
import os
import signal
import subprocess
import sys
import traceback
import weakref
from multiprocessing import shared_memory
from multiprocessing.connection import Connection
from pathlib import Path

import numpy as np

from ..core.errors import InvalidOptionError
from .env import (
    _DEAL_KEYS,
    NUM_ENVS_CHECK,
    TimeStep,
    VectorEnv,
    check_actions,
    check_arguments,
    check_env_name,
    check_workers,
    game_seeds,
    sample_from_words,
)

_ALIGN = 64
_WORKER = "from kozel_env.vector.workers import main; main()"
"""A worker's command line (``python -c``: a fresh interpreter, which runs no ``__main__`` of the caller)."""


def _layout(B: int, game, single_learner: bool) -> tuple:
    """``((name, dtype, shape, offset), ...)`` of the shared block's arrays, and its size in bytes."""
    n, s, A = game.num_players, game.num_sides, game.num_actions
    fields = [("actions", np.int64, (B,)), ("seeds", np.uint64, (B,)), ("seat", np.int64, (B,)),
              ("obs", np.float32, (B, game.obs_spec.size)), ("mask", np.int8, (B, A)),
              ("words", np.uint64, (B, (A + 63) // 64)),
              ("rewards", np.float32, (B,) if single_learner else (B, n)), ("done", np.bool_, (B,)),
              ("deal_over", np.bool_, (B,)), ("returns", np.float32, (B, n)), ("learner_return", np.float32, (B,)),
              ("seat_points", np.int64, (B, n)), ("written", np.int64, (B, s)), ("scores", np.int64, (B, s)),
              ("winners", np.bool_, (B, s)), ("eggs", np.bool_, (B,)),
              ("oracle", np.float32, (B, game.oracle_spec.size))]
    return _pack(fields)


def _pack(fields: list) -> tuple:
    """``((name, dtype, shape, offset), ...)`` of ``(name, dtype, shape)`` fields laid out one after the other
    (each aligned), and the block's size in bytes."""
    out, offset = [], 0
    for name, dtype, shape in fields:
        out.append((name, np.dtype(dtype).str, shape, offset))
        offset += -(-int(np.prod(shape)) * np.dtype(dtype).itemsize // _ALIGN) * _ALIGN
    return tuple(out), max(offset, 1)


def _views(buf, layout) -> dict:
    """The block's arrays. ``np.frombuffer`` holds the buffer while any array over it lives (``np.ndarray(...,
    buffer=)`` does not), so an array kept past ``close()`` stays valid instead of pointing at unmapped memory."""
    return {name: np.frombuffer(buf, np.dtype(dtype), int(np.prod(shape)), offset).reshape(shape)
            for name, dtype, shape, offset in layout}


_LINGERING: list = []
"""Shared blocks unlinked but still mapped: arrays handed out over them (``copy=False``) outlive the env. Each
is unmapped once its last array is gone (tried again at every shutdown and at exit)."""


def _close(shm) -> None:
    """Unmap ``shm``, or keep it in :data:`_LINGERING` while arrays over it live."""
    try:
        shm.close()
    except BufferError:
        _LINGERING.append(shm)


def _close_lingering(at_exit: bool = False) -> None:
    for shm in list(_LINGERING):
        try:
            shm.close()
            _LINGERING.remove(shm)
        except BufferError:
            if at_exit:  # the process's exit unmaps it: keep SharedMemory.__del__ from retrying noisily
                shm.close = lambda: None


atexit.register(_close_lingering, True)


POOL = 3
"""Output blocks of a ``copy=True`` env: shared blocks the processes write a step's observations and masks into,
handed out as that step's arrays and written again only once every array over them is gone (the usual
``ts = venv.step(a)`` loop needs two). With all of them still in use the step copies, as with one process."""


def _owner(a: np.ndarray):
    """The buffer object behind ``a`` (its views and theirs all keep it alive)."""
    while isinstance(a, np.ndarray):
        a = a.base
    return a


def _out_layout(B: int, obs_size: int, num_actions: int) -> tuple:
    """The layout of an output block (:class:`_Out`) and its size: the obs and mask fields of :func:`_layout`."""
    return _pack([("obs", np.float32, (B, obs_size)), ("mask", np.int8, (B, num_actions))])


class _Out:
    """One output block: ``inner`` (this process's arrays that write it) and the arrays last handed out."""

    def __init__(self, shm, layout: tuple):
        self.shm, self.layout = shm, layout
        self.inner = _views(shm.buf, layout)
        self.handed: tuple = ()

    def free(self) -> bool:
        return all(ref() is None for ref in self.handed)

    def hand_out(self) -> dict:
        """New arrays over the block (their buffer objects tracked: the block is free when both are gone)."""
        out = _views(self.shm.buf, self.layout)
        self.handed = tuple(weakref.ref(_owner(a)) for a in out.values())
        return out


def _room_for(size: int) -> bool:
    """Whether the shared-memory file system has ``size`` bytes to spare, twice over (a full ``/dev/shm``
    kills a process that writes there with SIGBUS): True where it cannot be read."""
    try:
        st = os.statvfs("/dev/shm")
    except OSError:
        return True
    return st.f_bavail * st.f_frsize >= 2 * size


class _Workers:
    """The processes, their pipes and the shared block: what :meth:`shutdown` releases (it holds no
    reference to the env, so the env's garbage collection can run it)."""

    def __init__(self, shm, views: dict):
        self.shm, self.views = shm, views
        self.outs: list = []  # the output blocks (_Out) of copy=True
        self.procs, self.sends, self.recvs = [], [], []

    def start(self, count: int) -> None:
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])  # the directory that holds kozel_env
        env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in [env.get("PYTHONPATH")] if p])
        for _ in range(count):
            r1, w1 = os.pipe()  # parent -> worker (its stdin)
            r2, w2 = os.pipe()  # worker -> parent (its stdout)
            try:
                proc = subprocess.Popen([sys.executable, "-c", _WORKER], stdin=r1, stdout=w2, env=env, close_fds=True)
            except BaseException:
                for fd in (r1, w1, r2, w2):
                    os.close(fd)
                raise
            os.close(r1)
            os.close(w2)
            self.procs.append(proc)
            self.sends.append(Connection(w1, readable=False))
            self.recvs.append(Connection(r2, writable=False))

    def shutdown(self) -> None:
        """Stop every worker (a close message, then the end of its pipe; killed if it has not exited
        within 5 seconds) and free the shared memory. Runs once."""
        for c in self.sends:
            try:
                c.send(("close",))
            except OSError:
                pass
        for c in self.sends + self.recvs:
            c.close()
        for p in self.procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.views.clear()  # the arrays over the block go first: close() refuses while they exist
        blocks = [self.shm] + [o.shm for o in self.outs]
        self.outs.clear()
        for shm in blocks:
            shm.unlink()
            _close(shm)
        _close_lingering()


def shard_bounds(num_envs: int, workers: int) -> list:
    """Where the shards of ``workers`` processes begin and end: shard ``i`` is the games ``bounds[i]`` up to
    ``bounds[i + 1]`` (``vector.make``'s caller steps the first itself, ``make_async`` gives each a worker);
    sizes differ by at most one."""
    return [i * num_envs // workers for i in range(workers + 1)]


class _Sharded:
    """What the sharded envs share (:class:`ShardedVectorEnv`, and :class:`~.async_workers.AsyncShardedVectorEnv`):
    their checked arguments and attributes, the shared block and the worker processes (``worker_pids``),
    ``close()`` and ``with``."""

    def _setup(self, env_name: str, num_envs: int, seed, workers, opponent, learner_side, episode: str, reward: str,
               copy, rules_options: dict) -> dict:
        """Check every argument (a bad one raises before anything is built) and set the attributes; the
        options of each shard's :class:`VectorEnv`."""
        args = check_arguments(env_name, num_envs, seed, opponent, learner_side, episode, reward, rules_options)
        self.workers = check_workers(workers, args.num_envs)
        self.copy = check_copy(copy)
        check_worker_opponent(args.opponent, workers)
        self.env_name, self.game, self.episode, self.reward_mode = env_name, args.game, args.episode, args.reward
        self.num_envs = args.num_envs
        self.num_players, self.num_actions = self.game.num_players, self.game.num_actions
        self.obs_size = self.game.obs_spec.size
        self.options = {"episode": self.episode, "reward": self.reward_mode, **rules_options}
        self.single_learner = args.opponent is not None
        self._seed = args.seed
        return {"opponent": args.opponent, "learner_side": args.learner_side, "episode": args.episode,
                "reward": args.reward, **rules_options}

    def _spawn(self, options: dict, bounds: list, first: int) -> None:
        """The shared block, and a worker process for each shard from ``first`` on (shard ``i``: the games
        ``bounds[i]`` up to ``bounds[i + 1]``), each sent its set-up message (its reply not awaited)."""
        layout, size = _layout(self.num_envs, self.game, self.single_learner)
        shm = shared_memory.SharedMemory(create=True, size=size)
        self._res = _Workers(shm, _views(shm.buf, layout))
        self._finalizer = weakref.finalize(self, self._res.shutdown)
        try:
            self._res.start(len(bounds) - 1 - first)
            for i, c in enumerate(self._res.sends, first):
                c.send({"env_name": self.env_name, "layout": layout, "shm": shm.name, "options": options,
                        "lo": bounds[i], "hi": bounds[i + 1]})
        except BaseException:
            self.close()
            raise

    @property
    def worker_pids(self) -> tuple:
        return tuple(p.pid for p in self._res.procs)

    def close(self) -> None:
        """Stop the workers (a step in flight is dropped) and free the shared memory (again: nothing)."""
        self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _open(self) -> None:
        if not self._finalizer.alive:
            raise RuntimeError("the vector env is closed")


class ShardedVectorEnv(_Sharded):
    """``num_envs`` games of ``env_name`` stepped in ``workers`` processes (see the module docstring): the
    API of :class:`~kozel_env.vector.env.VectorEnv` (``reset``, ``step``, ``sample_actions``, ``state``, its
    attributes but ``engine``) and ``close()`` / ``with``; ``worker_pids`` lists the worker processes."""

    def __init__(self, env_name: str, num_envs: int, seed=None, *, workers: int, opponent=None,
                 learner_side: int | None = None, episode: str = "match", reward: str = "outcome",
                 copy: bool = True, **rules_options):
        options = self._setup(env_name, num_envs, seed, workers, opponent, learner_side, episode, reward, copy,
                              rules_options)
        self._started = False
        self._bounds = shard_bounds(self.num_envs, self.workers)
        self._spawn(options, self._bounds, 1)
        try:
            self._local = VectorEnv(env_name, self._bounds[1], None, **options)  # the first shard: this process
            self._gather()
        except BaseException:
            self.close()
            raise

    # -- the workers' replies ----------------------------------------------------------------------------
    def _send(self, *message) -> None:
        self._open()
        for i, c in enumerate(self._res.sends):
            try:
                c.send(message)
            except OSError:
                self._exited(i)

    def _exited(self, i: int):
        raise RuntimeError(f"vector env worker {i + 1} (pid {self._res.procs[i].pid}) exited") from None

    def _gather(self) -> list:
        replies = []
        for i, c in enumerate(self._res.recvs):
            try:
                status, payload = c.recv()
            except (EOFError, OSError):
                self._exited(i)
            if status != "ok":
                raise RuntimeError(f"vector env worker {i + 1} failed:\n{payload}")
            replies.append(payload)
        return replies

    def _move_names(self, b: int, actions: list) -> list:
        i = int(np.searchsorted(self._bounds, b, side="right")) - 1
        if i == 0:
            return self._local.engine.move_names(b, actions)
        self._res.sends[i - 1].send(("names", b - self._bounds[i], actions))
        return self._gather_one(i)

    def _gather_one(self, i: int):
        status, payload = self._res.recvs[i - 1].recv()
        if status != "ok":
            raise RuntimeError(f"vector env worker {i} failed:\n{payload}")
        return payload

    # -- the API ---------------------------------------------------------------------------------------------
    def reset(self, seed=None) -> TimeStep:
        """As :meth:`VectorEnv.reset <kozel_env.vector.env.VectorEnv.reset>`."""
        self._open()
        seeds = game_seeds(self._seed if seed is None else seed, self.num_envs)  # checked: a bad one changes nothing
        self._res.views["seeds"][:] = seeds
        block = self._output_block()
        self._send("reset", block)
        out = self._local_outputs(block)
        _write(self._mine(), self._local, self._local.reset(seed=seeds[:self._bounds[1]]))
        self._gather()
        self._started = True
        return self._timestep(out, block)

    def step(self, actions) -> TimeStep:
        """As :meth:`VectorEnv.step <kozel_env.vector.env.VectorEnv.step>` (the actions checked here, before
        any shard moves)."""
        self._open()
        if not self._started:
            raise RuntimeError("call reset() before step()")
        v = self._res.views
        a = check_actions(actions, self.num_actions, v["words"], v["seat"], self._move_names)
        v["actions"][:] = a
        block = self._output_block()
        self._send("step", block)
        out = self._local_outputs(block)
        _write(self._mine(), self._local, self._local._advance(a[:self._bounds[1]]))
        self._gather()
        return self._timestep(out, block)

    def sample_actions(self, generator: np.random.Generator) -> np.ndarray:
        """As :meth:`VectorEnv.sample_actions <kozel_env.vector.env.VectorEnv.sample_actions>`."""
        self._open()
        return sample_from_words(self._res.views["words"], generator.random(self.num_envs))

    def state(self) -> np.ndarray:
        """As :meth:`VectorEnv.state <kozel_env.vector.env.VectorEnv.state>`."""
        self._open()
        if not self._started:
            raise RuntimeError("call reset() before state()")
        self._send("state")
        self._local.engine.oracle(self._res.views["oracle"][:self._bounds[1]])
        self._gather()
        return self._res.views["oracle"].copy()

    def _mine(self) -> dict:
        return {name: view[:self._bounds[1]] for name, view in self._res.views.items()}

    def _output_block(self) -> int:
        """Where this step's observations and masks go: a free output block of :data:`POOL` (made when none is
        free and there are fewer), or -1: the shared block's (``copy=False``, or every output block in use)."""
        if not self.copy:
            return -1
        outs = self._res.outs
        for i, o in enumerate(outs):
            if o.free():
                return i
        layout, size = _out_layout(self.num_envs, self.obs_size, self.num_actions)
        if len(outs) == POOL or not _room_for(size):
            return -1
        shm = shared_memory.SharedMemory(create=True, size=size)
        try:
            outs.append(_Out(shm, layout))
        except BaseException:
            shm.close()
            shm.unlink()
            raise
        self._send("attach", shm.name, layout)
        self._gather()
        return len(outs) - 1

    def _local_outputs(self, block: int) -> dict:
        """This step's obs and mask arrays: an output block's (new arrays over it), new arrays that the workers'
        rows are copied into (``copy=True`` with every output block in use), or the shared block's
        (``copy=False``); the first shard writes its rows there directly."""
        if block >= 0:
            o = self._res.outs[block]
            out, inner = o.hand_out(), o.inner
        elif self.copy:
            out = inner = {"obs": np.empty((self.num_envs, self.obs_size), np.float32),
                           "mask": np.empty((self.num_envs, self.num_actions), np.int8)}
        else:
            out = inner = {"obs": self._res.views["obs"], "mask": self._res.views["mask"]}
        self._local._views = {key: a[:self._bounds[1]] for key, a in inner.items()}
        return out

    def _timestep(self, out: dict, block: int) -> TimeStep:
        v = self._res.views
        lo = self._bounds[1]
        self._local._views = None  # no reference of this process keeps an output block in use
        if self.copy and block < 0:
            out["obs"][lo:] = v["obs"][lo:]
            out["mask"][lo:] = v["mask"][lo:]
        return read_timestep(v, slice(None), out["obs"], out["mask"], self.single_learner)


def read_timestep(v: dict, rows: slice, obs: np.ndarray, mask: np.ndarray, single_learner: bool) -> TimeStep:
    """The timestep of the games ``rows`` of the shared block's arrays ``v`` (copies of them), with ``obs`` and
    ``mask`` as given (the caller chose whether they are copies)."""
    done, deal_over = v["done"][rows].copy(), v["deal_over"][rows].copy()
    info = {}
    if deal_over.any():
        info["deals"] = {key: v[key][rows].copy() for key, _ in _DEAL_KEYS}
    if done.any():
        info["returns"] = v["returns"][rows].copy()
        if single_learner:
            info["learner_return"] = v["learner_return"][rows].copy()
    return TimeStep(seat=v["seat"][rows].copy(), obs=obs, mask=mask, rewards=v["rewards"][rows].copy(),
                    done=done, deal_over=deal_over, info=info)


def check_worker_opponent(opponent, workers) -> None:
    """Worker processes play ``opponent`` None (self-play) or ``"random"`` only (an
    :class:`~kozel_env.core.errors.InvalidOptionError` naming it otherwise)."""
    if opponent is not None and not (isinstance(opponent, str) and opponent == "random"):
        raise InvalidOptionError(f"opponent={opponent!r} is not allowed with workers={workers!r}: the worker "
                                 "processes play None (self-play) or 'random' (each game's own stream); "
                                 "another opponent is an object of this process: use workers=1")


def make(env_name: str, num_envs: int, seed=None, *, workers: int | None = None, copy: bool = True,
         **options) -> VectorEnv | ShardedVectorEnv:
    """The vector env of ``env_name`` with ``num_envs`` games (see :class:`VectorEnv` and the module
    docstring); ``options``: ``opponent``, ``learner_side``, ``episode``, ``reward`` and the rules options.
    ``workers``: None or 1 steps the batch in this process; ``k`` > 1 in ``k`` processes, this one and ``k - 1``
    workers, a shard of the games each (:class:`ShardedVectorEnv`, the same results). ``copy=False`` (with
    workers): a step's observations and masks are views of the shared block, overwritten by the next step (see
    the module docstring); one process makes new arrays at every step either way."""
    check_env_name(env_name)
    workers = check_workers(workers, NUM_ENVS_CHECK("num_envs", num_envs))
    check_copy(copy)
    if workers == 1:
        return VectorEnv(env_name, num_envs, seed, **options)
    return ShardedVectorEnv(env_name, num_envs, seed, workers=workers, copy=copy, **options)


def check_copy(copy) -> bool:
    """``copy`` is True or False (an :class:`~kozel_env.core.errors.InvalidOptionError` naming it otherwise)."""
    if not isinstance(copy, (bool, np.bool_)):
        raise InvalidOptionError(f"copy={copy!r} is not allowed: True (new observation and mask arrays at every "
                                 "step) or False (views of the workers' shared block)")
    return bool(copy)


# -- the worker process --------------------------------------------------------------------------------------
def _attach(name: str):
    """The parent's shared block, not registered with this process's resource tracker (the parent owns and
    unlinks it; Python before 3.13 would unlink it when the worker exits)."""
    if sys.version_info >= (3, 13):
        return shared_memory.SharedMemory(name, track=False)
    from multiprocessing import resource_tracker

    register = resource_tracker.register
    resource_tracker.register = lambda *a, **k: None
    try:
        return shared_memory.SharedMemory(name)
    finally:
        resource_tracker.register = register


def _write(mine: dict, venv: VectorEnv, ts: TimeStep) -> None:
    """A shard's timestep into its rows of the shared block (obs and mask are there already)."""
    mine["seat"][:] = ts.seat
    mine["words"][:] = venv.engine.legal_words
    mine["rewards"][:] = ts.rewards
    mine["done"][:] = ts.done
    mine["deal_over"][:] = ts.deal_over
    deals = ts.info.get("deals")
    for key, _ in _DEAL_KEYS:
        mine[key][:] = 0 if deals is None else deals[key]
    mine["returns"][:] = ts.info.get("returns", 0)
    mine["learner_return"][:] = ts.info.get("learner_return", 0)


def _serve(recv: Connection, send: Connection) -> None:
    """Build this worker's shard from the parent's set-up message, then answer its messages until
    ``close`` or the end of the pipe."""
    setup = recv.recv()
    lo, hi = setup["lo"], setup["hi"]
    shm = _attach(setup["shm"])
    mine = {name: view[lo:hi] for name, view in _views(shm.buf, setup["layout"]).items()}
    venv = VectorEnv(setup["env_name"], hi - lo, None, **setup["options"])
    venv._first_game = lo
    venv._views = {"obs": mine["obs"], "mask": mine["mask"]}
    send.send(("ok", None))
    outs: list = []  # the output blocks (copy=True): their shared memory, and this shard's rows of them
    try:
        _answer(recv, send, venv, mine, lo, hi, outs)
    finally:
        mine.clear()
        venv._views = None
        for block, rows in outs:
            rows.clear()
            _close(block)
        _close(shm)


def _answer(recv: Connection, send: Connection, venv: VectorEnv, mine: dict, lo: int, hi: int,
            outs: list) -> None:
    while True:
        try:
            message = recv.recv()
        except EOFError:
            return
        try:
            reply = None
            if message[0] == "close":
                return
            if message[0] in ("step", "reset"):
                block = message[1]
                venv._views = ({key: mine[key] for key in ("obs", "mask")} if block < 0 else outs[block][1])
                if message[0] == "step":
                    _write(mine, venv, venv._advance(mine["actions"].copy()))
                else:
                    _write(mine, venv, venv.reset(seed=mine["seeds"].copy()))
            elif message[0] == "attach":
                shm = _attach(message[1])
                outs.append((shm, {key: a[lo:hi] for key, a in _views(shm.buf, message[2]).items()}))
            elif message[0] == "state":
                venv.engine.oracle(mine["oracle"])
            elif message[0] == "names":
                reply = venv.engine.move_names(message[1], message[2])
            send.send(("ok", reply))
        except Exception:  # noqa: BLE001 - reported to the parent, which raises it
            send.send(("error", traceback.format_exc()))


def main() -> None:
    """A worker: messages on stdin, replies on stdout (anything printed goes to stderr)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it closes the workers
    recv = Connection(os.dup(0), writable=False)
    send = Connection(os.dup(1), readable=False)
    os.dup2(2, 1)
    try:
        _serve(recv, send)
    except Exception:  # noqa: BLE001 - a failed set-up is reported to the parent
        try:
            send.send(("error", traceback.format_exc()))
        except OSError:
            pass
