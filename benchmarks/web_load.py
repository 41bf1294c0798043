"""Load on the web table: many concurrent bot tables over loopback.

    python benchmarks/web_load.py                      # 50 tables for 60 s
    python benchmarks/web_load.py --tables 80 --duration 120 --bots random

Starts ``python -m agents.web`` on a free loopback port (holding at most one and a half times ``--tables``
tables, so that finished tables make room for their successors), then runs one client per table: each asks the
bots for one move (``POST /advance``) and reads its view since the last step (``GET ?since=``), and deals a new
table when a deal is over (the games in turn). Reports the requests made, their p50/p95 response time, the errors (any
non-2xx answer or failed request: should be 0) and the server's memory (RSS after the warm-up vs at the end:
should be flat).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time

import httpx

from kozel_env.registry import ENVIRONMENTS


def rss_mib(pid: int) -> float:
    """Resident memory of process ``pid`` in MiB (Linux /proc)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def start_server(max_tables: int) -> tuple:
    """``(process, url)`` of a fresh server on a free loopback port."""
    proc = subprocess.Popen([sys.executable, "-m", "agents.web", "--port", "0", "--max-tables", str(max_tables)],
                            stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    line = proc.stdout.readline()
    if not line.startswith("kozel web table: "):
        proc.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    return proc, line.split(": ", 1)[1].strip().rstrip("/")


async def one_table(client: httpx.AsyncClient, k: int, bots: str, seats: dict, stop: float, stats: dict) -> None:
    """Deal after deal at one table (the games in turn, ``seats[game]`` bots), one bot move a request."""
    games = list(ENVIRONMENTS)
    deal = 0

    async def call(method: str, url: str, **kw):
        t0 = time.perf_counter()
        try:
            r = await client.request(method, url, **kw)
        except httpx.HTTPError as e:
            stats["errors"].append(f"{method} {url}: {type(e).__name__} {e}")
            return None
        stats["times"].append(time.perf_counter() - t0)
        if r.status_code >= 300:
            stats["errors"].append(f"{method} {url}: {r.status_code} {r.text[:200]}")
            return None
        return r.json()

    while time.monotonic() < stop:
        env = games[(k + deal) % len(games)]
        deal += 1
        t = await call("POST", "/api/tables", json={"env": env, "episode": "deal", "seats": [bots] * seats[env]})
        if t is None:
            continue
        since, tid = 0, t["table"]
        while time.monotonic() < stop:
            v = await call("POST", f"/api/tables/{tid}/advance", json={"n": 1, "since": since})
            if v is None:
                break
            since = v["steps"]
            v = await call("GET", f"/api/tables/{tid}", params={"since": since})
            if v is None or v["terminal"]:
                stats["deals"] += v is not None
                break


async def run(url: str, tables: int, bots: str, duration: float) -> dict:
    stats = {"times": [], "errors": [], "deals": 0}
    limits = httpx.Limits(max_connections=tables, max_keepalive_connections=tables)
    async with httpx.AsyncClient(base_url=url, timeout=60.0, limits=limits) as client:
        # seats per game, asked once: a table request names one seat choice per seat
        games = (await client.get("/api/games")).json()["envs"]
        seats = {name: g["players"][0] for name, g in games.items()}

        stop = time.monotonic() + duration
        await asyncio.gather(*(one_table(client, k, bots, seats, stop, stats) for k in range(tables)))
    return stats


def percentile(xs: list, q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(prog="python benchmarks/web_load.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=50, help="concurrent bot tables (default 50)")
    ap.add_argument("--duration", type=float, default=60.0, help="seconds of load (default 60)")
    ap.add_argument("--warmup", type=float, default=None,
                    help="seconds before the first RSS reading (default: a quarter of the duration)")
    ap.add_argument("--bots", default="normal", help="the bot at every seat (default normal)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON line")
    args = ap.parse_args(argv)
    proc, url = start_server(args.tables + args.tables // 2 + 2)  # room for finished tables and their successors
    try:
        warmup = args.duration / 4 if args.warmup is None else args.warmup
        first, samples = {}, []

        async def measure():
            async def rss_later():  # after the warm-up, then every tenth of the duration: flat or growing?
                await asyncio.sleep(warmup)
                first["rss"] = rss_mib(proc.pid)
                samples.append(first["rss"])
                while True:
                    await asyncio.sleep(args.duration / 10)
                    samples.append(rss_mib(proc.pid))
            task = asyncio.create_task(rss_later())
            stats = await run(url, args.tables, args.bots, args.duration)
            task.cancel()
            return stats

        t0 = time.monotonic()
        stats = asyncio.run(measure())
        wall = time.monotonic() - t0
        end = rss_mib(proc.pid)
    finally:
        proc.terminate()
        proc.wait(10)
    times = stats["times"]
    out = {"tables": args.tables, "seconds": round(wall, 1), "requests": len(times), "deals": stats["deals"],
           "p50_ms": round(1000 * percentile(times, 0.5), 2), "p95_ms": round(1000 * percentile(times, 0.95), 2),
           "errors": len(stats["errors"]), "rss_start_mib": round(first.get("rss", float("nan")), 1),
           "rss_end_mib": round(end, 1), "rss_samples_mib": [round(x, 1) for x in samples + [end]]}
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{out['tables']} tables, {out['seconds']} s: {out['requests']} requests, {out['deals']} deals; "
              f"p50 {out['p50_ms']} ms, p95 {out['p95_ms']} ms; errors {out['errors']}; "
              f"server RSS {out['rss_start_mib']} MiB after the warm-up, {out['rss_end_mib']} MiB at the end "
              f"(every tenth of the run: {', '.join(map(str, out['rss_samples_mib']))})")
    for e in stats["errors"][:5]:
        print("error:", e, file=sys.stderr)
    return out


if __name__ == "__main__":
    main()
