"""Score a dominoes_ffa_v0 training run's final policy against ``normal`` on the selection deals, as
``experiments/skip_forced/scores.json`` scores its runs (2,000 duplicate sets, arena seed 99; the score of every
set kept, so two runs pair by deal), and add it to ``scores.json`` here under ``label``.

    python experiments/bf16/score.py runs/bf16/s0 bf16_seed0
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from agents.rl import load
from agents.rl.evaluate import evaluate
from agents.seeds import SELECTION

HERE = Path(__file__).resolve().parent
SETS = 2000


def main(run_dir: str, label: str) -> None:
    run = Path(run_dir)
    last = json.loads((run / "log.jsonl").read_text().splitlines()[-1])
    cfg = json.loads((run / "config.json").read_text())
    t = time.perf_counter()
    res = evaluate(load("dominoes_ffa_v0", path=run / "policy.npz"), "normal", "dominoes_ffa_v0", deals=SETS,
                   seed=SELECTION)
    out = {"policy": label.replace("_", " "), "arena_seed": SELECTION, "against": "normal", "sets": SETS,
           "score": res["score"], "margin": res["margin"], "per_set": [s["score"] for s in res["sets"]],
           "seconds": round(time.perf_counter() - t, 1), "train_cpu_seconds": round(last["cpu_seconds"], 1),
           "ppo_moves": cfg["total_steps"], "precision": cfg.get("precision", "float32")}
    path = HERE / "scores.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data[label] = out
    path.write_text(json.dumps(data, indent=1) + "\n")
    print(label, f"{res['score']['mean']:.1%} [{res['score']['lo']:.1%}, {res['score']['hi']:.1%}]",
          f"train CPU {out['train_cpu_seconds']} s")


if __name__ == "__main__":
    main(*sys.argv[1:])
