"""Softmax and scaled dot-product attention in plain numpy.

Taught in ``03_hand_calculation`` (one row by hand), ``04_sqrt_d`` (the scale) and
``05_causal_mask`` (the mask and the KV cache). Everything later reuses these two functions.
"""
from __future__ import annotations

import numpy as np

from .validation import as_float_array, positive_float


def softmax(x, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis`` (taught in ``03_hand_calculation``).

    The row maximum is subtracted before ``exp`` so scores of +-1e4 neither overflow nor give
    NaN. ``-inf`` entries (masked positions) get exactly 0 weight.

    A row whose entries are *all* ``-inf`` (nothing visible) gets all-zero weights: no position
    receives weight, and an attention output built from it is the zero vector. NaN and ``+inf``
    raise ``ValueError``.
    """
    arr = as_float_array("x", x, allow_neg_inf=True)
    if arr.ndim == 0:
        raise ValueError("x must have at least one axis, got a scalar")
    if not -arr.ndim <= axis < arr.ndim:
        raise ValueError(f"axis {axis} is out of range for x of shape {arr.shape}")
    row_max = np.max(arr, axis=axis, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    exps = np.exp(arr - row_max)
    totals = np.sum(exps, axis=axis, keepdims=True)
    return np.divide(exps, totals, out=np.zeros_like(exps), where=totals > 0)


def causal_mask(n_queries: int, n_keys: int | None = None) -> np.ndarray:
    """Additive causal mask: 0 where a query may look, ``-inf`` to its right (``05_causal_mask``).

    With ``n_keys > n_queries`` the queries are taken to be the *last* ``n_queries`` positions
    (the case of decoding with a KV cache), so query ``i`` sees keys ``0 … n_keys-n_queries+i``.
    """
    n_keys = n_queries if n_keys is None else n_keys
    if n_queries < 1 or n_keys < 1:
        raise ValueError(f"n_queries and n_keys must be >= 1, got {n_queries} and {n_keys}")
    if n_keys < n_queries:
        raise ValueError(f"n_keys ({n_keys}) must be >= n_queries ({n_queries}) for a causal mask")
    offset = n_keys - n_queries
    rows = np.arange(n_queries)[:, None] + offset
    cols = np.arange(n_keys)[None, :]
    return np.where(cols > rows, -np.inf, 0.0)


def attention_scores(q, k, *, scale=None) -> np.ndarray:
    """Scaled scores ``q @ kᵀ * scale`` with ``scale=None`` meaning ``1/√d`` (``03_hand_calculation``)."""
    q_arr, k_arr = _check_qk(q, k)
    d = q_arr.shape[-1]
    factor = 1.0 / np.sqrt(d) if scale is None else _check_scale(scale)
    return np.matmul(q_arr, np.swapaxes(k_arr, -1, -2)) * factor


def scaled_dot_product_attention(q, k, v, *, causal: bool = False, mask=None, scale=None):
    """Attention output and weights: ``softmax(q kᵀ · scale + mask) v``.

    Shapes: ``q`` is ``(n_q, d)`` or ``(heads, n_q, d)``; ``k`` is ``(…, n_k, d)``; ``v`` is
    ``(…, n_k, d_v)`` with the same rank. ``scale=None`` means ``1/√d`` (``04_sqrt_d``).
    ``causal=True`` adds :func:`causal_mask` (``05_causal_mask``); ``mask`` is an extra additive
    mask of shape ``(n_q, n_k)`` or the full score shape, holding 0 or ``-inf`` (or any finite
    bias). Returns ``(output, weights)``: ``(…, n_q, d_v)`` and ``(…, n_q, n_k)``.
    """
    q_arr, k_arr = _check_qk(q, k)
    v_arr = as_float_array("v", v, ndim=(2, 3))
    if v_arr.ndim != k_arr.ndim or v_arr.shape[:-1] != k_arr.shape[:-1]:
        raise ValueError(
            f"v must have shape (…, n_k, d_v) matching k's leading dims {k_arr.shape[:-1]}, "
            f"got v {v_arr.shape} with k {k_arr.shape}")
    scores = attention_scores(q_arr, k_arr, scale=scale)
    n_q, n_k = scores.shape[-2:]
    if causal:
        scores = scores + causal_mask(n_q, n_k)
    if mask is not None:
        m = as_float_array("mask", mask, allow_neg_inf=True)
        if m.shape not in ((n_q, n_k), scores.shape):
            raise ValueError(
                f"mask must have shape {(n_q, n_k)} or {scores.shape}, got {m.shape}")
        scores = scores + m
    weights = softmax(scores, axis=-1)
    return np.matmul(weights, v_arr), weights


def _check_qk(q, k):
    q_arr = as_float_array("q", q, ndim=(2, 3))
    k_arr = as_float_array("k", k, ndim=(2, 3))
    if q_arr.ndim != k_arr.ndim:
        raise ValueError(f"q and k must have the same rank, got q {q_arr.shape} and k {k_arr.shape}")
    if q_arr.shape[-1] < 1:
        raise ValueError(f"the head dimension d must be >= 1, got q {q_arr.shape}")
    if q_arr.shape[-1] != k_arr.shape[-1]:
        raise ValueError(
            f"q and k must share the last dimension d, got q {q_arr.shape} and k {k_arr.shape}")
    if q_arr.ndim == 3 and q_arr.shape[0] != k_arr.shape[0]:
        raise ValueError(
            f"q and k must have the same number of heads, got q {q_arr.shape} and k {k_arr.shape}")
    if q_arr.shape[-2] < 1 or k_arr.shape[-2] < 1:
        raise ValueError(f"q and k need at least one position, got q {q_arr.shape} and k {k_arr.shape}")
    return q_arr, k_arr


def _check_scale(scale) -> float:
    return positive_float("scale", scale)
