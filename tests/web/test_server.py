"""Every endpoint of the web table through an ASGI client: the answers, and bad input answered with a 4xx and a
clear message that changes nothing."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from kozel_env.registry import ENVIRONMENTS

httpx = pytest.importorskip("httpx", reason="needs the web extra: pip install -e '.[web]'")


def _new(client, env="dominoes_v0", seats=None, **kw):
    body = {"env": env, "episode": "deal", "seed": 5, **kw}
    if seats is not None:
        body["seats"] = seats
    r = client.post("/api/tables", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def _view(client, t, seat=0, **params):
    return client.get(f"/api/tables/{t['table']}", params={"seat": seat, "token": t["tokens"][str(seat)], **params})


def _play_to_my_turn(client, t, seat=0):
    """Let the bots move until the human seat is to move (or the deal is over); returns the view."""
    tok = t["tokens"][str(seat)]
    v = _view(client, t, seat).json()
    while v["bot_to_move"] and not v["terminal"]:
        v = client.post(f"/api/tables/{t['table']}/advance", json={"seat": seat, "token": tok, "n": 50}).json()
    return v


def test_the_page_and_its_static_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "<script src=\"/static/app.js\">" in page.text
    for name in ("app.js", "draw.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200


def test_games_lists_every_environment_its_option_sets_and_the_bots(client):
    data = client.get("/api/games").json()
    assert list(data["envs"]) == list(ENVIRONMENTS)
    assert data["envs"]["boneyard_v0"]["players"] == [2, 3, 4, 4]
    assert {"random", "normal", "expert", "rl"} <= set(data["bots"])


@pytest.mark.parametrize("env_name", list(ENVIRONMENTS))
def test_a_deal_of_every_game_is_played_through_the_api(client, env_name):
    t = _new(client, env_name, seats=None)
    tok = t["tokens"]["0"]
    for _ in range(200):
        v = _play_to_my_turn(client, t)
        if v["terminal"]:
            break
        r = client.post(f"/api/tables/{t['table']}/move",
                        json={"seat": 0, "token": tok, "move": v["legal"][0]["move"], "expect": v["steps"]})
        assert r.status_code == 200, r.text
    assert v["terminal"] and len(v["results"]) == 1 and v["match"] is not None


def test_ids_and_tokens_are_unguessable_and_distinct(client):
    a, b = _new(client), _new(client)
    assert a["table"] != b["table"] and len(a["table"]) >= 20 and len(a["tokens"]["0"]) >= 20
    assert a["tokens"]["0"] != b["tokens"]["0"]


def test_the_view_needs_the_seats_token(client):
    t = _new(client)
    tid = t["table"]
    assert client.get(f"/api/tables/{tid}", params={"seat": 0, "token": "nope"}).status_code == 403
    assert client.get(f"/api/tables/{tid}", params={"seat": 0}).status_code == 403
    r = client.get(f"/api/tables/{tid}", params={"seat": 1, "token": t["tokens"]["0"]})
    assert r.status_code == 403 and "bot" in r.json()["error"]
    r = client.get(f"/api/tables/{tid}")
    assert r.status_code == 403 and "spectator" in r.json()["error"]
    assert _view(client, t).status_code == 200


def test_a_bots_only_table_is_watched_as_any_seat_or_as_the_spectator(client):
    t = _new(client, seats=["normal"] * 4)
    tid = t["table"]
    assert t["tokens"] == {}
    spectator = client.get(f"/api/tables/{tid}").json()
    assert sorted(spectator["hands"]) == ["0", "1", "2", "3"]
    seat2 = client.get(f"/api/tables/{tid}", params={"seat": 2}).json()
    assert list(seat2["hands"]) == ["2"] and "??" in seat2["text"]
    v = client.post(f"/api/tables/{tid}/advance", json={"n": 3}).json()
    assert v["steps"] == 4 and len(v["log"]) == 4


def test_since_returns_only_the_new_log_entries(client):
    t = _new(client, seats=["normal"] * 4)
    tid = t["table"]
    client.post(f"/api/tables/{tid}/advance", json={"n": 5})
    v = client.get(f"/api/tables/{tid}", params={"since": 4}).json()
    assert v["steps"] == 6 and [e["i"] for e in v["log"]] == [4, 5]
    assert client.get(f"/api/tables/{tid}", params={"since": -1}).status_code == 400


def test_an_unknown_table_is_404(client):
    r = client.get("/api/tables/not-a-table", params={"seat": 0, "token": "x"})
    assert r.status_code == 404 and "not-a-table" in r.json()["error"]
    assert client.post("/api/tables/nope/move", json={}).status_code == 404


def _unchanged(client, t, before):
    after = _view(client, t)
    assert after.status_code == 200 and after.content == before.content


def test_an_illegal_move_is_422_names_the_legal_moves_and_changes_nothing(client):
    t = _new(client)
    v = _play_to_my_turn(client, t)
    before = _view(client, t)
    legal = {m["move"] for m in v["legal"]}
    bad = next(h for h in v["hands"]["0"] if h not in legal and not any(m.startswith(h) for m in legal))
    r = client.post(f"/api/tables/{t['table']}/move", json={"seat": 0, "token": t["tokens"]["0"], "move": bad})
    assert r.status_code == 422
    assert bad in r.json()["error"] and "legal moves" in r.json()["error"]
    _unchanged(client, t, before)


def test_a_stale_move_is_409_and_changes_nothing(client):
    t = _new(client)
    v = _play_to_my_turn(client, t)
    before = _view(client, t)
    r = client.post(f"/api/tables/{t['table']}/move",
                    json={"seat": 0, "token": t["tokens"]["0"], "move": v["legal"][0]["move"], "expect": 0})
    assert r.status_code == 409 and "stale" in r.json()["error"]
    _unchanged(client, t, before)


def test_a_move_out_of_turn_is_409(client):
    t = _new(client, seats=["human", "human", "normal", "normal"])
    v = _view(client, t).json()
    other = 1 - v["to_move"] if v["to_move"] in (0, 1) else 0
    r = client.post(f"/api/tables/{t['table']}/move",
                    json={"seat": other, "token": t["tokens"][str(other)], "move": "11"})
    assert r.status_code == 409 and "turn" in r.json()["error"]


@pytest.mark.parametrize("body, status, words", [
    (b"{not json", 400, "malformed JSON"),
    (b"[1, 2]", 400, "JSON object"),
    (json.dumps({"seat": 0, "token": "wrong", "move": "11"}).encode(), 403, "token"),
    (json.dumps({"token": "x", "move": "11"}).encode(), 400, "seat"),
    (json.dumps({"seat": "0", "move": "11"}).encode(), 400, "seat"),
])
def test_bad_move_requests_are_refused_and_change_nothing(client, body, status, words):
    t = _new(client)
    _play_to_my_turn(client, t)
    before = _view(client, t)
    r = client.post(f"/api/tables/{t['table']}/move", content=body, headers={"content-type": "application/json"})
    assert r.status_code == status and words in r.json()["error"], r.text
    _unchanged(client, t, before)


def test_a_move_with_the_wrong_tokens_seat_is_refused(client):
    t = _new(client)
    v = _play_to_my_turn(client, t)
    r = client.post(f"/api/tables/{t['table']}/move",
                    json={"seat": 0, "token": t["tokens"]["0"] + "x", "move": v["legal"][0]["move"]})
    assert r.status_code == 403


@pytest.mark.parametrize("body, words", [
    ({"env": "chess_v0"}, "unknown game 'chess_v0'"),
    ({"env": "boneyard_v0", "options": {"num_players": 9}}, "num_players"),
    ({"env": "dominoes_v0", "options": {"episode": "match"}}, "server's"),
    ({"env": "dominoes_v0", "seats": ["human", "normal"]}, "has 4 seats"),
    ({"env": "dominoes_v0", "seats": ["human", "wizard", "normal", "normal"]}, "unknown seat 'wizard'"),
    ({"env": "dominoes_v0", "seats": ["human", "checkpoint:x.txt", "normal", "normal"]}, ".npz"),
    ({"env": "dominoes_v0", "seats": ["human", "checkpoint:/no/such.npz", "normal", "normal"]}, "cannot build"),
    ({"env": "dominoes_v0", "episode": "forever"}, "episode"),
    ({"env": "dominoes_v0", "seed": -1}, "seed"),
    ({"env": "dominoes_v0", "colour": "red"}, "unknown field"),
])
def test_a_bad_table_request_is_400_and_makes_no_table(client, body, words):
    before = len(client.app.state.tables)
    r = client.post("/api/tables", json=body)
    assert r.status_code == 400 and words in r.json()["error"], r.text
    assert len(client.app.state.tables) == before


def test_an_oversized_body_is_413(client):
    r = client.post("/api/tables", content=b"{" + b" " * (70 * 1024) + b"}",
                    headers={"content-type": "application/json"})
    assert r.status_code == 413 and "limit" in r.json()["error"]
    r = client.post("/api/replays", content=b"[" + b"0," * (3 * 1024 * 1024) + b"0]")
    assert r.status_code == 413


def test_an_oversized_body_without_a_length_is_cut_off_at_the_limit(client):
    def chunks():
        for _ in range(80):
            yield b" " * 1024

    r = client.post("/api/tables", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and "over the limit" in r.json()["error"]


def test_advance_is_bounded_and_needs_a_seat_at_a_human_table(client):
    t = _new(client)
    assert client.post(f"/api/tables/{t['table']}/advance", json={"n": 1}).status_code == 403
    r = client.post(f"/api/tables/{t['table']}/advance", json={"seat": 0, "token": t["tokens"]["0"], "n": 500})
    assert r.status_code == 400 and "1..50" in r.json()["error"]


def test_the_record_is_given_at_a_human_table_only_once_the_game_is_over(client):
    t = _new(client)
    params = {"seat": 0, "token": t["tokens"]["0"]}
    r = client.get(f"/api/tables/{t['table']}/record", params=params)
    assert r.status_code == 409 and "every hand" in r.json()["error"]
    tok = t["tokens"]["0"]
    while True:
        v = _play_to_my_turn(client, t)
        if v["terminal"]:
            break
        client.post(f"/api/tables/{t['table']}/move", json={"seat": 0, "token": tok, "move": v["legal"][0]["move"]})
    r = client.get(f"/api/tables/{t['table']}/record", params=params)
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    assert r.json()["finished"] and r.json()["env"] == "dominoes_v0"


def _watched_record(client, env="queens_and_jacks_v0", n=12) -> dict:
    t = _new(client, env, seats=["normal"] * 4)
    client.post(f"/api/tables/{t['table']}/advance", json={"n": n})
    return client.get(f"/api/tables/{t['table']}/record").json()


def test_a_record_replays_forward_and_back_as_any_viewer(client):
    rec = _watched_record(client)
    r = client.post("/api/replays", content=json.dumps(rec))
    assert r.status_code == 200 and r.json()["steps"] == 12
    rid = r.json()["replay"]
    v5 = client.get(f"/api/replays/{rid}", params={"step": 5}).json()
    v6 = client.get(f"/api/replays/{rid}", params={"step": 6}).json()
    back = client.get(f"/api/replays/{rid}", params={"step": 5}).json()
    assert v5 == back and v5["text"] != v6["text"] and len(v6["moves"]) == 6
    seat1 = client.get(f"/api/replays/{rid}", params={"step": 5, "seat": 1}).json()
    assert list(seat1["hands"]) == ["1"] and all("move" not in m for m in seat1["moves"] if m["seat"] != 1)
    assert client.get(f"/api/replays/{rid}", params={"step": 13}).status_code == 400
    assert client.get("/api/replays/nope").status_code == 404


@pytest.mark.parametrize("edit, status, words", [
    (lambda r: r.update(format="other/1"), 400, "format='other/1' is not allowed"),
    (lambda r: r.update(env="chess_v0"), 400, "chess_v0"),
    (lambda r: r["events"][3].update(action=0), 400, "does not rebuild"),
    (lambda r: r.pop("engine_seed"), 400, "missing key(s) ['engine_seed']"),
])
def test_a_bad_record_is_refused(client, edit, status, words):
    rec = _watched_record(client)
    edit(rec)
    r = client.post("/api/replays", content=json.dumps(rec))
    assert r.status_code == status and words in r.json()["error"], r.text


@pytest.mark.parametrize("body, words", [
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (b"", "empty"),
    (b'{"format": "kozel_env.record/1", "env": ', "ends early"),
    (b"\xff\xfe{}", "not UTF-8"),
    (b"[1, 2]", "a record is a JSON object"),
    (b'{"x": NaN}', "not a JSON number"),
    (b'{"n": ' + b"9" * 5000 + b"}", "4300 digits"),
], ids=["deep", "empty", "truncated", "not-utf8", "list", "nan", "huge-number"])
def test_an_upload_that_is_not_a_record_is_one_clear_400(client, body, words):
    """A record upload is read as a record file is (kozel_env.replay.parse): one line, never a 500."""
    before = len(client.app.state.replays)
    r = client.post("/api/replays", content=body)
    assert r.status_code == 400 and words in r.json()["error"] and "\n" not in r.json()["error"], r.text
    assert len(client.app.state.replays) == before


def test_a_record_of_another_game_is_refused_where_a_game_is_expected(client):
    rec = _watched_record(client)
    r = client.post("/api/replays", params={"env": "dominoes_v0"}, content=json.dumps(rec))
    assert r.status_code == 400 and "queens_and_jacks_v0, not of dominoes_v0" in r.json()["error"]


def test_hints_give_the_networks_probabilities_and_the_experts_move(client):
    t = _new(client, "queens_and_jacks_v0")
    v = _play_to_my_turn(client, t)
    r = client.get(f"/api/tables/{t['table']}/hint", params={"seat": 0, "token": t["tokens"]["0"]})
    assert r.status_code == 200, r.text
    h = r.json()
    legal = {m["move"] for m in v["legal"]}
    assert {d["move"] for d in h["policy"]} == legal
    assert abs(sum(d["p"] for d in h["policy"]) - 1) < 1e-3
    assert h["expert"] in legal
    r = client.get(f"/api/tables/{t['table']}/hint", params={"seat": 0, "token": "bad"})
    assert r.status_code == 403


def test_unknown_api_paths_answer_json_404(client):
    r = client.get("/api/nothing")
    assert r.status_code == 404 and "/api/nothing" in r.json()["error"]


def test_python_m_agents_web_prints_its_url_and_serves():
    proc = subprocess.Popen([sys.executable, "-m", "agents.web", "--port", "0"], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = proc.stdout.readline()
        assert line.startswith("kozel web table: http://127.0.0.1:")
        url = line.split(": ", 1)[1].strip()
        assert httpx.get(url + "api/games", timeout=10).status_code == 200
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_watched_match_ends_with_every_deal_on_the_sheet_and_the_goats(client):
    t = _new(client, "dominoes_ffa_v0", seats=["random"] * 2, episode="match")
    v = client.get(f"/api/tables/{t['table']}").json()
    while not v["terminal"]:
        v = client.post(f"/api/tables/{t['table']}/advance", json={"n": 50}).json()
    assert v["match"]["deals"] == len(v["results"]) > 1
    assert v["match"]["goats"] == v["match"]["losers"] and v["match"]["ended_by"] == "target"


def test_a_thinking_bot_does_not_hold_up_other_tables(client):
    busy, free = _new(client, seats=["normal"] * 4), _new(client, seats=["normal"] * 4)
    table = client.app.state.tables.get(busy["table"])
    table.lock.acquire()  # as while a bot of that table searches
    waiting = threading.Thread(target=client.get, args=(f"/api/tables/{busy['table']}",))
    waiting.start()
    release = threading.Timer(3.0, table.lock.release)
    release.start()
    time.sleep(0.2)  # the busy table's request is waiting for its lock
    t0 = time.monotonic()
    r = client.get(f"/api/tables/{free['table']}")
    took = time.monotonic() - t0
    release.join()
    waiting.join()
    assert r.status_code == 200 and took < 2.0, took


def test_a_record_given_on_the_command_line_is_opened_for_replay(client, tmp_path):
    path = tmp_path / "match.json"
    path.write_text(json.dumps(_watched_record(client, n=7)))
    proc = subprocess.Popen([sys.executable, "-m", "agents.web", "--port", "0", "--record", str(path)],
                            stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        proc.stdout.readline()
        line = proc.stdout.readline()
        assert line.startswith(f"replay of {path}: http://127.0.0.1:") and "#replay=" in line, line
        url, rid = line.split(": ", 1)[1].strip().split("#replay=")
        r = httpx.get(f"{url}api/replays/{rid}", params={"step": 7}, timeout=10)
        assert r.status_code == 200 and r.json()["steps"] == 7
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize("env_name", list(ENVIRONMENTS))
def test_a_whole_match_of_every_game_is_played_by_a_human_seat(client, env_name):
    """Issue 32: a whole match (episode="match", the default rules) by the moves a click sends, to its end:
    every deal on the sheet, the winners and the goats."""
    n = client.get("/api/games").json()["envs"][env_name]["players"][0]      # the default rules' seats
    t = _new(client, env_name, seats=["human"] + ["random"] * (n - 1), episode="match")
    tok, moves = t["tokens"]["0"], 0
    while True:
        v = _play_to_my_turn(client, t)
        if v["terminal"]:
            break
        r = client.post(f"/api/tables/{t['table']}/move",
                        json={"seat": 0, "token": tok, "move": v["legal"][-1]["move"], "expect": v["steps"]})
        assert r.status_code == 200, r.text
        moves += 1
        assert moves < 5000, "the match did not end"
    m = v["match"]
    assert m["deals"] == len(v["results"]) >= 1 and m["winners"] and m["ended_by"] != "single_deal"
    assert set(m["goats"]) <= set(m["losers"])      # six_of_spades_v0's rules name no goats (RULES C3)
    assert [r["deal"] for r in v["results"]] == list(range(1, m["deals"] + 1))


@pytest.mark.parametrize("text, words", [("[" * 100_000, "nested too deeply"), ("{}", "format")],
                         ids=["deep", "no-format"])
def test_a_bad_record_on_the_command_line_is_one_line_and_no_server(tmp_path, text, words):
    path = tmp_path / "bad.json"
    path.write_text(text)
    out = subprocess.run([sys.executable, "-m", "agents.web", "--port", "0", "--record", str(path)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.strip().startswith(f"cannot open {path}:") and words in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_an_idle_kept_alive_connection_outlives_the_clients_own_expiry():
    """The server keeps an idle connection open longer (KEEP_ALIVE) than a client's idle expiry (httpx: 5 s),
    so the client closes first and no request races the server's close (a ReadError under load with
    uvicorn's 5 s default)."""
    import socket

    proc = subprocess.Popen([sys.executable, "-m", "agents.web", "--port", "0"], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        host, port = proc.stdout.readline().split("//", 1)[1].strip().rstrip("/").split(":")
        for _ in range(100):              # the URL is printed once bound; uvicorn listens a moment later
            try:
                s = socket.create_connection((host, int(port)), timeout=10)
                break
            except ConnectionRefusedError:
                time.sleep(0.1)
        with s:
            ask = f"GET /api/games HTTP/1.1\r\nHost: {host}\r\nConnection: keep-alive\r\n\r\n".encode()
            for wait in (0, 6):           # past uvicorn's default 5 s and httpx's own expiry
                time.sleep(wait)
                s.sendall(ask)
                head = s.recv(64)
                assert head.startswith(b"HTTP/1.1 200"), (wait, head)
                s.settimeout(0.5)
                try:
                    while s.recv(65536):
                        pass
                except TimeoutError:
                    pass
                s.settimeout(10)
    finally:
        proc.terminate()
        proc.wait(10)
