"""Replay a match record (:mod:`kozel_env.core.record`): rebuild the same episode and print or check it.

    python -m kozel_env.replay FILE.json             # print the game, event by event
    python -m kozel_env.replay FILE.json --viewer player_1   # the tables shown as player_1 sees them
    python -m kozel_env.replay FILE.json --check     # only rebuild and verify

A record is what ``env.unwrapped.record()`` returns (``json.dump`` it to save it). :func:`replay` builds the
environment with the record's options, starts it from the record's engine seed and set-up, steps every
recorded move in the AEC loop (dead steps included), and checks that the record is complete and consistent;
it returns the environment and the trace of every ``last()`` it saw.

A record is *complete and consistent* when the record that the rebuilt environment writes equals it in every
field but ``kozel_env`` (the version that wrote it: a record of another version passes exactly when this
version rebuilds it the same): the same ``options`` (as the environment normalises them), ``setup``,
``players`` and ``sides``; every event, in order, with nothing missing (the events that the recorded moves
cause, up to the end of the episode or up to the next decision) and nothing extra; and ``finished`` true
exactly when the rebuilt episode is over (its events end with ``match_end``, or ``illegal_action`` with
``illegal_action="lose"``). A record of an episode in progress is complete when it says
``"finished": false`` and holds every event up to the next decision.

Two errors, both :class:`~kozel_env.core.errors.KozelError` (a ``ValueError``), each with a one-line message:

* :class:`~kozel_env.core.record.InvalidRecordError` -- the input is not a well-formed record: a file that
  cannot be read (missing, a directory, not UTF-8, empty, not JSON, truncated JSON, NaN/Infinity, a number
  over 4300 digits), JSON that is not an object, anything :func:`~kozel_env.core.record.check_record`
  refuses (``format`` missing or not ``kozel_env.record/1``, a key missing, an unknown key -- refused, not
  ignored -- or a value of the wrong type), an ``env`` that is not registered, ``options`` or a ``setup``
  that the environment refuses (its :class:`~kozel_env.core.errors.InvalidOptionError` message follows),
  an action id out of the game's range. The message names the field, the value and what is allowed.
* :class:`ReplayMismatch` -- a well-formed record that is not complete and consistent: a recorded move that
  is not legal when it comes, an event that differs, events missing or extra, ``finished`` wrong, options,
  set-up, players or sides that differ from the rebuilt ones. The message says which and where.

Exit codes of the command (the message goes to stderr, one line): 0 the record is complete and consistent
(``--check`` prints ``ok: ...``; without it the game is printed); 1 it is well-formed but not complete and
consistent (``mismatch: ...``); 2 the input is malformed or the command line is wrong (``invalid record:
...``, ``error: ...``).
"""
from __future__ import annotations

import argparse
import json
import sys

from .core.aec import ENV_CHECKS, RENDER_MODES
from .core.errors import IllegalActionError, InvalidOptionError, KozelError
from .core.record import InvalidRecordError, as_json_data, check_record, short
from .registry import ENVIRONMENTS, make
from .registry import load as load_env

__all__ = ["InvalidRecordError", "ReplayMismatch", "describe", "load", "main", "parse", "replay"]

MAX_LINE = 600
"""Longer messages are cut in the middle (a refused value can be any size)."""


class ReplayMismatch(KozelError):
    """A well-formed record that is not complete and consistent (the module docstring): another version of
    the rules, or an edited or cut record."""


def one_line(text: str) -> str:
    """``text`` on one line, at most :data:`MAX_LINE` characters (the middle cut out)."""
    text = " ".join(str(text).split())
    if len(text) <= MAX_LINE:
        return text
    half = MAX_LINE // 2 - 3
    return f"{text[:half]} ... {text[-half:]}"


def _invalid(text: str) -> InvalidRecordError:
    return InvalidRecordError(one_line(text))


