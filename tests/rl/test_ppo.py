"""PPO self-play: advantages along each seat's own trajectory, reward attribution, and a short training run
that lowers the PPO loss on its batches and beats random play."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the train extra (PyTorch): pip install -e '.[train]'")

from agents.rl.evaluate import evaluate  # noqa: E402
from agents.rl.ppo import LEARNER, PPOConfig, PPOTrainer, advantages  # noqa: E402


def _trainer(**kw):
    cfg = dict(env="dominoes_v0", num_envs=2, rollout_ticks=8, eval_every=0, hidden=(16,), bots={"random": 1.0})
    cfg.update(kw)
    return PPOTrainer(PPOConfig(**cfg))


def test_gae_follows_each_seats_trajectory_and_bootstraps_at_the_cut():
    tr = _trainer(gamma=1.0, lam=0.5)
    b = tr.collector.buf
    # seat 0: j0 -> j2 (done); seat 1: j1 -> j3 -> j4 (j4 still open: cut, bootstrap with V(j4))
    b.n = 5
    b.val[:5] = [0.1, 0.2, 0.3, 0.4, 0.5]
    b.rew[:5] = [0.0, 0.5, 1.0, 0.0, 0.0]
    b.done[:5] = [False, False, True, False, False]
    b.final[:5] = [True, True, True, True, False]
    b.nxt[:5] = [2, 3, -1, 4, -1]
    idx, adv, ret = advantages(b, tr.cfg.gamma, tr.cfg.lam)
    assert idx.tolist() == [0, 1, 2, 3]
    a2 = 1.0 - 0.3
    a0 = 0.0 + 0.3 - 0.1 + 0.5 * a2
    a3 = 0.0 + 0.5 - 0.4          # next decision j4 is open: bootstrap, no further GAE term
    a1 = 0.5 + 0.4 - 0.2 + 0.5 * a3
    assert adv.tolist() == pytest.approx([a0, a1, a2, a3])
    assert ret.tolist() == pytest.approx([a0 + 0.1, a1 + 0.2, a2 + 0.3, a3 + 0.4])


def test_rewards_reach_each_seats_last_decision_and_nothing_is_lost():
    """Self-play only, outcome reward only: each finished match gives every seat's final decision its
    return (+1 / -1, the same for partners) and every other decision 0."""
    tr = _trainer(num_envs=3, rollout_ticks=200, selfplay=1.0, shaping=0.0)
    c = tr.collector
    c.collect()
    b = c.buf
    n = b.n
    done = np.flatnonzero(b.done[:n])
    assert len(done) == 4 * tr.matches_done > 0
    assert set(np.round(b.rew[done], 6)) <= {-1.0, 1.0}
    assert np.all(b.rew[:n][~b.done[:n]] == 0)
    assert abs(b.rew[done].sum()) < 1e-6  # zero-sum: two winners, two goats per match
    # every final transition that is not done links to a later decision of the same trajectory
    fin = np.flatnonzero(b.final[:n] & ~b.done[:n])
    assert np.all(b.nxt[fin] > fin)
    # open transitions are exactly the pending ones, carried to the next rollout
    assert sorted(np.flatnonzero(~b.final[:n]).tolist()) == sorted(c.pending[c.pending >= 0].tolist())
    c.collect()
    assert c.buf.n > 0


def test_opponent_seats_are_not_learner_data():
    tr = _trainer(num_envs=8, rollout_ticks=50, selfplay=0.0)
    for e in range(8):
        owners = tr.collector.owners[e]
        assert owners.count(LEARNER) == 2
        learner_side = [s for s in range(4) if owners[s] == LEARNER]
        assert learner_side in ([0, 2], [1, 3])
    tr.collector.collect()
    assert tr.collector.buf.n <= 8 * 50 // 2 + 8 * 4


def test_a_few_iterations_reduce_the_loss_and_beat_random():
    cfg = PPOConfig(env="dominoes_v0", seed=0, num_envs=64, rollout_ticks=64, total_steps=40_000,
                    bots={"random": 1.0}, eval_every=0, hidden=(128, 128), lr=1e-3, lr_final=1e-3)
    tr = PPOTrainer(cfg)
    before = evaluate(tr.policy(), "random", "dominoes_v0", 30)
    while not tr.done():
        s = tr.train_iteration()
        assert s["loss_after"] < s["loss_before"]   # each update lowers the PPO loss on its batch
    after = evaluate(tr.policy(), "random", "dominoes_v0", 30)
    assert after["margin"]["lo"] > 0                 # wins points from random play, with 95% confidence
    assert after["score"]["mean"] > before["score"]["mean"]
    assert after["margin"]["mean"] > before["margin"]["mean"]


def test_resume_restores_counters_weights_and_pool(tmp_path):
    tr = _trainer(num_envs=4, rollout_ticks=16, snapshot_every=1)
    tr.train_iteration()
    tr.train_iteration()
    path = tr.save(tmp_path / "last.pt")
    assert (tmp_path / "policy.npz").exists() and (tmp_path / "policy.json").exists()
    tr2 = _trainer(num_envs=4, rollout_ticks=16, snapshot_every=1)
    tr2.load(path)
    assert (tr2.iteration, tr2.steps, len(tr2.pool)) == (tr.iteration, tr.steps, len(tr.pool))
    for a, b in zip(tr.model.parameters(), tr2.model.parameters()):
        assert torch.equal(a, b)
    tr2.train_iteration()
    assert tr2.iteration == 3


def _agreement(policy, n_positions=400):
    """Share of the normal bot's non-forced decisions (normal self-play) that ``policy`` would also take."""
    from agents import make_agent
    from agents.base import game_for

    g = game_for("dominoes_v0")
    bots = [make_agent("normal", "dominoes_v0", seed=s) for s in range(4)]
    same = total = 0
    seed = 0
    while total < n_positions:
        st = g.new_state(123_000 + seed)
        seed += 1
        while not st.terminal and total < n_positions:
            p = st.current_player
            o = g.observe(st, p)
            m = np.zeros(g.num_actions, np.int8)
            m[st.legal_actions()] = 1
            a = bots[p].act(o, m)
            if m.sum() > 1:
                total += 1
                same += int(policy.act_batch(o[None], m[None])[0]) == a
            st.apply_action(a)
    return same / total


