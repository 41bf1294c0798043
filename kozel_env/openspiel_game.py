"""The OpenSpiel bridge's games: the parameters (rules options as OpenSpiel's scalar parameters), the
``pyspiel.Game`` and ``pyspiel.State`` subclasses, the observer and the registration of every environment
as ``kozel_<env name>``. Import it as :mod:`kozel_env.openspiel`, whose module doc says how the bridge
works (chance node, serialization, observation, parameters, lengths); the arena agents that search these
games are in :mod:`kozel_env.openspiel_search`."""
from __future__ import annotations

from dataclasses import fields

import numpy as np
import pyspiel

from .core.errors import IllegalActionError
from .core.game import State
from .core.rng import Rng, seed_from_entropy
from .registry import ENVIRONMENTS, load

PREFIX = "kozel_"
"""OpenSpiel short name of an env: ``kozel_<env name>``."""

EPISODES = ("match", "deal")
ZERO_SUM = frozenset({"queens_and_jacks_v0"})
"""Envs whose ``returns()`` always sum to zero (see :mod:`kozel_env.openspiel`)."""

DEAL_LENGTH = {
    "dominoes_v0": 60, "dominoes_ffa_v0": 60, "sea_goat_v0": 60, "donkey_v0": 60, "boneyard_v0": 60,
    "queens_and_jacks_v0": 40, "beat_or_discard_v0": 130, "six_of_spades_v0": 110,
}
"""Bound on the decisions of one deal: about twice the longest of 3000 random deals per registered option
set, which were 25-28 (dominoes family), 62 (beat or discard) and 52 (six of spades); queens and jacks
has at most 37 (36 cards and the trump naming, RULES C2.3). Typical (means): 17-24, 38-40, 27-37, 32-37."""

MATCH_DEALS = 250
"""Deals a match is assumed to take at most (see :mod:`kozel_env.openspiel`); typical: 3-14 with random play."""

_NONE = "none"
_SEP = ";"


# ------------------------------------------------------------------ parameters
def _kind(f) -> str:
    """How a rules option travels as an OpenSpiel parameter (OpenSpiel parameters are scalars): "tuple"
    (a tuple or None: a string), "optional_int" (an int or None: an int, -1 for None) or "plain"."""
    t = str(f.type)
    if "tuple" in t:
        return "tuple"
    if "None" in t:
        return "optional_int"
    return "plain"


def _encode(f, value):
    kind = _kind(f)
    if kind == "tuple":
        return _NONE if value is None else _SEP.join(str(v) for v in value)
    if kind == "optional_int":
        return -1 if value is None else value
    return value


