"""``10_learning_to_attend``'s backward pass, written out step by step, and its check.

:func:`backward` writes the gradient of :func:`helpers.training.model.forward` out in the reverse
order; the softmax step is :func:`softmax_backward`, ``(diag(p) − p pᵀ) · upstream``
(:func:`helpers.scaling.softmax_jacobian`, ``04_sqrt_d``), which works on any ``(…, n)`` rows and
can be reused by a deeper model (notebook 11's :mod:`helpers.circuit.backprop` does).
:func:`gradient_check` compares :func:`backward` with central finite differences
(:func:`numerical_gradient` and :func:`relative_error`).
"""
from __future__ import annotations

import numpy as np

from ..gradcheck import central_differences
from ..render.validation import (
    as_float_array,
    boolean,
    magnitude_bound,
    max_abs,
    positive_int,
)
from ..render.validation import seed as check_seed
from .model import Forward, _check_data, _check_params, _forward, forward, init_params
from .task import Sentences, encode, random_sentences

MAX_GRADIENT_CHECK = 64  # largest d and n_sentences of gradient_check (one forward per parameter entry)


def softmax_backward(weights, upstream) -> np.ndarray:
    """∂loss/∂scores from ∂loss/∂weights, row by row: ``(diag(p) − p pᵀ) · upstream``.

    The matrix is softmax's Jacobian (:func:`helpers.scaling.softmax_jacobian`, ``04_sqrt_d``);
    it is symmetric, and ``(diag(p) − p pᵀ) g = p ⊙ (g − p·g)`` needs no n×n matrix.
    """
    p = as_float_array("weights", weights)
    g = as_float_array("upstream", upstream)
    if p.shape != g.shape or p.ndim == 0:
        raise ValueError(f"weights and upstream must have the same shape (…, n), got {p.shape} and {g.shape}")
    return _softmax_backward(p, g)


def _softmax_backward(p: np.ndarray, g: np.ndarray) -> np.ndarray:
    """:func:`softmax_backward` without the argument checks (the training loop calls it every step)."""
    return p * (g - np.sum(p * g, axis=-1, keepdims=True))


def backward(params, data, fwd: Forward) -> dict:
    """Gradients of the mean cross-entropy with respect to every parameter, in reverse order.

    1. loss → logits: softmax + cross-entropy gives ``(probs − one_hot) / B``;
    2. logits = o W_O + b_O → ∂W_O, ∂b_O and ∂o;
    3. o = Σ_j p_j v_j → ∂p_j = ∂o · v_j and ∂v_j = p_j ∂o;
    4. p = softmax(s) → ∂s = (diag(p) − p pᵀ) ∂p (:func:`softmax_backward`);
    5. s_j = scale · q·k_j → ∂q = scale Σ_j ∂s_j k_j and ∂k_j = scale ∂s_j q;
    6. q = x_last W_Q, k = X W_K, v = X W_V → ∂W = xᵀ ∂(q, k or v), summed over sentences.
    """
    if not isinstance(fwd, Forward):
        raise TypeError(f"fwd must be the Forward of these params and data, got {type(fwd).__name__}")
    return _backward(_check_params(params), _check_data(data), fwd)


def backward_steps(params, data, *, scaled: bool = True) -> dict:
    """The gradient flowing back through each step of :func:`backward`, for reading in the
    notebook: ``{"d_logits", "d_output", "d_weights", "d_scores", "grads"}``."""
    p, data = _check_params(params), _check_data(data)
    steps: dict = {}
    steps["grads"] = _backward(p, data, _forward(p, data, boolean("scaled", scaled)), keep=steps)
    return steps


