"""One complete Llama attention layer in numpy: q/k/v projections, RoPE, GQA, causal softmax, o_proj.

Taught in ``06_attention_layer``; reused unchanged by the real model of ``09_real_model``. The
per-head arithmetic is :func:`helpers.attention.scaled_dot_product_attention`, the same function
as the 4-token hand example.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .attention import scaled_dot_product_attention
from .config import RopeScaling
from .render.validation import (
    as_mask,
    as_real_array,
    boolean,
    check_elements,
    finite_scalar,
    float_dtype,
    head_indices,
    instance,
    magnitude_bound,
    max_abs,
    positive_int,
)
from .render.validation import seed as check_seed


def _theta(name, value) -> float:
    """RoPE base: a finite number > 1 (pair frequencies θ^(−2i/d) fall with i)."""
    return finite_scalar(name, value, low=1.0, low_open=True)


# ---- RoPE (Llama's rotate-half convention) ---------------------------------------------------
def rope_inv_freq(head_dim: int, theta: float, scaling: RopeScaling | None = None) -> np.ndarray:
    """The ``head_dim/2`` angles per position θᵢ = ``theta^(-2i/head_dim)`` (``06_attention_layer``).

    With a ``"llama3"`` ``scaling`` (Llama-3.1's ``rope_scaling``), as published in Meta's
    ``apply_scaling`` and Transformers' ``_compute_llama3_parameters``: with wavelength
    λᵢ = 2π/θᵢ and L = ``original_max_position_embeddings``, pairs with λᵢ < L/high_freq_factor
    keep θᵢ, pairs with λᵢ > L/low_freq_factor get θᵢ/factor, and the pairs between get
    (1 − s)·θᵢ/factor + s·θᵢ with s = (L/λᵢ − low_freq_factor)/(high_freq_factor − low_freq_factor).
    ``scaling=None`` is plain RoPE (SmolLM2).
    """
    head_dim = positive_int("head_dim", head_dim)
    if head_dim % 2:
        raise ValueError(f"head_dim must be even for RoPE, got {head_dim}")
    theta = _theta("theta", theta)
    inv_freq = theta ** (-np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
    if scaling is None:
        return inv_freq
    if not isinstance(scaling, RopeScaling):
        raise TypeError(f"scaling must be a helpers.config.RopeScaling or None, got {scaling!r}")
    wavelength = 2 * np.pi / inv_freq
    length = scaling.original_max_position_embeddings
    smooth = (length / wavelength - scaling.low_freq_factor) / (scaling.high_freq_factor - scaling.low_freq_factor)
    blended = (1 - smooth) * inv_freq / scaling.factor + smooth * inv_freq
    return np.where(wavelength < length / scaling.high_freq_factor, inv_freq,
                    np.where(wavelength > length / scaling.low_freq_factor, inv_freq / scaling.factor, blended))


def rope_wavelengths(head_dim: int, theta: float, scaling: RopeScaling | None = None) -> np.ndarray:
    """Positions a pair needs to turn once, 2π/θᵢ, for each of the ``head_dim/2`` pairs (``06``)."""
    return 2 * np.pi / rope_inv_freq(head_dim, theta, scaling)


def rope_angles(positions, head_dim: int, theta: float, scaling: RopeScaling | None = None) -> tuple:
    """``cos``, ``sin`` of shape ``(n, head_dim)`` for the given positions.

    Pair ``i`` (dims ``i`` and ``i + head_dim/2``) turns by ``position · θᵢ`` with θᵢ from
    :func:`rope_inv_freq`, as in Transformers' ``LlamaRotaryEmbedding`` (``emb = cat(freqs, freqs)``).
    """
    pos = as_real_array("positions", positions, ndim=1)
    check_elements("positions × head_dim", 2 * len(pos) * positive_int("head_dim", head_dim))
    inv_freq = rope_inv_freq(head_dim, theta, scaling)
    freqs = np.outer(pos, inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb), np.sin(emb)


def rotate_half(x: np.ndarray) -> np.ndarray:
    """``[-x2, x1]`` for ``x = [x1, x2]`` split in halves along the last axis (even length)."""
    x = as_real_array("x", x, keep_float_dtype=True)
    if x.ndim == 0 or x.shape[-1] % 2:
        raise ValueError(f"x must have an even last dimension (pairs of halves), got shape {x.shape}")
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def apply_rope(x, positions, theta: float, scaling: RopeScaling | None = None) -> np.ndarray:
    """Rotate ``x`` of shape ``(n, heads, head_dim)`` by its positions (``06_attention_layer``);
    ``scaling`` is a config's ``rope_scaling`` (see :func:`rope_inv_freq`). A leading batch axis,
    ``(batch, n, heads, head_dim)``, rotates every sequence by the same positions."""
    arr = as_real_array("x", x, ndim=(3, 4))
    pos = as_real_array("positions", positions, ndim=1)
    if len(pos) != arr.shape[-3]:
        raise ValueError(f"positions has {len(pos)} entries but x has {arr.shape[-3]} rows")
    if arr.shape[-1] % 2:
        raise ValueError(f"x must have an even head_dim (last axis) for RoPE, got shape {arr.shape}")
    theta = _theta("theta", theta)
    magnitude_bound("x", max_abs(arr), limit=1e300)
    cos, sin = rope_angles(positions, arr.shape[-1], theta, scaling)
    return arr * cos[:, None, :] + rotate_half(arr) * sin[:, None, :]


def rope_scores(q, k, distances, theta: float, scaling: RopeScaling | None = None) -> np.ndarray:
    """``q·k/√d`` with q rotated to position m and k to position 0, for each m in ``distances``
    (``06_attention_layer``: how a score depends on distance). ``q``, ``k``: ``(d,)`` or
    ``(pairs, d)``; returns ``(len(distances),)`` or ``(len(distances), pairs)``."""
    q_arr = as_real_array("q", q, ndim=(1, 2))
    k_arr = as_real_array("k", k, ndim=(1, 2))
    if q_arr.shape != k_arr.shape:
        raise ValueError(f"q and k must have the same shape, got {q_arr.shape} and {k_arr.shape}")
    dist = as_real_array("distances", distances, ndim=1)
    pairs = q_arr.reshape(-1, q_arr.shape[-1])
    rotated = apply_rope(np.broadcast_to(pairs, (len(dist), *pairs.shape)), dist, theta, scaling)
    scores = (rotated * k_arr.reshape(pairs.shape)).sum(axis=-1) / np.sqrt(q_arr.shape[-1])
    return scores[:, 0] if q_arr.ndim == 1 else scores


# ---- GQA -------------------------------------------------------------------------------------
def repeat_kv(x: np.ndarray, n_rep: int) -> np.ndarray:
    """``(n, kv_heads, d)`` → ``(n, kv_heads · n_rep, d)``: KV head j serves query heads
    ``j·n_rep … j·n_rep + n_rep − 1`` (Transformers' ``repeat_kv``); a leading batch axis is kept."""
    x = as_real_array("x", x, ndim=(3, 4), keep_float_dtype=True)
    n_rep = positive_int("n_rep", n_rep, maximum=4096)
    check_elements("x, n_rep", x.size * n_rep)
    return x if n_rep == 1 else np.repeat(x, n_rep, axis=-2)


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

    def __post_init__(self):
        for name in ("w_q", "w_k", "w_v", "w_o"):  # lists accepted; float32 kept (the real model)
            object.__setattr__(self, name, as_real_array(name, getattr(self, name), ndim=2, keep_float_dtype=True))
        # largest |entry| of the input projections and of o_proj, for attention_layer's overflow guard
        object.__setattr__(self, "_magnitudes", (max(max_abs(self.w_q), max_abs(self.w_k), max_abs(self.w_v)),
                                                 max_abs(self.w_o)))

    def check(self, shape: LayerShape) -> None:
        instance("shape", shape, LayerShape)
        want = {"w_q": (shape.hidden, shape.num_heads * shape.head_dim),
                "w_k": (shape.hidden, shape.num_kv_heads * shape.head_dim),
                "w_v": (shape.hidden, shape.num_kv_heads * shape.head_dim),
                "w_o": (shape.num_heads * shape.head_dim, shape.hidden)}
        for name, expected in want.items():
            got = getattr(self, name).shape
            if got != expected:
                raise ValueError(f"weights.{name} must have shape {expected} for {shape}, got {got}")


def random_layer(shape: LayerShape, seed: int = 0, dtype=np.float64) -> LayerWeights:
    """Random weights with std 1/√fan_in (so activations keep a unit scale); ``dtype`` a float type."""
    instance("shape", shape, LayerShape)
    seed = check_seed("seed", seed)
    float_dtype("dtype", dtype)
    check_elements("shape", 2 * shape.hidden * (shape.num_heads + shape.num_kv_heads) * shape.head_dim)
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
        """Add new positions' ``k`` and ``v`` (each ``(n, kv_heads, d)``); returns everything cached."""
        k = as_real_array("k", k, ndim=3, keep_float_dtype=True)
        v = as_real_array("v", v, ndim=3, keep_float_dtype=True)
        if k.shape[0] != v.shape[0]:
            raise ValueError(f"k and v need one row per position, got k {k.shape} and v {v.shape}")
        if self.k is not None and (k.shape[1:] != self.k.shape[1:] or v.shape[1:] != self.v.shape[1:]):
            raise ValueError(f"k and v must match the cached (kv_heads, d) = {self.k.shape[1:]}, "
                             f"{self.v.shape[1:]}; got k {k.shape} and v {v.shape}")
        self.k = k if self.k is None else np.concatenate([self.k, k], axis=0)
        self.v = v if self.v is None else np.concatenate([self.v, v], axis=0)
        return self.k, self.v

    def nbytes(self) -> int:
        return 0 if self.k is None else self.k.nbytes + self.v.nbytes


def attention_layer(x, weights: LayerWeights, shape: LayerShape, *, rope_theta=None, rope_scaling=None,
                    positions=None, causal: bool = True, cache: LayerCache | None = None,
                    trace: list | None = None, mask=None, ablate_heads=None):
    """Llama's attention for ``x`` of shape ``(n, hidden)``; returns ``(out, weights)``.

    ``out`` is ``(n, hidden)``; ``weights`` is ``(num_heads, n, n_keys)``. ``rope_theta=None``
    switches RoPE off (``rope_scaling`` is then unused); ``rope_scaling`` is a config's
    :class:`~helpers.config.RopeScaling` (Llama-3.1's ``"llama3"``) or ``None`` for plain RoPE.
    ``positions`` default to ``len(cache) … len(cache)+n−1``. With a ``cache``
    the new K, V are appended and the queries attend over everything cached (``05``'s idea).
    ``trace``, if a list, receives ``(step, shape)`` pairs for the shape trace of ``06``.
    ``mask`` is an extra mask ``(n, n_keys)`` on top of the causal one, boolean (``True`` = keep,
    torch's convention) or additive (see :mod:`helpers.attention`).
    ``ablate_heads`` (query-head indices; default none) zeroes those heads' outputs before o_proj,
    which removes them from the layer exactly (``12_heads_at_work``'s ablation switch).
    ``x`` may also be ``(batch, n, hidden)``: several sequences of the same length at once, each
    with its own causal attention (no KV cache then); ``out`` and ``weights`` gain the batch axis.
    """
    instance("shape", shape, LayerShape)
    instance("weights", weights, LayerWeights)
    x = as_real_array("x", x, ndim=(2, 3))
    if x.shape[-1] != shape.hidden:
        raise ValueError(f"x must have shape (n, {shape.hidden}), got {x.shape} (or (batch, n, {shape.hidden}) "
                         "for a batch of sequences)")
    weights.check(shape)
    causal = boolean("causal", causal)
    if rope_theta is not None:
        rope_theta = _theta("rope_theta", rope_theta)
    if rope_scaling is not None:
        instance("rope_scaling", rope_scaling, RopeScaling, "helpers.config.RopeScaling or None")
    if cache is not None:
        instance("cache", cache, LayerCache)
        if x.ndim == 3:
            raise ValueError(f"cache holds one sequence: x must have shape (n, {shape.hidden}) with a cache, "
                             f"got a batch {x.shape}")
    if trace is not None:
        instance("trace", trace, list, "list (it receives the shape trace) or None")
    if positions is not None:
        positions = as_real_array("positions", positions, shape=(x.shape[-2],))
    w_in, w_out = weights._magnitudes
    magnitude_bound("x or weights", max_abs(x), w_in, shape.hidden)  # q, k, v stay far from overflow
    magnitude_bound("x or weights", max_abs(x), w_in, shape.hidden, w_out, shape.num_heads * shape.head_dim,
                    limit=1e300)
    if mask is not None:
        n_keys = x.shape[-2] + (len(cache) if cache is not None else 0)
        mask = as_mask("mask", mask, [(x.shape[-2], n_keys)])
    if cache is not None and cache.k is not None and cache.k.shape[1:] != (shape.num_kv_heads, shape.head_dim):
        raise ValueError(f"cache holds k of shape {cache.k.shape}, not (…, {shape.num_kv_heads}, "
                         f"{shape.head_dim}) for {shape}")
    ablate_heads = head_indices("ablate_heads", ablate_heads, shape.num_heads)
    batch, n, h, kv, d = x.shape[:-2], x.shape[-2], shape.num_heads, shape.num_kv_heads, shape.head_dim
    record = trace.append if trace is not None else (lambda item: None)
    start = len(cache) if cache is not None else 0
    pos = np.arange(start, start + n) if positions is None else np.asarray(positions)
    record(("x", x.shape))
    rows = x.reshape(-1, shape.hidden)  # a batch's sequences stacked: one product per projection
    q = (rows @ weights.w_q).reshape(*batch, n, h, d)
    k = (rows @ weights.w_k).reshape(*batch, n, kv, d)
    v = (rows @ weights.w_v).reshape(*batch, n, kv, d)
    record(("q = x @ W_q → 拆成头", q.shape))
    record(("k = x @ W_k → 拆成头", k.shape))
    record(("v = x @ W_v → 拆成头", v.shape))
    if rope_theta is not None:
        q, k = apply_rope(q, pos, rope_theta, rope_scaling), apply_rope(k, pos, rope_theta, rope_scaling)
        record(("RoPE(q)", q.shape))
        record(("RoPE(k)", k.shape))
    if cache is not None:
        k, v = cache.append(k, v)
        record(("KV cache 里的 k, v", k.shape))
    k_rep, v_rep = repeat_kv(k, h // kv), repeat_kv(v, h // kv)
    record(("repeat_kv(k), repeat_kv(v)", k_rep.shape))
    # heads first, (h, n, d); a batch's (batch, h) pairs are flattened into one axis of heads
    q_h, k_h, v_h = (np.swapaxes(a, -3, -2).reshape(-1, a.shape[-3], d) for a in (q, k_rep, v_rep))
    out, attn = scaled_dot_product_attention(q_h, k_h, v_h, causal=causal, mask=mask)
    out, attn = out.reshape(*batch, h, n, d), attn.reshape(*batch, h, n, -1)
    record(("每个头的分数 / 权重", attn.shape))
    record(("每个头的输出", out.shape))
    if ablate_heads:
        out[..., list(ablate_heads), :, :] = 0.0
    merged = np.swapaxes(out, -3, -2).reshape(*batch, n, h * d)
    record(("拼接各头", merged.shape))
    y = (merged.reshape(-1, h * d) @ weights.w_o).reshape(*batch, n, shape.hidden)
    record(("o_proj", y.shape))
    return y, attn


def shape_trace_rows(trace) -> list:
    """The ``(step, shape)`` pairs of :func:`attention_layer` as table rows ``[step, "[6, 4096]"]``
    (``06``): shown with ``helpers.display.show_table``, whose HTML keeps the Chinese step names
    and the shapes in columns (a fixed-width text drifts where a CJK glyph is not two columns)."""
    if not isinstance(trace, (list, tuple)) or not all(
            isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)
            and isinstance(item[1], tuple) for item in trace):
        raise TypeError(f"trace must be the list of (step, shape) pairs filled by attention_layer(trace=…), "
                        f"got {type(trace).__name__} {trace!r:.60}")
    return [[step, str(list(dims))] for step, dims in trace]


def expand_gqa_to_mha(weights: LayerWeights, shape: LayerShape) -> tuple:
    """The same layer written as plain multi-head attention: every KV head's columns copied for
    each query head it serves. Returns ``(weights, shape)`` with ``num_kv_heads = num_heads``."""
    instance("weights", weights, LayerWeights)
    weights.check(shape)
    d, rep = shape.head_dim, shape.num_heads // shape.num_kv_heads

    def expand(w):
        heads = w.reshape(w.shape[0], shape.num_kv_heads, d)
        return np.repeat(heads, rep, axis=1).reshape(w.shape[0], shape.num_heads * d)

    mha = LayerShape(shape.hidden, shape.num_heads, shape.num_heads, d)
    return LayerWeights(weights.w_q, expand(weights.w_k), expand(weights.w_v), weights.w_o), mha