def _number(text: str):
    """An int, a float, or the text itself (a tuple of names, e.g. ``titles``)."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _decode(f, value):
    """The Python value of rules option ``f`` from its OpenSpiel parameter."""
    kind = _kind(f)
    if kind == "optional_int":
        return None if value < 0 else value
    if kind == "plain":
        return value
    text = str(value).strip()
    if text.lower() == _NONE and "None" in str(f.type):
        return None
    return tuple(_number(p.strip()) for p in text.replace(",", _SEP).split(_SEP) if p.strip())


def _rules_fields(env_name: str) -> list:
    base = load(env_name).raw_env.base_rules
    return [f for f in fields(base) if f.name != "name"]


def parameter_specification(env_name: str) -> dict:
    """The OpenSpiel parameters of ``env_name`` with their defaults (see :mod:`kozel_env.openspiel`)."""
    base = load(env_name).raw_env.base_rules
    spec = {"episode": "match", "rng_seed": -1}
    for f in _rules_fields(env_name):
        spec[f.name] = _encode(f, getattr(base, f.name))
    return spec


def to_params(env_name: str, **options) -> dict:
    """OpenSpiel parameters from env keyword options (``lone_double_values=None``, ``episode="deal"``...)."""
    known = {f.name: f for f in _rules_fields(env_name)}
    return {k: (_encode(known[k], v) if k in known else v) for k, v in options.items()}


def load_game(env_name: str, **options) -> KozelGame:
    """``pyspiel.load_game`` of ``env_name`` with env keyword options (Python values, see :func:`to_params`)."""
    if env_name not in ENVIRONMENTS:
        raise KeyError(f"unknown environment {env_name!r}; known: {sorted(ENVIRONMENTS)}")
    return pyspiel.load_game(PREFIX + env_name, to_params(env_name, **options))


# ------------------------------------------------------------------ game
def _player_range(env_name: str) -> tuple:
    names = {f.name for f in _rules_fields(env_name)}
    if "num_players" in names:
        return 2, 4  # every rules config with the option accepts 2 to 4 seats
    n = load(env_name).env().unwrapped.game.num_players
    return n, n


def _game_type(env_name: str) -> pyspiel.GameType:
    lo, hi = _player_range(env_name)
    return pyspiel.GameType(
        short_name=PREFIX + env_name,
        long_name=f"Kozel {env_name} (kozel_env)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,  # the deal seed is in the state
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(pyspiel.GameType.Utility.ZERO_SUM if env_name in ZERO_SUM
                 else pyspiel.GameType.Utility.GENERAL_SUM),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=hi,
        min_num_players=lo,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(env_name))


class KozelGame(pyspiel.Game):
    """One Kozel environment as an OpenSpiel game (one subclass per env, see :data:`GAMES`)."""

    env_name = ""
    game_type = None

    def __init__(self, params=None):
        params = dict(params or {})
        spec = parameter_specification(self.env_name)
        unknown = sorted(set(params) - set(spec))
        if unknown:
            raise ValueError(f"{PREFIX}{self.env_name}: unknown parameter(s) {unknown}; known: {sorted(spec)}")
        episode = params.get("episode", "match")
        if episode not in EPISODES:
            raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
        seed = int(params.get("rng_seed", -1))
        base = load(self.env_name).raw_env.base_rules
        rules = {}
        for f in _rules_fields(self.env_name):
            if f.name not in params:
                continue
            v = _decode(f, params[f.name])
            if v != getattr(base, f.name):
                rules[f.name] = v
        engine = load(self.env_name).env(**rules).unwrapped.game
        n = engine.num_players
        deal = DEAL_LENGTH[self.env_name]
        info = pyspiel.GameInfo(
            num_distinct_actions=engine.num_actions,
            max_chance_outcomes=1,
            num_players=n,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if self.env_name in ZERO_SUM else None,
            max_game_length=deal if episode == "deal" else deal * MATCH_DEALS)
        # Like OpenSpiel's C++ games, the game keeps (and its string shows) only the parameters given with
        # other values than their defaults (pyspiel fills in every default before calling us).
        super().__init__(self.game_type, info, {k: v for k, v in params.items() if v != spec[k]})
        self.engine = engine
        """The engine :class:`~kozel_env.core.game.Game` (rules config, observation layout, notation)."""
        self.rules_options = rules
        """The rules options that differ from the env's defaults (``load(env).env(**rules_options)``)."""
        self.episode = episode
        self._setup = {"single_deal": True} if episode == "deal" else {}
        self._rng = Rng(seed if seed >= 0 else seed_from_entropy())

    def new_initial_state(self) -> KozelState:
        """The chance node before the deal."""
        return KozelState(self)

    def __reduce__(self):
        # pyspiel pickles a game through Game::Serialize, its parameters only (the game string); pickle
        # the position of the game's Rng too, so the copy deals the next states alike.
        return (_unpickle_game, (self.env_name, dict(self.get_parameters()), self._rng.s))

    def make_py_observer(self, iig_obs_type=None, params=None) -> KozelObserver:
        return KozelObserver(self, iig_obs_type, params)

    # -- bridge extras --
    def draw_seed(self) -> int:
        """The next engine seed from the game's Rng (what the chance node uses)."""
        return self._rng.spawn()

    def new_engine_state(self, seed: int) -> State:
        """A fresh engine state from ``seed`` for this game's episode (one deal or the match)."""
        return self.engine.new_state(seed, dict(self._setup))

    def state_from_engine(self, engine_state) -> KozelState:
        """A state past the chance node that plays on from a copy of ``engine_state`` (its history is the
        chance outcome only). The arena agents use it on a determinization of what their seat knows."""
        st = self.new_initial_state()
        st._box.preset = engine_state.clone()
        st.apply_action(0)
        return st


