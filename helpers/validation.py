"""Argument checks shared by every helpers function.

Every public function validates its inputs here so a learner sees a ``ValueError`` that names
the argument and what it got, never a numpy broadcasting traceback or a silent NaN.
"""
from __future__ import annotations

import numpy as np


def as_float_array(name: str, value, *, ndim=None, allow_neg_inf: bool = False) -> np.ndarray:
    """Return ``value`` as a float64 array, checking its rank and that it holds no NaN/inf.

    ``ndim`` may be an int or a tuple of allowed ranks. ``allow_neg_inf`` lets ``-inf`` through
    (masked scores); NaN and ``+inf`` are always rejected.
    """
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric, got {type(value).__name__}: {exc}") from None
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            want = " or ".join(str(a) for a in allowed)
            raise ValueError(f"{name} must have rank {want}, got shape {arr.shape} (rank {arr.ndim})")
    if np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN (shape {arr.shape}); check the values you passed")
    if allow_neg_inf:
        if np.isposinf(arr).any():
            raise ValueError(f"{name} contains +inf (shape {arr.shape}); only -inf (masked) is allowed")
    elif not np.isfinite(arr).all():
        raise ValueError(f"{name} contains inf (shape {arr.shape}); values must be finite")
    return arr


def positive_int(name: str, value) -> int:
    """Return ``value`` as an int, requiring it to be a whole number >= 1."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return int(value)


def positive_float(name: str, value) -> float:
    """Return ``value`` as a float, requiring it to be finite and > 0."""
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive number, got {value!r}") from None
    if not np.isfinite(out) or out <= 0:
        raise ValueError(f"{name} must be finite and > 0, got {value!r}")
    return out


def one_of(name: str, value, options):
    """Return ``value`` if it is one of ``options``; otherwise name the choices."""
    if value not in options:
        raise ValueError(f"{name} must be one of {list(options)}, got {value!r}")
    return value


def _index(name: str, value, upper: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must hold integer {what} indices, got {value!r} ({type(value).__name__})")
    if not 0 <= value < upper:
        raise ValueError(f"{name}: {what} index {value} is out of range 0…{upper - 1}")
    return int(value)


def _entries(name: str, value, what: str) -> list:
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a list of {what}, got {value!r} ({type(value).__name__})")
    return list(value)


def head_indices(name: str, value, num_heads: int) -> tuple:
    """Sorted distinct head indices in ``0…num_heads − 1`` (``None`` → none); ``11_heads_at_work``."""
    if value is None:
        return ()
    return tuple(sorted({_index(name, h, num_heads, "head") for h in _entries(name, value, "head indices")}))


def head_pairs(name: str, value, num_layers: int, num_heads: int) -> dict:
    """``{layer: (heads…)}`` from ``(layer, head)`` pairs (``None`` → ``{}``); ``11_heads_at_work``."""
    if value is None:
        return {}
    by_layer: dict = {}
    for pair in _entries(name, value, "(layer, head) pairs"):
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise TypeError(f"{name} must hold (layer, head) pairs, got {pair!r}")
        layer = _index(name, pair[0], num_layers, "layer")
        by_layer.setdefault(layer, set()).add(_index(name, pair[1], num_heads, "head"))
    return {layer: tuple(sorted(heads)) for layer, heads in sorted(by_layer.items())}
