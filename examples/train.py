"""Train an agent on a Kozel game with PPO self-play (PyTorch, CPU), evaluating it against the bots.

    python examples/train.py --env dominoes_v0 --steps 20000       # a short run, runs/dominoes_v0
    python examples/train.py --env dominoes_v0                     # the documented budget (agents/rl/configs.py)
    python examples/train.py --env dominoes_v0 --ship              # then ship the better policy to agents/checkpoints
    python examples/train.py --help                                # every flag, the budget, the run folder

A thin wrapper over the training command, ``kozel-train`` (``python -m agents.rl.train``, :mod:`agents.rl.train`,
whose doc is this script's ``--help``): the same command line, the default run folder being ``runs/<env>`` in
the repository rather than in the current directory.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import sys  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agents.rl import train as _train  # noqa: E402

PROG = "python examples/train.py"


def run(argv: list) -> dict:
    """One run (``agents.rl.train.run``) with ``argv``, under ``<repository>/runs``; returns its summary."""
    return _train.run(argv, root=ROOT, prog=PROG)


def main(argv: list | None = None) -> int:
    """``agents.rl.train.main`` with ``argv`` (default: the command line), runs under ``<repository>/runs``;
    returns the exit status."""
    return _train.main(argv, root=ROOT, prog=PROG)


if __name__ == "__main__":
    sys.exit(main())
