"""``vector.make_async`` (:mod:`kozel_env.vector.async_workers`): every shard, stepped by its own worker on its
own clock, plays exactly what its games play in one process given the same actions (every obs, mask, reward,
done, deal_over, info and the oracle state, for every batched game); bad input is refused before anything
moves; the workers stop on ``close()``, on leaving ``with`` and on garbage collection."""
import gc
import os
import signal

import numpy as np
import pytest

from kozel_env import vector
from kozel_env.core.errors import IllegalActionError, InvalidOptionError
from tests.vector.test_workers import _alive, _wait_gone, assert_same_timestep, pytestmark_linux


def chosen(mask: np.ndarray, t: int, first_game: int) -> np.ndarray:
    """A legal action per row that depends on the game (its index in the whole batch), its step count ``t`` and
    its mask only: the same actions whichever process steps the game, and whenever."""
    m = mask != 0
    k = ((first_game + np.arange(len(m))) * 7 + t * 13) % m.sum(axis=1)
    return np.argmax(np.cumsum(m, axis=1) > k[:, None], axis=1)


def rows(ts, part: slice):
    """The timestep of the games ``part`` of a whole batch's timestep (``info`` sliced, as a shard's is)."""
    info = {key: ({k: v[part] for k, v in value.items()} if isinstance(value, dict) else value[part])
                  for key, value in ts.info.items()}
    sliced = vector.TimeStep(seat=ts.seat[part], obs=ts.obs[part], mask=ts.mask[part], rewards=ts.rewards[part],
                             done=ts.done[part], deal_over=ts.deal_over[part], info=info)
    if not sliced.deal_over.any():
        sliced.info.pop("deals", None)
    if not sliced.done.any():
        sliced.info.pop("returns", None)
        sliced.info.pop("learner_return", None)
    return sliced


def one_process(name, num_envs, steps, seed, **options):
    """Every timestep and the oracle state of ``steps`` steps in one process, each game playing :func:`chosen`."""
    one = vector.make(name, num_envs, seed=seed, **options)
    ts, states = [one.reset()], [one.state()]
    for t in range(steps):
        ts.append(one.step(chosen(ts[-1].mask, t, 0)))
        states.append(one.state())
    return ts, states


def play_async(name, num_envs, workers, steps, seed=3, lag=0, **options):
    """Drive ``make_async`` until every shard has made ``steps`` steps, each received timestep compared with the
    rows of the one-process timestep of the same step, and the oracle state at the end; ``lag``: shard 0's
    actions are held back while it is fewer than ``lag`` steps behind every other shard (the shards then run
    at different counts of steps). Returns the episodes and deals that ended."""
    expect, states = one_process(name, num_envs, steps, seed, **options)
    ended = [0, 0]
    with vector.make_async(name, num_envs, seed=seed, workers=workers, **options) as venv:
        assert len(venv.worker_pids) == workers
        venv.async_reset()
        count, pending, stepping, spread = [0] * workers, {}, set(range(workers)), 0
        while stepping:
            shard, ts = venv.recv()
            stepping.remove(shard)
            part = venv.shard_slice(shard)
            assert_same_timestep(ts, rows(expect[count[shard]], part), (name, shard, count[shard]))
            ended[0] += int(ts.done.sum())
            ended[1] += int(ts.deal_over.sum())
            if count[shard] == steps:
                assert np.array_equal(venv.state(shard), states[steps][part])
            else:
                pending[shard] = chosen(ts.mask, count[shard], part.start)
                count[shard] += 1
                spread = max(spread, max(count) - min(count))
            for i in list(pending):
                behind = min(count[j] for j in range(workers) if j != i) - count[i] if workers > 1 else lag
                if i == 0 and behind < lag and stepping:
                    continue
                venv.send(i, pending.pop(i))
                stepping.add(i)
        assert spread >= lag  # the shards did run at different counts of steps
    return ended


@pytest.mark.parametrize("name", vector.BATCHED)
def test_async_shards_play_exactly_what_one_process_plays_in_self_play(name):
    ended = play_async(name, 7, 3, 80, lag=5, episode="deal", reward="points")
    assert ended[0] > 0 and ended[1] > 0  # the auto-reset and the deals' info were compared too


@pytest.mark.parametrize("name", vector.BATCHED)
def test_async_shards_play_exactly_what_one_process_plays_against_the_random_opponent(name):
    ended = play_async(name, 7, 2, 50, episode="deal", opponent="random")
    assert ended[0] > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", vector.BATCHED)
@pytest.mark.parametrize("options", [{}, {"reward": "points"}, {"opponent": "random", "learner_side": 0}])
def test_async_shards_play_exactly_what_one_process_plays_long(name, options):
    play_async(name, 61, 4, 400, seed=11, lag=30, **options)


