"""PPO rollouts through the batched vector env (``agents.rl.vector_rollout.VectorCollector``, ``vector=True``):
the buffer holds what the vector env showed and what the matches gave, replayed here step by step on a fresh
vector env with the documented seed; a tiny training run works end to end, from ``examples/train.py`` too;
an env without a batched engine and a bot that needs the engine state are refused."""
import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the train extra (PyTorch): pip install -e '.[train]'")

from agents.rl.common import game_info  # noqa: E402
from agents.rl.model import ActorCritic  # noqa: E402
from agents.rl.ppo import PPOConfig, PPOTrainer  # noqa: E402
from agents.rl.rollout import TRAIN_SEED_BASE, OpponentPool  # noqa: E402
from agents.rl.vector_rollout import VectorCollector  # noqa: E402
from kozel_env import vector  # noqa: E402
from kozel_env.core.errors import InvalidOptionError  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _collector(env: str, **kw):
    cfg = PPOConfig(env=env, num_envs=6, rollout_ticks=kw.pop("ticks", 60), hidden=(16,), seed=3, **kw)
    info = game_info(env)
    cobs = info.obs_dim + info.oracle_dim + info.num_players
    model = ActorCritic(info.obs_dim, info.num_actions, cfg.hidden, critic_dim=cobs)
    tgen = torch.Generator().manual_seed(5)
    pool = OpponentPool(4, tgen)
    pool.add(model.actor)           # a snapshot to play against
    col = VectorCollector(cfg, info, model, np.random.default_rng(7), tgen, pool)
    steps = []                      # every step: (seat to move, owners, actions), as the collector steps
    real_step = col.venv.step

    def recording_step(actions):
        steps.append((col.venv.engine.current_player.copy(), col.own.copy(), actions.copy()))
        return real_step(actions)

    col.venv.step = recording_step
    draw = col._pick_owners
    col.draws = []                  # the owners drawn for every match begun after the first ones

    def recording_draw():
        col.draws.append(draw())
        return col.draws[-1]

    col._pick_owners = recording_draw
    return col, steps, info


def _replay(col, steps, info):
    """What the buffer must hold, from a fresh vector env with the collector's documented seed stepped with
    the recorded actions: checks obs, masks and critic inputs row by row; returns the expected rewards,
    done flags, links, open transitions, finished matches, learner returns against opponents and the match
    ends (step, game)."""
    cfg, buf, E, n = col.cfg, col.buf, col.cfg.num_envs, info.num_players
    venv = vector.make(cfg.env, E, seed=TRAIN_SEED_BASE + cfg.seed * 100_000_000)
    ts = venv.reset()
    w = cfg.shaping / math.sqrt(max(1.0, info.deals_per_match)) / info.points_std
    rew, done, nxt = np.zeros(buf.n), np.zeros(buf.n, bool), np.full(buf.n, -1)
    last, row, matches, vs_returns, ends = {}, 0, 0, [], []
    d, od = info.obs_dim, info.oracle_dim
    for k, (seat, own, actions) in enumerate(steps):
        assert (seat == ts.seat).all()
        oracle = venv.state()
        for b in range(E):
            if own[b, seat[b]] != 0:
                continue                # an opponent's move: not in the buffer
            assert np.array_equal(buf.obs[row], ts.obs[b]) and np.array_equal(buf.mask[row], ts.mask[b] != 0)
            assert buf.mask[row, buf.act[row]] and buf.act[row] == actions[b]   # a legal move, the one played
            assert np.array_equal(buf.cobs[row, d:d + od], oracle[b]) and buf.cobs[row, d + od + seat[b]] == 1
            if (b, seat[b]) in last:
                nxt[last[b, seat[b]]] = row
            last[b, seat[b]] = row
            row += 1
        ts = venv.step(actions)
        for b in range(E):
            r = np.zeros(n)
            if ts.deal_over[b]:
                sp = ts.info["deals"]["seat_points"][b].astype(float)
                r += w * (sp - sp.mean())
            if ts.done[b]:
                r += ts.info["returns"][b]
                matches += 1
                ends.append((k, b))
                if (own[b] != 0).any():
                    vs_returns.append(ts.info["returns"][b][list(own[b]).index(0)])
            for s in range(n):
                if (b, s) in last:
                    rew[last[b, s]] += r[s]
                    if ts.done[b]:
                        done[last.pop((b, s))] = True
    assert row == buf.n
    return rew, done, nxt, last, matches, vs_returns, ends


@pytest.mark.parametrize("env,selfplay,ticks", [("dominoes_v0", 1.0, 150), ("dominoes_v0", 0.5, 150),
                                                ("queens_and_jacks_v0", 0.5, 300)])
