"""The one PettingZoo ``AECEnv`` adapter that every Kozel environment subclasses.

A subclass names its game and how to build it from the rules options; everything else -- seats and agent
names, spaces, the observation dict, the exact action mask, rewards, ``infos``, bad-input errors, seeding,
rendering, the oracle ``state()`` -- lives here once. It follows PettingZoo classic conventions (agents
``player_0``..., ``{"observation", "action_mask"}``, ``render_mode`` "ansi"/"human", dead steps with
``None``) without the standard wrapper stack: inputs are validated here, cheaply, and a bad action raises
:class:`~kozel_env.core.errors.IllegalActionError` naming the move and the legal moves, leaving the game
unchanged.

Environment options (every env): ``render_mode`` (None, "ansi", "human"); ``episode`` -- "match" (default,
the whole match) or "deal" (one deal per episode); ``reward`` -- "outcome" (default: +1 to the winners and
-1 to the losers/goats at the end of the episode, 0 before) or "points" (at the end of every deal, each seat
gets the deal's points relative to the mean of all seats: zero-sum). Every other keyword is a rules option
of the game (see its rules config).
"""
from __future__ import annotations

import warnings

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from .errors import IllegalActionError, InvalidOptionError
from .game import Game, State
from .rng import Rng, seed_from_entropy

EPISODES = ("match", "deal")
REWARDS = ("outcome", "points")


