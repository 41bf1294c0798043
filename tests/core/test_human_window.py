"""``render_mode="human"``: the text table always; the picture in a window where a display exists, else a
one-line notice, once (issue 32 item 10)."""
from __future__ import annotations

import base64
import sys
import types

import numpy as np

from kozel_env import queens_and_jacks_v0
from kozel_env.core.raster import png_bytes
from kozel_env.picture import picture


def test_without_a_display_the_text_is_printed_with_a_one_line_notice_once(monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    env = queens_and_jacks_v0.env(render_mode="human")
    env.reset(seed=1)
    env.render()
    env.step(env.unwrapped.legal_actions()[0])
    out = capsys.readouterr()
    assert out.out.count("player_0") >= 2  # the table, at the render and after the step
    assert out.err.count("\n") == 1 and "no display" in out.err and "text table only" in out.err


class _FakeTk:
    """Just enough of tkinter to see what the window is given."""

    def __init__(self):
        self.shown, self.titles, self.destroyed = [], [], False
        fake = self

        class Tk:
            def title(self, t):
                fake.titles.append(t)

            def update(self):
                pass

            def destroy(self):
                fake.destroyed = True

        class Label:
            def __init__(self, root):
                pass

            def pack(self):
                pass

            def configure(self, image):
                fake.shown.append(image)

        def photo(master, data):
            return data

        self.module = types.SimpleNamespace(Tk=Tk, Label=Label, PhotoImage=photo)


def test_with_a_display_the_window_shows_the_viewers_picture_and_closes(monkeypatch, capsys):
    fake = _FakeTk()
    monkeypatch.setitem(sys.modules, "tkinter", fake.module)
    monkeypatch.setenv("DISPLAY", ":99")
    env = queens_and_jacks_v0.env(render_mode="human")
    env.reset(seed=1)
    env.render(viewer="player_2")
    u = env.unwrapped
    want = base64.b64encode(png_bytes(picture(u.game, u.game_state, 2), 1))
    assert fake.shown == [want] and fake.titles == ["queens_and_jacks_v0"]
    assert "player_0" in capsys.readouterr().out  # the text still goes to stdout
    env.close()
    assert fake.destroyed and u._window is None
    assert np.frombuffer(base64.b64decode(want)[:8], np.uint8).tolist()[1:4] == list(b"PNG")
