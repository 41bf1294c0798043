"""The shared building blocks: rng, ledger (thresholds and eggs), observation spec."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from kozel_env.core.bits import bits, mask_of
from kozel_env.core.ledger import Ledger, LedgerRules
from kozel_env.core.rng import Rng
from kozel_env.core.spec import ObsSpec, Part, unpack_masks


# ---------------------------------------------------------------- rng
def test_rng_is_pinned_splitmix64():
    """Golden values: the same seed gives the same deals on every machine and Python version."""
    r = Rng(0)
    assert [r.next_u64() for _ in range(3)] == [
        0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_rng_clone_continues_identically_and_independently():
    r = Rng(5)
    r.next_u64()
    c = r.clone()
    assert [r.below(1000) for _ in range(5)] == [c.below(1000) for _ in range(5)]


def test_rng_pick_bit_and_shuffle_are_uniform_enough():
    r = Rng(1)
    counts = np.zeros(4)
    for _ in range(4000):
        counts[r.pick_bit(0b1111)] += 1
    assert counts.min() > 850
    items = r.shuffle(list(range(10)))
    assert sorted(items) == list(range(10))


# ---------------------------------------------------------------- ledger
def test_ledger_open_mode_threshold_per_side():
    led = Ledger(LedgerRules(2, target=101, threshold=13, threshold_mode="open"))
    assert led.settle({0: 12}) == {0: 0} and led.scores == [0, 0]
    assert led.settle({0: 13}) == {0: 13} and led.opened == [True, False]
    assert led.settle({0: 1}) == {0: 1} and led.scores == [14, 0]
    assert led.settle({1: 5}) == {1: 0}


def test_ledger_remember_mode_clears_memory_when_the_side_does_not_lose():
    led = Ledger(LedgerRules(2, target=101, threshold=13, threshold_mode="remember"))
    led.settle({0: 8})
    assert led.memory == [8, 0]
    led.record_eggs(4)  # eggs keep the memory
    assert led.memory == [8, 0]
    led.settle({1: 2})  # side 0 did not lose: memory cleared; side 1 gets eggs 4 + 2 = 6, remembered
    assert led.memory == [0, 6] and led.scores == [0, 0]
    assert led.settle({1: 7}) == {1: 13} and led.memory == [0, 0]


def test_ledger_accumulate_mode_keeps_memory_until_it_lands():
    led = Ledger(LedgerRules(3, target=101, threshold=13, threshold_mode="accumulate"))
    led.settle({0: 5, 1: 20})
    led.settle({1: 1, 2: 3})
    assert led.memory == [5, 1, 3]
    assert led.settle({0: 9}) == {0: 14}


def test_ledger_shared_mode_wipes_the_other_side():
    led = Ledger(LedgerRules(2, target=125, threshold=25, threshold_mode="shared"))
    assert led.settle({0: 30}) == {0: 30}
    assert led.settle({1: 24}) == {1: 0} and led.scores == [30, 0]
    assert led.settle({0: 3}) == {0: 3} and led.scores == [33, 0]
    assert led.settle({1: 25}) == {1: 25} and led.scores == [0, 25] and led.opened == [False, True]


def test_ledger_multiply_eggs_double_then_reset():
    led = Ledger(LedgerRules(2, target=12, eggs_mode="multiply"))
    led.record_eggs()
    assert led.multiplier == 2
    led.record_eggs()
    assert led.multiplier == 4
    assert led.settle({1: 2}) == {1: 8} and led.multiplier == 1


@settings(max_examples=200, deadline=None)
@given(hs.lists(hs.tuples(hs.integers(0, 1), hs.integers(0, 60), hs.booleans()), max_size=30),
       hs.sampled_from(["open", "remember", "accumulate", "none"]))
def test_ledger_scores_never_decrease_and_written_is_all_or_nothing(deals, mode):
    led = Ledger(LedgerRules(2, target=10**9, threshold=13, threshold_mode=mode))
    for side, amount, eggs in deals:
        before = led.scores[:]
        if eggs:
            led.record_eggs(amount)
            assert led.scores == before
            continue
        carried = led.eggs
        written = led.settle({side: amount})
        assert all(a >= b for a, b in zip(led.scores, before))
        assert written[side] in (0, led.scores[side] - before[side])
        if mode in ("open", "none") and written[side]:
            assert written[side] == amount + carried


# ---------------------------------------------------------------- spec
def test_spec_offsets_views_and_markdown():
    spec = ObsSpec([Part("a", (2, 3), "first"), Part("b", (4,), "second", high=2.0)])
    assert spec.size == 10 and spec.slices["b"] == slice(6, 10)
    v = spec.view(np.arange(10, dtype=np.float32))
    assert v["a"].shape == (2, 3) and v["b"].tolist() == [6, 7, 8, 9]
    assert "| `b` | (4,) | 6 | 0..2 | second |" in spec.markdown()
    with pytest.raises(ValueError):
        ObsSpec([Part("a", (1,), ""), Part("a", (1,), "")])


def test_unpack_masks():
    assert unpack_masks([0b101, 1 << 27], 28)[0, :3].tolist() == [1, 0, 1]
    assert unpack_masks([0b101, 1 << 27], 28)[1, 27] == 1
    assert bits(mask_of([3, 0, 9])) == [0, 3, 9]
