"""The replay's answers to bad input (kozel_env.replay, kozel_env.core.record): a malformed record is an
InvalidRecordError (exit code 2 from the command), a well-formed record that is not complete and consistent a
ReplayMismatch (exit code 1); each message is one line naming the field or event and what is allowed."""
from __future__ import annotations

import json

import numpy as np
import pytest

from kozel_env.core.errors import InvalidOptionError, KozelError
from kozel_env.core.record import check_record
from kozel_env.registry import make
from kozel_env.replay import InvalidRecordError, ReplayMismatch, describe, load, main, parse, replay

from .test_replay_fuzz import play_record, run_cli


@pytest.fixture(scope="module")
def finished() -> dict:
    """A deal of dominoes_v0 played out (``finished`` true)."""
    return play_record("dominoes_v0", {"episode": "deal"}, seed=2)


@pytest.fixture(scope="module")
def in_progress() -> dict:
    """A match of queens_and_jacks_v0 stopped after 10 steps (``finished`` false)."""
    return play_record("queens_and_jacks_v0", {}, seed=1, stop=10)


def copy(rec: dict) -> dict:
    return json.loads(json.dumps(rec))


def moves_of(rec: dict) -> list:
    return [i for i, e in enumerate(rec["events"]) if e["type"] == "move"]


def cli(tmp_path, content, *args) -> tuple:
    """Run the command on ``content`` (a record, or bytes written as they are): ``(code, stdout, stderr)``."""
    path = tmp_path / "record.json"
    path.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    return run_cli(path, *args)


def assert_invalid(tmp_path, content, match: str) -> None:
    """The function refuses ``content`` with InvalidRecordError matching ``match``; the command says so in one
    line, exit code 2."""
    with pytest.raises(InvalidRecordError, match=match) as e:
        replay(parse(content if isinstance(content, bytes) else json.dumps(content).encode()))
    assert "\n" not in str(e.value)
    code, out, err = cli(tmp_path, content, "--check")
    assert (code, out) == (2, "") and err.startswith("invalid record: ") and err.count("\n") == 1, err


def assert_mismatch(tmp_path, rec: dict, match: str) -> None:
    """``replay`` raises ReplayMismatch matching ``match``; the command exits 1 with one line."""
    with pytest.raises(ReplayMismatch, match=match) as e:
        replay(rec)
    assert "\n" not in str(e.value)
    code, out, err = cli(tmp_path, rec, "--check")
    assert (code, out) == (1, "") and err.startswith("mismatch: ") and err.count("\n") == 1, err


# ------------------------------------------------------------------ files that are not records
def test_a_missing_file_is_an_invalid_record_naming_the_file(tmp_path):
    with pytest.raises(InvalidRecordError, match="nope.json: cannot read the file: No such file"):
        load(str(tmp_path / "nope.json"))
    code, _, err = run_cli(tmp_path / "nope.json", "--check")
    assert code == 2 and err.count("\n") == 1 and "No such file" in err


def test_a_directory_is_an_invalid_record(tmp_path):
    with pytest.raises(InvalidRecordError, match="cannot read the file: Is a directory"):
        load(str(tmp_path))
    assert run_cli(tmp_path, "--check")[0] == 2


@pytest.mark.parametrize("content,match", [
    (b"", "empty"),
    (b"  \n", "empty"),
    (b'{"format": "kozel_env.rec', r"not valid JSON: .*: the text ends early \(truncated\?\)"),
    (b'{"format": 1,,}', "not valid JSON: Expecting"),
    (b'{"format": "\xff"}', r"not UTF-8 text \(byte 12 is b'\\xff'\)"),
    (b'[1, 2]', "a record is a JSON object, got a list"),
    (b'3', "a record is a JSON object, got a number"),
    (b'"x"', "a record is a JSON object, got a string"),
    (b'null', "a record is a JSON object, got null"),
    (b'{"format": NaN}', "NaN is not a JSON number"),
    (b'{"format": -Infinity}', "-Infinity is not a JSON number"),
    (b'{"format": ' + b"9" * 5000 + b"}", "a number of over 4300 digits"),
    pytest.param(b"[" * 100000 + b"]" * 100000, "nested too deeply", id="deep"),
])
def test_text_that_is_not_a_json_object_is_an_invalid_record(tmp_path, content, match):
    assert_invalid(tmp_path, content, match)


