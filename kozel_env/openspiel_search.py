"""Arena agents that search the OpenSpiel bridge's games (see :mod:`kozel_env.openspiel`, *Agents*):
:class:`ISMCTSAgent` (OpenSpiel's ``ISMCTSBot``) and :class:`DeterminizedMCTSAgent` (OpenSpiel's ``MCTSBot``
on determinizations), with :class:`EngineRolloutEvaluator`, OpenSpiel's random-rollout evaluation played on
the engine state. Import them from :mod:`kozel_env.openspiel` (or from here)."""
from __future__ import annotations

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from .core.rng import Rng
from .openspiel_game import KozelGame, KozelState, load_game

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
