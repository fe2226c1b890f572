"""Direct logit attribution: how much one head's output, by itself, raises a token's logit (``12_heads_at_work``).

The logits are ``RMSNorm(x_final) @ Eᵀ = (x_final / rms(x_final)) · g @ Eᵀ``: ``x_final`` is the
residual stream leaving the last layer, the sum of the embedding and of everything every head
and MLP wrote into it. A head writes ``o = z @ W_o[its rows]``. Freezing the final norm's scale
``1/rms(x_final)`` at the clean run's value (the standard choice: the norm is then linear, and
the logits are the sum of each writer's share) the head's *direct* share of the logit of token
``t`` at a position is ``(o / rms) · g · (E[t] − mean_v E[v])``. The vocabulary mean is taken out
because a shift common to every logit changes no probability. "Direct": what the head's output
does through the unembedding alone, not through later layers that read it.

Induction heads attend, on the second copy, to the token after the first occurrence of the
current one, i.e. to the correct next token: if they copy it, their direct share of *its* logit
is large (Olsson et al. 2022 call this the copying half of an induction head).

:func:`direct_path_losses` turns the same direct path into a loss: the head's write is taken out
of the final residual stream only (the norm's scale still frozen, nothing upstream rerun), the
softmax recomputed over the whole vocabulary. Minus the clean run's losses, it is what the direct
path does to the loss — the target's logit *and* every competitor's — to set beside a full ablation.
"""
from __future__ import annotations

import numpy as np

from ..attention import target_loss
from ..real_model import check_ids, check_model, head_attention, head_write
from ..render.threads import with_one_blas_thread
from ..render.validation import as_real_array, head_pair, magnitude_bound, max_abs, token_ids
from ..render.validation import positions as check_positions
from .patching import _layer_inputs


def centred_unembedding(model, tokens) -> np.ndarray:
    """``E[t] − mean_v E[v]`` for each token id in ``tokens`` (any shape) → ``(*shape, hidden)``."""
    model = check_model(model)
    tokens = np.asarray(tokens)
    flat = token_ids("tokens", tokens.reshape(-1), model.config.vocab_size)
    mean = model.embed.mean(axis=0, dtype=np.float64)
    return (model.embed[flat].astype(np.float64) - mean).reshape(*tokens.shape, model.config.hidden_size)


def frozen_scale(model, final_residual) -> np.ndarray:
    """The final norm's per-position factor ``1/rms(x_final)`` of the clean run, ``(…, n)``."""
    model = check_model(model)
    x = as_real_array("final_residual", final_residual, ndim=(2, 3), keep_float_dtype=True)
    if x.shape[-1] != model.config.hidden_size:
        raise ValueError(f"final_residual must be (…, n, {model.config.hidden_size}), got {x.shape}")
    top = max_abs(x)   # the mean square must not overflow (a silent 1/rms of 0 makes every logit equal)
    magnitude_bound("final_residual", top, top, x.shape[-1], limit=1e300)
    return 1.0 / np.sqrt(np.mean(np.square(x, dtype=np.float64), axis=-1) + model.eps)


def _clean_run(model, ids, layer_inputs, final_residual, positions):
    """The checked arguments both direct-path readings share: ``(model, ids (batch, n), the layer
    inputs, positions as int64, the final norm's frozen scale (batch, n))``."""
    model = check_model(model)
    ids = check_ids(model, ids)
    if ids.ndim != 2:
        raise ValueError(f"ids must be a (batch, n) array of sequences, got shape {ids.shape}")
    streams = _layer_inputs(model, layer_inputs, ids.shape)
    pos = check_positions("positions", positions, ids.shape[1] - 1)
    scale = frozen_scale(model, final_residual)
    if scale.shape != ids.shape:
        raise ValueError(f"final_residual must cover the ids {ids.shape}, got {np.shape(final_residual)}")
    return model, ids, streams, pos, scale


@with_one_blas_thread
def head_logit_attribution(model, ids, layer_inputs, final_residual, positions) -> np.ndarray:
    """Every head's direct share of the logit of the **next token** at each of ``positions``.

    ``ids`` ``(batch, n)``; ``layer_inputs`` and ``final_residual`` from the clean run
    (``forward(..., keep_inputs=True)``). At position ``i`` the target is ``ids[i + 1]`` (on the
    second copy of a repeated sequence: the token an induction head attends to). Returns
    ``(batch, layers, heads, len(positions))`` in logit units (nats of log-odds)."""
    model, ids, layer_inputs, pos, scale = _clean_run(model, ids, layer_inputs, final_residual, positions)
    cfg = model.config
    # what one unit written into the stream adds to the target's centred logit, per position
    reader = centred_unembedding(model, ids[:, pos + 1]) * model.final_norm * scale[:, pos, None]  # (b, P, hidden)
    out = np.empty((len(ids), cfg.num_layers, cfg.num_heads, len(pos)))
    for layer in range(cfg.num_layers):
        for head in range(cfg.num_heads):
            z = head_attention(model, layer, head, layer_inputs[layer]).z[:, pos]
            out[:, layer, head] = np.sum(head_write(model, layer, head, z) * reader, axis=-1)
    return out


