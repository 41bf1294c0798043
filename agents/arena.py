"""The arena: agents against each other on duplicate deals, with confidence intervals and an Elo table.

    python -m agents.arena --env queens_and_jacks_v0 --agents random easy normal --deals 200
    python -m agents.arena --env dominoes_v0 --agents normal hard --episode match --json out.json --md out.md

From Python (what the RL code uses)::

    from agents.arena import evaluate
    res = evaluate("dominoes_v0", {"mine": my_factory, "normal": "normal"}, deals=200, seed=0)
    res["pairs"][0]["margin"]      # {"mean": ..., "lo": ..., "hi": ...}: points per deal, mine minus normal
    res["pairs"][0]["score_a"]     # episode win rate of "mine" (draws count one half), with its 95% CI
    res["elo"]                     # {"mine": ..., "normal": ...}

**Agents** are given as a list of specs (``"normal"``, ``"pimc:n=16"``; see :mod:`agents.base`) or a dict
``label -> spec or factory``. A factory is any callable ``factory(env_name, seed, env_options) -> agent``
returning an object with ``act(observation, action_mask)`` (a trained policy, say); it is called once per
seat per episode, so keep heavy things (networks) cached outside it. An agent with ``needs_state = True``
also gets ``state=`` and ``seat=`` (see :func:`agents.base.decide`).

**Duplicate deals.** Every pair of agents A, B plays ``deals`` deal seeds. Each seed is played once per
seating: A on the even seats and B on the odd ones, then the reverse, and every rotation of both (two
seatings with four seats or two, six with three), so both agents hold the same cards or tiles in the same
seats and the luck of the deal cancels. One seed with all its seatings is one *duplicate set*: the sets are
independent, so the 95% confidence intervals (normal approximation, 1.96 standard errors) are computed over
sets, which is what makes the comparison tight.

**What is measured** (per pair, A first):

* ``score_a``: the episode outcome of A's seats against B's (``returns()`` of the engine, +1 winners /
  -1 goats): 1 for a win, 0.5 when equal, 0 for a loss, averaged per set; with ``episode="deal"`` it is
  the deal's result, with ``episode="match"`` the match's;
* ``margin``: per deal, the mean ``seat_points`` of A's seats minus B's (the deal's points from the
  engine's ``last_result``: minus what a side wrote in the penalty games, plus what it won in
  queens-and-jacks), averaged over every deal of the set's episodes;
* ``points``: each agent's mean ``seat_points`` per deal;
* ``ms_per_decision``: each agent's thinking time (process CPU time per decision).

**Elo** is fitted to all pairwise episode scores (Bradley-Terry by maximum likelihood, one virtual draw per
pair so that a clean sweep stays finite), the first agent anchored at 1000.

Games run in parallel processes (``processes``, default: the CPU count) with a progress bar on stderr;
results do not depend on the number of processes (every episode's seeds are derived from ``seed``).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from itertools import combinations

from kozel_env.core.rng import Rng
from kozel_env.registry import ENVIRONMENTS, load

from .base import decide
from .registry import make_agent
from .stats import format_ci, mean_ci, rate_ci


# ------------------------------------------------------------------ seatings and ratings
def seatings(num_players: int) -> list:
    """Distinct seatings of two agents (0 = A, 1 = B) for a duplicate set: the alternating pattern, its
    complement and all their rotations."""
    out = []
    for base in ([i % 2 for i in range(num_players)], [1 - i % 2 for i in range(num_players)]):
        for r in range(num_players):
            s = tuple(base[(i + r) % num_players] for i in range(num_players))
            if s not in out:
                out.append(s)
    return out


def describe_pair(pair: dict) -> str:
    """One pairing of :func:`evaluate` as text: A's score and points margin per deal, with their intervals."""
    return f"score {format_ci(pair['score_a'], pct=True)}, points per deal {format_ci(pair['margin'])}"


