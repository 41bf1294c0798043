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

import argparse
import json
import time
from pathlib import Path

import numpy as np

from .policy import CHECKPOINT_DIR, NumpyPolicy

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
    return (Path(directory) if directory is not None else VALUE_DIR) / f"{env_name}.npz"


_CACHE: dict = {}


def load_value(env_name: str, path=None) -> ValueNet:
    """The shipped value network of ``env_name`` (or the one at ``path``), cached per process."""
    p = Path(path) if path is not None else value_path(env_name)
    if not p.exists():
        raise FileNotFoundError(f"no value network for {env_name!r} at {p}; train one with "
                                f"`python -m agents.rl.value --env {env_name}`")
    key = (str(p), p.stat().st_mtime_ns)
    if key not in _CACHE:
        net = ValueNet(NumpyPolicy.from_files(p))
        trained = net.config.get("env")
        if trained is not None and trained != env_name:
            raise ValueError(f"this value network was trained on {trained!r}, not {env_name!r}")
        _CACHE[key] = net
    return _CACHE[key]


def collect(env_name: str, samples: int, seed: int = DATA_SEED, eps: float = EPS,
            env_options: dict | None = None) -> dict:
    """``samples`` positions of ``normal`` self-play (see the module doc), as arrays: ``obs`` [N, D] (one
    seat's observation), ``target`` [N] (that seat's ``deal_value`` at the end of the deal), ``seat``,
    ``match`` and ``deal`` (which match, and which deal of it, the position is from: the held-out split is
    by match)."""
    from ..base import game_for
    from ..strategies import strategy_for

    game = game_for(env_name, env_options)
    strat = strategy_for(game)
    rng = np.random.default_rng(seed)
    n_seats = game.num_players
    obs = np.empty((samples, game.obs_spec.size), np.float32)
    target = np.empty(samples, np.float32)
    match = np.empty(samples, np.int64)
    seats = np.empty(samples, np.int64)
    deal = np.empty(samples, np.int64)
    k = 0
    m = 0
    while k < samples:
        st = game.new_state(int(seed * 1_000_003 + m) % (1 << 63))
        pending = []   # (row, seat) of the current deal
        deals = len(st.results)
        while not st.terminal and k < samples:
            seat = int(rng.integers(n_seats))
            obs[k] = game.observe(st, seat)
            match[k], seats[k], deal[k] = m, seat, deals
            pending.append((k, seat))
            k += 1
            legal = st.legal_actions()
            if len(legal) == 1:
                a = legal[0]
            elif rng.random() < eps:
                a = legal[int(rng.integers(len(legal)))]
            else:
                a = strat.normal_state(st, st.current_player, legal)
            st.apply_action(a)
            if len(st.results) != deals:   # a deal ended: label its positions
                deals = len(st.results)
                vals = [strat.deal_value(st, q) for q in range(n_seats)]
                for row, q in pending:
                    target[row] = vals[q]
                pending = []
        m += 1
        if pending:   # the sample budget ran out inside a deal: drop its unlabelled positions
            k = pending[0][0]
            break
    return {"obs": obs[:k], "target": target[:k], "seat": seats[:k], "match": match[:k], "deal": deal[:k]}


def train(env_name: str, samples: int | None = None, seed: int = DATA_SEED, out=None, quiet: bool = False,
          **overrides) -> dict:
    """Collect, fit and save the value network of ``env_name``; returns its record (also in the JSON)."""
    import torch

    from .model import mlp
    from .threads import single_thread_math

    single_thread_math(1, torch_too=True)
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
    torch.manual_seed(seed % (1 << 31))
    net = mlp([obs.shape[1], *cfg["hidden"], 1], 1.0)
    opt = torch.optim.Adam(net.parameters(), lr=cfg["lr"])
    xt, yt = torch.from_numpy(obs[~held]), torch.from_numpy(yn[~held])
    gen = torch.Generator().manual_seed(seed % (1 << 31))
    n = len(xt)
    steps = cfg["epochs"] * -(-n // cfg["batch"])
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    for _ in range(cfg["epochs"]):
        perm = torch.randperm(n, generator=gen)
        for s0 in range(0, n, cfg["batch"]):
            mb = perm[s0:s0 + cfg["batch"]]
            loss = torch.nn.functional.mse_loss(net(xt[mb]).squeeze(-1), yt[mb])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
    layers = [(m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy())
              for m in net if isinstance(m, torch.nn.Linear)]
    record = {"env": env_name, "kind": "value", "target": "strategy deal_value under normal play",
              "shift": shift, "scale": scale, "samples": int(len(y)), "held_out": int(held.sum()),
              "data_seed": seed, "eps": EPS, "settings": {**cfg, "hidden": list(cfg["hidden"])},
              "data_cpu_seconds": round(t_data, 1), "train_cpu_seconds": round(time.process_time() - t0 - t_data, 1)}
    # the network as stored (float16 weights) is what plays: its fit on the held-out matches' positions
    stored = [(W.astype(np.float16), b.astype(np.float16)) for W, b in layers]
    pred = ValueNet(NumpyPolicy(stored, {"scale": scale, "shift": shift})).value(obs[held])
    record["held_out_r2"] = float(1.0 - np.mean((pred - y[held]) ** 2) / np.var(y[held]))
    path = value_path(env_name, out)
    path.parent.mkdir(parents=True, exist_ok=True)
    NumpyPolicy(layers).save(path, record)
    if not quiet:
        print(json.dumps({k: v for k, v in record.items() if k != "settings"}))
    return record


def main(argv=None) -> list:
    ap = argparse.ArgumentParser(prog="python -m agents.rl.value", description=__doc__.split("\n\n")[0])
    ap.add_argument("--env", nargs="+", required=True)
    ap.add_argument("--samples", type=int, default=None, help=f"positions (default {SETTINGS['samples']:,})")
    ap.add_argument("--epochs", type=int, default=None)
    ap.add_argument("--out", default=None, help="folder (default agents/checkpoints/value)")
    ap.add_argument("--seed", type=int, default=DATA_SEED)
    args = ap.parse_args(argv)
    over = {"epochs": args.epochs} if args.epochs else {}
    return [train(e, args.samples, args.seed, args.out, **over) for e in args.env]


if __name__ == "__main__":
    main()
