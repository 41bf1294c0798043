"""The shipped checkpoints: each loads in one line, plays legal moves through the PettingZoo API, and
reproduces its documented baseline (stored in its JSON by ``examples/reproduce_baselines.py --write``) on a
small set of the same duplicate deals, within the documented interval widened for the smaller sample."""
import json
import math

import numpy as np
import pytest

import agents.rl
from agents.rl.evaluate import evaluate
from agents.rl.policy import CHECKPOINT_DIR, available
from kozel_env.registry import ENVIRONMENTS, make

SHIPPED = available()
SMALL_SETS = {"random": 128, "normal": 20}  # a set against random costs 5-20 ms: more sets, steadier
# (on the 0.2.0 table deals the first 64 sets of donkey_v0 against random scored 73.4% against the 82.5% of all
# 1000, a 1-in-100 draw at the 99% tolerance; 128 sets score 79.3%)


def _meta(env_name):
    return json.loads((CHECKPOINT_DIR / f"{env_name}.json").read_text())


def test_shipped_checkpoints_are_small_and_for_registered_games():
    for env_name in SHIPPED:
        assert env_name in ENVIRONMENTS
        assert (CHECKPOINT_DIR / f"{env_name}.npz").stat().st_size < 1_000_000


@pytest.mark.parametrize("env_name", SHIPPED)
def test_checkpoint_loads_in_one_line_and_plays_legal_moves(env_name):
    meta = _meta(env_name)
    env = make(env_name, **(meta.get("env_options") or {}))
    bot = agents.rl.load(env_name)
    env.reset(seed=3)
    moves = 0
    for _name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = bot.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][a] == 1
        env.step(a)  # the env raises on an illegal move
        moves += 1
    assert moves > 0


def _consistent(doc: dict, small: dict, n_small: int) -> bool:
    """The small-sample mean agrees with the documented one: the difference is within 2.58 standard errors
    (99%) of a difference of two means, the per-set spread taken from the documented interval (a small
    floor keeps an all-wins documentation from demanding all wins on the small set too). The small set is
    the first sets of the documented evaluation, so the check is deterministic."""
    n_doc = doc["n"]
    sd = max((doc["hi"] - doc["lo"]) / 2 / 1.96 * math.sqrt(n_doc), 0.1)
    tol = 2.58 * sd * math.sqrt(1 / n_small + 1 / n_doc)
    return abs(small["mean"] - doc["mean"]) <= tol


def _documented(env_name, opponent):
    base = _meta(env_name).get("baselines", {})
    if opponent not in base:
        pytest.skip(f"{env_name}: no documented figure against {opponent}")
    return base[opponent]


@pytest.mark.parametrize("opponent", ["random", "normal"])
@pytest.mark.parametrize("env_name", SHIPPED)
def test_checkpoint_reproduces_its_documented_score(env_name, opponent):
    doc = _documented(env_name, opponent)
    k = SMALL_SETS[opponent]
    bot = agents.rl.load(env_name)
    r = evaluate(bot.policy, opponent, env_name, deals=k, seed=doc["seed"],
                 env_options=_meta(env_name).get("env_options") or {})
    assert _consistent(doc["score"], r["score"], k), (doc["score"], r["score"])


@pytest.mark.slow
@pytest.mark.parametrize("env_name", SHIPPED)
def test_checkpoint_reproduces_its_documented_score_against_hard(env_name):
    doc = _documented(env_name, "hard")
    k = 10
    bot = agents.rl.load(env_name)
    r = evaluate(bot.policy, "hard", env_name, deals=k, seed=doc["seed"])
    assert _consistent(doc["score"], r["score"], k), (doc["score"], r["score"])


def test_consistency_rule():
    doc = {"mean": 0.97, "lo": 0.95, "hi": 0.99, "n": 200}
    assert _consistent(doc, {"mean": 1.0}, 12)
    assert _consistent(doc, {"mean": 0.9}, 12)
    assert not _consistent(doc, {"mean": 0.6}, 12)
    wide = {"mean": 0.41, "lo": 0.3625, "hi": 0.4575, "n": 200}   # dominoes_v0 against normal
    assert _consistent(wide, {"mean": 0.25}, 20) and not _consistent(wide, {"mean": 0.1}, 20)


def test_every_registered_game_has_a_shipped_checkpoint():
    missing = sorted(set(ENVIRONMENTS) - set(SHIPPED))
    assert not missing, f"no trained checkpoint for {missing}: python examples/train.py --env <game> --ship"


def test_load_names_the_missing_checkpoint():
    with pytest.raises(FileNotFoundError, match="no checkpoint"):
        agents.rl.load("dominoes_v0", path=CHECKPOINT_DIR / "nothing_here.npz")
    assert np.all(np.isin(SHIPPED, sorted(ENVIRONMENTS)))


def test_the_baselines_page_names_exactly_the_games_where_the_network_meets_its_target():
    """Issue 15's target for the network alone: at least 60% of whole matches against ``normal`` on the
    table's deals (``agents.seeds.TABLE``), 1000 sets. The claim in ``agents/rl/BASELINES.md`` is the data's."""
    import re

    from agents.seeds import TABLE

    met, measured = set(), set()
    for env_name in SHIPPED:
        b = _meta(env_name).get("baselines", {}).get("normal")
        if b and b.get("seed") == TABLE and b["deals"] >= 1000:
            measured.add(env_name)
            if b["score"]["mean"] >= 0.60:
                met.add(env_name)
    assert measured == set(SHIPPED), f"not measured on the table deals: {sorted(set(SHIPPED) - measured)}"
    text = (CHECKPOINT_DIR.parent / "rl" / "BASELINES.md").read_text()
    line = re.search(r"\*\*The network alone against `normal`, >= 60%: met in (\d) of 8\*\*(.*?)\n\*", text, re.S)
    assert line, "BASELINES.md states the network's target against normal"
    claimed = set(re.findall(r"\b([a-z_]+_v0) \d", line.group(2).split("Not met")[0]))
    assert int(line.group(1)) == len(met) and claimed == met, (claimed, met)
