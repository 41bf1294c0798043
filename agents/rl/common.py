"""What training needs to know of a game (no torch here): :func:`game_info`.

The engine and its facts come from the engine contract (:mod:`kozel_env.core.game`): the game itself
(:func:`agents.base.game_for`), its sizes (``obs_spec``, ``oracle_spec``, ``num_actions``) and its sides
(``game.sides``: which seats share a score, the pairs in the team games, one seat per side in
every-man-for-himself games). The one figure the contract cannot state is the scale of the deal-points
shaping reward: the spread of a seat's zero-sum points per deal and the number of deals of a match under
random play, measured once per game and options on ``probe_matches`` seeded random matches.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from kozel_env.core.game import Game

from ..base import game_for


@dataclass(frozen=True)
class GameInfo:
    """A game's engine and what the trainer reads of it (see the module doc)."""

    env_name: str
    env_options: dict
    game: Game = field(repr=False)
    points_std: float       # std of the zero-sum per-deal points of a seat under random play
    deals_per_match: float  # mean number of deals of a random match

    @property
    def num_players(self) -> int:
        return self.game.num_players

    @property
    def obs_dim(self) -> int:
        return self.game.obs_spec.size

    @property
    def oracle_dim(self) -> int:
        return self.game.oracle_spec.size

    @property
    def num_actions(self) -> int:
        return self.game.num_actions

    @property
    def side_seats(self) -> tuple:
        """The seats of each side, e.g. ``((0, 2), (1, 3))`` (from the contract's ``game.sides``)."""
        g = self.game
        return tuple(tuple(q for q in range(g.num_players) if g.sides[q] == s) for s in range(g.num_sides))


def random_play_scale(game: Game, matches: int) -> tuple:
    """``(points_std, deals_per_match)`` of ``matches`` seeded random matches: the std of a seat's zero-sum
    points per finished deal (``state.results``, the contract's signal; 1.0 where there is no spread) and
    the mean number of deals per match."""
    rnd = random.Random(12345)
    pts, deals = [], 0
    for m in range(matches):
        st = game.new_state(1_000_003 * (m + 1))
        while not st.terminal:
            st.apply_action(rnd.choice(st.legal_actions()))
        for res in st.results:
            sp = np.asarray(res["seat_points"], float)
            pts.append(sp - sp.mean())
        deals += max(len(st.results), 1)
    std = float(np.concatenate(pts).std()) if pts else 1.0
    return (std if std > 0 else 1.0), deals / matches


def _options_key(env_options: dict | None) -> tuple:
    return tuple(sorted((env_options or {}).items()))


@cache
def _game_info(env_name: str, options_key: tuple, probe_matches: int) -> GameInfo:
    env_options = dict(options_key)
    game = game_for(env_name, env_options)
    std, deals = random_play_scale(game, probe_matches)
    return GameInfo(env_name, env_options, game, std, deals)


def game_info(env_name: str, env_options: dict | None = None, probe_matches: int = 60) -> GameInfo:
    """The (cached) :class:`GameInfo` of ``env_name`` with ``env_options``."""
    return _game_info(env_name, _options_key(env_options), probe_matches)