def test_a_truncated_record_file_is_an_invalid_record(tmp_path, finished):
    assert_invalid(tmp_path, json.dumps(finished).encode()[:-7], "truncated")


def test_a_utf8_byte_order_mark_is_accepted(finished):
    assert parse(b"\xef\xbb\xbf" + json.dumps(finished).encode()) == finished


# ------------------------------------------------------------------ the record's keys and their types
def test_a_record_without_format_is_not_a_record(tmp_path, finished):
    assert_invalid(tmp_path, {k: v for k, v in finished.items() if k != "format"}, "missing key 'format'")


@pytest.mark.parametrize("value", ["kozel_env.record/2", 1, None, ["kozel_env.record/1"]])
def test_another_format_is_refused_naming_the_one_allowed(tmp_path, finished, value):
    assert_invalid(tmp_path, {**finished, "format": value}, "format=.* is not allowed: 'kozel_env.record/1'")


@pytest.mark.parametrize("key", ["kozel_env", "env", "options", "engine_seed", "setup", "players", "sides",
                                 "events", "finished"])
def test_a_missing_key_is_named(tmp_path, finished, key):
    assert_invalid(tmp_path, {k: v for k, v in finished.items() if k != key}, f"missing key.*'{key}'")


def test_an_unknown_key_is_refused_not_ignored(tmp_path, finished):
    assert_invalid(tmp_path, {**finished, "comment": "mine"}, r"unknown key\(s\) \['comment'\]: a record has exactly")


@pytest.mark.parametrize("key,value,match", [
    ("engine_seed", "5", r"engine_seed='5' is not allowed: an int in 0\.\.18446744073709551615"),
    ("engine_seed", 5.0, "engine_seed=5.0 is not allowed"),
    ("engine_seed", True, "engine_seed=True is not allowed"),
    ("engine_seed", None, "engine_seed=None is not allowed"),
    ("engine_seed", -1, "engine_seed=-1 is not allowed"),
    ("engine_seed", 2 ** 64, "engine_seed=18446744073709551616 is not allowed"),
    ("engine_seed", [1], r"engine_seed=\[1\] is not allowed"),
    ("env", 5, "env=5 is not allowed: a string"),
    ("kozel_env", None, "kozel_env=None is not allowed: a string"),
    ("options", [], r"options=\[\] is not allowed: an object"),
    ("setup", "none", "setup='none' is not allowed: an object"),
    ("players", "player_0", "players='player_0' is not allowed: a list of agent names"),
    ("players", [0, 1], "players=.* is not allowed: a list of agent names"),
    ("sides", [0, "1"], "sides=.* is not allowed: a list of ints"),
    ("finished", "true", "finished='true' is not allowed: true or false"),
    ("finished", 1, "finished=1 is not allowed: true or false"),
    ("events", {}, "events={} is not allowed: a list of events"),
])
def test_a_value_of_the_wrong_type_is_refused_naming_the_key_and_what_is_allowed(tmp_path, finished, key, value,
                                                                                    match):
    assert_invalid(tmp_path, {**finished, key: value}, match)


def test_render_mode_in_the_options_is_refused(tmp_path, finished):
    rec = copy(finished)
    rec["options"]["render_mode"] = "ansi"
    assert_invalid(tmp_path, rec, r"options\['render_mode'\]='ansi' is not allowed: nothing")


