"""The documented training settings of every shipped checkpoint (``examples/train.py`` and
``examples/reproduce_baselines.py --train`` start from these; command-line flags override them).

``DEFAULT`` applies to every game; ``GAMES[env]`` overrides it per game. The budget is ``total_steps``:
learner decisions collected, so a run is reproducible (given ``seed`` and one torch thread) whatever the
machine's speed.
"""
from __future__ import annotations

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

GAMES: dict = {
    # trained from scratch in one piece (13 minutes on an idle core): the warm start from the normal bot's
    # self-play only
    "queens_and_jacks_v0": {"bc_vs_bots": 0.0, "total_steps": 4_000_000},
    # trained from scratch in one piece (15 and 16 minutes on an idle core)
    "dominoes_v0": {"total_steps": 4_000_000},
    "sea_goat_v0": {"total_steps": 4_000_000},
    # still improving against normal at 2M decisions: trained on to 5M (beat_or_discard_v0: 8M)
    "beat_or_discard_v0": {"total_steps": 8_000_000},
    "donkey_v0": {"total_steps": 5_000_000},
}
"""Per-game overrides. How the shipped checkpoints were actually produced (agents/rl/BASELINES.md): every game
but queens_and_jacks_v0, dominoes_v0 and sea_goat_v0 (one piece each: ``train.py --env <game>``) was trained
in pieces for lack of machine time -- a first run (budget 1M, or 1.5M for dominoes_ffa_v0, stopped at 0.7-1M
decisions), then ``train.py --resume --steps 2000000`` (beat_or_discard_v0 and donkey_v0: then ``--resume
--steps 3000000`` and ``--resume --steps 5000000``; beat_or_discard_v0 then ``--steps 8000000``); a resumed
run's lr and entropy schedules continue from the resume point towards the new budget. ``--train`` runs each
budget in one piece."""


def config_for(env_name: str, **overrides):
    """The :class:`~agents.rl.ppo.PPOConfig` of ``env_name`` (imports torch)."""
    from .ppo import PPOConfig

    d = dict(DEFAULT)
    d.update(GAMES.get(env_name, {}))
    d.update({k: v for k, v in overrides.items() if v is not None})
    unknown = sorted(set(d) - set(PPOConfig.__dataclass_fields__))
    if unknown:
        raise KeyError(f"unknown PPO setting(s) {unknown}; known: {sorted(PPOConfig.__dataclass_fields__)}")
    d["env"] = env_name
    return PPOConfig.from_json(d)
