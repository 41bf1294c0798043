"""The match record: one episode as JSON data, every event in order, and the check that rebuilds it.

An environment keeps only what makes its episode reproducible -- the engine seed, the set-up and the
action ids -- so recording costs one list append per step. :func:`build_record` turns that into the full
record by playing the episode again on a fresh engine state, reading the engine's events after every action
(:mod:`kozel_env.core.game`: ``state.events``). :mod:`kozel_env.replay` rebuilds the episode from a record
and checks that every event comes out the same.

Record format (``"format": "kozel_env.record/1"``)::

    {"format", "kozel_env": version, "env": "dominoes_v0",
     "options": {env options and the rules options given},
     "engine_seed": int, "setup": {reset options},
     "players": ["player_0", ...], "sides": [side of each seat],
     "events": [ ... ], "finished": bool}

Events, in order (``seat`` is absent where no seat acts; ``public`` is what every seat sees, ``private``
what only that seat -- or a spectator -- sees; the record is the spectator's):

* ``{"type": "deal", "public": {...}, "private": {"hands": [...], ...}}`` -- a deal starts (hands as dealt,
  the stock in draw order where there is one); ``"redeal"`` -- a deal thrown in (RULES D1.6);
* ``{"type": "move", "seat", "action", "move"}`` -- a decision, ``move`` in the game's notation;
* what the engine did by itself or what a move laid on the table: ``knock``, ``draw``, ``skip``, ``lead``,
  ``beat``, ``discard``, ``down``, ``equalise``, ``claim``, ``call``, ``pass``, ``done``, ``trick`` ...;
* ``{"type": "deal_end", "deal": k, "result": {...}}`` -- the deal result (:mod:`kozel_env.core.results`);
* ``{"type": "match_end", "result": {...}}`` -- the match result, when the episode is over;
* ``{"type": "illegal_action", ...}`` -- the episode ended by ``illegal_action="lose"``.
"""
from __future__ import annotations

import json
import reprlib

from .errors import KozelError
from .game import Deferred

FORMAT = "kozel_env.record/1"
KEYS = ("format", "kozel_env", "env", "options", "engine_seed", "setup", "players", "sides", "events",
        "finished")
"""The keys of a record, every one required, no other allowed."""
SEED_MAX = (1 << 64) - 1
_short = reprlib.Repr()
_short.maxstring = _short.maxother = 60
_short.maxlist = _short.maxdict = 6
_short.maxlevel = 3


class InvalidRecordError(KozelError):
    """Data that is not a well-formed match record (:func:`check_record`; :mod:`kozel_env.replay` also raises it
    for a file it cannot read and for options, a set-up or action ids the environment refuses). The message is
    one line naming the field, its value and what is allowed."""


def short(value) -> str:
    """``repr(value)``, cut short for a one-line message."""
    return _short.repr(value)


def _fail(field: str, value, allowed: str):
    raise InvalidRecordError(f"{field}={short(value)} is not allowed: {allowed}")


def _is_int(v) -> bool:
    return type(v) is int


def _json_type(v) -> str:
    return {dict: "an object", list: "a list", str: "a string", int: "a number", float: "a number",
            bool: "true/false", type(None): "null"}.get(type(v), type(v).__name__)


def as_json_data(data) -> object:
    """A plain copy of ``data`` through JSON (the types a record file holds), or InvalidRecordError."""
    try:
        return json.loads(json.dumps(data, allow_nan=False))
    except (TypeError, ValueError) as e:
        raise InvalidRecordError(f"not JSON data: {e}") from None
    except RecursionError:
        raise InvalidRecordError("not JSON data: nested too deeply") from None


def check_record(data) -> dict:
    """``data`` as a plain JSON copy if it has the shape of a record (the module docstring), else
    :class:`InvalidRecordError`: not an object; ``format`` missing or not ``kozel_env.record/1``; a key
    missing or unknown (every key of :data:`KEYS` is required, no other is allowed); ``kozel_env``, ``env``
    not strings; ``options``, ``setup`` not objects (``render_mode`` and ``single_deal`` are never recorded);
    ``engine_seed`` not an int in 0..2**64-1; ``players`` not strings, ``sides`` not ints; ``finished`` not
    true/false; ``events`` not a list of objects with a string ``type``, a ``move`` without int ``seat`` and
    ``action`` and a string ``move``, an ``illegal_action`` without a string ``agent``, an int ``action`` and
    a string ``message``. Values inside events are otherwise compared, not checked, by the replay."""
    rec = as_json_data(data)
    if not isinstance(rec, dict):
        raise InvalidRecordError(f"a record is a JSON object, got {_json_type(rec)}: {short(rec)}")
    if "format" not in rec:
        raise InvalidRecordError(f"missing key 'format': not a {FORMAT} record")
    if rec["format"] != FORMAT:
        _fail("format", rec["format"], repr(FORMAT))
    missing = [k for k in KEYS if k not in rec]
    if missing:
        raise InvalidRecordError(f"missing key(s) {missing}: a record has {list(KEYS)}")
    unknown = sorted(k for k in rec if k not in KEYS)
    if unknown:
        raise InvalidRecordError(f"unknown key(s) {short(unknown)}: a record has exactly {list(KEYS)}")
    for k in ("kozel_env", "env"):
        if not isinstance(rec[k], str):
            _fail(k, rec[k], "a string")
    for k, never in (("options", "render_mode"), ("setup", "single_deal")):
        if not isinstance(rec[k], dict):
            _fail(k, rec[k], "an object")
        if never in rec[k]:
            _fail(f"{k}[{never!r}]", rec[k][never], "nothing: a record never holds it"
                  + (" (options['episode'] == 'deal' says it)" if never == "single_deal" else ""))
    if not _is_int(rec["engine_seed"]) or not 0 <= rec["engine_seed"] <= SEED_MAX:
        _fail("engine_seed", rec["engine_seed"], f"an int in 0..{SEED_MAX}")
    if not isinstance(rec["players"], list) or not all(isinstance(p, str) for p in rec["players"]):
        _fail("players", rec["players"], "a list of agent names (strings)")
    if not isinstance(rec["sides"], list) or not all(_is_int(s) for s in rec["sides"]):
        _fail("sides", rec["sides"], "a list of ints (the side of each seat)")
    if type(rec["finished"]) is not bool:
        _fail("finished", rec["finished"], "true or false")
    if not isinstance(rec["events"], list):
        _fail("events", rec["events"], "a list of events")
    for i, ev in enumerate(rec["events"]):
        _check_event(i, ev)
    return rec


