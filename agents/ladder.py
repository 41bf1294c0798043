"""Reproduce the bot ladder: random < easy < normal < hard < crazy, and the expert over hard and crazy, each
step head to head, every game.

    python -m agents.ladder                                   # every registered game, writes agents/LADDER.md
    python -m agents.ladder --env queens_and_jacks_v0 --deals 400 --pimc-deals 150
    python -m agents.ladder --expert-only                     # only the expert's steps (hard < expert, crazy < expert)
    python -m agents.ladder --speed-only                      # bot speeds only
    python -m pytest -m slow tests/agents/test_ladder.py      # the same measurement as a test (hours)

Each step plays the stronger bot against the weaker one on duplicate deal sets (:mod:`agents.arena`:
the same deals with the seats rotated, one deal per episode) and reports the stronger bot's deal score and
its margin in points per deal, each with a 95% confidence interval; a step is *real* when the margin's
interval lies above zero. ``--deals`` sets are played for the heuristic steps, ``--pimc-deals`` for the
steps with search (default per game family, :data:`PIMC_SETS`). The bot speeds (decisions per second;
milliseconds per decision for the search bots) are
measured in process CPU time, the bot in one seat and ``normal`` in the others.

Results go to ``agents/LADDER.md`` (markdown, for the README) and ``agents/ladder.json``; a run for some
games keeps the others' results from the JSON (``--fresh`` starts over, ``--render`` only rewrites the
markdown). Everything is seeded: the same command gives the same figures. The bots' steps play the
development deals (``--seed``, default ``agents.seeds.DEVELOPMENT``: their presets were chosen on them); the
expert's steps (:data:`EXPERT_STEPS`, :data:`EXPERT_SETS` sets) play the release's table deals
(``agents.seeds.TABLE``), which no setting was chosen on.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import time
from pathlib import Path

from kozel_env.registry import ENVIRONMENTS, load

from .arena import evaluate, format_ci
from .base import decide
from .registry import make_agent
from .seeds import DEVELOPMENT, TABLE

LADDER = ["random", "easy", "normal", "hard", "crazy"]
STEPS = list(zip(LADDER[:-1], LADDER[1:]))
EXPERT_STEPS = [("hard", "expert"), ("crazy", "expert")]
"""The expert's steps: over the strongest bots (issue 15: deal score >= 55% and the margin's interval above
zero over ``hard`` in every game, over ``crazy`` in at least half of them)."""
EXPERT_SETS = 200
EXPERT_TARGET = 0.55
"""Issue 15's target for each of the expert's steps: a deal score of at least 55% and a real step (the points
margin's 95% interval above zero). :func:`target_text` says, row by row, whether a measured step meets it."""
WHY = "#against-the-targets-and-why-some-fall-short"
"""The README's section (from ``agents/rl/BASELINES.md``) that says why a target is not met."""
SEARCH = ("hard", "crazy", "expert", "expert_fast")
"""The agents whose search settings and milliseconds per decision the speed table reports."""
HERE = Path(__file__).resolve().parent


def measure_speed(env_name: str, spec: str, decisions: int, seed: int = 0, env_options: dict | None = None) -> dict:
    """CPU time per decision of ``spec`` in seat 0 (``normal`` elsewhere) over ``decisions`` decisions."""
    opts = dict(env_options or {})
    env = load(env_name).env(episode="deal", **opts)
    n = len(env.possible_agents)
    bot = make_agent(spec, env_name, seed=seed, env_options=opts)
    others = [make_agent("normal", env_name, seed=seed + s, env_options=opts) for s in range(n)]
    times = []
    k = 0
    ep = 0
    while k < decisions:
        env.reset(seed=seed * 7919 + ep)
        ep += 1
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = env.unwrapped.agent_name_mapping[agent]
            if seat == 0 and k < decisions:
                t0 = time.process_time()
                a = decide(bot, env, obs["observation"], obs["action_mask"])
                times.append(time.process_time() - t0)
                k += 1
            else:
                a = decide(others[seat], env, obs["observation"], obs["action_mask"])
            env.step(a)
    ms = 1000.0 * sum(times) / max(k, 1)
    ranked = sorted(times)
    p95 = 1000.0 * ranked[min(len(ranked) - 1, int(0.95 * len(ranked)))] if ranked else 0.0
    return {"decisions": k, "ms_per_decision": ms, "ms_p95": p95,
            "decisions_per_s": (1000.0 / ms) if ms > 0 else float("inf")}


def speeds(env_name: str, quick: bool = False) -> dict:
    budget = {"random": 3000, "easy": 3000, "normal": 3000, "hard": 200, "crazy": 40, "expert": 100,
              "expert_fast": 200}  # enough for a p95
    if quick:
        budget = {k: max(5, v // 10) for k, v in budget.items()}
    return {spec: measure_speed(env_name, spec, n) for spec, n in budget.items()}


PIMC_SETS = {"dominoes": 400, "queens_and_jacks": 150, "six_of_spades": 200, "beat_or_discard": 200}
"""Duplicate sets for the steps with search, per game family (their cost and their noise differ: a dominoes
deal swings by dozens of points, so its steps need more sets)."""


def pimc_sets(env_name: str) -> int:
    from .base import game_for
    from .strategies import family_of

    return PIMC_SETS.get(family_of(game_for(env_name)), 150)


SMOKE = {"hard": "pimc:level=hard,n=1", "crazy": "pimc:level=crazy,n=2", "expert": "expert:n=1"}
"""``--smoke``: the search bots with tiny budgets (a check that the script runs, not a measurement)."""


def run(envs=None, deals: int = 1000, pimc_deals: int | None = None, seed: int = DEVELOPMENT,
        processes: int | None = None, progress: bool = True, steps=None, with_speed: bool = True,
        specs: dict | None = None, expert_sets: int = EXPERT_SETS, expert_seed: int = TABLE) -> dict:
    """The ladder of every game in ``envs`` (default: all registered); returns a JSON-ready dict.
    ``pimc_deals``: sets for the bots' steps with search (default: :data:`PIMC_SETS` of the game's family);
    ``steps`` (default :data:`STEPS` + :data:`EXPERT_STEPS`): the expert's steps play ``expert_sets`` sets on
    ``expert_seed``, the others on ``seed``. ``specs`` may replace the spec of a rung (e.g. :data:`SMOKE`)."""
    specs = dict(specs or {})
    envs = list(envs or ENVIRONMENTS)
    steps = list(steps or STEPS + EXPERT_STEPS)
    settings = {"deals": deals, "seed": seed, "expert_seed": expert_seed,
                "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
                "date": datetime.date.today().isoformat()}
    out = {"games": {}}
    for env_name in envs:
        rows = []
        for weak, strong in steps:
            k = (pimc_deals or pimc_sets(env_name)) if strong in ("hard", "crazy") else deals
            s = seed
            if (weak, strong) in EXPERT_STEPS:
                k, s = expert_sets, expert_seed
            res = evaluate(env_name, {strong: specs.get(strong, strong), weak: specs.get(weak, weak)}, deals=k,
                           seed=s, processes=processes, progress=progress)
            p = res["pairs"][0]
            rows.append({"weaker": weak, "stronger": strong, "seed": s, "sets": p["sets"], "games": p["games"],
                         "deals": p["deals"], "score": p["score_a"], "margin": p["margin"],
                         "real": p["margin"]["lo"] > 0, "seconds": res["seconds"],
                         "ms_per_decision": res["ms_per_decision"]})
        game = {"settings": settings, "steps": rows,
                "search": {lvl: search_settings(make_agent(lvl, env_name)) for lvl in SEARCH}}
        if with_speed:
            game["speed"] = speeds(env_name)
        out["games"][env_name] = game
    return out


def search_settings(agent) -> dict:
    """What the speed table and the tests say of a search agent's settings."""
    out = {"n": agent.n, "depth": agent.depth, "rollout": agent.rollout, "z": agent.z, "work": agent.work,
           "objective": agent.objective}
    if hasattr(agent, "top"):
        out.update(top=agent.top, prior=agent.prior_kind, leaf=agent.leaf_kind, playout=agent.playout,
                   belief=agent.belief)
    return out


def _fmt(c: dict, pct: bool = False) -> str:
    return format_ci(c, pct=pct)


def _ms(speed: dict) -> str:
    """``mean, p95`` ms per decision (the mean alone for results measured before the p95 was kept)."""
    p95 = speed.get("ms_p95")
    return f"{speed['ms_per_decision']:.1f}" + (f", {p95:.1f}" if p95 is not None else "")


PLAYOUT_TEXT = {"net": ", network playouts", "side": ", network playouts for its own side"}
"""The speed table's words for the expert's ``playout`` option (:data:`agents.expert.PLAYOUTS`)."""


def _search(game: dict, level: str) -> str:
    s = game.get("search", {}).get(level)
    if not s:
        return "-"
    cap = f", at most {s['work']:,} playout moves" if s.get("work") else ""
    top = f", the policy's {s['top']} best moves" if s.get("top") else ""
    nets = ""
    if "prior" in s:  # the expert: say where it does without a network
        nets = "".join(text for key, default, text in (
            ("prior", "net", ", normal's move as prior"), ("leaf", "value", ", the position score at the leaves"),
            ("playout", "rule", PLAYOUT_TEXT.get(s.get("playout"), ""))) if s.get(key, default) != default)
    win = ", playing to win the deal" if s.get("objective", "points") == "win" else ""
    belief = f", the belief's pick of {s['belief']} x n drawn deals" if s.get("belief") else ""
    return f"{s['n']}, {s['depth'] if s.get('depth') else 'to the end'}{cap}{top}{nets}{win}{belief}"


def target_met(row: dict) -> bool:
    """Whether a measured expert step meets :data:`EXPERT_TARGET` (deal score and a real margin)."""
    return row["score"]["mean"] >= EXPERT_TARGET and row["margin"]["lo"] > 0


def target_text(row: dict) -> str:
    """The ladder's target column: ``-`` for the bots' steps; for the expert's, ``met`` or ``not met`` with the
    figure that falls short and a link to why."""
    if (row["weaker"], row["stronger"]) not in EXPERT_STEPS:
        return "-"
    if target_met(row):
        return "met"
    short = []
    if row["score"]["mean"] < EXPERT_TARGET:
        short.append(f"{100 * row['score']['mean']:.1f}% < {100 * EXPERT_TARGET:.0f}%")
    if row["margin"]["lo"] <= 0:
        short.append("margin's interval not above 0")
    return f"not met: {', '.join(short)} ([why]({WHY}))"


def _seed(r: dict, settings: dict) -> str:
    s = r.get("seed", settings.get("seed", DEVELOPMENT))
    return "table" if s == TABLE else ("development" if s == DEVELOPMENT else str(s))


def to_markdown(result: dict) -> str:
    sets = {(g["settings"]["date"], g["settings"]["machine"]) for g in result["games"].values()}
    when = "; ".join(f"{d}, {m}" for d, m in sorted(sets))
    expert_dates = sorted({g["settings"]["expert_date"] for g in result["games"].values()
                           if "expert_date" in g["settings"]})
    if expert_dates:
        when += "; the expert's steps and speeds " + ", ".join(expert_dates)
    lines = [
        "## Bots, arena and terminal play",
        "",
        "Every game has five bots and the expert, built by name with `agents.make_agent(name, env_name, seed)` "
        "and called as `act(observation, action_mask)` (`hard`, `crazy` and `expert` are called through "
        "`agents.decide(agent, env)`, which also hands them the engine state for `game.sample_consistent`, the "
        "determinization that re-deals only what their seat cannot see). Rank agents on duplicate deals with "
        "`python -m agents.arena --env <game> --agents random easy normal hard expert --deals 200` (or "
        "`agents.arena.evaluate(...)` from Python; a trained policy joins as a factory), and play against them "
        "with `python -m agents.play --env <game> --bots expert`.",
        "",
        "## Bot ladder",
        "",
        f"Measured with `python -m agents.ladder` ({when}). Each step is the stronger agent against the weaker "
        "one, head to head on "
        "duplicate deal sets (the same deals with the seats rotated so that both hold the same cards or "
        "tiles; one deal per episode): the stronger one's deal score (win 1, tie 1/2) and its margin in "
        "points per deal (the engine's `seat_points`: penalty points avoided, or points won in "
        "queens-and-jacks), each with its 95% confidence interval over the duplicate sets. A step is real "
        "when the margin's interval lies above zero; the expert's steps also say whether they meet issue 15's "
        f"target ({100 * EXPERT_TARGET:.0f}% of the deals and a real step). The bots' steps play the development "
        "deals (arena seed "
        f"{DEVELOPMENT}, `agents.seeds.DEVELOPMENT`: their presets were chosen there); the expert's steps play "
        f"this release's table deals (`agents.seeds.TABLE` = {TABLE}, from the package version), which no "
        "setting was chosen on.",
        "",
        "The bots: `random` (a uniformly random legal move); `easy` (the game family's memoryless rule, and a "
        "careless random move 20-25% of the time); `normal` (counts the cards or tiles gone, knocks and voids, "
        "and plays the seed's advice); `hard` and `crazy` (perfect-information Monte Carlo: for each decision "
        "n imagined deals consistent with what the seat has seen, every legal move played on by `normal` "
        "players; `hard` plays a few rounds and scores the position (eyes taken, pips in hand), or to the end "
        "of the deal where deals are short (queens-and-jacks), `crazy` imagines several times more deals; "
        "the settings per game are in the speed table). `expert` (`agents/expert.py`) is the same search "
        "guided by the trained networks: the shipped policy's move is the one it keeps unless the imagined "
        "deals clearly beat it, and a playout cut short is scored by a learned value of the seat's own "
        "observation (`agents/checkpoints/value/`); where a network measured worse on the development deals "
        "the search does without it, and where a learned belief of who holds what measured better it plays "
        "out the likeliest of several times more imagined deals, and where the policy measured the better "
        "player of the playouts it plays them instead of `normal`, for every seat or for the searching "
        "seat's own side only (the speed table says where); "
        "`expert_fast` is its setting for at most "
        "20 ms a decision. Rules of thumb per game: `agents/strategies/`.",
        "",
        "| game | step | deals played | duplicate sets | deals | stronger's deal score | points per deal, "
        "stronger - weaker | real | target |",
        "|---|---|---|---:|---:|---|---|:---:|---|",
    ]
    for env_name, g in result["games"].items():
        for r in g["steps"]:
            lines.append(f"| {env_name} | {r['weaker']} < {r['stronger']} | {_seed(r, g['settings'])} | {r['sets']} | "
                         f"{r['deals']} | {_fmt(r['score'], pct=True)} | {_fmt(r['margin'])} | "
                         f"{'yes' if r['real'] else 'no'} | {target_text(r)} |")
    if any("speed" in g for g in result["games"].values()):
        lines += ["", "### Bot speeds", "",
                  "Process CPU time per decision, the agent in one seat, `normal` in the others, one deal per "
                  "episode (targets on a 2-core machine: `normal` at least 5,000 decisions/s, `hard` at most 50 ms "
                  "per decision, its 95th percentile too; `expert` a mean of at most 100 ms, `expert_fast` 20 ms). "
                  "Search settings: n imagined deals, the playout depth in actions.", "",
                  "| game | random (decisions/s) | easy (decisions/s) | normal (decisions/s) | hard (ms/decision: "
                  "mean, p95) | crazy (ms/decision: mean, p95) | expert (ms: mean, p95) | expert_fast (ms: mean, "
                  "p95) | hard: n, depth | crazy: n, depth | expert: n, depth | expert_fast: n, depth |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|"]
        for env_name, g in result["games"].items():
            sp = g.get("speed")
            if not sp:
                continue
            ms = " | ".join(_ms(sp[k]) if k in sp else "-" for k in SEARCH)
            lines.append(f"| {env_name} | {sp['random']['decisions_per_s']:,.0f} | "
                         f"{sp['easy']['decisions_per_s']:,.0f} | {sp['normal']['decisions_per_s']:,.0f} | "
                         f"{ms} | " + " | ".join(_search(g, k) for k in SEARCH) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m agents.ladder", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", nargs="*", default=None, help="games (default: every registered one)")
    ap.add_argument("--deals", type=int, default=1000, help="duplicate sets per heuristic step (cheap: 1000)")
    ap.add_argument("--pimc-deals", type=int, default=None,
                    help="duplicate sets per step with search (default: 400 dominoes games, 150-200 card games)")
    ap.add_argument("--seed", type=int, default=DEVELOPMENT, help="arena seed of the bots' steps")
    ap.add_argument("--expert-sets", type=int, default=EXPERT_SETS, help="duplicate sets per expert step")
    ap.add_argument("--processes", type=int, default=None)
    ap.add_argument("--expert-only", action="store_true",
                    help="measure only the expert's steps and the speeds; keep the other steps of --json")
    ap.add_argument("--against", nargs="+", default=[w for w, _ in EXPERT_STEPS], choices=[w for w, _ in EXPERT_STEPS],
                    help="with --expert-only: the expert's steps to measure (default: over hard and over crazy)")
    ap.add_argument("--speed-only", action="store_true")
    ap.add_argument("--no-speed", action="store_true")
    ap.add_argument("--out", default=str(HERE / "LADDER.md"))
    ap.add_argument("--json", default=str(HERE / "ladder.json"))
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--fresh", action="store_true", help="do not keep the other games of an existing --json")
    ap.add_argument("--smoke", action="store_true", help="tiny search budgets: checks the script, measures nothing")
    ap.add_argument("--render", action="store_true", help="only rewrite --out from the results in --json")
    args = ap.parse_args(argv)
    envs = args.env or list(ENVIRONMENTS)
    if args.render:
        res = json.loads(Path(args.json).read_text())
        Path(args.out).write_text(to_markdown(res))
        return res
    if args.speed_only:
        res = {env: speeds(env) for env in envs}
        for env, sp in res.items():
            print(env, {k: (round(v["decisions_per_s"]) if k in ("random", "easy", "normal")
                            else f"{_ms(v)} ms") for k, v in sp.items()})
        if args.json and Path(args.json).exists() and not args.fresh:  # new speeds into the kept results
            old = json.loads(Path(args.json).read_text())
            for env, sp in res.items():
                if env in old.get("games", {}):
                    old["games"][env]["speed"] = sp
            Path(args.json).write_text(json.dumps(old, indent=1))
            if args.out:
                Path(args.out).write_text(to_markdown(old))
        return res
    res = run(envs, deals=args.deals, pimc_deals=args.pimc_deals, seed=args.seed, processes=args.processes,
              progress=not args.quiet, with_speed=not args.no_speed, specs=SMOKE if args.smoke else None,
              steps=[s for s in EXPERT_STEPS if s[0] in args.against] if args.expert_only else None,
              expert_sets=args.expert_sets)
    if args.json and Path(args.json).exists() and not args.fresh:  # keep the games measured before
        old = json.loads(Path(args.json).read_text())
        if args.expert_only:  # the other steps (and, without speeds, the speeds) as measured before
            order = STEPS + EXPERT_STEPS
            for env, g in res["games"].items():
                kept = old.get("games", {}).get(env)
                if kept:
                    now = {(r["weaker"], r["stronger"]) for r in g["steps"]}
                    rows = [r for r in kept["steps"] if (r["weaker"], r["stronger"]) not in now] + g["steps"]
                    g["steps"] = sorted(rows, key=lambda r: order.index((r["weaker"], r["stronger"])))
                    g["settings"] = {**kept["settings"], "expert_seed": g["settings"]["expert_seed"],
                                     "expert_date": g["settings"]["date"]}
                    if "speed" not in g and "speed" in kept:
                        g["speed"] = kept["speed"]
        merged = {k: v for k, v in old.get("games", {}).items() if k in ENVIRONMENTS}
        merged.update(res["games"])
        res["games"] = {k: merged[k] for k in ENVIRONMENTS if k in merged}
    md = to_markdown(res)
    print(md)
    if args.out:
        Path(args.out).write_text(md)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    return res


if __name__ == "__main__":
    main()
