"""Single-agent gymnasium views of every Kozel environment: your policy plays one seat (or a whole side),
bots or your own policies play the others.

::

    import gymnasium, kozel_env                      # importing kozel_env registers the ids "kozel/<name>"
    env = gymnasium.make("kozel/dominoes_v0", opponents="normal")
    obs, info = env.reset(seed=0)
    mask = env.unwrapped.action_masks()              # what sb3-contrib's MaskablePPO reads
    obs, reward, terminated, truncated, info = env.step(int(mask.nonzero()[0][0]))

or directly ``SingleAgentEnv("dominoes_v0", opponents="normal", seat=None)``. It is a plain
``gymnasium.Env`` (it passes ``gymnasium.utils.env_checker.check_env``) over the PettingZoo AEC env of
:mod:`kozel_env.core.aec`, which it drives: after your action it plays the opponents' moves until one of
your seats is to move again or the episode is over.

**Spaces.** ``action_space`` is the AEC env's ``Discrete(num_actions)``. ``observation="flat"`` (default):
``observation_space`` is the flat ``Box`` of the game's observation (the ``"observation"`` part of the AEC
dict), and the legal moves come from :meth:`SingleAgentEnv.action_masks` (sb3-contrib's ``MaskablePPO``
calls it) and from ``info["action_mask"]``. ``observation="dict"``: the AEC's own
``Dict({"observation", "action_mask"})``, for libraries that read the mask from the observation.

**Seats.** ``seat=k`` plays seat ``k``; ``seat=None`` (default) a seat drawn each episode from the env's
``np_random``. ``side=True``: every seat of that seat's side (pair) is yours; consecutive decisions of your
seats are returned in turn, each with the observation of the seat to move (``info["seat"]`` says which).
In the every-man-for-himself games a side is one seat, so ``side=True`` changes nothing there.

**Opponents** (every seat that is not yours, the partner included when ``side=False``):

* a bot name -- ``"random"``, ``"easy"``, ``"normal"``, ``"hard"``, ``"greedy"``, ``"pimc:n=8"`` ... or
  ``"rl"`` (the shipped trained policy of the game, :func:`agents.load`; ``"rl:path=run/policy.npz"``
  another checkpoint): built with :func:`agents.make_agent` afresh for every seat and episode, seeded from
  the episode's seed (the arena does the same);
* an agent object with ``act(observation, action_mask) -> int`` (``reset()`` is called each episode; an
  agent with ``needs_state`` gets the engine state as in :func:`agents.base.decide`);
* a plain callable ``f(observation, action_mask) -> int`` (no ``agents`` import needed);
* a pool, any object with ``sample(rng)`` (e.g. :class:`OpponentPool`): every episode one entry is drawn
  with the env's ``np_random`` and plays all opponent seats; the entries are any of the above.

``agents`` (and so anything heavier) is imported only when a bot name or an agent object is used. An
opponent that answers a masked-out move raises :class:`~kozel_env.core.errors.IllegalActionError`, whatever
``illegal_action`` says (that option is about *your* moves).

**Rewards** are your seat's rewards of the AEC env in its ``reward`` mode (``"outcome"`` default: +1 / -1 at
the end; ``"points"``: zero-sum points per deal), summed over everything that happened since your previous
decision -- your move and the opponents' moves after it: exactly what the AEC env's ``last()`` gives that
seat when it is to move again. Rewards that came before your first decision of an episode (a deal ended in
the set-up) are added to the first step's reward, so an episode's rewards add up to the seat's total in the
AEC env. With ``side=True`` a reward is the mean over your side's seats (the seats of a side get the same
reward). ``terminated`` is True at the end of the match (of the deal with ``episode="deal"``); ``truncated``
is always False. An episode that ends before any of your seats moves (beat-or-discard's four aces or
sixes dealt, RULES C1.14) is skipped: the wrapper deals the next one from its seed stream.

**Infos** are the AEC infos of your seat that made the decision (so every finished deal reaches you once,
in ``side=True`` too), in the env's ``infos`` mode -- ``"flat"`` by default here (fixed keys, float values:
vector envs and replay buffers stack them; see :mod:`kozel_env.core.aec`), ``"full"`` or ``"none"``. With
``"flat"`` or ``"full"`` the wrapper adds ``seat`` (int: the seat whose observation this is),
``action_mask`` (int8, all zeros at the end) and, with ``"flat"``, ``illegal_action`` (1.0 when the episode
ended because you played a masked-out move; ``"full"`` already has the event); ``"none"`` gives ``{}``.

**Illegal moves.** ``illegal_action="lose"`` is the default here, not ``"raise"``: generic tools
(``check_env``, unmasked algorithms) sample any id of the ``Discrete`` space, and PettingZoo classic's rule
(your side gets -1, the episode ends) is what they expect. Masked algorithms never trigger it; pass
``illegal_action="raise"`` to have a bug in your masking raise instead.

**Seeding.** ``reset(seed=s)`` plays the same deal as the AEC env's ``reset(seed=s)`` and seeds
``np_random`` (your seat, pool draws, the bots' seeds) from ``s`` as well, so the same seed and the same
actions give the same episode; ``reset()`` without a seed continues the stream. ``reset(options=...)`` is
the AEC env's (hands, leader, scores ...).

Every other keyword (``episode``, ``reward``, ``render_mode``, rules options) goes to the AEC env.
"""
from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

