"""The masked actor-critic: illegal actions get zero probability and are never chosen; the numpy policy that
plays the shipped checkpoints computes exactly what the torch actor computes; checkpoint files round-trip."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the train extra (PyTorch): pip install -e '.[train]'")

from agents.rl.model import ActorCritic, TorchPolicy  # noqa: E402
from agents.rl.policy import NumpyPolicy, RLAgent  # noqa: E402


def _random_masks(rng, n, A):
    m = rng.random((n, A)) < 0.2
    m[np.arange(n), rng.integers(A, size=n)] = True  # at least one legal action per row
    return m


def test_masked_actions_have_zero_probability_and_are_never_sampled():
    rng = np.random.default_rng(0)
    model = ActorCritic(30, 12, (32, 32))
    with torch.no_grad():  # large logits, so an unmasked softmax would favour illegal actions
        model.actor[-1].weight.mul_(500.0)
    obs = torch.from_numpy(rng.random((500, 30), dtype=np.float32))
    mask = torch.from_numpy(_random_masks(rng, 500, 12))
    with torch.no_grad():
        probs = torch.softmax(model.masked_logits(obs, mask), -1)
    assert float(probs[~mask].max()) == 0.0
    assert torch.allclose(probs.sum(-1), torch.ones(500))
    g = torch.Generator().manual_seed(1)
    for _ in range(5):
        a, logp = model.act(obs, mask, g)
        assert bool(mask[torch.arange(500), a].all())
        assert bool(torch.isfinite(logp).all())
    a, _ = model.act(obs, mask, greedy=True)
    assert bool(mask[torch.arange(500), a].all())


def test_entropy_counts_legal_actions_only():
    model = ActorCritic(4, 6, (8,))
    with torch.no_grad():
        model.actor[-1].weight.zero_()
        model.actor[-1].bias.zero_()
    obs = torch.zeros(2, 4)
    mask = torch.tensor([[True, True, False, False, False, False], [True] * 6])
    _, ent, _ = model.evaluate(obs, mask, obs, torch.tensor([0, 5]))
    assert ent.tolist() == pytest.approx([np.log(2), np.log(6)], abs=1e-6)


def test_numpy_policy_matches_torch_actor_and_masks():
    rng = np.random.default_rng(2)
    model = ActorCritic(40, 17, (64, 32))
    pol = NumpyPolicy(model.actor_layers())
    obs = rng.random((300, 40), dtype=np.float32)
    mask = _random_masks(rng, 300, 17)
    with torch.no_grad():
        ref = model.actor(torch.from_numpy(obs)).numpy()
    assert np.allclose(pol.logits(obs), ref, atol=1e-5)
    p = pol.probs(obs, mask)
    assert p[~mask].max() == 0.0
    assert np.allclose(p.sum(-1), 1.0)
    greedy = pol.act_batch(obs, mask)
    assert mask[np.arange(300), greedy].all()
    sampled = pol.act_batch(obs, mask, np.random.default_rng(3), greedy=False)
    assert mask[np.arange(300), sampled].all()
    tp = TorchPolicy(model.actor, torch.Generator().manual_seed(0))
    assert mask[np.arange(300), tp.act_batch(obs, mask)].all()


def test_sampling_follows_the_policy_distribution():
    pol = NumpyPolicy([(np.zeros((4, 3), np.float32), np.log(np.array([1, 2, 3, 4], np.float32)))])
    obs = np.zeros((20000, 3), np.float32)
    mask = np.ones((20000, 4), bool)
    mask[:, 1] = False
    a = pol.act_batch(obs, mask, np.random.default_rng(0), greedy=False)
    freq = np.bincount(a, minlength=4) / len(a)
    assert freq[1] == 0
    assert freq[[0, 2, 3]] == pytest.approx([1 / 8, 3 / 8, 4 / 8], abs=0.015)


def test_checkpoint_files_round_trip(tmp_path):
    model = ActorCritic(207, 77, (32, 16))
    pol = NumpyPolicy(model.actor_layers(), {"env": "dominoes_v0"})
    pol.save(tmp_path / "p.npz", {"env": "dominoes_v0", "hidden": [32, 16]})
    back = NumpyPolicy.from_files(tmp_path / "p.npz")
    assert back.config["env"] == "dominoes_v0" and back.config["layers"] == [[32, 207], [16, 32], [77, 16]]
    obs = np.random.default_rng(0).random((10, 207), dtype=np.float32)
    # stored as float16: same decisions up to rounding of near-ties, logits within float16 precision
    assert np.allclose(back.logits(obs), pol.logits(obs), atol=2e-2)
    agent = RLAgent("dominoes_v0", seed=0, policy=back)
    mask = np.zeros(77, np.int8)
    mask[[3, 40]] = 1
    assert agent.act(obs[0], mask) in (3, 40)


def test_agent_refuses_a_checkpoint_of_another_game():
    model = ActorCritic(207, 77, (8,))
    pol = NumpyPolicy(model.actor_layers(), {"env": "dominoes_v0"})
    with pytest.raises(ValueError, match="trained on"):
        RLAgent("queens_and_jacks_v0", policy=pol)
