"""The first layers from the nonzero inputs (agents.rl.sparse): the same outputs and gradients as the dense
layers, for any minibatch of rows in any order, and the PPO update's loss before and after on its probe."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the train extra (PyTorch): pip install -e '.[train]'")

from agents.rl import sparse  # noqa: E402
from agents.rl.model import ActorCritic, mlp  # noqa: E402
from agents.rl.ppo import PPOConfig, PPOTrainer, _Batch, ppo_update  # noqa: E402


def _sparse_rows(n=300, d=40, seed=0):
    rng = np.random.default_rng(seed)
    x = np.where(rng.random((n, d)) < 0.1, rng.choice([1.0, 0.5, -2.0], (n, d)), 0.0).astype(np.float32)
    x[7] = 0.0          # a row with no input set
    x[:, 3] = 0.0       # an input never set
    return torch.from_numpy(x)


def test_sparse_layer_matches_the_dense_one_with_its_gradients():
    x = _sparse_rows()
    rows = torch.tensor([7, 299, 0, 150, 3, 8, 1])          # any rows, any order, the empty row among them
    dense, sp = mlp([40, 16, 5], 1.0), mlp([40, 16, 5], 1.0)
    sp.load_state_dict(dense.state_dict())
    g = torch.randn(len(rows), 5)
    out_d = dense(x[rows])
    out_s = sparse.mlp_forward(sp, sparse.SparseRows(x).take(rows))
    torch.testing.assert_close(out_s, out_d, rtol=1e-5, atol=1e-5)
    out_d.backward(g)
    out_s.backward(g)
    for a, b in zip(dense.parameters(), sp.parameters()):
        torch.testing.assert_close(b.grad, a.grad, rtol=1e-5, atol=1e-5)
    assert sp[0].weight.grad[:, 3].abs().max() == 0      # the input never set gets no gradient


def test_rows_of_keeps_dense_batches_dense_and_take_reads_either():
    x = _sparse_rows()
    full = torch.ones(10, 4)
    assert isinstance(sparse.rows_of(x), sparse.SparseRows)
    assert sparse.rows_of(full) is full
    rows = torch.tensor([2, 5])
    assert torch.equal(sparse.take(full, rows), full[rows])
    sb = sparse.take(sparse.rows_of(x), rows)
    assert sb.n == 2 and len(sb.idx) == int((x[rows] != 0).sum())


def test_model_evaluate_is_the_same_from_the_nonzero_entries():
    x, c = _sparse_rows(d=40, seed=1), _sparse_rows(d=60, seed=2)
    model = ActorCritic(40, 9, (32, 32), critic_dim=60)
    mask = torch.rand(300, 9) < 0.7
    mask[:, 0] = True
    act = torch.zeros(300, dtype=torch.long)
    rows = torch.randperm(300)[:100]
    dense = model.evaluate(x[rows], mask[rows], c[rows], act[rows])
    sp = model.evaluate(sparse.SparseRows(x).take(rows), mask[rows], sparse.SparseRows(c).take(rows), act[rows])
    for a, b in zip(dense, sp):
        torch.testing.assert_close(b, a, rtol=1e-5, atol=1e-5)


def test_update_reports_the_loss_of_its_probe_before_and_after():
    """``loss_before`` is the first minibatch's loss at the weights that collected it; the batch is smaller
    than a minibatch here, so the probe is the whole batch, in shuffled order."""
    cfg = PPOConfig(env="dominoes_v0", num_envs=4, rollout_ticks=16, eval_every=0, hidden=(32,), bots={},
                    selfplay=1.0, minibatch=4096, epochs=2)
    tr = PPOTrainer(cfg)
    tr.collector.collect()
    buf = tr.collector.buf
    b = _Batch(buf, cfg.gamma, cfg.lam)
    everything = torch.arange(b.n)
    with torch.no_grad():
        logp, _, v = b.evaluate(tr.model, everything)
    before = b.loss(everything, logp, v, cfg.clip, cfg.vf_coef)
    s = ppo_update(tr.model, tr.opt, buf, cfg, tr.tgen, 0.0)
    with torch.no_grad():
        logp, _, v = b.evaluate(tr.model, everything)
    after = b.loss(everything, logp, v, cfg.clip, cfg.vf_coef)
    assert s["samples"] == b.n > 0
    assert s["loss_before"] == pytest.approx(before, rel=1e-5, abs=1e-6)
    assert s["loss_after"] == pytest.approx(after, rel=1e-5, abs=1e-6)
    assert s["loss_after"] < s["loss_before"]