def test_single_deal_in_the_setup_is_refused_pointing_at_the_episode_option(tmp_path, finished):
    assert_invalid(tmp_path, {**finished, "setup": {"single_deal": True}}, r"setup\['single_deal'\].*'episode'")


# ------------------------------------------------------------------ events
@pytest.mark.parametrize("field,value,match", [
    ("action", "3", r"\['action'\]='3' is not allowed: an action id \(an int >= 0\)"),
    ("action", 3.0, r"\['action'\]=3.0 is not allowed"),
    ("action", None, r"\['action'\]=None is not allowed"),
    ("action", True, r"\['action'\]=True is not allowed"),
    ("action", -1, r"\['action'\]=-1 is not allowed"),
    ("action", [3], r"\['action'\]=\[3\] is not allowed"),
    ("seat", "0", r"\['seat'\]='0' is not allowed: a seat"),
    ("move", 5, r"\['move'\]=5 is not allowed: the move in the game's notation"),
    ("move", None, r"\['move'\]=None is not allowed"),
])
def test_a_move_with_a_field_of_the_wrong_type_is_refused_naming_the_event(tmp_path, finished, field, value,
                                                                            match):
    rec = copy(finished)
    i = moves_of(rec)[1]
    rec["events"][i][field] = value
    assert_invalid(tmp_path, rec, rf"events\[{i}\]{match}")


def test_a_move_without_its_action_is_refused(tmp_path, finished):
    rec = copy(finished)
    i = moves_of(rec)[0]
    del rec["events"][i]["action"]
    assert_invalid(tmp_path, rec, rf"events\[{i}\] \(move\) lacks 'action'")


def test_an_action_id_out_of_the_games_range_is_refused(tmp_path, finished):
    rec = copy(finished)
    i = moves_of(rec)[0]
    rec["events"][i]["action"] = 10 ** 30
    n = make("dominoes_v0").unwrapped.game.num_actions
    assert_invalid(tmp_path, rec, rf"events\[{i}\]\['action'\]=10+ is not allowed: an action id in 0\.\.{n - 1}")


@pytest.mark.parametrize("event,match", [
    ([{"type": "move"}], r"events\[0\]=\[.*\] is not allowed: an event"),
    ("deal", r"events\[0\]='deal' is not allowed: an event"),
    ({"seat": 1}, r"events\[0\]\['type'\]=None is not allowed: the event's kind"),
    ({"type": 3}, r"events\[0\]\['type'\]=3 is not allowed"),
])
def test_an_event_that_is_not_an_object_with_a_type_is_refused(tmp_path, finished, event, match):
    rec = copy(finished)
    rec["events"][0] = event
    assert_invalid(tmp_path, rec, match)


def test_an_illegal_action_event_without_its_agent_is_refused(tmp_path):
    rec = play_record("dominoes_v0", {"episode": "deal", "illegal_action": "lose"}, seed=4, illegal_at=3)
    assert rec["events"][-1]["type"] == "illegal_action"
    rec["events"][-1]["agent"] = 1
    assert_invalid(tmp_path, rec, r"\['agent'\]=1 is not allowed: an agent name")


# ------------------------------------------------------------------ what the environment refuses
def test_an_unknown_env_is_refused_naming_the_registered_ones(tmp_path, finished):
    assert_invalid(tmp_path, {**finished, "env": "chess_v0"},
                   r"env='chess_v0' is not allowed: one of \[.*'dominoes_v0'")


def test_an_option_value_the_env_refuses_gives_the_envs_message(tmp_path, finished):
    rec = copy(finished)
    rec["options"]["target"] = "101"
    assert_invalid(tmp_path, rec, r"options: target='101' is not allowed: an int in")


@pytest.mark.parametrize("key", ["colour", "self"])
def test_an_unknown_option_is_named_with_the_known_ones(tmp_path, finished, key):
    rec = copy(finished)
    rec["options"][key] = 1
    assert_invalid(tmp_path, rec, rf"options: unknown option\(s\) \['{key}'\] for dominoes_v0; known: \[.*'target'")