def elo_table(labels: list, results: list, anchor: float = 1000.0) -> dict:
    """Bradley-Terry ratings on the Elo scale from ``results``: ``(a, b, score_of_a, games)`` tuples. One
    virtual draw per pair keeps sweeps finite; the first label is anchored at ``anchor``."""
    idx = {lab: i for i, lab in enumerate(labels)}
    k = len(labels)
    wins = [[0.0] * k for _ in range(k)]
    games = [[0.0] * k for _ in range(k)]
    for a, b, s, g in results:
        i, j = idx[a], idx[b]
        wins[i][j] += s * g + 0.5
        wins[j][i] += (1 - s) * g + 0.5
        games[i][j] += g + 1
        games[j][i] += g + 1
    gamma = [1.0] * k
    for _ in range(2000):  # MM algorithm (Hunter 2004)
        new = []
        for i in range(k):
            w = sum(wins[i])
            d = sum(games[i][j] / (gamma[i] + gamma[j]) for j in range(k) if j != i and games[i][j])
            new.append(w / d if d else gamma[i])
        g0 = new[0]
        new = [x / g0 for x in new]
        done = max(abs(math.log(x) - math.log(y)) for x, y in zip(new, gamma)) < 1e-10
        gamma = new
        if done:
            break
    return {lab: anchor + 400.0 * math.log10(gamma[idx[lab]]) for lab in labels}


def _mix(*xs) -> int:
    h = 0x9E3779B97F4A7C15
    for x in xs:
        h = Rng(h ^ (int(x) & ((1 << 64) - 1))).next_u64()
    return h


# ------------------------------------------------------------------ playing
def _build(entry, env_name: str, seed: int, env_options: dict):
    if isinstance(entry, str):
        return make_agent(entry, env_name, seed=seed, env_options=env_options)
    return entry(env_name, seed, env_options)


def play_episode(env, seat_agents: list, seed: int, reset_options: dict | None = None,
                 clock: list | None = None) -> tuple:
    """One episode with ``seat_agents[seat]``; returns ``(returns per seat, [seat_points per deal], decisions
    per seat)``. ``clock`` (per seat, seconds) is increased by each agent's thinking time."""
    env.reset(seed=seed, options=reset_options)
    for a in seat_agents:
        if hasattr(a, "reset"):
            a.reset()
    u = env.unwrapped
    moves = [0] * len(seat_agents)
    names = u.agent_name_mapping
    perf = time.process_time  # CPU time: thinking time stays honest on a busy machine
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = names[name]
        t0 = perf()
        action = decide(seat_agents[seat], env, obs["observation"], obs["action_mask"])
        if clock is not None:
            clock[seat] += perf() - t0
        moves[seat] += 1
        env.step(action)
    st = u.game_state
    deals = [list(res["seat_points"]) for res in st.results]  # every deal of the match, none lost
    return list(st.returns()), deals, moves


_JOB: dict = {}


def _run_set(task) -> dict:
    """All seatings of one deal seed for one pair of agents (a duplicate set)."""
    pair_index, k = task
    job = _JOB
    a_label, b_label = job["pairs"][pair_index]
    entries = job["entries"]
    env = job.get("env_obj")
    if env is None:
        env = job["env_obj"] = load(job["env_name"]).env(episode=job["episode"], **job["env_options"])
    n = len(env.possible_agents)
    deal_seed = _mix(job["seed"], k)
    score = margin = 0.0
    deals_n = 0
    pts = [0.0, 0.0]
    clock = [0.0, 0.0]
    moves = [0, 0]
    games = 0
    for r, seating in enumerate(seatings(n)):
        labels = (a_label, b_label)
        agents = [_build(entries[labels[who]], job["env_name"], _mix(deal_seed, r, seat, pair_index),
                         job["env_options"]) for seat, who in enumerate(seating)]
        c = [0.0] * n
        rets, deals, mv = play_episode(env, agents, deal_seed, job["reset_options"], c)
        sa = [s for s in range(n) if seating[s] == 0]
        sb = [s for s in range(n) if seating[s] == 1]
        ra = sum(rets[s] for s in sa) / len(sa)
        rb = sum(rets[s] for s in sb) / len(sb)
        score += 1.0 if ra > rb else (0.5 if ra == rb else 0.0)
        for d in deals:
            pa = sum(d[s] for s in sa) / len(sa)
            pb = sum(d[s] for s in sb) / len(sb)
            margin += pa - pb
            pts[0] += pa
            pts[1] += pb
        deals_n += len(deals)
        for s in range(n):
            clock[seating[s]] += c[s]
            moves[seating[s]] += mv[s]
        games += 1
    dn = max(deals_n, 1)
    return {"pair": pair_index, "set": k, "score": score / games, "margin": margin / dn,
            "pa": pts[0] / dn, "pb": pts[1] / dn, "games": games, "deals": deals_n,
            "clock": clock, "moves": moves}


