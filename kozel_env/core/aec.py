"""The one PettingZoo ``AECEnv`` adapter that every Kozel environment subclasses.

A subclass names its game and how to build it from the rules options; everything else -- seats and agent
names, spaces, the observation dict, the exact action mask, rewards, ``infos``, bad-input errors, seeding,
rendering, the oracle ``state()``, the match record -- lives here once. It follows PettingZoo classic
conventions (agents ``player_0``..., ``{"observation", "action_mask"}``, ``render_mode`` "ansi"/"human",
dead steps with ``None``) without the standard wrapper stack: inputs are validated here, cheaply, and a bad
action raises :class:`~kozel_env.core.errors.IllegalActionError` naming the move and the legal moves, leaving
the game unchanged.

Environment options (every env; checked by :mod:`kozel_env.core.options` when given):

* ``render_mode`` -- None, ``"ansi"`` (``render()`` returns text), ``"human"`` (prints it after every step, and
  shows the picture in a window where a display exists; else says once that the text is all),
  ``"rgb_array"`` (a drawn table, ``uint8[H, W, 3]``). ``render(viewer=...)`` shows only what one agent may
  see; without a viewer it is the spectator's view with every hand face up.
* ``episode`` -- ``"match"`` (default, the whole match) or ``"deal"`` (one deal per episode).
* ``reward`` -- ``"outcome"`` (default: +1 to the winners and -1 to the losers at the end of the episode, 0
  before) or ``"points"`` (for every deal that ends, each seat gets the deal's ``seat_points`` minus their
  mean over the seats: zero-sum; several deals ended by one step add up).
* ``infos`` -- ``"full"`` (default): ``infos[agent]["deals"]`` lists every deal that ended since that agent
  last acted (each deal reaches each agent once; :mod:`kozel_env.core.results` gives the schema), and
  ``infos[agent]["match"]`` is the match result once it is over; ``{}`` when nothing ended. ``"flat"``:
  the same fixed keys for every agent at every step, string keys and float values only (for libraries whose
  buffers stack infos: Tianshou, RLlib): ``deals_ended``, ``deal_points`` (the agent's ``seat_points`` over
  those deals), ``match_over``, ``match_return``, ``place``. ``"none"``: always ``{}``.
* ``illegal_action`` -- ``"raise"`` (default: :class:`IllegalActionError`, nothing changes) or ``"lose"``
  (PettingZoo classic's rule, what RLlib's and Tianshou's env checkers expect: a masked-out action id ends
  the episode; the offender's side gets ``-1``, every other seat 0; ``infos[agent]["illegal_action"]`` says
  what happened). Ids out of range, wrong types and ``None`` for a live agent always raise.

Every other keyword is a rules option of the game (see its rules config).
"""
from __future__ import annotations

import os
import sys
import warnings

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from .errors import IllegalActionError, InvalidOptionError
from .game import Game, State
from .options import Choice, Int
from .results import zero_sum_points
from .rng import Rng, seed_from_entropy

EPISODES = ("match", "deal")
REWARDS = ("outcome", "points")
INFOS = ("full", "flat", "none")
ILLEGAL = ("raise", "lose")
RENDER_MODES = ("ansi", "human", "rgb_array")
ENV_CHECKS = {
    "episode": Choice(EPISODES), "reward": Choice(REWARDS), "infos": Choice(INFOS),
    "illegal_action": Choice(ILLEGAL),
}
"""The environment's own options (the rules options are the game's); render_mode is checked apart (None ok)."""
SEED_CHECK = Int(0, (1 << 64) - 1)
FLAT_KEYS = ("deals_ended", "deal_points", "match_over", "match_return", "place")


