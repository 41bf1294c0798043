"""benchmarks/headroom.py: the omniscient bound of hard's search (BASELINES.md, "Tried on 2026-12-02")."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from agents.base import game_for

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "headroom.py"


def _module():
    spec = importlib.util.spec_from_file_location("headroom", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("playout", ["rule", "net", "side"])
@pytest.mark.parametrize("env_name", ["dominoes_v0", "boneyard_v0", "six_of_spades_v0"])
def test_the_omniscient_search_imagines_exactly_the_true_deal(env_name, playout):
    mod = _module()
    game = game_for(env_name, None)
    state = game.new_state(7)
    for _ in range(5):  # a few moves in, so something has been played
        state.apply_action(state.legal_actions()[0])
    agent = mod.PLAYOUTS[playout](env_name, seed=1)
    seat = state.current_player
    det = agent._sampler(state, seat, 1)()
    assert det is not state
    assert det.hands == state.hands and det.legal_actions() == state.legal_actions()
    assert game.oracle(det).tolist() == game.oracle(state).tolist()
    det.apply_action(det.legal_actions()[0])  # a copy: playing it on leaves the real deal alone
    assert len(state.legal_actions()) > 0 and game.oracle(det).tolist() != game.oracle(state).tolist()


def test_the_omniscient_search_is_no_agent_of_the_registry():
    from agents.registry import AGENTS, PRESETS

    assert "omniscient" not in AGENTS and "omniscient" not in PRESETS


def test_headroom_script_measures_against_hard():
    out = subprocess.run([sys.executable, str(SCRIPT), "--env", "dominoes_v0", "--sets", "2"], capture_output=True,
                         text=True, check=True, timeout=120).stdout
    assert "against hard, arena seed 0, 2 duplicate sets" in out
    row = [line for line in out.splitlines() if line.startswith("dominoes_v0")]
    assert len(row) == 1 and "%" in row[0]


def test_the_policy_playout_bound_plays_on_with_the_shipped_policy_over_every_legal_move():
    mod = _module()
    agent = mod.OmniscientPolicyPlayouts("six_of_spades_v0", seed=1)
    assert agent.playout == "net" and agent.net is not None and agent.n == 1 and agent.depth is None
    assert agent.top == 0 and agent.prior_kind == "normal" and agent.belief_net is None
    assert mod.OmniscientSearch("six_of_spades_v0", seed=1).n == 1
    assert mod.OmniscientSidePlayouts("six_of_spades_v0", seed=1).playout == "side"


def test_headroom_names_the_playouts_it_knows():
    with pytest.raises(ValueError, match="playout must be one of"):
        _module().measure("dominoes_v0", 1, playout="hard")


def test_headroom_script_measures_the_policy_playout_bound():
    out = subprocess.run([sys.executable, str(SCRIPT), "--env", "six_of_spades_v0", "--sets", "2", "--playout", "net"],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    assert "playouts by the shipped policy) against hard" in out
    assert len([line for line in out.splitlines() if line.startswith("six_of_spades_v0")]) == 1
