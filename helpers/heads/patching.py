"""Patching one head's inputs: which path carries a head's influence (``12_heads_at_work``).

A head reads the residual stream three times: its queries, its keys and its values are each
``RMSNorm(x) @ W`` of the same ``x``. Patching gives each of the three its own ``x``: e.g. the keys
read a stream from which an earlier head's contribution was removed while the queries and values
read the clean one. If the head's pattern breaks only when its *keys* lose the earlier head, the
two compose through the keys — **K-composition**; likewise Q- and V-composition (Elhage et al.
2021, "A Mathematical Framework for Transformer Circuits").

The real model's head seam does the work (:mod:`helpers.real_model.one_head`):
:func:`helpers.real_model.head_attention` recomputes one query head from three residual streams
(RMSNorm, its columns of W_q, its KV head's columns of W_k and W_v, RoPE, causal softmax);
:func:`helpers.real_model.forward` with ``interventions={(layer, head): Patch(k=…)}`` puts the
result in place of that head and runs the rest of the model unchanged; :func:`head_write` (re-exported
from there) is what a head adds to the residual stream (its output through its rows of o_proj),
the contribution that :func:`composition` removes from a receiver's input.
"""
from __future__ import annotations

import numpy as np

from .. import real_model
from ..interventions import PROJECTIONS as INPUTS
from ..interventions import Patch, Replace, Zero

# forward's own checks of a model, its ids, a residual stream and a head's output, so that an array
# handed to these functions means what it means to forward
from ..real_model import check_ids, check_model, head_attention, head_output, head_write, residual_stream
from ..render.validation import (
    as_real_array,
    attention_rows,
    entries,
    head_pair,
    one_of,
    positions,
    short_preview,
)

__all__ = ["INPUTS", "head_write", "PATHS", "composition", "composition_screen", "pattern_change",
           "receiver_pattern", "sender_screen"]


def _sender_write(model, x_s, s_layer: int, s_head: int, replacement):
    """What removing the sender takes out of the stream: its write, or its write minus the write of
    ``replacement`` (e.g. its mean output) when it is replaced rather than zeroed."""
    if replacement is not None:
        replacement = head_output("replacement", model, replacement, x_s.shape[:-1])
    write = head_write(model, s_layer, s_head, head_attention(model, s_layer, s_head, x_s).z)
    return write if replacement is None else write - head_write(model, s_layer, s_head, replacement)


def _layer_inputs(model, layer_inputs, shape=None) -> list:
    """The clean run's residual streams entering every layer, each checked (``shape``: the ids'
    shape, or ``None`` to take the first stream's)."""
    cfg = model.config
    if not isinstance(layer_inputs, (list, tuple)) or len(layer_inputs) != cfg.num_layers:
        raise TypeError(f"layer_inputs must be the list of {cfg.num_layers} residual streams from "
                        f"forward(..., keep_inputs=True), got {type(layer_inputs).__name__}")
    want = None if shape is None else (*shape, cfg.hidden_size)
    out = []
    for i, x in enumerate(layer_inputs):
        out.append(residual_stream(f"layer_inputs[{i}]", model, x, want))
        want = out[0].shape
    return out


