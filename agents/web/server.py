"""The web table: play, watch and replay every Kozel game in a browser.

    python -m agents.web                      # serves http://127.0.0.1:8000/ (prints the URL)
    python -m agents.web --port 0             # any free port
    python -m agents.web --record match.json  # also opens a record for replay (its URL is printed)

A Starlette app under uvicorn; the page is plain HTML, CSS and JavaScript from ``agents/web/static`` (no
build step). The JSON API (every error is a 4xx with ``{"error": message}`` and changes nothing):

* ``GET /api/games`` -- the games, their option sets, the bot names;
* ``POST /api/tables`` ``{env, options, seats, episode, seed}`` -- a new table; returns its id and a token per
  human seat;
* ``GET /api/tables/{id}?seat=&token=&since=`` -- the table as that seat sees it (:mod:`agents.web.table`);
* ``POST /api/tables/{id}/move`` ``{seat, token, move, expect}`` -- a human's move;
* ``POST /api/tables/{id}/advance`` ``{seat, token, n}`` -- let the bots make up to ``n`` moves (the browser
  calls it at its pace);
* ``GET /api/tables/{id}/hint?seat=&token=`` -- the network's probabilities and the expert's move;
* ``GET /api/tables/{id}/record?seat=&token=`` -- the match record (at a table with a human seat, once over);
* ``POST /api/replays[?env=]`` (a record as the body) and ``GET /api/replays/{id}?step=&seat=`` -- replay.
"""
from __future__ import annotations

import argparse
import json
import socket
import sys
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from kozel_env.core.record import InvalidRecordError
from kozel_env.registry import ENVIRONMENTS
from kozel_env.replay import load as load_record

from .replays import Replay, hints
from .table import BOTS, BadRequest, Table, Tables

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 64 * 1024
"""Largest request body for a table request (bytes)."""
MAX_RECORD = 4 * 1024 * 1024
"""Largest record upload (bytes)."""
MAX_ADVANCE = 50
"""Most bot moves one advance request may ask for."""
KEEP_ALIVE = 75
"""Seconds an idle connection is kept open (uvicorn's default is 5): longer than a client's own idle expiry
(httpx 5 s, browsers longer), so the client closes an idle connection first and a request never races the
server closing it (a ReadError under load)."""


async def _raw_body(request: Request, limit: int) -> bytes:
    """The request's body, refused (413) past ``limit`` bytes before reading more."""
    size = request.headers.get("content-length")
    if size is not None and size.isdigit() and int(size) > limit:
        raise BadRequest(f"request body of {size} bytes is over the limit of {limit} bytes", 413)
    chunks, total = [], 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > limit:
            raise BadRequest(f"request body is over the limit of {limit} bytes", 413)
        chunks.append(chunk)
    return b"".join(chunks)


async def _body(request: Request, limit: int):
    """The request's JSON body (:func:`_raw_body`), 400 if not JSON."""
    raw = await _raw_body(request, limit)
    try:
        return json.loads(raw or b"null")
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise BadRequest(f"malformed JSON: {'nested too deeply' if isinstance(e, RecursionError) else e}") from None


def _obj(data) -> dict:
    if not isinstance(data, dict):
        raise BadRequest(f"the body must be a JSON object, got {type(data).__name__}")
    return data


def _int_param(request: Request, name: str, default=None):
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise BadRequest(f"{name} must be an integer, got {raw!r}") from None


def _seat(value):
    if value is None or (type(value) is int):
        return value
    raise BadRequest(f"seat must be an integer or null, got {value!r}")


def _players(env_name: str, options: dict) -> int:
    from agents.base import game_for

    return game_for(env_name, options).num_players


def _table(request: Request) -> Table:
    return request.app.state.tables.get(request.path_params["tid"])


async def _index(request: Request):
    return FileResponse(STATIC / "index.html")


async def _games(request: Request):
    envs = {}
    for name, (_module, option_sets) in ENVIRONMENTS.items():
        envs[name] = {"option_sets": option_sets, "players": [_players(name, o) for o in option_sets]}
    return JSONResponse({"envs": envs, "bots": list(BOTS)})


async def _new_table(request: Request):
    data = _obj(await _body(request, MAX_BODY))
    unknown = sorted(set(data) - {"env", "options", "seats", "episode", "seed"})
    if unknown:
        raise BadRequest(f"unknown field(s) {unknown}; allowed: env, options, seats, episode, seed")
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise BadRequest(f"options must be an object, got {type(options).__name__}")
    seats = data.get("seats")
    if seats is not None and not isinstance(seats, list):
        raise BadRequest(f"seats must be a list, got {type(seats).__name__}")
    t = await run_in_threadpool(Table, data.get("env"), options, seats, data.get("episode", "deal"),
                                data.get("seed"))
    tid = request.app.state.tables.add(t)
    return JSONResponse({"table": tid, "tokens": {str(q): tok for q, tok in t.tokens.items()},
                         "humans": t.humans, "players": t.game.num_players})


async def _locked(t: Table, fn):
    """``fn()`` under the table's lock, in a worker thread: the lock may be held by a bot that is thinking,
    and a table that waits holds up no other table."""
    def work():
        with t.lock:
            return fn()
    return await run_in_threadpool(work)


def _since(value) -> int:
    return value if type(value) is int else 0


async def _get_table(request: Request):
    t = _table(request)
    viewer = t.check_viewer(_int_param(request, "seat"), request.query_params.get("token"))
    since = _int_param(request, "since", 0)
    return JSONResponse(await _locked(t, lambda: t.view(viewer, since)))


