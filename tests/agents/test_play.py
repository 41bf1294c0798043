"""Terminal play (issue 7, item 5): a person takes one seat, sees only their own view, types moves in the
game's notation and gets a clear message on a bad entry."""
from __future__ import annotations

import pytest

from agents.play import main, play
from kozel_env.registry import ENVIRONMENTS


class Script:
    """Plays for the person: the scripted lines first, then always the first legal move shown."""

    def __init__(self, lines=()):
        self.lines = list(lines)
        self.out = []
        self.legal = []

    def input(self, prompt):
        if self.lines:
            return self.lines.pop(0)
        return self.legal[0]

    def print(self, text=""):
        self.out.append(str(text))
        if text.startswith("your moves: "):
            self.legal = text[len("your moves: "):].split()

    @property
    def text(self):
        return "\n".join(self.out)


def test_bad_entries_get_a_message_and_the_legal_moves():
    s = Script(["XX", "?", "99"])
    res = play("queens_and_jacks_v0", seat=1, bots=["easy"], seed=3, episode="deal", input_fn=s.input,
               print_fn=s.print)
    assert "not accepted: move 'XX': not a move" in s.text and "legal moves:" in s.text
    assert "not accepted: move '99'" in s.text
    assert res["ended_by"] == "single_deal"
    assert "== deal 1 over" in s.text


def test_the_person_sees_only_their_own_hand():
    s = Script()
    play("dominoes_v0", seat=2, bots=["normal"], seed=1, episode="deal", input_fn=s.input, print_fn=s.print)
    tables = [t for t in s.out if t.startswith("\ndominoes_v0")]
    assert tables
    for t in tables:
        lines = t.splitlines()
        others = [ln for ln in lines if ln[1:].startswith("player_") and not ln[1:].startswith("player_2")]
        assert all("??" in ln or ln.split("played:")[0].count(" ") > 0 for ln in others)
        assert all(not any(ch.isdigit() for ch in ln.split(":")[1].split("played")[0]) for ln in others)


@pytest.mark.parametrize("name", list(ENVIRONMENTS))
def test_a_whole_deal_can_be_played_from_the_terminal(name):
    s = Script()
    res = main(["--env", name, "--seed", "2", "--episode", "deal", "--bots", "easy"], input_fn=s.input,
               print_fn=s.print)
    assert "over" in s.text and res


def test_several_moves_of_one_turn_on_one_line():
    """Six of spades builds a lead card by card: ``<card> ... lead`` may be typed at once."""
    s = Script()
    typed = []

    def inp(prompt):
        if "lead" in s.legal and not typed:
            cards = [m for m in s.legal if m not in ("lead", "beat", "down", "pass", "moskva", "molodka")]
            typed.append(f"{cards[0]} lead")
            return typed[0]
        return s.legal[0]

    play("six_of_spades_v0", seat=0, bots=["normal"], seed=4, episode="deal", input_fn=inp, print_fn=s.print)
    assert typed and "not accepted" not in s.text


def test_quit():
    s = Script(["quit"])
    assert play("dominoes_v0", seat=0, seed=1, input_fn=s.input, print_fn=s.print) == {"quit": True}
    assert "bye" in s.text


def test_a_trained_policy_can_sit_at_the_table():
    from pathlib import Path

    import agents

    if not (Path(agents.__file__).parent / "checkpoints" / "dominoes_v0.npz").exists():
        pytest.skip("no trained dominoes_v0 checkpoint shipped")
    s = Script()
    play("dominoes_v0", seat=0, bots=["rl", "normal", "rl"], seed=5, episode="deal", input_fn=s.input,
         print_fn=s.print)
    assert "player_1 = rl" in s.text and "(rl) plays" in s.text


def test_the_expert_sits_at_the_table_by_name():
    """Issue 15: ``expert`` joins terminal play by that name (it gets the state through ``agents.decide``)."""
    s = Script()
    play("dominoes_v0", seat=0, bots=["expert:n=2", "normal", "expert_fast:n=2"], seed=5, episode="deal",
         input_fn=s.input, print_fn=s.print)
    assert "player_1 = expert:n=2" in s.text and "(expert:n=2) plays" in s.text
