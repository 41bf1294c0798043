"""The learning curves printed in ``agents/rl/BASELINES.md`` are the data committed in ``experiments/`` (one
home for each fact: the table is checked against the curve's ``curve.json``)."""
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CURVES = [("ffa-curve", "curve_ffa"), ("qj-curve", "curve_qj"), ("sos-curve", "curve_sos"),
          ("donkey-curve", "curve_donkey"), ("boneyard-curve", "curve_boneyard"), ("dominoes-curve", "curve_dominoes"),
          ("bod-curve", "curve_bod"), ("sea-goat-curve", "curve_sea_goat")]


def _rows(marker: str) -> list:
    text = (ROOT / "agents" / "rl" / "BASELINES.md").read_text()
    block = text.split(f"<!-- {marker} -->\n", 1)[1].split(f"<!-- /{marker} -->", 1)[0]
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in block.strip().splitlines()[2:]]


def _cell(score: dict) -> str:
    return f"{100 * score['mean']:.1f}% [{100 * score['lo']:.1f}, {100 * score['hi']:.1f}]"


@pytest.mark.parametrize("marker, folder", CURVES)
def test_each_curve_table_of_the_baselines_page_is_its_experiments_curve(marker, folder):
    data = json.loads((ROOT / "experiments" / folder / "curve.json").read_text())
    rows = _rows(marker)
    assert len(rows) == len(data["points"]), (marker, len(rows), len(data["points"]))
    extra = data["extra"]
    bc = int(extra[extra.index("--bc-steps") + 1])  # the imitated decisions of the curve's command
    for row, point in zip(rows, data["points"]):
        assert row[0] == f"{bc / 1e6:g}M + {(point['steps'] - bc) / 1e6:g}M", (marker, row[0], point["steps"])
        assert row[1:] == [_cell(point["scores"][bot]["score"]) for bot in ("hard", "normal")], (marker, row)


def test_the_forced_moves_table_is_its_experiments_scores():
    """BASELINES "Forced moves out of the update": each run's score per seed, its training CPU time and its
    difference from every move, paired by deal over both seeds, from ``experiments/skip_forced/scores.json``."""
    from agents.stats import format_ci, mean_ci

    data = json.loads((ROOT / "experiments" / "skip_forced" / "scores.json").read_text())
    rows = _rows("skip-forced")
    assert len(rows) == 4
    for row, tag in zip(rows, ("noskip", "skip", "skip2", "skip2_27")):
        runs = [data[f"{tag}_seed{s}"] for s in (0, 1)]
        diff = mean_ci(100 * (a - b) for s, r in enumerate(runs)
                       for a, b in zip(r["per_set"], data[f"noskip_seed{s}"]["per_set"], strict=True))
        assert row[1:3] == [_cell(r["score"]) for r in runs], (tag, row)
        assert row[3] == " / ".join(f"{r['train_cpu_seconds']:.0f}" for r in runs), (tag, row)
        assert row[4] == ("-" if tag == "noskip" else format_ci(diff)), (tag, row)


def test_the_bfloat16_table_is_its_experiments_scores():
    """BASELINES "The update in bfloat16": each run's score per seed, its training CPU time and its difference from
    float32, paired by deal over both seeds, from ``experiments/bf16/scores.json``."""
    from agents.stats import format_ci, mean_ci

    data = json.loads((ROOT / "experiments" / "bf16" / "scores.json").read_text())
    rows = _rows("bf16")
    assert len(rows) == 3
    for row, tag in zip(rows, ("fp32", "bf16", "bf16all")):
        runs = [data[f"{tag}_seed{s}"] for s in (0, 1)]
        assert [r["precision"] for r in runs] == ["float32" if tag == "fp32" else "bfloat16"] * 2
        diff = mean_ci(100 * (a - b) for s, r in enumerate(runs)
                       for a, b in zip(r["per_set"], data[f"fp32_seed{s}"]["per_set"], strict=True))
        assert row[1:3] == [_cell(r["score"]) for r in runs], (tag, row)
        assert row[3] == " / ".join(f"{r['train_cpu_seconds']:.0f}" for r in runs), (tag, row)
        assert row[4] == ("-" if tag == "fp32" else format_ci(diff)), (tag, row)
