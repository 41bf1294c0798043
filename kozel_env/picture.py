"""Pictures of the table: ``picture(game, state, viewer=None)`` is the ``(480, 720, 3)`` uint8 image behind
``render_mode="rgb_array"`` (PettingZoo's convention), for videos and dashboards.

Drawn with numpy alone (:mod:`kozel_env.core.raster`); the same size for every state of every game, so the
frames of an episode make a video. ``viewer=None`` is the spectator's view (every hand face up);
``viewer=k`` shows only what seat ``k`` may see, the same information as the game's text
``render(state, viewer=k)``: its own hand face up, the others' as backs.

``python -m kozel_env.picture --write docs/images`` writes one PNG per environment of the registry (a
mid-game position from a fixed seed, spectator view) as ``docs/images/<env>.png``, for the README.
"""
from __future__ import annotations

import argparse
import os

import numpy as np

from .core.rng import Rng

MID_GAME = {
    "dominoes_v0": 17, "dominoes_ffa_v0": 10, "sea_goat_v0": 17, "donkey_v0": 10, "boneyard_v0": 24,
    "queens_and_jacks_v0": 23, "beat_or_discard_v0": 14, "six_of_spades_v0": 10,
}
"""Random moves played from the README pictures' seed before the picture is taken: mid-deal positions
chosen to show most of what each game draws (knocks, a stock, a move of doubles, a trick, a round)."""
README_SEED = 7


def picture(game, state, viewer: int | None = None) -> np.ndarray:
    """The picture of ``state`` of ``game``: an ``(H, W, 3)`` uint8 array, the same size for every state.

    ``viewer=None``: everything face up (spectator); ``viewer=k``: what seat ``k`` may see."""
    if viewer is not None and (isinstance(viewer, bool) or not isinstance(viewer, (int, np.integer))
                               or not 0 <= viewer < game.num_players):
        raise ValueError(f"viewer must be None or a seat 0..{game.num_players - 1}, got {viewer!r}")
    viewer = None if viewer is None else int(viewer)
    family = getattr(game, "family", None)  # the engine contract's fact, one drawing module per family
    if family == "dominoes":  # every line game and Donkey
        from .dominoes.picture import draw

        return draw(game, state, viewer)
    if family == "cards":
        from .cards.picture import draw

        return draw(game, state, viewer)
    raise TypeError(f"no picture for {type(game).__name__}")


def mid_game(name: str, seed: int = README_SEED, steps: int | None = None) -> tuple:
    """``(env, game, state)`` of environment ``name`` (default options) after ``steps`` random legal moves
    (default :data:`MID_GAME`) from ``reset(seed=seed)``; moves drawn from a :class:`Rng` of ``seed``, so
    the position is the same on every machine."""
    from .registry import load

    env = load(name).env()
    env.reset(seed=seed)
    rng = Rng(seed)
    for _ in range(MID_GAME.get(name, 10) if steps is None else steps):
        st = env.unwrapped.game_state
        if st.terminal:
            break
        legal = st.legal_actions()
        env.step(legal[rng.below(len(legal))])
    return env, env.unwrapped.game, env.unwrapped.game_state


def write_readme_images(folder: str, seed: int = README_SEED) -> dict:
    """One PNG per registered environment, ``<folder>/<env>.png``; returns ``{env: bytes written}``."""
    from .core.raster import write_png
    from .registry import ENVIRONMENTS

    os.makedirs(folder, exist_ok=True)
    sizes = {}
    for name in ENVIRONMENTS:
        _env, game, st = mid_game(name, seed)
        sizes[name] = write_png(os.path.join(folder, f"{name}.png"), picture(game, st))
    return sizes


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m kozel_env.picture", description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", metavar="DIR", required=True, help="folder for <env>.png (e.g. docs/images)")
    ap.add_argument("--seed", type=int, default=README_SEED)
    args = ap.parse_args(argv)
    for name, size in write_readme_images(args.write, args.seed).items():
        print(f"{os.path.join(args.write, name + '.png')}: {size} bytes")


if __name__ == "__main__":
    main()
