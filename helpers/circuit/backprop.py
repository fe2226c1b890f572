"""The backward pass of :mod:`helpers.circuit.model`, written out by hand (``11_learning_a_circuit``).

The same steps as ``10_learning_to_attend``'s one head, now through a residual stream and two
layers, last layer first:

1. loss → logits: ``(softmax(logits) − one_hot(next token)) / entries``;
2. logits = x_L W_U → ``∂W_U`` and the gradient on the last stream ``∂x_L``;
3. per layer, from the top: the stream is ``x_{l+1} = x_l + Σ_h out_h``, so every head's output
   receives ``∂x_{l+1}`` unchanged and ``x_l`` receives it too (the residual path), plus what
   flows back through the layer's q, k and v;
4. out_h = z_h W_O → ``∂W_O``, ``∂z``; z = A v → ``∂A = ∂z vᵀ``, ``∂v = Aᵀ ∂z``;
5. A = softmax(s): ``∂s = (diag(A) − A Aᵀ) ∂A`` row by row — :func:`helpers.training.softmax_backward`
   from notebook 10; s = q kᵀ/√d → ``∂q = ∂s k/√d``, ``∂k = ∂sᵀ q/√d``;
6. q = (x + pos) W_Q, k = (x + pos) W_K, v = x W_V → ``∂W = inputᵀ ∂(q, k, v)`` and the input
   gradients, which add into ``∂x_l`` and (``positions="qk"``) into ``∂W_pos``;
7. x₀ = W_E[tokens] → each token's row of ``∂W_E`` collects the gradient of its positions.

:func:`gradient_check` compares the result with central finite differences, in float64.
"""
from __future__ import annotations

import numpy as np

from ..gradcheck import central_differences
from ..render.validation import finite_result, positive_int, quiet_overflow
from ..render.validation import seed as check_seed
from ..training import relative_error, softmax_backward
from .model import (
    Cache,
    Config,
    Model,
    _check_model,
    _check_tokens,
    _checked_forward,
    _forward,
    init_model,
    merge_heads,
)

#: the sizes of the gradient check (small: one forward pass per parameter entry and direction)
CHECK_CONFIG = Config(vocab=7, length=8, d_model=8, heads=2, layers=2)
MAX_CHECK_PARAMS = 5_000


def backward(model: Model, cache: Cache) -> dict:
    """Gradients of :meth:`Cache.loss` (mean cross-entropy) with respect to every parameter."""
    model = _check_model(model)
    if not isinstance(cache, Cache) or cache.config != model.config:
        raise TypeError(f"cache must be the Cache of forward(model, tokens), got {type(cache).__name__}")
    if cache.intervened:
        raise ValueError("cache comes from a forward pass with interventions; the backward pass is for training "
                         "(run forward without them)")
    return _backward(model.params, cache)


def loss_and_grads(model: Model, tokens) -> tuple:
    """``(loss, grads)`` of one batch of token sequences."""
    model = _check_model(model)
    cache = _checked_forward(model.params, model.config, _check_tokens(tokens, model.config))
    with quiet_overflow():
        grads = _backward(model.params, cache)
    for name, grad in grads.items():
        finite_result(grad, "model's parameters are", f"the gradient of {name}")
    return cache.loss(), grads


def _backward(p: dict, cache: Cache) -> dict:
    return gradients(p, cache)[0]


def softmax_scores_backward(cache, layer: int, d_weights: np.ndarray) -> tuple:
    """Step 5 for softmax attention: ``(∂q, ∂k)`` from ``∂A`` through ``A = softmax(q kᵀ / √d)``."""
    q, k = cache.q[layer], cache.k[layer]
    d_scores = softmax_backward(cache.weights[layer], d_weights) / np.sqrt(q.shape[-1])
    return d_scores @ k, np.swapaxes(d_scores, -1, -2) @ q


