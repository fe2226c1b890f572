"""``09_real_model``'s experiments on the real model: where attention goes (first-position weight,
streaming masks, values by head) and the q/k row-order pitfall.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from ..layer import LayerWeights
from ..reading import window_mask
from ..render.validation import (
    as_real_array,
    index,
    instance,
    nonneg_int,
)
from .block import rms_norm
from .forward_pass import ForwardResult
from .generation import perplexity
from .model import Model, _ids, _qk_weight, check_model


def first_position_weight(weights: list, *, skip: int = 4) -> np.ndarray:
    """Per layer and head: mean weight that queries from position ``skip`` on put on position 0."""
    if not isinstance(weights, (list, tuple)) or not weights:
        raise TypeError(f"weights must be the non-empty list of per-layer (heads, n, n) arrays from "
                        f"forward(...).weights, got {type(weights).__name__} {weights!r:.60}")
    weights = [as_real_array(f"weights[{i}]", w, ndim=3, keep_float_dtype=True) for i, w in enumerate(weights)]
    skip = nonneg_int("skip", skip, maximum=weights[0].shape[1] - 1)
    return np.array([[w[h, skip:, 0].mean() for h in range(w.shape[0])] for w in weights])


def streaming_mask(n: int, window: int, *, sink: int = 0) -> np.ndarray:
    """Sliding window of ``window`` recent keys, plus the first ``sink`` tokens (StreamingLLM)."""
    sink = nonneg_int("sink", sink)
    return window_mask(n, window, keep_first=sink)


def head_values(model: Model, result: ForwardResult, layer: int) -> np.ndarray:
    """v of every position for every query head of ``layer`` (after GQA sharing): (heads, n, d)."""
    check_model(model)
    instance("result", result, ForwardResult, "ForwardResult (from forward(..., keep_inputs=True))")
    layer = index("layer", layer, len(model.blocks))
    if not result.layer_inputs:
        raise ValueError("run forward(..., keep_inputs=True) to analyse a layer's values")
    block = model.blocks[layer]
    shape = model.shape
    h = rms_norm(result.layer_inputs[layer], block.attn_norm, model.eps)
    v = (h @ block.attention.w_v).reshape(len(h), shape.num_kv_heads, shape.head_dim)
    v = np.repeat(v, shape.num_heads // shape.num_kv_heads, axis=1)
    return v.transpose(1, 0, 2)


def permute_qk(weight: np.ndarray, n_heads: int) -> np.ndarray:
    """llama.cpp's permutation (the inverse of :func:`unpermute_qk`), on ``(out, in)`` weights."""
    weight, n_heads = _qk_weight(weight, n_heads)
    out, inp = weight.shape
    head_dim = out // n_heads
    return weight.reshape(n_heads, 2, head_dim // 2, inp).swapaxes(1, 2).reshape(out, inp)


@contextmanager
def wrong_qk_order(model: Model):
    """Within the ``with`` block the model's q/k rows are in GGUF's (llama.cpp's) order, i.e.
    not un-permuted: the pitfall ``09`` demonstrates. The weights are restored afterwards."""
    check_model(model)
    saved = [block.attention for block in model.blocks]
    cfg = model.config
    try:
        for block in model.blocks:
            a = block.attention
            block.attention = LayerWeights(
                np.ascontiguousarray(permute_qk(a.w_q.T, cfg.num_heads).T),
                np.ascontiguousarray(permute_qk(a.w_k.T, cfg.num_kv_heads).T), a.w_v, a.w_o)
        yield model
    finally:
        for block, attention in zip(model.blocks, saved):
            block.attention = attention


def perplexity_with_wrong_rope(model: Model, ids) -> float:
    """Perplexity when q/k rows are left in GGUF's order (see :func:`wrong_qk_order`)."""
    _ids(check_model(model), ids, min_length=2)
    with wrong_qk_order(model):
        return perplexity(model, ids)