async def _move(request: Request):
    t = _table(request)
    data = _obj(await _body(request, MAX_BODY))
    seat = _seat(data.get("seat"))
    if seat is None:
        raise BadRequest("a move needs your seat")
    viewer = t.check_viewer(seat, data.get("token"))
    mv = data.get("move")
    if not isinstance(mv, (str, int)) or isinstance(mv, bool):
        raise BadRequest(f"move must be the move's text or its action id, got {mv!r}")
    expect = data.get("expect")
    if expect is not None and type(expect) is not int:
        raise BadRequest(f"expect must be the step number you saw, got {expect!r}")
    since = _since(data.get("since", 0))

    def work():
        t.human_move(viewer, mv, expect)
        return t.view(viewer, since)
    return JSONResponse(await _locked(t, work))


async def _advance(request: Request):
    t = _table(request)
    data = _obj(await _body(request, MAX_BODY))
    viewer = t.check_viewer(_seat(data.get("seat")), data.get("token"))
    n = data.get("n", 1)
    if type(n) is not int or not 1 <= n <= MAX_ADVANCE:
        raise BadRequest(f"n must be an int 1..{MAX_ADVANCE}, got {n!r}")
    since = _since(data.get("since", 0))

    def work():
        t.advance(n)
        return t.view(viewer, since)
    return JSONResponse(await _locked(t, work))


async def _hint(request: Request):
    t = _table(request)
    seat = _int_param(request, "seat")
    if seat is None or seat not in t.tokens:
        raise BadRequest("hints are for a human seat: give seat and token", 403)
    t.check_viewer(seat, request.query_params.get("token"))
    return JSONResponse(await _locked(t, lambda: hints(t, seat)))


async def _record(request: Request):
    t = _table(request)
    t.check_viewer(_int_param(request, "seat"), request.query_params.get("token"))

    def work():
        if t.humans and not t.state.terminal:
            raise BadRequest("the record shows every hand: it is given once the game is over", 409)
        return t.record()
    rec = await _locked(t, work)
    name = f"{t.env_name}-{t.seed}.json"
    return JSONResponse(rec, headers={"Content-Disposition": f'attachment; filename="{name}"'})


async def _new_replay(request: Request):
    data = await _raw_body(request, MAX_RECORD)      # read by kozel_env.replay.parse, as a record file is
    expect = request.query_params.get("env") or None
    r = await run_in_threadpool(Replay, data, expect)
    rid = request.app.state.replays.add(r)
    return JSONResponse({"replay": rid, "env": r.env_name, "steps": len(r.states) - 1})


async def _get_replay(request: Request):
    r = request.app.state.replays.get(request.path_params["rid"])
    return JSONResponse(r.view(_int_param(request, "step", 0), _int_param(request, "seat")))


async def _bad_request(request: Request, exc: BadRequest):
    return JSONResponse({"error": str(exc)}, status_code=exc.status)


async def _http_error(request: Request, exc: HTTPException):
    return JSONResponse({"error": f"{exc.detail}: {request.method} {request.url.path}"},
                        status_code=exc.status_code)


ROUTES = [
    Route("/", _index),
    Route("/api/games", _games),
    Route("/api/tables", _new_table, methods=["POST"]),
    Route("/api/tables/{tid}", _get_table),
    Route("/api/tables/{tid}/move", _move, methods=["POST"]),
    Route("/api/tables/{tid}/advance", _advance, methods=["POST"]),
    Route("/api/tables/{tid}/hint", _hint),
    Route("/api/tables/{tid}/record", _record),
    Route("/api/replays", _new_replay, methods=["POST"]),
    Route("/api/replays/{rid}", _get_replay),
    Mount("/static", StaticFiles(directory=STATIC), name="static"),
]
"""The endpoints of the module docstring; each handler finds its app's stores in ``request.app.state``."""


def create_app(max_tables: int = 200, ttl: float = 1800.0, max_replays: int = 50) -> Starlette:
    """The ASGI app with its own table store (``max_tables``, idle ``ttl`` seconds) and replay store."""
    app = Starlette(routes=ROUTES, exception_handlers={BadRequest: _bad_request, HTTPException: _http_error})
    app.state.tables = Tables(max_tables, ttl)
    app.state.replays = Tables(max_replays, ttl)
    return app


def main(argv=None) -> None:
    """``python -m agents.web`` / ``kozel-web``: serve the web table and print its URL."""
    import uvicorn

    ap = argparse.ArgumentParser(prog="python -m agents.web", description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine)")
    ap.add_argument("--port", type=int, default=8000, help="port (0: any free one)")
    ap.add_argument("--record", default=None, help="a match record (JSON) to open for replay")
    ap.add_argument("--max-tables", type=int, default=200)
    ap.add_argument("--ttl", type=float, default=1800.0, help="seconds an idle table is kept")
    args = ap.parse_args(argv)
    app = create_app(args.max_tables, args.ttl)
    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # inherited by every connection: no 40 ms Nagle waits
    sock.bind((args.host, args.port))
    host, port = sock.getsockname()[:2]
    url = f"http://{host if ':' not in host else f'[{host}]'}:{port}/"
    print(f"kozel web table: {url}", flush=True)
    if args.record:
        try:
            rid = app.state.replays.add(Replay(load_record(args.record)))
        except (InvalidRecordError, BadRequest) as e:
            sys.exit(f"cannot open {args.record}: {e}")
        print(f"replay of {args.record}: {url}#replay={rid}", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_keep_alive=KEEP_ALIVE))
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
