"""Slow reference observation builders, one module per rules engine (named by ``game.engine_id``).

Each module has ``build(game, state, seat) -> {part name: array of the part's shape}`` for every part of
``game.obs_spec``, written plainly from each part's documented meaning (loops over seats, tiles and cards,
no bit tricks and none of the engine's observation code). ``tests/test_observation_reference.py`` compares
them part by part with the engine's fast builder over every registered environment.
"""
