"""One complete Llama attention layer in numpy: q/k/v projections, RoPE, GQA, causal softmax, o_proj.

Taught in ``06_attention_layer``; reused unchanged by the real model of ``09_real_model``. The
per-head arithmetic is :func:`helpers.attention.scaled_dot_product_attention`, the same function
as the 4-token hand example.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .attention import scaled_dot_product_attention
from .validation import as_float_array, head_indices, positive_float, positive_int


# ---- RoPE (Llama's rotate-half convention) ---------------------------------------------------
def rope_angles(positions, head_dim: int, theta: float) -> tuple:
    """``cos``, ``sin`` of shape ``(n, head_dim)`` for the given positions.

    Pair ``i`` (dims ``i`` and ``i + head_dim/2``) turns by ``position · theta^(-2i/head_dim)``,
    as in Transformers' ``LlamaRotaryEmbedding`` (``emb = cat(freqs, freqs)``).
    """
    head_dim = positive_int("head_dim", head_dim)
    if head_dim % 2:
        raise ValueError(f"head_dim must be even for RoPE, got {head_dim}")
    theta = positive_float("theta", theta)
    pos = as_float_array("positions", positions, ndim=1)
    inv_freq = theta ** (-np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
    freqs = np.outer(pos, inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb), np.sin(emb)


def rotate_half(x: np.ndarray) -> np.ndarray:
    """``[-x2, x1]`` for ``x = [x1, x2]`` split in halves along the last axis."""
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def apply_rope(x, positions, theta: float) -> np.ndarray:
    """Rotate ``x`` of shape ``(n, heads, head_dim)`` by its positions (``06_attention_layer``)."""
    arr = as_float_array("x", x, ndim=3)
    if len(np.atleast_1d(positions)) != arr.shape[0]:
        raise ValueError(f"positions has {len(np.atleast_1d(positions))} entries but x has {arr.shape[0]} rows")
    cos, sin = rope_angles(positions, arr.shape[-1], theta)
    return arr * cos[:, None, :] + rotate_half(arr) * sin[:, None, :]


# ---- GQA -------------------------------------------------------------------------------------
def repeat_kv(x: np.ndarray, n_rep: int) -> np.ndarray:
    """``(n, kv_heads, d)`` → ``(n, kv_heads · n_rep, d)``: KV head j serves query heads
    ``j·n_rep … j·n_rep + n_rep − 1`` (Transformers' ``repeat_kv``)."""
    return x if n_rep == 1 else np.repeat(x, n_rep, axis=1)


@dataclass(frozen=True)
class LayerShape:
    """Sizes of one attention layer."""

    hidden: int
    num_heads: int
    num_kv_heads: int
    head_dim: int

    def __post_init__(self):
        for name in ("hidden", "num_heads", "num_kv_heads", "head_dim"):
            positive_int(name, getattr(self, name))
        if self.num_heads % self.num_kv_heads:
            divisors = [k for k in range(1, self.num_heads + 1) if self.num_heads % k == 0]
            raise ValueError(f"num_kv_heads ({self.num_kv_heads}) must divide num_heads ({self.num_heads}); "
                             f"choose one of {divisors}")

    @classmethod
    def of(cls, config) -> "LayerShape":
        return cls(config.hidden_size, config.num_heads, config.num_kv_heads, config.head_dim)


@dataclass(frozen=True)
class LayerWeights:
    """Projection matrices, stored ``(in, out)`` so that ``x @ w`` projects (Transformers stores
    ``(out, in)``; :mod:`helpers.real_model` transposes when loading)."""

    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    w_o: np.ndarray

    def check(self, shape: LayerShape) -> None:
        want = {"w_q": (shape.hidden, shape.num_heads * shape.head_dim),
                "w_k": (shape.hidden, shape.num_kv_heads * shape.head_dim),
                "w_v": (shape.hidden, shape.num_kv_heads * shape.head_dim),
                "w_o": (shape.num_heads * shape.head_dim, shape.hidden)}
        for name, expected in want.items():
            got = getattr(self, name).shape
            if got != expected:
                raise ValueError(f"{name} must have shape {expected} for {shape}, got {got}")


def random_layer(shape: LayerShape, seed: int = 0, dtype=np.float64) -> LayerWeights:
    """Random weights with std 1/√fan_in (so activations keep a unit scale)."""
    rng = np.random.default_rng(seed)

    def w(n_in, n_out):
        return (rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(dtype)

    h, qd, kvd = shape.hidden, shape.num_heads * shape.head_dim, shape.num_kv_heads * shape.head_dim
    return LayerWeights(w(h, qd), w(h, kvd), w(h, kvd), w(qd, h))


class LayerCache:
    """K (after RoPE) and V of the positions seen so far, per KV head: the layer's KV cache."""

    def __init__(self):
        self.k = None
        self.v = None

    def __len__(self):
        return 0 if self.k is None else self.k.shape[0]

    def append(self, k: np.ndarray, v: np.ndarray) -> tuple:
        self.k = k if self.k is None else np.concatenate([self.k, k], axis=0)
        self.v = v if self.v is None else np.concatenate([self.v, v], axis=0)
        return self.k, self.v

    def nbytes(self) -> int:
        return 0 if self.k is None else self.k.nbytes + self.v.nbytes


def attention_layer(x, weights: LayerWeights, shape: LayerShape, *, rope_theta=None, positions=None,
                    causal: bool = True, cache: LayerCache | None = None, trace: list | None = None,
                    mask=None, ablate_heads=None):
    """Llama's attention for ``x`` of shape ``(n, hidden)``; returns ``(out, weights)``.

    ``out`` is ``(n, hidden)``; ``weights`` is ``(num_heads, n, n_keys)``. ``rope_theta=None``
    switches RoPE off. ``positions`` default to ``len(cache) … len(cache)+n−1``. With a ``cache``
    the new K, V are appended and the queries attend over everything cached (``05``'s idea).
    ``trace``, if a list, receives ``(step, shape)`` pairs for the shape trace of ``06``.
    ``mask`` is an extra additive mask ``(n, n_keys)`` on top of the causal one.
    ``ablate_heads`` (query-head indices; default none) zeroes those heads' outputs before o_proj,
    which removes them from the layer exactly (``11_heads_at_work``'s ablation switch).
    """
    x = as_float_array("x", x, ndim=2)
    if x.shape[1] != shape.hidden:
        raise ValueError(f"x must have shape (n, {shape.hidden}), got {x.shape}")
    weights.check(shape)
    ablate_heads = head_indices("ablate_heads", ablate_heads, shape.num_heads)
    n, h, kv, d = x.shape[0], shape.num_heads, shape.num_kv_heads, shape.head_dim
    record = trace.append if trace is not None else (lambda item: None)
    start = len(cache) if cache is not None else 0
    pos = np.arange(start, start + n) if positions is None else np.asarray(positions)
    record(("x", x.shape))
    q = (x @ weights.w_q).reshape(n, h, d)
    k = (x @ weights.w_k).reshape(n, kv, d)
    v = (x @ weights.w_v).reshape(n, kv, d)
    record(("q = x @ W_q → 拆成头", q.shape))
    record(("k = x @ W_k → 拆成头", k.shape))
    record(("v = x @ W_v → 拆成头", v.shape))
    if rope_theta is not None:
        q, k = apply_rope(q, pos, rope_theta), apply_rope(k, pos, rope_theta)
        record(("RoPE(q), RoPE(k)", q.shape))
    if cache is not None:
        k, v = cache.append(k, v)
        record(("KV cache 里的 k, v", k.shape))
    k_rep, v_rep = repeat_kv(k, h // kv), repeat_kv(v, h // kv)
    record(("repeat_kv(k), repeat_kv(v)", k_rep.shape))
    out, attn = scaled_dot_product_attention(q.transpose(1, 0, 2), k_rep.transpose(1, 0, 2),
                                             v_rep.transpose(1, 0, 2), causal=causal, mask=mask)
    record(("每个头的分数 / 权重", attn.shape))
    record(("每个头的输出", out.shape))
    if ablate_heads:
        out[list(ablate_heads)] = 0.0
    merged = out.transpose(1, 0, 2).reshape(n, h * d)
    record(("拼接各头", merged.shape))
    y = merged @ weights.w_o
    record(("o_proj", y.shape))
    return y, attn


def shape_trace_text(trace) -> str:
    """The ``(step, shape)`` pairs of :func:`attention_layer` as aligned lines (``06``)."""
    from .display import pad

    return "\n".join(pad(step, 28) + str(list(dims)) for step, dims in trace)


def expand_gqa_to_mha(weights: LayerWeights, shape: LayerShape) -> tuple:
    """The same layer written as plain multi-head attention: every KV head's columns copied for
    each query head it serves. Returns ``(weights, shape)`` with ``num_kv_heads = num_heads``."""
    d, rep = shape.head_dim, shape.num_heads // shape.num_kv_heads

    def expand(w):
        heads = w.reshape(w.shape[0], shape.num_kv_heads, d)
        return np.repeat(heads, rep, axis=1).reshape(w.shape[0], shape.num_heads * d)

    mha = LayerShape(shape.hidden, shape.num_heads, shape.num_heads, d)
    return LayerWeights(weights.w_q, expand(weights.w_k), expand(weights.w_v), weights.w_o), mha
