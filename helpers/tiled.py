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

from .attention import _check_qk, _check_scale, scaled_dot_product_attention
from .render.threads import with_one_blas_thread
from .render.validation import (
    as_real_array,
    boolean,
    check_elements,
    finite_result,
    finite_scalar,
    positive_int,
    quiet_overflow,
    same_length,
)
from .render.validation import seed as check_seed


def tiled_attention(q, k, v, *, block: int = 64, causal: bool = False, scale=None,
                    skip_masked: bool = True) -> np.ndarray:
    """Attention output of shape ``(n_q, d_v)`` computed block by block (no n×n table).

    With ``causal``, key blocks lying wholly right of the diagonal (every entry masked) are
    skipped, as FlashAttention does: about half the multiplications of the full table.
    ``skip_masked=False`` visits them anyway (masked, same result), doing the same
    multiplications as :func:`naive_attention` — ``07`` times both to tell fewer FLOPs apart
    from less memory traffic (:func:`matmul_flops`)."""
    q_arr, k_arr = _check_qk(q, k)
    v_arr = as_real_array("v", v, ndim=2)
    if q_arr.ndim != 2:
        raise ValueError(f"tiled_attention takes q of shape (n, d), got {q_arr.shape}")
    if v_arr.shape[0] != k_arr.shape[0]:
        raise ValueError(f"k and v need the same number of rows, got k {k_arr.shape} and v {v_arr.shape}")
    block = positive_int("block", block)
    causal = boolean("causal", causal)
    skip_masked = boolean("skip_masked", skip_masked)
    scale = None if scale is None else _check_scale(scale)
    n_q, d = q_arr.shape
    n_k = k_arr.shape[0]
    offset = n_k - n_q
    if causal and offset < 0:
        raise ValueError(f"causal attention needs n_k >= n_q, got {n_k} < {n_q}")
    factor = 1.0 / np.sqrt(d) if scale is None else scale
    out = np.empty((n_q, v_arr.shape[1]))
    with quiet_overflow():
        _tiles(q_arr, k_arr, v_arr, out, block, causal, factor, offset, skip_masked)
    # an overflowing score (q, k or scale too large) would otherwise come back as NaN
    return finite_result(out, "q, k, v or scale", "the scores q·kᵀ·scale or the weighted sum of v")


def _tiles(q_arr, k_arr, v_arr, out, block, causal, factor, offset, skip_masked=True):
    n_q, n_k = len(q_arr), len(k_arr)
    for qs in range(0, n_q, block):
        qb = q_arr[qs:qs + block] * factor
        rows = np.arange(qs, qs + len(qb))[:, None] + offset
        m = np.full((len(qb), 1), -np.inf)
        l = np.zeros((len(qb), 1))
        acc = np.zeros((len(qb), v_arr.shape[1]))
        k_end = _key_end(n_k, qs, len(qb), offset) if causal and skip_masked else n_k
        for ks in range(0, k_end, block):
            s = qb @ k_arr[ks:ks + block].T
            if not np.isfinite(s).all():
                out[:] = np.nan  # reported by the caller as an overflow
                return
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


def _key_end(n_k: int, qs: int, rows: int, offset: int) -> int:
    """End of the key range a causal query block starting at ``qs`` can see (later keys are masked)."""
    return min(n_k, qs + rows + offset)


