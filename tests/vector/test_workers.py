"""``vector.make(..., workers=k)`` (:mod:`kozel_env.vector.workers`): a batch stepped in ``k`` processes plays
exactly what one process plays with the same seeds (every obs, mask, reward, done, deal_over, info and the
oracle state), for every batched game; bad input is refused as in one process; the workers stop on
``close()``, on leaving ``with``, on garbage collection and with their parent."""
import gc
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from kozel_env import vector
from kozel_env.core.errors import IllegalActionError, InvalidOptionError

FIELDS = ("seat", "obs", "mask", "rewards", "done", "deal_over")


def assert_same_timestep(a, b, where):
    for f in FIELDS:
        x, y = getattr(a, f), getattr(b, f)
        assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y), (where, f)
    assert list(a.info) == list(b.info), (where, list(a.info), list(b.info))
    for key, value in a.info.items():
        parts = value.items() if isinstance(value, dict) else [("", value)]
        other = b.info[key]
        for part, x in parts:
            y = other[part] if part else other
            assert x.dtype == y.dtype and np.array_equal(x, y), (where, key, part)


def play_side_by_side(name, num_envs, workers, steps, seed=3, **options):
    """Step one env in one process and one in ``workers`` processes with the same seed and actions,
    comparing everything; a reset with another seed half way. Returns how many episodes and deals ended."""
    ended = [0, 0]
    one = vector.make(name, num_envs, seed=seed, **options)
    with vector.make(name, num_envs, seed=seed, workers=workers, **options) as many:
        assert many.workers == workers and len(many.worker_pids) == workers - 1
        a, b = one.reset(), many.reset()
        gen = np.random.default_rng(seed)
        for t in range(steps):
            assert_same_timestep(a, b, (name, workers, t))
            ended[0] += int(a.done.sum())
            ended[1] += int(a.deal_over.sum())
            if t == steps * 2 // 3:
                assert np.array_equal(one.state(), many.state())
                a, b = one.reset(seed=seed + 1), many.reset(seed=seed + 1)
                continue
            actions = one.sample_actions(gen)
            a, b = one.step(actions), many.step(actions)
        assert_same_timestep(a, b, (name, workers, "end"))
        assert np.array_equal(one.state(), many.state())
    return ended


@pytest.mark.parametrize("name", vector.BATCHED)
def test_workers_play_exactly_what_one_process_plays_in_self_play(name):
    ended = play_side_by_side(name, 7, 3, 90, episode="deal", reward="points")
    assert ended[0] > 0 and ended[1] > 0  # the auto-reset and the deals' info were compared too


@pytest.mark.parametrize("name", vector.BATCHED)
def test_workers_play_exactly_what_one_process_plays_against_the_random_opponent(name):
    ended = play_side_by_side(name, 7, 2, 50, episode="deal", opponent="random")  # shards 0-2, 3-6: the
    # learner side alternates by the game index (odd, 3, in the second shard) and the episode
    assert ended[0] > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", vector.BATCHED)
@pytest.mark.parametrize("options", [{}, {"reward": "points"}, {"opponent": "random", "learner_side": 0},
                                     {"opponent": "random", "episode": "deal"}])
def test_workers_play_exactly_what_one_process_plays_long(name, options):
    for workers in (2, 4):
        play_side_by_side(name, 61, workers, 500, seed=11, **options)


def test_sample_actions_draws_what_one_process_draws():
    one = vector.make("dominoes_v0", 9, seed=5)
    with vector.make("dominoes_v0", 9, seed=5, workers=3) as many:
        one.reset(), many.reset()
        for _ in range(20):
            a = one.sample_actions(np.random.default_rng(1))
            assert np.array_equal(a, many.sample_actions(np.random.default_rng(1)))
            one.step(a), many.step(a)


def test_the_random_opponent_of_a_game_does_not_depend_on_the_batch_around_it():
    """Game ``b``'s random opponent draws from its own stream: the games of a batch made with the per-game
    seeds of a bigger one play what those games play in the bigger one."""
    seeds = vector.seeds_from(2, 8)
    big = vector.make("queens_and_jacks_v0", 8, seed=seeds, opponent="random", learner_side=1)
    small = vector.make("queens_and_jacks_v0", 3, seed=seeds[5:], opponent="random", learner_side=1)
    a, b = big.reset(), small.reset()
    for _ in range(40):
        assert np.array_equal(a.obs[5:], b.obs) and np.array_equal(a.rewards[5:], b.rewards)
        actions = big.sample_actions(np.random.default_rng(0))
        a, b = big.step(actions), small.step(actions[5:])


