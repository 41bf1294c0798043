"""``examples/fresh_deals.py``: the table's figures measured again on ``agents.seeds.FRESH`` (issue 35, item 5:
targets "held by fresh deals too"), stored per figure so a run resumes, and printed in BASELINES.md."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from agents.ladder import SMOKE
from agents.seeds import FRESH

ROOT = Path(__file__).resolve().parents[2]
TINY = {"normal": 2, "hard": 1, "crazy": 1}


@pytest.fixture(scope="module")
def fd():
    spec = importlib.util.spec_from_file_location("fresh_deals", ROOT / "examples" / "fresh_deals.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_each_figure_is_stored_with_the_fresh_seed_and_the_checkpoint_it_measured(fd, tmp_path):
    data = fd.check("dominoes_v0", out_dir=tmp_path, sets=TINY, processes=1, specs=SMOKE, log=lambda s: None)
    stored = json.loads((tmp_path / "dominoes_v0.json").read_text())
    assert json.dumps(stored) == json.dumps(data)  # (NaN: an interval of one set)
    assert stored["seed"] == FRESH
    assert stored["checkpoint_sha256"] == fd.digest(ROOT / "agents" / "checkpoints" / "dominoes_v0.npz")
    assert list(stored["figures"]) == [f"{w} vs {o}" for w, o in fd.FIGURES]
    for (who, opp), f in zip(fd.FIGURES, stored["figures"].values()):
        assert f["sets"] == TINY[opp] and f["seed"] == FRESH and f["score"]["n"] == TINY[opp], (who, opp, f)


def test_a_run_resumes_and_a_figure_of_another_checkpoint_is_measured_again(fd, tmp_path, monkeypatch):
    fd.check("queens_and_jacks_v0", out_dir=tmp_path, sets=TINY, processes=1, specs=SMOKE, log=lambda s: None)
    calls = []

    def counting(env, who, opp, *a, **k):
        calls.append((who, opp))
        return {"score": {"mean": 0.5, "lo": 0.5, "hi": 0.5, "n": 1}, "margin": {"mean": 0, "lo": 0, "hi": 0, "n": 1},
                "sets": TINY[opp], "seed": FRESH, "seconds": 0.0}

    monkeypatch.setattr(fd, "measure", counting)
    fd.check("queens_and_jacks_v0", out_dir=tmp_path, sets=TINY, log=lambda s: None)
    assert calls == [], "every figure was stored: nothing to measure again"
    path = tmp_path / "queens_and_jacks_v0.json"
    data = json.loads(path.read_text())
    del data["figures"]["expert vs crazy"]
    path.write_text(json.dumps(data))
    fd.check("queens_and_jacks_v0", out_dir=tmp_path, sets=TINY, log=lambda s: None)
    assert calls == [("expert", "crazy")], "an interrupted run measures only what it lacks"
    data = json.loads(path.read_text())
    data["checkpoint_sha256"] = "0" * 64
    path.write_text(json.dumps(data))
    calls.clear()
    fd.check("queens_and_jacks_v0", out_dir=tmp_path, sets=TINY, log=lambda s: None)
    assert calls == list(fd.FIGURES), "figures of a checkpoint that no longer ships are all measured again"


def test_the_rendered_row_says_when_a_figure_belongs_to_an_older_checkpoint(fd, tmp_path):
    fd.check("dominoes_v0", out_dir=tmp_path, sets=TINY, processes=1, specs=SMOKE, log=lambda s: None)
    assert "an older checkpoint" not in fd.render(out_dir=tmp_path)
    data = json.loads((tmp_path / "dominoes_v0.json").read_text())
    data["checkpoint_sha256"] = "0" * 64
    (tmp_path / "dominoes_v0.json").write_text(json.dumps(data))
    md = fd.render(out_dir=tmp_path)
    assert "an older checkpoint" in md and "(1 sets)" in md and "(2 sets)" in md


def test_the_baselines_fresh_table_is_rendered_from_the_committed_figures(fd):
    text = (ROOT / "agents" / "rl" / "BASELINES.md").read_text()
    block = text.split(fd.START + "\n", 1)[1].split(fd.END, 1)[0].strip()
    assert block == fd.render(), "run: python examples/fresh_deals.py --render"
    assert "an older checkpoint" not in block, "a shipped checkpoint changed: measure its fresh figures again"


def test_an_unknown_game_is_refused_by_name(fd):
    with pytest.raises(SystemExit, match="unknown game.*'nope_v0'.*dominoes_v0"):
        fd.main(["--env", "nope_v0", "--render"])


def test_the_expert_plays_the_checked_folders_policy_not_the_shipped_one(fd, tmp_path):
    """A candidate checked before it ships (``ck_dir``) is the expert's prior and playout policy too."""
    ck = tmp_path / "candidate"
    ck.mkdir()
    (ck / "beat_or_discard_v0.npz").write_bytes(b"not a policy")
    with pytest.raises(Exception, match="(?i)zip|pickle|load|policy|npz"):
        fd.measure("beat_or_discard_v0", "expert", "hard", 1, FRESH, ck, 1, SMOKE)