@pytest.mark.parametrize("setup,match", [
    ({"scores": [1]}, "setup: scores=.* is not allowed: a list of 2 ints"),
    ({"leader": "0"}, "setup: leader='0' is not allowed"),
    ({"hands": 5}, "setup: hands=5 is not allowed"),
    ({"typo": 1}, "setup: unknown reset option 'typo' for dominoes_v0; known:"),
])
def test_a_setup_the_engine_refuses_gives_the_engines_message(tmp_path, finished, setup, match):
    assert_invalid(tmp_path, {**finished, "setup": setup}, match)


# ------------------------------------------------------------------ data given to replay() itself
@pytest.mark.parametrize("data,match", [
    ({("a", "b"): 1}, "not JSON data: keys must be"),
    ({"format": object()}, "not JSON data: Object of type object"),
    ({"format": float("nan")}, "not JSON data: Out of range float"),
])
def test_data_that_is_not_json_is_an_invalid_record(data, match):
    with pytest.raises(InvalidRecordError, match=match):
        replay(data)


def test_check_record_returns_a_plain_copy(finished):
    rec = check_record(finished)
    assert rec == finished and rec is not finished


def test_a_record_whose_setup_was_given_as_numpy_values_is_json_data():
    env = make("dominoes_v0")
    env.reset(seed=0, options={"scores": np.array([3, 0]), "eggs": np.int32(2)})
    rec = env.unwrapped.record()
    assert rec["setup"] == {"scores": [3, 0], "eggs": 2} and type(rec["setup"]["eggs"]) is int
    replay(rec)
    replay(json.loads(json.dumps(rec)))


def test_the_record_of_a_match_set_up_after_some_deals_holds_each_deals_result():
    env = make("six_of_spades_v0")
    env.reset(seed=0, options={"deals_played": 1})
    rng = np.random.default_rng(0)
    while not env.unwrapped.game_state.results:
        env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
    rec = env.unwrapped.record()
    ends = [e for e in rec["events"] if e["type"] == "deal_end"]
    assert [(e["deal"], e["result"]["deal"]) for e in ends] == [(2, 2)]
    replay(rec)


def test_a_bad_render_mode_is_the_callers_error_not_the_records(finished):
    with pytest.raises(InvalidOptionError, match="render_mode='png' is not allowed"):
        replay(finished, render_mode="png")


def test_both_errors_are_kozel_errors():
    assert issubclass(InvalidRecordError, KozelError) and issubclass(ReplayMismatch, KozelError)
    assert not issubclass(InvalidRecordError, ReplayMismatch) and not issubclass(ReplayMismatch, InvalidRecordError)


def test_describe_refuses_an_event_without_the_fields_of_its_type():
    with pytest.raises(InvalidRecordError, match="lacks a field of its type"):
        describe({"type": "deal_end", "deal": 1})


# ------------------------------------------------------------------ --check: complete and consistent
def test_a_finished_record_whose_later_events_were_cut_fails_the_check(tmp_path, finished):
    rec = copy(finished)
    del rec["events"][moves_of(rec)[-1]:]
    assert rec["finished"]
    assert_mismatch(tmp_path, rec, "the record says finished=true but the rebuilt episode is not over")


def test_a_record_cut_inside_a_moves_events_names_the_first_missing_event(tmp_path, finished):
    rec = copy(finished)
    del rec["events"][-1]  # the match_end
    assert_mismatch(tmp_path, rec, r"events missing: the record ends after \d+ events, .*'match_end'")


def test_a_record_that_claims_unfinished_but_holds_the_end_fails_the_check(tmp_path, finished):
    assert_mismatch(tmp_path, {**finished, "finished": False},
                    "the record says finished=false but the episode is over: its events end with match_end")


def test_an_event_added_after_the_end_fails_the_check(tmp_path, finished):
    rec = copy(finished)
    rec["events"].append({"type": "knock", "seat": 1})
    assert_mismatch(tmp_path, rec, r"extra events: the record has \d+, the rebuilt episode \d+")


