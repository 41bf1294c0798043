"""What the search's own networks share -- the learned value (:mod:`agents.rl.value`) and the learned belief
(:mod:`agents.rl.belief`) of the ``expert``: the checkpoint of a game in its folder (numpy, cached), the
``normal`` self-play their data comes from, and the fit of an MLP (torch, imported only to train).
"""
from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from .policy import NumpyPolicy


def net_path(folder: Path, env_name: str, directory=None) -> Path:
    """``<folder>/<game>.npz`` (or the same name in ``directory``)."""
    return (Path(directory) if directory is not None else folder) / f"{env_name}.npz"


_CACHE: dict = {}


def load_net(kind: str, folder: Path, env_name: str, path, wrap) -> object:
    """The shipped ``kind`` network of ``env_name`` in ``folder`` (or the one at ``path``), as ``wrap(mlp)``,
    cached per process; a missing file says how to train one, a file of another game is refused."""
    p = Path(path) if path is not None else net_path(folder, env_name)
    if not p.exists():
        raise FileNotFoundError(f"no {kind} network for {env_name!r} at {p}; train one with "
                                f"`python -m agents.rl.{kind} --env {env_name}`")
    key = (kind, str(p), p.stat().st_mtime_ns)
    if key not in _CACHE:
        net = wrap(NumpyPolicy.from_files(p))
        trained = net.config.get("env")
        if trained is not None and trained != env_name:
            raise ValueError(f"this {kind} network was trained on {trained!r}, not {env_name!r}")
        _CACHE[key] = net
    return _CACHE[key]


def normal_selfplay(game, seed: int, eps: float, rng, on_deal_end=None) -> Iterator[tuple]:
    """Every position of ``normal`` self-play matches, endlessly: yields ``(match, state)`` before each move
    (the state is played on when the caller resumes). A share ``eps`` of the moves with a choice is a random
    legal one (so positions after poor moves are seen too); match ``m`` is dealt from its own engine seed of
    ``seed``; ``on_deal_end(state)`` is called after each move that ended a deal."""
    from ..strategies import strategy_for

    strat = strategy_for(game)
    m = 0
    while True:
        st = game.new_state(int(seed * 1_000_003 + m) % (1 << 63))
        deals = len(st.results)
        while not st.terminal:
            yield m, st
            legal = st.legal_actions()
            if len(legal) == 1:
                a = legal[0]
            elif rng.random() < eps:
                a = legal[int(rng.integers(len(legal)))]
            else:
                a = strat.normal_state(st, st.current_player, legal)
            st.apply_action(a)
            if len(st.results) != deals:
                deals = len(st.results)
                if on_deal_end is not None:
                    on_deal_end(st)
        m += 1


def fit_mlp(sizes: list, x: np.ndarray, y: np.ndarray, loss, cfg: dict, seed: int, out_gain: float = 1.0) -> list:
    """Fit an MLP of ``sizes`` (its last layer initialised with ``out_gain``) to ``loss(net(x[batch]),
    y[batch])`` (Adam at ``cfg["lr"]``, cosine learning rate over ``cfg["epochs"]`` passes of ``cfg["batch"]``
    rows, one thread, seeded); returns its layers as numpy ``(W, b)`` pairs."""
    import torch

    from .model import mlp
    from .threads import single_thread_math

    single_thread_math(1, torch_too=True)
    torch.manual_seed(seed % (1 << 31))
    net = mlp(sizes, out_gain)
    opt = torch.optim.Adam(net.parameters(), lr=cfg["lr"])
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    gen = torch.Generator().manual_seed(seed % (1 << 31))
    n = len(xt)
    steps = cfg["epochs"] * -(-n // cfg["batch"])
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    for _ in range(cfg["epochs"]):
        perm = torch.randperm(n, generator=gen)
        for s0 in range(0, n, cfg["batch"]):
            mb = perm[s0:s0 + cfg["batch"]]
            lv = loss(net(xt[mb]), yt[mb])
            opt.zero_grad(set_to_none=True)
            lv.backward()
            opt.step()
            sched.step()
    return [(m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy())
            for m in net if isinstance(m, torch.nn.Linear)]


def save_net(layers: list, record: dict, path: Path, quiet: bool) -> None:
    """Write the network and its record (``<game>.npz`` + ``.json``); print the record unless ``quiet``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    NumpyPolicy(layers).save(path, record)
    if not quiet:
        print(json.dumps({k: v for k, v in record.items() if k != "settings"}))


def train_cli(kind: str, doc: str, settings: dict, data_seed: int, train, argv=None) -> list:
    """``python -m agents.rl.<kind> --env <game> ...``: train and save each game's network."""
    ap = argparse.ArgumentParser(prog=f"python -m agents.rl.{kind}", description=doc.split("\n\n")[0])
    ap.add_argument("--env", nargs="+", required=True)
    ap.add_argument("--samples", type=int, default=None, help=f"positions (default {settings['samples']:,})")
    ap.add_argument("--epochs", type=int, default=None)
    ap.add_argument("--out", default=None, help=f"folder (default agents/checkpoints/{kind})")
    ap.add_argument("--seed", type=int, default=data_seed)
    args = ap.parse_args(argv)
    over = {"epochs": args.epochs} if args.epochs else {}
    return [train(e, args.samples, args.seed, args.out, **over) for e in args.env]
