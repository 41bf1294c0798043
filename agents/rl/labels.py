"""Labels from the search, to learn from it (issue 35, item 2: expert iteration / DAgger): positions a policy
reaches in its own play, each searched by a teacher bot, written in chunks by worker processes; a run that is
interrupted continues where it stopped.

    python -m agents.rl.labels --env queens_and_jacks_v0 --teacher hard --positions 100000 --workers 2 \\
        --out runs/labels_qj

Chunk ``j`` (``--chunk`` positions, 1,000 by default) is played from its own seed, a function of ``--seed`` and
``j`` only: the policy (``--policy``, a policy ``.npz``; the game's shipped checkpoint by default) plays every
seat of whole matches, sampling its moves, and at each decision with more than one legal move the teacher
(``--teacher``: ``hard``, ``crazy``, ``expert`` or any agent spec of :mod:`agents.registry` whose search fills
``move_values``, as :class:`agents.pimc.PIMCAgent` does) decides the position from that seat's own view. The
policy's move is the one played, so the positions are the ones the policy reaches (DAgger). A chunk file holds,
per position: ``obs`` (float16: the observation's entries are small integers and fractions that float16 keeps
to 3 digits), ``mask``, ``move`` (the teacher's move) and ``target`` (:func:`soft_target`: the chance that each
move is the teacher's best, from its move values).

A chunk is written whole, to a temporary name that is then renamed, so a chunk file on disk is complete; the
missing chunks are shared out among ``--workers`` processes, and since a chunk depends only on its seed the
labels are the same whatever the number of workers or of interruptions. Training reads them with
``--set bc_data=<folder>`` (:func:`agents.rl.imitation.behaviour_cloning`); ``bc_target=soft`` fits
``target``, ``move`` (the default) the teacher's move.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np

CHUNK = 1000
DRAWS = 512
"""Normal draws per position in :func:`soft_target` (its draws are seeded: the target is deterministic)."""


def chunk_seed(seed: int, j: int) -> int:
    """The seed of chunk ``j`` of a run with ``seed``: 63 bits of SHA-256, so chunks share no deal stream."""
    h = hashlib.sha256(f"kozel_env labels {seed} {j}".encode()).digest()
    return int.from_bytes(h[:8], "big") >> 1


def soft_target(move_values: dict, move: int, num_actions: int) -> np.ndarray:
    """The chance that each move is the best of the searched ones (``float32[num_actions]``, summing to 1):
    each move's playout values are compared with the best move's on the same imagined deals (the paired
    difference, as the search compares them); its mean difference plus its standard error times a normal
    draw, :data:`DRAWS` times, and the share of draws each move wins. A move searched on fewer deals than the
    best (dropped early) uses the deals it has; a move with a single deal has its difference's spread taken as
    the largest of the others'. No search (``move_values`` empty): all the weight on ``move``."""
    out = np.zeros(num_actions, np.float32)
    if not move_values:
        out[move] = 1.0
        return out
    moves = list(move_values)
    best = max(moves, key=lambda a: (len(move_values[a]), np.mean(move_values[a])))
    ref = np.asarray(move_values[best], np.float64)
    mean, se = np.zeros(len(moves)), np.zeros(len(moves))
    for i, a in enumerate(moves):
        v = np.asarray(move_values[a], np.float64)
        d = v - ref[:len(v)]
        mean[i] = d.mean()
        se[i] = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else np.nan
    se = np.where(np.isnan(se), np.nanmax(np.append(se, 0.0)), se)
    rng = np.random.default_rng(0)
    draws = mean + se * rng.standard_normal((DRAWS, len(moves)))
    wins = np.bincount(draws.argmax(axis=1), minlength=len(moves))
    out[moves] = wins / DRAWS
    return out


def make_chunk(env_name: str, teacher: str, policy_path: str, seed: int, j: int, size: int,
               env_options: dict | None = None) -> dict:
    """Chunk ``j``'s arrays (see the module doc): ``size`` positions of the policy's self-play from
    :func:`chunk_seed`, each labelled by the teacher."""
    from kozel_env.registry import load

    from ..base import decide
    from ..registry import make_agent
    from .policy import cached_policy

    s = chunk_seed(seed, j)
    policy = cached_policy(policy_path)
    rng = np.random.default_rng(s)
    bot = make_agent(teacher, env_name, seed=s % (1 << 31), env_options=env_options)
    env = load(env_name).env(**(env_options or {}))
    rows = {"obs": [], "mask": [], "move": [], "target": []}
    match = 0
    while len(rows["move"]) < size:
        env.reset(seed=(s + match) % (1 << 31))
        match += 1
        for _name in env.agent_iter():
            o, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            obs, mask = o["observation"], o["action_mask"]
            if len(rows["move"]) < size and int(mask.sum()) > 1:
                move = decide(bot, env, obs, mask)
                rows["obs"].append(obs.astype(np.float16))
                rows["mask"].append(mask.astype(bool))
                rows["move"].append(move)
                rows["target"].append(soft_target(getattr(bot, "move_values", {}), move, len(mask)))
            env.step(int(policy.act_batch(obs[None], mask[None], rng, greedy=False)[0]))
    return {"obs": np.stack(rows["obs"]), "mask": np.stack(rows["mask"]),
            "move": np.asarray(rows["move"], np.int16), "target": np.stack(rows["target"])}