def _input_names(inputs) -> list:
    """``inputs`` checked as a non-empty tuple of names from :data:`INPUTS` (e.g. ``("k",)``)."""
    picked = [] if isinstance(inputs, str) else entries("inputs", inputs, f"names of {INPUTS}", limit=len(INPUTS))
    if not picked or not all(isinstance(c, str) and c in INPUTS for c in picked):
        raise ValueError(f"inputs must be a non-empty tuple of {INPUTS}, got {short_preview(inputs)}")
    return picked


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
    model = check_model(model)
    ids = check_ids(model, ids)
    if ids.ndim != 2:
        raise ValueError(f"ids must be a (batch, n) array of sequences, got shape {ids.shape}")
    s_layer, s_head = head_pair("sender", sender, model.config.num_layers, model.config.num_heads)
    r_layer, r_head = head_pair("receiver", receiver, model.config.num_layers, model.config.num_heads)
    if s_layer >= r_layer:
        raise ValueError(f"sender must sit in an earlier layer than receiver (information flows upwards), "
                         f"got sender {sender} and receiver {receiver}")
    streams = _layer_inputs(model, layer_inputs, ids.shape)
    x_s, x_r = streams[s_layer], streams[r_layer]
    groups = entries("inputs", inputs, f"tuples of {INPUTS}", limit=16)
    if any(isinstance(g, (str, bytes, dict)) or not isinstance(g, (tuple, list)) for g in groups):
        raise TypeError(f"inputs must be a list of tuples of {INPUTS}, got {short_preview(inputs)}")
    inputs = [tuple(group) for group in groups]
    if not inputs or any(not group or not all(isinstance(c, str) and c in INPUTS for c in group) for group in inputs):
        raise ValueError(f"inputs must be a non-empty list of non-empty tuples of {INPUTS}, got {short_preview(inputs)}")
    path = one_of("path", path, PATHS)
    rows = None if loss_positions is None else positions("loss_positions", loss_positions, ids.shape[1] - 1)
    if path == "direct":
        removed = x_r - _sender_write(model, x_s, s_layer, s_head, replacement)
    else:
        change = Zero() if replacement is None else Replace(replacement)
        removed = real_model.forward(model, ids, resume=(s_layer, x_s), keep_inputs=True, logits_at=[0],
                                     interventions={(s_layer, s_head): change}).layer_inputs[r_layer]
    results = []
    for group in inputs:
        run = real_model.forward(model, ids, resume=(r_layer, x_r), logits_at=rows,
                                 interventions={(r_layer, r_head): Patch(**{name: removed for name in group})})
        results.append({"inputs": group, "weights": run.weights[r_layer][:, r_head],
                        "losses": real_model.next_token_losses(run.logits, ids, positions=rows)})
    return results


def pattern_change(a, b, queries=None) -> np.ndarray:
    """How far pattern ``b`` moved from pattern ``a`` (both ``(…, n, n)``, rows = queries, each a
    distribution over keys): the total-variation distance ``½ Σ_j |a[i, j] − b[i, j]|`` of each
    query row ``i`` (the share of the weight that has to move), averaged over ``queries`` (positions;
    default every row) → ``(…)``. 0: the same pattern; 1: no key in common. Each row of ``a`` and
    ``b`` must be weights in [0, 1] summing to 1 (to float32 round-off; the result is clipped to
    [0, 1] so that round-off never shows as 1.0000001)."""
    a = attention_rows("a", a)
    b = attention_rows("b", b)
    if a.shape != b.shape:
        raise ValueError(f"a and b must be attention patterns of the same shape (…, n, n), got {a.shape} and {b.shape}")
    rows = np.arange(a.shape[-1]) if queries is None else positions("queries", queries, a.shape[-1])
    return np.clip(0.5 * np.abs(b[..., rows, :] - a[..., rows, :]).sum(axis=-1).mean(axis=-1), 0.0, 1.0)


def receiver_pattern(model, layer_inputs, sender, receiver, *, inputs=("k",), replacement=None) -> np.ndarray:
    """``receiver``'s attention pattern, ``(batch, n, n)``, with ``sender``'s direct write removed from
    the inputs named in ``inputs`` (of ``q, k, v``) only — the ``"weights"`` of :func:`composition`
    (``path="direct"``) without running the layers above: a head's own pattern depends only on the
    stream entering its layer. ``replacement`` as in :func:`composition`."""
    model = check_model(model)
    cfg = model.config
    s_layer, s_head = head_pair("sender", sender, cfg.num_layers, cfg.num_heads)
    r_layer, r_head = head_pair("receiver", receiver, cfg.num_layers, cfg.num_heads)
    if s_layer >= r_layer:
        raise ValueError(f"sender must sit in an earlier layer than receiver (information flows upwards), "
                         f"got sender {sender} and receiver {receiver}")
    streams = _layer_inputs(model, layer_inputs)
    picked = _input_names(inputs)
    x_s, x = streams[s_layer], streams[r_layer]
    removed = x - _sender_write(model, x_s, s_layer, s_head, replacement)
    return head_attention(model, r_layer, r_head, **{f"x_{c}": removed if c in picked else x for c in INPUTS}).weights