class KozelEnv(AECEnv):
    metadata = {"name": "kozel", "render_modes": list(RENDER_MODES), "is_parallelizable": False,
                "render_fps": 2}

    # ---------------------------------------------------------------- subclass hooks
    @classmethod
    def make_game(cls, rules_options: dict) -> Game:
        """Build the game (engine + rules config) from the user's rules options."""
        raise TypeError(f"{cls.__name__} must define make_game")  # pragma: no cover

    # ---------------------------------------------------------------- construction
    def __init__(self, /, render_mode: str | None = None, episode: str = "match", reward: str = "outcome",
                 infos: str = "full", illegal_action: str = "raise", **rules_options):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidOptionError(f"render_mode={render_mode!r} is not allowed: None or one of "
                                     f"{self.metadata['render_modes']}")
        given = {"episode": episode, "reward": reward, "infos": infos, "illegal_action": illegal_action}
        env_opts = {k: ENV_CHECKS[k](k, v) for k, v in given.items()}
        self.render_mode = render_mode
        self.episode = env_opts["episode"]
        self.reward_mode = env_opts["reward"]
        self.infos_mode = env_opts["infos"]
        self._flat = dict.fromkeys(FLAT_KEYS, 0.0) if self.infos_mode == "flat" else None
        self.illegal_action = env_opts["illegal_action"]
        self.game = self.make_game(rules_options)
        self.options = {"render_mode": render_mode, **env_opts, **self.game_rules_options(rules_options)}
        """The options this env was made with (the record stores them)."""
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
        self._ended = False
        self._window = None
        """``render_mode="human"``: the picture's window, or why there is none (a string), once tried."""

    def game_rules_options(self, rules_options: dict) -> dict:
        """The rules options as given (normalised by the rules config), for the record."""
        rules = self.game.rules
        return {k: _plain(getattr(rules, k)) for k in rules_options}

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    # ---------------------------------------------------------------- episode
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new episode. ``seed`` (an int in 0..2**64-1) makes it reproducible on any machine;
        ``options`` fix the deal and the match situation (hands, leader, scores, ...; see the game's
        setup). A bad seed or option raises :class:`InvalidOptionError` and leaves the env exactly as it
        was, its seed stream included; an unknown key warns (PettingZoo's api_test passes one)."""
        if seed is not None:
            seeder = Rng(SEED_CHECK("seed", seed))
        elif self._seeder is not None:
            seeder = self._seeder.clone()
        else:
            seeder = Rng(seed_from_entropy())
        setup = self._check_setup(options)
        episode_seed = seeder.spawn()
        self._start(episode_seed, setup)  # the engine checks the set-up first: a bad one changes nothing
        self._seeder = seeder

    def _check_setup(self, options) -> dict:
        """Drop (with a warning) keys no variant of this engine knows; the engine checks the rest."""
        if options is None:
            return {}
        if not isinstance(options, dict):
            raise InvalidOptionError(f"options must be a dict, got {type(options).__name__}")
        if "single_deal" in options:
            raise InvalidOptionError("use env(episode='deal') instead of the single_deal option")
        known = self.game.state_class.SETUP_KEYS
        unknown = sorted(k for k in options if k not in known)
        if unknown:
            warnings.warn(f"{self.metadata['name']}: ignoring unknown reset option(s) {unknown}; known: "
                          f"{sorted(k for k in self.game.setup_checks() if k != 'single_deal')}", stacklevel=3)
        return {k: v for k, v in options.items() if k in known}

    def _start(self, episode_seed: int, setup: dict) -> None:
        """Begin an episode from an engine seed and checked set-up (the replay uses this too)."""
        setup = dict(setup)
        if self.episode == "deal":
            setup["single_deal"] = True
        st = self.game.new_state(episode_seed, setup)
        self._st = st
        self._episode_seed = episode_seed
        self._setup = {k: _plain(v) for k, v in setup.items() if k != "single_deal"}
        self._actions = []
        self._reported = 0
        self._ended = False
        self.agents = self.possible_agents[:]
        self.rewards = dict(self._zero)
        self._cumulative_rewards = dict(self._zero)
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._pending = {a: [] for a in self.agents}
        self.infos = {a: self._empty_info() for a in self.agents}
        self._legal = None
        self._rewarded = False
        self._skip_agent_selection = None
        self._report()  # deals that ended inside the set-up (forced play) are reported like any other
        if st.terminal:  # over before any decision (e.g. beat_or_discard C1.14: four of a kind dealt)
            self.terminations = {a: True for a in self.agents}
            self.agent_selection = self.possible_agents[0]
        else:
            self.agent_selection = self.possible_agents[st.current_player]

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
            self._legal = [] if self._ended else self._st.legal_actions()
        return self._legal

    # ---------------------------------------------------------------- observation
    def observe(self, agent: str) -> dict:
        self._require_reset()
        seat = self.agent_name_mapping[agent]
        mask = np.zeros(self.game.num_actions, np.int8)
        if agent == self.agent_selection and not self._st.terminal and not self._ended:
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
        if a is None:  # illegal_action="lose": the episode ended
            return
        st = self._st
        if self._rewarded:
            self.rewards = dict(self._zero)
            self._rewarded = False
        self._cumulative_rewards[agent] = 0.0
        if self._pending[agent]:  # what it was told is now old news (infos hold only the deals since)
            self._pending[agent] = []
            self.infos[agent] = self._empty_info()
        st.apply_action(a)
        self._actions.append(a)
        self._legal = None
        if len(st.results) != self._reported or st.terminal:
            self._report()
        if st.terminal:
            self.terminations = {x: True for x in self.agents}
            nxt = (self.agent_name_mapping[agent] + 1) % self.num_agents
            self.agent_selection = self.possible_agents[nxt]
        else:
            self.agent_selection = self.possible_agents[st.current_player]
        if self.render_mode == "human":
            self.render()

    def _check_action(self, agent: str, action):
        """``game.check_action`` (the one check); with ``illegal_action="lose"`` a masked-out id ends the
        episode instead of raising (a malformed action always raises)."""
        try:
            return self.game.check_action(self._st, action, agent, self.legal_actions())
        except IllegalActionError as e:
            if self.illegal_action == "lose" and e.action is not None:
                self._lose(agent, e.action, str(e))
                return None
            raise

    def _lose(self, agent: str, action: int, text: str) -> None:
        """``illegal_action="lose"``: the offender's side loses, the episode ends (PettingZoo classic)."""
        side = self.game.side_of(self.agent_name_mapping[agent])
        if self._rewarded:
            self.rewards = dict(self._zero)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: (-1.0 if self.game.side_of(i) == side else 0.0)
                        for i, a in enumerate(self.possible_agents)}
        for a, r in self.rewards.items():
            self._cumulative_rewards[a] += r
        self._rewarded = True
        self._ended = True
        self._legal = None
        event = {"agent": agent, "action": action, "message": text}
        self._illegal = event
        for a in self.agents:
            if self.infos_mode == "full":
                self.infos[a] = {**self.infos[a], "illegal_action": event}
            elif self.infos_mode == "flat":
                self.infos[a] = {**self.infos[a], "match_over": 1.0,
                                 "match_return": self.rewards[a]}
        self.terminations = {x: True for x in self.agents}
        self.agent_selection = self.possible_agents[(self.agent_name_mapping[agent] + 1) % self.num_agents]

    # ---------------------------------------------------------------- deals ended: rewards and infos
    def _empty_info(self) -> dict:
        return {} if self._flat is None else dict(self._flat)

    def _report(self) -> None:
        """Rewards and infos for every deal that ended since the last report (``state.results`` is the
        engine's signal), and for the end of the episode. Each deal is rewarded and reported exactly once."""
        st = self._st
        if len(st.results) == self._reported and not st.terminal:
            return
        # copies: a training loop that edits an info must not edit the engine's result
        new = [_copy_result(r) for r in st.results[self._reported:]]
        self._reported = len(st.results)
        n = self.num_agents
        rew = None
        if self.reward_mode == "points" and new:
            rew = [0.0] * n
            for res in new:
                rew = [r + z for r, z in zip(rew, zero_sum_points(res["seat_points"]).tolist())]
        if st.terminal and self.reward_mode == "outcome":
            rew = [float(x) for x in st.returns()]
        if rew is not None:
            self.rewards = {a: rew[i] for i, a in enumerate(self.possible_agents)}
            for a, r in self.rewards.items():
                self._cumulative_rewards[a] += r
            self._rewarded = True
        mode = self.infos_mode
        if mode == "none":
            return
        match = _copy_result(st.match_result) if st.terminal else None
        for a in self.agents:
            pend = self._pending[a]
            pend.extend(new)
            if mode == "full":
                info = {"deals": list(pend)} if pend else {}
                if match is not None:
                    info["match"] = match
            else:
                seat = self.agent_name_mapping[a]
                info = self._empty_info()
                info["deals_ended"] = float(len(pend))
                info["deal_points"] = float(sum(d["seat_points"][seat] for d in pend))
                if match is not None:
                    info["match_over"] = 1.0
                    info["match_return"] = float(match["returns"][seat])
                    info["place"] = float(match["places"][self.game.side_of(seat)])
            self.infos[a] = info

    # ---------------------------------------------------------------- notation
    def legal_moves(self) -> list:
        """The current agent's legal moves in the game's move notation (that agent's knowledge: its
        mask in words)."""
        return [self.game.action_to_string(self._st, a) for a in self.legal_actions()]

    def action_to_move(self, action: int) -> str:
        """The notation of an action id. Public: it never depends on a hidden card."""
        self._require_reset()
        return self.game.action_to_string(self._st, int(action))

    def move_to_action(self, text: str) -> int:
        """Parse a move of the current agent; raises IllegalActionError naming the legal moves."""
        self._require_reset()
        return self.game.string_to_action(self._st, text)

    # ---------------------------------------------------------------- record
    def record(self) -> dict:
        """The episode so far as a JSON-ready dict: the env options, the engine seed and set-up, and every
        event in order (deals with the dealt hands, each move in notation, draws, knocks, calls, deal and
        match results). ``kozel_env.replay`` rebuilds the same episode from it. The record is the
        spectator's: it shows every hand."""
        self._require_reset()
        from .record import build_record

        return build_record(self)

    # ---------------------------------------------------------------- rendering
    def _viewer_seat(self, viewer):
        if viewer is None:
            return None
        if isinstance(viewer, str) and viewer in self.agent_name_mapping:
            return self.agent_name_mapping[viewer]
        if isinstance(viewer, (int, np.integer)) and not isinstance(viewer, (bool, np.bool_)) \
                and 0 <= int(viewer) < self.game.num_players:
            return int(viewer)
        raise InvalidOptionError(f"viewer={viewer!r} is not allowed: None (spectator: every hand face up), an "
                                 f"agent name {self.possible_agents} or a seat 0..{self.game.num_players - 1}")

    def render(self, viewer: str | int | None = None) -> str | np.ndarray | None:
        """The table for ``render_mode``. ``viewer`` (an agent name or seat) shows only what that agent may
        see; the default, ``None``, is the spectator's view with every hand face up -- never log that into a
        training dashboard if the logs must not show hidden cards."""
        seat = self._viewer_seat(viewer)
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; use env(render_mode='ansi')")
            return None
        if self.render_mode == "rgb_array":
            self._require_reset()
            from ..picture import picture

            return picture(self.game, self._st, seat)
        text = self.game.render(self._st, seat) if self._st is not None else "(not reset)"
        if self.render_mode == "human":
            print(text + "\n")
            if self._st is not None:
                self._show_window(seat)
            return None
        return text

    def _show_window(self, seat) -> None:
        """``render_mode="human"``: the picture in a window too where a display exists; else a one-line notice,
        once, that the text is all there is."""
        if self._window is None:
            self._window = _Window.open()
            if isinstance(self._window, str):
                print(f"kozel_env: {self._window}; render_mode='human' prints the text table only", file=sys.stderr)
        if isinstance(self._window, _Window):
            from ..picture import picture

            self._window.show(picture(self.game, self._st, seat), f"{self.metadata['name']}")

    def close(self) -> None:
        if isinstance(self._window, _Window):
            self._window.close()
        self._window = None


