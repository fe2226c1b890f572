"""``10_learning_to_attend``'s model: one attention head read out at the last position, and its
forward pass::

    q = x_last W_Q   k_j = x_j W_K   v_j = x_j W_V   s_j = q·k_j · scale   p = softmax(s)
    o = Σ_j p_j v_j   logits = o W_O + b_O   loss = mean cross-entropy

Its gradient, written out step by step, is :mod:`helpers.training.backprop` (as notebook 11's
model has :mod:`helpers.circuit.backprop`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..attention import softmax, target_loss
from ..render.validation import (
    as_float_array,
    boolean,
    positive_int,
)
from ..render.validation import seed as check_seed
from .task import INPUT_DIM, ITEMS, MAX_LEN, SEED, Sentences, embeddings

MAX_D = 4096          # widest head train / init_params accept (the √d experiment goes to 128)
PROJECTIONS = ("W_Q", "W_K", "W_V")


def init_params(d: int, seed: int = SEED, *, init_seed=None, fixed_positions: bool = False) -> dict:
    """Initial parameters for head dimension ``d`` (same draw for scaled and unscaled runs).

    ``seed`` is the one that fixed the words' inputs (:func:`embeddings`); the draw uses
    ``init_seed`` (default: ``seed``).

    W_Q, W_K, W_V have N(0, σ²) entries with σ² = 1 / (mean ‖x‖² of the vocabulary), so every
    component of q, k, v has variance about 1 at the start — the assumption of ``04_sqrt_d``.
    The readout W_O has N(0, 1/d) entries, b_O starts at 0. ``fixed_positions=True`` gives the
    baseline: instead of W_Q and W_K, one learnable score per position counted from the end
    (``bias``, starting at 0 = equal weights), whatever the words are.
    """
    d = positive_int("d", d, maximum=MAX_D)
    seed = check_seed("seed", seed)
    init_seed = seed if init_seed is None else check_seed("init_seed", init_seed)
    fixed_positions = boolean("fixed_positions", fixed_positions)
    rng = np.random.default_rng([init_seed, d, 2])
    sigma = 1.0 / np.sqrt(np.mean(np.sum(embeddings(seed) ** 2, axis=1)))
    w_q, w_k, w_v = (rng.standard_normal((INPUT_DIM, d)) * sigma for _ in range(3))
    params = {"W_Q": w_q, "W_K": w_k, "W_V": w_v,
              "W_O": rng.standard_normal((d, len(ITEMS))) / np.sqrt(d), "b_O": np.zeros(len(ITEMS))}
    if fixed_positions:
        del params["W_Q"], params["W_K"]
        params["bias"] = np.zeros(MAX_LEN)
    return params


def _check_params(params) -> dict:
    if not isinstance(params, dict):
        raise TypeError(f"params must be a dict of arrays (from init_params), got {type(params).__name__}")
    need = {"W_V", "W_O", "b_O"} | ({"bias"} if "bias" in params else {"W_Q", "W_K"})
    missing = need - set(params)
    if missing:
        raise ValueError(f"params is missing {sorted(missing)}; it has {sorted(params)}")
    out = {name: as_float_array(f"params[{name!r}]", params[name], ndim=1 if name in ("b_O", "bias") else 2)
           for name in need}
    d = out["W_V"].shape[1]
    shapes = {"W_V": (INPUT_DIM, d), "W_O": (d, len(ITEMS)), "b_O": (len(ITEMS),)}
    shapes.update({"bias": (MAX_LEN,)} if "bias" in out else {"W_Q": (INPUT_DIM, d), "W_K": (INPUT_DIM, d)})
    for name, shape in shapes.items():
        if out[name].shape != shape:
            raise ValueError(f"params[{name!r}] must have shape {shape}, got {out[name].shape}")
    return out


def _check_data(data) -> Sentences:
    if not isinstance(data, Sentences):
        raise TypeError(f"data must be Sentences (from encode or dataset), got {type(data).__name__}")
    return data


# k_j = x_j W_K and v_j = x_j W_V are linear in the input x_j, so the code never forms them for
# every position: q·k_j = x_j·(W_K q) and Σ_j p_j v_j = (Σ_j p_j x_j) W_V. Same numbers (the
# gradient check and the tests compare with the literal k and v), but the work no longer grows
# with d times the sentence length — the √d experiment trains heads of d = 128 in seconds.
@dataclass(frozen=True)
class Forward:
    """Every intermediate of one forward pass (the backward pass reads them)."""

    q: np.ndarray        # (B, d)  the last token's query (None in the baseline)
    scale: float         # 1/√d, or 1.0 unscaled (1.0 for the fixed-position baseline)
    scores: np.ndarray   # (B, L)  scale · q·k_j, −inf on padding
    weights: np.ndarray  # (B, L)  softmax(scores): the last position's attention weights
    mixed: np.ndarray    # (B, D)  Σ_j p_j x_j, the weighted average of the inputs
    output: np.ndarray   # (B, d)  Σ_j p_j v_j = mixed · W_V
    logits: np.ndarray   # (B, C)
    probs: np.ndarray    # (B, C)  softmax(logits)
    loss: float          # mean cross-entropy
    accuracy: float      # share of sentences whose largest logit is the right 事项


def forward(params, data, *, scaled: bool = True) -> Forward:
    """The model on a batch of sentences, keeping every intermediate (``10_learning_to_attend``)."""
    return _forward(_check_params(params), _check_data(data), boolean("scaled", scaled))


def _forward(p: dict, data: Sentences, scaled: bool) -> Forward:
    x = data.x                                                         # (B, L, D)
    if "bias" in p:  # the baseline: one score per position from the end, blind to content
        q = None
        scale = 1.0
        scores = p["bias"][np.maximum(data.offsets, 0)] + data.mask
    else:
        q = data.last @ p["W_Q"]                                       # (B, d)
        scale = 1.0 / np.sqrt(q.shape[1]) if scaled else 1.0
        looks_for = q @ p["W_K"].T                                     # (B, D): W_K q
        scores = np.einsum("bli,bi->bl", x, looks_for) * scale + data.mask  # q·k_j = x_j·(W_K q)
    weights = softmax(scores)
    mixed = np.einsum("bl,bli->bi", weights, x)                        # Σ_j p_j x_j
    output = mixed @ p["W_V"]                                          # Σ_j p_j v_j
    logits = output @ p["W_O"] + p["b_O"]
    shifted = logits - logits.max(axis=1, keepdims=True)
    # softmax by way of the log-softmax, as the stored training runs were made (the backward pass
    # starts from these probabilities, so another rounding would move every trained weight)
    probs = np.exp(shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True)))
    loss = float(np.mean(target_loss(logits, data.target)))
    accuracy = float(np.mean(np.argmax(logits, axis=1) == data.target))
    return Forward(q, scale, scores, weights, mixed, output, logits, probs, loss, accuracy)
