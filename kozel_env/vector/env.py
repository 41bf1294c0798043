"""The vector env: ``B`` games of one Kozel env stepped together, for training loops that consume batches.

    from kozel_env import vector
    venv = vector.make("dominoes_v0", num_envs=4096, seed=0)     # self-play: every seat is the caller's
    ts = venv.reset()
    ts = venv.step(actions)                                     # actions: int[B], legal for ts.seat

Every game is the AEC env of the same name with the same options: game ``b`` of a batch made with
``seed=s`` plays exactly the episodes that ``<env>.env(**options)`` plays after ``reset(seed=seeds[b])``
and then ``reset()`` again at the end of each episode, where ``seeds = vector.seeds_from(s, num_envs)``
(``tests/vector/test_identity.py`` checks every observation, mask, reward and deal result).

A :class:`TimeStep` holds, per game, the seat to move (``seat``), its observation (``obs``,
``float32[B, obs]``) and action mask (``mask``, ``int8[B, A]``), the rewards of this step (``rewards``),
``done`` (the episode ended at this step) and ``deal_over`` (a deal ended). A finished game starts its next
episode at once (same-step auto-reset, as SB3 and EnvPool do): where ``done`` is set, ``seat``, ``obs`` and
``mask`` are already the new episode's first decision; ``info["returns"]`` holds the finished episode's
``returns`` per seat. Where ``deal_over`` is set, ``info["deals"]`` holds that deal's result: its
``seat_points``, ``written``, ``scores``, ``winners`` (per side) and ``eggs``. Arrays are new at every step:
keeping one does not see later steps. A deal that ends inside a new episode's set-up (forced play before
any decision, which the AEC env reports at ``reset``; in ``six_of_spades_v0`` only with ``calls="auto"``,
every round called: a few times in 36,000 random-play steps of four players) is played but not reported by
the vector env; an episode that it ends (one deal per episode: the AEC env is over at ``reset``) is skipped,
and the next one starts in the same step.

Two modes:

* **self-play** (no ``opponent``): the caller plays every seat. ``rewards`` is ``float32[B, seats]``: what
  the AEC env's ``rewards`` holds after that step, for every seat (``reward="outcome"``: the episode's
  +1 / -1 when it ends; ``"points"``: each deal's zero-sum ``seat_points`` when it ends).
* **single learner** (``opponent=...``): the caller plays one side (``learner_side``: a side index, or None
  to alternate: game ``b``'s ``k``-th episode has side ``(b + k) % sides``) and the env plays the others
  until a learner seat is to move. ``rewards`` is ``float32[B]``: the learner side's rewards since its
  previous decision (partners share them), ``done`` the end of its episode. The opponent is ``"random"``
  (uniform over the legal moves), a callable ``f(obs, mask) -> actions`` on a batch, an object with
  ``act_batch(obs, mask)`` (the shipped trained agents, ``agents.load(env)``) or ``act(obs, mask)``
  (any bot that needs no engine state, asked row by row), or a bot name of :mod:`agents`
  (``"greedy"``, ``"normal"``); the ``pimc`` bots need the engine state and are refused. The random
opponent of game ``b`` draws from a stream of its own, seeded from the game's seed at ``reset``, so its
moves do not depend on the batch around it.

All cores: ``vector.make(..., workers=k)`` cuts the batch in ``k`` shards (shard ``i``: games ``i * B // k`` up
to ``(i + 1) * B // k``) stepped by ``k`` processes, the caller's and ``k - 1`` workers, over shared memory
(:mod:`kozel_env.vector.workers`): the same API and, since every game plays from its own seeds, the same
results as one process, whatever ``k`` (``tests/vector/test_workers.py``). ``workers`` is None or 1 (this
process alone, the default) or an int up to ``num_envs``; with ``k`` > 1 the opponent is None or
``"random"`` (another opponent is an object of this process: refused). ``close()`` or a ``with`` block stops
the workers (so do garbage collection and the interpreter's exit; a worker whose parent dies exits too). A
process steps at most ``B / k`` games, and numpy's cost per call grows in share as a batch shrinks, so ``k``
processes give less than ``k`` times the decisions (``docs/guides/speed.md``).

Options: the env's rules options and ``episode`` / ``reward`` as in the AEC env (one check,
:data:`kozel_env.core.aec.ENV_CHECKS`); ``infos``, ``illegal_action`` and rendering belong to the AEC env.
``seed`` is an int (the per-game seeds derived from it) or ``num_envs`` ints (one per game), or None
(fresh entropy). Batched engines exist for the envs in :data:`BATCHED`. Every argument is checked before
anything is built (``learner_side`` only with an ``opponent``): a bad one raises
:class:`~kozel_env.core.errors.InvalidOptionError` naming it, its value and what is allowed, as the AEC env does.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..core.aec import ENV_CHECKS, SEED_CHECK
from ..core.errors import IllegalActionError, InvalidOptionError
from ..core.options import Check, Int, Ints, Optional
from ..core.results import zero_sum_points
from ..core.rng import seed_from_entropy
from ..dominoes.donkey import DonkeyGame
from ..registry import ENVIRONMENTS, load
from . import rng as vrng
from .bits import popcount, select_bit
from .engine import BatchedGame

ENGINES = {
    "dominoes": "kozel_env.vector.dominoes_stock:line_engine",  # the pairs engine, or the stock one
    "donkey": "kozel_env.vector.donkey:BatchedDonkey",
    "queens_and_jacks": "kozel_env.vector.queens_and_jacks:BatchedQueensAndJacks",
    "six_of_spades": "kozel_env.vector.six_of_spades:BatchedSixOfSpades",
    "beat_or_discard": "kozel_env.vector.beat_or_discard:BatchedBeatOrDiscard",
}
"""The batched engine of each scalar engine (``Game.engine_id``; ``"donkey"``: the dominoes engine's Donkey
line, :class:`~kozel_env.dominoes.donkey.DonkeyGame`), loaded when first used."""
BATCHED = ("dominoes_v0", "sea_goat_v0", "donkey_v0", "queens_and_jacks_v0",
           "six_of_spades_v0", "dominoes_ffa_v0", "boneyard_v0", "beat_or_discard_v0")
"""The envs a batched engine plays (with their default rules; some rules options need the AEC env)."""


@dataclass
class TimeStep:
    """What :meth:`VectorEnv.reset` and :meth:`VectorEnv.step` return (see the module docstring)."""

    seat: np.ndarray
    obs: np.ndarray
    mask: np.ndarray
    rewards: np.ndarray
    done: np.ndarray
    deal_over: np.ndarray
    info: dict = field(default_factory=dict)


def random_actions(mask: np.ndarray, generator: np.random.Generator) -> np.ndarray:
    """A uniformly drawn legal action per row of ``mask`` (``int8[B, A]``, at least one legal action per
    row), as int64: the ``k``-th legal action with ``k`` uniform below the row's count."""
    m = np.asarray(mask) != 0
    counts = m.sum(axis=1)
    k = (generator.random(len(m)) * counts).astype(np.int64)
    rank = np.cumsum(m, axis=1)
    return np.argmax(rank > k[:, None], axis=1)


