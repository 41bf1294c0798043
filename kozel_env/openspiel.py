"""OpenSpiel bridge: every registered Kozel environment as a pyspiel Python game.

    import pyspiel
    import kozel_env.openspiel  # registers the games: kozel_dominoes_v0, kozel_queens_and_jacks_v0, ...

    game = pyspiel.load_game("kozel_dominoes_v0", {"episode": "deal", "rng_seed": 7})
    state = game.new_initial_state()       # a chance node: the deal
    state.apply_action(0)                  # deals (engine seed drawn from the game's Rng, see below)
    state.legal_actions(), state.information_state_tensor(state.current_player())

or, with the rules options as Python values (lists, None): ``kozel_env.openspiel.load_game("sea_goat_v0",
episode="deal", out_66_amount=None)``. Needs the ``openspiel`` extra (``pip install -e ".[openspiel]"``).

It mirrors OpenSpiel's own Python games (``open_spiel/python/games/kuhn_poker.py``, ``liars_poker.py``):
a ``pyspiel.GameType`` registered per environment, a ``pyspiel.Game`` subclass whose ``GameInfo`` is
computed from the rules options, a ``pyspiel.State`` subclass and an observer from ``make_py_observer``.
It wraps the pure rules engine (:mod:`kozel_env.core.game`: ``new_state``, ``legal_actions``,
``apply_action``, ``clone``, ``returns``, ``observe``, ``sample_consistent``, ``action_to_string``,
``render``), not the AEC environment.

**Game type.** Sequential, imperfect information, terminal rewards: ``returns()`` is the engine's episode
outcome, +1 to the winners, -1 to the losers (goats), 0 otherwise, given when the episode ends (utility in
[-1, 1]). Zero-sum only where the engine guarantees it (``queens_and_jacks_v0``: +1 one pair, -1 the other,
or 0 for everybody on eggs, RULES C2.5/C2.6); everywhere else general-sum: eggs, places in
every-man-for-himself games and single deals can leave the returns summing to anything (a single dominoes
deal ending in eggs gives everybody +1, RULES D1.8).

**Chance: one chance node, its seed in the state.** An engine draws its deals inside the state from its
own :class:`~kozel_env.core.rng.Rng` (redeals and later deals of a match included), so no chance node can
list the deal's outcomes. The bridge has one chance node at the start with one outcome, ``0`` ("Deal"),
of probability 1: the state's deal seed, drawn from the game's Rng (parameter ``rng_seed``; -1: from the
operating system's entropy) the first time the state is applied, cloned or serialized, starts the engine
there. From that draw on, the state and every clone or serialized copy of it deal alike and play on alike
(everything after the deal is deterministic given the engine state, whose own Rng makes the later deals),
so the chance mode is ``EXPLICIT_STOCHASTIC``: the listed outcome is the state's true successor. What is
random is which deal a new initial state holds, and OpenSpiel's history does not record it: two initial
states of one game deal differently, so a state is rebuilt from its serialization, never from its history.
``rng_seed=s`` draws the same engine seeds as the env's ``reset(seed=s)`` followed by unseeded resets
(``Rng(s).spawn()``, then the next ``spawn()`` ...: one per initial state that is dealt, cloned or
serialized), so a bridge game and an env seeded alike deal alike. :meth:`KozelGame.state_from_engine`
starts a state from a given engine state.

**Serialization.** OpenSpiel's own, ``pyspiel.serialize_game_and_state`` / ``deserialize_game_and_state``
(and ``random_sim_test(..., serialize=True)``), works: the game serializes as its game string (its
parameters; a sampled-stochastic game would also need the game's RNG state, ``Game::GetRNGState``, which
OpenSpiel 2.0.2 does not let a Python game implement: the reason for the explicit chance node above), the
state as its history plus its pickled engine state (or, before the deal, its deal seed), so a deserialized
state continues exactly as the original. The deserialized game's Rng starts again from ``rng_seed``; pickle
(``pickle.dumps(game)``) keeps the Rng's position too.

**Observation = information state.** Both the observation tensor and the information state tensor are the
env's observation of the seat (``Game.observe``; same size, same named parts in the observer's ``dict``);
the strings list the nonzero entries part by part. The env's observation is built to be the seat's
information state: its own hand plus everything public it has seen and kept as memory (who played what,
knocks and voids, claims, draws, scores), which is exactly what ``sample_consistent`` keeps fixed. It is not
a literal perfect-recall record: the order of the plays within a deal is summarised, not stored, so two
histories that differ only in that order share one information state. Search methods that sample worlds
(ISMCTS, determinized MCTS) need nothing more; tree algorithms that rely on perfect recall (CFR) would
merge such histories, and the games are far too large for them anyway. Only the default observation
types are provided (public information plus the observer's private information; with or without
perfect recall they coincide); other ``IIGObservationType`` requests raise ``ValueError``.

**Resampling.** ``resample_from_infostate(player, sampler)`` is the engine's determinization
``sample_consistent``: a state with the same information state for ``player`` and everything that seat
cannot see re-dealt consistently (hands, stock, the Rng of later deals). ``sampler`` is any callable that
returns floats in [0, 1) (``pyspiel.UniformProbabilitySampler`` or a seeded ``random.Random().random``).

**Parameters.** ``episode`` ("match", the default, or "deal": one deal, the env's ``episode="deal"``,
mapped to the engine setup ``single_deal``), ``rng_seed`` (int, default -1) and every rules option of the
env under its own name. OpenSpiel parameters are scalars, so ints, bools and strings pass as they are, an
option that is an int or None is an int with -1 for None (``out_66_amount=-1``), and one that is a tuple or
None is a string: ``"none"`` or the numbers joined by ``";"`` (``lone_double_values=25;50``). Values equal
to the env's defaults are dropped (the game string shows only the others, like OpenSpiel's C++ games), so
options the env derives still follow (boneyard's hand size from ``num_players``, RULES D5.1). One
limitation of game strings: OpenSpiel reads a value made of digits as an int, so the string option
``opening="11"`` can be given in a parameter dict but not in a game string (it is the default of every env
but ``dominoes_ffa_v0`` and ``boneyard_v0``).

**Lengths.** ``max_game_length`` counts decisions. A deal is short (see :data:`DEAL_LENGTH`: about twice the
longest of 3000 random deals per option set); a match has no hard limit in the rules (a deal can end with
nothing written), so the bound for ``episode="match"`` is :data:`MATCH_DEALS` deals, over three times the
longest match seen in 300 random matches per option set (77 deals, Sea Goat without the 66 rule) --
a practical bound, like OpenSpiel's backgammon.

**Agents.** :class:`ISMCTSAgent` and :class:`DeterminizedMCTSAgent` run OpenSpiel's
``ISMCTSBot`` / ``MCTSBot`` behind the interface of :mod:`agents.base` (``act(observation, action_mask,
state=, seat=)`` with ``needs_state``), so the arena can seat them (see
``examples/integrations/openspiel_ismcts.py``).
"""
from __future__ import annotations

