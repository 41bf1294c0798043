"""``python -m agents.rl.curve``: a run trained in pieces, each piece's policy scored on the selection deals;
resumable (a point already trained or scored is not done again)."""
import json

import pytest

pytest.importorskip("torch", reason="the train extra is not installed: pip install -e '.[train]'")

from agents.rl import curve  # noqa: E402
from agents.rl import evaluate as evaluate_module  # noqa: E402
from agents.seeds import SELECTION  # noqa: E402

TINY = ["--num-envs", "4", "--rollout", "8", "--hidden", "16", "--eval-every", "0", "--set", "value_warmup=1"]


def test_a_curve_trains_in_pieces_scores_each_on_the_selection_deals_and_resumes(tmp_path, capsys, monkeypatch):
    argv = ["--env", "queens_and_jacks_v0", "--points", "400", "800", "--out", str(tmp_path),
            "--against", "random", "--sets", "2", "--"] + TINY
    assert curve.main(argv) == 0
    data = json.loads((tmp_path / "curve.json").read_text())
    assert data["env"] == "queens_and_jacks_v0" and data["seed"] == SELECTION
    assert [p["steps"] for p in data["points"]] == [400, 800]
    assert all(p["scores"]["random"]["sets"] == 2 for p in data["points"])
    policies = {n: (tmp_path / f"policy_{n}.npz") for n in (400, 800)}
    assert all(p.exists() and p.with_suffix(".json").exists() for p in policies.values())
    assert json.loads(policies[800].with_suffix(".json").read_text())["steps"] > \
        json.loads(policies[400].with_suffix(".json").read_text())["steps"]   # the second piece trained on
    assert "| 800 | " in capsys.readouterr().out
    stamps = {n: p.stat().st_mtime_ns for n, p in policies.items()}
    # run again with one more point: only the new one is trained and scored
    trained, scored = [], []
    train_to, evaluate = curve._train_to, evaluate_module.evaluate
    monkeypatch.setattr(curve, "_train_to", lambda env, steps, *a: trained.append(steps) or train_to(env, steps, *a))
    monkeypatch.setattr(evaluate_module, "evaluate", lambda pol, bot, *a, **k: scored.append(bot) or
                        evaluate(pol, bot, *a, **k))
    assert curve.main(argv[:5] + ["1200"] + argv[5:]) == 0
    again = json.loads((tmp_path / "curve.json").read_text())
    assert [p["steps"] for p in again["points"]] == [400, 800, 1200]
    assert trained == [1200] and scored == ["random"]
    assert {n: p.stat().st_mtime_ns for n, p in policies.items()} == stamps
    assert again["points"][:2] == data["points"]


@pytest.mark.parametrize("points", [["800", "400"], ["0", "400"], ["400", "400"]])
def test_points_that_do_not_increase_are_refused_naming_them(tmp_path, capsys, points):
    assert curve.main(["--env", "queens_and_jacks_v0", "--points", *points, "--out", str(tmp_path)]) == 2
    assert f"points={[int(p) for p in points]!r}: positive decision counts, increasing" in capsys.readouterr().err
    assert not (tmp_path / "curve.json").exists()