def _progress(total: int, desc: str, enabled: bool):
    if not enabled:
        return None
    try:
        from tqdm import tqdm

        return tqdm(total=total, desc=desc, file=sys.stderr, smoothing=0.05)
    except ImportError:  # pragma: no cover - tqdm is in the agents extra
        class Bar:
            def __init__(self):
                self.n = 0

            def update(self, k=1):
                self.n += k
                print(f"\r{desc}: {self.n}/{total}", end="", file=sys.stderr)

            def close(self):
                print(file=sys.stderr)
        return Bar()


def evaluate(env_name: str, agents, deals: int = 100, seed: int = 0, env_options: dict | None = None,
             episode: str = "deal", processes: int | None = None, progress: bool = True,
             reset_options: dict | None = None) -> dict:
    """Play every pair of ``agents`` on ``deals`` duplicate sets of ``env_name``; see the module doc.

    ``agents``: list of specs, or dict ``label -> spec or factory``. ``episode``: "deal" (one deal per
    episode, the default: the most evidence per second) or "match". ``env_options``: rules options of the
    environment. ``reset_options``: the env's ``reset(options=...)`` for every episode. Returns a dict
    (JSON-ready): ``pairs`` (one entry per pair with ``score_a``, ``margin``, ``points``, ...), ``elo``,
    ``ms_per_decision`` and the settings.
    """
    if env_name not in ENVIRONMENTS:
        raise KeyError(f"unknown environment {env_name!r}; known: {sorted(ENVIRONMENTS)}")
    if not isinstance(agents, dict):
        agents = {str(a): a for a in agents}
    labels = list(agents)
    if len(labels) < 2:
        raise ValueError("the arena needs at least two agents")
    env_options = dict(env_options or {})
    for entry in agents.values():  # fail early on bad specs
        _build(entry, env_name, 0, env_options)
    pairs = list(combinations(labels, 2))
    _JOB.clear()
    _JOB.update(env_name=env_name, env_options=env_options, episode=episode, seed=seed, entries=agents,
                pairs=pairs, reset_options=reset_options)
    tasks = [(p, k) for k in range(deals) for p in range(len(pairs))]
    procs = processes if processes is not None else (os.cpu_count() or 1)
    procs = max(1, min(procs, len(tasks)))
    bar = _progress(len(tasks), f"{env_name} {' / '.join(labels)}", progress)
    t0 = time.perf_counter()
    rows = []
    if procs == 1:
        for t in tasks:
            rows.append(_run_set(t))
            if bar:
                bar.update(1)
    else:
        import multiprocessing as mp

        ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
        with ctx.Pool(procs) as pool:
            for row in pool.imap_unordered(_run_set, tasks, chunksize=1):
                rows.append(row)
                if bar:
                    bar.update(1)
    if bar:
        bar.close()
    _JOB.clear()
    seconds = time.perf_counter() - t0
    out_pairs = []
    clock = dict.fromkeys(labels, 0.0)
    moves = dict.fromkeys(labels, 0)
    elo_in = []
    for p, (a, b) in enumerate(pairs):
        mine = sorted((r for r in rows if r["pair"] == p), key=lambda r: r["set"])
        games = sum(r["games"] for r in mine)
        sc = rate_ci(mean_ci([r["score"] for r in mine]))
        out_pairs.append({
            "a": a, "b": b, "sets": len(mine), "games": games, "deals": sum(r["deals"] for r in mine),
            "score_a": sc,
            "margin": mean_ci([r["margin"] for r in mine]),
            "points": {a: mean_ci([r["pa"] for r in mine]), b: mean_ci([r["pb"] for r in mine])},
        })
        elo_in.append((a, b, sc["mean"], games))
        for r in mine:
            clock[a] += r["clock"][0]
            clock[b] += r["clock"][1]
            moves[a] += r["moves"][0]
            moves[b] += r["moves"][1]
    return {
        "env": env_name, "env_options": env_options, "episode": episode, "deals": deals, "seed": seed,
        "agents": {lab: (e if isinstance(e, str) else getattr(e, "__name__", repr(e))) for lab, e in agents.items()},
        "pairs": out_pairs,
        "elo": elo_table(labels, elo_in),
        "ms_per_decision": {lab: (1000.0 * clock[lab] / moves[lab] if moves[lab] else None) for lab in labels},
        "seconds": seconds, "processes": procs,
    }