def test_behaviour_cloning_warm_start_imitates_the_teacher():
    tr = _trainer(num_envs=32, rollout_ticks=32, hidden=(64,), bc_steps=12_000, bc_dagger=0.3, bc_teacher="normal")
    before = _agreement(tr.policy())
    logged = []
    s = tr.behaviour_cloning(logged.append)
    assert tr.bc_done >= 12_000 and len(logged) > 3 and s["bc_accuracy"] > 0.6
    after = _agreement(tr.policy())
    assert after > before + 0.15, (before, after)
    # PPO then starts from fresh matches with the learner (not the teacher) in the seats
    assert tr.collector.teacher is None and not tr.collector.dagger and tr.collector.buf.n == 0
    tr.train_iteration()


def test_game_info_reads_the_sides_from_the_engine_contract():
    from agents.base import game_for
    from agents.rl.common import game_info

    assert game_info("dominoes_v0").side_seats == ((0, 2), (1, 3))
    three = game_info("dominoes_ffa_v0", {"num_players": 3}, probe_matches=2)
    assert three.side_seats == ((0,), (1,), (2,)) and three.game is game_for("dominoes_ffa_v0", {"num_players": 3})
    assert three.points_std > 0 and three.deals_per_match >= 1


def test_init_from_starts_the_actor_from_a_trained_policy(tmp_path):
    """``init_from``: fine-tuning starts from the policy's own weights (its greedy moves, exactly), the shipped
    one by name; a policy of another layout or game is refused with both named."""
    from agents.rl.policy import NumpyPolicy, checkpoint_path

    src = _trainer(hidden=(16,), seed=3)
    path = tmp_path / "p.npz"
    src.policy().save(path, src.export_config())
    tr = _trainer(hidden=(16,), seed=4, init_from=str(path))
    saved = NumpyPolicy.from_files(path)
    obs = np.random.default_rng(0).random((64, saved.obs_dim), np.float32)
    assert np.allclose(tr.policy().logits(obs), saved.logits(obs), atol=1e-6)
    assert not np.allclose(_trainer(hidden=(16,), seed=4).policy().logits(obs), saved.logits(obs), atol=1e-3)
    shipped = NumpyPolicy.from_files(checkpoint_path("dominoes_v0"))
    tr = _trainer(hidden=tuple(W.shape[1] for W, _ in shipped.layers[:-1]), init_from="shipped")
    assert np.array_equal(tr.policy().logits(obs[:, :shipped.obs_dim]), shipped.logits(obs[:, :shipped.obs_dim]))
    with pytest.raises(ValueError, match=r"layers .*\(set hidden="):
        _trainer(hidden=(32,), init_from=str(path))
    with pytest.raises(ValueError, match="a policy for dominoes_v0"):
        _trainer(env="sea_goat_v0", hidden=(16,), init_from=str(path))