class _Window:
    """A tkinter window showing the table's picture (``render_mode="human"`` where a display exists)."""

    def __init__(self, tk, root):
        self.tk, self.root = tk, root
        self.label = tk.Label(root)
        self.label.pack()
        self.photo = None

    @classmethod
    def open(cls):
        """A window, or the reason there is none (a string)."""
        if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            return "no display (DISPLAY is not set)"
        try:
            import tkinter

            return cls(tkinter, tkinter.Tk())
        except Exception as e:  # no tkinter, or Tk cannot reach the display
            return f"no window ({type(e).__name__}: {e})"

    def show(self, img: np.ndarray, title: str) -> None:
        import base64

        from .raster import png_bytes

        self.photo = self.tk.PhotoImage(master=self.root, data=base64.b64encode(png_bytes(img, 1)))
        self.label.configure(image=self.photo)
        self.root.title(title)
        self.root.update()

    def close(self) -> None:
        try:
            self.root.destroy()
        except Exception:  # already closed by the user
            pass


def _copy_result(res: dict) -> dict:
    """A copy of a result dict deep enough that editing it leaves the engine's alone (results hold scalars,
    lists and flat dicts: :mod:`kozel_env.core.results`)."""
    return {k: (v[:] if type(v) is list else dict(v) if type(v) is dict else v) for k, v in res.items()}


def _plain(v):
    """A config value as JSON data (tuples become lists)."""
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    return v
