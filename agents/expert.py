"""``expert``: determinized search guided by the learned networks (the policy as prior, the value at the leaves).

It is the ``pimc`` search of :mod:`agents.pimc` (imagined deals from ``game.sample_consistent``, every
candidate move played on in each by the ``normal`` rule, paired comparisons), with the trained networks of
the game in three places:

* **prior**: the shipped policy's greedy move (``agents/checkpoints/<game>.npz``) is the move the search
  keeps unless the imagined deals beat it by ``z`` standard errors (``pimc`` keeps ``normal``'s move);
* **candidates**: with ``top=k`` only the policy's ``k`` most probable legal moves are searched, so the
  imagined deals go to the moves worth comparing;
* **leaves**: a playout cut after ``depth`` actions is scored by the learned value of the seat's own
  observation there (:mod:`agents.rl.value`: the expected ``deal_value`` under ``normal`` play, from what the
  seat sees; ``leaf="position"``: the family's ``position_value`` of the imagined deal, as ``hard`` scores);
  a playout that reaches the end of the deal is scored exactly.

It sees only what its seat may see, exactly as ``hard`` does: the engine state reaches it only through
``sample_consistent`` (``agents.base``), the networks read only the seat's observation. The settings per
game (:data:`SETTINGS`: ``expert`` for a mean of at most 100 ms a decision on one core, ``fast`` for at most
20 ms) were chosen on the development deals (``agents.seeds.DEVELOPMENT``); their ladder steps are measured on
the release's table deals (``agents.seeds.TABLE``). Options as for ``pimc`` plus ``top``,
``prior`` (``"net"`` or ``"normal"``) and ``leaf`` (``"value"`` or ``"position"``); ``level`` is ``expert`` or
``fast`` (spec ``expert:level=fast``, preset ``expert_fast``).
"""
from __future__ import annotations

import numpy as np

from .pimc import PIMCAgent

SETTINGS: dict = {
    "dominoes_v0": {"expert": {"n": 48, "depth": 8}, "fast": {"n": 12, "depth": 8}},
    "dominoes_ffa_v0": {"expert": {"n": 48, "depth": 8}, "fast": {"n": 12, "depth": 8}},
    "sea_goat_v0": {"expert": {"n": 96, "depth": 8, "top": 4}, "fast": {"n": 16, "depth": 8, "top": 4}},
    "boneyard_v0": {"expert": {"n": 96, "depth": 8, "top": 4}, "fast": {"n": 16, "depth": 8, "top": 4}},
    "donkey_v0": {"expert": {"n": 64, "depth": 8, "top": 4}, "fast": {"n": 12, "depth": 8, "top": 4}},
    "queens_and_jacks_v0": {"expert": {"n": 64, "depth": 0, "top": 4}, "fast": {"n": 12, "depth": 0, "top": 4}},
    "beat_or_discard_v0": {"expert": {"n": 32, "depth": 16}, "fast": {"n": 8, "depth": 16}},
    "six_of_spades_v0": {"expert": {"n": 64, "depth": 16}, "fast": {"n": 8, "depth": 16}},
}
"""Per game and level: the ``pimc`` options of the search (``n`` imagined deals, ``depth`` actions before the
leaf value; 0 = to the end of the deal) and the expert's own (``top``, ``prior``, ``leaf``). Unlisted options:
:data:`BASE`. Chosen on the development deals: ``agents/rl/BASELINES.md`` ("The expert") lists what was tried."""

BASE = {"z": 1.0, "prune": 3.0, "work": 0, "min_n": 4, "rollout": "normal", "nest": 0, "top": 0, "prior": "net",
        "leaf": "value"}


def settings_for(env_name: str, level: str) -> dict:
    game = SETTINGS.get(env_name)
    if game is None:
        raise KeyError(f"no expert settings for {env_name!r}; games: {sorted(SETTINGS)}")
    if level not in game:
        raise ValueError(f"expert level must be one of {sorted(game)}, got {level!r}")
    return {**BASE, **game[level]}


class ExpertAgent(PIMCAgent):
    name = "expert"
    needs_state = True

    def __init__(self, env_name: str, seed: int = 0, env_options: dict | None = None, level: str = "expert",
                 top: int | None = None, prior: str | None = None,
                 leaf: str | None = None, policy_path=None, value_path=None, **pimc_options):
        preset = settings_for(env_name, level)
        opts = {k: preset[k] for k in ("n", "depth", "z", "prune", "work", "min_n", "rollout", "nest")}
        opts.update({k: v for k, v in pimc_options.items() if v is not None})
        super().__init__(env_name, seed, env_options, **opts)
        self.level = level
        self.top = int(preset["top"] if top is None else top)
        self.prior_kind = preset["prior"] if prior is None else prior
        self.leaf_kind = preset["leaf"] if leaf is None else leaf
        if self.prior_kind not in ("net", "normal"):
            raise ValueError(f"expert prior must be 'net' or 'normal', got {self.prior_kind!r}")
        if self.leaf_kind not in ("value", "position"):
            raise ValueError(f"expert leaf must be 'value' or 'position', got {self.leaf_kind!r}")
        if self.top < 0:
            raise ValueError(f"expert needs top >= 0 (0: every legal move), got {self.top}")
        self.net = None
        if self.prior_kind == "net" or self.top:
            from .rl.policy import cached_policy, checkpoint_path

            self.net = cached_policy(str(policy_path or checkpoint_path(env_name)))
            if self.net.obs_dim != self.game.obs_spec.size:
                raise ValueError(f"the policy of {env_name} reads observations of {self.net.obs_dim}, not "
                                 f"{self.game.obs_spec.size} ({self.env_options}): use prior=normal, top=0")
        self.value_net = None
        if self.leaf_kind == "value" and self.depth is not None:
            from .rl.value import load_value

            self.value_net = load_value(env_name, value_path)
            if self.value_net.obs_dim != self.game.obs_spec.size:
                raise ValueError(f"the value network of {env_name} reads observations of {self.value_net.obs_dim}, "
                                 f"not {self.game.obs_spec.size} ({self.env_options}): train one for these "
                                 f"options (python -m agents.rl.value) or use leaf=position")
            self._cutoff = self._leaf_value

    def _leaf_value(self, state, seat: int) -> float:
        """The learned value of ``seat``'s own observation of the (imagined) position."""
        return float(self.value_net.value(self.game.observe(state, seat)))

    def _prior(self, observation, action_mask, legal: list) -> tuple:
        """The policy's greedy move (or ``normal``'s, ``prior=normal``) and, with ``top=k``, only the policy's
        ``k`` most probable legal moves (the prior among them)."""
        if self.net is not None:
            p = self.net.probs(np.asarray(observation, np.float32)[None], np.asarray(action_mask)[None])[0]
        if self.prior_kind == "net":
            prior = max(legal, key=lambda a: p[a])
        else:
            prior = self._policy(observation, action_mask, self.rng)
        if self.top and len(legal) > self.top:
            cand = sorted(legal, key=lambda a: -p[a])[:self.top]
            if prior not in cand:
                cand[-1] = prior
            legal = sorted(cand)
        return prior, legal