_EVENT_FIELDS = {
    "move": (("seat", int, "a seat (an int >= 0)"), ("action", int, "an action id (an int >= 0)"),
             ("move", str, "the move in the game's notation (a string)")),
    "illegal_action": (("agent", str, "an agent name (a string)"), ("action", int, "an action id (an int >= 0)"),
                       ("message", str, "a string")),
}
"""The fields the replay reads, by event type: their key, type and what is allowed."""


def _check_event(i: int, ev) -> None:
    if not isinstance(ev, dict):
        _fail(f"events[{i}]", ev, "an event (an object with a 'type')")
    if not isinstance(ev.get("type"), str):
        _fail(f"events[{i}]['type']", ev.get("type"), "the event's kind (a string)")
    for key, kind, allowed in _EVENT_FIELDS.get(ev["type"], ()):
        if key not in ev:
            raise InvalidRecordError(f"events[{i}] ({ev['type']}) lacks {key!r}: {allowed}")
        value = ev[key]
        if type(value) is not kind or (kind is int and value < 0):
            _fail(f"events[{i}][{key!r}]", value, allowed)


def _plain(v):
    """``v`` as JSON data: numpy scalars and arrays (a ``reset(options=...)`` may hold them) as ints, floats,
    bools and lists, tuples as lists (``json.dump`` must take every record)."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if hasattr(v, "tolist"):  # numpy scalar or array
        return _plain(v.tolist())
    return v


def event_dict(ev: tuple, results: tuple) -> dict:
    """One engine event tuple ``(kind, seat, public, private)`` as record data."""
    kind, seat, public, private = ev
    if isinstance(private, Deferred):  # written out only now: engines defer the dealt hands
        private = private()
    if kind == "deal_end":
        # deal numbers count the deals played before a set-up (``deals_played``): find the result by its number
        return {"type": "deal_end", "deal": public, "result": next(r for r in reversed(results) if r["deal"] == public)}
    out = {"type": kind}
    if seat >= 0:
        out["seat"] = seat
    if public is not None:
        out["public"] = public
    if private is not None:
        out["private"] = private
    return out


def play_events(game, engine_seed: int, setup: dict, actions) -> tuple:
    """Play ``actions`` from ``game.new_state(engine_seed, setup)``; returns ``(state, events)``."""
    st = game.new_state(engine_seed, dict(setup))
    events = [event_dict(ev, st.results) for ev in st.events]
    for a in actions:
        seat = st.current_player
        events.append({"type": "move", "seat": seat, "action": a, "move": game.action_to_string(st, a)})
        st.apply_action(a)
        events.extend(event_dict(ev, st.results) for ev in st.events)
    if st.terminal:
        events.append({"type": "match_end", "result": st.match_result})
    return st, events


def build_record(env) -> dict:
    """The record of ``env``'s episode so far (see the module docstring)."""
    from .. import __version__

    setup = dict(env._setup)
    if env.episode == "deal":
        setup["single_deal"] = True
    st, events = play_events(env.game, env._episode_seed, setup, env._actions)
    if env.game.oracle(st).tobytes() != env.state().tobytes():  # pragma: no cover - determinism guard
        raise RuntimeError("the episode did not replay to the same position: the engine is not deterministic")
    if env._ended:
        events.append({"type": "illegal_action", **env._illegal})
    return {
        "format": FORMAT,
        "kozel_env": __version__,
        "env": env.metadata["name"],
        "options": {k: v for k, v in env.options.items() if k != "render_mode"},
        "engine_seed": env._episode_seed,
        "setup": _plain(env._setup),
        "players": list(env.possible_agents),
        "sides": list(env.game.sides),
        "events": events,
        "finished": bool(st.terminal or env._ended),
    }
