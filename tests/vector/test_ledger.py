"""The batched ledger (:mod:`kozel_env.vector.ledger`) does what the scalar
:class:`~kozel_env.core.ledger.Ledger` does, for every threshold and eggs mode, on random histories."""
import random

import numpy as np
import pytest

from kozel_env.core.ledger import THRESHOLD_MODES, Ledger, LedgerRules
from kozel_env.vector.ledger import BatchedLedger

CASES = [(m, e, s) for m in THRESHOLD_MODES for e in ("carry", "multiply") for s in (2, 3)
         if not (m == "shared" and s != 2)]


@pytest.mark.parametrize(("mode", "eggs_mode", "sides"), CASES)
def test_batched_ledger_matches_the_scalar_ledger(mode, eggs_mode, sides):
    rnd = random.Random(f"{mode}{eggs_mode}{sides}")
    rules = LedgerRules(num_sides=sides, target=101, threshold=13, threshold_mode=mode, eggs_mode=eggs_mode)
    B = 40
    batched = BatchedLedger(rules, B)
    batched.start(np.arange(B))
    scalar = [Ledger(rules) for _ in range(B)]
    for _ in range(60):
        idx = np.array(sorted(rnd.sample(range(B), 15)))
        if rnd.random() < 0.2:
            amounts = np.array([rnd.randint(0, 30) for _ in idx])
            batched.record_eggs(idx, amounts)
            for k, i in enumerate(idx):
                scalar[i].record_eggs(int(amounts[k]))
            continue
        amounts = np.array([[rnd.randint(0, 30) for _ in range(sides)] for _ in idx])
        losing = np.array([[rnd.random() < 0.5 for _ in range(sides)] for _ in idx])
        written = batched.settle(idx, amounts, losing)
        for k, i in enumerate(idx):
            got = scalar[i].settle({s: int(amounts[k, s]) for s in range(sides) if losing[k, s]})
            assert [got.get(s, 0) for s in range(sides)] == written[k].tolist()
        for i, led in enumerate(scalar):
            assert led.scores == batched.scores[i].tolist()
            assert led.opened == batched.opened[i].tolist()
            assert led.memory == batched.memory[i].tolist()
            assert led.wrote == batched.wrote[i].tolist()
            assert (led.eggs, led.eggs_streak) == (batched.eggs[i], batched.eggs_streak[i])
            assert led.multiplier == batched.multiplier(np.array([i]))[0]
            assert led.at_target() == np.flatnonzero(batched.at_target(np.array([i]))[0]).tolist()
