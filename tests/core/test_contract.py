"""The engine contract (kozel_env/core/game.py) states its facts once, and every registered engine keeps them
(issue 14, item 3): construction from a rules config, family and engine id, sides, the one action check,
determinization from an Rng."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

from kozel_env.core.errors import IllegalActionError
from kozel_env.core.rng import Rng, as_rng
from kozel_env.registry import load

from ..conftest import ENV_CASES


def _game(name, opts):
    return load(name).env(**opts).unwrapped.game


@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_a_game_is_built_from_its_rules_config_alone(name, opts):
    game = _game(name, opts)
    again = type(game)(game.rules)
    st, st2 = game.new_state(5), again.new_state(5)
    for seat in range(game.num_players):
        assert np.array_equal(game.observe(st, seat), again.observe(st2, seat))
    assert again.obs_spec.size == game.obs_spec.size and again.num_actions == game.num_actions


@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_family_engine_id_and_sides_are_contract_facts(name, opts):
    game = _game(name, opts)
    assert game.family in ("dominoes", "cards")
    assert game.engine_id in ("dominoes", "queens_and_jacks", "beat_or_discard", "six_of_spades")
    assert game.family == ("dominoes" if game.engine_id == "dominoes" else "cards")
    assert len(game.sides) == game.num_players
    assert sorted(set(game.sides)) == list(range(game.num_sides))
    assert all(game.side_of(s) == game.sides[s] for s in range(game.num_players))


@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_check_action_is_the_one_check_and_changes_nothing(name, opts):
    game = _game(name, opts)
    st = game.new_state(11)
    legal = st.legal_actions()
    masked = [a for a in range(game.num_actions) if a not in legal]
    before = pickle.dumps(st)
    assert game.check_action(st, np.int64(legal[0])) == legal[0]
    bad = [None, 1.0, "x", True, -1, game.num_actions] + masked[:1]
    for action in bad:
        with pytest.raises(IllegalActionError) as e:
            game.check_action(st, action)
        assert "legal moves:" in str(e.value)
        if type(action) is int and action in masked:
            assert e.value.action == action and game.action_to_string(st, action) in str(e.value)
        else:
            assert e.value.action is None
    assert pickle.dumps(st) == before


def test_as_rng_is_the_one_coercion():
    r = Rng(3)
    assert as_rng(r) is r
    assert as_rng(7).s == Rng(7).s and as_rng(np.uint64(7)).s == Rng(7).s
    assert isinstance(as_rng(np.random.default_rng(0)), Rng)
    with pytest.raises(TypeError):
        as_rng("seed")
    with pytest.raises(TypeError):
        as_rng(True)