from dataclasses import fields

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from .core.errors import IllegalActionError
from .core.game import State
from .core.rng import Rng, seed_from_entropy
from .registry import ENVIRONMENTS, load

PREFIX = "kozel_"
"""OpenSpiel short name of an env: ``kozel_<env name>``."""

EPISODES = ("match", "deal")
ZERO_SUM = frozenset({"queens_and_jacks_v0"})
"""Envs whose ``returns()`` always sum to zero (see the module doc)."""

DEAL_LENGTH = {
    "dominoes_v0": 60, "dominoes_ffa_v0": 60, "sea_goat_v0": 60, "donkey_v0": 60, "boneyard_v0": 60,
    "queens_and_jacks_v0": 40, "beat_or_discard_v0": 130, "six_of_spades_v0": 110,
}
"""Bound on the decisions of one deal: about twice the longest of 3000 random deals per registered option
set, which were 25-28 (dominoes family), 62 (beat or discard) and 52 (six of spades); queens and jacks
has at most 37 (36 cards and the trump naming, RULES C2.3). Typical (means): 17-24, 38-40, 27-37, 32-37."""

MATCH_DEALS = 250
"""Deals a match is assumed to take at most (see the module doc); typical: 3-14 with random play."""

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
    """The OpenSpiel parameters of ``env_name`` with their defaults (see the module doc)."""
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
    serialized copies deal alike (see the module doc, *Chance*)."""

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
    observation and the information state (see the module doc)."""

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


# ------------------------------------------------------------------ arena agents
_GAME_CACHE: dict = {}


def _cached_game(env_name: str, env_options: dict | None) -> KozelGame:
    opts = {k: v for k, v in (env_options or {}).items() if k not in ("render_mode", "episode", "reward")}
    key = (env_name, tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in opts.items())))
    if key not in _GAME_CACHE:
        _GAME_CACHE[key] = load_game(env_name, rng_seed=0, **opts)
    return _GAME_CACHE[key]


class EngineRolloutEvaluator(mcts.Evaluator):
    """OpenSpiel's random-rollout evaluation (``mcts.RandomRolloutEvaluator``: uniformly random legal moves to
    the end of the episode, the mean returns) played on the engine state directly, without a pyspiel call
    per move: the same estimate, several times faster. Uniform priors."""

    def __init__(self, n_rollouts: int = 1, rng: Rng | None = None):
        self.n_rollouts = n_rollouts
        self.rng = rng or Rng(0)

    def evaluate(self, state: KozelState) -> np.ndarray:
        st0 = state.engine_state
        total = None
        below = self.rng.below
        for _ in range(self.n_rollouts):
            st = st0.clone()
            while not st.terminal:
                legal = st.legal_actions()
                st.apply_action(legal[below(len(legal))])
            r = np.array(st.returns(), dtype=np.float64)
            total = r if total is None else total + r
        return total / self.n_rollouts

    def prior(self, state: KozelState) -> list:
        legal = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(legal)) for a in legal]


