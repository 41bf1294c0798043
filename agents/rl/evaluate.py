"""Duplicate-deal evaluation of a policy against a bot, many matches at once: a batched twin of the arena.

It plays exactly what ``agents.arena.evaluate(env, {"A": candidate, "B": opponent}, deals, seed,
episode="match")`` plays -- the same deal seeds, the same seatings (the arena's alternating patterns and
their rotations), the same bot seeds and the same scoring (per seating 1 / 0.5 / 0 as A's mean return beats,
ties or trails B's; the mean over the seatings of a seed is one duplicate set; 95% intervals over sets) --
but runs ``parallel`` matches side by side in one process so that the policy decides for all of them in one
batched call. With a deterministic (greedy) policy the figures are identical to the arena's; a test checks
it. Training uses it for its periodic evaluations.

Policies (anything with ``act_batch(obs, masks)``) see ``game.observe`` of their seat and the action mask;
bots are built with ``agents.make_agent`` and called like the arena calls them (``state=``/``seat=`` only for
agents that declare ``needs_state``, for determinization).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from kozel_env.core.rng import Rng

from ..arena import _mix, seatings
from ..base import Agent, decide, game_for
from ..seeds import SELECTION
from ..stats import mean_ci, rate_ci
from .threads import single_thread_math

EVAL_SEED = SELECTION  # arena seed of the held-out deals: evaluations during training and the choice of
                       # what ships (the published table: agents.seeds.TABLE)
SELECT_SETS = 1000   # duplicate sets behind the choice of what ships (50 sets cannot tell 55% from 60%)


class PolicyController:
    """Seats played by a batched policy: anything with ``act_batch(obs, masks) -> actions``."""

    batched = True

    def __init__(self, policy):
        self.policy = policy

    def start(self, seed: int, seat: int) -> None:
        return None

    def act(self, handles, obs, masks, states, seats) -> np.ndarray:
        return np.asarray(self.policy.act_batch(obs, masks), np.int64)


class BotController:
    """Seats played by bots built with ``agents.make_agent(spec, env_name, seed, env_options)``."""

    batched = False

    def __init__(self, spec: str, env_name: str, env_options=None):
        from ..registry import make_agent

        self.spec, self.env_name, self.env_options = spec, env_name, dict(env_options or {})
        self.make_agent = make_agent

    def start(self, seed: int, seat: int) -> Agent:
        bot = self.make_agent(self.spec, self.env_name, seed=seed, env_options=self.env_options)
        if hasattr(bot, "reset"):
            bot.reset()
        return bot

    def act(self, handles: list, obs: np.ndarray, masks: np.ndarray, states: list, seats: list) -> np.ndarray:
        out = np.empty(len(handles), np.int64)
        for r, h in enumerate(handles):
            out[r] = decide(h, None, obs[r], masks[r], state=states[r])   # states[r]'s seat to move: seats[r]
        return out


def as_controller(x, env_name: str, env_options: dict | None = None) -> PolicyController | BotController:
    if isinstance(x, str):
        return BotController(x, env_name, env_options)
    if hasattr(x, "act_batch"):
        return PolicyController(x)
    if hasattr(x, "start") and hasattr(x, "act"):
        return x
    raise TypeError(f"cannot play with {x!r}: give a bot spec, a policy with act_batch, or a controller")


def play_matches(env_name: str, jobs: list, controllers: dict, env_options: dict | None = None,
                 parallel: int = 64) -> list:
    """Play every job side by side. A job is ``(state_seed, owners, agent_seeds)``: ``owners[seat]`` is a key
    of ``controllers``, ``agent_seeds[seat]`` the seed of that seat's bot. Returns per job
    ``(returns per seat, [seat_points per deal])``."""
    game = game_for(env_name, env_options)
    n, A, obs_dim = game.num_players, game.num_actions, game.obs_spec.size
    results = [None] * len(jobs)
    pending = iter(range(len(jobs)))

    def open_slot():
        j = next(pending, None)
        if j is None:
            return None
        seed, owners, seeds = jobs[j]
        st = game.new_state(int(seed))
        handles = [controllers[owners[s]].start(int(seeds[s]), s) for s in range(n)]
        return {"job": j, "st": st, "owners": owners, "handles": handles}

    def finish_or_keep(sl, keep):
        # a match can be over before any decision (decided by the deal, e.g. four aces in beat_or_discard)
        while sl is not None and sl["st"].terminal:
            results[sl["job"]] = (list(sl["st"].returns()), [list(d["seat_points"]) for d in sl["st"].results])
            sl = open_slot()
        if sl is not None:
            keep.append(sl)

    slots = []
    for _ in range(parallel):
        finish_or_keep(open_slot(), slots)
    while slots:
        groups = {}
        for k, sl in enumerate(slots):
            groups.setdefault(sl["owners"][sl["st"].current_player], []).append(k)
        for key, ks in groups.items():
            obs = np.empty((len(ks), obs_dim), np.float32)
            masks = np.zeros((len(ks), A), np.int8)
            handles, states, seats = [], [], []
            for r, k in enumerate(ks):
                st = slots[k]["st"]
                p = st.current_player
                obs[r] = game.observe(st, p)
                masks[r, st.legal_actions()] = 1
                handles.append(slots[k]["handles"][p])
                states.append(st)
                seats.append(p)
            acts = controllers[key].act(handles, obs, masks, states, seats)
            for r, k in enumerate(ks):
                sl = slots[k]
                st = sl["st"]
                a = int(acts[r])
                if not masks[r, a]:
                    raise RuntimeError(f"{key!r} chose the illegal action {a}")
                st.apply_action(a)
        keep = []
        for sl in slots:
            finish_or_keep(sl, keep)
        slots = keep
    return results


def evaluate(candidate, opponent, env_name: str, deals: int = 100, seed: int = 0, env_options: dict | None = None,
             parallel: int = 64) -> dict:
    """``candidate`` (seats "A") against ``opponent`` (seats "B") on ``deals`` duplicate sets of whole matches,
    as the arena plays them (see the module doc). Candidate and opponent: a bot spec or a policy.

    Returns ``score`` (A's match score: 1 win, 0.5 tie, 0 loss, per set), ``margin`` (points per deal, A's
    seats minus B's), each ``{"mean", "lo", "hi", "n"}``; ``matches``, ``deals_played``, ``sets`` (per set)."""
    single_thread_math()
    n = game_for(env_name, env_options).num_players
    jobs, meta = [], []
    for k in range(deals):
        deal_seed = _mix(seed, k)
        state_seed = Rng(deal_seed).spawn()  # what env.reset(seed=deal_seed) gives the engine
        for r, seating in enumerate(seatings(n)):
            owners = ["A" if who == 0 else "B" for who in seating]
            jobs.append((state_seed, owners, [_mix(deal_seed, r, s, 0) for s in range(n)]))
            meta.append((k, seating))
    ctrls = {"A": as_controller(candidate, env_name, env_options),
             "B": as_controller(opponent, env_name, env_options)}
    res = play_matches(env_name, jobs, ctrls, env_options, parallel)
    sets = [{"score": 0.0, "margin": 0.0, "deals": 0, "games": 0} for _ in range(deals)]
    for (k, seating), (rets, deal_pts) in zip(meta, res):
        sa = [s for s in range(n) if seating[s] == 0]
        sb = [s for s in range(n) if seating[s] == 1]
        ra = sum(rets[s] for s in sa) / len(sa)
        rb = sum(rets[s] for s in sb) / len(sb)
        st = sets[k]
        st["score"] += 1.0 if ra > rb else (0.5 if ra == rb else 0.0)
        for d in deal_pts:
            st["margin"] += sum(d[s] for s in sa) / len(sa) - sum(d[s] for s in sb) / len(sb)
        st["deals"] += len(deal_pts)
        st["games"] += 1
    for st in sets:
        st["score"] /= st["games"]
        st["margin"] /= max(1, st["deals"])
    return {"env": env_name, "env_options": dict(env_options or {}), "deals": deals, "seed": seed,
            "episode": "match", "matches": len(jobs), "deals_played": sum(s["deals"] for s in sets),
            "score": rate_ci(mean_ci([s["score"] for s in sets])),
            "margin": mean_ci([s["margin"] for s in sets]), "sets": sets}


def choose_policy(env_name: str, paths, opponent: str = "normal", sets: int = SELECT_SETS, seed: int = EVAL_SEED,
                  env_options: dict | None = None, log: Callable[[str], None] | None = None) -> tuple:
    """Which of the policy files ``paths`` (``.npz`` in the shipped format) to ship: each plays ``sets``
    duplicate sets of whole matches against ``opponent`` on the held-out deals of arena seed ``seed`` (never
    the published table's deals, ``agents.seeds.TABLE``); the highest match score wins, and on a tie the
    earlier path, so a policy shipped before, listed first, is replaced only by a better one. The periodic
    evaluations of a run use 50 sets and pick their best with the luck of those sets; this re-scores the
    candidates on 20 times as many.

    Returns ``(chosen path, [{"path", "score", "margin"} per candidate])``."""
    from .policy import NumpyPolicy

    scores, best = [], None
    for path in paths:
        r = evaluate(NumpyPolicy.from_files(path), opponent, env_name, sets, seed=seed, env_options=env_options)
        row = {"path": str(path), "score": r["score"]["mean"], "margin": r["margin"]["mean"]}
        scores.append(row)
        if log is not None:
            log(f"{path}: {100 * row['score']:.1f}% against {opponent} ({row['margin']:+.2f} points/deal), "
                f"{sets} held-out sets")
        if best is None or row["score"] > best["score"]:
            best = row
    if best is None:
        raise ValueError("choose_policy: no candidate policy files given")
    return best["path"], scores