from .core.errors import InvalidOptionError
from .registry import ENVIRONMENTS, load

ENV_OPTIONS = ("render_mode", "episode", "reward", "infos", "illegal_action")
"""Keywords of the AEC env that are not rules options (agents are built with the rules options only)."""
OBSERVATIONS = ("flat", "dict")
MAX_SKIPS = 100
"""Episodes in a row that may end before the caller moves before reset() gives up (a fixed set-up that
always ends so)."""


class OpponentPool:
    """A self-play pool of opponents that the caller grows during training.

    ``pool = OpponentPool(["random"])``, ``SingleAgentEnv(name, opponents=pool)``; after each training round
    ``pool.add(snapshot)`` where ``snapshot`` is any opponent (a bot name, an agent with ``act``, a callable
    ``f(observation, action_mask) -> int``: e.g. a frozen copy of your policy). At every ``reset`` the env
    draws one entry with :meth:`sample` and it plays all opponent seats for that episode; the env holds the
    pool itself, so additions count from the next episode on. ``max_size`` keeps only the newest entries.
    Any object with ``sample(rng)`` can stand in for this class.
    """

    def __init__(self, policies=(), max_size: int | None = None):
        if max_size is not None and int(max_size) < 1:
            raise ValueError(f"max_size must be None or at least 1, got {max_size!r}")
        self.max_size = None if max_size is None else int(max_size)
        self.policies: list = []
        for p in policies:
            self.add(p)

    def add(self, policy) -> None:
        """Add an opponent (dropping the oldest beyond ``max_size``)."""
        _check_opponent(policy, pool_ok=False)
        self.policies.append(policy)
        if self.max_size is not None and len(self.policies) > self.max_size:
            del self.policies[0]

    def sample(self, rng: np.random.Generator) -> object:
        """One entry, uniformly, drawn with ``rng`` (the env passes its ``np_random``)."""
        if not self.policies:
            raise ValueError("the opponent pool is empty: add() a policy before reset()")
        return self.policies[int(rng.integers(len(self.policies)))]

    def __len__(self) -> int:
        return len(self.policies)

    def __repr__(self) -> str:
        return f"OpponentPool({len(self.policies)} policies, max_size={self.max_size})"


def _kind(opponent) -> str:
    if isinstance(opponent, str):
        return "spec"
    if callable(getattr(opponent, "act", None)):
        return "agent"
    if callable(getattr(opponent, "sample", None)):
        return "pool"
    if callable(opponent):
        return "callable"
    return "bad"


def _check_opponent(opponent, pool_ok: bool = True) -> str:
    kind = _kind(opponent)
    if kind == "bad" or (kind == "pool" and not pool_ok):
        allowed = "a bot name, an agent with act(observation, action_mask), a callable f(observation, " \
                  "action_mask) -> int" + (" or a pool with sample(rng)" if pool_ok else "")
        raise InvalidOptionError(f"opponents={opponent!r} is not allowed: {allowed}")
    return kind


