"""Engine-independent building blocks: rng, bitmasks, observation specs, the ledger, the engine contract,
the AEC adapter base."""
