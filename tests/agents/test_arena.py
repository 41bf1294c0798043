"""The arena (issue 7, item 3): duplicate deals with seats rotated, parallel processes, confidence
intervals, Elo, JSON and markdown; plus the example script."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.arena import elo_table, evaluate, main, markdown, mean_ci, play_episode, seatings
from agents.registry import make_agent
from kozel_env.registry import load

ROOT = Path(__file__).resolve().parents[2]


def test_seatings_rotate_both_agents_through_every_seat():
    assert seatings(2) == [(0, 1), (1, 0)]
    assert seatings(4) == [(0, 1, 0, 1), (1, 0, 1, 0)]
    three = seatings(3)
    assert len(three) == 6
    for seat in range(3):  # each agent sits in each seat equally often
        assert sum(s[seat] for s in three) == 3


def test_mean_ci_and_elo():
    c = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert c["mean"] == 2.5 and c["lo"] < 2.5 < c["hi"] and c["n"] == 4
    elo = elo_table(["a", "b", "c"], [("a", "b", 0.75, 100), ("b", "c", 0.75, 100), ("a", "c", 0.9, 100)])
    assert elo["a"] == pytest.approx(1000.0)
    assert elo["a"] > elo["b"] > elo["c"]
    sweep = elo_table(["x", "y"], [("x", "y", 1.0, 50)])
    assert np.isfinite(sweep["y"]) and sweep["y"] < 1000


def test_duplicate_deals_give_both_agents_the_same_cards():
    """The same deal seed with the seats swapped deals the same hands to the same seats."""
    env = load("queens_and_jacks_v0").env(episode="deal")
    hands = []
    for _ in range(2):
        env.reset(seed=1234)
        hands.append(list(env.unwrapped.game_state.hands))
    assert hands[0] == hands[1]
    bots = [make_agent("normal", "queens_and_jacks_v0", seed=s) for s in range(4)]
    rets, deals, moves = play_episode(env, bots, 1234)
    assert len(deals) == 1 and sum(moves) == 36


def test_evaluate_reports_confidence_intervals_and_does_not_depend_on_processes():
    kw = dict(deals=6, seed=3, progress=False)
    one = evaluate("dominoes_v0", ["random", "normal"], processes=1, **kw)
    two = evaluate("dominoes_v0", ["random", "normal"], processes=2, **kw)
    for key in ("score_a", "margin", "points"):
        assert one["pairs"][0][key] == two["pairs"][0][key]
    p = one["pairs"][0]
    assert p["a"] == "random" and p["b"] == "normal" and p["sets"] == 6 and p["games"] == 12
    assert p["margin"]["lo"] <= p["margin"]["mean"] <= p["margin"]["hi"]
    assert set(one["elo"]) == {"random", "normal"}
    assert one["ms_per_decision"]["normal"] > 0
    json.dumps(one)  # JSON-ready


def test_a_trained_policy_plugs_in_as_a_factory():
    class Last:
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[-1])

    res = evaluate("six_of_spades_v0", {"mine": lambda env_name, seed, opts: Last(), "random": "random"},
                   deals=3, processes=1, progress=False, env_options={"num_players": 3})
    assert res["pairs"][0]["games"] == 3 * 6  # six seatings of two agents on three seats


def test_match_episodes_count_every_deal():
    res = evaluate("queens_and_jacks_v0", ["normal", "random"], deals=2, episode="match", processes=1,
                   progress=False, env_options={"target": 6})
    p = res["pairs"][0]
    assert p["deals"] > p["games"]  # several deals per match


def test_cli_writes_json_and_markdown(tmp_path, capsys):
    js, md = tmp_path / "r.json", tmp_path / "r.md"
    main(["--env", "beat_or_discard_v0", "--agents", "random", "easy", "--deals", "2", "--processes", "1",
          "--quiet", "--json", str(js), "--md", str(md), "--opt", "hand_size=4"])
    data = json.loads(js.read_text())
    assert data["env_options"] == {"hand_size": 4} and len(data["pairs"]) == 1
    text = md.read_text()
    assert "| random | easy |" in text and "Elo" in text
    assert text == markdown(data)
    assert "points per deal" in capsys.readouterr().out


def test_unknown_env_or_agent_fails_early():
    with pytest.raises(KeyError):
        evaluate("chess_v0", ["random", "normal"], deals=1)
    with pytest.raises(KeyError):
        evaluate("dominoes_v0", ["random", "grandmaster"], deals=1)


def test_example_arena_script_runs(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "arena.py"), "--deals", "4", "--processes", "1",
                          "--json", str(tmp_path / "a.json")], capture_output=True, text=True, check=True,
                         timeout=300, cwd=ROOT).stdout
    assert "| random | highest |" in out and "| normal |" in out
    assert set(json.loads((tmp_path / "a.json").read_text())["elo"]) == {"random", "highest", "normal"}


def test_the_expert_joins_the_arena_by_name():
    """Issue 15: ``expert`` (and ``expert_fast``) play in the arena by name, on both seatings of each set."""
    res = evaluate("queens_and_jacks_v0", ["expert:n=2", "expert_fast:n=1"], deals=2, seed=4, processes=1,
                   progress=False)
    p = res["pairs"][0]
    assert p["sets"] == 2 and p["games"] == 4 and set(res["ms_per_decision"]) == {"expert:n=2", "expert_fast:n=1"}