def test_a_resumed_fine_tuning_run_keeps_the_record_of_the_policy_it_started_from(tmp_path):
    """``init_from="shipped"`` may name another file when the run resumes (the fine-tuned policy shipped
    meanwhile): the run's ``init_from`` record is the one saved in ``last.pt``."""
    import json

    src = _trainer(hidden=(16,), seed=3)
    path = tmp_path / "p.npz"
    src.policy().save(path, {**src.export_config(), "steps": 123})
    tr = _trainer(hidden=(16,), init_from=str(path))
    tr.train_iteration()
    tr.save(tmp_path / "last.pt")
    meta = json.loads(path.with_suffix(".json").read_text())
    path.with_suffix(".json").write_text(json.dumps({**meta, "steps": 456}))
    again = _trainer(hidden=(16,), init_from=str(path))
    assert again.export_config()["init_from"]["steps"] == 456
    again.load(tmp_path / "last.pt")
    assert again.export_config()["init_from"] == tr.export_config()["init_from"]
    assert again.export_config()["init_from"]["steps"] == 123


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_the_update_runs_the_layers_in_its_precision_and_keeps_float32_weights(precision):
    """``precision="bfloat16"``: the update's layers multiply in bfloat16 (autocast; the rollout's forward passes
    stay float32), its log-probabilities and values come out float32, and the weights, their gradients and
    Adam's state stay float32."""
    tr = _trainer(precision=precision, hidden=(32, 32), num_envs=4, rollout_ticks=16)
    seen = set()  # (net, layer, input dtype, output dtype) of every call: the collection's and the update's
    for net in (tr.model.actor, tr.model.critic):
        for i, layer in enumerate(net):
            if isinstance(layer, torch.nn.Linear) and i > 0:
                layer.register_forward_hook(lambda m, inp, out, i=i, net=net: seen.add(
                    (id(net), i, inp[0].dtype, out.dtype)))
    out = []
    evaluate = tr.model.evaluate
    tr.model.evaluate = lambda *a: out.append(evaluate(*a)) or out[-1]
    stats = tr.train_iteration()
    last = len(tr.model.actor) - 1
    f32, b16 = torch.float32, torch.bfloat16
    for net in (tr.model.actor, tr.model.critic):
        calls = {(i, a, b) for n, i, a, b in seen if n == id(net)}
        assert (2, f32, f32) in calls and (last, f32, f32) in calls  # the rollout's passes: float32
        assert calls - {(2, f32, f32), (last, f32, f32)} == (
            {(2, f32, b16), (last, b16, b16)} if precision == "bfloat16" else set())  # the update's
    assert out and all(t.dtype == f32 for res in out for t in res)  # log-probs, entropies, values
    params = list(tr.model.parameters())
    assert all(p.dtype == f32 and p.grad.dtype == f32 for p in params)
    assert all(s.dtype == f32 for st in tr.opt.state.values() for s in st.values() if s.dim())
    assert np.isfinite([stats["pg"], stats["vf"], stats["loss_after"]]).all()


def test_a_bad_precision_is_refused_naming_it():
    with pytest.raises(ValueError, match="precision='float16' is not allowed: one of float32, bfloat16"):
        _trainer(precision="float16")