def composition_screen(model, layer_inputs, sender, *, replacement=None, queries=None) -> dict:
    """Which later heads read ``sender``, and through which input: for every head of every later
    layer, its pattern and output recomputed with the sender's direct write removed from its
    queries only, keys only, values only (``replacement`` as in :func:`composition`). Nothing
    is rerun above: this is each receiver's first-order dependence, cheap enough for all heads.

    Returns ``{"pattern": (layers, heads, 3), "output": (layers, heads, 3)}`` for the inputs
    ``q, k, v``: the mean total-variation distance between the receiver's clean and patched
    attention rows (0 = the same pattern, 1 = disjoint), and ``‖Δz‖ / ‖z‖``, the relative change of
    its output. Layers up to the sender's hold 0 (nothing there can read it). ``queries`` (positions)
    restricts the mean distance to those query rows (e.g. a repeated sequence's second copy, where
    an induction head's rows can change); default every row."""
    model = check_model(model)
    cfg = model.config
    s_layer, s_head = head_pair("sender", sender, cfg.num_layers, cfg.num_heads)
    clean = _layer_inputs(model, layer_inputs)
    x_s = clean[s_layer]
    write = _sender_write(model, x_s, s_layer, s_head, replacement)
    if queries is not None:
        positions("queries", queries, x_s.shape[-2])  # checked before the work
    pattern = np.zeros((cfg.num_layers, cfg.num_heads, len(INPUTS)))
    output = np.zeros_like(pattern)
    for layer in range(s_layer + 1, cfg.num_layers):
        x = clean[layer]
        removed = x - write
        for head in range(cfg.num_heads):
            base = head_attention(model, layer, head, x)
            norm = np.sqrt(np.sum(base.z ** 2)) or 1.0
            for j, name in enumerate(INPUTS):
                streams = {f"x_{c}": removed if c == name else x for c in INPUTS}
                run = head_attention(model, layer, head, **streams)
                pattern[layer, head, j] = pattern_change(base.weights, run.weights, queries).mean()
                output[layer, head, j] = np.sqrt(np.sum((run.z - base.z) ** 2)) / norm
    return {"pattern": pattern, "output": output}


def sender_screen(model, layer_inputs, receiver, *, inputs=("k",), replacements=None) -> np.ndarray:
    """Which earlier head ``receiver`` reads, and through which input: the reverse of
    :func:`composition_screen`. For every head of every layer below the receiver's, the receiver's
    pattern recomputed with that head's direct write removed from the inputs named in ``inputs``
    (of ``q, k, v``) only, as :func:`receiver_pattern` does for one sender.

    ``replacements``: ``None`` zeroes each sender; an array ``(layers ≥ receiver's layer, heads, n,
    head_dim)`` puts ``replacements[layer, head]`` (e.g. each head's mean output) in its place.
    Returns the patterns ``(receiver's layer, heads, batch, n, n)``: entry ``[l, h]`` has sender
    ``(l, h)`` removed. Each layer's senders go through the receiver as one batch, so the whole
    screen costs about as much as a few heads done one by one."""
    model = check_model(model)
    cfg = model.config
    r_layer, r_head = head_pair("receiver", receiver, cfg.num_layers, cfg.num_heads)
    if r_layer == 0:
        raise ValueError(f"receiver must sit above layer 0 (its senders are the heads below it), got {receiver}")
    streams = _layer_inputs(model, layer_inputs)
    picked = _input_names(inputs)
    x = streams[r_layer]
    if x.ndim == 2:
        x = x[None]
    batch, n = x.shape[:2]
    if replacements is not None:
        replacements = as_real_array("replacements", replacements, ndim=4, keep_float_dtype=True)
        want = (cfg.num_heads, n, cfg.head_dim)
        if replacements.shape[0] < r_layer or replacements.shape[1:] != want:
            raise ValueError(f"replacements must be one output per head of the layers below the receiver, "
                             f"shape ({r_layer} or more, {', '.join(map(str, want))}), got {replacements.shape}")
    out = np.empty((r_layer, cfg.num_heads, batch, n, n))
    clean = np.broadcast_to(x, (cfg.num_heads, batch, n, cfg.hidden_size)).reshape(-1, n, cfg.hidden_size)
    for layer in range(r_layer):
        x_s = streams[layer].reshape(batch, n, cfg.hidden_size)
        writes = np.stack([_sender_write(model, x_s, layer, h, None if replacements is None else replacements[layer, h])
                           for h in range(cfg.num_heads)])
        removed = (x[None] - writes).reshape(-1, n, cfg.hidden_size)
        run = head_attention(model, r_layer, r_head, **{f"x_{c}": removed if c in picked else clean for c in INPUTS})
        out[layer] = run.weights.reshape(cfg.num_heads, batch, n, n)
    return out