def chunk_path(out: Path, j: int) -> Path:
    return Path(out) / f"chunk_{j:05d}.npz"


def _write_chunk(out: str, j: int, job: dict) -> int:
    arrays = make_chunk(j=j, **job)
    path = chunk_path(Path(out), j)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        np.savez_compressed(f, **arrays)
    os.replace(tmp, path)
    return j


def generate(env_name: str, out, positions: int, teacher: str = "hard", policy: str | None = None,
             workers: int = 1, seed: int = 0, chunk: int = CHUNK, env_options: dict | None = None,
             log=None) -> list:
    """Write the chunks of ``positions`` labelled positions (rounded up to whole chunks) into ``out`` that are
    not there yet, in ``workers`` processes; returns the chunk paths, in order. ``out/labels.json`` records the
    settings; a folder written with other settings is refused (:class:`ValueError` naming both)."""
    from .policy import checkpoint_path

    for what, v, low in (("positions", positions, 1), ("workers", workers, 1), ("chunk", chunk, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
            raise ValueError(f"{what}={v!r}: an int, {low} or more")
    out = Path(out)
    policy = str(Path(policy) if policy else checkpoint_path(env_name))
    if not Path(policy).exists():
        raise FileNotFoundError(f"no policy file at {policy}")
    settings = {"env": env_name, "teacher": teacher, "policy": policy, "seed": int(seed), "chunk": int(chunk),
                "env_options": env_options or {}}
    out.mkdir(parents=True, exist_ok=True)
    meta = out / "labels.json"
    if meta.exists():
        old = json.loads(meta.read_text())
        if old != settings:
            raise ValueError(f"{out} holds labels made with {old}, not {settings}: use another folder")
    else:
        meta.write_text(json.dumps(settings, indent=1) + "\n")
    count = -(-positions // chunk)
    todo = [j for j in range(count) if not chunk_path(out, j).exists()]
    job = {"env_name": env_name, "teacher": teacher, "policy_path": policy, "seed": int(seed), "size": int(chunk),
           "env_options": env_options}
    if workers == 1 or len(todo) <= 1:
        for j in todo:
            _write_chunk(str(out), j, job)
            if log:
                log(f"chunk {j} written ({count - len(todo) + todo.index(j) + 1}/{count})")
    else:
        with ProcessPoolExecutor(min(workers, len(todo)), mp_context=get_context("spawn")) as pool:
            for k, j in enumerate(pool.map(_write_chunk, [str(out)] * len(todo), todo, [job] * len(todo))):
                if log:
                    log(f"chunk {j} written ({count - len(todo) + k + 1}/{count})")
    return [chunk_path(out, j) for j in range(count)]


def read_chunks(folder) -> list:
    """The chunk files of a labels folder, in order (each an ``.npz`` of arrays: read with
    :func:`agents.rl.safe_load.load_arrays`, which runs no code from the file)."""
    paths = sorted(Path(folder).glob("chunk_*.npz"))
    if not paths:
        raise FileNotFoundError(f"no label chunks (chunk_*.npz) in {folder}: make them with "
                                f"python -m agents.rl.labels")
    return paths


def main(argv: list | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m agents.rl.labels", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", required=True)
    ap.add_argument("--out", required=True, help="the labels folder (chunks and labels.json)")
    ap.add_argument("--positions", type=int, required=True, help="labelled positions in all (whole chunks)")
    ap.add_argument("--teacher", default="hard", help="agent spec of the searching teacher")
    ap.add_argument("--policy", default=None, help="the policy .npz that plays (default: the shipped one)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chunk", type=int, default=CHUNK, help="positions per chunk file")
    a = ap.parse_args(argv)
    try:
        paths = generate(a.env, a.out, a.positions, a.teacher, a.policy, a.workers, a.seed, a.chunk,
                         log=lambda m: print(m, file=sys.stderr, flush=True))
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{len(paths)} chunks of {a.chunk} positions in {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
