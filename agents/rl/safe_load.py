"""Loading a file never runs its code (issue 33.1).

A policy ``.npz`` or a training checkpoint ``last.pt`` may come from anywhere (a shared run folder, a download),
and both formats can carry pickled Python objects whose unpickling runs code. The loaders here accept only what
the files are meant to hold, and refuse anything else with one :class:`UnsafeFileError` naming the file and why:

* :func:`load_arrays` -- a ``.npz`` of numeric arrays (``np.load(allow_pickle=False)``, every member read);
* :func:`load_checkpoint` -- a ``torch.save`` file of tensors and plain data (``torch.load(weights_only=True)``:
  dicts, lists, tuples, str, int, float, bool, None; no class, no function);
* :func:`plain` -- what :meth:`agents.rl.ppo.PPOTrainer.save` passes through before saving, so that every
  checkpoint it writes is one :func:`load_checkpoint` accepts (numpy scalars become Python numbers; anything
  else that is not plain data is an error at save time, not a file that cannot be loaded back).
"""
from __future__ import annotations

import pickle
import re
from pathlib import Path

import numpy as np

__all__ = ["UnsafeFileError", "load_arrays", "load_checkpoint", "plain"]


class UnsafeFileError(ValueError):
    """A file holds objects that loading it would have to build by running code; it was not loaded."""


def load_arrays(path: str | Path, what: str = "policy file") -> dict:
    """Every array of the ``.npz`` at ``path`` (``name -> np.ndarray``), read with ``allow_pickle=False``.
    Raises :class:`UnsafeFileError` if the file holds pickled objects (an object array, or a pickle in
    place of the archive): it is refused, none of its objects is built."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            return {name: z[name] for name in z.files}
    except ValueError as e:
        if "allow_pickle" not in str(e):
            raise
        raise UnsafeFileError(f"{what} {path} holds objects other than arrays of numbers; refusing to load it "
                              "(it could run code)") from None


def load_checkpoint(path: str | Path) -> dict:
    """The ``torch.save`` file at ``path``, loaded with ``weights_only=True`` onto the CPU. Raises
    :class:`UnsafeFileError` if it holds objects other than tensors and plain data (the object's name is
    in the message): it is refused, none of its objects is built."""
    import torch

    path = Path(path)
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as e:
        found = re.search(r"Unsupported (?:global|operand)[^.]*?(?=\s+was not|\.|$)", str(e))
        detail = f" ({found.group(0)})" if found else ""
        raise UnsafeFileError(f"checkpoint {path} holds objects other than tensors and plain data{detail}; "
                              "refusing to load it (it could run code)") from None


def plain(obj: object, where: str = "checkpoint") -> object:
    """``obj`` as tensors and plain data only (see the module doc): dicts (str or int keys), lists, tuples,
    str, int, float, bool, None and torch tensors are kept (a dict subclass becomes a dict); numpy scalars and
    arrays become Python numbers and lists. Anything else raises ``TypeError`` naming where it was (``where``)."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if not isinstance(k, (str, int)):
                raise TypeError(f"{where}: key {k!r} ({type(k).__name__}) is not plain data (str or int keys only)")
            out[k] = plain(v, f"{where}[{k!r}]")
        return out
    if isinstance(obj, (list, tuple)):
        items = [plain(v, f"{where}[{i}]") for i, v in enumerate(obj)]
        return items if isinstance(obj, list) else tuple(items)
    if type(obj).__module__.startswith("torch") and type(obj).__name__ in ("Tensor", "Parameter"):
        return obj
    raise TypeError(f"{where}: a {type(obj).__module__}.{type(obj).__name__} is not plain data; a checkpoint "
                    "holds only tensors, dicts, lists, tuples, str, int, float, bool and None")

