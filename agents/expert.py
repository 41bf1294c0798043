"""``expert``: determinized search guided by the learned networks (the policy as prior, the value at the leaves).

It is the ``pimc`` search of :mod:`agents.pimc` (imagined deals from ``game.sample_consistent``, every
candidate move played on in each by the ``normal`` rule, paired comparisons), with the trained networks of
the game in up to four places:

* **prior**: the shipped policy's greedy move (``agents/checkpoints/<game>.npz``) is the move the search
  keeps unless the imagined deals beat it by ``z`` standard errors (``pimc`` keeps ``normal``'s move);
* **candidates**: with ``top=k`` only the policy's ``k`` most probable legal moves are searched, so the
  imagined deals go to the moves worth comparing;
* **leaves**: a playout cut after ``depth`` actions is scored by the learned value of the seat's own
  observation there (:mod:`agents.rl.value`: the expected ``deal_value`` under ``normal`` play, from what the
  seat sees; ``leaf="position"``: the family's ``position_value`` of the imagined deal, as ``hard`` scores);
  a playout that reaches the end of the deal is scored exactly;
* **playouts** (``playout="net"``): every seat of the imagined deal plays the policy's greedy move on its own
  view of it, instead of the ``normal`` rule (``playout="rule"``, the default);
* **inference** (``belief=k``): ``k`` times as many imagined deals are drawn as played out, and those played
  out are a draw without replacement weighted by a learned belief of who holds what (:mod:`agents.rl.belief`,
  from the seat's own observation: how the others played), so the deals the table's play makes likely come
  first; ``belief_temp`` sharpens (> 1) or flattens (< 1) it.

The playouts of a batch of imagined deals run in lock step, so each network is called once per step for
all of them (one product of a batch, on one BLAS thread: :mod:`agents.rl.threads`).

It sees only what its seat may see, exactly as ``hard`` does: the engine state reaches it only through
``sample_consistent`` (``agents.base``), the networks read only the seat's observation. The settings per
game (:data:`SETTINGS`: ``expert`` for a mean of at most 100 ms a decision on one core, ``fast`` for at most
20 ms) were chosen on the development deals (``agents.seeds.DEVELOPMENT``); their ladder steps are measured on
the release's table deals (``agents.seeds.TABLE``). Options as for ``pimc`` plus ``top``,
``prior`` (``"net"`` or ``"normal"``), ``leaf`` (``"value"`` or ``"position"``), ``playout`` (``"rule"``,
``"net"`` or ``"side"``: :data:`PLAYOUTS`), ``belief`` (0: off) and ``belief_temp``; ``level`` is ``expert`` or
``fast`` (spec ``expert:level=fast``, preset ``expert_fast``).
"""
from __future__ import annotations

import numpy as np

from .pimc import PIMCAgent, deal_over

SETTINGS: dict = {
    "dominoes_v0": {"expert": {"n": 48, "depth": 8}, "fast": {"n": 12, "depth": 8}},
    "dominoes_ffa_v0": {"expert": {"n": 128, "depth": 0}, "fast": {"n": 12, "depth": 8}},
    "sea_goat_v0": {"expert": {"n": 96, "depth": 8, "top": 4, "playout": "side"},
                    "fast": {"n": 16, "depth": 8, "top": 4}},
    "boneyard_v0": {"expert": {"n": 96, "depth": 8, "top": 4}, "fast": {"n": 16, "depth": 8, "top": 4}},
    "donkey_v0": {"expert": {"n": 64, "depth": 8, "prior": "normal", "leaf": "position"},
                  "fast": {"n": 12, "depth": 8, "top": 4}},
    "queens_and_jacks_v0": {"expert": {"n": 64, "depth": 0, "top": 4}, "fast": {"n": 12, "depth": 0, "top": 4}},
    "beat_or_discard_v0": {"expert": {"n": 32, "depth": 16, "top": 3, "playout": "net"}, "fast": {"n": 8, "depth": 16}},
    "six_of_spades_v0": {"expert": {"n": 64, "depth": 16, "belief": 4, "playout": "net"},
                         "fast": {"n": 8, "depth": 16}},
}
"""Per game and level: the ``pimc`` options of the search (``n`` imagined deals, ``depth`` actions before the
leaf value; 0 = to the end of the deal) and the expert's own (``top``, ``prior``, ``leaf``, ``playout``, ``belief``).
Unlisted options: :data:`BASE`. Chosen on the development deals: ``agents/rl/BASELINES.md`` ("The expert")
lists what was tried."""

