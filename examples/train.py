"""Train an agent on a Kozel game with PPO self-play (PyTorch, CPU), evaluating it against the bots.

    python examples/train.py --env dominoes_v0                     # the documented budget (agents/rl/configs.py)
    python examples/train.py --env dominoes_v0 --ship              # then ship the better policy to agents/checkpoints
    python examples/train.py --help                                # every flag, the budget, the run folder

The trainer is :mod:`agents.rl.train` (its doc is this script's ``--help``); this script calls its ``main`` with
the command line, the default run folder being ``runs/<env>`` in the repository.
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


def main(argv: list | None = None) -> dict:
    """``agents.rl.train.main`` with ``argv`` (default: the command line), runs under ``<repository>/runs``."""
    return _train.main(argv, root=ROOT)


if __name__ == "__main__":
    main()