def _backward(p: dict, data: Sentences, fwd: Forward, keep=None) -> dict:
    b, length = data.x.shape[:2]
    grads = {}
    # 1. loss → logits
    d_logits = fwd.probs.copy()
    d_logits[np.arange(b), data.target] -= 1.0
    d_logits /= b
    # 2. readout: logits = o W_O + b_O
    grads["W_O"] = fwd.output.T @ d_logits
    grads["b_O"] = d_logits.sum(axis=0)
    d_output = d_logits @ p["W_O"].T                                   # (B, d)
    # 3. o = Σ_j p_j v_j: ∂p_j = ∂o·v_j = x_j·(W_V ∂o); ∂v_j = p_j ∂o, so ∂W_V = Σ_j x_jᵀ p_j ∂o
    d_weights = np.einsum("bli,bi->bl", data.x, d_output @ p["W_V"].T)  # (B, L)
    grads["W_V"] = fwd.mixed.T @ d_output
    # 4. p = softmax(s): ∂s = (diag(p) − p pᵀ) ∂p                      (0 on padding: p = 0 there)
    d_scores = _softmax_backward(fwd.weights, d_weights)
    if keep is not None:
        keep.update(d_logits=d_logits, d_output=d_output, d_weights=d_weights, d_scores=d_scores)
    if "bias" in p:  # the baseline's scores are bias[offset]: add up ∂s per offset
        grads["bias"] = np.bincount(data.offsets[data.valid], weights=d_scores[data.valid], minlength=length)
        return grads
    # 5. s_j = scale · q·k_j: ∂q = scale Σ_j ∂s_j k_j = scale (Σ_j ∂s_j x_j) W_K; ∂k_j = scale ∂s_j q
    pulled = np.einsum("bl,bli->bi", d_scores, data.x)                 # (B, D): Σ_j ∂s_j x_j
    d_q = fwd.scale * pulled @ p["W_K"]                                # (B, d)
    # 6. q = x_last W_Q → ∂W_Q = x_lastᵀ ∂q;  k_j = x_j W_K → ∂W_K = Σ_j x_jᵀ ∂k_j = scale · pulledᵀ q
    grads["W_Q"] = data.last.T @ d_q
    grads["W_K"] = fwd.scale * pulled.T @ fwd.q
    return grads


def loss_and_grads(params, data, *, scaled: bool = True) -> tuple:
    """``(Forward, grads)`` of one batch."""
    p, data = _check_params(params), _check_data(data)
    fwd = _forward(p, data, boolean("scaled", scaled))
    return fwd, _backward(p, data, fwd)


def numerical_gradient(params, data, *, scaled: bool = True, eps: float = 1e-6) -> dict:
    """Central finite differences (L(θ+ε) − L(θ−ε)) / 2ε of the loss, one entry at a time
    (:func:`helpers.gradcheck.central_differences`)."""
    return central_differences(lambda p: forward(p, data, scaled=scaled).loss, _check_params(params), eps=eps)


def relative_error(a, b) -> float:
    """‖a − b‖ / max(‖a‖ + ‖b‖, 1e-12): 0 when equal, 1 when opposite (b = −a); two unrelated
    random vectors of many components give about 1/√2 ≈ 0.71 (``10``)."""
    a_arr, b_arr = as_float_array("a", a), as_float_array("b", b)
    if a_arr.shape != b_arr.shape:
        raise ValueError(f"a and b must have the same shape, got {a_arr.shape} and {b_arr.shape}")
    largest = max(max_abs(a_arr), max_abs(b_arr))
    magnitude_bound("a and b", largest, largest, a_arr.size, limit=1e300)  # the squared norms stay finite
    return float(np.linalg.norm(a_arr - b_arr) / max(np.linalg.norm(a_arr) + np.linalg.norm(b_arr), 1e-12))


def gradient_check(d: int = 2, n_sentences: int = 4, seed: int = 0, *, scaled: bool = True,
                   fixed_positions: bool = False) -> dict:
    """Relative error between :func:`backward` and :func:`numerical_gradient`, per parameter,
    on ``n_sentences`` random sentences and random parameters (float64)."""
    d = positive_int("d", d, maximum=MAX_GRADIENT_CHECK)
    n_sentences = positive_int("n_sentences", n_sentences, maximum=MAX_GRADIENT_CHECK)
    seed, scaled = check_seed("seed", seed), boolean("scaled", scaled)
    fixed_positions = boolean("fixed_positions", fixed_positions)
    data = encode(random_sentences(n_sentences, seed))
    params = init_params(d, seed, fixed_positions=fixed_positions)
    rng = np.random.default_rng([check_seed("seed", seed), 3])
    params = {name: value + 0.3 * rng.standard_normal(value.shape) for name, value in params.items()}
    _, analytic = loss_and_grads(params, data, scaled=scaled)
    numeric = numerical_gradient(params, data, scaled=scaled)
    return {name: relative_error(analytic[name], numeric[name]) for name in analytic}
