"""``11_learning_a_circuit``'s two-layer attention-only model with either attention core, its gradient by
hand (``15_fixed_state``).

The model is :mod:`helpers.circuit`'s — the same :class:`~helpers.circuit.Config`, the same parameters
(``init_model``), positions added to the queries' and keys' inputs — with one choice more, ``kind``:

- ``"softmax"``: each head's weights are ``softmax(q·k/√d + causal)``, exactly
  :func:`helpers.circuit.forward` (the tests hold the two to rounding);
- ``"linear"``: ``φ(q_i)·φ(k_j) / Σ_{j'≤i} φ(q_i)·φ(k_j')`` with ``φ = elu + 1``
  (:mod:`helpers.linear_attention.forms`, computed in its parallel form to train).

``shift=True`` adds a *short convolution* of width 2, as linear-attention models carry one (Qwen3-Next's
Gated DeltaNet convolves over 4 tokens): an extra table ``W_P`` whose row for the previous token is
added to the residual stream, ``x₀[i] = W_E[t_i] + W_P[t_{i−1}]``. It hands every position "the token
before me" without a previous-token head, so a model can find the earlier copy in one layer.

:func:`backward` is :func:`helpers.circuit.backprop.gradients` with the core's own step 5 (for the
linear core ``A = S / Σ S`` with ``S = φ(Q)φ(K)ᵀ`` masked); ``W_P`` collects the gradient of the
positions after each token.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..attention import causal_mask
from ..circuit.backprop import gradients, softmax_scores_backward
from ..circuit.model import Cache as CircuitCache
from ..circuit.model import Config, head_projection, init_model, merge_heads
from ..render.validation import boolean, choice, quiet_overflow
from ..render.validation import seed as check_seed
from .forms import feature_map

KINDS = ("softmax", "linear")


def _phi_slope(x: np.ndarray) -> np.ndarray:
    """The derivative of ``elu(x) + 1``: 1 for ``x > 0``, ``e^x`` otherwise."""
    return np.where(x > 0, 1.0, np.exp(np.minimum(x, 0.0)))


def init(config: Config, seed: int, *, shift: bool = False) -> dict:
    """``helpers.circuit.init_model(config, seed)``'s parameters (the same numbers), plus ``W_P``
    ``(vocab, d_model)`` N(0, 1) like ``W_E`` when ``shift``."""
    params = dict(init_model(config, seed).params)
    if boolean("shift", shift):
        params["W_P"] = np.random.default_rng([check_seed("seed", seed), 15]).standard_normal((config.vocab, config.d_model))
    return params


@dataclass
class Cache(CircuitCache):
    """:class:`helpers.circuit.Cache` (every intermediate, named alike), plus ``sums[l]``: the linear
    core's row sums ``Σ φq·φk`` ``(B, H, n, 1)`` (``None`` for softmax), which its gradient divides by."""

    sums: list = field(default_factory=list)


def forward(params: dict, config: Config, tokens: np.ndarray, kind: str) -> Cache:
    """The model on ``tokens`` ``(B, n)`` (checked ids) with attention core ``kind``; ``W_P`` in
    ``params`` switches the short convolution on."""
    kind = choice("kind", kind, KINDS)
    b, n = tokens.shape
    d_model, h, dh = config.d_model, config.heads, config.d_head
    cache = Cache(config, tokens, params)
    x = params["W_E"][tokens] + (params["W_pos"][:n] if config.positions == "residual" else 0.0)
    if "W_P" in params:
        x = x.copy()
        x[:, 1:] += params["W_P"][tokens[:, :-1]]
    mask, lower = causal_mask(n), np.tril(np.ones((n, n)))
    with quiet_overflow():
        for layer in range(config.layers):
            cache.layer_inputs.append(x)
            q, k, v = (head_projection(x, params, config, layer, name) for name in ("q", "k", "v"))
            if kind == "softmax":
                scores = q @ np.swapaxes(k, -1, -2)
                scores *= 1.0 / np.sqrt(dh)
                scores += mask
                scores -= scores.max(axis=-1, keepdims=True)
                weights = np.exp(scores)
                weights /= weights.sum(axis=-1, keepdims=True)
                cache.sums.append(None)
            else:
                table = (feature_map(q) @ np.swapaxes(feature_map(k), -1, -2)) * lower
                sums = table.sum(axis=-1, keepdims=True)
                weights = table / sums
                cache.sums.append(sums)
            z = weights @ v
            for name, value in (("q", q), ("k", k), ("v", v), ("weights", weights), ("z", z)):
                getattr(cache, name).append(value)
            x = x + (merge_heads(z) @ params["W_O"][layer].reshape(h * dh, d_model)).reshape(b, n, d_model)
        cache.final_residual = x
        cache.logits = x @ params["W_U"]
    return cache


def backward(params: dict, config: Config, cache: Cache, kind: str) -> dict:
    """Gradients of the mean next-token loss over every entry (:func:`forward`'s ``cache``):
    :func:`helpers.circuit.backprop.gradients` with this core's step 5, plus ``W_P``'s rows."""
    kind = choice("kind", kind, KINDS)
    core = softmax_scores_backward if kind == "softmax" else _linear_scores_backward
    grads, dx = gradients(params, cache, core)
    if "W_P" in params:
        grads["W_P"] = _token_rows(cache.tokens[:, :-1], dx[:, 1:], config.vocab)
    return grads


def _linear_scores_backward(cache: Cache, layer: int, d_weights: np.ndarray) -> tuple:
    """``(∂q, ∂k)`` through ``A = S / ΣS``, ``S = φ(q)φ(k)ᵀ`` inside the causal triangle:
    ``∂S = (∂A − Σ ∂A·A) / ΣS``, then ``φ``'s slope."""
    q, k, weights = cache.q[layer], cache.k[layer], cache.weights[layer]
    lower = np.tril(np.ones((q.shape[-2], q.shape[-2])))
    d_table = (d_weights - (d_weights * weights).sum(axis=-1, keepdims=True)) / cache.sums[layer] * lower
    dq = (d_table @ feature_map(k)) * _phi_slope(q)
    dk = (np.swapaxes(d_table, -1, -2) @ feature_map(q)) * _phi_slope(k)
    return dq, dk


def _token_rows(tokens: np.ndarray, dx: np.ndarray, vocab: int) -> np.ndarray:
    """Each token's row: the sum of ``dx`` over the positions ``tokens`` puts it at."""
    flat = tokens.reshape(-1)
    one_hot = np.zeros((len(flat), vocab))
    one_hot[np.arange(len(flat)), flat] = 1.0
    return one_hot.T @ dx.reshape(len(flat), -1)


#: the sizes of the gradient check (small: two forward passes per parameter entry)
CHECK_CONFIG = Config(vocab=7, length=8, d_model=8, heads=2, layers=2)


def gradient_check(kind: str, *, shift: bool = False, seed: int = 0) -> float:
    """The largest relative error between :func:`backward` and central finite differences (float64),
    on a small random model and three random sequences."""
    from ..gradcheck import central_differences
    from ..training import relative_error

    config = CHECK_CONFIG
    params = init(config, seed, shift=shift)
    tokens = np.random.default_rng([seed, 12]).integers(0, config.vocab, size=(3, config.length))
    analytic = backward(params, config, forward(params, config, tokens, kind), kind)
    numeric = central_differences(lambda p: float(forward(p, config, tokens, kind).token_losses().mean()), params)
    return max(relative_error(analytic[name], numeric[name]) for name in analytic)
