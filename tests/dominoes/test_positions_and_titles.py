"""A position you ask for is the position you get (RULES D1.6), determinization never imagines a deal the
rules throw in, and the titles of RULES D1.9 as Sea Goat inherits them (D3)."""
from __future__ import annotations

import numpy as np
import pytest

from kozel_env.core.errors import InvalidOptionError
from kozel_env.core.rng import Rng
from kozel_env.dominoes.engine import needs_redeal
from kozel_env.registry import load

FIVE_DOUBLES = ["00 11 22 33 44 01 02", "03 04 05 06 12 13 14", "15 16 23 24 25 26 34", "35 36 45 46 55 56 66"]
SIX_OF_A_NUMBER = ["01 02 03 04 05 06 11", "00 12 13 14 15 16 22", "23 24 25 26 33 34 35", "36 44 45 46 55 56 66"]


@pytest.mark.parametrize("name", ["dominoes_v0", "sea_goat_v0", "donkey_v0"])
@pytest.mark.parametrize("hands", [FIVE_DOUBLES, SIX_OF_A_NUMBER])
def test_d1_6_given_hands_the_redeal_rule_throws_in_raise_instead_of_a_silent_random_deal(name, hands):
    assert any(needs_redeal(_mask(h)) for h in hands)
    env = load(name).env()
    with pytest.raises(InvalidOptionError, match="D1.6"):
        env.reset(seed=0, options={"hands": hands})
    env = load(name).env(redeal=False)  # with the rule off the hands are played as given
    env.reset(seed=0, options={"hands": hands})
    st = env.unwrapped.game_state
    assert [_str(h) for h in st.hands] == [" ".join(sorted(h.split())) for h in hands]


def _mask(text):
    from kozel_env.dominoes.tiles import parse_tiles

    return parse_tiles(text)


def _str(mask):
    from kozel_env.dominoes.tiles import tiles_str

    return tiles_str(mask)


@pytest.mark.parametrize("name", ["dominoes_v0", "sea_goat_v0", "donkey_v0", "dominoes_ffa_v0"])
def test_d1_6_determinization_never_deals_a_hand_the_rules_would_have_thrown_in(name):
    """A sampled world is one the game could have dealt: every seat's dealt hand (its hand plus what it
    played this deal; these games have no stock, or the seat drew nothing) passes the redeal rule."""
    env = load(name).env()
    game = env.unwrapped.game
    rng = Rng(3)
    samples = 0
    for seed in range(6):
        env.reset(seed=seed)
        pick = np.random.default_rng(seed)
        for _ in range(40):
            st = env.unwrapped.game_state
            if st.terminal:
                break
            for p in range(game.num_players):
                for _ in range(8):
                    w = game.sample_consistent(st, p, rng)
                    for q in range(game.num_players):
                        if q != p and not w.drawn[q]:
                            assert not needs_redeal(w.hands[q] | w.played_by[q]), (seed, p, q)
                    samples += 1
            env.step(int(pick.choice(env.unwrapped.legal_actions())))
    assert samples > 1000


def test_d1_9_d3_sea_goat_winners_who_wrote_and_were_wiped_are_not_naked():
    """RULES D1.9 (inherited by D3): naked goats only when the winners wrote nothing in the whole match. Pair
    0+2 had written 40; pair 1+3 writes 130 (wiping it, D3.2) and are the sea goats -- not naked."""
    env = load("sea_goat_v0").env()
    env.reset(seed=1039, options={"scores": [40, 0], "opened": [True, False], "eggs": 30})
    for m in "11 01L 02L 12L 16R 36R 35R 14L 05R 45L 55L 04R 56L 46L 44L 34R 24L 22+33 03R 00R 25L 06R 66R".split():
        env.step(env.unwrapped.move_to_action(m))
    res = env.unwrapped.game_state.match_result
    assert res["goats"] == [1] and res["scores"] == [0, 130]
    assert res["titles"] == ["sea_goats"]


def test_d1_9_d3_sea_goat_winners_who_never_wrote_are_naked():
    env = load("sea_goat_v0").env()
    env.reset(seed=1039, options={"scores": [0, 0], "eggs": 30})
    for m in "11 01L 02L 12L 16R 36R 35R 14L 05R 45L 55L 04R 56L 46L 44L 34R 24L 22+33 03R 00R 25L 06R 66R".split():
        env.step(env.unwrapped.move_to_action(m))
    res = env.unwrapped.game_state.match_result
    assert res["goats"] == [1] and res["titles"] == ["naked_goats", "sea_goats"]


def test_d5_boneyard_names_no_naked_or_bald_goats():
    """Seed 001 knows only "the goat" (RULES D5.6); the D1.9 titles are not given in boneyard_v0."""
    rules = load("boneyard_v0").env().unwrapped.game.rules
    assert rules.titles == () and rules.goat_title == "goats"
