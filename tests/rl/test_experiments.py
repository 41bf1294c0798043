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