def _unpickle_game(env_name: str, params: dict, rng_state: int) -> KozelGame:
    game = pyspiel.load_game(PREFIX + env_name, params)
    game._rng.s = rng_state
    return game


def _unpickle_state(game: KozelGame, data: str) -> KozelState:
    return game.deserialize_state(data)


class _Engine:
    """Holds a state's engine state. OpenSpiel clones a Python state by deep-copying its attributes: this box
    copies itself with the engine's cheap ``clone()`` and shares the engine game.

    Before the deal it holds the state's deal seed (``seed``), drawn from the game's Rng by ``draw`` the
    first time the state is applied, cloned or serialized: from then on the state, its clones and its
    serialized copies deal alike (see :mod:`kozel_env.openspiel`, *Chance*)."""

    __slots__ = ("game", "state", "preset", "strings", "seed", "draw")

    def __init__(self, game, state=None, seed=None, draw=None):
        self.game = game
        self.state = state
        self.preset = None
        self.strings = {}  # player -> observation string of the current state (search asks it repeatedly)
        self.seed = seed
        self.draw = draw

    def deal_seed(self) -> int:
        """The engine seed this state deals from (drawn once)."""
        if self.seed is None:
            self.seed = self.draw()
        return self.seed

    def _fix_seed(self) -> None:
        if self.state is None and self.preset is None:
            self.deal_seed()

    def __deepcopy__(self, memo):
        self._fix_seed()
        box = _Engine(self.game, None if self.state is None else self.state.clone(), self.seed, self.draw)
        box.preset = None if self.preset is None else self.preset.clone()
        return box

    def __reduce__(self):  # serialization (pickle): the engine state or the deal seed; the games come back on load
        self._fix_seed()
        return (_restore_engine, (self.state, self.seed, self.preset))


def _restore_engine(state, seed=None, preset=None):
    box = _Engine(None, state, seed)
    box.preset = preset
    return box


class KozelState(pyspiel.State):
    """A Kozel episode as an OpenSpiel state: the chance node, then the engine's decisions."""

    def __init__(self, game: KozelGame):
        super().__init__(game)
        self._box = _Engine(game.engine, draw=game.draw_seed)

    def _engine(self):
        box = self._box
        if box.game is None:  # deserialized: re-attach the (immutable) engine game and the game's Rng
            game = self.get_game()
            box.game, box.draw = game.engine, game.draw_seed
        return box

    def __reduce__(self):  # see KozelGame.__reduce__; the state itself serializes (State::Serialize)
        return (_unpickle_state, (self.get_game(), self.serialize()))

    @property
    def engine_state(self) -> State:
        """The engine state (full information; None before the deal). For analysis, not for policies."""
        return self._box.state

    # -- the OpenSpiel API --
    def current_player(self) -> int:
        st = self._box.state
        if st is None:
            return pyspiel.PlayerId.CHANCE
        if st.terminal:
            return pyspiel.PlayerId.TERMINAL
        return st.current_player

    def _legal_actions(self, player):
        assert player >= 0
        return self._box.state.legal_actions()

    def chance_outcomes(self) -> list:
        assert self.is_chance_node()
        return [(0, 1.0)]

    def _apply_action(self, action):
        box = self._engine()
        box.strings = {}
        if box.state is None:
            if action != 0:
                raise IllegalActionError(f"the deal is chance outcome 0, got {action!r}")
            game = self.get_game()
            if box.preset is not None:
                box.state, box.preset = box.preset, None
            else:
                box.state = game.new_engine_state(box.deal_seed())
            box.seed = None
            return
        st = box.state
        st.apply_action(box.game.check_action(st, action))  # the contract's one check; nothing changes on error

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return "Deal"
        box = self._engine()
        try:
            return box.game.action_to_string(box.state, action)
        except (ValueError, IndexError, KeyError):  # a move named outside its context (e.g. after the end)
            return f"action {action}"

    def is_terminal(self) -> bool:
        st = self._box.state
        return st is not None and st.terminal

    def returns(self) -> list:
        st = self._box.state
        if st is None:
            return [0.0] * self.num_players()
        return [float(x) for x in st.returns()]

    def resample_from_infostate(self, player_id: int, probability_sampler) -> KozelState:
        """A state that gives ``player_id`` the same information state, the rest re-dealt by the engine's
        ``sample_consistent`` (seeded from two draws of ``probability_sampler``)."""
        box = self._engine()
        if box.state is None:  # before the deal the player knows nothing: a state with a fresh deal seed
            new = self.clone()
            new._engine().seed = self.get_game().draw_seed()
            return new
        u1, u2 = float(probability_sampler()), float(probability_sampler())
        seed = (int(u1 * (1 << 32)) << 32) | int(u2 * (1 << 32))
        real, box.state = box.state, None
        try:
            new = self.clone()  # copies the history, not the engine state
        finally:
            box.state = real
        new._box.state = box.game.sample_consistent(real, player_id, Rng(seed))
        return new

    def __str__(self):
        box = self._engine()
        if box.state is None:
            return "(chance node: the deal)"
        return box.game.render(box.state)


