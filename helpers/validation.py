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