def matmul_flops(n: int, d: int, *, block=None, causal: bool = True, skip_masked: bool = True) -> float:
    """Multiply-add FLOPs of QKᵀ and PV for ``n`` queries over ``n`` keys of width ``d``
    (2 per multiply-add, both products): ``4 · n² · d`` for the full table (``block=None``, what
    :func:`naive_attention` computes, masked or not); for :func:`tiled_attention` with ``block``,
    ``4 · d`` per query–key pair in the blocks it visits (causal with ``skip_masked``: none of the
    blocks wholly right of the diagonal)."""
    n, d = positive_int("n", n, maximum=2 ** 31), positive_int("d", d, maximum=2 ** 20)
    causal, skip_masked = boolean("causal", causal), boolean("skip_masked", skip_masked)
    if block is None:
        return 4.0 * n * n * d
    block = positive_int("block", block)
    if n // block > 2 ** 16:
        raise ValueError(f"block too small for n: {n // block} blocks per row (at most 65536), got block={block}")
    pairs = 0
    for qs in range(0, n, block):
        rows = min(block, n - qs)
        pairs += rows * (_key_end(n, qs, rows, 0) if causal and skip_masked else n)
    return 4.0 * pairs * d


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
    s = as_real_array("scores", scores, ndim=1)
    v = as_real_array("values", values, ndim=2)
    if len(v) != len(s):
        raise ValueError(f"values needs one row per score, got {v.shape} for {len(s)} scores")
    block = positive_int("block", block)
    with quiet_overflow():
        steps = _online_steps(s, v, block)
    for step in steps:
        finite_result(step.output, "values", "the running weighted sum of values")
    return steps


def _online_steps(s, v, block):
    m, l, acc, steps = -np.inf, 0.0, np.zeros(v.shape[1]), []
    for start in range(0, len(s), block):
        chunk = s[start:start + block]
        m, l, acc = _update(m, l, acc, chunk, v[start:start + block])
        steps.append(OnlineStep(start, start + len(chunk), m, l, acc / l))
    return steps


def online_softmax_update(running_max, running_sum, acc, scores, values) -> tuple:
    """One step of the online softmax for one query row (``07_cost_of_length``): the state so far
    (running max ``m``, running sum ``l`` of ``e^(s − m)``, accumulator ``acc`` = Σ e^(s − m)·v, shape
    ``(d_v,)``) and a new block of ``scores`` ``(b,)`` with their ``values`` ``(b, d_v)`` give the new
    ``(m, l, acc)``. Before the first block ``m = −∞``, ``l = 0``, ``acc = 0``; the row's output is
    ``acc / l`` at any point. When the block raises the max, the old ``l`` and ``acc`` are rescaled
    by ``e^(m_old − m_new)``."""
    if isinstance(running_max, (float, np.floating)) and running_max == -np.inf:
        m = -np.inf
    else:
        m = finite_scalar("running_max", running_max)
    l = finite_scalar("running_sum", running_sum, low=0.0)
    if m == -np.inf and l != 0:
        raise ValueError(f"running_sum must be 0 while running_max is -inf (no block seen yet), got {l}")
    acc = as_real_array("acc", acc, ndim=1)
    s = as_real_array("scores", scores, ndim=1)
    v = as_real_array("values", values, ndim=2)
    if v.shape != (len(s), len(acc)):
        raise ValueError(f"values must have shape (len(scores), len(acc)) = ({len(s)}, {len(acc)}), got {v.shape}")
    with quiet_overflow():
        m, l, acc = _update(m, l, acc, s, v)
    finite_result(np.array([l]), "running_sum or scores", "the running sum")
    return m, l, finite_result(acc, "acc or values", "the accumulator")


def _update(m, l, acc, chunk, v):
    m_new = max(m, float(chunk.max()))
    correction = np.exp(m - m_new)
    p = np.exp(chunk - m_new)
    return m_new, l * correction + float(p.sum()), acc * correction + p @ v


def measure(fn, *args, **kwargs) -> tuple:
    """``(seconds, peak traced bytes)`` of one call (tracemalloc sees numpy's allocations)."""
    if not callable(fn):
        raise TypeError(f"fn must be a function to time, got {type(fn).__name__} {fn!r:.60}")
    tracemalloc.start()
    tracemalloc.reset_peak()
    start = time.perf_counter()
    fn(*args, **kwargs)
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, peak


