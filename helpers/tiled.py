"""FlashAttention's idea in numpy: tiled attention with an online softmax (``07_cost_of_length``).

The n×n score table is never built: queries are processed in blocks, keys and values stream
past in blocks, and each query row keeps a running max ``m``, a running sum ``l`` and a running
weighted sum ``acc``. When a new block raises the max, the old sum and accumulator are rescaled
by ``exp(m_old − m_new)``. The result equals ordinary attention up to rounding.
"""
from __future__ import annotations

import time
import tracemalloc
from dataclasses import dataclass

import numpy as np

from .attention import _check_qk, scaled_dot_product_attention
from .validation import as_float_array, positive_int


def tiled_attention(q, k, v, *, block: int = 64, causal: bool = False, scale=None) -> np.ndarray:
    """Attention output of shape ``(n_q, d_v)`` computed block by block (no n×n table)."""
    q_arr, k_arr = _check_qk(q, k)
    v_arr = as_float_array("v", v, ndim=2)
    if q_arr.ndim != 2:
        raise ValueError(f"tiled_attention takes q of shape (n, d), got {q_arr.shape}")
    if v_arr.shape[0] != k_arr.shape[0]:
        raise ValueError(f"k and v need the same number of rows, got k {k_arr.shape} and v {v_arr.shape}")
    block = positive_int("block", block)
    n_q, d = q_arr.shape
    n_k = k_arr.shape[0]
    offset = n_k - n_q
    if causal and offset < 0:
        raise ValueError(f"causal attention needs n_k >= n_q, got {n_k} < {n_q}")
    factor = 1.0 / np.sqrt(d) if scale is None else float(scale)
    out = np.empty((n_q, v_arr.shape[1]))
    for qs in range(0, n_q, block):
        qb = q_arr[qs:qs + block] * factor
        rows = np.arange(qs, qs + len(qb))[:, None] + offset
        m = np.full((len(qb), 1), -np.inf)
        l = np.zeros((len(qb), 1))
        acc = np.zeros((len(qb), v_arr.shape[1]))
        k_end = min(n_k, qs + len(qb) + offset) if causal else n_k
        for ks in range(0, k_end, block):
            s = qb @ k_arr[ks:ks + block].T
            if causal:
                cols = np.arange(ks, ks + s.shape[1])[None, :]
                s = np.where(cols > rows, -np.inf, s)
            m_new = np.maximum(m, s.max(axis=1, keepdims=True))
            p = np.exp(s - m_new)
            correction = np.exp(m - m_new)
            l = l * correction + p.sum(axis=1, keepdims=True)
            acc = acc * correction + p @ v_arr[ks:ks + block]
            m = m_new
        out[qs:qs + len(qb)] = acc / l
    return out


@dataclass(frozen=True)
class OnlineStep:
    """State of one query row after a key block: running max, sum and normalised output."""

    block_start: int
    block_end: int
    running_max: float
    running_sum: float
    output: np.ndarray


def online_softmax_steps(scores, values, block: int) -> list:
    """Step through the online softmax for one row of ``scores`` (``07``'s block-size slider)."""
    s = as_float_array("scores", scores, ndim=1)
    v = as_float_array("values", values, ndim=2)
    if len(v) != len(s):
        raise ValueError(f"values needs one row per score, got {v.shape} for {len(s)} scores")
    block = positive_int("block", block)
    m, l, acc, steps = -np.inf, 0.0, np.zeros(v.shape[1]), []
    for start in range(0, len(s), block):
        chunk = s[start:start + block]
        m_new = max(m, float(chunk.max()))
        correction = np.exp(m - m_new)
        p = np.exp(chunk - m_new)
        l = l * correction + float(p.sum())
        acc = acc * correction + p @ v[start:start + block]
        m = m_new
        steps.append(OnlineStep(start, start + len(chunk), m, l, acc / l))
    return steps


def measure(fn, *args, **kwargs) -> tuple:
    """``(seconds, peak traced bytes)`` of one call (tracemalloc sees numpy's allocations)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    start = time.perf_counter()
    fn(*args, **kwargs)
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, peak


def naive_attention(q, k, v, *, causal: bool = True) -> np.ndarray:
    """Plain attention that materialises the n×n table (for the comparison in ``07``)."""
    return scaled_dot_product_attention(q, k, v, causal=causal)[0]


def time_naive_vs_tiled(ns, *, d: int = 64, block: int = 128, seed: int = 0, repeats: int = 3) -> list:
    """For each n: best-of-``repeats`` time and peak memory of naive vs tiled causal attention."""
    rows = []
    for n in ns:
        rng = np.random.default_rng([seed, n])
        q, k, v = rng.standard_normal((3, n, d))
        naive = min((measure(naive_attention, q, k, v) for _ in range(repeats)), key=lambda r: r[0])
        tiled = min((measure(tiled_attention, q, k, v, block=block, causal=True) for _ in range(repeats)),
                    key=lambda r: r[0])
        rows.append({"n": n, "naive_s": naive[0], "naive_peak": naive[1],
                     "tiled_s": tiled[0], "tiled_peak": tiled[1]})
    return rows


def growth_exponent(ns, seconds) -> float:
    """Slope of log(time) against log(n): 2 for quadratic growth."""
    return float(np.polyfit(np.log(np.asarray(ns, float)), np.log(np.asarray(seconds, float)), 1)[0])
