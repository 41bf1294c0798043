"""The table pictures (``kozel_env.picture``, ``render_mode="rgb_array"``) over every registered
environment: shape and dtype, one size through a game, a move changes the picture, a seat's view hides
exactly what it may not see, the PNG writer, the font."""
from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest

from kozel_env.core import raster as R
from kozel_env.core.rng import Rng
from kozel_env.picture import MID_GAME, mid_game, picture, write_readme_images
from kozel_env.registry import ENVIRONMENTS, load

CONFIGS = [pytest.param(name, opts, id=f"{name}-{i}")
           for name, (_mod, options) in ENVIRONMENTS.items() for i, opts in enumerate(options)]
SHAPE = (480, 720, 3)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Identical pictures (a bytes comparison: much faster than ``np.array_equal`` on 1 MB frames)."""
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def _random_deal(name, opts, seed, episode="deal"):
    """Yield ``(game, state)`` before every move of one random episode, and once at its end."""
    env = load(name).env(episode=episode, **opts)
    env.reset(seed=seed)
    rng = Rng(seed)
    game = env.unwrapped.game
    while True:
        st = env.unwrapped.game_state
        yield game, st
        if st.terminal:
            return
        legal = st.legal_actions()
        env.step(legal[rng.below(len(legal))])


@pytest.mark.parametrize("name, opts", CONFIGS)
def test_one_size_and_every_move_shows(name, opts):
    """Every picture of a random deal is (480, 720, 3) uint8, the spectator's and the seat to move's;
    each move changes the spectator picture."""
    before = None
    for i, (game, st) in enumerate(_random_deal(name, opts, seed=11)):
        img = picture(game, st)
        assert img.shape == SHAPE and img.dtype == np.uint8
        if st.current_player >= 0 and i % 3 == 0:
            mine = picture(game, st, st.current_player)
            assert mine.shape == SHAPE and mine.dtype == np.uint8
        if before is not None:
            assert not _same(before, img), f"{name}: a move left the picture unchanged"
        before = img


@pytest.mark.parametrize("name", list(ENVIRONMENTS))
def test_one_size_through_a_whole_match(name):
    """A whole random match (several deals, the end banner included) keeps one picture size."""
    shapes = set()
    steps = 0
    for i, (game, st) in enumerate(_random_deal(name, {}, seed=5, episode="match")):
        steps = i
        if i % 7 == 0 or st.terminal:
            shapes.add(picture(game, st, None if i % 2 else (i // 7) % game.num_players).shape)
    assert st.terminal and shapes == {SHAPE}, (steps, shapes)


@pytest.mark.parametrize("name, opts", CONFIGS)
def test_a_seat_sees_only_its_own(name, opts):
    """With the hidden cards or tiles re-dealt (``sample_consistent``), seat k's picture stays identical
    while the spectator's changes (in some position of the deal)."""
    spectator_differs = False
    for i, (game, st) in enumerate(_random_deal(name, opts, seed=3)):
        if i % 4 or st.terminal:
            continue
        for k in range(game.num_players):
            other = game.sample_consistent(st, k, Rng(1 + i))
            assert _same(picture(game, st, k), picture(game, other, k)), \
                f"{name}: seat {k}'s picture shows something it may not see (move {i})"
            if not spectator_differs and not _same(picture(game, st), picture(game, other)):
                spectator_differs = True
    assert spectator_differs, f"{name}: re-dealing the hidden pieces never changed the spectator picture"


def test_viewer_is_checked():
    _env, game, st = mid_game("dominoes_v0")
    for bad in (-1, 4, "0", True, 1.0):
        with pytest.raises(ValueError):
            picture(game, st, bad)


