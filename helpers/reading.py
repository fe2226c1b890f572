"""What attention weights can and cannot tell you: the experiments of ``08_reading_attention``.

1. Attention sink (Xiao et al. 2023, StreamingLLM): rows must sum to 1, so spare weight lands on
   a token whose key every query matches and whose value is near zero; evicting it hurts.
2. Weight ≠ influence (Jain & Wallace 2019; Wiegreffe & Pinter 2019): rank positions by weight
   and by the output change when each is dropped from the softmax.
3. Dilution: one relevant position with margin Δ among n − 1 distractors.

And two scores that read a head's habit off any attention pattern, used by ``11_learning_a_circuit``
and ``12_heads_at_work``: :func:`previous_token_score` and :func:`sink_score` (``09``'s
first-position statistic as a score); :func:`heads_by_score` ranks a model's heads by one
(``09``'s text box, ``12``'s :func:`helpers.heads.top_heads`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .attention import scaled_dot_product_attention, softmax
from .example import QKV
from .render.validation import (
    as_float_array,
    as_real_array,
    check_elements,
    finite_result,
    finite_scalar,
    instance,
    nonneg_int,
    positive_int,
    preview,
    probability_vector,
    quiet_overflow,
)
from .render.validation import seed as check_seed

SEED = 2023
SINK_SKIP = 4     # sink score: queries from the 5th token on (as in 09)


# ---- 1. attention sink ----------------------------------------------------------------------
@dataclass(frozen=True)
class SinkSequence(QKV):
    """The q, k, v (:class:`~helpers.example.QKV`, whose checks it keeps) of a sequence built so that its
    first token is an attention sink (``08``); q and k share d."""

    def __post_init__(self):
        super().__post_init__()
        if self.q.shape[1] != self.k.shape[1]:
            raise ValueError(f"q and k must share d, got q {self.q.shape} and k {self.k.shape}")


def sink_sequence(n: int = 24, d: int = 16, *, strength: float = 4.0, sink_value: float = 0.01,
                  seed: int = SEED) -> SinkSequence:
    """A causal sequence whose first token is a sink: every query shares a direction ``u`` that
    the first key matches with score ≈ ``strength``; the first value has norm ``sink_value``.
    The other keys and values are random and only weakly relevant to the queries."""
    n, d = positive_int("n", n, maximum=4096), positive_int("d", d, maximum=4096)
    strength = finite_scalar("strength", strength, low=0.0, high=1e6)
    sink_value = finite_scalar("sink_value", sink_value, low=0.0, high=1e6)
    seed = check_seed("seed", seed)
    rng = np.random.default_rng([seed, n, d])
    u = np.zeros(d)
    u[0] = 1.0
    q = 0.3 * rng.standard_normal((n, d))
    q[:, 0] = np.sqrt(strength * np.sqrt(d))  # q·k_0/√d = strength (with k_0 = same size · u)
    k = 0.3 * rng.standard_normal((n, d))
    k[:, 0] = 0.0
    k[0] = u * np.sqrt(strength * np.sqrt(d))
    v = rng.standard_normal((n, d))
    v[0] = v[0] / np.linalg.norm(v[0]) * sink_value
    return SinkSequence(q, k, v)


def window_mask(n: int, window: int, *, keep_first: int = 0) -> np.ndarray:
    """Additive mask: query i sees keys ``i−window+1 … i`` and the first ``keep_first`` keys."""
    n, window = positive_int("n", n, maximum=8192), positive_int("window", window)
    keep_first = nonneg_int("keep_first", keep_first)
    rows = np.arange(n)[:, None]
    cols = np.arange(n)[None, :]
    visible = (cols <= rows) & ((cols > rows - window) | (cols < keep_first))
    return np.where(visible, 0.0, -np.inf)


def eviction_change(seq: SinkSequence, window: int, *, keep_first: int) -> np.ndarray:
    """Per position: ‖out_window − out_full‖ for a recent window (plus the first ``keep_first``
    tokens) against full causal attention. Positions that still see everything change by 0."""
    instance("seq", seq, SinkSequence, "SinkSequence (from sink_sequence)")
    window = positive_int("window", window)
    keep_first = nonneg_int("keep_first", keep_first)
    full, _ = scaled_dot_product_attention(seq.q, seq.k, seq.v, causal=True)
    mask = window_mask(len(seq.q), window, keep_first=keep_first)
    win, _ = scaled_dot_product_attention(seq.q, seq.k, seq.v, mask=mask)
    return np.linalg.norm(win - full, axis=1)


# ---- 2. weight versus influence --------------------------------------------------------------
def ablation_influence(weights, values) -> np.ndarray:
    """‖out − out_without_j‖ for each position j, recomputing the softmax without j.

    ``weights`` is one row (>= 0, sum 1) with no weight equal to 1: dropping a position that
    holds all the weight leaves nothing to renormalise, so that is refused."""
    w, v = _weights_values(weights, values)
    out = w @ v
    changes = []
    for j in range(len(w)):
        keep = np.arange(len(w)) != j
        rest = w[keep]
        changes.append(np.linalg.norm(out - (rest / rest.sum()) @ v[keep]))
    return np.array(changes)


def ablation_influence_analytic(weights, values) -> np.ndarray:
    """The same without recomputing: ``w_j / (1 − w_j) · ‖v_j − out‖``."""
    w, v = _weights_values(weights, values)
    out = w @ v
    return w / (1 - w) * np.linalg.norm(v - out, axis=1)


def _weights_values(weights, values):
    w = probability_vector("weights", weights)
    v = as_real_array("values", values, ndim=2)
    if len(v) != len(w):
        raise ValueError(f"values needs one row per weight, got {v.shape} for {len(w)} weights")
    if (1.0 - w < 1e-9).any():
        raise ValueError(f"weights puts (almost) all its weight on position {int(np.argmax(w))}: "
                         f"dropping it leaves nothing to renormalise; got {preview(w)}")
    if np.abs(v).max() > 1e150:
        raise ValueError(f"values too large: entries up to {np.abs(v).max():.3g} overflow the norms")
    return w, v


def weight_vs_influence_example(value_scale: float = 0.05) -> dict:
    """Six positions: 0 has the highest weight but a value of size ``value_scale``; 4 has a low
    weight and a large value; the rest have small values. Returns weights, values, influence
    (ablation) and both rankings."""
    value_scale = finite_scalar("value_scale", value_scale, low=0.0, high=1e6)
    scores = np.array([1.5, 0.8, 0.6, 0.4, 0.3, 0.2])
    rng = np.random.default_rng(SEED)
    values = rng.standard_normal((6, 4)) * 0.1
    values[0] = values[0] / np.linalg.norm(values[0]) * value_scale
    values[4] = values[4] / np.linalg.norm(values[4]) * 5.0
    weights = softmax(scores)
    influence = ablation_influence(weights, values)
    return {"weights": weights, "values": values, "influence": influence,
            "by_weight": np.argsort(-weights), "by_influence": np.argsort(-influence)}


def same_output_weights(weights, values, *, step: float = 0.5):
    """A second, different weight row giving exactly the same output (n > d_v + 1 needed):
    move along a direction ``δ`` with ``Vᵀδ = 0`` and ``Σδ = 0``, as far as weights stay ≥ 0."""
    w = probability_vector("weights", weights)
    v = as_real_array("values", values, ndim=2)
    if len(v) != len(w):
        raise ValueError(f"values needs one row per weight, got {v.shape} for {len(w)} weights")
    step = finite_scalar("step", step, low=0.0, high=1.0)
    top = np.abs(v).max()
    # the directions δ with Vᵀδ = 0 do not change when V is rescaled: scale it to 1 (no overflow)
    constraints = np.vstack([(v / top if top > 0 else v).T, np.ones(len(w))])
    _, sing, vt = np.linalg.svd(constraints)
    rank = int((sing > 1e-10).sum())
    if rank >= len(w):
        raise ValueError(f"need more positions than value dimensions + 1, got values of shape {v.shape}")
    delta = vt[rank]
    delta = delta * np.sign(delta[np.argmax(np.abs(delta))])  # fix the SVD's arbitrary sign
    negative = delta < 0
    limit = np.min(w[negative] / -delta[negative]) if negative.any() else 1.0
    return w + step * limit * delta


# ---- 3. dilution ----------------------------------------------------------------------------
def dilution_weight(delta: float, n, *, sigma: float = 0.0) -> np.ndarray:
    """Weight of one relevant position with score margin Δ among n − 1 distractors.

    σ = 0 (all distractors score 0): ``e^Δ / (e^Δ + n − 1)``. Distractor scores ~ N(0, σ²):
    the distractor sum concentrates at ``(n − 1)·e^{σ²/2}``, so the same form with that sum.

    Evaluated in log space, ``w = exp(Δ − logaddexp(Δ, log(n − 1) + σ²/2))``, so any finite Δ,
    σ and n give a weight in [0, 1] (no overflow of ``e^Δ``). ``n`` is a length or an array of
    lengths >= 1 (real values are allowed: the closed form is smooth in n).
    """
    delta = finite_scalar("delta", delta)
    sigma = finite_scalar("sigma", sigma, low=0.0)
    n_arr = _counts("n", n)
    with quiet_overflow():  # log(0) = −inf for n = 1 and σ² = inf for huge σ are both meaningful here
        log_rest = np.log(n_arr - 1) + np.square(sigma) / 2
        return np.exp(delta - np.logaddexp(delta, log_rest))


def _counts(name, n) -> np.ndarray:
    n_arr = as_real_array(name, n, ndim=(0, 1))
    if (n_arr < 1).any():
        raise ValueError(f"{name} must be >= 1, got {np.ravel(n_arr)[:8].tolist()}")
    return n_arr


def dilution_simulated(delta: float, n: int, *, sigma: float = 0.5, trials: int = 200, seed: int = SEED) -> float:
    """Monte-Carlo mean weight of the relevant position with N(0, σ²) distractor scores."""
    delta = finite_scalar("delta", delta)
    n, trials = positive_int("n", n), positive_int("trials", trials)
    sigma = finite_scalar("sigma", sigma, low=0.0, high=100.0)
    seed = check_seed("seed", seed)
    check_elements("trials × n", trials * n)
    rng = np.random.default_rng([seed, n])
    distractors = rng.normal(0.0, sigma, size=(trials, n - 1))
    with quiet_overflow():  # relative to the relevant score: 1 / (1 + Σ e^(s_j − Δ)); inf → weight 0
        rest = np.exp(distractors - delta).sum(axis=1)
        return float(np.mean(1.0 / (1.0 + rest)))


def half_weight_n(delta: float, *, sigma: float = 0.0) -> float:
    """The n at which the relevant position's weight falls to 50%: ``1 + e^Δ / e^{σ²/2}``.

    Raises naming ``delta`` when that length is beyond float64 (Δ − σ²/2 > 709)."""
    delta = finite_scalar("delta", delta)
    sigma = finite_scalar("sigma", sigma, low=0.0)
    with quiet_overflow():
        exponent = delta - np.square(sigma) / 2
        return float(finite_result(1.0 + np.exp(exponent), "delta", "the length 1 + e^(Δ − σ²/2)"))


# ---- 4. scores on any attention pattern ---------------------------------------------------------
def attention_patterns(weights, n_min: int = 1) -> np.ndarray:
    """``weights`` checked as attention patterns ``(…, n, n)`` covering at least ``n_min`` positions."""
    n_min = positive_int("n_min", n_min)
    arr = as_real_array("weights", weights)
    if arr.ndim < 2 or arr.shape[-1] != arr.shape[-2]:
        raise ValueError(f"weights must have shape (…, n, n) (square attention patterns), got {arr.shape}")
    if arr.shape[-1] < n_min:
        raise ValueError(f"weights must cover at least {n_min} positions for this score, got n = {arr.shape[-1]}")
    return arr


def previous_token_score(weights) -> np.ndarray:
    """Mean weight each query ``i ≥ 1`` puts on ``i − 1``: shape ``weights.shape[:-2]``."""
    arr = attention_patterns(weights, 2)
    i = np.arange(1, arr.shape[-1])
    return arr[..., i, i - 1].mean(axis=-1)


def sink_score(weights, *, skip: int = SINK_SKIP) -> np.ndarray:
    """Mean weight queries ``i ≥ skip`` put on position 0."""
    skip = nonneg_int("skip", skip)
    arr = attention_patterns(weights, skip + 1)
    return arr[..., skip:, 0].mean(axis=-1)


def heads_by_score(score) -> np.ndarray:
    """Every ``(layer, head)`` of a ``(layers, heads)`` score map, the highest score first (ties keep
    ``(layer, head)`` order): shape ``(layers·heads, 2)`` int."""
    arr = as_float_array("score", score, ndim=2)
    order = np.argsort(-arr, axis=None, kind="stable")
    return np.stack(np.unravel_index(order, arr.shape), axis=1)