@with_one_blas_thread  # like head_logit_attribution: one core, no waiting on a second BLAS thread
def direct_path_losses(model, ids, layer_inputs, final_residual, head, positions) -> np.ndarray:
    """The next-token loss at each of ``positions`` with ``head``'s write (``(layer, head)``)
    removed from the **final** residual stream only: the final norm's scale frozen at the clean
    run's, the later layers not rerun (they keep reading the head), ``−log softmax`` over the whole
    vocabulary. ``(batch, len(positions))`` in nats; minus the clean run's losses at the same
    positions (``next_token_losses``) it is the loss change due to the head's direct path alone
    (the frozen norm reproduces the clean losses). Arguments as in :func:`head_logit_attribution`."""
    model, ids, layer_inputs, pos, scale = _clean_run(model, ids, layer_inputs, final_residual, positions)
    cfg = model.config
    layer, h = head_pair("head", head, cfg.num_layers, cfg.num_heads)
    x = np.asarray(final_residual, dtype=np.float64)[:, pos]
    write = head_write(model, layer, h, head_attention(model, layer, h, layer_inputs[layer]).z[:, pos])
    targets = ids[:, pos + 1]

    logits = ((x - write) * scale[:, pos, None] * model.final_norm).astype(np.float32) @ model.embed.T
    return target_loss(logits, targets)


@with_one_blas_thread  # like head_logit_attribution: one core, no waiting on a second BLAS thread
def direct_logit_shift(model, ids, layer_inputs, final_residual, head, positions) -> dict:
    """What ``head``'s direct write does to **every** logit at each of ``positions`` (the final norm's
    scale frozen at the clean run's, as in :func:`head_logit_attribution`), summed up four ways:

    - ``"target"`` ``(batch, len(positions))``: the raw change of the next token's logit;
    - ``"mean"``: the change of the vocabulary's mean logit (``target − mean`` is the centred share
      :func:`head_logit_attribution` gives);
    - ``"expected"``: the change averaged with the clean run's probabilities. ``−log p(target) =
      logsumexp(logits) − logit(target)``, and a small change ``Δ`` of the logits moves ``logsumexp`` by
      ``Σ_v p_v Δ_v``: to first order the write adds ``expected − target`` to the loss. The vocabulary's
      mean weighs every token alike; the loss weighs the tokens the model finds likely;
    - ``"tokens"`` ``(vocab,)``: each token's raw change, averaged over the sequences and positions.

    Arguments as in :func:`head_logit_attribution`."""
    model, ids, layer_inputs, pos, scale = _clean_run(model, ids, layer_inputs, final_residual, positions)
    cfg = model.config
    layer, h = head_pair("head", head, cfg.num_layers, cfg.num_heads)
    write = head_write(model, layer, h, head_attention(model, layer, h, layer_inputs[layer]).z[:, pos])
    x = np.asarray(final_residual, dtype=np.float64)[:, pos]
    shape = (len(ids), len(pos))
    out = {"target": np.empty(shape), "mean": np.empty(shape), "expected": np.empty(shape),
           "tokens": np.zeros(cfg.vocab_size)}
    for b in range(len(ids)):  # one sequence at a time: (positions, vocab) logits, not the batch's
        reads = scale[b, pos, None] * model.final_norm
        shift = ((write[b] * reads).astype(np.float32) @ model.embed.T).astype(np.float64)
        logits = ((x[b] * reads).astype(np.float32) @ model.embed.T).astype(np.float64)
        p = np.exp(logits - logits.max(axis=-1, keepdims=True))
        p /= p.sum(axis=-1, keepdims=True)
        out["target"][b] = shift[np.arange(len(pos)), ids[b, pos + 1]]
        out["mean"][b] = shift.mean(axis=-1)
        out["expected"][b] = np.sum(p * shift, axis=-1)
        out["tokens"] += shift.sum(axis=0)
    out["tokens"] /= shape[0] * shape[1]
    return out
