"""Multi-head latent attention (MLA), DeepSeek-V2/V3's attention, in numpy (``14_shrinking_caches``).

Each token's keys and values are made from one small latent vector ``c_kv`` (``kv_lora_rank``
numbers) and one short key ``k_pe`` (``qk_rope_head_dim`` numbers) that carries the position; the
cache holds only these two. Per head ``h``::

    q_h = [q_nope_h, RoPE(q_pe_h)]          (from x through a low-rank query: W_DQ, RMSNorm, W_UQ)
    c_kv, k_pe = x W_DKV                     c_kv ← RMSNorm(c_kv);  k_pe ← RoPE(k_pe), one for all heads
    k_h = [W_UK_h c_kv, k_pe]    v_h = W_UV_h c_kv
    out_h = softmax(q_h·k_h / √(qk_nope + qk_rope) + causal) v_h;   y = [out_1 … out_H] W_O

Two ways to compute it, equal up to rounding:

- :func:`mla_naive` expands the latent to every head's ``k_h`` and ``v_h`` (Transformers'
  ``DeepseekV3Attention``; DeepSeek-V3's ``attn_impl="naive"``);
- :func:`mla_absorbed` never does: ``q_nope_h·(W_UK_h c) = (W_UK_hᵀ q_nope_h)·c``, so ``W_UK_h``
  is folded into the query, which then compares directly with the cached latent; the heads' outputs
  stay latent, ``Σ_j p_j c_j``, and ``W_UV_h`` is applied after the weighted sum (DeepSeek-V3's
  ``attn_impl="absorb"``). :func:`mla_as_mqa` runs the same absorbed computation through
  ``06_attention_layer``'s GQA with one KV head: absorbed MLA is multi-query attention whose one
  key is ``[c_kv, k_pe]`` and whose one value is ``c_kv`` itself.

Why RoPE is *decoupled* (a separate ``k_pe``): were the position rotated into ``W_UK_h c_j``, the
matrix between ``q_i`` and ``c_j`` would be ``R_iᵀ R_j W_UK_h``, different for every pair of
positions, while what is folded into the query is one fixed matrix per head: it cannot apply the key's
rotation ``R_j`` for every key ``j``. :func:`coupled_rope_outputs` tries the direct fold (the query
turned by its own position, then ``W_UK_h`` folded in) and shows how far it lands.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..attention import causal_mask, scaled_dot_product_attention, softmax
from ..layer import apply_rope, repeat_kv
from ..real_model.block import rms_norm
from ..render.validation import (
    as_real_array,
    finite_result,
    instance,
    positive_float,
    positive_int,
    quiet_overflow,
)
from ..render.validation import seed as check_seed

#: RMSNorm's epsilon in DeepSeek-V3's config.json (``rms_norm_eps``)
EPS = 1e-6


@dataclass(frozen=True)
class MLAShape:
    """The widths of one MLA layer (the fields of DeepSeek-V3's ``config.json`` with these names)."""

    hidden: int
    num_heads: int
    q_lora_rank: int
    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int
    rope_theta: float = 10000.0

    def __post_init__(self):
        for name in ("hidden", "num_heads", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "v_head_dim"):
            positive_int(name, getattr(self, name), maximum=1 << 20)
        positive_int("qk_rope_head_dim", self.qk_rope_head_dim, maximum=1 << 20)
        if self.qk_rope_head_dim % 2:
            raise ValueError(f"qk_rope_head_dim must be even for RoPE, got {self.qk_rope_head_dim}")

    @property
    def qk_head_dim(self) -> int:
        """Width of one head's query and key: ``qk_nope_head_dim + qk_rope_head_dim`` (192 in DeepSeek-V3)."""
        return self.qk_nope_head_dim + self.qk_rope_head_dim

    @property
    def scale(self) -> float:
        """The softmax scale, ``1/√qk_head_dim``: it belongs to the head's key width, absorbed or not."""
        return 1.0 / np.sqrt(self.qk_head_dim)

    def latent_numbers(self) -> int:
        """Numbers one token caches per layer in MLA: ``kv_lora_rank + qk_rope_head_dim`` (576)."""
        return self.kv_lora_rank + self.qk_rope_head_dim

    def expanded_numbers(self) -> int:
        """Numbers one token would cache per layer with every head's K and V expanded:
        ``heads × (qk_head_dim + v_head_dim)`` (128 × (192 + 128) in DeepSeek-V3)."""
        return self.num_heads * (self.qk_head_dim + self.v_head_dim)

    def scaled_down(self, factor: int) -> "MLAShape":
        """Every width and the head count divided by ``factor`` (the rope width kept even)."""
        factor = positive_int("factor", factor, maximum=64)
        rope = max(2, self.qk_rope_head_dim // factor // 2 * 2)
        return MLAShape(hidden=self.hidden // factor, num_heads=max(1, self.num_heads // factor),
                        q_lora_rank=self.q_lora_rank // factor, kv_lora_rank=self.kv_lora_rank // factor,
                        qk_nope_head_dim=self.qk_nope_head_dim // factor, qk_rope_head_dim=rope,
                        v_head_dim=self.v_head_dim // factor, rope_theta=self.rope_theta)


#: DeepSeek-V3's attention (deepseek-ai/DeepSeek-V3, inference/configs/config_671B.json: dim 7168,
#: n_heads 128, q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64,
#: v_head_dim 128; rope_theta 10000)
DEEPSEEK_V3 = MLAShape(hidden=7168, num_heads=128, q_lora_rank=1536, kv_lora_rank=512, qk_nope_head_dim=128,
                       qk_rope_head_dim=64, v_head_dim=128, rope_theta=10000.0)
#: the shapes the notebook computes with: DeepSeek-V3's divided by 16 (8 heads, latent 32, rope 4)
SMALL = DEEPSEEK_V3.scaled_down(16)


@dataclass(frozen=True)
class MLAWeights:
    """One MLA layer's weights, ``x @ w`` direction. ``w_ukv`` is ``(kv_lora_rank, heads ×
    (qk_nope + v))``, each head's block ``[W_UK_h | W_UV_h]`` side by side (DeepSeek's ``kv_b_proj``)."""

    w_dq: np.ndarray
    q_norm: np.ndarray
    w_uq: np.ndarray
    w_dkv: np.ndarray
    kv_norm: np.ndarray
    w_ukv: np.ndarray
    w_o: np.ndarray

    def __post_init__(self):
        for name in ("w_dq", "q_norm", "w_uq", "w_dkv", "kv_norm", "w_ukv", "w_o"):
            object.__setattr__(self, name, as_real_array(name, getattr(self, name), ndim=1 if name.endswith("norm") else 2))

    def check(self, shape: MLAShape) -> None:
        """Every matrix has the shape ``shape`` asks for."""
        instance("shape", shape, MLAShape)
        h = shape.num_heads
        want = {"w_dq": (shape.hidden, shape.q_lora_rank), "q_norm": (shape.q_lora_rank,),
                "w_uq": (shape.q_lora_rank, h * shape.qk_head_dim),
                "w_dkv": (shape.hidden, shape.kv_lora_rank + shape.qk_rope_head_dim),
                "kv_norm": (shape.kv_lora_rank,),
                "w_ukv": (shape.kv_lora_rank, h * (shape.qk_nope_head_dim + shape.v_head_dim)),
                "w_o": (h * shape.v_head_dim, shape.hidden)}
        for name, expected in want.items():
            got = getattr(self, name).shape
            if got != expected:
                raise ValueError(f"weights.{name} must have shape {expected} for {shape}, got {got}")

    def up_projections(self, shape: MLAShape) -> tuple:
        """``(W_UK, W_UV)``: ``(heads, qk_nope, kv_lora_rank)`` and ``(heads, v_head_dim, kv_lora_rank)``,
        head ``h``'s key and value read from the latent as ``W_UK[h] @ c`` and ``W_UV[h] @ c``."""
        per_head = self.w_ukv.reshape(shape.kv_lora_rank, shape.num_heads, shape.qk_nope_head_dim + shape.v_head_dim)
        w_uk = per_head[:, :, :shape.qk_nope_head_dim].transpose(1, 2, 0)
        w_uv = per_head[:, :, shape.qk_nope_head_dim:].transpose(1, 2, 0)
        return w_uk, w_uv


def random_mla(shape: MLAShape, seed: int = 0) -> MLAWeights:
    """Random float64 weights of ``shape`` (each matrix N(0, 1/fan_in); the norms' weights near 1)."""
    instance("shape", shape, MLAShape)
    rng = np.random.default_rng([check_seed("seed", seed), 14])

    def w(n_in, n_out):
        return rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)

    h = shape.num_heads
    return MLAWeights(
        w_dq=w(shape.hidden, shape.q_lora_rank), q_norm=1.0 + 0.1 * rng.standard_normal(shape.q_lora_rank),
        w_uq=w(shape.q_lora_rank, h * shape.qk_head_dim),
        w_dkv=w(shape.hidden, shape.kv_lora_rank + shape.qk_rope_head_dim),
        kv_norm=1.0 + 0.1 * rng.standard_normal(shape.kv_lora_rank),
        w_ukv=w(shape.kv_lora_rank, h * (shape.qk_nope_head_dim + shape.v_head_dim)),
        w_o=w(h * shape.v_head_dim, shape.hidden))


@dataclass(frozen=True)
class Projected:
    """What both forms compute first, per position: the queries' two parts ``q_nope`` ``(n, heads,
    qk_nope)`` and ``q_pe`` ``(n, heads, qk_rope)`` (after RoPE), and what the cache holds:
    ``c_kv`` ``(n, kv_lora_rank)`` and ``k_pe`` ``(n, qk_rope)`` (after RoPE, one for every head)."""

    q_nope: np.ndarray
    q_pe: np.ndarray
    c_kv: np.ndarray
    k_pe: np.ndarray

    def __post_init__(self):
        for name, ndim in (("q_nope", 3), ("q_pe", 3), ("c_kv", 2), ("k_pe", 2)):
            object.__setattr__(self, name, as_real_array(name, getattr(self, name), ndim=ndim))
        n, h = self.q_nope.shape[:2]
        if self.q_pe.shape[:2] != (n, h) or len(self.c_kv) != n or self.k_pe.shape != (n, self.q_pe.shape[2]):
            raise ValueError(f"q_nope (n, heads, qk_nope), q_pe (n, heads, qk_rope), c_kv (n, kv_lora_rank) and k_pe "
                             f"(n, qk_rope) must agree on n, heads and qk_rope, got q_nope {self.q_nope.shape}, q_pe "
                             f"{self.q_pe.shape}, c_kv {self.c_kv.shape} and k_pe {self.k_pe.shape}")


def _checked(x, weights, shape):
    instance("shape", shape, MLAShape)
    instance("weights", weights, MLAWeights)
    weights.check(shape)
    x = as_real_array("x", x, ndim=2)
    if x.shape[1] != shape.hidden:
        raise ValueError(f"x must have shape (n, {shape.hidden}), got {x.shape}")
    return x


def project(x, weights: MLAWeights, shape: MLAShape, positions=None) -> Projected:
    """The queries and the cached latent of ``x`` ``(n, hidden)`` at ``positions`` (default 0 … n − 1)."""
    x = _checked(x, weights, shape)
    n, h = len(x), shape.num_heads
    pos = np.arange(n) if positions is None else as_real_array("positions", positions, shape=(n,))
    q = (rms_norm(x @ weights.w_dq, weights.q_norm, EPS) @ weights.w_uq).reshape(n, h, shape.qk_head_dim)
    q_nope, q_pe = q[..., :shape.qk_nope_head_dim], q[..., shape.qk_nope_head_dim:]
    kv = x @ weights.w_dkv
    c_kv = rms_norm(kv[:, :shape.kv_lora_rank], weights.kv_norm, EPS)
    k_pe = kv[:, shape.kv_lora_rank:]
    return Projected(q_nope, apply_rope(q_pe, pos, shape.rope_theta), c_kv,
                     apply_rope(k_pe[:, None, :], pos, shape.rope_theta)[:, 0, :])


def expand(p: Projected, weights: MLAWeights, shape: MLAShape) -> tuple:
    """Every head's key ``[W_UK_h c, k_pe]`` ``(n, heads, qk_head_dim)`` and value ``W_UV_h c``
    ``(n, heads, v_head_dim)``: what the naive form builds, and would cache."""
    instance("p", p, Projected)
    instance("weights", weights, MLAWeights)
    weights.check(shape)
    if p.c_kv.shape[1] != shape.kv_lora_rank or p.k_pe.shape[1] != shape.qk_rope_head_dim:
        raise ValueError(f"p must be projected with {shape}: c_kv (n, {shape.kv_lora_rank}) and k_pe "
                         f"(n, {shape.qk_rope_head_dim}), got c_kv {p.c_kv.shape} and k_pe {p.k_pe.shape}")
    w_uk, w_uv = weights.up_projections(shape)
    with quiet_overflow():
        k_nope = np.einsum("hdr,nr->nhd", w_uk, p.c_kv)
        v = np.einsum("hdr,nr->nhd", w_uv, p.c_kv)
    finite_result(k_nope, "p and weights", "a key read from the latent")
    finite_result(v, "p and weights", "a value read from the latent")
    k_pe = np.broadcast_to(p.k_pe[:, None, :], (len(p.c_kv), shape.num_heads, shape.qk_rope_head_dim))
    return np.concatenate([k_nope, k_pe], axis=-1), v


def mla_naive(x, weights: MLAWeights, shape: MLAShape, positions=None) -> tuple:
    """``(y, p)``: the layer's output ``(n, hidden)`` and attention weights ``(heads, n, n)``, with
    every head's K and V expanded from the latent (:func:`expand`)."""
    p = project(x, weights, shape, positions)
    k, v = expand(p, weights, shape)
    q = np.concatenate([p.q_nope, p.q_pe], axis=-1)
    out, attn = scaled_dot_product_attention(*(np.swapaxes(a, 0, 1) for a in (q, k, v)), causal=True,
                                             scale=shape.scale)
    return np.swapaxes(out, 0, 1).reshape(len(q), -1) @ weights.w_o, attn


def absorbed_query(q_nope, w_uk) -> np.ndarray:
    """``W_UK_hᵀ q_nope_h`` for every position and head: ``(n, heads, kv_lora_rank)``, the part of the
    query that compares directly with the cached latent."""
    q_nope, w_uk = as_real_array("q_nope", q_nope, ndim=3), as_real_array("w_uk", w_uk, ndim=3)
    if q_nope.shape[1:] != w_uk.shape[:2]:
        raise ValueError(f"q_nope (n, heads, qk_nope) and w_uk (heads, qk_nope, kv_lora_rank) must have the same heads "
                         f"and qk_nope, got q_nope {q_nope.shape} and w_uk {w_uk.shape}")
    with quiet_overflow():
        folded = np.einsum("nhd,hdr->nhr", q_nope, w_uk)
    return finite_result(folded, "q_nope and w_uk", "the absorbed query")


def absorbed_heads(q_nope, q_pe, c_kv, k_pe, w_uk, w_uv, scale: float) -> tuple:
    """``(out, weights)`` of every head computed from the cache as it is: ``out`` ``(n, heads,
    v_head_dim)`` before ``W_O``, ``weights`` ``(heads, n, n)``. The query's ``q_nope`` part is folded
    through ``W_UK`` (:func:`absorbed_query`) and compared with the latent ``c_kv``; its ``q_pe`` part
    with ``k_pe``; the weighted sum of latents goes through ``W_UV`` last."""
    q_pe = as_real_array("q_pe", q_pe, ndim=3)
    c_kv, k_pe = as_real_array("c_kv", c_kv, ndim=2), as_real_array("k_pe", k_pe, ndim=2)
    w_uv, scale = as_real_array("w_uv", w_uv, ndim=3), positive_float("scale", scale)
    q_latent = absorbed_query(q_nope, w_uk)
    n, h, r = q_latent.shape
    if q_pe.shape[:2] != (n, h) or c_kv.shape != (n, r) or k_pe.shape != (n, q_pe.shape[2]) or w_uv.shape[::2] != (h, r):
        raise ValueError(f"q_nope (n, heads, qk_nope), q_pe (n, heads, qk_rope), c_kv (n, r), k_pe (n, qk_rope), w_uk "
                         f"(heads, qk_nope, r) and w_uv (heads, v_head_dim, r) must agree, got q_nope {np.shape(q_nope)}, "
                         f"q_pe {q_pe.shape}, c_kv {c_kv.shape}, k_pe {k_pe.shape}, w_uk {np.shape(w_uk)} and "
                         f"w_uv {w_uv.shape}")
    with quiet_overflow():
        scores = (np.einsum("ihr,jr->hij", q_latent, c_kv) + np.einsum("ihd,jd->hij", q_pe, k_pe)) * scale
    finite_result(scores, "q_nope, q_pe, c_kv, k_pe, w_uk and scale", "a score")
    attn = softmax(scores + causal_mask(n), axis=-1)
    with quiet_overflow():
        out = np.einsum("ihr,hdr->ihd", np.einsum("hij,jr->ihr", attn, c_kv), w_uv)
    return finite_result(out, "c_kv and w_uv", "a head's output"), attn


def mla_absorbed(x, weights: MLAWeights, shape: MLAShape, positions=None, *, scale=None) -> tuple:
    """``(y, p)`` as :func:`mla_naive`, computed from the cache as it is (``c_kv``, ``k_pe``):
    ``W_UK`` folded into the query, ``W_UV`` applied to the heads' latent outputs (:func:`absorbed_heads`).
    ``scale`` defaults to the layer's own ``1/√qk_head_dim``; another one shows what a wrong scale changes."""
    p = project(x, weights, shape, positions)
    scale = shape.scale if scale is None else scale
    out, attn = absorbed_heads(p.q_nope, p.q_pe, p.c_kv, p.k_pe, *weights.up_projections(shape), scale)
    return out.reshape(len(out), -1) @ weights.w_o, attn


def mqa_key_value(p: Projected) -> tuple:
    """``(k, v)`` of absorbed MLA seen as multi-query attention: the one key ``[c_kv, k_pe]`` ``(n,
    kv_lora_rank + qk_rope)`` and the one value ``c_kv`` ``(n, kv_lora_rank)``, the key's first numbers."""
    instance("p", p, Projected)
    return np.concatenate([p.c_kv, p.k_pe], axis=-1), p.c_kv


def mla_as_mqa(x, weights: MLAWeights, shape: MLAShape, positions=None) -> tuple:
    """Absorbed MLA as ``06_attention_layer``'s GQA with **one** KV head: queries ``[W_UK_hᵀ q_nope_h,
    q_pe_h]`` for the H heads, the one key ``[c_kv, k_pe]`` repeated to every head by
    :func:`helpers.layer.repeat_kv`, the one value ``c_kv``; the scale stays ``1/√qk_head_dim``."""
    p = project(x, weights, shape, positions)
    w_uk, w_uv = weights.up_projections(shape)
    q = np.concatenate([absorbed_query(p.q_nope, w_uk), p.q_pe], axis=-1)      # (n, H, r + rope)
    k, v = (a[:, None, :] for a in mqa_key_value(p))  # (n, 1, r + rope) and (n, 1, r): the key's first r numbers
    h = shape.num_heads
    k_rep, v_rep = repeat_kv(k, h), repeat_kv(v, h)
    out, attn = scaled_dot_product_attention(*(np.swapaxes(a, 0, 1) for a in (q, k_rep, v_rep)), causal=True,
                                             scale=shape.scale)
    out = np.einsum("hir,hdr->ihd", out, w_uv)
    return out.reshape(len(out), -1) @ weights.w_o, attn


def coupled_rope_outputs(x, weights: MLAWeights, shape: MLAShape) -> tuple:
    """``(expanded, folded)``: every head's output ``(heads, n, v_head_dim)`` (before ``W_O``) of an MLA
    whose RoPE turns the whole key ``W_UK_h c_j`` (no decoupled ``k_pe``; the queries turned alike),
    computed by expanding, and by the direct fold: the query turned by its own position ``i``, then
    ``W_UK_h`` folded in, compared with the cached ``c_j``. The fold leaves out the key's rotation
    ``R_j``, which changes from key to key, so the two differ."""
    p = project(x, weights, shape)
    n = len(p.c_kv)
    w_uk, w_uv = weights.up_projections(shape)
    pos = np.arange(n)
    k_nope = np.einsum("hdr,nr->nhd", w_uk, p.c_kv)
    scale = 1.0 / np.sqrt(shape.qk_nope_head_dim)
    q_turned = apply_rope(p.q_nope, pos, shape.rope_theta)
    v = np.einsum("hdr,nr->nhd", w_uv, p.c_kv)
    out_expanded, _ = scaled_dot_product_attention(
        np.swapaxes(q_turned, 0, 1), np.swapaxes(apply_rope(k_nope, pos, shape.rope_theta), 0, 1),
        np.swapaxes(v, 0, 1), causal=True, scale=scale)
    folded = np.einsum("ihr,jr->hij", absorbed_query(q_turned, w_uk), p.c_kv) * scale
    attn = softmax(folded + causal_mask(n), axis=-1)
    return out_expanded, np.einsum("hij,jhd->hid", attn, v)
