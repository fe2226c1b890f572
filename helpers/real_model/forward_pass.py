"""The real model's forward pass (``09_real_model``): the series' own attention layer with RMSNorm and a
SwiGLU MLP around it (:mod:`.block`), and single-head interventions (``12_heads_at_work``) at the
head seam of :mod:`.one_head`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..layer import LayerCache, attention_layer
from ..render.threads import with_one_blas_thread
from ..render.validation import as_mask, boolean, index
from ..render.validation import interventions as check_interventions
from .block import mlp, rms_norm
from .model import Model, check_ids, check_model
from .one_head import HeadHook, head_write


@dataclass
class ForwardResult:
    """What :func:`forward` returns: the logits, every layer's attention weights and, with
    ``keep_inputs``, the residual stream entering each layer and leaving the last one.

    One vocabulary for the series' two models: notebook 11's :class:`helpers.circuit.Cache` names
    the same things the same way (and keeps the per-head intermediates too). Names and shapes::

        name             helpers.real_model.forward                helpers.circuit.forward
        logits           (n, vocab) float32; rows at logits_at     (B, n, V)
                         only, if given
        weights          per layer (heads, n, n_keys) float32;     per layer (B, H, n, n)
                         None for a layer resume skipped
        layer_inputs     per layer (n, hidden): the residual       per layer (B, n, D)
                         stream entering it (keep_inputs)
        final_residual   (n, hidden): the stream leaving the       (B, n, D), before W_U
                         last layer, before the final RMSNorm
        q, k, v, z       —                                         per layer (B, H, n, d)

    With ``(batch, n)`` ids every array of the real model gains the batch axis first (``weights``:
    ``(batch, heads, n, n_keys)``); notebook 11's model always has it.
    """

    logits: np.ndarray
    weights: list
    layer_inputs: list
    final_residual: np.ndarray | None = None


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

    ``interventions``, ``{(layer, head): intervention}``, changes single heads' outputs before o_proj.
    This pass knows no kind of change: whatever has ``checked(where, hook)`` and ``apply(z, hook)``
    is one (``hook``, a :class:`~.one_head.HeadHook`, is the head as this pass runs it) — such as
    the words of ``11`` (:mod:`helpers.interventions`), which ``12_heads_at_work`` uses here:
    ``Zero()`` zeroes it; ``Mean()`` replaces it by its mean over the batch, position by position;
    ``Replace(z)`` puts ``z`` (``(n, head_dim)``, or per sequence ``(batch, n, head_dim)``) in its
    place (mean- and resample-ablation over other sequences); ``Patch(k=residual)`` recomputes the
    head with its keys (or queries, values) read from another residual stream of the ids' shape
    (:meth:`~.one_head.HeadHook.rerun`; see :mod:`helpers.heads.patching`).

    By default nothing is changed. ``resume=(layer, residual)`` starts at ``layer`` from the
    residual stream entering it (``keep_inputs=True`` of an earlier run on the same ids), skipping
    the layers below, whose ``weights`` are ``None``: an intervention at layer L cannot change them.
    """
    ids = check_ids(model, ids)
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
    hook = HeadHook(model, ids.shape)
    changes = _interventions(model, interventions, hook)
    rows = _logit_rows(logits_at, n, last_only)
    start, x = ((0, model.embed[ids].astype(np.float64)) if resume is None
                else _resume_point(model, ids.shape, resume))
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
        out, attn = _attention(model, i, h, x, changes.get(i, {}), hook, None if caches is None else caches[i], mask)
        x = x + out
        x = x + mlp(block, rms_norm(x, block.ffn_norm, model.eps))
        weights.append(attn.astype(np.float32))  # halves the memory of 30 layers of weights
    final = x if keep_inputs else None
    x = rms_norm(x if rows is None else x[..., rows, :], model.final_norm, model.eps)
    logits = x.astype(np.float32) @ model.embed.T
    return ForwardResult(logits, weights, inputs, final)


def _attention(model: Model, layer: int, h: np.ndarray, x: np.ndarray, changes: dict, hook: HeadHook, cache,
               mask) -> tuple:
    """Layer ``layer``'s attention on ``h``, the normalized residual stream ``x``: 06's attention
    layer (o_proj included) with every head of ``changes`` (``{head: intervention}``) taken out, and
    each intervention's output for its head written in through that head's rows of o_proj (linear,
    so the same as putting it in place before o_proj). ``(out, weights)``."""
    block = model.blocks[layer]
    out, weights = attention_layer(h, block.attention, model.shape, rope_theta=model.config.rope_theta,
                                   cache=cache, mask=mask, ablate_heads=sorted(changes) or None)
    for head, change in changes.items():
        at = hook.at(layer, head, x, weights)
        out = out + head_write(model, layer, head, change.apply(at.output(), at))
    return out, weights


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


def _interventions(model: Model, interventions, hook: HeadHook) -> dict:
    """``forward``'s ``interventions`` checked, each by its own kind against the model and the ids
    (``hook``): ``{layer: {head: intervention}}``, heads in order."""
    cfg = model.config
    by_layer = {}
    for (layer, head), change in check_interventions("interventions", interventions, cfg.num_layers,
                                                     cfg.num_heads).items():
        by_layer.setdefault(layer, {})[head] = change.checked(f"interventions[{(layer, head)}]", hook)
    return by_layer


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
    check_model(model)
    return [LayerCache() for _ in model.blocks]