def gradients(p: dict, cache, scores_backward=softmax_scores_backward) -> tuple:
    """``(grads, ∂x₀)``: every parameter's gradient of the mean next-token loss, and the loss's gradient
    with respect to the first residual stream (another model's extra input table reads its rows there).
    ``cache`` holds what :func:`helpers.circuit.forward` records (``config``, ``tokens``, ``layer_inputs``,
    ``q``, ``k``, ``v``, ``weights``, ``z``, ``final_residual``, ``logits``); ``scores_backward(cache,
    layer, ∂A)`` turns the weights' gradient into the queries' and keys' (step 5), so a model with
    another attention core reuses every other step. Unchecked: the callers check."""
    config = cache.config
    tokens = cache.tokens
    b, n = tokens.shape
    d_model, h, dh = config.d_model, config.heads, config.d_head
    grads = {name: np.zeros_like(p[name]) for name in ("W_Q", "W_K", "W_V", "W_O")}
    # 1. loss → logits (the last entry predicts nothing)
    d_logits = np.exp(cache.logits - cache.logits.max(axis=-1, keepdims=True))
    d_logits /= d_logits.sum(axis=-1, keepdims=True)
    rows, cols = np.nonzero(np.ones((b, n - 1), dtype=bool))
    d_logits[rows, cols, tokens[:, 1:].ravel()] -= 1.0
    d_logits[:, -1] = 0.0
    d_logits /= b * (n - 1)
    # 2. logits = x_L W_U
    grads["W_U"] = flatten_positions(cache.final_residual).T @ flatten_positions(d_logits)
    dx = d_logits @ p["W_U"].T                                          # ∂ loss / ∂ x_L
    d_pos = np.zeros((n, d_model), dtype=dx.dtype)
    pos = p["W_pos"][:n]
    for layer in reversed(range(config.layers)):
        x = cache.layer_inputs[layer]
        v, weights, z = (getattr(cache, name)[layer] for name in ("v", "weights", "z"))
        # 3.–4. every head's output gets ∂x unchanged; out_h = z_h W_O[h], all heads as one product
        w_o = p["W_O"][layer].reshape(h * dh, d_model)
        grads["W_O"][layer] = (merge_heads(z).T @ flatten_positions(dx)).reshape(h, dh, d_model)
        dz = split_heads(flatten_positions(dx) @ w_o.T, b, h)                            # (B, H, n, d)
        d_weights = dz @ np.swapaxes(v, -1, -2)
        dv = np.swapaxes(weights, -1, -2) @ dz
        # 5. the attention core: softmax, then s = q kᵀ / √d
        dq, dk = scores_backward(cache, layer, d_weights)
        # 6. q, k, v from their inputs
        qk_input = x + pos if config.positions == "qk" else x
        d_inputs = 0.0
        for name, source, d_proj in (("W_Q", qk_input, dq), ("W_K", qk_input, dk), ("W_V", x, dv)):
            d_flat = merge_heads(d_proj)                                         # (B·n, H·d)
            w_flat = p[name][layer].transpose(1, 0, 2).reshape(d_model, h * dh)
            grads[name][layer] = (flatten_positions(source).T @ d_flat).reshape(d_model, h, dh).transpose(1, 0, 2)
            d_source = (d_flat @ w_flat.T).reshape(b, n, d_model)
            if name != "W_V" and config.positions == "qk":
                d_pos += d_source.sum(axis=0)
            d_inputs = d_inputs + d_source
        dx = dx + d_inputs                                              # the residual path plus q, k, v
    # 7. x₀ = W_E[tokens] (+ W_pos with positions="residual")
    if config.positions == "residual":
        d_pos += dx.sum(axis=0)
    grads["W_pos"] = np.zeros_like(p["W_pos"])
    grads["W_pos"][:n] = d_pos
    one_hot = np.zeros((b * n, config.vocab), dtype=dx.dtype)   # row r marks the token at position r
    one_hot[np.arange(b * n), tokens.ravel()] = 1.0
    grads["W_E"] = one_hot.T @ flatten_positions(dx)                          # each token's row: Σ of its positions' ∂x
    return grads, dx


def split_heads(flat: np.ndarray, b: int, h: int) -> np.ndarray:
    """``(B·n, H·d)`` → ``(B, H, n, d)`` (the inverse of :func:`helpers.circuit.model.merge_heads`; unchecked,
    as it is)."""
    n = flat.shape[0] // b
    return np.ascontiguousarray(flat.reshape(b, n, h, flat.shape[1] // h).transpose(0, 2, 1, 3))


def flatten_positions(a: np.ndarray) -> np.ndarray:
    """``(B, n, …)`` → ``(B·n, …)`` (unchecked, as :func:`helpers.circuit.model.merge_heads`)."""
    return a.reshape(a.shape[0] * a.shape[1], *a.shape[2:])


# ---- the gradient check --------------------------------------------------------------------------
def numerical_gradient(model: Model, tokens, *, eps: float = 1e-6) -> dict:
    """Central finite differences ``(L(θ+ε) − L(θ−ε)) / 2ε`` of the loss, one entry at a time (float64)."""
    model = _check_model(model)
    if model.config.size() > MAX_CHECK_PARAMS:
        raise ValueError(f"model must have at most {MAX_CHECK_PARAMS:,} parameters for a finite-difference check "
                         f"(two forward passes each), got {model.config.size():,}")
    tokens = _check_tokens(tokens, model.config)
    _checked_forward(model.params, model.config, tokens)   # parameters whose loss overflows: refused here
    with quiet_overflow():
        grads = central_differences(lambda p: _forward(p, model.config, tokens).loss(), model.params, eps=eps)
    for name, grad in grads.items():
        finite_result(grad, "model's parameters are", f"the finite differences of {name}")
    return grads


def gradient_check(config: Config = CHECK_CONFIG, *, n_sequences: int = 3, seed: int = 0) -> dict:
    """``{parameter: relative error}`` between :func:`backward` and :func:`numerical_gradient` on a
    small random model and ``n_sequences`` random token sequences (float64)."""
    n_sequences = positive_int("n_sequences", n_sequences, maximum=16)
    seed = check_seed("seed", seed)
    model = init_model(config, seed)
    tokens = np.random.default_rng([seed, 12]).integers(0, config.vocab, size=(n_sequences, config.length))
    _, analytic = loss_and_grads(model, tokens)
    numeric = numerical_gradient(model, tokens)
    return {name: relative_error(analytic[name], numeric[name]) for name in analytic}
