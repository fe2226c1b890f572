"""A learned sink logit, gpt-oss's way (``14_shrinking_caches``).

Each head of gpt-oss has one learned number ``s`` that enters every row's softmax as one more
logit, and carries no value: the row's weights are ``e^(score_j) / (Σ_k e^(score_k) + e^s)`` and the
output is ``Σ_j weight_j · v_j``. Transformers' eager path (``eager_attention_forward`` in
``transformers/models/gpt_oss/modeling_gpt_oss.py``) appends ``s`` as a column, takes the softmax,
and drops the column before multiplying by V (so does fla-org/flash-linear-attention PR #831); a
fused kernel adds ``e^(s − m)`` to the denominator only (sgl-project/sgl-kernel-npu PR #216, which a
review bot wrongly flagged for not adding "the sink's value").

What it does to a row: with ``Z = Σ_k e^(score_k)``, every weight is the plain softmax weight times
``Z / (Z + e^s)`` — the same factor for the whole row (:func:`row_factor`). So the sink never changes
*where* a head looks, only how much it says: the weights add up to less than 1, and the head can
write (almost) nothing when ``s`` is large. It is the same as a virtual key with score ``s`` and value
zero (:func:`sink_as_zero_value`), a place to put weight that ``09_real_model``'s first token plays
in a model without one.
"""
from __future__ import annotations

import numpy as np

from ..attention import causal_mask, softmax
from ..render.validation import as_real_array, boolean


def _scores(scores):
    return as_real_array("scores", scores, ndim=(1, 2, 3), allow_neg_inf=True)


def _sink(sink, scores):
    """``sink`` as an array that broadcasts over ``scores``' rows: a number, or one per head."""
    arr = as_real_array("sink", sink, ndim=(0, 1))
    if arr.ndim == 1:
        if scores.ndim != 3 or len(arr) != scores.shape[0]:
            raise ValueError(f"sink must be one number, or one per head for scores (heads, n_q, n_k), got sink "
                             f"{arr.shape} for scores {scores.shape}")
        return arr[:, None, None]
    return arr[()]


def softmax_with_sink(scores, sink) -> np.ndarray:
    """The weights of ``scores`` ``(…, n_k)`` (−∞ = masked) with the sink logit ``sink`` in every
    row's denominator; the same shape as ``scores``, each row summing to less than 1."""
    scores = _scores(scores)
    s = _sink(sink, scores)
    top = np.maximum(scores.max(axis=-1, keepdims=True), s)
    e = np.exp(scores - top)
    return e / (e.sum(axis=-1, keepdims=True) + np.exp(s - top))


def row_factor(scores, sink) -> np.ndarray:
    """``Z / (Z + e^s)`` per row, ``Z = Σ e^(score)``: what the sink multiplies every weight of the row by."""
    scores = _scores(scores)
    s = _sink(sink, scores)
    top = scores.max(axis=-1, keepdims=True)
    z = np.exp(scores - top).sum(axis=-1, keepdims=True)
    return (z / (z + np.exp(s - top)))[..., 0]


def sink_attention(q, k, v, sink, *, causal: bool = True) -> tuple:
    """``(out, weights)`` of attention with a sink logit: ``q`` ``(heads, n, d)``, ``k`` and ``v``
    ``(heads, n_k, d)`` (or one head without the first axis), scale ``1/√d``."""
    q, k, v = (as_real_array(name, a, ndim=(2, 3)) for name, a in (("q", q), ("k", k), ("v", v)))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if boolean("causal", causal):
        scores = scores + causal_mask(q.shape[-2], k.shape[-2])
    weights = softmax_with_sink(scores, sink)
    return weights @ v, weights


def sink_as_zero_value(q, k, v, sink, *, causal: bool = True) -> np.ndarray:
    """The same output computed the other way: one more key whose score is always ``sink`` and whose
    value is the zero vector, then a plain softmax over every key."""
    q, k, v = (as_real_array(name, a, ndim=(2, 3)) for name, a in (("q", q), ("k", k), ("v", v)))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if boolean("causal", causal):
        scores = scores + causal_mask(q.shape[-2], k.shape[-2])
    s = np.broadcast_to(_sink(sink, scores), scores.shape[:-1] + (1,))
    weights = softmax(np.concatenate([scores, s], axis=-1), axis=-1)
    zero = np.zeros(v.shape[:-2] + (1, v.shape[-1]))
    return weights @ np.concatenate([v, zero], axis=-2)


def sink_with_a_value(q, k, v, sink, value, *, causal: bool = True) -> np.ndarray:
    """What the review bot asked for: the sink treated as a key with a value ``value`` ``(d_v,)``, so its
    weight also adds ``weight_sink · value`` to the output. Not gpt-oss (its sinks have no value)."""
    value = as_real_array("value", value, ndim=1)
    out, weights = sink_attention(q, k, v, sink, causal=causal)
    return out + (1.0 - weights.sum(axis=-1, keepdims=True)) * value

