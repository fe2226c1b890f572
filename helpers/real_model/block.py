"""What a block of the real model adds around the series' attention layer (``09_real_model``):
RMSNorm before the attention and before the MLP, and the SwiGLU MLP itself.

The residual stream itself is never normalized: each of the two sublayers reads a normalized copy
and adds its output back (:func:`helpers.real_model.forward`).
"""
from __future__ import annotations

import numpy as np

from ..render.validation import as_real_array, finite_scalar, instance, quiet_overflow
from .model import Block


def rms_norm(x: np.ndarray, weight: np.ndarray, eps: float) -> np.ndarray:
    """``x / √(mean(x²) + eps) · weight`` over the last axis (Llama's RMSNorm)."""
    x = as_real_array("x", x, keep_float_dtype=True)
    weight = as_real_array("weight", weight, ndim=1, keep_float_dtype=True)
    if x.ndim == 0 or x.shape[-1] != len(weight):
        raise ValueError(f"weight must have one entry per feature of x, got weight {weight.shape} for x {x.shape}")
    eps = finite_scalar("eps", eps, low=0.0, low_open=True)
    if np.abs(x).max() > 1e150:
        raise ValueError(f"x too large: entries up to {np.abs(x).max():.3g} overflow mean(x²)")
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def silu(x: np.ndarray) -> np.ndarray:
    """``x · sigmoid(x)``; ``e^(−x)`` overflowing for very negative x correctly gives 0."""
    x = as_real_array("x", x, keep_float_dtype=True, allow_empty=True)
    with quiet_overflow():
        return x / (1.0 + np.exp(-x))


def mlp(block: Block, h) -> np.ndarray:
    """``block``'s SwiGLU MLP on ``h``, the normalized stream ``(…, n, hidden)``:
    ``(silu(h W_gate) ⊙ h W_up) W_down``, in float32 like the weights."""
    instance("block", block, Block, "Block (one of helpers.real_model.Model's blocks)")
    h = as_real_array("h", h, ndim=(1, 2, 3), keep_float_dtype=True)
    if h.shape[-1] != block.gate.shape[0]:
        raise ValueError(f"h must be a normalized stream of shape (…, {block.gate.shape[0]}), got {h.shape}")
    h = h.astype(np.float32)
    return (silu(h @ block.gate) * (h @ block.up)) @ block.down