def test_every_sent_shard_comes_back_once_and_the_oldest_ready_one_first():
    with vector.make_async("queens_and_jacks_v0", 9, seed=0, workers=3) as venv:
        venv.async_reset()
        got = sorted(venv.recv()[0] for _ in range(3))
        assert got == [0, 1, 2]
        gen = np.random.default_rng(0)
        for shard in (2, 0, 1):
            venv.send(shard, venv.sample_actions(gen, shard))
        for shard in (2, 0, 1):
            gone = _wait_ready(venv, shard)
            assert gone
        assert [venv.recv()[0] for _ in range(3)] == [2, 0, 1]  # all ready: in the order they were sent
        with pytest.raises(RuntimeError, match="no shard is stepping"):
            venv.recv()


def _wait_ready(venv, shard, seconds=10.0) -> bool:
    """Whether ``shard``'s reply has arrived (within ``seconds``), without receiving it."""
    return venv._res.recvs[shard].poll(seconds)


def test_copy_false_gives_views_valid_until_the_shards_next_send_and_copy_true_copies():
    one = vector.make("dominoes_v0", 6, seed=4)
    with vector.make_async("dominoes_v0", 6, seed=4, workers=2, copy=False) as venv, \
            vector.make_async("dominoes_v0", 6, seed=4, workers=2) as copied:
        expect = one.reset()
        venv.async_reset()
        copied.async_reset()
        got = dict(venv.recv() for _ in range(2))
        kept = dict(copied.recv() for _ in range(2))
        for shard in (0, 1):
            part = venv.shard_slice(shard)
            assert_same_timestep(got[shard], rows(expect, part), shard)
            assert np.shares_memory(got[shard].obs, venv._res.views["obs"])
            assert np.shares_memory(got[shard].mask, venv._res.views["mask"])
            assert not np.shares_memory(kept[shard].obs, copied._res.views["obs"])
            assert not np.shares_memory(kept[shard].mask, copied._res.views["mask"])
        before, copy_before = got[0].obs.copy(), kept[0].obs.copy()
        actions = chosen(got[0].mask, 0, 0)
        venv.send(0, actions)
        copied.send(0, actions)
        after, after_copied = venv.recv()[1], copied.recv()[1]
        assert not np.array_equal(before, after.obs) and np.array_equal(got[0].obs, after.obs)  # written again
        assert np.array_equal(kept[0].obs, copy_before) and np.array_equal(after_copied.obs, after.obs)


def test_bad_input_is_refused_naming_it_and_changes_nothing():
    one = vector.make("sea_goat_v0", 6, seed=9)
    with vector.make_async("sea_goat_v0", 6, seed=9, workers=2) as venv:
        for call in (lambda: venv.send(0, np.zeros(3, np.int64)), lambda: venv.state(1),
                     lambda: venv.sample_actions(np.random.default_rng(0), 0)):
            with pytest.raises(RuntimeError, match="async_reset"):
                call()
        with pytest.raises(RuntimeError, match="async_reset"):
            venv.recv()
        with pytest.raises(InvalidOptionError, match="seed="):
            venv.async_reset(seed=[1, 2])
        expect = one.reset()
        venv.async_reset()
        with pytest.raises(RuntimeError, match="shard 1 is stepping; recv"):
            venv.send(1, np.zeros(3, np.int64))
        got = dict(venv.recv() for _ in range(2))
        for shard in (2, -1, True, 1.0, "0", None):
            with pytest.raises(InvalidOptionError, match=f"shard={shard!r} is not allowed: an int in 0..1"):
                venv.send(shard, np.zeros(3, np.int64))
        actions = chosen(expect.mask, 0, 0)
        bad = actions.copy()
        bad[4] = int(np.flatnonzero(expect.mask[4] == 0)[0])  # game 4: the second shard's second game
        with pytest.raises(IllegalActionError) as e:
            one.step(bad)
        with pytest.raises(IllegalActionError) as e_async:
            venv.send(1, bad[3:])
        assert str(e.value) == str(e_async.value) and str(e.value).startswith("game 4: ")
        for wrong in (bad[3:5], bad[3:].astype(float), np.full(3, 999)):
            with pytest.raises(IllegalActionError, match="shape|dtype|out of range"):
                venv.send(1, wrong)
        assert np.array_equal(venv.state(1), one.state()[3:])  # nothing moved
        expect = one.step(actions)
        for shard in (1, 0):
            venv.send(shard, actions[venv.shard_slice(shard)])
        for _ in range(2):
            shard, ts = venv.recv()
            assert_same_timestep(ts, rows(expect, venv.shard_slice(shard)), shard)
        assert got[0].obs.shape == (3, venv.obs_size)


@pytest.mark.parametrize("opponent", ["normal", object()])
def test_an_opponent_of_this_process_is_refused(opponent):
    with pytest.raises(InvalidOptionError, match="opponent="):
        vector.make_async("dominoes_v0", 6, workers=2, opponent=opponent)


@pytest.mark.parametrize("workers", [0, 7, 2.0, True, None, "2"])
def test_a_bad_workers_value_is_refused_naming_it(workers):
    with pytest.raises(InvalidOptionError, match=f"workers={workers!r} is not allowed"):
        vector.make_async("dominoes_v0", 6, workers=workers)