def _best_time(repeats: int, fn, *args, **kwargs) -> float:
    """The shortest of ``repeats`` timed calls, in seconds, with memory tracing off: tracemalloc
    slows every allocation, which would penalise the tiled loop's many small blocks."""
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fn(*args, **kwargs)
        best = min(best, time.perf_counter() - start)
    return float(best)


def naive_attention(q, k, v, *, causal: bool = True) -> np.ndarray:
    """Plain attention that materialises the n×n table (for the comparison in ``07``)."""
    causal = boolean("causal", causal)
    return scaled_dot_product_attention(q, k, v, causal=causal)[0]


@with_one_blas_thread  # all three on one core: the algorithms compared, not how each splits over threads
def time_naive_vs_tiled(ns, *, d: int = 64, block: int = 128, seed: int = 0, repeats: int = 3) -> list:
    """For each n: best-of-``repeats`` time (untraced) and peak memory (one traced call) of naive vs
    tiled causal attention (both run once untimed first, so start-up costs do not count as the
    smallest length's time). ``tiled_all_s`` times the tiled version visiting every block
    (``skip_masked=False``: the naive version's multiplications, without its n×n table). Runs on one
    BLAS thread: on a busy 2-core machine, two threads splitting each small block's product wait
    for each other (seen here under load: the tiled runs ten times slower and more), which is not
    what is being compared."""
    if isinstance(ns, (str, bytes)) or not hasattr(ns, "__iter__"):
        raise TypeError(f"ns must be a list of sequence lengths, got {type(ns).__name__} {ns!r:.60}")
    ns = [positive_int("ns", n, maximum=4096) for n in ns]
    if not ns:
        raise ValueError("ns is empty; give at least one sequence length")
    d = positive_int("d", d, maximum=1024)
    block = positive_int("block", block)
    seed = check_seed("seed", seed)
    repeats = positive_int("repeats", repeats, maximum=20)
    check_elements("ns, d", 3 * max(ns) * d + max(ns) ** 2)
    # warm-up, untimed: the first calls pay for allocator and cache warm-up, which would otherwise
    # land on the first (smallest) length and draw a spurious dip in the curve
    warm_q, warm_k, warm_v = np.random.default_rng([seed, 0]).standard_normal((3, min(ns), d))
    naive_attention(warm_q, warm_k, warm_v)
    tiled_attention(warm_q, warm_k, warm_v, block=block, causal=True)
    rows = []
    for n in ns:
        rng = np.random.default_rng([seed, n])
        q, k, v = rng.standard_normal((3, n, d))
        naive_peak = measure(naive_attention, q, k, v)[1]
        tiled_peak = measure(tiled_attention, q, k, v, block=block, causal=True)[1]
        rows.append({"n": n, "naive_s": _best_time(repeats, naive_attention, q, k, v), "naive_peak": naive_peak,
                     "tiled_s": _best_time(repeats, tiled_attention, q, k, v, block=block, causal=True),
                     "tiled_all_s": _best_time(repeats, tiled_attention, q, k, v, block=block, causal=True,
                                               skip_masked=False),
                     "tiled_peak": tiled_peak})
    return rows


def growth_exponent(ns, seconds) -> float:
    """Slope of log(time) against log(n): 2 for quadratic growth (least squares, closed form)."""
    n_arr = as_real_array("ns", ns, ndim=1)
    t_arr = as_real_array("seconds", seconds, ndim=1)
    same_length("ns and seconds", n_arr, t_arr)
    if (n_arr <= 0).any():
        raise ValueError(f"ns must be lengths > 0, got {n_arr.tolist()}")
    if (t_arr <= 0).any():
        raise ValueError(f"seconds must be times > 0, got {t_arr.tolist()}")
    x, y = np.log(n_arr), np.log(t_arr)
    if np.ptp(x) == 0:
        raise ValueError(f"ns needs at least two different lengths to fit a slope, got {n_arr.tolist()}")
    x = x - x.mean()
    return float((x * (y - y.mean())).sum() / (x * x).sum())
