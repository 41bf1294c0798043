"""Determinization (issue 7, item 1): ``game.sample_consistent(state, player, rng)`` gives a full state with
exactly ``player``'s observation -- the contract the ``pimc`` bots stand on -- for every registered game.

* consistency: the player's observation is unchanged, its legal moves too when it is to move, and the new
  state is a valid one (``check_invariants``);
* distribution, on small positions (a handful of consistent deals, found by sampling): the true deal is
  among the samples and every consistent deal found comes up about equally often (uniform among
  consistent deals).
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from kozel_env.cards.deck import FULL_DECK, cards_str, parse_cards
from kozel_env.core.bits import bits, mask_of
from kozel_env.core.rng import Rng
from kozel_env.registry import load

from .helpers import ENV_CASES, positions


@pytest.mark.parametrize("name,opts", ENV_CASES)
def test_sample_consistent_keeps_the_players_observation_and_moves(name, opts):
    rng = Rng(7)
    checked = 0
    for seed in (1,):
        for env, st, cp in positions(name, opts, seed):
            game = env.unwrapped.game
            n = game.num_players
            for p in range(n):
                new = game.sample_consistent(st, p, rng)
                new.check_invariants()
                assert np.array_equal(game.observe(new, p), game.observe(st, p)), f"seat {p} sees a change"
                assert new.current_player == cp
                if p == cp:
                    assert new.legal_actions() == st.legal_actions()
                checked += 1
    assert checked > 20


def _full_key(game, st) -> bytes:
    return game.oracle(st).tobytes()


def _late_beat_or_discard() -> dict:
    """The last round of a game: player_0 holds two cards, the others one each, the stock is empty and
    the rest lies face up in the tricks: 3! consistent deals for player_0."""
    hands = ["7C 9C", "KC", "8H", "AS"]
    rest = bits(FULL_DECK & ~parse_cards(" ".join(hands)))
    piles = [cards_str(mask_of(rest[:15])), cards_str(mask_of(rest[15:]))]
    return {"hands": hands, "stock": "", "piles": piles, "first_game": False, "leader": 0, "trump": "D"}


def _late_six_of_spades() -> dict:
    """The last round of a deal: player_0 holds two cards, the others one each, the stock is empty (the
    trump card drawn) and the rest was taken face up: 3! consistent deals for player_0."""
    hands = ["7H 8H", "KC", "9D", "AS"]
    rest = bits(FULL_DECK & ~parse_cards(" ".join(hands)))
    taken = [cards_str(mask_of(rest[:15])), cards_str(mask_of(rest[15:]))]
    return {"hands": hands, "stock": "", "taken": taken, "trump_card": cards_str(1 << rest[0]), "leader": 0}


SMALL_SETUPS = {"beat_or_discard_v0": _late_beat_or_discard(), "six_of_spades_v0": _late_six_of_spades()}


def _small_position(name, opts, key):
    """A position and seat whose consistent deals (as told by ``key``) are few: 2..12 distinct in 40
    samples; or None."""
    rng = Rng(3)
    for seed in range(12):
        for env, st, cp in positions(name, opts, seed):
            game = env.unwrapped.game
            keys = {key(game, game.sample_consistent(st, cp, rng)) for _ in range(40)}
            if 2 <= len(keys) <= 12:
                return game, st.clone(), cp
    return None


@pytest.mark.parametrize("name,opts", [c for c in ENV_CASES if c.id.endswith("-0")])
def test_sample_consistent_is_uniform_on_small_positions(name, opts):
    """Small positions come from random play; where face-down cards keep the hidden part large to the end
    of a deal (beat or discard), from a late position built with the env's ``setup``."""
    key = _full_key
    if name in SMALL_SETUPS:
        env = load(name).env(episode="deal", **opts)
        env.reset(seed=1, options=SMALL_SETUPS[name])
        st = env.unwrapped.game_state
        found = env.unwrapped.game, st, st.current_player
    else:
        found = _small_position(name, opts, key)
    assert found is not None, "no small position found"
    game, st, p = found
    rng = Rng(11)
    draws = 1500
    counts = Counter(key(game, game.sample_consistent(st, p, rng)) for _ in range(draws))
    assert key(game, st) in counts, "the true deal is never sampled"
    k = len(counts)
    expect = draws / k
    sd = math.sqrt(expect * (1 - 1 / k))
    worst = max(abs(c - expect) for c in counts.values())
    # Bonferroni over k categories at about 1e-4 overall: 4.5 standard deviations
    assert worst <= 4.5 * sd, f"{k} deals, counts {sorted(counts.values())}, expected {expect:.0f} each"
