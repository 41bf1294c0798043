"""A learned belief: who holds each unseen card or tile, from one seat's own observation -- the ``expert``'s
inference over its imagined deals (:mod:`agents.expert`, option ``belief``).

``game.sample_consistent`` re-deals what a seat cannot see uniformly among the deals that fit the hard facts
(its hand, the table, voids, knocks, draws). How the other seats played says more: a seat that kept its
trump back probably has none to spare. This network reads the seat's observation and gives, for every card or
tile of the game and every other seat, the probability that this seat holds it (one class more: anywhere
else -- played, the stock, not dealt). The expert draws several times more imagined deals than it plays out
and keeps the likeliest under this belief (:func:`log_likelihood`, the Gumbel top-k draw of
:meth:`agents.expert.ExpertAgent._sampler`), as the learned inference of trick-based card-game search does
(Solinas, Rebstock and Buro, "Improving Search with Supervised Learning in Trick-Based Card Games", AAAI 2019).

It reads only the seat's observation, so it is legal at play time; the true holders are its training targets
only. Training (``python -m agents.rl.belief --env <game>``, torch): the ``normal`` bot plays whole matches in
every seat (a share :data:`EPS` of its moves random, as for :mod:`agents.rl.value`); at every position one
seat's observation (drawn at random) is kept with the holder of every item the seat does not hold; an MLP is
fitted by cross-entropy per item, a tenth of the matches held out for the reported fit (mean log-likelihood
per item the seat does not hold, beside the uniform guess over the classes). The data's seeds are their own
(:data:`DATA_SEED`), no arena deal seed. The network ships as ``agents/checkpoints/belief/<game>.npz`` (+
``.json``) and plays in numpy.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from .policy import CHECKPOINT_DIR, NumpyPolicy
from .searchnets import fit_mlp, load_net, net_path, normal_selfplay, save_net, train_cli

BELIEF_DIR = CHECKPOINT_DIR / "belief"
DATA_SEED = 20261202   # the belief data's match seeds (no arena seed: agents.seeds)
EPS = 0.05             # share of random legal moves in the data's matches
SETTINGS = {"samples": 300_000, "hidden": (256, 256), "epochs": 3, "lr": 1e-3, "batch": 512}
"""Training settings (every game): positions kept, network layout, passes over the data."""


def num_items(game) -> int:
    """The cards or tiles of the game: the bits of ``state.hands``."""
    if game.family == "dominoes":
        from kozel_env.dominoes.tiles import NUM_TILES

        return NUM_TILES
    from kozel_env.cards.deck import NUM_CARDS

    return NUM_CARDS


def holders(hands, seat: int, items: int) -> np.ndarray:
    """``[B, items, n]`` one-hot holder of every item from ``seat``'s place, for a batch of deals' ``hands``
    (``[B]`` lists of per-seat bitmasks): class ``r - 1`` the seat ``r`` places after it, class ``n - 1``
    anywhere else; the items in ``seat``'s own hand are all zero (it knows them)."""
    h = np.array([[int(x) for x in hs] for hs in hands], dtype=np.uint64)  # [B, n]
    b, n = h.shape
    bits = np.unpackbits(h.view(np.uint8).reshape(b, n, 8), axis=-1, bitorder="little")[:, :, :items]
    out = np.zeros((b, items, n), np.float32)
    for r in range(1, n):
        out[:, :, r - 1] = bits[:, (seat + r) % n]
    out[:, :, n - 1] = 1.0 - bits.sum(axis=1)
    return out


class BeliefNet:
    """The belief MLP in numpy: ``log_probs(obs)`` ``[items, n]`` for one observation (``[B, items, n]`` for a
    batch)."""

    def __init__(self, mlp: NumpyPolicy):
        self.mlp = mlp
        self.config = mlp.config
        self.items = int(mlp.config["items"])
        self.classes = int(mlp.config["classes"])
        self.obs_dim = mlp.obs_dim

    def log_probs(self, obs) -> np.ndarray:
        x = np.asarray(obs, np.float32)
        z = self.mlp.logits(x if x.ndim == 2 else x[None]).reshape(-1, self.items, self.classes)
        z = z.astype(np.float64)
        z -= z.max(axis=2, keepdims=True)
        z -= np.log(np.exp(z).sum(axis=2, keepdims=True))
        return z if x.ndim == 2 else z[0]


def log_likelihood(logp: np.ndarray, hands, seat: int) -> np.ndarray:
    """The belief's log-likelihood of each deal in a batch (``[B]`` per-seat hands), summed over the items
    (held as independent: a score to rank deals by, not a calibrated probability)."""
    return (holders(hands, seat, logp.shape[0]) * logp[None]).sum(axis=(1, 2))


def belief_path(env_name: str, directory=None) -> Path:
    return net_path(BELIEF_DIR, env_name, directory)


def load_belief(env_name: str, path=None) -> BeliefNet:
    """The shipped belief network of ``env_name`` (or the one at ``path``), cached per process."""
    return load_net("belief", BELIEF_DIR, env_name, path, BeliefNet)