class SingleAgentEnv(gymnasium.Env):
    """The single-agent view of the Kozel environment ``env_name`` (see the module doc)."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}
    """The AEC env's render modes (``kozel_env.core.aec.RENDER_MODES``; gymnasium reads them off the class)."""

    def __init__(self, env_name: str, opponents="random", seat: int | None = None, side: bool = False,
                 reward: str = "outcome", seed: int | None = None, observation: str = "flat",
                 infos: str = "flat", illegal_action: str = "lose", render_mode: str | None = None,
                 **env_options):
        if env_name not in ENVIRONMENTS:
            raise InvalidOptionError(f"unknown environment {env_name!r}; known: {sorted(ENVIRONMENTS)}")
        if observation not in OBSERVATIONS:
            raise InvalidOptionError(f"observation={observation!r} is not allowed: one of {list(OBSERVATIONS)}")
        if not isinstance(side, (bool, np.bool_)):
            raise InvalidOptionError(f"side={side!r} is not allowed: True or False")
        self.env_name = env_name
        self.aec = load(env_name).env(render_mode=render_mode, reward=reward, infos=infos,
                                      illegal_action=illegal_action, **env_options)
        """The underlying PettingZoo AEC env (read it; stepping it yourself breaks the episode)."""
        u = self.aec.unwrapped
        self.game = u.game
        n = self.game.num_players
        if seat is not None and (isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer))
                                 or not 0 <= int(seat) < n):
            raise InvalidOptionError(f"seat={seat!r} is not allowed: None (a random seat each episode) or "
                                     f"0..{n - 1}")
        self._fixed_seat = None if seat is None else int(seat)
        self.side = bool(side)
        self.observation_mode = observation
        self.infos_mode = u.infos_mode
        self.render_mode = render_mode
        self.rules_options = {k: v for k, v in env_options.items() if k not in ENV_OPTIONS}
        """The rules options (what the bots are built with)."""
        self._opponents = opponents
        self._opp_kind = _check_opponent(opponents)
        if self._opp_kind == "spec":  # a bad name fails here, not at the first reset
            self._make_bot(opponents, 0)
        space = u.observation_spaces[u.possible_agents[0]]
        self.observation_space = space if observation == "dict" else space["observation"]
        self.action_space = spaces.Discrete(self.game.num_actions)
        self._names = u.possible_agents
        self._num_actions = self.game.num_actions
        self._mine: tuple = ()
        self._seat_opp: dict = {}
        self._to_move = None
        self._done = True
        self._carry = 0.0
        self.skipped_episodes = 0
        """Episodes skipped because they ended before any of the caller's seats moved."""
        if seed is not None:
            self.reset(seed=seed)

    # ------------------------------------------------------------------ episode
    @property
    def seats(self) -> tuple:
        """The caller's seats this episode (one, or the whole side with ``side=True``)."""
        return self._mine

    @property
    def seat(self) -> int:
        """The caller's seat to move now (the last one that moved once the episode is over)."""
        return self._to_move

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        u = self.aec.unwrapped
        aec_seed = seed
        for _ in range(MAX_SKIPS):
            if aec_seed is None:
                aec_seed = int(self.np_random.integers(0, 2 ** 63))
            u.reset(seed=aec_seed, options=options)
            self._begin_episode()
            self._carry = self._side_reward()
            if not self._advance():
                break
            self.skipped_episodes += 1
            aec_seed = None
        else:
            raise InvalidOptionError(f"{MAX_SKIPS} episodes in a row ended before seat(s) {list(self._mine)} "
                                     f"moved (reset options {options!r})")
        self._done = False
        seat = self._to_move
        info = self._info(u.infos[self._names[seat]], lost=False)
        return self._observe(seat), info

    def _begin_episode(self) -> None:
        """Draw the caller's seat(s) and this episode's opponents from ``np_random``."""
        rng = self.np_random
        n = self.game.num_players
        seat = self._fixed_seat if self._fixed_seat is not None else int(rng.integers(n))
        if self.side:
            side = self.game.side_of(seat)
            self._mine = tuple(s for s in range(n) if self.game.side_of(s) == side)
        else:
            self._mine = (seat,)
        entry, kind = self._opponents, self._opp_kind
        if kind == "pool":
            entry = entry.sample(rng)
            kind = _check_opponent(entry, pool_ok=False)
        self._seat_opp = {}
        for s in range(n):
            if s in self._mine:
                continue
            bot_seed = int(rng.integers(0, 2 ** 63))
            if kind == "spec":
                self._seat_opp[s] = ("agent", self._make_bot(entry, bot_seed))
            else:
                if kind == "agent" and callable(getattr(entry, "reset", None)):
                    entry.reset()
                self._seat_opp[s] = (kind, entry)
        self._to_move = None

    def _make_bot(self, spec: str, seed: int):
        from agents import make_agent  # lazily: only bot names need the agents package

        return make_agent(spec, self.env_name, seed=seed, env_options=self.rules_options)

    def _side_reward(self) -> float:
        """The caller's reward from the AEC step just made (the mean over the caller's seats)."""
        r = self.aec.unwrapped.rewards
        return sum(r[self._names[s]] for s in self._mine) / len(self._mine)

    def _advance(self) -> bool:
        """Play the opponents until a seat of the caller is to move (False) or the episode is over (True);
        their rewards to the caller's seats are added to ``self._carry``."""
        u = self.aec.unwrapped
        while True:
            name = u.agent_selection
            if u.terminations[name] or u.truncations[name]:
                return True
            seat = u.agent_name_mapping[name]
            if seat in self._mine:
                self._to_move = seat
                return False
            u.step(self._opponent_action(seat))
            self._carry += self._side_reward()

    def _opponent_action(self, seat: int) -> int:
        u = self.aec.unwrapped
        kind, opp = self._seat_opp[seat]
        o = u.observe(self._names[seat])
        obs, mask = o["observation"], o["action_mask"]
        if kind == "agent":
            from agents.base import decide

            a = decide(opp, u, obs, mask)
        else:
            a = opp(obs, mask)
        if isinstance(a, np.ndarray) and a.size == 1:
            a = a.reshape(())[()]
        return u.game.check_action(u.game_state, a, who=f"opponent {opp!r} at seat {seat}")

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._done:
            raise RuntimeError("the episode is over (or was never started): call reset()")
        u = self.aec.unwrapped
        if isinstance(action, np.ndarray) and action.shape in ((), (1,)) and np.issubdtype(action.dtype, np.integer):
            action = action.reshape(())[()]  # what vectorized libraries pass: a 0-d or 1-element int array
        me = self._to_move
        u.step(action)
        reward = self._carry + self._side_reward()
        self._carry = 0.0
        lost = u.terminations[self._names[me]] and not u.game_state.terminal
        done = True if lost else self._advance()
        if done:
            self._done = True
            self._to_move = me
        reward += self._carry
        self._carry = 0.0
        info = self._info(u.infos[self._names[me]], lost)
        return self._observe(self._to_move), float(reward), bool(done), False, info

    def _observe(self, seat: int):
        o = self.aec.unwrapped.observe(self._names[seat])
        return o if self.observation_mode == "dict" else o["observation"]

    def _info(self, aec_info: dict, lost: bool) -> dict:
        mode = self.infos_mode
        if mode == "none":
            return {}
        info = dict(aec_info)
        if lost:  # the deals in the offender's AEC info were reported at its previous decision already
            info.pop("deals", None)
            if mode == "flat":
                info["deals_ended"] = info["deal_points"] = 0.0
        if mode == "flat":
            info["illegal_action"] = 1.0 if lost else 0.0
        info["seat"] = self._to_move
        info["action_mask"] = self._mask()
        return info

    def _mask(self) -> np.ndarray:
        u = self.aec.unwrapped
        if self._done or self._to_move is None:
            return np.zeros(self._num_actions, np.int8)
        return u.observe(self._names[self._to_move])["action_mask"]

    def action_masks(self) -> np.ndarray:
        """The legal moves of the caller's seat to move, as booleans (sb3-contrib's ``MaskablePPO`` calls
        this); all False once the episode is over."""
        return self._mask().astype(bool)

    # ------------------------------------------------------------------ rendering
    def render(self) -> str | np.ndarray | None:
        """The AEC env's render in its ``render_mode`` (the spectator's table: every hand face up)."""
        return self.aec.unwrapped.render()

    def close(self) -> None:
        self.aec.close()

    def __repr__(self) -> str:
        return f"SingleAgentEnv({self.env_name!r}, opponents={self._opponents!r})"


def gym_id(env_name: str) -> str:
    """The gymnasium id of an environment: ``"kozel/<env_name>"``."""
    return f"kozel/{env_name}"


def register_envs() -> None:
    """Register ``kozel/<name>`` for every environment with gymnasium (idempotent; nothing is built until
    ``gymnasium.make``). ``import kozel_env`` calls it."""
    registry = gymnasium.envs.registration.registry
    for name in ENVIRONMENTS:
        if gym_id(name) not in registry:
            gymnasium.register(id=gym_id(name), entry_point="kozel_env.wrappers:SingleAgentEnv",
                               kwargs={"env_name": name})


register_envs()
