"""Facts about a game that training and evaluation need, found from the engine itself (no torch here).

* :func:`game_info` -- the engine (``game``), its sizes, the **sides** (which seats share a score: pairs in
  the team games, one seat per side in every-man-for-himself games; stated by the engine's rules,
  ``game.sides``) and the spread of the per-deal points under random play, used to scale the shaping reward.
* :func:`mean_ci` -- a mean with its 95% confidence interval.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from kozel_env.registry import load as load_env


@dataclass
class GameInfo:
    env_name: str
    env_options: dict
    game: object = field(repr=False)
    num_players: int
    obs_dim: int
    oracle_dim: int
    num_actions: int
    sides: tuple            # tuple of tuples of seats, e.g. ((0, 2), (1, 3))
    points_std: float       # std of the zero-sum per-deal points of a seat under random play
    deals_per_match: float  # mean number of deals of a random match
    decisions_per_match: float

    def side_of(self, seat: int) -> int:
        for k, s in enumerate(self.sides):
            if seat in s:
                return k
        raise ValueError(seat)


def make_game(env_name: str, env_options: dict | None = None):
    """The engine of ``env_name`` built with the env's rules options (through the env, as users would)."""
    env = load_env(env_name).env(**(env_options or {}))
    return env.unwrapped.game


def _options_key(env_options):
    return tuple(sorted((env_options or {}).items()))


@lru_cache(maxsize=None)
def _game_info(env_name: str, options_key: tuple, probe_matches: int) -> GameInfo:
    env_options = dict(options_key)
    game = make_game(env_name, env_options)
    n = game.num_players
    rnd = random.Random(12345)
    pts, deals, decisions = [], 0, 0
    for m in range(probe_matches):
        st = game.new_state(1_000_003 * (m + 1))
        while not st.terminal:
            st.apply_action(rnd.choice(st.legal_actions()))
            decisions += 1
        for res in st.results:  # every finished deal (the engine's signal)
            sp = np.asarray(res["seat_points"], float)
            pts.append(sp - sp.mean())
        deals += max(st.deals_played, 1)
    sides = tuple(tuple(q for q in range(n) if game.side_of(q) == s) for s in range(game.num_sides))
    std = float(np.concatenate(pts).std()) if pts else 1.0
    return GameInfo(env_name, env_options, game, n, game.obs_spec.size, game.oracle_spec.size, game.num_actions,
                    sides, std if std > 0 else 1.0, deals / probe_matches, decisions / probe_matches)


def game_info(env_name: str, env_options: dict | None = None, probe_matches: int = 60) -> GameInfo:
    return _game_info(env_name, _options_key(env_options), probe_matches)


def mean_ci(samples, z: float = 1.96) -> tuple:
    """(mean, half-width of the 95% interval) of independent samples (normal approximation)."""
    x = np.asarray(samples, float)
    if len(x) == 0:
        return float("nan"), float("nan")
    if len(x) == 1:
        return float(x[0]), float("inf")
    return float(x.mean()), float(z * x.std(ddof=1) / math.sqrt(len(x)))
