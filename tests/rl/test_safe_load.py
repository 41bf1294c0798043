"""Loading a file never runs its code (issue 33.1): a training checkpoint (``last.pt``) loads with
``torch.load(weights_only=True)`` and a policy ``.npz`` with ``np.load(allow_pickle=False)``; a crafted file
whose unpickling would run code (here: create a marker file) is refused with one clear error naming it, and
the marker never appears. What the trainer saves is all tensors and plain data, and resumes exactly."""
import pickle

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the train extra (PyTorch): pip install -e '.[train]'")

import agents.rl  # noqa: E402
from agents.rl.policy import NumpyPolicy  # noqa: E402
from agents.rl.ppo import PPOConfig, PPOTrainer  # noqa: E402
from agents.rl.safe_load import UnsafeFileError, load_arrays, load_checkpoint, plain  # noqa: E402

REFUSED_PT = (r"checkpoint .*last\.pt holds objects other than tensors and plain data.*; "
              r"refusing to load it \(it could run code\)")
REFUSED_NPZ = (r"policy file .*policy\.npz holds objects other than arrays of numbers; "
               r"refusing to load it \(it could run code\)")


class Payload:
    """Unpickling it calls ``open(marker, "w")``: the marker file appears if a loader runs the file's code."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_the_payload_does_run_code_when_unpickled(tmp_path):
    """The control: the crafted object really creates its marker when a loader unpickles it."""
    marker = tmp_path / "ran"
    f = pickle.loads(pickle.dumps(Payload(marker)))
    f.close()
    assert marker.exists()
    np.savez(tmp_path / "obj.npz", W0=np.array([Payload(tmp_path / "ran_npz")], dtype=object))
    with np.load(tmp_path / "obj.npz", allow_pickle=True) as z:
        z["W0"][0].close()
    assert (tmp_path / "ran_npz").exists()


def _tiny(seed=0, **kw):
    cfg = dict(env="dominoes_v0", num_envs=4, rollout_ticks=16, hidden=(16,), seed=seed, snapshot_every=1,
               eval_every=1, eval_seeds=1)
    cfg.update(kw)
    return PPOTrainer(PPOConfig(**cfg))


def test_a_checkpoint_holding_code_is_refused_and_its_code_never_runs(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "last.pt"
    torch.save({"model": Payload(marker), "iteration": 1}, path)
    with pytest.raises(UnsafeFileError, match=REFUSED_PT):
        _tiny().load(path)
    assert not marker.exists()
    # a plain pickle saved as .pt (no torch zip archive) is refused the same way
    path.write_bytes(pickle.dumps({"model": Payload(marker)}, protocol=2))
    with pytest.raises(UnsafeFileError, match=REFUSED_PT):
        load_checkpoint(path)
    assert not marker.exists()


def test_a_policy_npz_holding_an_object_array_is_refused_and_its_code_never_runs(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "policy.npz"
    np.savez(path, W0=np.array([Payload(marker)], dtype=object), b0=np.zeros(2, np.float16))
    with pytest.raises(UnsafeFileError, match=REFUSED_NPZ):
        NumpyPolicy.from_files(path)
    with pytest.raises(UnsafeFileError, match=REFUSED_NPZ):
        agents.rl.load("dominoes_v0", path=path)
    path.write_bytes(pickle.dumps({"W0": Payload(marker)}))   # a pickle in place of the archive
    with pytest.raises(UnsafeFileError, match=REFUSED_NPZ):
        load_arrays(path)
    assert not marker.exists()


def test_the_training_command_refuses_an_unsafe_checkpoint_in_one_line(tmp_path, capsys):
    """``kozel-train --resume`` on a crafted ``last.pt``: status 1 and one line naming the file, no traceback."""
    from agents.rl import train

    marker = tmp_path / "ran"
    (tmp_path / "config.json").write_text('{"env": "dominoes_v0", "num_envs": 2, "hidden": [8]}')
    torch.save({"model": Payload(marker)}, tmp_path / "last.pt")
    assert train.main(["--env", "dominoes_v0", "--resume", "--out", str(tmp_path), "--no-progress"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("kozel-train: error: checkpoint ") and "Traceback" not in err[0]
    assert f"{tmp_path / 'last.pt'} holds objects other than tensors and plain data" in err[0]
    assert not marker.exists()


def test_what_the_trainer_saves_loads_with_weights_only(tmp_path):
    tr = _tiny()
    tr.train_iteration()
    tr.train_iteration()
    ck = torch.load(tr.save(tmp_path / "last.pt"), weights_only=True)
    assert ck["iteration"] == 2 and ck["np_rng"] == tr.rng.bit_generator.state and len(ck["pool"]) == 2
    assert "eval" in ck["history"][-1] and ck["opt"]["state"]
    assert NumpyPolicy.from_files(tmp_path / "policy.npz").obs_dim == tr.info.obs_dim


def test_plain_turns_numpy_numbers_into_python_ones_and_refuses_objects():
    assert plain({"a": np.float64(0.5), "b": [np.int64(3), (np.float32(1.0),)]}) == {"a": 0.5, "b": [3, (1.0,)]}
    assert type(plain(np.float32(1.0))) is float
    with pytest.raises(TypeError, match=r"history\[0\]\['x'\]: a .*Payload is not plain data"):
        plain([{"x": Payload("nowhere")}], "history")


def test_a_resumed_trainer_continues_exactly_as_the_one_that_saved(tmp_path):
    """Everything the run depends on is in ``last.pt``: a fresh trainer loading it and the trainer that wrote it
    (loading it too, so both start fresh matches) train the same next iterations, bit for bit."""
    setup = dict(env="donkey_v0", rollout_ticks=32, bots={"random": 1.0}, selfplay=0.5, eval_seeds=2)
    a = _tiny(**setup)
    for _ in range(3):
        a.train_iteration()
    assert a.matches_done > 0   # new matches drew their seat owners from the numpy generator
    path = a.save(tmp_path / "last.pt")
    b = _tiny(**setup)
    b.load(path)
    a.load(path)
    for _ in range(3):
        sa, sb = a.train_iteration(), b.train_iteration()
        for k in ("pg", "vf", "ent", "kl", "steps", "matches", "samples"):
            assert sa[k] == sb[k], k
        assert sa["eval"] == sb["eval"]
    for pa, pb in zip(a.model.parameters(), b.model.parameters()):
        assert torch.equal(pa, pb)
    assert (a.iteration, a.steps, a.best_key, len(a.pool)) == (b.iteration, b.steps, b.best_key, len(b.pool))
    assert a.rng.bit_generator.state == b.rng.bit_generator.state
    assert torch.equal(a.tgen.get_state(), b.tgen.get_state())