def collect(env_name: str, samples: int, seed: int = DATA_SEED, eps: float = EPS,
            env_options: dict | None = None) -> dict:
    """``samples`` positions of ``normal`` self-play (see the module doc), as arrays: ``obs`` [N, D] (one
    seat's observation), ``target`` [N, items] (the class of each item's holder from that seat's place, -1
    for the items in its own hand), ``match`` (which match the position is from: the held-out split is by
    match)."""
    from ..base import game_for

    game = game_for(env_name, env_options)
    rng = np.random.default_rng(seed)
    n_seats = game.num_players
    items = num_items(game)
    obs = np.empty((samples, game.obs_spec.size), np.float32)
    target = np.empty((samples, items), np.int8)
    match = np.empty(samples, np.int64)
    k = 0
    for m, st in normal_selfplay(game, seed, eps, rng):
        if k >= samples:
            break
        seat = int(rng.integers(n_seats))
        obs[k] = game.observe(st, seat)
        h = holders([st.hands], seat, items)[0]
        target[k] = np.where(h.any(axis=1), h.argmax(axis=1), -1)
        match[k] = m
        k += 1
    return {"obs": obs[:k], "target": target[:k], "match": match[:k]}


def train(env_name: str, samples: int | None = None, seed: int = DATA_SEED, out=None, quiet: bool = False,
          **overrides) -> dict:
    """Collect, fit and save the belief network of ``env_name``; returns its record (also in the JSON)."""
    import torch

    from ..base import game_for

    cfg = {**SETTINGS, **overrides}
    if samples is not None:
        cfg["samples"] = samples
    game = game_for(env_name, None)
    items, classes = num_items(game), game.num_players
    t0 = time.process_time()
    data = collect(env_name, cfg["samples"], seed)
    obs, y, match = data["obs"], data["target"].astype(np.int64), data["match"]
    t_data = time.process_time() - t0
    held = (match % 10) == 9
    layers = fit_mlp([obs.shape[1], *cfg["hidden"], items * classes], obs[~held], y[~held],
                     lambda out, t: torch.nn.functional.cross_entropy(out.reshape(-1, classes), t.reshape(-1),
                                                                      ignore_index=-1), cfg, seed, out_gain=0.01)
    record = {"env": env_name, "kind": "belief", "target": "holder of each item the seat cannot see, "
              "under normal play", "items": items, "classes": classes, "samples": int(len(y)),
              "held_out": int(held.sum()), "data_seed": seed, "eps": EPS,
              "settings": {**cfg, "hidden": list(cfg["hidden"])}, "data_cpu_seconds": round(t_data, 1),
              "train_cpu_seconds": round(time.process_time() - t0 - t_data, 1)}
    # the network as stored (float16 weights) is what plays: its fit on the held-out matches' positions
    stored = BeliefNet(NumpyPolicy([(W.astype(np.float16), b.astype(np.float16)) for W, b in layers],
                                   {"items": items, "classes": classes}))
    record.update(fit(stored, obs[held], y[held]))
    record["fresh_ranking_gain"] = ranking_gain(stored, env_name)
    save_net(layers, record, belief_path(env_name, out), quiet)
    return record


def fit(net: BeliefNet, obs: np.ndarray, target: np.ndarray) -> dict:
    """Mean log-likelihood per item the seat does not hold (played ones included, which the observation
    shows), the network's and the uniform guess's over the classes (nats; higher is better)."""
    logp = net.log_probs(obs)
    rows, cols = np.nonzero(target >= 0)
    got = logp[rows, cols, target[rows, cols]]
    return {"held_out_loglik": float(got.mean()) if len(got) else None,  # None: too few matches to hold any out
            "held_out_uniform_loglik": float(-np.log(net.classes)), "held_out_items": int(len(got))}


def ranking_gain(net: BeliefNet, env_name: str, positions: int = 300, seed: int = DATA_SEED + 1) -> dict:
    """What the search uses the belief for: at ``positions`` positions of fresh ``normal`` matches (its own
    ``seed``), the belief's log-likelihood of the true deal minus that of a deal re-drawn by
    ``sample_consistent`` for the same seat (both fit everything the seat saw). Above zero: the network
    tells the true hands from the uniform re-deals. Mean and its standard error."""
    from kozel_env.core.rng import Rng

    from ..base import game_for

    game = game_for(env_name, None)
    rng = np.random.default_rng(seed)
    krng = Rng(seed)
    gains = []
    for _m, st in normal_selfplay(game, seed, 0.0, rng):
        if len(gains) >= positions:
            break
        if len(st.legal_actions()) > 1 and rng.random() < 0.25:  # a quarter of the decisions
            seat = st.current_player
            other = game.sample_consistent(st, seat, krng)
            ll = log_likelihood(net.log_probs(game.observe(st, seat)), [st.hands, other.hands], seat)
            gains.append(float(ll[0] - ll[1]))
    g = np.array(gains)
    return {"mean": float(g.mean()), "se": float(g.std(ddof=1) / np.sqrt(len(g))), "positions": len(g)}


def main(argv=None) -> list:
    return train_cli("belief", __doc__, SETTINGS, DATA_SEED, train, argv)


if __name__ == "__main__":
    main()
