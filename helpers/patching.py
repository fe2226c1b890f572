"""Patching one head's inputs: which path carries a head's influence (``11_heads_at_work``).

A head reads the residual stream three times: its queries, its keys and its values are each
``RMSNorm(x) @ W`` of the same ``x``. Patching gives each of the three its own ``x``: e.g. the keys
read a stream from which an earlier head's contribution was removed while the queries and values
read the clean one. If the head's pattern breaks only when its *keys* lose the earlier head, the
two compose through the keys — **K-composition**; likewise Q- and V-composition (Elhage et al.
2021, "A Mathematical Framework for Transformer Circuits").

:func:`head_attention` recomputes one query head from three residual streams (RMSNorm, its
columns of W_q, its KV head's columns of W_k and W_v, RoPE, causal softmax);
:func:`helpers.real_model.forward`'s ``patch`` switch puts the result in place of that head and
runs the rest of the model unchanged. :func:`head_write` is what a head adds to the residual
stream (its output through its rows of o_proj), the contribution that :func:`composition`
removes from a receiver's input.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .attention import scaled_dot_product_attention
from .layer import apply_rope
from .threads import with_one_blas_thread
from .validation import as_real_array, head_pairs, index, instance, one_of

#: the three inputs of a head that can be patched
INPUTS = ("q", "k", "v")


def _model(model):
    from .real_model import Model

    return instance("model", model, Model, "helpers.real_model.Model (from load_model)")


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
    from .real_model import rms_norm

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


def head_write(model, layer: int, head: int, z) -> np.ndarray:
    """What a head adds to the residual stream: its output ``z`` (``(…, n, head_dim)``) times its
    rows of o_proj, ``(…, n, hidden)``."""
    model = _model(model)
    layer, head = _head(model, layer, head)
    d = model.config.head_dim
    z = as_real_array("z", z, ndim=(2, 3), keep_float_dtype=True)
    if z.shape[-1] != d:
        raise ValueError(f"z must be a head's output of shape (…, n, {d}), got {z.shape}")
    return z @ model.blocks[layer].attention.w_o[head * d:(head + 1) * d]


def check_patch(model, patch, shape: tuple) -> dict:
    """``forward``'s ``patch={(layer, head): {"q"|"k"|"v": residual}}`` checked; ``shape`` is the
    ids' shape, each residual must be ``(*shape, hidden)``."""
    model = _model(model)
    if not isinstance(patch, dict):
        raise TypeError(f"patch must be a dict {{(layer, head): {{'k': residual, …}}}}, got {type(patch).__name__}")
    cfg = model.config
    checked = {}
    for key, spec in patch.items():
        (layer, (head,)), = head_pairs("patch", [key], cfg.num_layers, cfg.num_heads).items()
        if not isinstance(spec, dict) or not spec or not set(spec) <= set(INPUTS):
            raise ValueError(f"patch[{key}] must be a dict with some of the keys {INPUTS} (the inputs to patch), "
                             f"got {spec!r:.80}")
        checked[(layer, head)] = {name: _residual(f"patch[{key}][{name!r}]", model, x, (*shape, cfg.hidden_size))
                                  for name, x in spec.items()}
    return checked


#: what "the sender removed" means for the receiver's input: its direct write subtracted, or
#: the whole residual stream of a run with the sender removed (its later effects included)
PATHS = ("direct", "total")


