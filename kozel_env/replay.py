"""Replay a match record (:mod:`kozel_env.core.record`): rebuild the same episode and print or check it.

    python -m kozel_env.replay FILE.json             # print the game, event by event
    python -m kozel_env.replay FILE.json --viewer player_1   # the tables shown as player_1 sees them
    python -m kozel_env.replay FILE.json --check     # only rebuild and verify (exit 1 on a mismatch)

A record is what ``env.unwrapped.record()`` returns (``json.dump`` it to save it). :func:`replay` builds the
environment with the record's options, starts it from the record's engine seed and set-up, steps every
recorded move in the AEC loop (dead steps included), and checks that the episode it plays gives exactly the
recorded events; it returns the environment and the trace of every ``last()`` it saw.
"""
from __future__ import annotations

import argparse
import json
import sys

from .core.errors import IllegalActionError, KozelError
from .core.record import FORMAT
from .registry import make


class ReplayMismatch(KozelError):
    """The record does not rebuild: another version of the rules, or an edited record."""


def load(path: str) -> dict:
    with open(path) as f:
        rec = json.load(f)
    if rec.get("format") != FORMAT:
        raise ReplayMismatch(f"{path}: not a {FORMAT} file (format={rec.get('format')!r})")
    return rec


def replay(record: dict, render_mode: str | None = None) -> tuple:
    """Rebuild the episode of ``record``. Returns ``(env, trace)``: ``trace`` holds, for every step of the AEC
    loop, ``(agent, observation, action_mask, reward, termination, truncation, info)`` as ``last()`` gave
    them. Raises :class:`ReplayMismatch` if the rebuilt episode's events differ from the record's."""
    if record.get("format") != FORMAT:
        raise ReplayMismatch(f"not a {FORMAT} record (format={record.get('format')!r})")
    env = make(record["env"], render_mode=render_mode, **record["options"])
    u = env.unwrapped
    u._start(int(record["engine_seed"]), dict(record["setup"]))
    moves = [e["action"] for e in record["events"] if e["type"] == "move"]
    illegal = [e for e in record["events"] if e["type"] == "illegal_action"]
    todo = iter(moves + [illegal[0]["action"]] if illegal else moves)
    trace = []
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        trace.append((agent, obs["observation"], obs["action_mask"], rew, term, trunc, info))
        if term or trunc:
            env.step(None)
            continue
        a = next(todo, None)
        if a is None:  # the record stops mid-episode
            break
        try:
            env.step(a)
        except IllegalActionError as e:
            raise ReplayMismatch(f"the recorded move {a} of {agent} does not replay: {e}") from None
    again = u.record()
    if again["events"] != record["events"]:
        for i, (x, y) in enumerate(zip(again["events"], record["events"])):
            if x != y:
                raise ReplayMismatch(f"event {i} differs: recorded {y}, replayed {x}")
        raise ReplayMismatch(f"{len(record['events'])} events recorded, {len(again['events'])} replayed")
    return env, trace


def describe(event: dict) -> str:
    """One event as a line of text."""
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kozel_env.replay", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--viewer", default=None, help="show the final table as this agent sees it")
    ap.add_argument("--check", action="store_true", help="only rebuild and verify the record")
    args = ap.parse_args(argv)
    rec = load(args.file)
    try:
        env, trace = replay(rec, render_mode="ansi")
    except ReplayMismatch as e:
        print(f"mismatch: {e}", file=sys.stderr)
        return 1
    if args.check:
        print(f"ok: {len(rec['events'])} events, {len(trace)} steps rebuilt")
        return 0
    print(f"{rec['env']} options={json.dumps(rec['options'], sort_keys=True)} seed={rec['engine_seed']}")
    for ev in rec["events"]:
        print(describe(ev))
    print()
    print(env.render(viewer=args.viewer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
