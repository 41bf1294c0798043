"""RLlib glue (Ray's new API stack: RLModule, Learner, EnvRunner): any registered Kozel environment as an
RLlib ``MultiAgentEnv`` and a multi-agent PPO config with action masking; the trained modules as arena
agents are :mod:`agents.integrations.rllib` (they run torch, which the environments never need).
``examples/integrations/rllib_ppo.py`` is the runnable recipe; this module imports Ray (``import kozel_env``
does not).

    from kozel_env.integrations.rllib import ppo_config
    algo = ppo_config("dominoes_v0", opponents="normal").build_algo()
    for _ in range(10):
        result = algo.train()

**The env** (:class:`KozelMultiAgentEnv`, env_config keys ``env``, ``env_options``, ``opponents``) wraps the
AEC env made with ``infos="flat"`` (the same float keys for every agent at every step, which RLlib's episode
buffers can stack) and ``illegal_action="lose"`` (a masked-out id ends the episode, the offender's side
gets -1: what RLlib's env checker, which steps unmasked random actions, expects; the trained policy never
plays one, its logits are masked). Observations are renamed for RLlib's action-masking module:
``{"observations": float32, "action_mask": float32 0/1}``. Turn-based play follows PettingZoo's AEC rule:
each step returns the observation of the one agent to move next, with the reward it collected since it last
acted; the step that ends the episode returns every learner seat that acted, ``terminated`` and its last
reward. So one env step is one learner decision.

**Opponents.** ``opponents=None`` (self-play): the learner plays every seat. ``opponents="normal"`` (any
:func:`agents.make_agent` spec): at every episode one side, drawn at random, is the learner's, and the other
seats are played inside the env by that bot (one bot per seat, freshly seeded each episode), so RLlib only
sees the learner's seats. Episodes decided before the learner's first decision (a deal that ends in its
set-up) are skipped, as in ``agents/rl/ppo.py``.

**RLlib's own masking example, unchanged.** A config written as RLlib's action-masking example writes it (no
``.multi_agent()``: one policy, RLlib's single-agent env runner) needs a single-agent env whose observation
space is ``Dict({"observations", "action_mask"})``: that is :class:`SingleAgentRLlibEnv` (env_config keys
``env``, ``env_options``, ``opponents`` (default ``"random"``), ``seat``, ``side``), the gymnasium view of
:class:`kozel_env.wrappers.SingleAgentEnv` with the keys renamed and the mask as float32::

    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    config = (PPOConfig().environment(SingleAgentRLlibEnv, env_config={"env": "dominoes_v0", "opponents": "normal"})
              .rl_module(rl_module_spec=RLModuleSpec(module_class=ActionMaskingTorchRLModule)))

:class:`KozelMultiAgentEnv` is for configs with ``.multi_agent()`` (what :func:`ppo_config` builds).

**Policies.** ``policies="shared"``: one RLModule ("shared") for every seat (parameter sharing);
``"per_side"``: one per side ("side_0", "side_1", ...; in every-man-for-himself games one per seat). The
module is RLlib's own ``ActionMaskingTorchRLModule`` (``ray.rllib.examples.rl_modules.classes``): the PPO
default MLP whose action logits get ``log(mask)`` (clamped) added, in exploration, inference and training.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from ..registry import ENVIRONMENTS, load

if TYPE_CHECKING:
    from pettingzoo import AECEnv
    from ray.rllib.algorithms.ppo import PPOConfig

RESERVED = ("infos", "illegal_action", "render_mode")
"""AEC env options the glue sets itself (``infos="flat"``, ``illegal_action="lose"``, no rendering)."""
POLICIES = ("shared", "per_side")
SELF_PLAY = (None, "", "self", "selfplay", "self-play")


def _check_options(env_name: str, env_options: dict | None) -> dict:
    if env_name not in ENVIRONMENTS:
        raise KeyError(f"unknown environment {env_name!r}; known: {sorted(ENVIRONMENTS)}")
    opts = dict(env_options or {})
    bad = sorted(k for k in opts if k in RESERVED)
    if bad:
        raise ValueError(f"env_options {bad} are set by the RLlib glue (infos='flat', illegal_action='lose')")
    return opts


def make_aec(env_name: str, env_options: dict | None = None) -> AECEnv:
    """The AEC env as the glue uses it: ``infos="flat"``, ``illegal_action="lose"``."""
    return load(env_name).env(infos="flat", illegal_action="lose", **_check_options(env_name, env_options))


def sides_of(env_name: str, env_options: dict | None = None) -> dict:
    """``agent name -> side`` (``player_0`` ... by seat)."""
    u = make_aec(env_name, env_options).unwrapped
    return {a: u.game.side_of(i) for i, a in enumerate(u.possible_agents)}


def module_ids(env_name: str, env_options: dict | None = None, policies: str = "shared") -> dict:
    """``agent name -> RLModule id`` for ``policies`` ("shared" or "per_side")."""
    if policies not in POLICIES:
        raise ValueError(f"policies={policies!r}: one of {POLICIES}")
    sides = sides_of(env_name, env_options)
    if policies == "shared":
        return dict.fromkeys(sides, "shared")
    return {a: f"side_{s}" for a, s in sides.items()}


def _rllib_obs(obs: dict) -> dict:
    return {"observations": np.asarray(obs["observation"], np.float32),
            "action_mask": np.asarray(obs["action_mask"], np.float32)}


class KozelMultiAgentEnv(MultiAgentEnv):
    """A Kozel AEC env as an RLlib ``MultiAgentEnv`` (see the module doc). ``config`` (RLlib's env_config):
    ``env`` (registered name), ``env_options`` (rules options, ``episode``, ``reward``), ``opponents``
    (None for self-play, or a bot spec)."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        cfg = dict(config or {})
        self.env_name = cfg.get("env", "dominoes_v0")
        self.env_options = _check_options(self.env_name, cfg.get("env_options"))
        opp = cfg.get("opponents")
        self.opponents = None if opp in SELF_PLAY else str(opp)
        self.aec = make_aec(self.env_name, self.env_options)
        u = self.aec.unwrapped
        game = u.game
        self.game = game
        self.possible_agents = list(u.possible_agents)
        self.agents = list(self.possible_agents)
        self._agent_ids = set(self.possible_agents)
        self.side = {a: game.side_of(i) for i, a in enumerate(self.possible_agents)}
        self.num_sides = game.num_sides
        obs_space = gym.spaces.Dict({
            "observations": u.observation_spaces[self.possible_agents[0]]["observation"],
            "action_mask": gym.spaces.Box(0.0, 1.0, (game.num_actions,), np.float32),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: gym.spaces.Discrete(game.num_actions) for a in self.possible_agents}
        self.observation_space = gym.spaces.Dict(self.observation_spaces)
        self.action_space = gym.spaces.Dict(self.action_spaces)
        worker = int(getattr(config, "worker_index", 0) or 0)
        vector = int(getattr(config, "vector_index", 0) or 0)
        self._rng = np.random.default_rng([worker, vector])
        self._bots: dict = {}
        self._acted: set = set()
        self.skipped_episodes = 0
        """Episodes decided before the learner's first decision (skipped, never shown to RLlib)."""
        self.illegal_actions = 0
        """Episodes ended by a masked-out action (only RLlib's env checker plays those)."""

    # ---------------------------------------------------------------- episodes
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self.aec.reset(seed=int(seed), options=options)
        else:
            self.aec.reset(options=options)
        for _ in range(1000):
            self._assign_seats()
            obs, _, _, _, infos = self._advance()
            if obs:
                return obs, infos
            self.skipped_episodes += 1
            self.aec.reset(options=options)  # the next episode of the env's seed stream
        raise RuntimeError(f"{self.env_name}: 1000 episodes in a row ended before the learner's first decision")

    def _assign_seats(self) -> None:
        self._acted = set()
        self._bots = {}
        if self.opponents is None:
            self.agents = list(self.possible_agents)
            return
        from agents import make_agent  # the bots live above kozel_env; imported only when asked for

        side = int(self._rng.integers(self.num_sides))
        self.agents = [a for a in self.possible_agents if self.side[a] == side]
        for a in self.possible_agents:
            if self.side[a] != side:
                bot = make_agent(self.opponents, self.env_name, seed=int(self._rng.integers(1 << 62)),
                                 env_options=self.env_options)
                if hasattr(bot, "reset"):
                    bot.reset()
                self._bots[a] = bot

    def _advance(self):
        """Play the bots' moves and dead steps until a learner seat must decide or the episode is over."""
        obs_d, rew_d, term_d, trunc_d, info_d = {}, {}, {}, {}, {}
        env = self.aec
        while env.agents:
            name = env.agent_selection
            obs, rew, term, trunc, info = env.last()
            if term or trunc:
                if name in self._acted:
                    obs_d[name], rew_d[name], info_d[name] = _rllib_obs(obs), float(rew), dict(info)
                    term_d[name], trunc_d[name] = bool(term), bool(trunc)
                env.step(None)
                continue
            if name in self._bots:
                from agents.base import decide

                env.step(decide(self._bots[name], env, obs["observation"], obs["action_mask"]))
                continue
            obs_d[name], info_d[name] = _rllib_obs(obs), dict(info)
            if name in self._acted:  # the reset observation carries no reward
                rew_d[name] = float(rew)
            term_d[name] = trunc_d[name] = False
            break
        over = not env.agents
        term_d["__all__"] = over and not any(trunc_d.values())
        trunc_d["__all__"] = over and any(v for k, v in trunc_d.items() if k != "__all__")
        return obs_d, rew_d, term_d, trunc_d, info_d

    def step(self, action_dict: dict) -> tuple[dict, dict, dict, dict, dict]:
        name = self.aec.agent_selection
        if name not in action_dict:
            raise KeyError(f"{self.env_name}: {name} is to move, got actions for {sorted(action_dict)}")
        before = self.aec.unwrapped._ended
        self._acted.add(name)
        self.aec.step(int(action_dict[name]))
        if self.aec.unwrapped._ended and not before:
            self.illegal_actions += 1
        return self._advance()


class SingleAgentRLlibEnv(gym.Env):
    """One seat (or side) of a Kozel env against bots, as the single-agent gymnasium env RLlib's action-masking
    example expects: observations ``{"observations": float32, "action_mask": float32 0/1}`` (see the module
    doc). ``config`` (RLlib's env_config): ``env``, ``env_options`` (rules options, ``episode``, ``reward``),
    ``opponents`` (a bot spec, default ``"random"``), ``seat`` (None: drawn each episode) and ``side``;
    infos are ``"flat"`` and a masked-out action loses the episode, as in :class:`KozelMultiAgentEnv`."""

    def __init__(self, config: dict | None = None):
        from ..wrappers import SingleAgentEnv

        cfg = dict(config or {})
        self.env_name = cfg.get("env", "dominoes_v0")
        self.env_options = _check_options(self.env_name, cfg.get("env_options"))
        opp = cfg.get("opponents", "random")
        if opp in SELF_PLAY:
            raise ValueError(f"opponents={opp!r}: the single-agent env needs bots for the other seats (a bot spec "
                             f"such as 'random' or 'normal'); self-play is KozelMultiAgentEnv with .multi_agent()")
        self.view = SingleAgentEnv(self.env_name, opponents=opp, seat=cfg.get("seat"), side=bool(cfg.get("side")),
                                   observation="dict", infos="flat", illegal_action="lose", **self.env_options)
        """The wrapped :class:`kozel_env.wrappers.SingleAgentEnv` (``observation="dict"``)."""
        n = self.view.game.num_actions
        self.observation_space = gym.spaces.Dict({
            "observations": self.view.observation_space["observation"],
            "action_mask": gym.spaces.Box(0.0, 1.0, (n,), np.float32),
        })
        self.action_space = self.view.action_space
        self.illegal_actions = 0
        """Episodes ended by a masked-out action (the masked policy never plays one)."""

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        obs, info = self.view.reset(seed=seed, options=options)
        return _rllib_obs(obs), info

    def step(self, action) -> tuple[dict, float, bool, bool, dict]:
        obs, reward, term, trunc, info = self.view.step(action)
        self.illegal_actions += int(info.get("illegal_action", 0.0) == 1.0)
        return _rllib_obs(obs), reward, term, trunc, info


# ---------------------------------------------------------------- PPO config
def ppo_config(env: str = "dominoes_v0", env_options: dict | None = None, opponents: str | None = None,
               policies: str = "shared", num_env_runners: int = 0, num_envs_per_env_runner: int = 1,
               num_learners: int = 0, train_batch: int = 4096, minibatch: int = 1024, epochs: int = 4,
               lr: float = 3e-4, entropy: float = 0.01, gamma: float = 1.0, lam: float = 0.95,
               hidden: tuple = (256, 256), seed: int | None = 0) -> PPOConfig:
    """A multi-agent PPO config (new API stack) for ``env``: RLlib's action-masking RLModule, one module for
    every seat or one per side, bots or self-play (see the module doc). ``num_env_runners`` (sampling
    processes, Ray actors; 0 samples in the driver), ``num_envs_per_env_runner`` (env copies each runner
    steps in one batch) and ``num_learners`` (learner actors; 0: the driver learns) are the knobs that
    scale. ``train_batch``: learner decisions per iteration (env steps: one per learner decision)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    env_options = _check_options(env, env_options)
    mapping = module_ids(env, env_options, policies)
    ids = sorted(set(mapping.values()))
    model = DefaultModelConfig(fcnet_hiddens=list(hidden), fcnet_activation="relu", head_fcnet_hiddens=[],
                               vf_share_layers=False)

    def policy_mapping_fn(agent_id, episode=None, **kwargs):
        return mapping[agent_id]

    cfg = (
        PPOConfig()
        .environment(KozelMultiAgentEnv, env_config={"env": env, "env_options": env_options, "opponents": opponents})
        .multi_agent(policies=set(ids), policy_mapping_fn=policy_mapping_fn, policies_to_train=ids)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            mid: RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model) for mid in ids}))
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=num_envs_per_env_runner,
                     rollout_fragment_length="auto", episodes_to_numpy=False)
        .learners(num_learners=num_learners)
        .training(train_batch_size_per_learner=train_batch, minibatch_size=minibatch, num_epochs=epochs, lr=lr,
                  entropy_coeff=entropy, gamma=gamma, lambda_=lam)
        .debugging(seed=seed)
    )
    return cfg


def learner_stats(result: dict) -> dict:
    """``module id -> {"policy_loss", "vf_loss", "total_loss", "entropy"}`` of one ``algo.train()`` result."""
    out = {}
    for mid, stats in (result.get("learners") or {}).items():
        if mid.startswith("__"):
            continue
        keep = {k: float(stats[k]) for k in ("policy_loss", "vf_loss", "total_loss", "entropy", "mean_kl_loss")
                if k in stats}
        if keep:
            out[mid] = keep
    return out


def decisions_sampled(result: dict) -> int:
    """Learner decisions sampled so far (env steps: the glue makes one env step per learner decision)."""
    er = result.get("env_runners") or {}
    for key in ("num_env_steps_sampled_lifetime", "num_env_steps_sampled"):
        if key in er:
            return int(er[key])
    return int(result.get("num_env_steps_sampled_lifetime", 0))


def finite(stats: dict) -> bool:
    return all(math.isfinite(v) for s in stats.values() for v in s.values())
