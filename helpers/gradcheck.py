"""Checking a hand-written gradient by finite differences (``10_learning_to_attend``, ``11_learning_a_circuit``).

:func:`central_differences` nudges one parameter entry at a time by ±ε and reads the change of
the loss: ``(L(θ+ε) − L(θ−ε)) / 2ε``, accurate to O(ε²). Two forward passes per entry, so only
for small models; both notebooks compare it with their backward pass via
:func:`helpers.training.relative_error`.
"""
from __future__ import annotations

import numpy as np

from .render.validation import as_real_array, finite_scalar, instance, positive_float


def central_differences(loss, params: dict, *, eps: float = 1e-6) -> dict:
    """``{name: array}`` of ``(loss(θ+ε) − loss(θ−ε)) / 2ε`` for every entry of every array in
    ``params`` (copied to float64); ``loss`` is called with the nudged dict and returns a number."""
    eps = positive_float("eps", eps)
    if not callable(loss):
        raise TypeError(f"loss must be a function of the parameter dict, got {type(loss).__name__}")
    instance("params", params, dict, "dict of parameter arrays")
    base = {name: np.array(as_real_array(f"params[{name!r}]", value, allow_empty=True), dtype=np.float64)
            for name, value in params.items()}
    grads = {}
    for name, value in base.items():
        g = np.zeros_like(value)
        for idx in np.ndindex(value.shape):
            old = value[idx]
            value[idx] = old + eps
            plus = _loss_value(loss, base)
            value[idx] = old - eps
            minus = _loss_value(loss, base)
            value[idx] = old
            g[idx] = (plus - minus) / (2 * eps)
        grads[name] = g
    return grads


def _loss_value(loss, params) -> float:
    """``loss(params)`` as a finite number (a loss returning text, ``None`` or NaN is named)."""
    value = loss(params)
    try:
        return finite_scalar("loss(params)", value)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"loss must return a finite number; {exc}") from None