@pytest.mark.parametrize("name", ["dominoes_ffa_v0", "queens_and_jacks_v0", "beat_or_discard_v0"])
def test_copy_false_plays_what_one_process_plays(name):
    play_side_by_side(name, 7, 2, 60, episode="deal", copy=False)


def test_copy_false_gives_views_of_the_shared_block_and_copy_true_new_arrays():
    for copy in (True, False):
        with vector.make("dominoes_v0", 6, seed=1, workers=2, copy=copy) as venv:
            first = venv.reset()
            kept = first.obs.copy()
            second = venv.step(venv.sample_actions(np.random.default_rng(0)))
            assert np.shares_memory(first.obs, second.obs) is not copy
            assert np.shares_memory(first.mask, second.mask) is not copy
            assert np.array_equal(first.obs, kept) is copy  # copy=False: the step overwrote the rows


def test_copy_true_arrays_are_never_written_again_while_kept_whatever_is_kept():
    """copy=True writes a step's arrays straight into a shared output block (no copy), and a block is written
    again only when nothing refers to its last arrays: here every step's obs is kept (more than the pool
    holds: then the step copies) and a view of one (keeping only a slice), and each still holds what one
    process gave at its step."""
    from kozel_env.vector import workers as w

    one = vector.make("queens_and_jacks_v0", 8, seed=2)
    with vector.make("queens_and_jacks_v0", 8, seed=2, workers=2) as many:
        a, b = one.reset(), many.reset()
        gen = np.random.default_rng(2)
        kept, slices = [], []
        for _ in range(2 * w.POOL + 3):
            kept.append((b.obs, b.mask, a.obs.copy(), a.mask.copy()))
            slices.append((b.obs[2:5, 1:7], a.obs[2:5, 1:7].copy()))
            b = None
            actions = one.sample_actions(gen)
            a, b = one.step(actions), many.step(actions)
        for obs, mask, obs1, mask1 in kept:
            assert np.array_equal(obs, obs1) and np.array_equal(mask, mask1)
        for view, expect in slices:
            assert np.array_equal(view, expect)
        assert len(many._res.outs) == w.POOL


def test_the_usual_step_loop_copies_nothing_and_uses_two_output_blocks():
    with vector.make("dominoes_v0", 6, seed=1, workers=2) as venv:
        ts = venv.reset()
        gen = np.random.default_rng(0)
        for _ in range(10):
            ts = venv.step(venv.sample_actions(gen))  # the last timestep is alive while the next is written
        outs = venv._res.outs
        assert len(outs) == 2 and sum(np.shares_memory(ts.obs, o.inner["obs"]) for o in outs) == 1
        assert sum(np.shares_memory(ts.mask, o.inner["mask"]) for o in outs) == 1


@pytest.mark.parametrize("copy", [None, 0, "False", np.float64(1.0)])
def test_a_bad_copy_value_is_refused_naming_it(copy):
    for workers in (1, 2):
        with pytest.raises(InvalidOptionError) as e:
            vector.make("dominoes_v0", 4, seed=0, workers=workers, copy=copy)
        assert f"copy={copy!r} is not allowed: True" in str(e.value)


@pytest.mark.parametrize("workers", [0, -1, 1.5, "2", 8, True, np.float64(2.0), [2]])
def test_a_bad_workers_value_is_refused_naming_it_and_what_is_allowed(workers):
    with pytest.raises(InvalidOptionError) as e:
        vector.make("dominoes_v0", 7, seed=0, workers=workers)
    assert f"workers={workers!r} is not allowed: None or an int in 1..7" in str(e.value)


@pytest.mark.parametrize("opponent", ["greedy", lambda obs, mask: np.argmax(mask, axis=1)])
def test_an_opponent_of_this_process_is_refused_with_workers(opponent):
    with pytest.raises(InvalidOptionError) as e:
        vector.make("dominoes_v0", 4, seed=0, workers=2, opponent=opponent)
    assert f"opponent={opponent!r} is not allowed with workers=2" in str(e.value) and "'random'" in str(e.value)


def test_one_worker_is_the_in_process_env():
    for workers in (None, 1, np.int64(1)):
        venv = vector.make("dominoes_v0", 4, seed=0, workers=workers)
        assert type(venv) is vector.VectorEnv and venv.workers == 1


