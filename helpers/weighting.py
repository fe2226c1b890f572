"""A weighted average of the context, with fixed or content-computed weights (``01_weighted_average``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import example
from .attention import scaled_dot_product_attention
from .render.validation import as_real_array, index, preview, probability_vector


def normalise_weights(raw) -> np.ndarray:
    """Scale non-negative ``raw`` weights so they sum to 1 (``01_weighted_average``).

    All-zero input gives equal weights (the explorer's sliders can all sit at 0).
    """
    w = as_real_array("raw", raw, ndim=1)
    if (w < 0).any():
        raise ValueError(f"raw weights must be >= 0, got {preview(w)}")
    w = w / w.max() if w.max() > 0 else w  # scale first: a sum of values near 1e308 cannot overflow
    total = w.sum()
    return np.full_like(w, 1.0 / len(w)) if total == 0 else w / total


def weighted_average(vectors, weights) -> np.ndarray:
    """``Σ_j w_j · vectors[j]`` with ``w`` summing to 1 (``01_weighted_average``)."""
    v = as_real_array("vectors", vectors, ndim=2)
    w = probability_vector("weights", weights)
    if len(w) != len(v):
        raise ValueError(f"weights has {len(w)} entries but vectors has {len(v)} rows (shape {v.shape})")
    return w @ v  # a convex combination: never larger than the largest |vector| entry


def content_weights(x, query_position: int = -1) -> np.ndarray:
    """Weights the query at ``query_position`` computes from content via W_Q and W_K (``01``)."""
    x_arr = as_real_array("x", x, shape=(None, len(example.FEATURES)))
    query_position = index("query_position", query_position, len(x_arr))
    if np.abs(x_arr).max() > 1e100:
        raise ValueError(f"x too large: entries up to {np.abs(x_arr).max():.3g} would overflow the scores")
    q = example.project(x_arr, example.W_Q, name="W_Q")
    k = example.project(x_arr, example.W_K, name="W_K")
    _, w = scaled_dot_product_attention(q[[query_position]], k, k)
    return w[0]


@dataclass(frozen=True)
class SentenceResult:
    """One sentence of ``01_weighted_average``: its fixed and its content weights, and the weight each puts on the target."""

    tokens: tuple
    target: int             # position of the thing being applied for
    fixed_weights: np.ndarray
    content_weights: np.ndarray

    @property
    def fixed_on_target(self) -> float:
        return float(self.fixed_weights[self.target])

    @property
    def content_on_target(self) -> float:
        return float(self.content_weights[self.target])


def fixed_vs_content(fixed=None) -> list:
    """Both sentences of ``01``: one fixed weight vector (tuned for 年假怎么申请) vs content weights.

    ``fixed`` defaults to the weights 申请 computes from content in 年假怎么申请 (they fit
    sentence A); the question is what the same weights do to sentence B.
    """
    if fixed is not None:
        fixed = as_real_array("fixed", fixed, shape=(len(example.TOKENS),))
        if (fixed < 0).any():
            raise ValueError(f"fixed weights must be >= 0, got {preview(fixed)}")
    fixed_w = content_weights(example.X) if fixed is None else normalise_weights(fixed)
    return [SentenceResult(example.TOKENS, 1, fixed_w, content_weights(example.X)),
            SentenceResult(example.TOKENS_B, 0, fixed_w, content_weights(example.X_B))]
