"""Causal masking and the KV cache it makes possible (``05_causal_mask``).

Within one layer a position's k, v are projections of its own input to that layer. In a stack
of layers that input is the position's output from the layer below, and the causal mask is what
keeps it from changing when a token is appended (:func:`stacked_kv_change`). So, with the mask,
earlier K, V rows of every layer stay valid and can be cached: decoding one token at a time with
a cache gives exactly the full masked computation.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .attention import scaled_dot_product_attention
from .layer import LayerShape, attention_layer, random_layer
from .render.validation import as_real_array, boolean, integer, positive_int
from .render.validation import seed as check_seed


@dataclass
class KVCache:
    """Keys and values of the positions seen so far; one :meth:`step` per new token."""

    d_k: int
    d_v: int
    keys: np.ndarray = field(init=False)
    values: np.ndarray = field(init=False)

    def __post_init__(self):
        self.d_k = positive_int("d_k", self.d_k, maximum=1 << 16)
        self.d_v = positive_int("d_v", self.d_v, maximum=1 << 16)
        self.keys = np.zeros((0, self.d_k))
        self.values = np.zeros((0, self.d_v))

    def __len__(self):
        return len(self.keys)

    def step(self, q_row, k_row, v_row, *, scale=None):
        """Append this token's k, v; attend from its q over everything cached. Returns (out, weights)."""
        q = as_real_array("q_row", q_row, ndim=1)
        k = as_real_array("k_row", k_row, ndim=1)
        v = as_real_array("v_row", v_row, ndim=1)
        if k.shape != (self.d_k,) or v.shape != (self.d_v,) or q.shape != (self.d_k,):
            raise ValueError(f"q_row and k_row must have shape ({self.d_k},) and v_row ({self.d_v},), "
                             f"got {q.shape}, {k.shape}, {v.shape}")
        self.keys = np.vstack([self.keys, k])
        self.values = np.vstack([self.values, v])
        out, w = scaled_dot_product_attention(q[None], self.keys, self.values, scale=scale)
        return out[0], w[0]


def decode_with_cache(q, k, v, *, scale=None) -> np.ndarray:
    """Outputs for every position, computed one token at a time through a :class:`KVCache`."""
    q_arr = as_real_array("q", q, ndim=2)
    k_arr = as_real_array("k", k, ndim=2)
    v_arr = as_real_array("v", v, ndim=2)
    if not (len(q_arr) == len(k_arr) == len(v_arr)):
        raise ValueError(f"q, k, v need one row per token, got {q_arr.shape}, {k_arr.shape}, {v_arr.shape}")
    cache = KVCache(k_arr.shape[1], v_arr.shape[1])
    return np.array([cache.step(qi, ki, vi, scale=scale)[0] for qi, ki, vi in zip(q_arr, k_arr, v_arr)])


def earlier_output_change(q, k, v, n_before: int, *, causal: bool) -> float:
    """Largest change of the first ``n_before`` outputs when the rest of the tokens are appended."""
    q, k, v = (as_real_array(name, a, ndim=2) for name, a in (("q", q), ("k", k), ("v", v)))
    if not (len(q) == len(k) == len(v)):
        raise ValueError(f"q, k, v need one row per token, got {q.shape}, {k.shape}, {v.shape}")
    n_before = positive_int("n_before", n_before, maximum=len(q))
    causal = boolean("causal", causal)
    before, _ = scaled_dot_product_attention(q[:n_before], k[:n_before], v[:n_before], causal=causal)
    after, _ = scaled_dot_product_attention(q, k, v, causal=causal)
    return float(np.abs(after[:n_before] - before).max())


def stacked_kv_change(x, n_before: int, *, causal: bool, n_layers: int = 2, num_heads: int = 2,
                      seed: int = 0) -> list:
    """Why the mask, not the per-layer projection, is what makes the cache valid (``05``).

    Runs ``x`` through ``n_layers`` random attention layers (no RoPE), each adding its output
    back to its input (the residual stream), once with the first ``n_before`` rows and once
    with all rows. Returns ``[(layer, largest K change, largest V change)]`` over the first
    ``n_before`` positions: in layer 1 K and V never change (they are projections of the
    unchanged inputs); from layer 2 on they change unless ``causal``.
    """
    x_arr = as_real_array("x", x, ndim=2)
    if len(x_arr) < 2:
        raise ValueError(f"x needs at least 2 rows (some before n_before, some after), got shape {x_arr.shape}")
    n_before = integer("n_before", n_before, low=1, high=len(x_arr) - 1)
    causal = boolean("causal", causal)
    n_layers = positive_int("n_layers", n_layers, maximum=64)
    num_heads = positive_int("num_heads", num_heads)
    seed = check_seed("seed", seed)
    if x_arr.shape[1] % num_heads:
        raise ValueError(f"x has {x_arr.shape[1]} features, not divisible by num_heads={num_heads}")
    shape = LayerShape(x_arr.shape[1], num_heads, num_heads, x_arr.shape[1] // num_heads)
    layers = [random_layer(shape, seed=seed + i) for i in range(n_layers)]

    def keys_values(inputs):
        found, h = [], inputs
        for weights in layers:
            found.append((h @ weights.w_k, h @ weights.w_v))
            out, _ = attention_layer(h, weights, shape, causal=causal)
            h = h + out
        return found

    before, after = keys_values(x_arr[:n_before]), keys_values(x_arr)
    return [(i + 1, float(np.abs(ka[:n_before] - kb).max()), float(np.abs(va[:n_before] - vb).max()))
            for i, ((kb, vb), (ka, va)) in enumerate(zip(before, after))]