def composition(model, ids, layer_inputs, sender, receiver, *, inputs=(("q",), ("k",), ("v",), INPUTS),
                replacement=None, path: str = "direct", loss_positions=None) -> list:
    """The composition test: ``sender`` removed from ``receiver``'s input ``inputs`` only.

    ``ids`` ``(batch, n)`` and ``layer_inputs`` (the clean run's residual stream entering every
    layer, ``forward(..., keep_inputs=True).layer_inputs``) describe the clean run. For each tuple
    in ``inputs`` the receiver's queries/keys/values named there read a stream without the sender;
    everything else, the receiver's other inputs included, stays clean (the model is resumed at
    the receiver's layer). ``path="direct"``: that stream is ``x − write(sender)``, only the
    sender's direct path into the receiver's layer removed; ``"total"``: the stream entering the
    receiver's layer in a run with the sender removed (also what the sender changed in the layers
    between). The sender is removed by zeroing its output, or by putting ``replacement`` (e.g. its
    mean output, ``(n, head_dim)`` or ``(batch, n, head_dim)``) in its place.
    Returns one dict per entry: ``"inputs"``, ``"weights"`` (the receiver's pattern, ``(batch, n,
    n)``) and ``"losses"`` (``(batch, rows)``, next-token losses at ``loss_positions``, default all).
    """
    from . import real_model

    model = _model(model)
    ids = real_model._id_rows(model, ids)
    if ids.ndim != 2:
        raise ValueError(f"ids must be a (batch, n) array of sequences, got shape {ids.shape}")
    (s_layer, (s_head,)), = head_pairs("sender", [sender], model.config.num_layers, model.config.num_heads).items()
    (r_layer, (r_head,)), = head_pairs("receiver", [receiver], model.config.num_layers, model.config.num_heads).items()
    if s_layer >= r_layer:
        raise ValueError(f"sender must sit in an earlier layer than receiver (information flows upwards), "
                         f"got sender {sender} and receiver {receiver}")
    if not isinstance(layer_inputs, (list, tuple)) or len(layer_inputs) != model.config.num_layers:
        raise TypeError(f"layer_inputs must be the list of {model.config.num_layers} residual streams from "
                        f"forward(..., keep_inputs=True), got {type(layer_inputs).__name__}")
    shape = (*ids.shape, model.config.hidden_size)
    x_s = _residual("layer_inputs[sender layer]", model, layer_inputs[s_layer], shape)
    x_r = _residual("layer_inputs[receiver layer]", model, layer_inputs[r_layer], shape)
    if isinstance(inputs, (str, bytes)) or not hasattr(inputs, "__iter__"):
        raise TypeError(f"inputs must be a list of tuples of {INPUTS}, got {inputs!r}")
    inputs = [tuple(group) for group in inputs]
    if not inputs or any(not group or not set(group) <= set(INPUTS) for group in inputs):
        raise ValueError(f"inputs must be a non-empty list of non-empty tuples of {INPUTS}, got {inputs!r}")
    path = one_of("path", path, PATHS)
    if path == "direct":
        write = head_write(model, s_layer, s_head, head_attention(model, s_layer, s_head, x_s).z)
        if replacement is not None:
            write = write - head_write(model, s_layer, s_head, replacement)
        removed = x_r - write
    else:
        switch = ({"ablate": [(s_layer, s_head)]} if replacement is None
                  else {"replace": {(s_layer, s_head): replacement}})
        removed = real_model.forward(model, ids, resume=(s_layer, x_s), keep_inputs=True, logits_at=[0],
                                     **switch).layer_inputs[r_layer]
    rows = None if loss_positions is None else list(loss_positions)
    results = []
    for group in inputs:
        run = real_model.forward(model, ids, resume=(r_layer, x_r), logits_at=rows,
                                 patch={(r_layer, r_head): {name: removed for name in group}})
        results.append({"inputs": group, "weights": run.weights[r_layer][:, r_head],
                        "losses": real_model.next_token_losses(run.logits, ids, positions=rows)})
    return results


def composition_screen(model, layer_inputs, sender, *, replacement=None) -> dict:
    """Which later heads read ``sender``, and through which input: for every head of every later
    layer, its pattern and output recomputed with the sender's direct write removed from its
    queries only, keys only, values only (``replacement`` as in :func:`composition`). Nothing
    is rerun above: this is each receiver's first-order dependence, cheap enough for all heads.

    Returns ``{"pattern": (layers, heads, 3), "output": (layers, heads, 3)}`` for the inputs
    ``q, k, v``: the mean total-variation distance between the receiver's clean and patched
    attention rows (0 = the same pattern, 1 = disjoint), and ``‖Δz‖ / ‖z‖``, the relative change of
    its output. Layers up to the sender's hold 0 (nothing there can read it)."""
    model = _model(model)
    cfg = model.config
    (s_layer, (s_head,)), = head_pairs("sender", [sender], cfg.num_layers, cfg.num_heads).items()
    if not isinstance(layer_inputs, (list, tuple)) or len(layer_inputs) != cfg.num_layers:
        raise TypeError(f"layer_inputs must be the list of {cfg.num_layers} residual streams from "
                        f"forward(..., keep_inputs=True), got {type(layer_inputs).__name__}")
    x_s = _residual("layer_inputs[sender layer]", model, layer_inputs[s_layer])
    write = head_write(model, s_layer, s_head, head_attention(model, s_layer, s_head, x_s).z)
    if replacement is not None:
        write = write - head_write(model, s_layer, s_head, replacement)
    pattern = np.zeros((cfg.num_layers, cfg.num_heads, len(INPUTS)))
    output = np.zeros_like(pattern)
    for layer in range(s_layer + 1, cfg.num_layers):
        x = _residual(f"layer_inputs[{layer}]", model, layer_inputs[layer], x_s.shape)
        removed = x - write
        for head in range(cfg.num_heads):
            base = head_attention(model, layer, head, x)
            norm = np.sqrt(np.sum(base.z ** 2)) or 1.0
            for j, name in enumerate(INPUTS):
                streams = {f"x_{c}": removed if c == name else x for c in INPUTS}
                run = head_attention(model, layer, head, **streams)
                pattern[layer, head, j] = 0.5 * np.abs(run.weights - base.weights).sum(axis=-1).mean()
                output[layer, head, j] = np.sqrt(np.sum((run.z - base.z) ** 2)) / norm
    return {"pattern": pattern, "output": output}