class _SearchAgent:
    """Shared part of the arena agents below (the interface of :mod:`agents.base`: ``act(observation,
    action_mask, state=, seat=)``, ``needs_state = True``, ``reset()``).

    The arena hands a ``needs_state`` agent the engine state, which holds every hand. The agent never
    searches it: it first re-deals everything its seat cannot see with the engine's ``sample_consistent``
    (its own Rng), and builds the pyspiel state from that determinization. The search then starts from a
    state that holds only what the seat knows plus an invented, consistent rest, and every world it
    samples afterwards (``resample_from_infostate``) is drawn from the seat's information state alone.
    The engine state also says whether the episode is one deal or the match (the search's horizon)."""

    needs_state = True
    name = "openspiel"

    def __init__(self, env_name: str, seed: int = 0, env_options: dict | None = None):
        self.env_name = env_name
        self.seed = seed
        self.game = _cached_game(env_name, env_options)
        self.rng = Rng(seed)
        self._np = np.random.RandomState(seed & 0xFFFFFFFF)

    def reset(self) -> None:
        pass

    def _uniform(self) -> float:
        return self.rng.next_u64() / float(1 << 64)

    def act(self, observation, action_mask, state=None, seat=None) -> int:
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if len(legal) == 1:
            return legal[0]
        if state is None or seat is None:
            raise ValueError(f"{type(self).__name__} needs the engine state and its seat: call it through "
                             "agents.decide(agent, env)")
        det = self.game.engine.sample_consistent(state, seat, self.rng)
        action = int(self._search(self.game.state_from_engine(det), seat))
        assert action in legal, (action, legal)
        return action

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.env_name!r}, seed={self.seed})"


class ISMCTSAgent(_SearchAgent):
    """OpenSpiel's information-set MCTS (``open_spiel.python.algorithms.ismcts.ISMCTSBot``, Cowling et al.
    2012): one search tree over information states, a world resampled for every simulation, random
    rollouts to the end of the episode (``rollouts`` per leaf, :class:`EngineRolloutEvaluator`), UCT with
    ``uct_c`` (0.7 beat 0.4 and 1.5 against random play on dominoes_v0); plays the most visited move.
    ``worlds`` > 0 caps the distinct worlds sampled per decision (ISMCTS's ``max_world_samples``: the first
    ``worlds`` simulations resample, later ones reuse one of them); -1: a new world for every simulation."""

    name = "ismcts"

    def __init__(self, env_name: str, seed: int = 0, env_options: dict | None = None, simulations: int = 100,
                 uct_c: float = 0.7, rollouts: int = 1, worlds: int = -1):
        super().__init__(env_name, seed, env_options)
        evaluator = EngineRolloutEvaluator(rollouts, Rng(seed ^ 0x5EED))
        self.bot = ismcts.ISMCTSBot(
            game=self.game, evaluator=evaluator, uct_c=uct_c, max_simulations=simulations,
            max_world_samples=int(worlds) if worlds and worlds > 0 else ismcts.UNLIMITED_NUM_WORLD_SAMPLES,
            random_state=self._np,
            final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
            use_observation_string=False, allow_inconsistent_action_sets=False)
        self.bot.set_resampler(lambda st, player: st.resample_from_infostate(player, self._uniform))

    def _search(self, state, seat: int) -> int:
        return self.bot.step(state)


class DeterminizedMCTSAgent(_SearchAgent):
    """Determinized MCTS (perfect-information Monte Carlo with UCT): ``worlds`` determinizations of the
    seat's information state; in each, OpenSpiel's ``MCTSBot`` (``mcts.MCTSBot``, random rollouts) searches
    ``simulations / worlds`` times (at least twice) as if the cards were face up. The root visit counts are
    summed over the worlds and the most visited move is played."""

    name = "dmcts"

    def __init__(self, env_name: str, seed: int = 0, env_options: dict | None = None, simulations: int = 100,
                 worlds: int = 8, uct_c: float = 0.7, rollouts: int = 1):
        super().__init__(env_name, seed, env_options)
        self.worlds = max(1, int(worlds))
        evaluator = EngineRolloutEvaluator(rollouts, Rng(seed ^ 0x5EED))
        self.bot = mcts.MCTSBot(self.game, uct_c, max(2, simulations // self.worlds), evaluator, solve=False,
                                random_state=self._np)

    def _search(self, state, seat: int) -> int:
        visits: dict = {}
        for w in range(self.worlds):
            world = state if w == 0 else state.resample_from_infostate(seat, self._uniform)
            root = self.bot.mcts_search(world)
            for child in root.children:
                visits[child.action] = visits.get(child.action, 0) + child.explore_count
        return max(sorted(visits), key=lambda a: visits[a])


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