def load(path: str) -> dict:
    """The record in the JSON file ``path``, checked by :func:`~kozel_env.core.record.check_record`.
    Raises :class:`InvalidRecordError` naming the file and the problem."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise _invalid(f"{path}: cannot read the file: {e.strerror or e}") from None
    try:
        return parse(raw)
    except InvalidRecordError as e:
        raise _invalid(f"{path}: {e}") from None


def _no_constant(name: str):
    raise InvalidRecordError(f"{name} is not a JSON number")


def parse(text: bytes | str) -> dict:
    """The record in ``text`` (a JSON document; bytes in UTF-8), checked. Raises :class:`InvalidRecordError`."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise _invalid(f"not UTF-8 text (byte {e.start} is {e.object[e.start:e.start + 1]!r}): a record is "
                           "a JSON file in UTF-8") from None
    if not isinstance(text, str):
        raise _invalid(f"a record is JSON text (str or bytes), got {type(text).__name__}")
    if not text.strip():
        raise _invalid("empty: a record is a JSON object")
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        cut = e.pos >= len(text.rstrip()) or e.msg.startswith("Unterminated string")
        raise _invalid(f"not valid JSON: {e.msg} (line {e.lineno} column {e.colno})"
                       + (": the text ends early (truncated?)" if cut else "")) from None
    except RecursionError:
        raise _invalid("not valid JSON here: nested too deeply") from None
    except ValueError as e:  # NaN/Infinity (_no_constant), a number of over 4300 digits (Python's int limit)
        if "integer string conversion" in str(e):
            raise _invalid("a number of over 4300 digits: not allowed anywhere in a record") from None
        raise _invalid(f"not valid JSON here: {e}") from None
    return check_record(data)


def _build(rec: dict, render_mode):
    """The environment of ``rec`` (its options checked by the env), or InvalidRecordError."""
    name = rec["env"]
    if name not in ENVIRONMENTS:
        raise _invalid(f"env={short(name)} is not allowed: one of {sorted(ENVIRONMENTS)}")
    options = rec["options"]
    known = set(ENV_CHECKS) | set(type(load_env(name).raw_env.base_rules).checks())
    unknown = sorted(k for k in options if k not in known)
    if unknown:
        raise _invalid(f"options: unknown option(s) {short(unknown)} for {name}; known: {sorted(known)}")
    try:
        return make(name, render_mode=render_mode, **options)
    except KozelError as e:
        raise _invalid(f"options: {e}") from None


