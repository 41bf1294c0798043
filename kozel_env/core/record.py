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

from .game import Deferred

FORMAT = "kozel_env.record/1"


def event_dict(ev: tuple, results: tuple) -> dict:
    """One engine event tuple ``(kind, seat, public, private)`` as record data."""
    kind, seat, public, private = ev
    if isinstance(private, Deferred):  # written out only now: engines defer the dealt hands
        private = private()
    if kind == "deal_end":
        return {"type": "deal_end", "deal": public, "result": results[public - 1]}
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
        "setup": dict(env._setup),
        "players": list(env.possible_agents),
        "sides": list(env.game.sides),
        "events": events,
        "finished": bool(st.terminal or env._ended),
    }