class KozelObserver:
    """Observer (OpenSpiel's PyObserver interface): the env's observation of a seat, for both the
    observation and the information state (see :mod:`kozel_env.openspiel`)."""

    def __init__(self, game: KozelGame, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        if iig_obs_type is not None and not (
                iig_obs_type.public_info and iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError("only the default observation types (public information and the observer's "
                             f"private information) are provided; got {iig_obs_type}")
        self._engine = game.engine
        spec = self._engine.obs_spec
        self.tensor = np.zeros(spec.size, np.float32)
        self.dict = spec.view(self.tensor)
        self._names = [p.name for p in spec.parts]
        part_of, start = [], []
        for i, p in enumerate(spec.parts):
            part_of += [i] * p.size
            start += [spec.slices[p.name].start] * p.size
        self._part_of = part_of
        self._start = start

    def set_from(self, state: KozelState, player: int) -> None:
        st = state._box.state
        if st is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = self._engine.observe(st, player)

    def string_from(self, state: KozelState, player: int) -> str:
        box = state._box
        text = box.strings.get(player)
        if text is None:
            text = box.strings[player] = self._string(box.state, player)
        return text

    def _string(self, st, player) -> str:
        if st is None:
            return f"p{player} (before the deal)"
        v = self._engine.observe(st, player)
        nz = np.flatnonzero(v).tolist()
        vals = v[nz].tolist()
        groups: dict = {}
        part_of, start = self._part_of, self._start
        for i, x in zip(nz, vals):
            off = i - start[i]
            groups.setdefault(part_of[i], []).append(str(off) if x == 1.0 else f"{off}={x!r}")
        names = self._names
        return f"p{player} " + " ".join(f"{names[p]}:{','.join(g)}" for p, g in sorted(groups.items()))


# ------------------------------------------------------------------ registration
GAMES: dict = {}
"""env name -> its :class:`KozelGame` subclass (registered with pyspiel under ``kozel_<env name>``)."""


def _register() -> None:
    for env_name in ENVIRONMENTS:
        cls_name = "".join(w.capitalize() for w in env_name.split("_")) + "Game"
        cls = type(cls_name, (KozelGame,), {"env_name": env_name, "game_type": _game_type(env_name),
                                              "__module__": __name__,
                                              "__doc__": f"``{env_name}`` as an OpenSpiel game."})
        globals()[cls_name] = cls
        GAMES[env_name] = cls
        pyspiel.register_game(cls.game_type, cls)


_register()