def replay(record: dict, render_mode: str | None = None) -> tuple:
    """Rebuild the episode of ``record``. Returns ``(env, trace)``: ``trace`` holds, for every step of the AEC
    loop, ``(agent, observation, action_mask, reward, termination, truncation, info)`` as ``last()`` gave
    them. Raises :class:`InvalidRecordError` if ``record`` is malformed and :class:`ReplayMismatch` if it is
    not complete and consistent (the module docstring)."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise InvalidOptionError(f"render_mode={render_mode!r} is not allowed: None or one of {list(RENDER_MODES)}")
    rec = check_record(record)
    env = _build(rec, render_mode)
    u = env.unwrapped
    n = u.game.num_actions
    todo, illegal = [], []
    for i, e in enumerate(rec["events"]):
        if e["type"] in ("move", "illegal_action"):
            if e["action"] >= n:
                raise _invalid(f"events[{i}]['action']={e['action']} is not allowed: an action id in 0..{n - 1} "
                               f"for {rec['env']}")
            (todo if e["type"] == "move" else illegal).append((i, e))
    todo += illegal[:1]
    try:
        u._start(rec["engine_seed"], rec["setup"])
    except KozelError as e:
        raise _invalid(f"setup: {e}") from None
    trace = _step_all(env, iter(todo))
    _compare(rec, as_json_data(u.record()))
    return env, trace


def _step_all(env, todo) -> list:
    """Step the recorded moves ``(event index, event)`` in the AEC loop; the trace of every ``last()``."""
    trace = []
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        trace.append((agent, obs["observation"], obs["action_mask"], rew, term, trunc, info))
        if term or trunc:
            env.step(None)
            continue
        i, e = next(todo, (None, None))
        if e is None:  # the record stops mid-episode
            break
        try:
            env.step(e["action"])
        except IllegalActionError as err:
            raise ReplayMismatch(one_line(f"event {i}: the recorded move {e['action']} of {agent} does not "
                                          f"replay: {err}")) from None
    return trace


def _compare(rec: dict, again: dict) -> None:
    """ReplayMismatch unless ``rec`` equals the rebuilt record ``again`` in every field but ``kozel_env``."""
    for key in ("options", "setup", "players", "sides"):
        if rec[key] != again[key]:
            raise ReplayMismatch(one_line(f"{key} differ: recorded {short(rec[key])}, rebuilt {short(again[key])}"))
    mine, theirs = rec["events"], again["events"]
    for i, (x, y) in enumerate(zip(mine, theirs)):
        if x != y:
            raise ReplayMismatch(one_line(f"event {i} differs: recorded {short(x)}, rebuilt {short(y)}"))
    if len(mine) < len(theirs):
        raise ReplayMismatch(one_line(
            f"events missing: the record ends after {len(mine)} events, the rebuilt episode has {len(theirs)}; "
            f"the first missing: event {len(mine)} {short(theirs[len(mine)])}"))
    if len(mine) > len(theirs):
        raise ReplayMismatch(one_line(
            f"extra events: the record has {len(mine)}, the rebuilt episode {len(theirs)}; the first extra: "
            f"event {len(theirs)} {short(mine[len(theirs)])}"))
    if rec["finished"] and not again["finished"]:
        raise ReplayMismatch(f"the record says finished=true but the rebuilt episode is not over: it stops after "
                             f"{len(theirs)} events with a decision to make (events missing?)")
    if again["finished"] and not rec["finished"]:
        raise ReplayMismatch(f"the record says finished=false but the episode is over: its events end with "
                             f"{theirs[-1]['type']}")


def describe(event: dict) -> str:
    """One event as a line of text. Raises :class:`InvalidRecordError` for an event without the fields of its
    type (every event of a record that replays has them)."""
    try:
        return _describe(event)
    except (KeyError, TypeError, AttributeError) as e:
        raise _invalid(f"event {short(event)} lacks a field of its type: {e!r}") from None


def _describe(event: dict) -> str:
    kind = event["type"]
    who = f"player_{event['seat']} " if "seat" in event else ""
    if kind == "move":
        return f"{who}plays {event['move']}"
    if kind == "deal_end":
        res = event["result"]
        return (f"== deal {event['deal']} over ({res['ended_by']}): winners {res['winners']}, losers "
                f"{res['losers']}, written {res['written']}, scores {res['scores']}")
    if kind == "match_end":
        res = event["result"]
        return (f"== match over ({res['ended_by']}): winners {res['winners']}, goats {res['goats']}, "
                f"scores {res['scores']}" + (f", titles {res['titles']}" if res["titles"] else ""))
    if kind == "deal":
        hands = event.get("private", {}).get("hands", [])
        return "== new deal " + json.dumps(event.get("public", {}), sort_keys=True) + "".join(
            f"\n   player_{q}: {h}" for q, h in enumerate(hands))
    rest = []
    if "public" in event:
        rest.append(str(event["public"]))
    if "private" in event:
        rest.append(f"({event['private']})")
    return f"{who}{kind} {' '.join(rest)}".rstrip()


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line and exit code 2 (argparse prints the usage and exits)
        raise _UsageError(message)


def main(argv=None) -> int:
    """The command (the module docstring); returns the exit code: 0 ok, 1 mismatch, 2 malformed input."""
    ap = _Parser(prog="python -m kozel_env.replay", description=__doc__,
                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--viewer", default=None, help="show the final table as this agent sees it")
    ap.add_argument("--check", action="store_true", help="only rebuild and verify the record")
    try:
        args = ap.parse_args(argv)
    except _UsageError as e:
        print(f"error: {one_line(e)} (see --help)", file=sys.stderr)
        return 2
    try:
        rec = load(args.file)
        try:
            env, trace = replay(rec, render_mode="ansi")
        except InvalidRecordError as e:
            raise _invalid(f"{args.file}: {e}") from None
        if args.check:
            print(f"ok: {len(rec['events'])} events, {len(trace)} steps rebuilt")
            return 0
        table = env.render(viewer=args.viewer)
        lines = [describe(ev) for ev in rec["events"]]
    except InvalidRecordError as e:
        print(f"invalid record: {one_line(e)}", file=sys.stderr)
        return 2
    except ReplayMismatch as e:
        print(f"mismatch: {one_line(e)}", file=sys.stderr)
        return 1
    except InvalidOptionError as e:  # --viewer
        print(f"error: --viewer: {one_line(e)}", file=sys.stderr)
        return 2
    print(f"{rec['env']} options={json.dumps(rec['options'], sort_keys=True)} seed={rec['engine_seed']}")
    print("\n".join(lines))
    print()
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
