"""The first layer of the actor and of the critic from the nonzero inputs only (the PPO update's hot spot).

The observations are mostly zeros -- about one entry in nine is set in dominoes_v0, one in fifteen in
queens_and_jacks_v0, most of them ones -- and the first ``Linear`` layer (observation or critic input to the
first hidden layer) is a third (dominoes_v0, 512 units) to two thirds (queens_and_jacks_v0, 256 units, 884
critic inputs) of the update's multiply-adds when computed densely. Here it is computed from the nonzero
entries: the forward pass sums the weight columns of a row's nonzero inputs (``embedding_bag``), and the weight
gradient sums, per input, the output gradients of the rows where that input is nonzero (``embedding_bag``
again, over the same entries column by column). Same function, same gradients, up to float rounding.

* :class:`SparseRows` -- a batch (the update's observations or critic inputs) as its nonzero entries, row by
  row and column by column; :meth:`SparseRows.take` the minibatch of some of its rows, in that order;
* :func:`rows_of` -- a :class:`SparseRows` where the batch is sparse enough to gain (:data:`MAX_DENSITY`), the
  dense tensor otherwise; :func:`take` -- a minibatch of either;
* :func:`mlp_forward` -- an ``nn.Sequential`` MLP applied to a dense tensor or to a :class:`SparseBatch`.
"""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

MAX_DENSITY = 0.25
"""Share of nonzero inputs above which the dense product is kept (the sparse one gains below about a third)."""


class SparseBatch:
    """A minibatch of :class:`SparseRows`: its entries row by row (``idx``, ``val``, ``off``: the
    ``embedding_bag`` form of the forward pass) and column by column (``cidx``: the minibatch row of each,
    ``cval``, ``coff``: that of the weight gradient)."""

    __slots__ = ("n", "idx", "val", "off", "cidx", "cval", "coff")

    def __init__(self, n, idx, val, off, cidx, cval, coff):
        self.n, self.idx, self.val, self.off = n, idx, val, off
        self.cidx, self.cval, self.coff = cidx, cval, coff


def _starts(counts: np.ndarray) -> np.ndarray:
    return np.cumsum(counts) - counts


class SparseRows:
    """The nonzero entries of a dense ``(n, d)`` float tensor, row-major (``cols``, ``vals``, ``start`` and
    ``count`` per row) and column-major (``crows``, ``ccols``, ``cvals``); numpy arrays (its indexing is the
    faster one here), handed to torch without copies."""

    def __init__(self, dense: torch.Tensor):
        x = dense.numpy()
        self.n, self.d = x.shape
        flat = np.flatnonzero(x != 0)
        rows, cols = np.divmod(flat, self.d)
        self.cols, self.vals = cols.astype(np.int32), x.reshape(-1)[flat]
        self.count = np.bincount(rows, minlength=self.n)
        self.start = _starts(self.count)
        # column-major, rows ascending within a column (a stable radix sort on the column numbers)
        order = np.argsort(cols.astype(np.uint16) if self.d <= 1 << 16 else cols, kind="stable")
        self.crows, self.ccols, self.cvals = rows[order].astype(np.int32), self.cols[order], self.vals[order]

    def take(self, rows: torch.Tensor) -> SparseBatch:
        """The minibatch of ``rows`` (distinct row indices), row ``i`` of it being ``rows[i]``."""
        rows = rows.numpy()
        count = self.count[rows]
        off = _starts(count)
        pos = np.repeat(self.start[rows] - off, count) + np.arange(int(count.sum()))
        where = np.full(self.n, -1, np.int32)
        where[rows] = np.arange(len(rows), dtype=np.int32)
        r = where[self.crows]
        keep = np.flatnonzero(r >= 0)
        coff = _starts(np.bincount(self.ccols[keep], minlength=self.d))
        t = torch.from_numpy
        return SparseBatch(len(rows), t(self.cols[pos]), t(self.vals[pos]), t(off.astype(np.int32)), t(r[keep]),
                           t(self.cvals[keep]), t(coff.astype(np.int32)))


def rows_of(dense: torch.Tensor) -> SparseRows | torch.Tensor:
    """``dense`` as :class:`SparseRows` where at most :data:`MAX_DENSITY` of it is nonzero, else itself."""
    if dense.numel() and np.count_nonzero(dense.numpy()) <= MAX_DENSITY * dense.numel():
        return SparseRows(dense)
    return dense


def take(x: SparseRows | torch.Tensor, rows: torch.Tensor) -> SparseBatch | torch.Tensor:
    """The minibatch ``rows`` of a :func:`rows_of` result."""
    return x.take(rows) if isinstance(x, SparseRows) else x[rows]


class _SparseLinear(torch.autograd.Function):
    """``x @ weight.T + bias`` for a :class:`SparseBatch` ``x``; gradients for ``weight`` and ``bias``."""

    @staticmethod
    def forward(ctx, weight, bias, x):
        ctx.x = x
        out = F.embedding_bag(x.idx, weight.t().contiguous(), x.off, mode="sum", per_sample_weights=x.val)
        return out.add_(bias)

    @staticmethod
    def backward(ctx, grad):
        x = ctx.x
        gw = gb = None
        if ctx.needs_input_grad[0]:   # (d, out): per input, the sum of its rows' output gradients
            gw = F.embedding_bag(x.cidx, grad.contiguous(), x.coff, mode="sum", per_sample_weights=x.cval).t()
        if ctx.needs_input_grad[1]:
            gb = grad.sum(0)
        return gw, gb, None


def mlp_forward(net: nn.Sequential, x: SparseBatch | torch.Tensor) -> torch.Tensor:
    """``net(x)``, its first ``Linear`` layer from the nonzero entries where ``x`` is a :class:`SparseBatch`."""
    if not isinstance(x, SparseBatch):
        return net(x)
    lin = net[0]
    h = _SparseLinear.apply(lin.weight, lin.bias, x)
    for layer in net[1:]:
        h = layer(h)
    return h
