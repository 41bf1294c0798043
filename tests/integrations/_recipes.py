"""Shared checks for the integration recipes (examples/integrations/*.py)."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

RECIPES = Path(__file__).resolve().parents[2] / "examples" / "integrations"


def load_recipe(name: str):
    """The recipe script ``examples/integrations/<name>.py`` as a module (it is not a package)."""
    spec = importlib.util.spec_from_file_location(f"recipe_{name}", RECIPES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check_result(out: dict, env: str, steps: int, episode: str, sets: int, num_players: int = 4) -> None:
    """The recipe trained (steps counted, speed measured, a finite loss) and its policy played the arena:
    ``evaluate`` uses the AEC env's default ``illegal_action="raise"``, so an illegal move would have raised;
    every duplicate set is played in each seating."""
    assert out["env"] == env and out["episode"] == episode
    assert out["steps"] >= steps and out["seconds"] > 0 and out["steps_per_s"] == out["steps"] / out["seconds"]
    assert math.isfinite(out["loss"]) and out["weights_moved"] > 0
    seatings = 2 if num_players in (2, 4) else 2 * num_players
    assert out["games"] == sets * seatings
    for key in ("score", "margin"):
        c = out[key]
        assert c["n"] == sets and math.isfinite(c["mean"]) and c["lo"] <= c["mean"] <= c["hi"]
    assert 0.0 <= out["score"]["mean"] <= 1.0