def test_a_changed_result_fails_the_check_naming_the_event(tmp_path, finished):
    rec = copy(finished)
    i = next(i for i, e in enumerate(rec["events"]) if e["type"] == "deal_end")
    rec["events"][i]["result"]["scores"] = [99, 0]
    assert_mismatch(tmp_path, rec, rf"event {i} differs: recorded .*'deal_end'")


def test_a_changed_move_text_fails_the_check(tmp_path, finished):
    rec = copy(finished)
    i = moves_of(rec)[0]
    rec["events"][i]["move"] = "77L"
    assert_mismatch(tmp_path, rec, rf"event {i} differs")


def test_swapped_moves_fail_the_check_at_the_first_that_does_not_replay(tmp_path, finished):
    rec = copy(finished)
    i, j = moves_of(rec)[:2]
    rec["events"][i], rec["events"][j] = rec["events"][j], rec["events"][i]
    with pytest.raises(ReplayMismatch, match=r"event \d+(: the recorded move \d+ of player_\d does not replay| "
                                             r"differs)"):
        replay(rec)
    assert cli(tmp_path, rec, "--check")[0] == 1


@pytest.mark.parametrize("key,value", [("players", ["a", "b", "c", "d"]), ("sides", [0, 1, 2, 3]),
                                       ("setup", {"scores": [3, 0]})])
def test_players_sides_or_setup_other_than_the_rebuilt_ones_fail_the_check(tmp_path, finished, key, value):
    rec = {**finished, key: value}
    if key == "setup":  # a set-up the engine takes, but not the one recorded: the first event differs
        assert_mismatch(tmp_path, rec, r"event \d+ differs|events missing|extra events")
    else:
        assert_mismatch(tmp_path, rec, f"{key} differ: recorded")


def test_options_missing_an_env_option_fail_the_check(tmp_path, finished):
    rec = copy(finished)
    del rec["options"]["infos"]
    assert_mismatch(tmp_path, rec, "options differ: recorded")


def test_a_record_of_a_match_in_progress_passes_the_check(tmp_path, in_progress):
    assert not in_progress["finished"]
    code, out, _ = cli(tmp_path, in_progress, "--check")
    assert code == 0 and out.startswith("ok: ")


def test_a_record_ended_by_an_illegal_action_passes_the_check(tmp_path):
    rec = play_record("boneyard_v0", {"episode": "deal", "illegal_action": "lose"}, seed=4, illegal_at=3)
    assert rec["finished"] and rec["events"][-1]["type"] == "illegal_action"
    assert cli(tmp_path, rec, "--check")[0] == 0


def test_a_record_written_by_another_version_passes_when_it_rebuilds(tmp_path, finished):
    assert cli(tmp_path, {**finished, "kozel_env": "0.0.1"}, "--check")[0] == 0


# ------------------------------------------------------------------ the command line
@pytest.mark.parametrize("argv,match", [([], "the following arguments are required: file"),
                                        (["x.json", "--bogus"], "unrecognized arguments: --bogus")])
def test_a_wrong_command_line_is_one_line_and_exit_code_2(capsys, argv, match):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and match in err and err.count("\n") == 1


def test_an_unknown_viewer_is_one_line_and_exit_code_2(tmp_path, finished):
    code, out, err = cli(tmp_path, finished, "--viewer", "player_9")
    assert (code, out) == (2, "") and err.startswith("error: --viewer: viewer='player_9' is not allowed")
    assert err.count("\n") == 1


def test_the_command_names_the_file_in_an_error_found_after_reading_it(tmp_path, finished):
    code, _, err = cli(tmp_path, {**finished, "env": "chess_v0"}, "--check")
    assert code == 2 and err.startswith(f"invalid record: {tmp_path / 'record.json'}: env='chess_v0'")