def test_a_bad_action_or_seed_raises_as_in_one_process_and_changes_nothing():
    one = vector.make("sea_goat_v0", 6, seed=9)
    with vector.make("sea_goat_v0", 6, seed=9, workers=3) as many:
        for env in (one, many):
            with pytest.raises(RuntimeError, match="reset"):
                env.step(np.zeros(6, np.int64))
        a, b = one.reset(), many.reset()
        gen = np.random.default_rng(0)
        for t in range(30):
            actions = one.sample_actions(gen)
            bad = actions.copy()
            bad[4 + t % 2] = int(np.flatnonzero(a.mask[4 + t % 2] == 0)[0])  # a game of the last worker
            errors = []
            for env in (one, many):
                with pytest.raises(IllegalActionError) as e:
                    env.step(bad)
                errors.append(str(e.value))
                with pytest.raises(InvalidOptionError, match="seed="):
                    env.reset(seed=[1, 2])
            assert errors[0] == errors[1] and "is not legal" in errors[0]
            a, b = one.step(actions), many.step(actions)
            assert_same_timestep(a, b, t)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in "ZX"  # a zombie has exited
    except FileNotFoundError:
        return False


def _wait_gone(pids, seconds=10.0) -> list:
    end = time.monotonic() + seconds
    while time.monotonic() < end and any(_alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if _alive(p)]


pytestmark_linux = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")


@pytestmark_linux
def test_close_and_with_stop_the_workers_and_free_the_shared_memory():
    venv = vector.make("dominoes_v0", 6, seed=0, workers=3)
    pids, name = venv.worker_pids, venv._res.shm.name
    venv.reset()
    assert all(_alive(p) for p in pids) and os.path.exists(f"/dev/shm/{name}")
    venv.close()
    assert _wait_gone(pids, 0) == [] and not os.path.exists(f"/dev/shm/{name}")
    venv.close()  # again: nothing
    with pytest.raises(RuntimeError, match="closed"):
        venv.reset()
    with vector.make("dominoes_v0", 6, seed=0, workers=2) as venv:
        pids = venv.worker_pids
        venv.reset()
    assert _wait_gone(pids, 0) == []


@pytestmark_linux
def test_arrays_kept_past_close_stay_readable_and_the_block_is_unmapped_when_they_go():
    """copy=False hands out views of the shared block: one kept after close() reads what it held (it used to
    point at unmapped memory: a segfault), the block's name is gone at once, its memory when the last view is.
    In a child process, so that a crash fails this test and not the test run."""
    script = textwrap.dedent("""
        import gc, os
        from kozel_env import vector
        from kozel_env.vector import workers
        venv = vector.make("dominoes_v0", 6, seed=0, workers=2, copy=False)
        ts = venv.reset()
        expect, name = ts.obs.copy(), venv._res.shm.name
        venv.close()
        assert not os.path.exists(f"/dev/shm/{name}")
        assert (ts.obs == expect).all() and ts.mask.sum() > 0
        assert len(workers._LINGERING) == 1
        del ts, venv
        gc.collect()
        workers._close_lingering()
        assert workers._LINGERING == []
        venv = vector.make("dominoes_v0", 6, seed=0, workers=2, copy=False)
        kept = venv.reset().obs
        venv.close()  # kept until the exit, which must not complain
        print("ok", float(kept.sum()))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok") and out.stderr == ""


@pytestmark_linux
def test_garbage_collection_stops_the_workers():
    venv = vector.make("dominoes_v0", 6, seed=0, workers=3)
    venv.reset()
    pids, name = venv.worker_pids, venv._res.shm.name
    del venv
    gc.collect()
    assert _wait_gone(pids, 0) == [] and not os.path.exists(f"/dev/shm/{name}")


@pytestmark_linux
@pytest.mark.parametrize("how", ["exit", "kill"])
def test_the_workers_end_with_their_parent(how):
    script = textwrap.dedent("""
        import sys, time
        from kozel_env import vector
        venv = vector.make("dominoes_v0", 6, seed=0, workers=3)
        venv.reset()
        print(*venv.worker_pids, venv._res.shm.name, flush=True)
        if sys.argv[1] == "kill":
            time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script, how], stdout=subprocess.PIPE, text=True)
    *pids, name = proc.stdout.readline().split()
    pids = [int(p) for p in pids]
    assert len(pids) == 2 and all(_alive(p) for p in pids)
    if how == "kill":
        proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=30) == (-signal.SIGKILL if how == "kill" else 0)
    assert _wait_gone(pids) == []
    if how == "exit":
        assert not os.path.exists(f"/dev/shm/{name}")


@pytestmark_linux
def test_a_worker_that_died_is_named_by_the_next_step():
    with vector.make("dominoes_v0", 6, seed=0, workers=3) as venv:
        ts = venv.reset()
        os.kill(venv.worker_pids[1], signal.SIGKILL)
        _wait_gone(venv.worker_pids[1:])  # dead before the step, or while the step waits for it: both named
        with pytest.raises(RuntimeError, match=f"worker 2 \\(pid {venv.worker_pids[1]}\\) exited"):
            venv.step(venv.sample_actions(np.random.default_rng(0)))
        assert ts.obs.shape == (6, venv.obs_size)