def test_the_buffer_holds_what_the_vector_env_showed_and_the_matches_gave(env, selfplay, ticks):
    """Matches of about 140 (dominoes) and 270 (queens_and_jacks) decisions: some end in the rollout."""
    col, steps, info = _collector(env, selfplay=selfplay, bots={"random": 1.0}, bot_share=0.5, ticks=ticks)
    final = col.collect()
    rew, done, nxt, last, matches, vs_returns, ends = _replay(col, steps, info)
    buf = col.buf
    assert matches >= 1 and col.matches_done == matches and done.sum() >= info.num_players
    np.testing.assert_allclose(buf.rew[:buf.n], rew, rtol=1e-5, atol=1e-6)
    assert np.array_equal(buf.done[:buf.n], done) and np.array_equal(buf.nxt[:buf.n], nxt)
    assert np.array_equal(buf.final[:buf.n], done | (nxt >= 0)) and final == int((done | (nxt >= 0)).sum())
    assert {(b, s): int(col.pending[b, s]) for b, s in zip(*np.nonzero(col.pending >= 0))} == last
    np.testing.assert_allclose(col.ep_stats, vs_returns)
    for (k, b), (owners, _) in zip(ends, col.draws, strict=True):   # a match ended: its next one's owners drawn
        after = steps[k + 1][1][b] if k + 1 < len(steps) else col.own[b]
        assert list(after) == [col.owner_keys.index(key) for key in owners]
    for _, own, _ in steps:     # the owners: all learner, or the learner on one side and one opponent
        for row in own:
            learner = tuple(np.flatnonzero(row == 0))
            assert learner == tuple(range(info.num_players)) or (
                learner in info.side_seats and len(set(row[row != 0])) == 1)
    if selfplay < 1:
        assert vs_returns
        kinds = {col.owner_keys[c][0] for _, own, _ in steps for c in np.unique(own) if c}
        assert kinds == {"S", "B"}


def test_open_transitions_carry_over_into_the_next_rollout():
    col, steps, info = _collector("dominoes_v0", selfplay=1.0, ticks=25)
    col.collect()
    carried = int((col.pending >= 0).sum())
    open_obs = {(b, s): col.buf.obs[col.pending[b, s]].copy() for b, s in zip(*np.nonzero(col.pending >= 0))}
    col.collect()
    buf, d, od = col.buf, info.obs_dim, info.oracle_dim
    assert buf.n == carried + 25 * 6
    for (_b, s), o in open_obs.items():    # each seat's trajectory goes on from its carried decision
        j = [k for k in range(carried) if np.array_equal(buf.obs[k], o) and buf.cobs[k, d + od + s] == 1]
        assert len(j) == 1 and (buf.nxt[j[0]] >= carried or buf.done[j[0]])
    for j in np.flatnonzero(buf.final[:buf.n] & ~buf.done[:buf.n]):
        k = buf.nxt[j]
        assert k > j and np.array_equal(buf.cobs[j, d + od:], buf.cobs[k, d + od:])  # the same seat
    assert buf.mask[np.arange(buf.n), buf.act[:buf.n]].all()


def test_a_tiny_vector_training_run_works_end_to_end(tmp_path):
    cfg = PPOConfig(env="queens_and_jacks_v0", vector=True, num_envs=8, rollout_ticks=16, hidden=(16,),
                    minibatch=64, epochs=1, eval_every=0, snapshot_every=1, selfplay=0.5, bc_steps=100,
                    bc_teacher="normal", bots={"random": 1.0})
    tr = PPOTrainer(cfg)
    assert isinstance(tr.collector, VectorCollector)
    bc = tr.behaviour_cloning()
    assert bc["bc_decisions"] >= 100 and 0 <= bc["bc_accuracy"] <= 1
    for _ in range(2):
        stats = tr.train_iteration()
    assert stats["samples"] > 0 and math.isfinite(stats["loss_after"]) and tr.steps > 0
    seen = tr.collector.seed_counter
    tr.save(tmp_path / "last.pt")
    tr2 = PPOTrainer(cfg)
    tr2.load(tmp_path / "last.pt")        # resumed: fresh matches from a new seed
    assert tr2.collector.seed_counter == seen + cfg.num_envs and tr2.train_iteration()["samples"] > 0


def test_examples_train_takes_vector_true(tmp_path):
    spec = importlib.util.spec_from_file_location("example_train_vector", EXAMPLES / "train.py")
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    out = train.run(["--env", "dominoes_v0", "--steps", "300", "--bc-steps", "0", "--num-envs", "8", "--rollout",
                      "16", "--hidden", "16", "--eval-every", "0", "--no-progress", "--quiet", "--out", str(tmp_path),
                      "--set", "vector=true"])
    assert out["steps"] == 300
    assert '"vector": true' in (tmp_path / "config.json").read_text()


def test_an_env_without_a_batched_engine_and_a_state_bot_are_refused(monkeypatch):
    unbatched = "beat_or_discard_v0"      # every registered env has a batched engine now: take one away
    monkeypatch.setattr(vector, "BATCHED", tuple(n for n in vector.BATCHED if n != unbatched))
    with pytest.raises(InvalidOptionError, match=f"{unbatched} has no batched engine"):
        PPOTrainer(PPOConfig(env=unbatched, vector=True, num_envs=2, hidden=(8,)))
    with pytest.raises(InvalidOptionError, match="needs the engine state"):
        PPOTrainer(PPOConfig(env="dominoes_v0", vector=True, num_envs=2, hidden=(8,), bots={"pimc": 1.0}))