def test_async_reset_while_shards_step_drops_their_steps_and_deals_again():
    one = vector.make("donkey_v0", 8, seed=5)
    with vector.make_async("donkey_v0", 8, seed=5, workers=4) as venv:
        venv.async_reset()
        gen = np.random.default_rng(1)
        for _ in range(12):
            shard, _ts = venv.recv()
            venv.send(shard, venv.sample_actions(gen, shard))
        venv.async_reset(seed=6)  # every shard stepping: waited for, dropped
        expect = one.reset(seed=6)
        for _ in range(4):
            shard, ts = venv.recv()
            assert_same_timestep(ts, rows(expect, venv.shard_slice(shard)), shard)


@pytestmark_linux
def test_close_with_and_garbage_collection_stop_the_workers_and_free_the_shared_memory():
    venv = vector.make_async("dominoes_v0", 6, seed=0, workers=3)
    pids, name = venv.worker_pids, venv._res.shm.name
    venv.async_reset()
    assert len(pids) == 3 and all(_alive(p) for p in pids) and os.path.exists(f"/dev/shm/{name}")
    venv.close()  # with every shard stepping
    assert _wait_gone(pids, 0) == [] and not os.path.exists(f"/dev/shm/{name}")
    venv.close()
    for call in (venv.async_reset, venv.recv, lambda v=venv: v.send(0, [0, 0])):
        with pytest.raises(RuntimeError, match="closed"):
            call()
    with vector.make_async("dominoes_v0", 6, seed=0, workers=2) as venv:
        pids = venv.worker_pids
    assert _wait_gone(pids, 0) == []
    venv = vector.make_async("dominoes_v0", 6, seed=0, workers=2)
    pids, name = venv.worker_pids, venv._res.shm.name
    del venv
    gc.collect()
    assert _wait_gone(pids, 0) == [] and not os.path.exists(f"/dev/shm/{name}")


@pytestmark_linux
def test_a_worker_that_died_is_named_by_recv_and_by_send():
    with vector.make_async("dominoes_v0", 6, seed=0, workers=3) as venv:
        venv.async_reset()
        got = dict(venv.recv() for _ in range(3))
        os.kill(venv.worker_pids[2], signal.SIGKILL)
        _wait_gone(venv.worker_pids[2:])
        with pytest.raises(RuntimeError, match=f"worker 2 \\(pid {venv.worker_pids[2]}\\) exited"):
            venv.send(2, chosen(got[2].mask, 0, 4))  # a broken pipe; or the pipe takes it and recv names it
            venv.recv()


def test_the_benchmark_reports_async_against_lockstep_and_the_bound_and_writes_the_docs_table(
        bench, tmp_path, monkeypatch, capsys):
    page = tmp_path / "speed.md"
    page.write_text(f"<!-- BEGIN {bench.MARKER} -->\nold\n<!-- END GENERATED BATCHED SPEED -->\n")
    monkeypatch.setattr(bench, "DOCS", page)
    rows = bench.main(["--skip-aec", "--workers", "1,2", "--async", "--batch-sizes", "8", "--seconds", "0.05",
                       "--env", "queens_and_jacks_v0", "--write-docs"])
    mine = [r for r in rows if "way" in r]
    assert [(r["env"], r["workers"], r["way"]) for r in mine] == [("queens_and_jacks_v0", "2", way) for way in (
        "one process", "lockstep", "async", "async, 2 shards a core", "2 apart")]
    assert all(r["decisions_per_s_with_player"] > 0 and r["player"] == "random" for r in mine)
    assert mine[0]["ratio_to_one_process"] == 1.0
    assert mine[2]["ratio_to_one_process"] == mine[2]["decisions_per_s_with_player"] / mine[0][
        "decisions_per_s_with_player"]
    text = page.read_text()
    assert "| environment (8 games a process, the random player included) | workers | " in text
    assert "| async, 2 shards a core | 2 apart |" in text and "| queens_and_jacks_v0 | 2 | " in text
    assert "async vs lockstep, random player" in capsys.readouterr().out


def test_the_benchmarks_mlp_player_chooses_legal_moves_in_every_way(bench):
    pytest.importorskip("torch")
    rows = bench._sibling("async_scaling").async_table(["dominoes_ffa_v0"], 8, [2], 0.05, "mlp")
    assert len(rows) == 5 and all(r["player"] == "mlp" and r["decisions_per_s_with_player"] > 0 for r in rows)


def test_a_step_that_fails_in_its_worker_is_raised_by_recv_and_async_reset_starts_again():
    one = vector.make("queens_and_jacks_v0", 4, seed=2)
    with vector.make_async("queens_and_jacks_v0", 4, seed=2, workers=1) as venv:
        venv.async_reset()
        venv.recv()
        venv._res.views["actions"][:] = 10 ** 6  # past send's check: the worker's engine fails on it
        venv._start(0, "step")
        with pytest.raises(RuntimeError, match="vector env worker 0 failed"):
            venv.recv()
        venv.state(0)  # the failed shard is over (not "stepping; recv() it first"), and its worker answers
        with pytest.raises(RuntimeError, match="no shard is stepping"):  # nothing to wait for
            venv.recv()
        venv.async_reset()
        shard, ts = venv.recv()
        assert shard == 0
        assert_same_timestep(ts, one.reset(), "after the failure")
