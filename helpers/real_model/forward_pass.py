"""The real model's forward pass (``09_real_model``): the series' own attention layer with RMSNorm and a
SwiGLU MLP around it, single-head interventions (``12_heads_at_work``), and one head recomputed
from its own query / key / value streams (what ``Patch`` runs).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..attention import scaled_dot_product_attention
from ..interventions import PROJECTIONS, Mean, Patch, Replace, at_layer
from ..interventions import check as check_interventions
from ..layer import LayerCache, apply_rope, attention_layer
from ..render.threads import with_one_blas_thread
from ..render.validation import (
    as_mask,
    as_real_array,
    asarray_strict,
    boolean,
    finite_scalar,
    index,
    quiet_overflow,
    token_ids,
)
from .model import Model, _ids, _model


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


@dataclass
class ForwardResult:
    """What :func:`forward` returns: the logits, every layer's attention weights, optionally each layer's input."""

    logits: np.ndarray       # (n, vocab); (batch, n, vocab) for a batch; rows at logits_at only if given
    weights: list            # per layer: (heads, n, n_keys), float32 (a batch axis first for a batch)
    layer_inputs: list       # per layer: the residual stream entering it (n, hidden) / (batch, n, hidden)
    final_residual: np.ndarray | None = None  # leaving the last layer, before the final norm (keep_inputs)


@with_one_blas_thread  # a 135M model's products on ≤ 100 tokens: a second thread mostly waits
def forward(model: Model, ids, *, caches: list | None = None, mask=None, keep_inputs: bool = False,
            last_only: bool = False, interventions=None, resume=None, logits_at=None) -> ForwardResult:
    """Logits and every layer's attention weights for token ``ids``.

    The attention of every layer is :func:`helpers.layer.attention_layer` — the function of
    ``06_attention_layer`` — with causal masking, GQA and RoPE. ``caches`` (one
    :class:`helpers.layer.LayerCache` per layer) turns on the KV cache; ``mask`` is an extra
    additive ``(n, n)`` mask (e.g. a sliding window, ``09``'s StreamingLLM experiment).
    ``last_only`` computes the logits of the last position only (generation); ``logits_at``, a
    list of positions, computes them at those positions only (the lm_head is a fifth of the
    model's products: ``12`` reads the loss on a few positions).

    ``ids`` may be a ``(batch, n)`` array: several sequences of the same length in one pass (no
    KV cache then); every array of the result gains a leading batch axis.

    ``interventions``, ``{(layer, head): intervention}`` (:mod:`helpers.interventions`, the words of
    ``11``; ``12_heads_at_work`` uses them here), changes single heads' outputs before o_proj:
    ``Zero()`` zeroes it; ``Mean()`` replaces it by its mean over the batch, position by position;
    ``Replace(z)`` puts ``z`` (``(n, head_dim)``, or per sequence ``(batch, n, head_dim)``) in its
    place (mean- and resample-ablation over other sequences); ``Patch(k=residual)`` recomputes the
    head with its keys (or queries, values) read from another residual stream of the ids' shape
    (:func:`head_attention`; see :mod:`helpers.heads.patching`).

    By default nothing is changed. ``resume=(layer, residual)`` starts at ``layer`` from the
    residual stream entering it (``keep_inputs=True`` of an earlier run on the same ids), skipping
    the layers below, whose ``weights`` are ``None``: an intervention at layer L cannot change them.
    """
    ids = _id_rows(_model(model), ids)
    keep_inputs, last_only = boolean("keep_inputs", keep_inputs), boolean("last_only", last_only)
    n = ids.shape[-1]
    if caches is not None:
        if ids.ndim == 2:
            raise ValueError(f"caches hold one sequence: ids must be 1-D with caches, got a batch of shape {ids.shape}")
        if not isinstance(caches, (list, tuple)) or len(caches) != len(model.blocks) or not all(
                isinstance(c, LayerCache) for c in caches):
            raise ValueError(f"caches must be a list of {len(model.blocks)} LayerCache objects (one per layer, "
                             f"from new_caches(model)), got {type(caches).__name__} {caches!r:.60}")
        if len({len(c) for c in caches}) > 1:
            raise ValueError("caches must all hold the same number of positions; make fresh ones with new_caches(model)")
    if mask is not None:
        past = len(caches[0]) if caches else 0
        mask = as_mask("mask", mask, [(n, n + past)])
    cfg = model.config
    changes = _interventions(model, interventions, ids.shape)
    rows = _logit_rows(logits_at, n, last_only)
    start, x = ((0, model.embed[ids].astype(np.float64)) if resume is None
                else _resume_point(model, ids.shape, resume))
    d = cfg.head_dim
    weights, inputs = [], []
    for i, block in enumerate(model.blocks):
        if i < start:
            weights.append(None)
            if keep_inputs:
                inputs.append(None)
            continue
        if keep_inputs:
            inputs.append(x)
        h = rms_norm(x, block.attn_norm, model.eps)
        swapped = {head: change.z for head, change in at_layer(changes, i, Replace).items()}
        silenced = {head for (layer, head) in changes if layer == i}
        out, attn = attention_layer(h, block.attention, model.shape, rope_theta=cfg.rope_theta,
                                    cache=None if caches is None else caches[i], mask=mask,
                                    ablate_heads=sorted(silenced) or None)
        for head, change in at_layer(changes, i, Patch).items():
            streams = change.streams()
            run = head_attention(model, i, head, **{f"x_{s}": streams.get(s, x) for s in PROJECTIONS})
            swapped[head] = run.z
            attn[..., head, :, :] = run.weights
        for head in at_layer(changes, i, Mean):
            swapped[head] = head_attention(model, i, head, x).z.mean(axis=0)
        for head, z in swapped.items():  # linear: the head's rows of o_proj applied to its new output
            out = out + z @ block.attention.w_o[head * d:(head + 1) * d]
        x = x + out
        h = rms_norm(x, block.ffn_norm, model.eps).astype(np.float32)  # the MLP runs in float32
        x = x + (silu(h @ block.gate) * (h @ block.up)) @ block.down
        weights.append(attn.astype(np.float32))  # halves the memory of 30 layers of weights
    final = x if keep_inputs else None
    x = rms_norm(x if rows is None else x[..., rows, :], model.final_norm, model.eps)
    logits = x.astype(np.float32) @ model.embed.T
    return ForwardResult(logits, weights, inputs, final)


def _id_rows(model: Model, ids) -> np.ndarray:
    """``ids`` as a 1-D sequence or a ``(batch, n)`` array of token ids (checked)."""
    if isinstance(ids, np.ndarray) and ids.ndim == 2 or (
            isinstance(ids, (list, tuple)) and ids and all(isinstance(r, (list, tuple, np.ndarray)) for r in ids)):
        try:
            raw = asarray_strict(ids)
        except ValueError:
            raw = None
        if raw is None or raw.ndim != 2 or raw.dtype == object:
            raise ValueError(f"ids must be a 1-D sequence of token ids or a (batch, n) array of equal-length "
                             f"sequences, got {type(ids).__name__} of ragged rows")
        if 0 in raw.shape:
            raise ValueError(f"ids must hold at least one sequence of at least one token, got shape {raw.shape}")
        return token_ids("ids", raw.reshape(-1), model.config.vocab_size).reshape(raw.shape)
    return _ids(model, ids)


def _logit_rows(logits_at, n: int, last_only: bool):
    """The positions ``forward`` computes logits at: ``None`` (all), or an index array."""
    if logits_at is None:
        return np.array([n - 1]) if last_only else None
    if last_only:
        raise ValueError("give last_only or logits_at, not both (last_only is logits_at=[n − 1])")
    if isinstance(logits_at, (str, bytes, dict)) or not hasattr(logits_at, "__iter__"):
        raise TypeError(f"logits_at must be a list of positions, got {logits_at!r:.60}")
    rows = [index("logits_at", p, n) for p in logits_at]
    if not rows:
        raise ValueError("logits_at must name at least one position, got none")
    return np.array(rows)


def _interventions(model: Model, interventions, shape: tuple) -> dict:
    """``forward``'s ``interventions`` checked against the model and the ids' ``shape``."""
    cfg = model.config
    checked = check_interventions("interventions", interventions, cfg.num_layers, cfg.num_heads)
    for key, change in checked.items():
        where = f"interventions[{key}]"
        if isinstance(change, Mean) and (len(shape) != 2 or shape[0] < 2):
            raise ValueError(f"{where}: Mean() averages over a batch, so ids must be a (batch ≥ 2, n) array, "
                             f"got shape {shape}")
        if isinstance(change, Replace):
            checked[key] = Replace(_head_output(f"{where}.z", model, change.z, shape))
        if isinstance(change, Patch):
            checked[key] = Patch(**{name: _residual(f"{where}.{name}", model, x, (*shape, cfg.hidden_size))
                                    for name, x in change.streams().items()})
    return checked


def _head_output(name: str, model: Model, z, shape: tuple) -> np.ndarray:
    """A head's output before o_proj put in place of its own: ``(n, head_dim)`` (every sequence) or
    ``(*shape, head_dim)`` (one per sequence), ``shape`` being the ids' shape."""
    z = as_real_array(name, z, keep_float_dtype=True)
    want = (shape[-1], model.config.head_dim)
    if z.shape not in (want, (*shape, model.config.head_dim)):
        raise ValueError(f"{name} must have shape {want} or {(*shape, model.config.head_dim)} (one output "
                         f"vector per position), got {z.shape}")
    return z


def _resume_point(model: Model, shape: tuple, resume) -> tuple:
    """Check ``forward``'s ``resume=(layer, residual)`` argument (``shape`` is the ids' shape)."""
    if not isinstance(resume, tuple) or len(resume) != 2:
        raise TypeError(f"resume must be a (layer, residual) pair, got {type(resume).__name__}")
    layer, residual = resume
    if isinstance(layer, bool) or not isinstance(layer, (int, np.integer)) or not 0 <= layer < model.config.num_layers:
        raise ValueError(f"resume: layer must be an integer in 0…{model.config.num_layers - 1}, got {layer!r}")
    residual = np.asarray(residual)
    if residual.shape != (*shape, model.config.hidden_size):
        raise ValueError(f"resume: residual must have shape {(*shape, model.config.hidden_size)}, got {residual.shape}")
    return int(layer), residual


def new_caches(model: Model) -> list:
    """One empty :class:`helpers.layer.LayerCache` per layer."""
    _model(model)
    return [LayerCache() for _ in model.blocks]



# ---- one head recomputed from its own query / key / value streams (forward's Patch) ----------


def _head(model, layer, head) -> tuple:
    cfg = model.config
    layer = index("layer", layer, cfg.num_layers)
    head = index("head", head, cfg.num_heads)
    return layer, head


def _residual(name: str, model, x, shape=None) -> np.ndarray:
    arr = as_real_array(name, x, ndim=(2, 3), keep_float_dtype=True)
    hidden = model.config.hidden_size
    if arr.shape[-1] != hidden or (shape is not None and arr.shape != shape):
        want = f"(n, {hidden}) or (batch, n, {hidden})" if shape is None else str(shape)
        raise ValueError(f"{name} must be a residual stream of shape {want}, got {arr.shape}")
    return arr


@dataclass
class HeadRun:
    """One head recomputed by :func:`head_attention`: its output ``z`` before o_proj
    ``(…, n, head_dim)``, its ``weights`` ``(…, n, n)`` and the ``q``, ``k``, ``v`` it used (after RoPE)."""

    z: np.ndarray
    weights: np.ndarray
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray

    def __post_init__(self):
        for name in ("z", "weights", "q", "k", "v"):
            setattr(self, name, as_real_array(name, getattr(self, name), ndim=(2, 3), keep_float_dtype=True))


@with_one_blas_thread
def head_attention(model, layer: int, head: int, x_q, x_k=None, x_v=None) -> HeadRun:
    """Query head ``head`` of ``layer`` with its queries read from residual stream ``x_q``, its
    keys from ``x_k`` and its values from ``x_v`` (each ``(n, hidden)`` or ``(batch, n, hidden)``,
    the stream *entering* the layer; ``None`` means ``x_q``). With one stream for all three it is
    exactly that head of :func:`helpers.layer.attention_layer` (to round-off)."""
    model = _model(model)
    layer, head = _head(model, layer, head)
    x_q = _residual("x_q", model, x_q)
    x_k = x_q if x_k is None else _residual("x_k", model, x_k, x_q.shape)
    x_v = x_q if x_v is None else _residual("x_v", model, x_v, x_q.shape)
    cfg, block = model.config, model.blocks[layer]
    d, kv = cfg.head_dim, head // (cfg.num_heads // cfg.num_kv_heads)
    w = block.attention
    positions = np.arange(x_q.shape[-2])

    normed = {}  # one RMSNorm per distinct stream (usually q, k and v read the same one)

    def project(x, weight, cols, rope):
        if id(x) not in normed:
            normed[id(x)] = rms_norm(x, block.attn_norm, model.eps).reshape(-1, cfg.hidden_size)
        rows = normed[id(x)]  # the stream's positions as rows: one 2-D product (BLAS)
        out = (rows @ weight[:, cols * d:(cols + 1) * d].astype(np.float64)).reshape(*x.shape[:-1], d)
        return apply_rope(out[..., None, :], positions, cfg.rope_theta)[..., 0, :] if rope else out

    q, k, v = project(x_q, w.w_q, head, True), project(x_k, w.w_k, kv, True), project(x_v, w.w_v, kv, False)
    z, weights = scaled_dot_product_attention(q, k, v, causal=True)
    return HeadRun(z, weights, q, k, v)