# ------------------------------------------------------------------ reports
def markdown(result: dict) -> str:
    """The result as markdown: one row per pair, then the Elo table."""
    ep = result["episode"]
    lines = [f"### {result['env']}" + (f" {result['env_options']}" if result["env_options"] else "")
             + f" -- {result['deals']} duplicate sets per pair, episode = {ep}", "",
             f"| A | B | games | deals | A's {ep} score (95% CI) | points per deal, A - B (95% CI) |",
             "|---|---|---:|---:|---|---|"]
    for p in result["pairs"]:
        lines.append(f"| {p['a']} | {p['b']} | {p['games']} | {p['deals']} | {format_ci(p['score_a'], pct=True)} | "
                     f"{format_ci(p['margin'])} |")
    lines += ["", "| agent | Elo | ms per decision |", "|---|---:|---:|"]
    for lab, e in sorted(result["elo"].items(), key=lambda kv: -kv[1]):
        ms = result["ms_per_decision"][lab]
        lines.append(f"| {lab} | {e:.0f} | {ms:.3f} |" if ms is not None else f"| {lab} | {e:.0f} | - |")
    return "\n".join(lines) + "\n"


def parse_options(items) -> dict:
    """``["key=value", ...]`` (command-line rules options) as a dict of typed values."""
    from .registry import convert

    out = {}
    for it in items or []:
        k, eq, v = it.partition("=")
        if not eq:
            raise SystemExit(f"--opt {it!r}: use key=value")
        out[k] = convert(v)
    return out


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m agents.arena", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", required=True, choices=sorted(ENVIRONMENTS))
    ap.add_argument("--agents", nargs="+", required=True, help="agent specs, e.g. random easy normal hard 'pimc:n=4'")
    ap.add_argument("--deals", type=int, default=100, help="duplicate sets per pair of agents")
    ap.add_argument("--episode", choices=("deal", "match"), default="deal")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--processes", type=int, default=None)
    ap.add_argument("--opt", nargs="*", default=[], help="rules options of the env, key=value")
    ap.add_argument("--json", help="write the result as JSON here")
    ap.add_argument("--md", help="write the markdown table here")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    res = evaluate(args.env, args.agents, deals=args.deals, seed=args.seed, env_options=parse_options(args.opt),
                   episode=args.episode, processes=args.processes, progress=not args.quiet)
    md = markdown(res)
    print(md)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write(md)
    return res


if __name__ == "__main__":
    main()