class KozelEnv(AECEnv):
    metadata = {"name": "kozel", "render_modes": ["ansi", "human"], "is_parallelizable": False,
                "render_fps": 2}

    # ---------------------------------------------------------------- subclass hooks
    @classmethod
    def make_game(cls, rules_options: dict) -> Game:
        """Build the game (engine + rules config) from the user's rules options."""
        raise TypeError(f"{cls.__name__} must define make_game")  # pragma: no cover

    # ---------------------------------------------------------------- construction
    def __init__(self, render_mode: str | None = None, episode: str = "match", reward: str = "outcome",
                 **rules_options):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidOptionError(f"render_mode must be one of {self.metadata['render_modes']} or None, "
                                     f"got {render_mode!r}")
        if episode not in EPISODES:
            raise InvalidOptionError(f"episode must be one of {EPISODES}, got {episode!r}")
        if reward not in REWARDS:
            raise InvalidOptionError(f"reward must be one of {REWARDS}, got {reward!r}")
        self.render_mode = render_mode
        self.episode = episode
        self.reward_mode = reward
        self.game = self.make_game(rules_options)
        g = self.game
        n = g.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0.0, g.obs_spec.high, (g.obs_spec.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (g.num_actions,), np.int8),
            }) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(g.num_actions) for a in self.possible_agents}
        self.state_space = spaces.Box(0.0, g.oracle_spec.high, (g.oracle_spec.size,), np.float32)
        self._seeder = None
        self._st: State | None = None
        self._legal = None
        self._rewarded = False
        self._zero = {a: 0.0 for a in self.possible_agents}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ---------------------------------------------------------------- episode
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new episode. ``seed`` makes it reproducible on any machine; ``options`` fix the deal and
        the match situation (hands, leader, scores, ...; see the game's setup). Invalid options raise
        :class:`InvalidOptionError`."""
        if seed is not None:
            self._seeder = Rng(seed)
        elif self._seeder is None:
            self._seeder = Rng(seed_from_entropy())
        if not isinstance(options, (dict, type(None))):
            raise InvalidOptionError(f"options must be a dict, got {type(options).__name__}")
        setup = dict(options or {})
        if "single_deal" in setup:
            raise InvalidOptionError("use env(episode='deal') instead of the single_deal option")
        known = self.game.state_class.SETUP_KEYS
        unknown = sorted(k for k in setup if k not in known)
        if unknown:  # a warning, not an error: PettingZoo's api_test passes options it made up
            warnings.warn(f"{self.metadata['name']}: ignoring unknown reset option(s) {unknown}; known: "
                          f"{sorted(known - {'single_deal'})}", stacklevel=2)
            for k in unknown:
                del setup[k]
        if self.episode == "deal":
            setup["single_deal"] = True
        self._st = self.game.new_state(self._seeder.spawn(), setup)
        self.agents = self.possible_agents[:]
        self.rewards = dict(self._zero)
        self._cumulative_rewards = dict(self._zero)
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._legal = None
        self._rewarded = False
        self._skip_agent_selection = None
        if self._st.terminal:  # over before any decision (beat_or_discard C1.14: four of a kind dealt)
            self._on_deal_end(self._st)
            self.terminations = {a: True for a in self.agents}
            self.agent_selection = self.possible_agents[0]
        else:
            self.agent_selection = self.possible_agents[self._st.current_player]

    @property
    def game_state(self) -> State:
        """The engine state (full information). For bots with search, analysis and tests; not for policies."""
        self._require_reset()
        return self._st

    def _require_reset(self) -> None:
        if self._st is None:
            raise RuntimeError("call reset() before using the environment")

    def legal_actions(self) -> list:
        """Legal action ids of the agent to move (cached until the next step)."""
        if self._legal is None:
            self._require_reset()
            self._legal = self._st.legal_actions()
        return self._legal

    # ---------------------------------------------------------------- observation
    def observe(self, agent: str) -> dict:
        self._require_reset()
        seat = self.agent_name_mapping[agent]
        mask = np.zeros(self.game.num_actions, np.int8)
        if agent == self.agent_selection and not self._st.terminal:
            mask[self.legal_actions()] = 1
        return {"observation": self.game.observe(self._st, seat), "action_mask": mask}

    def state(self) -> np.ndarray:
        """Full-information (oracle) view for centralized critics; never give it to a policy."""
        self._require_reset()
        return self.game.oracle(self._st)

    # ---------------------------------------------------------------- acting
    def step(self, action) -> None:
        self._require_reset()
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            if action is not None:
                raise IllegalActionError(f"{agent} is done (the episode is over): the only valid action is "
                                         f"None, got {action!r}")
            self._was_dead_step(None)
            return
        a = self._check_action(agent, action)
        st = self._st
        if self._rewarded:
            self.rewards = dict(self._zero)
            self._rewarded = False
        self._cumulative_rewards[agent] = 0.0
        deals = st.deals_played
        st.apply_action(a)
        self._legal = None
        if st.deals_played != deals or st.terminal:
            self._on_deal_end(st)
        if st.terminal:
            self.terminations = {x: True for x in self.agents}
            nxt = (self.agent_name_mapping[agent] + 1) % self.num_agents
            self.agent_selection = self.possible_agents[nxt]
        else:
            self.agent_selection = self.possible_agents[st.current_player]
        if self.render_mode == "human":
            self.render()

    def _check_action(self, agent: str, action) -> int:
        legal = self.legal_actions()
        if action is None:
            raise IllegalActionError(f"{agent} must act (None is only for agents that are done); legal "
                                     f"moves: {self._legal_text()}")
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            if isinstance(action, (float, np.floating)) and float(action).is_integer():
                raise IllegalActionError(f"action must be an int action id, got float {action!r}; legal "
                                         f"moves: {self._legal_text()}")
            raise IllegalActionError(f"action must be an int action id, got {type(action).__name__} "
                                     f"{action!r}; use move_to_action() for move text; legal moves: "
                                     f"{self._legal_text()}")
        a = int(action)
        if not 0 <= a < self.game.num_actions:
            raise IllegalActionError(f"action {a} is out of range 0..{self.game.num_actions - 1}; legal "
                                     f"moves: {self._legal_text()}")
        if a not in legal:
            raise IllegalActionError(f"action {a} ({self.game.action_to_string(self._st, a)}) is not legal "
                                     f"for {agent}; legal moves: {self._legal_text()}")
        return a

    def _legal_text(self) -> str:
        return ", ".join(f"{a}={self.game.action_to_string(self._st, a)}" for a in self.legal_actions())

    def _on_deal_end(self, st: State) -> None:
        """Rewards and infos at the end of a deal and of the episode (see the module docstring)."""
        res = st.last_result
        n = self.num_agents
        rew = None
        if self.reward_mode == "points" and res is not None:
            pts = res["seat_points"]
            mean = sum(pts) / n
            rew = [float(p - mean) for p in pts]
        if st.terminal and self.reward_mode == "outcome":
            rew = [float(x) for x in st.returns()]
        if rew is not None:
            self.rewards = {a: rew[i] for i, a in enumerate(self.possible_agents)}
            for a, r in self.rewards.items():
                self._cumulative_rewards[a] += r
            self._rewarded = True
        for a in self.agents:
            info = {"deal": res}
            if st.terminal:
                info["match"] = st.match_result
            self.infos[a] = info

    # ---------------------------------------------------------------- notation
    def legal_moves(self) -> list:
        """The current agent's legal moves in the game's move notation."""
        return [self.game.action_to_string(self._st, a) for a in self.legal_actions()]

    def action_to_move(self, action: int) -> str:
        self._require_reset()
        return self.game.action_to_string(self._st, int(action))

    def move_to_action(self, text: str) -> int:
        """Parse a move of the current agent; raises IllegalActionError naming the legal moves."""
        self._require_reset()
        return self.game.string_to_action(self._st, text)

    # ---------------------------------------------------------------- rendering
    def render(self):
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; use env(render_mode='ansi')")
            return None
        text = self.game.render(self._st) if self._st is not None else "(not reset)"
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass
