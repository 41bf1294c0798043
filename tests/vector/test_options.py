"""Bad arguments to the vector env (:mod:`kozel_env.vector.env`), swept over every batched game: each raises
the documented error naming the option and the value, and changes (or builds) nothing.

The games come from ``vector.BATCHED``, so a batched engine added later is swept too; the rules options'
bad values come from each rules field's own ``Check`` (the one home of option checking)."""
import numpy as np
import pytest

from kozel_env import vector
from kozel_env.core.aec import ENV_CHECKS
from kozel_env.core.errors import IllegalActionError, InvalidOptionError
from kozel_env.registry import ENVIRONMENTS, load
from kozel_env.vector import engine as engine_module

B = 3
UNKNOWN = object()


class _StateBot:
    """An object with ``act`` that declares it needs the engine state (as the pimc bots do)."""

    needs_state = True

    def act(self, obs, mask):
        return 0


def _rules_checks(name):
    return type(load(name).raw_env.make_game({}).rules).checks()


def _num_sides(name):
    return load(name).raw_env.make_game({}).num_sides


def _bad_make_arguments(name):
    """``(option, value, kwargs for make)``: every argument the vector env must refuse for game ``name``."""
    cases = [("num_envs", v, {"num_envs": v}) for v in (0, -1, True, 1.5, "3", None, np.float64(2.0))]
    cases += [("seed", v, {"seed": v}) for v in (1.5, True, "1", -1, 1 << 64, np.float32(1.0), [1, 2],
                                                  [1, 2, 3, 4], (1, 2, -1), [1, 2, 1.5], [True, 1, 2],
                                                  [[1, 2, 3]], [None, None, None])]
    cases += [("opponent", v, {"opponent": v}) for v in ("nobody", "pimc", "hard", "crazy", "expert", 5,
                                                          1.5, True, object(), "pimc:n", _StateBot())]
    S = _num_sides(name)
    cases += [("learner_side", v, {"opponent": "random", "learner_side": v}) for v in (S, -1, True, 1.5, "0")]
    cases.append(("learner_side", 0, {"learner_side": 0}))  # no opponent: self-play plays every side
    cases += [("workers", v, {"workers": v}) for v in (0, -1, 1.5, "2", B + 1, True, np.float64(2.0), [2])]
    cases += [("opponent", v, {"workers": 2, "opponent": v}) for v in ("greedy", _StateBot(), lambda obs, mask: 0)]
    for key in ("episode", "reward"):
        cases += [(key, v, {key: v}) for v in ENV_CHECKS[key].bad_values()]
    cases += [(key, v, {key: v}) for key, v in (("infos", "flat"), ("illegal_action", "lose"),
                                                 ("render_mode", "ansi"), ("render_mode", None))]
    cases.append(("no_such_option", UNKNOWN, {"no_such_option": 1}))  # as the AEC env: the key is named
    for key, check in _rules_checks(name).items():
        cases += [(key, v, {key: v}) for v in check.bad_values()]
    return cases


def _named(message, option, value):
    return option in message and (value is UNKNOWN or repr(value) in message)


@pytest.fixture
def engines_built(monkeypatch):
    """The batched engines built while the test runs (none may be, when make refuses its arguments)."""
    built = []
    init = engine_module.BatchedGame.__init__

    def spy(self, *args, **kwargs):
        built.append(type(self).__name__)
        init(self, *args, **kwargs)

    monkeypatch.setattr(engine_module.BatchedGame, "__init__", spy)
    return built


@pytest.mark.parametrize("name", vector.BATCHED)
def test_every_bad_argument_to_make_raises_invalid_option_naming_it_and_builds_no_engine(name, engines_built):
    failures = []
    for option, value, kwargs in _bad_make_arguments(name):
        args = {"num_envs": B, "seed": 0, **kwargs}
        try:
            vector.make(name, args.pop("num_envs"), **args)
        except InvalidOptionError as e:
            if not _named(str(e), option, value):
                failures.append(f"{option}={value!r}: message does not name them: {e}")
        except Exception as e:  # noqa: BLE001 - the sweep reports every wrong exception at once
            failures.append(f"{option}={value!r}: {type(e).__name__}: {e}")
        else:
            failures.append(f"{option}={value!r}: accepted")
    assert not failures, "\n".join(failures)
    assert engines_built == []


@pytest.mark.parametrize("env_name", ["no_such_env", "", 5, None, *sorted(set(ENVIRONMENTS) - set(vector.BATCHED))])
def test_an_env_without_a_batched_engine_is_refused_listing_the_batched_envs(env_name, engines_built):
    with pytest.raises(InvalidOptionError) as e:
        vector.make(env_name, B)
    assert _named(str(e.value), "env_name", env_name)
    assert all(batched in str(e.value) for batched in vector.BATCHED)
    assert engines_built == []


@pytest.mark.parametrize("name", vector.BATCHED)
def test_a_bot_that_needs_the_engine_state_is_refused_saying_so(name):
    for opponent in ("hard", "pimc", _StateBot()):
        with pytest.raises(InvalidOptionError, match="needs the engine state"):
            vector.make(name, B, opponent=opponent)


@pytest.mark.parametrize("name", vector.BATCHED)
def test_the_aec_env_options_are_refused_saying_they_belong_to_the_aec_env(name):
    for key, value in (("infos", "full"), ("illegal_action", "raise"), ("render_mode", "human")):
        with pytest.raises(InvalidOptionError, match="AEC env"):
            vector.make(name, B, **{key: value})


def test_the_allowed_forms_of_each_argument_are_accepted():
    name = vector.BATCHED[0]
    seeds = vector.seeds_from(4, B)
    for seed in (None, 0, (1 << 64) - 1, np.uint64(5), np.int32(5), seeds, seeds.tolist(), tuple(seeds.tolist()),
                 range(B)):
        venv = vector.make(name, np.int64(B), seed=seed)
        assert venv.reset().obs.shape[0] == B
    for side in (None, 0, np.int64(_num_sides(name) - 1)):
        vector.make(name, B, seed=0, opponent="random", learner_side=side).reset()
    vector.make(name, B, seed=0, opponent=lambda obs, mask: np.argmax(mask, axis=1)).reset()


def _snapshot(venv):
    """Every array of the vector env and its engine (state, ledgers, outputs) and what they show."""
    eng = venv.engine
    out = {n: getattr(eng, n).copy() for n in eng._per_game()}
    for n in eng.LEDGERS:
        ledger = getattr(eng, n)
        out.update({f"{n}.{k}": getattr(ledger, k).copy() for k in ledger.__slots__
                    if isinstance(getattr(ledger, k), np.ndarray)})
    out.update({f"venv.{k}": np.copy(v) for k, v in vars(venv).items() if isinstance(v, np.ndarray)})
    out.update(obs=eng.observe(), mask=eng.legal_mask(), oracle=eng.oracle(), seed=np.asarray(venv._seed))
    return out


def _assert_unchanged(before, after):
    assert before.keys() == after.keys()
    for k in before:
        assert np.array_equal(before[k], after[k]), k


def _started(name):
    venv = vector.make(name, B, seed=7)
    ts = venv.reset()
    gen = np.random.default_rng(0)
    for _ in range(5):
        ts = venv.step(venv.sample_actions(gen))
    return venv, ts


@pytest.mark.parametrize("name", vector.BATCHED)
def test_a_bad_seed_to_reset_raises_naming_it_and_changes_nothing(name):
    venv, _ = _started(name)
    before = _snapshot(venv)
    for seed in (1.5, True, "1", -1, 1 << 64, [1, 2], [1, 2, 3, 4], [1, 2, -1], [1.0, 2.0, 3.0]):
        with pytest.raises(InvalidOptionError) as e:
            venv.reset(seed=seed)
        assert _named(str(e.value), "seed", seed), e.value
        _assert_unchanged(before, _snapshot(venv))


@pytest.mark.parametrize("name", vector.BATCHED)
def test_a_bad_action_array_raises_illegal_action_and_changes_nothing(name):
    venv, ts = _started(name)
    before = _snapshot(venv)
    good = venv.sample_actions(np.random.default_rng(1))
    n = venv.num_actions
    shapes = (good[:-1], good[:, None], good[0], np.concatenate([good, good]))
    for actions, match in [(a, "shape") for a in shapes] + [
            (good.astype(np.float64), "dtype float64"), (good.astype(bool), "dtype bool"),
            (good.astype(object), "dtype object")]:
        with pytest.raises(IllegalActionError, match=match):
            venv.step(actions)
        _assert_unchanged(before, _snapshot(venv))
    for value in (n, -1, 1 << 40):
        actions = good.copy()
        actions[1] = value
        with pytest.raises(IllegalActionError, match=rf"game 1: action {value} is out of range 0\.\.{n - 1}.*legal: ") \
                as e:
            venv.step(actions)
        assert e.value.action is None
        _assert_unchanged(before, _snapshot(venv))
    huge = good.astype(np.uint64)
    huge[2] = np.uint64(1 << 63)
    with pytest.raises(IllegalActionError, match=rf"game 2: action {1 << 63} is out of range"):
        venv.step(huge)
    _assert_unchanged(before, _snapshot(venv))


@pytest.mark.parametrize("name", vector.BATCHED)
def test_an_illegal_move_names_the_game_the_move_and_its_legal_moves_and_changes_nothing(name):
    venv, ts = _started(name)
    before = _snapshot(venv)
    actions = venv.sample_actions(np.random.default_rng(1))
    b = int(np.flatnonzero((ts.mask == 0).any(axis=1))[-1])
    illegal = int(np.flatnonzero(ts.mask[b] == 0)[0])
    actions[b] = illegal
    legal = venv.engine.move_names(b, np.flatnonzero(ts.mask[b]).tolist())
    with pytest.raises(IllegalActionError) as e:
        venv.step(actions)
    message = str(e.value)
    assert message.startswith(f"game {b}: action {venv.engine.move_names(b, [illegal])[0]} is not legal")
    assert f"legal: {legal}" in message and e.value.action == illegal
    _assert_unchanged(before, _snapshot(venv))


def test_the_bot_names_an_unknown_opponent_is_told_are_the_ones_the_vector_env_takes():
    with pytest.raises(InvalidOptionError) as e:
        vector.make("dominoes_v0", 2, opponent="nobody")
    names = str(e.value).rsplit("bot names: ", 1)[1].split(", ")
    assert names and "hard" not in names and "pimc" not in names and "expert" not in names
    for name in names:
        vector.make("dominoes_v0", 2, seed=0, opponent=name).reset()
