"""``python -m agents.rl.labels`` (issue 35, item 2): positions the policy reaches, searched by a teacher, in chunk
files made by worker processes; the same labels whatever the workers or interruptions; and the warm start that
fits them (``bc_data``, ``bc_target``)."""
import json

import numpy as np
import pytest

from agents.base import decide, game_for
from agents.pimc import PIMCAgent
from agents.rl import labels
from agents.rl.safe_load import load_arrays

ENV = "queens_and_jacks_v0"


def _arrays(folder):
    return [load_arrays(p, "labels chunk") for p in labels.read_chunks(folder)]


def test_soft_target_gives_a_clearly_best_move_all_the_weight():
    t = labels.soft_target({3: [10.0, 11, 12, 10], 5: [0.0, 1, 0, 1]}, 3, 8)
    assert t[3] == 1.0 and t.sum() == pytest.approx(1.0) and t.dtype == np.float32


def test_soft_target_shares_the_weight_of_moves_the_search_cannot_tell_apart():
    t = labels.soft_target({1: [5.0, 0, 5, 0, 5, 0], 2: [0.0, 5, 0, 5, 0, 5]}, 1, 4)
    assert 0.35 < t[1] < 0.65 and t[1] + t[2] == pytest.approx(1.0) and t[0] == t[3] == 0


def test_soft_target_compares_a_move_dropped_early_on_the_deals_it_has():
    values = {0: [4.0, 4, 4, 4, 4, 4, 4, 4], 1: [-6.0, -5], 2: [4.5, 3.5, 4, 4, 4.5, 3.5, 4, 4]}
    t = labels.soft_target(values, 0, 3)
    assert t[1] == 0 and t[0] > 0 and t[2] > 0 and t.sum() == pytest.approx(1.0)


def test_soft_target_without_a_search_is_the_teachers_move():
    assert list(labels.soft_target({}, 2, 4)) == [0, 0, 1, 0]


def test_pimc_keeps_the_values_of_the_moves_its_search_compared():
    from kozel_env.registry import load

    bot = PIMCAgent(ENV, seed=3, n=4)
    env = load(ENV).env()
    env.reset(seed=5)
    searched = 0
    for _name in env.agent_iter():
        o, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        move = decide(bot, env, o["observation"], o["action_mask"])
        legal = set(np.flatnonzero(o["action_mask"]).tolist())
        if len(legal) == 1:
            assert bot.move_values == {}
        else:
            searched += 1
            assert set(bot.move_values) <= legal and move in legal
            assert all(1 <= len(v) <= 4 for v in bot.move_values.values())
            assert max(len(v) for v in bot.move_values.values()) == 4
        env.step(move)
    assert searched > 10


def test_labels_are_positions_with_more_than_one_move_and_a_distribution_over_the_legal_ones(tmp_path):
    paths = labels.generate(ENV, tmp_path, positions=30, chunk=15, teacher="pimc:n=3")
    assert [p.name for p in paths] == ["chunk_00000.npz", "chunk_00001.npz"]
    game = game_for(ENV)
    for c in _arrays(tmp_path):
        assert c["obs"].shape == (15, game.obs_spec.size) and c["mask"].shape == (15, game.num_actions)
        assert (c["mask"].sum(axis=1) > 1).all()
        assert c["mask"][np.arange(15), c["move"]].all()
        assert np.allclose(c["target"].sum(axis=1), 1.0) and (c["target"][~c["mask"]] == 0).all()
    assert json.loads((tmp_path / "labels.json").read_text())["teacher"] == "pimc:n=3"


def test_labels_are_the_same_whatever_the_workers_and_an_interruption(tmp_path):
    labels.generate(ENV, tmp_path / "two", positions=30, chunk=10, teacher="pimc:n=2", workers=2)
    labels.generate(ENV, tmp_path / "one", positions=20, chunk=10, teacher="pimc:n=2", workers=1)
    (tmp_path / "one" / "chunk_00000.npz").unlink()     # interrupted: a chunk missing, one never made
    labels.generate(ENV, tmp_path / "one", positions=30, chunk=10, teacher="pimc:n=2", workers=1)
    for a, b in zip(_arrays(tmp_path / "two"), _arrays(tmp_path / "one"), strict=True):
        assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    assert len(_arrays(tmp_path / "one")) == 3
    assert not np.array_equal(_arrays(tmp_path / "one")[0]["obs"], _arrays(tmp_path / "one")[1]["obs"])


def test_a_labels_folder_made_with_other_settings_is_refused(tmp_path):
    labels.generate(ENV, tmp_path, positions=5, chunk=5, teacher="pimc:n=2")
    with pytest.raises(ValueError, match="pimc:n=3"):
        labels.generate(ENV, tmp_path, positions=5, chunk=5, teacher="pimc:n=3")


@pytest.mark.parametrize("what, value", [("positions", 0), ("workers", 0), ("chunk", 1.5)])
def test_a_bad_labels_count_is_refused_naming_it(tmp_path, what, value):
    args = {"positions": 5, "workers": 1, "chunk": 5, what: value}
    with pytest.raises(ValueError, match=f"{what}={value!r}"):
        labels.generate(ENV, tmp_path, teacher="pimc:n=2", **args)
    assert not (tmp_path / "labels.json").exists()


def test_the_warm_start_fits_the_labels_soft_targets(tmp_path):
    torch = pytest.importorskip("torch", reason="the train extra is not installed: pip install -e '.[train]'")
    from agents.rl.configs import config_for
    from agents.rl.imitation import _from_labels
    from agents.rl.model import ActorCritic

    labels.generate(ENV, tmp_path, positions=40, chunk=20, teacher="pimc:n=3")
    game = game_for(ENV)
    c = _arrays(tmp_path)
    obs = torch.from_numpy(np.concatenate([x["obs"] for x in c]).astype(np.float32))
    mask = torch.from_numpy(np.concatenate([x["mask"] for x in c]))
    target = torch.from_numpy(np.concatenate([x["target"] for x in c]))

    entropy = float(-(target * torch.log(target.clamp_min(1e-12))).sum(-1).mean())

    def loss(model):  # KL(target || policy): the cross-entropy less the targets' own entropy
        with torch.no_grad():
            logp = torch.log_softmax(model.actor(obs).masked_fill(~mask, -1e9), -1)
            return float(-(target * logp.clamp_min(-1e9)).sum(-1).mean()) - entropy

    def fitted(bc_target):
        torch.manual_seed(0)
        model = ActorCritic(game.obs_spec.size, game.num_actions, hidden=(32,))
        before = loss(model)
        cfg = config_for(ENV, bc_data=str(tmp_path), bc_target=bc_target, bc_steps=40, bc_epochs=30, bc_lr=3e-3)
        opt = torch.optim.Adam(model.actor.parameters(), lr=cfg.bc_lr)
        done, stats = _from_labels(model.actor, opt, cfg, torch.Generator().manual_seed(0), 0, None)
        assert done == 40 and stats["bc_decisions"] == 40
        return before, loss(model), model, opt, cfg

    before, soft, model, opt, cfg = fitted("soft")
    assert soft < 0.7 * before
    assert soft < fitted("move")[1]   # the teacher's moves alone fit the distributions less closely
    cfg.bc_steps = 41
    with pytest.raises(ValueError, match="bc_steps=41 but .* holds 40"):
        _from_labels(model.actor, opt, cfg, torch.Generator(), 0, None)
    cfg.bc_steps, cfg.bc_target = 40, "argmax"
    with pytest.raises(ValueError, match="bc_target='argmax'"):
        _from_labels(model.actor, opt, cfg, torch.Generator(), 0, None)
