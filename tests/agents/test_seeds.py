"""Which deal seeds are for what (issue 15, item 3: the published table on deals nothing else looked at)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from agents import seeds
from agents.rl.evaluate import EVAL_SEED
from kozel_env import __version__

ROOT = Path(__file__).resolve().parents[2]


def test_the_table_seed_comes_from_the_package_version_and_changes_with_it():
    assert seeds.TABLE == seeds.table_seed(__version__)
    assert seeds.table_seed("0.2.0") != seeds.table_seed("0.2.1") != seeds.table_seed("0.3.0")
    assert 0 <= seeds.TABLE < 2 ** 31


def test_the_four_uses_have_four_seeds():
    assert len({seeds.DEVELOPMENT, seeds.SELECTION, seeds.TABLE, seeds.FRESH}) == 4
    assert EVAL_SEED == seeds.SELECTION, "training's evaluations and the choice of what ships use the selection seed"


def _reproduce_baselines():
    spec = importlib.util.spec_from_file_location("reproduce_baselines", ROOT / "examples" / "reproduce_baselines.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_reproduce_baselines_plays_the_table_seed_with_the_published_set_counts(tmp_path):
    mod = _reproduce_baselines()
    assert mod.SETS["bots"] >= 1000 and mod.SETS["search"] >= 200
    out = mod.main(["--env", "dominoes_v0", "--no-estimate", "--no-progress", "--sets", "2", "--opponents",
                    "random", "--json", str(tmp_path / "r.json")])
    r = out["rows"]["dominoes_v0"]["results"]["random"]
    assert r["seed"] == seeds.TABLE and r["deals"] == 2 and r["score"]["n"] == 2


@pytest.mark.parametrize("checked", ["TABLE", "FRESH"])
def test_the_table_and_fresh_deals_are_none_of_the_others(checked):
    from agents.arena import _mix

    deals = {_mix(getattr(seeds, checked), k) for k in range(2000)}
    for other in {"DEVELOPMENT", "SELECTION", "TABLE", "FRESH"} - {checked}:
        assert not deals & {_mix(getattr(seeds, other), k) for k in range(2000)}, (checked, other)
