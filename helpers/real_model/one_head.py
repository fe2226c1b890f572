"""One head of a layer of the real model (``09_real_model``; the seam ``12_heads_at_work`` and
``13_induction_circuit`` work at): what the head reads, what it outputs, what that writes into the
residual stream, and the head recomputed on its own.

A layer of :func:`helpers.real_model.forward` runs all its heads at once (06's
:func:`helpers.layer.attention_layer`). Taken one at a time, query head ``h`` of layer ``l``

- reads the **residual stream** entering the layer, ``(n, hidden)`` or ``(batch, n, hidden)``
  (:func:`residual_stream` checks one), three times: its queries, keys and values are each
  ``RMSNorm(x) @ W`` of it (:func:`head_attention` lets each read its own stream);
- outputs ``z``, ``(…, n, head_dim)``, before o_proj (:func:`head_output` checks one given in
  its place);
- writes ``z @ W_o[its rows]`` into the stream (:func:`head_write`).

:class:`HeadHook` is that head as an intervention of :mod:`helpers.interventions` sees it during a
forward pass (the ``hook`` of ``apply(z, hook)``).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..attention import scaled_dot_product_attention
from ..layer import apply_rope
from ..render.threads import with_one_blas_thread
from ..render.validation import as_real_array, index
from .block import rms_norm
from .model import Model, check_model


def layer_and_head(model: Model, layer, head) -> tuple:
    """``(layer, head)`` checked as indices of ``model``'s layers and query heads."""
    cfg = check_model(model).config
    return index("layer", layer, cfg.num_layers), index("head", head, cfg.num_heads)


def residual_stream(name: str, model: Model, x, shape=None) -> np.ndarray:
    """``x`` checked as a residual stream of ``model``, ``(n, hidden)`` or ``(batch, n, hidden)``
    (exactly ``shape`` when given); ``name`` is the argument as the caller wrote it."""
    arr = as_real_array(name, x, ndim=(2, 3), keep_float_dtype=True)
    hidden = model.config.hidden_size
    if arr.shape[-1] != hidden or (shape is not None and arr.shape != shape):
        want = f"(n, {hidden}) or (batch, n, {hidden})" if shape is None else str(shape)
        raise ValueError(f"{name} must be a residual stream of shape {want}, got {arr.shape}")
    return arr


def head_output(name: str, model: Model, z, shape: tuple) -> np.ndarray:
    """A head's output before o_proj put in place of its own: ``(n, head_dim)`` (every sequence) or
    ``(*shape, head_dim)`` (one per sequence), ``shape`` being the ids' shape; ``name`` is the
    argument as the caller wrote it."""
    z = as_real_array(name, z, keep_float_dtype=True)
    want = (shape[-1], model.config.head_dim)
    if z.shape not in (want, (*shape, model.config.head_dim)):
        raise ValueError(f"{name} must have shape {want} or {(*shape, model.config.head_dim)} (one output "
                         f"vector per position), got {z.shape}")
    return z


def head_write(model: Model, layer: int, head: int, z) -> np.ndarray:
    """What a head adds to the residual stream: its output ``z`` (``(…, n, head_dim)``) times its
    rows of o_proj, ``(…, n, hidden)``."""
    model = check_model(model)
    layer, head = layer_and_head(model, layer, head)
    d = model.config.head_dim
    z = as_real_array("z", z, ndim=(2, 3), keep_float_dtype=True)
    if z.shape[-1] != d:
        raise ValueError(f"z must be a head's output of shape (…, n, {d}), got {z.shape}")
    return z @ model.blocks[layer].attention.w_o[head * d:(head + 1) * d]


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
    model = check_model(model)
    layer, head = layer_and_head(model, layer, head)
    x_q = residual_stream("x_q", model, x_q)
    x_k = x_q if x_k is None else residual_stream("x_k", model, x_k, x_q.shape)
    x_v = x_q if x_v is None else residual_stream("x_v", model, x_v, x_q.shape)
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


@dataclass(frozen=True, eq=False)
class HeadHook:
    """One head of :func:`helpers.real_model.forward` as an intervention sees it (the ``hook`` of
    ``apply(z, hook)``, :mod:`helpers.interventions`). Before the run, for the ids of shape
    ``ids_shape``, it checks what an intervention brings (:meth:`head_output`, :meth:`residual_stream`);
    at ``(layer, head)`` of the run, with the ``stream`` entering the layer and the layer's
    attention ``weights``, it recomputes the head (:meth:`output`, :meth:`rerun`)."""

    model: Model
    ids_shape: tuple
    layer: int | None = None
    head: int | None = None
    stream: np.ndarray | None = None
    weights: np.ndarray | None = None
    #: the argument that holds the sequences, as the forward pass names it
    ids_name = "ids"

    def at(self, layer: int, head: int, stream: np.ndarray, weights: np.ndarray) -> "HeadHook":
        """This hook at query head ``head`` of ``layer``, whose input is ``stream`` and whose
        attention weights (every head's, ``(…, heads, n, n_keys)``) are ``weights``."""
        return replace(self, layer=layer, head=head, stream=stream, weights=weights)

    def head_output(self, name: str, z) -> np.ndarray:
        """``z`` checked as an output this model's heads can give on these ids (:func:`head_output`)."""
        return head_output(name, self.model, z, self.ids_shape)

    def residual_stream(self, name: str, x) -> np.ndarray:
        """``x`` checked as a stream a head can read on these ids (:func:`residual_stream`)."""
        return residual_stream(name, self.model, x, (*self.ids_shape, self.model.config.hidden_size))

    def output(self) -> np.ndarray:
        """The head's own output before o_proj, recomputed from the stream entering its layer."""
        return head_attention(self.model, self.layer, self.head, self.stream).z

    def rerun(self, q=None, k=None, v=None) -> np.ndarray:
        """The head's output with its queries, keys and values read from the streams ``q``, ``k``,
        ``v`` (``None``: the stream entering its layer); the pattern it computes becomes the head's
        pattern in the forward pass's ``weights``."""
        x = self.stream
        run = head_attention(self.model, self.layer, self.head, x_q=x if q is None else q,
                             x_k=x if k is None else k, x_v=x if v is None else v)
        self.weights[..., self.head, :, :] = run.weights
        return run.z
