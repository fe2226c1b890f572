"""Softmax and scaled dot-product attention in plain numpy.

Taught in ``03_hand_calculation`` (one row by hand), ``04_sqrt_d`` (the scale) and
``05_causal_mask`` (the mask and the KV cache). Everything later reuses these two functions.

Mask convention (one for the whole package): a ``mask`` is either

- **boolean**, with torch's meaning (``torch.nn.functional.scaled_dot_product_attention``):
  ``True`` = keep (this query may attend to this key), ``False`` = hidden; or
- **real**, an additive bias: 0 = visible, ``-inf`` = hidden, any finite number = a bias.

:func:`causal_mask` and :func:`helpers.reading.window_mask` return the additive form.
"""
from __future__ import annotations

import numpy as np

from .render.validation import (
    as_mask,
    as_real_array,
    boolean,
    finite_result,
    integer,
    positive_float,
    positive_int,
    queries_and_keys,
    quiet_overflow,
)


def softmax(x, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis`` (taught in ``03_hand_calculation``).

    The row maximum is subtracted before ``exp`` so scores of +-1e4 neither overflow nor give
    NaN. ``-inf`` entries (masked positions) get exactly 0 weight.

    A row whose entries are *all* ``-inf`` (nothing visible) gets all-zero weights: no position
    receives weight, and an attention output built from it is the zero vector. NaN and ``+inf``
    raise ``ValueError``.
    """
    arr = as_real_array("x", x, allow_neg_inf=True)
    if arr.ndim == 0:
        raise ValueError("x must have at least one axis, got a scalar")
    axis = integer("axis", axis)
    if not -arr.ndim <= axis < arr.ndim:
        raise ValueError(f"axis {axis} is out of range for x of shape {arr.shape} (expected -{arr.ndim}…{arr.ndim - 1})")
    row_max = np.max(arr, axis=axis, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    with quiet_overflow():  # x − max may underflow to −inf for |x| near 1e308: e^(−inf) = 0 is right
        exps = np.exp(arr - row_max)
    totals = np.sum(exps, axis=axis, keepdims=True)
    return np.divide(exps, totals, out=np.zeros_like(exps), where=totals > 0)


def target_loss(logits, targets) -> np.ndarray:
    """``−log softmax(logits)[target]`` of each row of ``logits`` (``(…, vocab)``) at its entry of
    ``targets`` (integer ids, shape ``logits.shape[:-1]``), in nats, float64: the next-token loss
    of ``09_real_model`` on (the one copy every later loss uses). As in :func:`softmax` the row
    maximum is subtracted before ``exp``; the exponentials are summed in float64, so float32 logits
    over a 49,152-token vocabulary lose nothing in the sum."""
    arr = as_real_array("logits", logits, keep_float_dtype=True)
    if arr.ndim == 0:
        raise ValueError("logits must have a vocabulary axis (…, vocab), got a scalar")
    ids = np.asarray(targets)
    if ids.dtype == bool or not np.issubdtype(ids.dtype, np.integer) or ids.shape != arr.shape[:-1]:
        raise TypeError(f"targets must be integer ids of shape {arr.shape[:-1]} (one per row of logits), got "
                        f"{ids.dtype} of shape {ids.shape}")
    if ids.size and (ids.min() < 0 or ids.max() >= arr.shape[-1]):
        raise ValueError(f"targets must be ids in 0…{arr.shape[-1] - 1} (the logits' vocabulary), "
                         f"got {int(ids.min())}…{int(ids.max())}")
    top = arr.max(axis=-1, keepdims=True)
    log_total = top[..., 0].astype(np.float64) + np.log(np.exp(arr - top).sum(axis=-1, dtype=np.float64))
    return log_total - np.take_along_axis(arr, ids[..., None], axis=-1)[..., 0].astype(np.float64)


def causal_mask(n_queries: int, n_keys: int | None = None) -> np.ndarray:
    """Additive causal mask: 0 where a query may look, ``-inf`` to its right (``05_causal_mask``).

    With ``n_keys > n_queries`` the queries are taken to be the *last* ``n_queries`` positions
    (the case of decoding with a KV cache), so query ``i`` sees keys ``0 … n_keys-n_queries+i``.
    """
    n_queries = positive_int("n_queries", n_queries, maximum=65_536)
    n_keys = n_queries if n_keys is None else positive_int("n_keys", n_keys, maximum=65_536)
    if n_keys < n_queries:
        raise ValueError(f"n_keys ({n_keys}) must be >= n_queries ({n_queries}) for a causal mask")
    offset = n_keys - n_queries
    rows = np.arange(n_queries)[:, None] + offset
    cols = np.arange(n_keys)[None, :]
    return np.where(cols > rows, -np.inf, 0.0)


def attention_scores(q, k, *, scale=None) -> np.ndarray:
    """Scaled scores ``q @ kᵀ * scale`` with ``scale=None`` meaning ``1/√d`` (``03_hand_calculation``)."""
    q_arr, k_arr = queries_and_keys(q, k)
    d = q_arr.shape[-1]
    factor = 1.0 / np.sqrt(d) if scale is None else positive_float("scale", scale)
    with quiet_overflow():
        scores = np.matmul(q_arr, np.swapaxes(k_arr, -1, -2)) * factor
    return finite_result(scores, "q, k or scale", "the scores q·kᵀ·scale")


def scaled_dot_product_attention(q, k, v, *, causal: bool = False, mask=None, scale=None):
    """Attention output and weights: ``softmax(q kᵀ · scale + mask) v``.

    Shapes: ``q`` is ``(n_q, d)`` or ``(heads, n_q, d)``; ``k`` is ``(…, n_k, d)``; ``v`` is
    ``(…, n_k, d_v)`` with the same rank. ``scale=None`` means ``1/√d`` (``04_sqrt_d``).
    ``causal=True`` adds :func:`causal_mask` (``05_causal_mask``); ``mask`` is an extra mask of
    shape ``(n_q, n_k)`` or the full score shape: boolean with torch's meaning (``True`` = keep)
    or additive (0, ``-inf`` or any finite bias), see the module docstring. Returns
    ``(output, weights)``: ``(…, n_q, d_v)`` and ``(…, n_q, n_k)``. Scores that overflow float64
    raise (naming q, k, scale) instead of being read as masked.
    """
    q_arr, k_arr = queries_and_keys(q, k)
    causal = boolean("causal", causal)
    v_arr = as_real_array("v", v, ndim=(2, 3))
    if v_arr.ndim != k_arr.ndim or v_arr.shape[:-1] != k_arr.shape[:-1]:
        raise ValueError(
            f"v must have shape (…, n_k, d_v) matching k's leading dims {k_arr.shape[:-1]}, "
            f"got v {v_arr.shape} with k {k_arr.shape}")
    scores = attention_scores(q_arr, k_arr, scale=scale)
    n_q, n_k = scores.shape[-2:]
    if causal:
        scores = scores + causal_mask(n_q, n_k)
    if mask is not None:
        scores = scores + as_mask("mask", mask, [(n_q, n_k), scores.shape])
    weights = softmax(scores, axis=-1)
    with quiet_overflow():
        out = np.matmul(weights, v_arr)
    return finite_result(out, "v", "the weighted sum of v"), weights
