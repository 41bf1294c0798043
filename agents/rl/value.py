"""A learned value of a seat's position, from that seat's own observation: the leaf value of the ``expert``
search (:mod:`agents.expert`).

``V(game.observe(state, seat))`` estimates what the strategy's zero-sum ``deal_value(state, seat)`` (the score
the ``pimc`` bots play out to: points written, eyes, pips the losers count; see :mod:`agents.strategies`)
will be at the end of the deal when every seat plays on with the ``normal`` bot -- what a ``normal`` playout
to the end of the deal would give, averaged over everything the seat cannot see. It reads only the seat's
observation, so it is legal at play time; no oracle input, no hidden card.

Training (``python -m agents.rl.value --env <game>``, torch): the ``normal`` bot plays whole matches in every
seat (a share :data:`EPS` of its moves replaced by a random legal one, so positions after poor moves are
seen too); at every position one seat's observation (drawn at random) is kept with the seat's
``deal_value`` at the end of that deal as its target; an MLP is fitted by squared error, a tenth of the
matches held out for the reported fit (R^2). The data's seeds are their own (:data:`DATA_SEED`), no arena
deal seed. The network ships as ``agents/checkpoints/value/<game>.npz`` (+ ``.json``) and plays in numpy
(:class:`ValueNet`), like the policies.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from .policy import CHECKPOINT_DIR, NumpyPolicy
from .searchnets import fit_mlp, load_net, net_path, normal_selfplay, save_net, train_cli

VALUE_DIR = CHECKPOINT_DIR / "value"
DATA_SEED = 20261201   # the value data's match seeds (no arena seed: agents.seeds)
EPS = 0.05             # share of random legal moves in the data's matches
SETTINGS = {"samples": 600_000, "hidden": (256, 256), "epochs": 2, "lr": 1e-3, "batch": 512}
"""Training settings (every game): positions kept, network layout, passes over the data."""


class ValueNet:
    """The value MLP in numpy: ``value(obs)`` for one observation or a batch, in ``deal_value`` units."""

    def __init__(self, mlp: NumpyPolicy):
        self.mlp = mlp
        self.config = mlp.config
        self.scale = float(mlp.config.get("scale", 1.0))
        self.shift = float(mlp.config.get("shift", 0.0))
        self.obs_dim = mlp.obs_dim

    def value(self, obs) -> np.ndarray:
        x = np.asarray(obs, np.float32)
        v = self.mlp.logits(x if x.ndim == 2 else x[None])[:, 0] * self.scale + self.shift
        return v if x.ndim == 2 else v[0]


def value_path(env_name: str, directory=None) -> Path:
    return net_path(VALUE_DIR, env_name, directory)


def load_value(env_name: str, path=None) -> ValueNet:
    """The shipped value network of ``env_name`` (or the one at ``path``), cached per process."""
    return load_net("value", VALUE_DIR, env_name, path, ValueNet)


def collect(env_name: str, samples: int, seed: int = DATA_SEED, eps: float = EPS,
            env_options: dict | None = None) -> dict:
    """``samples`` positions of ``normal`` self-play (see the module doc), as arrays: ``obs`` [N, D] (one
    seat's observation), ``target`` [N] (that seat's ``deal_value`` at the end of the deal), ``seat``,
    ``match`` and ``deal`` (which match, and which deal of it, the position is from: the held-out split is
    by match)."""
    from ..base import game_for
    from ..strategies import strategy_for

    game = game_for(env_name, env_options)
    deal_value = strategy_for(game).deal_value
    rng = np.random.default_rng(seed)
    n_seats = game.num_players
    obs = np.empty((samples, game.obs_spec.size), np.float32)
    target = np.empty(samples, np.float32)
    match = np.empty(samples, np.int64)
    seats = np.empty(samples, np.int64)
    deal = np.empty(samples, np.int64)
    pending = []   # (row, seat) of the current deal

    def label(st):  # a deal ended: its positions get their seat's value of it
        vals = [deal_value(st, q) for q in range(n_seats)]
        for row, q in pending:
            target[row] = vals[q]
        pending.clear()

    k = 0
    for m, st in normal_selfplay(game, seed, eps, rng, on_deal_end=label):
        if k >= samples:
            break
        seat = int(rng.integers(n_seats))
        obs[k] = game.observe(st, seat)
        match[k], seats[k], deal[k] = m, seat, len(st.results)
        pending.append((k, seat))
        k += 1
    if pending:   # the sample budget ran out inside a deal: drop its unlabelled positions
        k = pending[0][0]
    return {"obs": obs[:k], "target": target[:k], "seat": seats[:k], "match": match[:k], "deal": deal[:k]}


def train(env_name: str, samples: int | None = None, seed: int = DATA_SEED, out=None, quiet: bool = False,
          **overrides) -> dict:
    """Collect, fit and save the value network of ``env_name``; returns its record (also in the JSON)."""
    import torch

    cfg = {**SETTINGS, **overrides}
    if samples is not None:
        cfg["samples"] = samples
    t0 = time.process_time()
    data = collect(env_name, cfg["samples"], seed)
    obs, y, match = data["obs"], data["target"], data["match"]
    t_data = time.process_time() - t0
    held = (match % 10) == 9
    shift, scale = float(y[~held].mean()), float(y[~held].std() or 1.0)
    yn = (y - shift) / scale
    layers = fit_mlp([obs.shape[1], *cfg["hidden"], 1], obs[~held], yn[~held],
                     lambda out, t: torch.nn.functional.mse_loss(out.squeeze(-1), t), cfg, seed)
    record = {"env": env_name, "kind": "value", "target": "strategy deal_value under normal play",
              "shift": shift, "scale": scale, "samples": int(len(y)), "held_out": int(held.sum()),
              "data_seed": seed, "eps": EPS, "settings": {**cfg, "hidden": list(cfg["hidden"])},
              "data_cpu_seconds": round(t_data, 1), "train_cpu_seconds": round(time.process_time() - t0 - t_data, 1)}
    # the network as stored (float16 weights) is what plays: its fit on the held-out matches' positions
    stored = [(W.astype(np.float16), b.astype(np.float16)) for W, b in layers]
    pred = ValueNet(NumpyPolicy(stored, {"scale": scale, "shift": shift})).value(obs[held])
    record["held_out_r2"] = float(1.0 - np.mean((pred - y[held]) ** 2) / np.var(y[held]))
    save_net(layers, record, value_path(env_name, out), quiet)
    return record


def main(argv=None) -> list:
    return train_cli("value", __doc__, SETTINGS, DATA_SEED, train, argv)


if __name__ == "__main__":
    main()
