"""The documented training settings of every shipped checkpoint (``kozel-train`` / ``examples/train.py`` and
``examples/reproduce_baselines.py --train`` start from these; command-line flags override them).

:class:`PPOConfig` holds every setting of a run (plain data, no torch). ``DEFAULT`` applies to every game;
``GAMES[env]`` overrides it per game. The budget is ``total_steps``: learner decisions collected, so a run
is reproducible (given ``seed`` and one torch thread) whatever the machine's speed; the warm start imitates
``bc_steps`` decisions before them. ``kozel-train --steps N`` (``python -m agents.rl.train``) is the whole
budget: N shared out between the two in these proportions.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class PPOConfig:
    """Every setting of a PPO run (:class:`agents.rl.ppo.PPOTrainer`); the documented values per game are
    :data:`DEFAULT` and :data:`GAMES` (:func:`config_for`). Plain data only: it is saved as JSON."""

    env: str = "dominoes_v0"
    env_options: dict = field(default_factory=dict)
    seed: int = 0
    total_steps: int = 2_000_000       # learner decisions collected (the training budget)
    num_envs: int = 128
    rollout_ticks: int = 64            # decisions per match copy per iteration
    hidden: tuple = (256, 256)
    central_critic: bool = True
    lr: float = 3e-4
    lr_final: float = 1e-4             # linear decay to this
    epochs: int = 4
    minibatch: int = 2048
    clip: float = 0.2
    vf_coef: float = 0.5
    ent_coef: float = 0.01
    ent_final: float = 0.003
    max_grad_norm: float = 0.5
    gamma: float = 1.0
    lam: float = 0.95
    shaping: float = 0.5
    selfplay: float = 0.5              # share of matches where the learner plays every seat
    bots: dict = field(default_factory=lambda: {"random": 1.0})  # bot opponents and their weights
    bot_share: float = 0.5             # among non-self-play matches: share against bots (rest: snapshots)
    pool_size: int = 8
    snapshot_every: int = 10           # iterations between snapshots added to the pool
    eval_every: int = 20               # iterations between evaluations (0: never)
    eval_seeds: int = 40
    eval_opponents: tuple = ("random",)
    torch_threads: int = 1
    bc_steps: int = 0                  # warm start: decisions of the teacher bot imitated before PPO (0: off)
    bc_teacher: str = "normal"
    bc_epochs: int = 2                 # passes over each teacher rollout
    bc_vs_bots: float = 0.5            # share of warm-start matches where the teacher meets the training bots
    bc_lr: float = 1e-3
    bc_dagger: float = 0.0             # last share of the cloning decisions collected DAgger-style
    bc_data: str = ""                  # a labels folder (agents.rl.labels): imitate its positions, not a live teacher
    bc_target: str = "move"            # with bc_data: "move" (the teacher's move) or "soft" (its chance of being best)
    value_warmup: int = 0              # first PPO iterations that train the critic only (after a warm start)
    init_from: str = ""                # start the actor from this policy .npz ("shipped": the shipped checkpoint)
    vector: bool = False               # collect through the batched vector env (VectorCollector; vector.BATCHED)
    precision: str = "float32"         # the PPO update's matrix products: "float32" or "bfloat16" (autocast;
                                       # fast where the CPU has bfloat16 instructions: AVX512_BF16 or AMX)

    def to_json(self) -> dict:
        d = asdict(self)
        d["hidden"] = list(self.hidden)
        d["eval_opponents"] = list(self.eval_opponents)
        return d

    @classmethod
    def from_json(cls, d: dict) -> PPOConfig:
        d = dict(d)
        d["hidden"] = tuple(d.get("hidden", (256, 256)))
        d["eval_opponents"] = tuple(d.get("eval_opponents", ("random",)))
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in d.items() if k in known})


DEFAULT = {
    "seed": 0,
    "total_steps": 2_000_000,
    "num_envs": 128,
    "rollout_ticks": 64,
    "hidden": (256, 256),
    "central_critic": True,
    # warm start: imitate the normal bot (300k of its decisions, half of them against the training bots)
    "bc_steps": 300_000,
    "bc_teacher": "normal",
    "value_warmup": 15,
    # PPO fine-tuning: small steps, little entropy, mostly against the bots it must beat
    "lr": 1e-4,
    "lr_final": 5e-5,
    "ent_coef": 0.002,
    "ent_final": 0.001,
    "selfplay": 0.2,
    "bots": {"random": 0.2, "normal": 0.8},
    "bot_share": 0.8,
    "eval_opponents": ("random", "normal"),
    "eval_every": 25,
    "eval_seeds": 50,
}

# The dominoes recipe where the default one plateaued (dominoes_v0, sea_goat_v0): a wider network and five
# times the imitation. Imitating 1.5M of normal's decisions with 512 units reproduces 96% of its moves (300k with
# 256 units: 91%), and the clone alone then scores 46.8% against normal instead of 41.0% (200 held-out sets).
WIDE = {"hidden": (512, 512), "bc_steps": 1_500_000}

GAMES: dict = {
    # the warm start from the normal bot's self-play only; still improving at 4M decisions
    "queens_and_jacks_v0": {"bc_vs_bots": 0.0, "total_steps": 8_000_000},
    "dominoes_v0": {**WIDE, "total_steps": 4_000_000},
    "sea_goat_v0": {**WIDE, "total_steps": 12_000_000},
    # still improving against normal at 2M decisions
    "beat_or_discard_v0": {"total_steps": 8_000_000},
    "donkey_v0": {"total_steps": 5_000_000},
    # issue 35's learning curves: still gaining against normal at 16M (six_of_spades_v0) and 8M decisions
    "six_of_spades_v0": {"total_steps": 16_000_000},
    "boneyard_v0": {"total_steps": 8_000_000},
}
"""Per-game overrides. How the shipped checkpoints were actually produced (agents/rl/BASELINES.md): trained
from scratch in one piece (``train.py --env <game> --ship``, so ``reproduce_baselines.py --train`` reruns
them): queens_and_jacks_v0, dominoes_v0 and dominoes_ffa_v0. In pieces
(``train.py --resume --steps N``, whose lr and entropy schedules continue from the resume point towards the
new budget): sea_goat_v0 (4M, then on to 8M and 12M); six_of_spades_v0, boneyard_v0 and beat_or_discard_v0
(the pieces of their learning curves, ``python -m agents.rl.curve``: 1M, then on to 2M, 4M, 8M, 12M and 16M;
boneyard_v0 and beat_or_discard_v0 1M, 4M, 8M); donkey_v0 from the time the machine was shared (a first run
stopped at 0.7-1M decisions, then resumed to 2M, 3M and 5M; a one-piece run to 5M tied with it on the held-out
deals, 57.9% against 57.9%, so the policy shipped before stayed). dominoes_v0 and donkey_v0 were then
fine-tuned (:data:`FINETUNE`).
``--train`` runs each budget in one piece."""


FINETUNE_DEFAULT = {
    "init_from": "shipped",
    "bc_steps": 0,
    "value_warmup": 15,
    "total_steps": 2_000_000,
    "lr": 5e-5,
    "lr_final": 2e-5,
    "bots": {"normal": 1.0},
    "eval_every": 50,
    "eval_seeds": 100,
    "eval_opponents": ("normal",),
}
"""The fine-tuning stage (``kozel-train --finetune``): PPO from a trained policy's weights
(``init_from``: the shipped checkpoint, or a policy file) instead of a warm start by imitation, the learning
rate from the first run's final one (5e-5) down to 2e-5, the bot matches all against ``normal``; the critic starts
fresh, so its first ``value_warmup`` iterations train it alone. The game's own layout (``hidden``) and
options stay those of :data:`GAMES`."""

FINETUNE: dict = {
    # issue 15: 58.8% and 58.1% against normal on the table deals before; after: BASELINES.md
    "dominoes_v0": {"total_steps": 5_000_000},
    "donkey_v0": {"total_steps": 4_000_000},
}
"""Per-game budgets of the fine-tuning stage, for the games whose shipped policy came from it (so that
``reproduce_baselines.py --train`` reruns it after the first run). Any other game can be fine-tuned with the
default budget. dominoes_v0 and donkey_v0 ran in two pieces (``--finetune --steps 2500000``, then ``--resume
--steps 5000000``; donkey_v0 2M then 4M); ``--train`` runs each budget in one piece. beat_or_discard_v0 was
fine-tuned too (2M) and did not beat the policy shipped then, which stayed until its learning curve's 8M policy
replaced it (2026-12-05); boneyard_v0's fine-tuned policy (2M, from
a one-piece 2M run) shipped until its learning curve's 8M policy replaced it (2026-12-05)."""


def config_for(env_name: str, finetune: bool = False, **overrides) -> PPOConfig:
    """The :class:`PPOConfig` of ``env_name``; ``finetune``: of its fine-tuning stage
    (:data:`FINETUNE_DEFAULT`, :data:`FINETUNE`) over the game's settings."""
    d = dict(DEFAULT)
    d.update(GAMES.get(env_name, {}))
    if finetune:
        d.update(FINETUNE_DEFAULT)
        d.update(FINETUNE.get(env_name, {}))
    d.update({k: v for k, v in overrides.items() if v is not None})
    unknown = sorted(set(d) - set(PPOConfig.__dataclass_fields__))
    if unknown:
        raise KeyError(f"unknown PPO setting(s) {unknown}; known: {sorted(PPOConfig.__dataclass_fields__)}")
    d["env"] = env_name
    return PPOConfig.from_json(d)