def engine_class(game) -> Callable[..., BatchedGame]:
    """The batched engine of a scalar game: a class or a factory (``dominoes_stock.line_engine`` picks the
    pairs or the stock engine from the rules) called as ``(game, num_envs, single_deal)``
    (``InvalidOptionError`` when there is none)."""
    path = ENGINES.get("donkey" if isinstance(game, DonkeyGame) else game.engine_id)  # Donkey: engine_id dominoes
    if path is None:
        raise InvalidOptionError(f"{game.name}: no batched engine for the {game.engine_id} engine yet; batched "
                                 f"envs: {', '.join(BATCHED)}. Use the AEC env (or SB3/gymnasium wrappers).")
    module, name = path.split(":")
    return getattr(importlib.import_module(module), name)


def sample_from_words(words: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """The legal action of rank ``int(uniform[b] * count)`` in each row of a packed mask (``uint64[B, W]``;
    ``uniform``: floats in [0, 1)): a uniformly drawn legal action per game, as :func:`random_actions` draws."""
    counts = popcount(words).sum(axis=1) if words.shape[1] > 1 else popcount(words[:, 0])
    return select_bit(words, (uniform * counts).astype(np.int64))


def game_seeds(seed, num_envs: int) -> np.ndarray:
    """The per-game seeds (``uint64[num_envs]``) of a ``seed`` of ``vector.make`` or ``reset`` (checked by
    :class:`Seeds` first, so a bad one changes nothing; None: fresh entropy)."""
    seed = Seeds(num_envs)("seed", seed)
    if seed is None:
        seed = seed_from_entropy()
    if isinstance(seed, int):
        return vrng.seeds_from(seed, num_envs)
    return seed


def check_actions(actions, num_actions: int, legal_words: np.ndarray, current_player: np.ndarray,
                  move_names: Callable[[int, list], list], first_game: int = 0) -> np.ndarray:
    """``actions`` as int64 if each is legal in its game (``legal_words``: the packed masks of the decisions
    to make), else :class:`IllegalActionError` naming the first bad game (``first_game + b``: its index in
    the whole batch when these rows are a shard of it), its move and its legal moves (``move_names(b,
    actions)``, ``b`` the row here)."""
    a = np.asarray(actions)
    B = len(legal_words)
    if a.shape != (B,):
        raise IllegalActionError(f"actions must be an int array of shape ({B},), got shape {a.shape}")
    if a.dtype.kind not in "iu":
        raise IllegalActionError(f"actions must be int action ids, got dtype {a.dtype}")
    given = a
    out_of_range = (a < 0) | (a >= num_actions)  # on the given dtype: a uint64 id past 2**63 stays out
    a = np.where(out_of_range, 0, a).astype(np.int64)
    bad = out_of_range
    if not bad.any():
        # checked against the engine's packed mask of this decision (the returned array may be edited)
        bad = (legal_words[np.arange(B), a >> 6] >> (a & 63).astype(np.uint64)) & np.uint64(1) == 0
    if bad.any():
        b = int(np.flatnonzero(bad)[0])
        legal = [x for x in range(num_actions) if int(legal_words[b, x >> 6]) >> (x & 63) & 1]
        in_range = not out_of_range[b]
        what = "not legal" if in_range else f"out of range 0..{num_actions - 1}"
        move = f"action {move_names(b, [int(a[b])])[0]}" if in_range else f"action {int(given[b])}"
        raise IllegalActionError(f"game {first_game + b}: {move} is {what} for player_{int(current_player[b])} "
                                 f"({int(bad.sum())} bad action(s) in the batch); legal: "
                                 f"{move_names(b, legal)}; nothing was applied",
                                 action=int(a[b]) if what == "not legal" else None)
    return a


class VectorEnv:
    """``num_envs`` games of ``env_name`` (see the module docstring). Attributes: ``num_envs``,
    ``num_players``, ``num_actions``, ``obs_size``, ``game`` (the scalar engine Game: its ``obs_spec`` names
    the observation's parts), ``engine`` (the batched engine), ``single_learner``."""

    def __init__(self, env_name: str, num_envs: int, seed=None, *, opponent=None, learner_side: int | None = None,
                 episode: str = "match", reward: str = "outcome", **rules_options):
        # every argument is checked before anything is built (a bad one raises InvalidOptionError)
        args = check_arguments(env_name, num_envs, seed, opponent, learner_side, episode, reward, rules_options)
        self.episode, self.reward_mode, self.game = args.episode, args.reward, args.game
        self.env_name = env_name
        self.engine: BatchedGame = engine_class(self.game)(self.game, args.num_envs, self.episode == "deal")
        eng = self.engine
        eng.autoreset = True  # a finished game starts its next episode inside the step, from its own seeds
        self.num_envs = eng.num_envs
        self.num_players = eng.num_players
        self.num_actions = eng.num_actions
        self.obs_size = eng.obs_size
        self.options = {"episode": self.episode, "reward": self.reward_mode, **rules_options}
        self.workers = 1
        self._seed = args.seed  # checked: None, an int or uint64[num_envs]
        self._started = False
        self._first_game = 0  # the batch's first game in a sharded batch (kozel_env.vector.workers)
        self._views = None  # arrays the observations and masks are written to (a worker's shared memory)
        self.single_learner = args.opponent is not None
        if self.single_learner:
            self._setup_learner(args.opponent, args.learner_side, rules_options)

    def close(self) -> None:
        """Nothing to release in one process (``workers=k`` envs stop their processes); for ``with``."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- seeds and episodes ------------------------------------------------------------------------------
    def _game_seeds(self, seed) -> np.ndarray:
        return game_seeds(seed, self.num_envs)

    def _begin(self, idx: np.ndarray) -> None:
        """Games ``idx`` started their next episode (from each game's seed stream, the AEC env's ``reset()``:
        the engine's auto-reset, or :meth:`reset`): the learner's side of the new episode."""
        if self.single_learner:
            self._episodes[idx] += 1
            if self._fixed_side is None:
                self._side[idx] = (idx + self._first_game + self._episodes[idx] - 1) % self.engine.num_sides

    def reset(self, seed=None) -> TimeStep:
        """Start a new episode in every game. ``seed``: as in ``vector.make`` (None: the seed given to
        ``make``, or fresh entropy)."""
        eng = self.engine
        seeds = self._game_seeds(self._seed if seed is None else seed)
        eng.seeders[:] = seeds
        B = self.num_envs
        acc = _Step(B, self.num_players)
        if self.single_learner:
            self._episodes[:] = 0
            self._carry = np.zeros(B, np.float32)
            self._random_streams[:] = vrng.mix(seeds ^ _OPPONENT_KEY)
        every = np.arange(B)
        eng.start(every, eng.next_seeds(every))
        self._begin(every)
        self.engine.clear_outputs()
        if self.single_learner:
            self._play_opponents(acc)
        return self._timestep(acc)

    # -- a step ------------------------------------------------------------------------------------------
    def step(self, actions) -> TimeStep:
        """One decision in every game: ``actions[b]`` for the seat to move in game ``b``. A bad action
        raises :class:`IllegalActionError` (naming the game, the move and the legal moves) before any
        game changes."""
        return self._advance(self._check(actions))

    def _advance(self, a: np.ndarray) -> TimeStep:
        """:meth:`step` with actions already checked (``int64[B]``)."""
        acc = _Step(self.num_envs, self.num_players)
        if self.single_learner:
            acc.mine += self._carry
            self._carry = np.zeros(self.num_envs, np.float32)
        self.engine.apply(a)
        self._collect(acc)
        if self.single_learner:
            self._play_opponents(acc)
        return self._timestep(acc)

    def _collect(self, acc: _Step) -> None:
        """Fold the last ``apply``'s outputs into ``acc``: rewards, deals and episodes ended (a finished
        game starts its next episode here)."""
        eng = self.engine
        rewards = self._rewards()
        if self.single_learner:
            r = self._side_reward(rewards)
            self._carry += np.where(acc.done, r, 0.0).astype(np.float32)  # a new episode's: the next step's
            acc.mine += np.where(acc.done, 0.0, r).astype(np.float32)
        else:
            acc.rewards += rewards
        if eng.deal_ended.any():
            acc.add_deals(eng)
        over = np.flatnonzero(eng.match_over & ~acc.done)
        if len(over):
            acc.returns[over] = eng.returns[over]
            if self.single_learner:
                acc.learner_return[over] = self._side_reward(eng.returns)[over]
            acc.done[over] = True
            self._begin(over)
        if self.single_learner:  # the opponents' sub-steps write back only their own games' outputs
            eng.clear_outputs()

    def _check(self, actions) -> np.ndarray:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        eng = self.engine
        return check_actions(actions, self.num_actions, eng.legal_words, eng.current_player, eng.move_names)

    def _rewards(self) -> np.ndarray:
        """This step's rewards per seat, by the AEC env's rule (``reward="points"``:
        :func:`kozel_env.core.results.zero_sum_points` of the ended deals' points; ``"outcome"``: the match's
        returns)."""
        eng = self.engine
        if self.reward_mode == "points":
            return zero_sum_points(eng.step_points).astype(np.float32)  # zero where no deal ended
        return eng.returns.astype(np.float32)  # zero where no match ended

    def _timestep(self, acc: _Step) -> TimeStep:
        eng = self.engine
        views = self._views or {}
        mask = eng.legal_mask(views.get("mask"))  # also packs it in eng.legal_words, which _check reads
        self._started = True
        info = {}
        if acc.deal is not None:
            info["deals"] = acc.deal
        if acc.done.any():
            info["returns"] = acc.returns
            if self.single_learner:
                info["learner_return"] = acc.learner_return
        return TimeStep(seat=eng.current_player.copy(), obs=eng.observe(views.get("obs")), mask=mask,
                        rewards=acc.mine if self.single_learner else acc.rewards, done=acc.done,
                        deal_over=acc.deal_over, info=info)

    def sample_actions(self, generator: np.random.Generator) -> np.ndarray:
        """A uniformly drawn legal action for every game's seat to move (``int64[B]``), from the packed mask
        the last step made (the fast form of :func:`random_actions` for this env's own masks)."""
        return sample_from_words(self.engine.legal_words, generator.random(self.num_envs))

    def state(self) -> np.ndarray:
        """Every game's full-information (oracle) view, ``game.oracle(state)``: for centralized critics,
        never for a policy."""
        if not self._started:
            raise RuntimeError("call reset() before state()")
        return self.engine.oracle()

    # -- single learner ----------------------------------------------------------------------------------
    def _setup_learner(self, opponent, learner_side, rules_options) -> None:
        S = self.engine.num_sides  # learner_side and opponent were checked before the engine was built
        self._fixed_side = learner_side
        self._side = np.full(self.num_envs, learner_side if learner_side is not None else 0, np.int64)
        self._episodes = np.zeros(self.num_envs, np.int64)
        self._seat_of_side = np.array([self.engine.side_of.tolist().index(s) for s in range(S)], np.int64)
        self._random_streams = np.zeros(self.num_envs, np.uint64)  # opponent="random": one stream per game
        self._opponent = None if opponent == "random" else _batched_opponent(opponent, self.env_name, rules_options,
                                                                               self._seed)

    def _side_reward(self, per_seat: np.ndarray) -> np.ndarray:
        return per_seat[np.arange(self.num_envs), self._seat_of_side[self._side]]

    def _play_opponents(self, acc: _Step) -> None:
        """Opponent moves until a learner seat is to move in every game (each round steps the games where
        an opponent is to move, as one sub-batch)."""
        eng = self.engine
        while True:
            opp = np.flatnonzero(eng.side_of[eng.current_player] != self._side)
            if not len(opp):
                return
            sub = eng.take(opp)
            if self._opponent is None:  # "random": each game's own stream, whatever the batch around it
                sub.legal_mask()
                u = (vrng.next_u64(self._random_streams, opp) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
                actions = sample_from_words(sub.legal_words, u)
            else:
                actions = np.asarray(self._opponent(sub.observe(), sub.legal_mask()), np.int64)
            sub.apply(actions)
            eng.put(opp, sub)
            self._collect(acc)


class _Step:
    """What one step gathers before it becomes a :class:`TimeStep`."""

    def __init__(self, B: int, n: int):
        self.rewards = np.zeros((B, n), np.float32)
        self.mine = np.zeros(B, np.float32)
        self.done = np.zeros(B, bool)
        self.deal_over = np.zeros(B, bool)
        self.returns = np.zeros((B, n), np.float32)
        self.learner_return = np.zeros(B, np.float32)
        self.deal = None

    def add_deals(self, eng: BatchedGame) -> None:
        """The deals that the last ``apply`` ended (the engine's outputs are zero in the other games)."""
        ended = eng.deal_ended
        if self.deal is None:
            self.deal = {key: getattr(eng, name).copy() for key, name in _DEAL_KEYS}
            self.deal_over = ended.copy()
            return
        rows = np.flatnonzero(ended)
        for key, name in _DEAL_KEYS:
            self.deal[key][rows] = getattr(eng, name)[rows]
        self.deal_over |= ended


_DEAL_KEYS = (("seat_points", "seat_points"), ("written", "deal_written"), ("scores", "deal_scores"),
              ("winners", "deal_winners"), ("eggs", "deal_eggs"))
"""``info["deals"]`` keys and the engine outputs they copy: a deal result's ``seat_points``, ``written``,
``scores``, ``winners`` (a side mask) and ``eggs``, for the games where ``deal_over`` is set."""


# -- the arguments' checks (the rules options, episode and reward have theirs in kozel_env.core) ---------------
NUM_ENVS_CHECK = Int(1, (1 << 31) - 1)
AEC_ONLY = ("infos", "illegal_action", "render_mode")
"""Options of the AEC env that the vector env refuses (it returns arrays, raises on every bad action and does
not render)."""
_OPPONENT_KEY = np.uint64(0x6F70706F6E656E74)
"""``opponent="random"``: game ``b`` draws from splitmix64 seeded with ``mix(seeds[b] ^ _OPPONENT_KEY)`` at
``reset`` (its own stream, so a game's moves do not depend on the batch it is in)."""
_OPPONENT_FORMS = ("None (self-play), 'random', a bot name of agents that needs no engine state, a callable "
                   "f(obs, mask) -> actions, or an object with act_batch(obs, mask) or act(obs, mask)")


@dataclass(frozen=True)
class Seeds(Check):
    """``seed`` of ``vector.make`` and :meth:`VectorEnv.reset`: None, one seed (the per-game seeds derive from
    it) or ``length`` seeds, one per game. Returns None, an int, or ``uint64[length]``."""

    length: int

    @property
    def allowed(self) -> str:
        return f"None, {SEED_CHECK.allowed}, or a list of {self.length} such ints (one per game)"

    def __call__(self, name, value):
        try:
            if value is None:
                return None
            if isinstance(value, (list, tuple, range)) or (isinstance(value, np.ndarray) and value.ndim == 1):
                ints = Ints(self.length, SEED_CHECK.lo, SEED_CHECK.hi)(name, list(value))
                return np.array(ints, np.uint64)
            return SEED_CHECK(name, value)
        except InvalidOptionError:
            raise InvalidOptionError(f"{name}={value!r} is not allowed: {self.allowed}") from None


@dataclass(frozen=True)
class Arguments:
    """The checked arguments of :class:`VectorEnv` (and of the sharded env of :mod:`.workers`)."""

    num_envs: int
    seed: object
    opponent: object
    learner_side: int | None
    episode: str
    reward: str
    game: object


def check_arguments(env_name, num_envs, seed, opponent, learner_side, episode, reward, rules_options) -> Arguments:
    """Every argument of :class:`VectorEnv` checked, nothing built but the scalar Game of the rules options
    (a bad one raises :class:`InvalidOptionError` naming it, its value and what is allowed)."""
    check_env_name(env_name)
    num_envs = NUM_ENVS_CHECK("num_envs", num_envs)
    seed = Seeds(num_envs)("seed", seed)
    aec_only = [key for key in AEC_ONLY if key in rules_options]
    if aec_only:
        raise InvalidOptionError(f"{aec_only[0]}={rules_options[aec_only[0]]!r}: {', '.join(AEC_ONLY)} are "
                                 "options of the AEC env (kozel_env.<env>.env()); the vector env returns "
                                 "arrays, checks every action and does not render")
    episode = ENV_CHECKS["episode"]("episode", episode)
    reward = ENV_CHECKS["reward"]("reward", reward)
    game = load(env_name).raw_env.make_game(rules_options)  # the rules options' one check
    learner_side = _check_learner_side(learner_side, opponent, game.num_sides)
    return Arguments(num_envs, seed, _check_opponent(opponent), learner_side, episode, reward, game)


def check_workers(workers, num_envs: int) -> int:
    """``workers`` of ``vector.make``: None or 1 (one process), or an int in 2..num_envs (processes)."""
    if workers is None:
        return 1
    if isinstance(workers, (bool, np.bool_)) or not isinstance(workers, (int, np.integer)) \
            or not 1 <= int(workers) <= num_envs:
        raise InvalidOptionError(f"workers={workers!r} is not allowed: None or an int in 1..{num_envs} (the "
                                 f"processes that step shards of the batch: at most num_envs={num_envs})")
    return int(workers)


def check_env_name(env_name) -> None:
    if isinstance(env_name, str) and env_name in BATCHED:
        return
    if isinstance(env_name, str) and env_name in ENVIRONMENTS:
        raise InvalidOptionError(f"env_name={env_name!r} has no batched engine yet: the batched envs are "
                                 f"{', '.join(BATCHED)}. Use the AEC env (or the SB3/gymnasium wrappers).")
    raise InvalidOptionError(f"env_name={env_name!r} is not allowed: one of the batched envs "
                             f"{', '.join(BATCHED)} (every env: {', '.join(ENVIRONMENTS)})")


def _check_learner_side(learner_side, opponent, num_sides: int):
    side = Optional(Int(0, num_sides - 1))("learner_side", learner_side)
    if side is not None and opponent is None:
        raise InvalidOptionError(f"learner_side={learner_side!r} is not allowed without an opponent: in self-play "
                                 "the caller plays every side (give opponent=... for the single-learner mode)")
    return side


def _check_opponent(opponent):
    """The ``opponent`` if it is one of the forms of the module docstring (a bot name: one that exists and
    needs no engine state; agents is imported only then), else InvalidOptionError."""
    if opponent is None or (isinstance(opponent, str) and opponent == "random"):
        return opponent
    if callable(getattr(opponent, "act_batch", None)):
        return opponent
    if isinstance(opponent, str):
        from agents.registry import AGENTS, agent_class, known_agents, resolve_spec  # lazily: names only

        try:
            name, _ = resolve_spec(opponent)
        except ValueError as e:
            raise InvalidOptionError(f"opponent={opponent!r} is not allowed: {e}") from None
        if name not in AGENTS:
            usable = [n for n in known_agents() if n in AGENTS and n != "random"
                      and not getattr(agent_class(n), "needs_state", False)]
            raise InvalidOptionError(f"opponent={opponent!r} is not allowed: {_OPPONENT_FORMS}; bot names: "
                                     f"{', '.join(usable)}")
        opponent_needs_state = getattr(agent_class(name), "needs_state", False)
    else:
        opponent_needs_state = callable(getattr(opponent, "act", None)) and getattr(opponent, "needs_state", False)
    if opponent_needs_state:
        raise InvalidOptionError(f"opponent={opponent!r} needs the engine state (a pimc / expert search over "
                                 "determinized deals); the vector env gives opponents the observation and mask "
                                 "only: play it in the AEC env")
    if not isinstance(opponent, str) and not callable(getattr(opponent, "act", None)) and not callable(opponent):
        raise InvalidOptionError(f"opponent={opponent!r} is not allowed: {_OPPONENT_FORMS}")
    return opponent


def _batched_opponent(opponent, env_name: str, rules_options: dict, seed):
    """``f(obs, mask) -> actions`` for a batch, from an opponent that :func:`_check_opponent` accepted."""
    if isinstance(opponent, str):
        from agents import make_agent  # lazily: only bot names need the agents package

        try:
            opponent = make_agent(opponent, env_name, seed=0 if seed is None else int(np.atleast_1d(seed)[0]),
                                  env_options=rules_options)
        except (TypeError, ValueError, KeyError) as e:  # the bot's own options (e.g. "normal:x=1")
            raise InvalidOptionError(f"opponent={opponent!r} is not allowed: {e}") from None
    if callable(getattr(opponent, "act_batch", None)):
        return opponent.act_batch
    if callable(getattr(opponent, "act", None)):
        return lambda obs, mask: np.array([opponent.act(o, m) for o, m in zip(obs, mask)], np.int64)
    return opponent