PLAYOUTS = ("rule", "net", "side")
"""Who plays on after the searched move: ``rule``, every seat by the rollout rule (``normal``); ``net``, every
seat by the shipped policy's greedy move; ``side``, the policy for the searching seat's own side (itself and
its partner) and the rule for the others, who are modelled as the rule-based bots they are likely to be."""

BASE = {"z": 1.0, "prune": 3.0, "work": 0, "min_n": 4, "rollout": "normal", "nest": 0, "objective": "points",
        "top": 0, "prior": "net", "leaf": "value", "playout": "rule", "belief": 0, "belief_temp": 1.0}


def settings_for(env_name: str, level: str) -> dict:
    game = SETTINGS.get(env_name)
    if game is None:
        raise KeyError(f"no expert settings for {env_name!r}; games: {sorted(SETTINGS)}")
    if level not in game:
        raise ValueError(f"expert level must be one of {sorted(game)}, got {level!r}")
    return {**BASE, **game[level]}


def _one_blas_thread() -> None:
    """The networks run batched, and the search is one core's work: a multi-threaded BLAS would wait for a
    free core inside each product (:mod:`agents.rl.threads`)."""
    from .rl.threads import single_thread_math

    single_thread_math()


class ExpertAgent(PIMCAgent):
    name = "expert"
    needs_state = True

    def __init__(self, env_name: str, seed: int = 0, env_options: dict | None = None, level: str = "expert",
                 top: int | None = None, prior: str | None = None,
                 leaf: str | None = None, playout: str | None = None, belief: int | None = None,
                 belief_temp: float | None = None, policy_path=None, value_path=None, belief_path=None,
                 **pimc_options):
        preset = settings_for(env_name, level)
        opts = {k: preset[k] for k in ("n", "depth", "z", "prune", "work", "min_n", "rollout", "nest", "objective")}
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
        self.playout = preset["playout"] if playout is None else playout
        if self.playout not in PLAYOUTS:
            raise ValueError(f"expert playout must be one of {PLAYOUTS}, got {self.playout!r}")
        if self.top < 0:
            raise ValueError(f"expert needs top >= 0 (0: every legal move), got {self.top}")
        self.net = None
        if self.prior_kind == "net" or self.top or self.playout != "rule":
            from .rl.policy import cached_policy, checkpoint_path

            _one_blas_thread()
            self.net = cached_policy(str(policy_path or checkpoint_path(env_name)))
            if self.net.obs_dim != self.game.obs_spec.size:
                raise ValueError(f"the policy of {env_name} reads observations of {self.net.obs_dim}, not "
                                 f"{self.game.obs_spec.size} ({self.env_options}): "
                                 f"use prior=normal, top=0, playout=rule")
        self.belief = int(preset["belief"] if belief is None else belief)
        self.belief_temp = float(preset["belief_temp"] if belief_temp is None else belief_temp)
        if self.belief < 0 or self.belief == 1:
            raise ValueError(f"expert belief must be 0 (off) or a pool of k >= 2 imagined deals per one played "
                             f"out, got {self.belief}")
        self.belief_net = None
        if self.belief:
            from .rl.belief import load_belief

            self.belief_net = load_belief(env_name, belief_path)
            if self.belief_net.obs_dim != self.game.obs_spec.size:
                raise ValueError(f"the belief network of {env_name} reads observations of "
                                 f"{self.belief_net.obs_dim}, not {self.game.obs_spec.size} ({self.env_options}): "
                                 f"train one for these options (python -m agents.rl.belief) or use belief=0")
        self.value_net = None
        if self.leaf_kind == "value" and self.depth is not None:
            from .rl.value import load_value

            _one_blas_thread()
            self.value_net = load_value(env_name, value_path)
            if self.value_net.obs_dim != self.game.obs_spec.size:
                raise ValueError(f"the value network of {env_name} reads observations of {self.value_net.obs_dim}, "
                                 f"not {self.game.obs_spec.size} ({self.env_options}): train one for these "
                                 f"options (python -m agents.rl.value) or use leaf=position")
            self._cutoff = self._leaf_value

    batched = True

    def _sampler(self, state, seat: int, n: int):
        """With ``belief=k``: ``k * n`` imagined deals drawn by ``sample_consistent``, served in the order of a
        Gumbel top-k draw without replacement weighted by the belief network's likelihood of each
        (:mod:`agents.rl.belief`, raised to ``belief_temp``), so the first ``n`` are a draw that favours the
        deals the other seats' play makes likely."""
        if self.belief_net is None:
            return super()._sampler(state, seat, n)
        from .rl.belief import log_likelihood

        game, rng = self.game, self.krng
        pool = [game.sample_consistent(state, seat, rng) for _ in range(self.belief * n)]
        ll = log_likelihood(self.belief_net.log_probs(game.observe(state, seat)), [d.hands for d in pool], seat)
        u = (np.array([rng.next_u64() >> 11 for _ in pool], np.float64) + 0.5) / float(1 << 53)
        order = np.argsort(-(self.belief_temp * ll - np.log(-np.log(u))), kind="stable")
        it = iter([pool[i] for i in order])
        return lambda: next(it)

    def _evaluate(self, states: list, deals: int, seat: int, nest: int) -> list:
        """The playouts of a batch of children, in lock step: each step asks the policy network once for
        every playout whose seat to move has a choice (``playout="net"``; the rollout rule otherwise), and
        the leaves cut after ``depth`` actions are scored by one call of the value network."""
        if nest:
            return super()._evaluate(states, deals, seat, nest)
        game = self.game
        out = [0.0] * len(states)
        left = [self.depth] * len(states)
        live = list(range(len(states)))
        leaves = []
        net = self.net if self.playout != "rule" else None
        side = game.side_of(seat)
        own_only = self.playout == "side"
        move = self._rollout_move
        while live:
            ask, nxt = [], []
            for i in live:
                s = states[i]
                if deal_over(s, deals):
                    out[i] = self._value(s, seat)
                    continue
                if left[i] is not None:
                    if left[i] <= 0:
                        leaves.append(i)
                        continue
                    left[i] -= 1
                legal = s.legal_actions()
                self._moves += 1
                if len(legal) == 1:
                    s.apply_action(legal[0])
                elif net is None or (own_only and game.side_of(s.current_player) != side):
                    s.apply_action(move(s, legal))
                else:
                    ask.append((i, legal))
                    continue
                nxt.append(i)
            if ask:
                obs = np.stack([game.observe(states[i], states[i].current_player) for i, _ in ask])
                mask = np.zeros((len(ask), game.num_actions), np.int8)
                for r, (_, legal) in enumerate(ask):
                    mask[r, legal] = 1
                acts = net.masked_logits(obs.astype(np.float32), mask).argmax(axis=-1)
                for r, (i, _) in enumerate(ask):
                    states[i].apply_action(int(acts[r]))
                    nxt.append(i)
            live = nxt
        if leaves:
            if self.value_net is not None:
                v = self.value_net.value(np.stack([game.observe(states[i], seat) for i in leaves]))
                for i, x in zip(leaves, v):
                    out[i] = float(x)
            else:
                for i in leaves:
                    out[i] = self._cutoff(states[i], seat)
        return out

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
