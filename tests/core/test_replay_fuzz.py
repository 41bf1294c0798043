"""Fuzzing the replay (kozel_env.replay): real records of every registered env, edited at random -- a value
changed, re-typed or deleted, a key added, moves swapped, events dropped, duplicated or cut, the JSON text cut
at a byte or given bytes that are not UTF-8 -- give either a clear error of the documented type
(InvalidRecordError for a malformed record, ReplayMismatch for one that is not complete and consistent; one
line, exit code 2 or 1 from the command) or a correct replay (the rebuilt episode's record equals the
record, exit code 0). Nothing in between: any other exception fails the test.

The default run is derandomized (the same examples every time); the ``slow`` run draws fresh ones, many more.
"""
from __future__ import annotations

import contextlib
import copy
import io
import json
from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kozel_env.core.aec import ENV_CHECKS
from kozel_env.registry import ENVIRONMENTS, make
from kozel_env.replay import InvalidRecordError, ReplayMismatch, main, parse, replay

NAMES = sorted(ENVIRONMENTS)
FAST = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
LONG = settings(max_examples=1500, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ------------------------------------------------------------------ real records and the command
def play_record(name: str, options: dict, seed: int, stop: int | None = None, illegal_at: int | None = None) -> dict:
    """The record (as JSON data) of a seeded random game of ``name``: to the end, or cut after ``stop`` steps
    of the AEC loop, or ended by a masked-out action at step ``illegal_at`` (give ``illegal_action="lose"``)."""
    env = make(name, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for k, _ in enumerate(env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if stop is not None and k >= stop:
            break
        mask = obs["action_mask"]
        if illegal_at is not None and k >= illegal_at and not mask.all():
            env.step(int(np.flatnonzero(mask == 0)[0]))
            continue
        legal = np.flatnonzero(mask)
        env.step(int(legal[rng.integers(len(legal))]))
    return json.loads(json.dumps(env.unwrapped.record()))


def run_cli(path, *args) -> tuple:
    """``main([path, *args])`` in this process: ``(exit code, stdout, stderr)``."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(path), *args])
    return code, out.getvalue(), err.getvalue()


@cache
def base_records(name: str) -> tuple:
    """JSON texts of real records of ``name``, for each option set of the registry: one deal played out,
    a match in progress, a deal ended by an illegal action."""
    out = []
    for i, opts in enumerate(ENVIRONMENTS[name][1]):
        out.append(play_record(name, {"episode": "deal", **opts}, seed=i))
        out.append(play_record(name, {"reward": "points", "infos": "flat", **opts}, seed=10 + i, stop=12))
        out.append(play_record(name, {"episode": "deal", "illegal_action": "lose", **opts}, seed=20 + i,
                               illegal_at=5))
    return tuple(json.dumps(r) for r in out)


@cache
def env_facts(name: str) -> dict:
    """Names and sample values the mutations draw from: option names, set-up keys, move texts, values."""
    env = make(name)
    game = env.unwrapped.game
    records = [json.loads(t) for t in base_records(name)]
    moves = sorted({e["move"] for r in records for e in r["events"] if e["type"] == "move"})
    option_values = [v for opts in ENVIRONMENTS[name][1] for v in opts.values()]
    return {"options": sorted(set(ENV_CHECKS) | set(type(game.rules).checks())),
            "setup": sorted(k for k in game.setup_checks() if k != "single_deal"),
            "moves": moves, "option_values": option_values}


# ------------------------------------------------------------------ mutations
SPECIAL_INTS = [0, -1, 1, 2, 3, 2 ** 31, 2 ** 63, 2 ** 64 - 1, 2 ** 64, 10 ** 40, -(10 ** 40)]
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.sampled_from(SPECIAL_INTS),
                    st.floats(), st.text(max_size=6))
TRICKY = [[[]], [{}], [[1, 2]], [[0, 0], [1, 1]], {}, [], "", None, True, False, 1.5, -1, 0, 10 ** 40, ["x"],
          [1, "x"], [None], [None, None], [True, False], "0", "1", [0, 1], float("inf"), float("nan")]
"""Values of the wrong shape that checks most often miss (unhashable members, wrong lengths, NaN)."""
VALUES = st.sampled_from(TRICKY).map(copy.deepcopy) | st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                                                | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                                                max_leaves=6)


def retyped(value, how: int):
    """``value`` as another JSON type: a number as a string, a string as a number, wrapped in a list..."""
    options = [json.dumps(value), [value], {"value": value}, None,
               float(value) if type(value) is int and abs(value) < 2 ** 53 else 1.5,
               len(value) if isinstance(value, (str, list, dict)) else True,
               [[value]]]
    return options[how % len(options)]


def paths(tree, prefix=()) -> list:
    """Every path (a tuple of keys and indices) inside ``tree``."""
    out = []
    items = tree.items() if isinstance(tree, dict) else enumerate(tree) if isinstance(tree, list) else ()
    for k, v in items:
        out.append(prefix + (k,))
        out.extend(paths(v, prefix + (k,)))
    return out


def _parent(rec, path):
    node = rec
    for k in path[:-1]:
        node = node[k]
    return node


def _set(rec, path, value):
    if not path:
        return value
    _parent(rec, path)[path[-1]] = value
    return rec


def _target(data, rec) -> tuple:
    """A path to edit: a top-level key, an option or set-up entry, a field of a move, or anywhere."""
    where = data.draw(st.sampled_from(["top", "options", "move", "anywhere"]))
    if not isinstance(rec, dict):
        where = "anywhere"
    if where == "top":
        return (data.draw(st.sampled_from(sorted(rec))),)
    if where == "options" and isinstance(rec.get("options"), dict) and rec["options"]:
        return ("options", data.draw(st.sampled_from(sorted(rec["options"]))))
    moves = _move_indices(rec)
    if where == "move" and moves:
        i = data.draw(st.sampled_from(moves))
        return ("events", i, data.draw(st.sampled_from(sorted(rec["events"][i]))))
    every = paths(rec)
    return data.draw(st.sampled_from(every)) if every else ()


def _move_indices(rec) -> list:
    ev = rec.get("events")
    if not isinstance(ev, list):
        return []
    return [i for i, e in enumerate(ev) if isinstance(e, dict) and e.get("type") == "move"]


def mutate(data, rec: dict, name: str, op: str):
    """Apply one edit ``op`` to ``rec`` (a fresh copy); returns the edited data (it may no longer be a dict)."""
    facts = env_facts(name)
    if op in ("set", "retype", "delete"):
        path = _target(data, rec) if isinstance(rec, (dict, list)) else ()
        if op == "set":
            pool = VALUES if not path or path[-1] != "move" else st.sampled_from(facts["moves"]) | VALUES
            return _set(rec, path, data.draw(pool))
        if op == "retype":
            value = _parent(rec, path)[path[-1]] if path else rec
            return _set(rec, path, retyped(value, data.draw(st.integers(0, 6))))
        if path:
            del _parent(rec, path)[path[-1]]
        return rec
    if not isinstance(rec, dict):
        return rec
    events = rec.get("events")
    if op == "add_key":
        dicts = [p for p in [()] + paths(rec) if isinstance(_parent(rec, p + ("x",)), dict)]
        where = data.draw(st.sampled_from(dicts))
        _parent(rec, where + ("x",))[data.draw(st.text(min_size=1, max_size=6))] = data.draw(VALUES)
        return rec
    if op == "option" and isinstance(rec.get("options"), dict):
        key = data.draw(st.sampled_from(facts["options"]))
        pool = st.sampled_from(facts["option_values"]) | VALUES if facts["option_values"] else VALUES
        rec["options"][key] = data.draw(pool)
        return rec
    if op == "setup" and isinstance(rec.get("setup"), dict) and facts["setup"]:
        rec["setup"][data.draw(st.sampled_from(facts["setup"]))] = data.draw(VALUES)
        return rec
    if not isinstance(events, list) or not events:
        return rec
    moves = _move_indices(rec)
    if op == "swap_moves" and len(moves) >= 2:
        i, j = data.draw(st.lists(st.sampled_from(moves), min_size=2, max_size=2, unique=True))
        events[i], events[j] = events[j], events[i]
    elif op == "drop_event":
        del events[data.draw(st.integers(0, len(events) - 1))]
    elif op == "duplicate_event":
        i = data.draw(st.integers(0, len(events) - 1))
        events.insert(data.draw(st.integers(0, len(events))), json.loads(json.dumps(events[i])))
    elif op == "cut_events":
        del events[data.draw(st.integers(0, len(events))):]
    elif op == "cut_at_move" and moves:  # a complete record of the episode in progress: it must replay
        del events[data.draw(st.sampled_from(moves)):]
        rec["finished"] = False
    elif op == "flip_finished" and type(rec.get("finished")) is bool:
        rec["finished"] = not rec["finished"]
    return rec


RECORD_OPS = ["set", "retype", "delete", "add_key", "option", "setup", "swap_moves", "drop_event",
              "duplicate_event", "cut_events", "cut_at_move", "flip_finished", "none"]
TEXT_OPS = ["none"] * 4 + ["cut_text", "bad_bytes"]


def corrupt_text(data, text: bytes, op: str) -> bytes:
    if op == "cut_text":
        return text[:data.draw(st.integers(0, max(len(text) - 1, 0)))]
    if op == "bad_bytes":
        at = data.draw(st.integers(0, len(text)))
        junk = data.draw(st.sampled_from([b"\xff", b"\xc3", b"\x80\x80", b"\xed\xa0\x80", b"\x00", b"\xfe\xff"]))
        return text[:at] + junk + text[at:]
    return text


# ------------------------------------------------------------------ the property
def outcome_of_function(text: bytes):
    """``parse`` then ``replay``: the error type (its message one line) or None for a correct replay."""
    try:
        rec = parse(text)
        env, _ = replay(rec)
    except (InvalidRecordError, ReplayMismatch) as e:
        msg = str(e)
        assert msg and "\n" not in msg and "Traceback" not in msg, msg
        return type(e)
    again = json.loads(json.dumps(env.unwrapped.record()))
    assert {k: v for k, v in again.items() if k != "kozel_env"} == {k: v for k, v in rec.items() if k != "kozel_env"}
    return None


def outcome_of_dict(rec) -> type | None:
    """``replay`` of the data itself (no file): the same outcome as the file's."""
    try:
        replay(rec)
    except (InvalidRecordError, ReplayMismatch) as e:
        assert "\n" not in str(e)
        return type(e)
    return None


CODES = {None: 0, ReplayMismatch: 1, InvalidRecordError: 2}


def check_one(data, name: str, path) -> tuple:
    texts = base_records(name)
    rec = json.loads(texts[data.draw(st.integers(0, len(texts) - 1))])
    ops = data.draw(st.lists(st.sampled_from(RECORD_OPS), min_size=1, max_size=2))
    for op in ops:
        rec = mutate(data, rec, name, op)
    text_op = data.draw(st.sampled_from(TEXT_OPS))
    text = corrupt_text(data, json.dumps(rec).encode(), text_op)
    kind = outcome_of_function(text)
    if text_op == "none":
        assert outcome_of_dict(rec) is kind
        if ops in (["none"], ["cut_at_move"]):
            assert kind is None, ops
        if ops == ["flip_finished"]:
            assert kind is ReplayMismatch
    path.write_bytes(text)
    code, out, err = run_cli(path, "--check")
    assert code == CODES[kind], (code, kind, err)
    if code:
        assert err.count("\n") == 1 and err.endswith("\n") and not out, err
        assert err.startswith("invalid record: " if code == 2 else "mismatch: "), err
    else:
        assert out.startswith("ok: ") and not err
    event(f"outcome: {kind.__name__ if kind else 'replayed'}")
    for op in ops:
        event(f"edit: {op}")
    event(f"text: {text_op}")


@pytest.fixture(scope="module")
def fuzz_file(tmp_path_factory):
    return tmp_path_factory.mktemp("replay_fuzz") / "record.json"


def test_unedited_records_of_every_env_replay_and_pass_the_check(fuzz_file):
    for name in NAMES:
        for text in base_records(name):
            assert outcome_of_function(text.encode()) is None
            fuzz_file.write_text(text)
            assert run_cli(fuzz_file, "--check")[0] == 0


@pytest.mark.parametrize("name", NAMES)
@FAST
@given(data=st.data())
def test_an_edited_record_gives_a_documented_error_or_a_correct_replay(name, fuzz_file, data):
    check_one(data, name, fuzz_file)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
@LONG
@given(data=st.data())
def test_an_edited_record_gives_a_documented_error_or_a_correct_replay_long(name, fuzz_file, data):
    check_one(data, name, fuzz_file)