def _decode_png(data: bytes) -> np.ndarray:
    """A PNG decoder for what ``write_png`` writes (8-bit RGB, filters None/Sub/Up), checking every CRC."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, kind
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert kind == b"IEND"
    w, h, depth, color, _c, _f, interlace = header
    assert (depth, color, interlace) == (8, 2, 0)
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + 3 * w)
    out = np.zeros((h, 3 * w), np.uint8)
    for y in range(h):
        f, row = raw[y, 0], raw[y, 1:].astype(np.int64)
        if f == 1:  # Sub: each byte adds the byte 3 to its left, so a running sum per colour channel
            row = np.cumsum(row.reshape(w, 3), axis=0).reshape(-1) & 255
        elif f == 2:
            row = (row + (out[y - 1] if y else 0)) & 255
        else:
            assert f == 0, f"unexpected filter {f}"
        out[y] = row
    return out.reshape(h, w, 3)


def test_png_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 256, (13, 17, 3), dtype=np.uint8)
    assert np.array_equal(_decode_png(R.png_bytes(noise)), noise)
    _env, game, st = mid_game("queens_and_jacks_v0")
    img = picture(game, st)
    path = tmp_path / "t.png"
    n = R.write_png(path, img)
    data = path.read_bytes()
    assert n == len(data)
    assert np.array_equal(_decode_png(data), img)
    with pytest.raises(ValueError):
        R.png_bytes(img[:, :, 0])


def test_font_covers_what_the_pictures_write(monkeypatch):
    """Every character the pictures draw has a glyph (drawing an unknown one raises), the font has the
    letters, digits and punctuation it promises, and every glyph has ink."""
    promised = ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789" + ":._-+*/()[]|#?")
    assert set(promised) <= set(R.CHARSET)
    for ch in R.CHARSET.strip():
        assert R.GLYPHS[ch].any(), ch
    with pytest.raises(ValueError):
        R.text_mask("~")
    used = set()
    real = R.text_mask

    def spy(s, scale=1):
        used.update(s)
        return real(s, scale)

    monkeypatch.setattr(R, "text_mask", spy)
    for name in ENVIRONMENTS:
        for game, st in _random_deal(name, {}, seed=2):
            picture(game, st)
            if st.current_player >= 0:
                picture(game, st, st.current_player)
    assert used and used <= set(R.CHARSET), sorted(used - set(R.CHARSET))


def test_raster_shapes():
    img = R.canvas(20, 30, (0, 0, 0))
    R.fill_rect(img, -5, -5, 10, 10, (255, 0, 0))  # clipped at the corner
    assert (img[:5, :5] == (255, 0, 0)).all() and (img[5:, :] == 0).all() and (img[:, 5:] == 0).all()
    R.fill_rect(img, 25, 15, 10, 10, (0, 255, 0), radius=3)
    assert (img[15:, 25:, 1] == 255).sum() > 0 and img[15, 25, 1] == 0  # the rounded corner stays empty
    R.fill_circle(img, 15, 10, 3, (0, 0, 255))
    assert img[10, 15, 2] == 255 and img[10, 18, 2] == 255 and img[10, 19, 2] == 0 and img[7, 12, 2] == 0
    R.outline_rect(img, 8, 2, 10, 6, (9, 9, 9))
    assert tuple(img[2, 10]) == (9, 9, 9) and tuple(img[4, 10]) != (9, 9, 9)
    for suit in range(4):
        for size in (7, 10, 18, 32):
            m = R.suit_mask(suit, size)
            assert m.shape == (size, size) and 0.2 < m.mean() < 0.8
    assert R.text_width("ab", 2) == 2 * R.text_width("ab", 1)


def test_readme_images(tmp_path):
    """``python -m kozel_env.picture --write DIR``: one small PNG per environment, a mid-game spectator
    picture, the same on every run."""
    assert set(MID_GAME) == set(ENVIRONMENTS)
    sizes = write_readme_images(str(tmp_path))
    assert set(sizes) == set(ENVIRONMENTS)
    for name, size in sizes.items():
        data = (tmp_path / f"{name}.png").read_bytes()
        assert len(data) == size < 60_000
        _env, game, st = mid_game(name)
        assert not st.terminal
        assert np.array_equal(_decode_png(data), picture(game, st))
