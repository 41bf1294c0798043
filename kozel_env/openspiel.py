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
(``pickle.dumps(game)``) keeps the Rng's position too. **Text from elsewhere:** OpenSpiel reads a Python
game's state back with ``pickle.loads`` (``PyState::Deserialize``; a Python game cannot override it), so
``pyspiel.deserialize_game_and_state`` and ``game.deserialize_state`` run whatever code a crafted string
names. For any text you did not serialize yourself use :func:`deserialize_game_and_state` and
:func:`deserialize_state` of this module (:mod:`kozel_env.openspiel_serial`): the same results for a real
Kozel state, and an :class:`UnsafeStateError` naming the problem, before anything is built, for anything else.

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

**Modules.** This module is the one to import; it re-exports the three that hold the code:
:mod:`kozel_env.openspiel_game` (parameters, game, state, observer, registration),
:mod:`kozel_env.openspiel_search` (the arena agents and :class:`EngineRolloutEvaluator`) and
:mod:`kozel_env.openspiel_serial` (loading serialized states from elsewhere without running their code).
"""
from __future__ import annotations

from .openspiel_game import (
    DEAL_LENGTH,
    EPISODES,
    GAMES,
    MATCH_DEALS,
    PREFIX,
    ZERO_SUM,
    KozelGame,
    KozelObserver,
    KozelState,
    _restore_engine,  # noqa: F401  (pickles made before the split name these three here)
    _unpickle_game,  # noqa: F401
    _unpickle_state,  # noqa: F401
    load_game,
    parameter_specification,
    to_params,
)
from .openspiel_search import DeterminizedMCTSAgent, EngineRolloutEvaluator, ISMCTSAgent
from .openspiel_serial import STATE_GLOBALS, UnsafeStateError, deserialize_game_and_state, deserialize_state

globals().update({cls.__name__: cls for cls in GAMES.values()})  # DominoesV0Game, ... as before the split

__all__ = [
    "DEAL_LENGTH", "EPISODES", "GAMES", "MATCH_DEALS", "PREFIX", "ZERO_SUM",
    "KozelGame", "KozelObserver", "KozelState", "load_game", "parameter_specification", "to_params",
    "DeterminizedMCTSAgent", "EngineRolloutEvaluator", "ISMCTSAgent",
    "STATE_GLOBALS", "UnsafeStateError", "deserialize_game_and_state", "deserialize_state",
]
