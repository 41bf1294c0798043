"""Which deal seeds are for what: the one home of that fact.

A published figure is measured on deals that nothing else looked at: no training run, no choice of what
ships, no setting tried while developing a bot. Four uses, four seeds, kept apart here:

* :data:`DEVELOPMENT` (arena seed 0): trying things -- the bot presets of the ladder (``hard``, ``crazy``),
  the expert's search settings, examples and tests. Figures on these deals were watched while choosing.
* :data:`SELECTION` (arena seed 99): training's periodic evaluations and the choice of the policy that ships
  (``agents.rl.evaluate.choose_policy``).
* :data:`TABLE` (:func:`table_seed` of the package version): the published baseline table
  (``examples/reproduce_baselines.py``) and the expert's ladder steps. It changes with every release, so a
  release's figures are measured on deals no earlier release saw; nothing in the repository is tuned on it.
* :data:`FRESH` (arena seed 20261205): the check of the table (``examples/fresh_deals.py``): the same figures
  measured again, after what ships was chosen, on deals that no choice, setting or training run used. A figure
  that holds on the table deals but not here was luck of the deals.

Each is an *arena seed* (:func:`agents.arena.evaluate`): duplicate set ``k`` of a run plays the deal seed
``_mix(seed, k)``, so the four streams share no deal.
"""
from __future__ import annotations

import hashlib

DEVELOPMENT = 0
SELECTION = 99
FRESH = 20261205


def table_seed(version: str | None = None) -> int:
    """The arena seed of the published table for ``version`` (default: the installed ``kozel_env``): the
    first 31 bits of SHA-256 of ``"kozel_env <version> baseline table"``, never :data:`DEVELOPMENT`,
    :data:`SELECTION` or :data:`FRESH`."""
    if version is None:
        from kozel_env import __version__ as version
    h = int.from_bytes(hashlib.sha256(f"kozel_env {version} baseline table".encode()).digest()[:4], "big") >> 1
    while h in (DEVELOPMENT, SELECTION, FRESH):  # pragma: no cover - a 1 in 10^9 collision
        h += 1
    return h


TABLE = table_seed()