def test_the_benchmark_reports_the_worker_scaling_and_writes_the_docs_table(bench, tmp_path, monkeypatch, capsys):
    page = tmp_path / "speed.md"
    page.write_text(f"before\n<!-- BEGIN {bench.MARKER} -->\nold\n<!-- END GENERATED BATCHED SPEED -->\nafter\n")
    monkeypatch.setattr(bench, "DOCS", page)
    rows = bench.main(["--skip-aec", "--batched", "--workers", "1,2", "--batch-sizes", "8", "--seconds", "0.05",
                       "--env", "dominoes_v0", "--write-docs", "--no-copy", "--per-worker"])
    machine = [r for r in rows if r["env"].startswith("machine ceiling")]
    assert [(r["env"], r["workers"]) for r in machine] == [
        ("machine ceiling: compute", "1"), ("machine ceiling: compute", "2"),
        ("machine ceiling: memory stream", "1"), ("machine ceiling: memory stream", "2")]
    assert machine[0]["ratio_to_first"] == machine[2]["ratio_to_first"] == 1.0
    assert machine[1]["ratio_to_first"] > 0 and machine[3]["ratio_to_first"] > 0
    scaling = [r for r in rows if "workers" in r and r not in machine]
    assert [(r["env"], r["batch"], r["workers"]) for r in scaling] == [
        ("dominoes_v0", 8, "1"), ("dominoes_v0", 8, "2"), ("dominoes_v0", 8, "2, no copy"),
        ("dominoes_v0", 8, "2, 8 each"), ("dominoes_v0", 8, "2, shards apart"), ("dominoes_v0", 8, "2 apart, 8 each")]
    assert scaling[0]["ratio_to_first"] == 1.0 and all(r["batched_step_decisions_per_s"] > 0 for r in scaling)
    assert [r.get("games") for r in scaling] == [8, 8, 8, 16, None, 16], "--per-worker: 8 games a process"
    text = page.read_text()
    assert text.startswith("before\n") and text.endswith("after\n") and "old" not in text
    assert "| dominoes_v0 |" in text and "workers = 2 |" in text and "workers = 2, no copy |" in text
    assert "workers = 2, shards apart |" in text and "workers = 2, 8 each |" in text
    assert "workers = 2 apart, 8 each |" in text
    assert "B = 8" in text and "| machine ceiling: memory stream | (1.00x) |" in text
    out = capsys.readouterr().out
    assert "dominoes_v0                  8                2" in out and "8       2, no copy" in out
    assert "this machine's own scaling" in out and "memory stream" in out
    assert bench.worker_counts("all") == list(range(1, (os.cpu_count() or 1) + 1))


def test_the_shards_split_the_batch_into_sizes_that_differ_by_at_most_one():
    from kozel_env.vector.workers import shard_bounds

    for num_envs, k in [(8, 2), (7, 3), (4096, 16), (5, 5)]:
        bounds = shard_bounds(num_envs, k)
        sizes = np.diff(bounds)
        assert bounds[0] == 0 and bounds[-1] == num_envs and len(sizes) == k
        assert sizes.min() >= 1 and sizes.max() - sizes.min() <= 1
    with vector.make("dominoes_v0", 7, seed=0, workers=3) as venv:
        assert venv._bounds == shard_bounds(7, 3)


def test_the_benchmarks_bound_of_sharding_steps_separate_shards_and_names_one_that_fails(bench):
    apart, alone = bench.shards_apart("queens_and_jacks_v0", 7, 3, 0.05, rounds=2)
    assert apart > 0 and alone > 0
    with pytest.raises(RuntimeError, match="a shard process of no_such_env failed to start"):
        bench.shards_apart("no_such_env", 8, 2, 0.05)


def test_the_per_worker_bound_steps_k_separate_processes_of_the_whole_batch_each(bench, monkeypatch):
    calls = []
    monkeypatch.setattr(bench, "_shards_at_once", lambda name, n, k, seconds: calls.append((n, k)) or float(n))
    assert bench.shards_apart("dominoes_v0", 8, 2, 0.1, rounds=1, each=True) == (16.0, 8.0)
    assert bench.shards_apart("dominoes_v0", 8, 2, 0.1, rounds=1) == (8.0, 8.0)
    assert calls == [(8, 1), (16, 2), (8, 1), (8, 2)], "each: 2 processes of 8 games against one of 8"
