"""FlashAttention's idea in numpy: tiled attention with an online softmax (``07_cost_of_length``).

The n×n score table is never built: queries are processed in blocks, keys and values stream
past in blocks, and each query row keeps a running max ``m``, a running sum ``l`` and a running
weighted sum ``acc``. When a new block raises the max, the old sum and accumulator are rescaled
by ``exp(m_old − m_new)``. The result equals ordinary attention up to rounding.
"""
from __future__ import annotations

import contextlib
import time
import tracemalloc
import weakref
from dataclasses import dataclass

import numpy as np

from .attention import scaled_dot_product_attention
from .render.threads import with_one_blas_thread
from .render.validation import (
    as_real_array,
    boolean,
    check_elements,
    finite_result,
    finite_scalar,
    positive_float,
    positive_int,
    queries_and_keys,
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
    q_arr, k_arr = queries_and_keys(q, k)
    v_arr = as_real_array("v", v, ndim=2)
    if q_arr.ndim != 2:
        raise ValueError(f"tiled_attention takes q of shape (n, d), got {q_arr.shape}")
    if v_arr.shape[0] != k_arr.shape[0]:
        raise ValueError(f"k and v need the same number of rows, got k {k_arr.shape} and v {v_arr.shape}")
    block = positive_int("block", block)
    causal = boolean("causal", causal)
    skip_masked = boolean("skip_masked", skip_masked)
    scale = None if scale is None else positive_float("scale", scale)
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
            m, l, acc = _tile_update(m, l, acc, s, v_arr[ks:ks + block])
        out[qs:qs + len(qb)] = acc / l


def _tile_update(m, l, acc, s, v_block) -> tuple:
    """The online softmax over one tile, for every query row of a block at once: running max ``m``
    and sum ``l`` (shape ``(rows, 1)``), accumulator ``acc`` ``(rows, d_v)``, the tile's scores ``s``
    ``(rows, cols)`` and values ``v_block`` ``(cols, d_v)`` give the new ``(m, l, acc)``; old ``l`` and
    ``acc`` rescaled by ``e^(m − m_new)``."""
    m_new = np.maximum(m, s.max(axis=1, keepdims=True))
    p = np.exp(s - m_new)
    correction = np.exp(m - m_new)
    return m_new, l * correction + p.sum(axis=1, keepdims=True), acc * correction + p @ v_block


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
    # stopped whatever happens (a tracing left on makes every later allocation walk the whole stack:
    # a deep recursion then takes time quadratic in its depth), and only if it was started here
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        start = time.perf_counter()
        fn(*args, **kwargs)
        seconds = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        if started:
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


# ---- a fast memory of M floats in front of slow memory (07's exercise 4) ----------------------------
class FastMemory:
    """Slow memory holding ``q``, ``k``, ``v`` (each ``(n, d)``) and the output ``o``, in front of a fast
    memory of ``capacity`` floats — the GPU's HBM and SRAM in miniature, for writing FlashAttention's
    forward by hand (``07_cost_of_length``).

    ``load(name, start, stop)`` copies rows ``start … stop − 1`` of ``"q"``, ``"k"`` or ``"v"`` into fast
    memory (``stop`` past ``n`` reads up to ``n``, as slicing does) and counts them in :attr:`reads`;
    ``store(start, block)`` writes rows of ``o`` and counts them in :attr:`writes`. Every array computed
    from a loaded one — scores, exponentials, the running max, sum and accumulator, temporaries
    included — is in fast memory too and counts against ``capacity`` for as long as it lives; an array
    that would not fit is refused with its size (:class:`FastMemoryFull`). :attr:`peak` is the most
    floats ever held at once; :meth:`result` is ``(o, reads, writes)``.

    Two memories compare equal when they hold the same problem (``q``, ``k``, ``v``, ``capacity``):
    what a forward pass writes and counts is its result, not a change to the problem."""

    NAMES = ("q", "k", "v")

    def __init__(self, q, k, v, capacity):
        q_arr = as_real_array("q", q, ndim=2)
        n, d = q_arr.shape
        self._slow = {"q": q_arr.copy(), "k": as_real_array("k", k, shape=(n, d)).copy(),
                      "v": as_real_array("v", v, shape=(n, d)).copy()}
        self._capacity = positive_int("capacity", capacity)
        self.n, self.d = n, d
        self._o = np.zeros((n, d))
        #: the dtypes of the blocks stored: an all-float32 forward gets its output back in float32
        self._stored = set()
        self._reads = self._writes = self.held = self.peak = 0
        self._outside = 0.0

    # read-only: what the grader judges is counted here, not set by the function being graded
    capacity = property(lambda self: self._capacity, doc="Floats the fast memory holds at once.")
    reads = property(lambda self: self._reads, doc="Floats loaded from slow memory so far.")
    writes = property(lambda self: self._writes, doc="Floats stored to slow memory so far.")

    def load(self, name, start, stop) -> np.ndarray:
        """Rows ``start … stop − 1`` of slow-memory array ``name`` (``"q"``, ``"k"``, ``"v"``), now in fast memory."""
        if name not in self.NAMES:
            raise ValueError(f"name must be one of 'q', 'k', 'v' (slow memory holds those; the output is "
                             f"written with store), got {name!r:.40}")
        start, stop = self._rows("start", start), self._rows("stop", stop)
        if start >= self.n or stop <= start:
            raise ValueError(f"load needs 0 <= start < n = {self.n} and stop > start, got start={start}, stop={stop}")
        block = self._slow[name][start:stop]
        tile = self._hold(block.copy())
        self._reads += block.size
        return tile

    def store(self, start, block) -> None:
        """Write ``block`` (``(rows, d)``) to rows ``start …`` of the output in slow memory."""
        start = self._rows("start", start)
        arr = as_real_array("block", block, ndim=2, allow_nonfinite=True)  # a 0/0 is the learner's output to see
        if arr.shape[1] != self.d:
            raise ValueError(f"block must have d = {self.d} columns (one output row per query), got shape {arr.shape}")
        if start + len(arr) > self.n:
            raise ValueError(f"store writes rows start … start + len(block) − 1 = {start} … {start + len(arr) - 1}, "
                             f"past the output's last row {self.n - 1} (n = {self.n})")
        self._o[start:start + len(arr)] = arr
        self._stored.add(np.float32 if getattr(block, "dtype", None) == np.float32 else np.float64)
        self._writes += arr.size

    def result(self) -> tuple:
        """``(o, reads, writes)``: the output as stored in slow memory (float32 when every block stored was
        float32, so its precision is judged as the forward computed it) and the floats moved each way."""
        o = self._o.astype(np.float32) if self._stored == {np.float32} else self._o.copy()
        return o, float(self.reads), float(self.writes)

    @contextlib.contextmanager
    def watching(self):
        """Trace every allocation (:mod:`tracemalloc`) while the block runs, so :meth:`outside` sees floats
        computed where this memory's count does not reach: a loaded block turned into a plain array
        (``np.asarray``, ``np.array``, ``.view(np.ndarray)``, ``.tolist()``) or the slow memory read directly."""
        started = not tracemalloc.is_tracing()
        if started:
            tracemalloc.start()
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        try:
            yield self
        finally:
            floats = (tracemalloc.get_traced_memory()[1] - base) // 8
            if started:
                tracemalloc.stop()
            self._outside = float(max(0, floats - 2 * self._capacity - OUTSIDE_SLACK))

    def outside(self) -> float:
        """Floats allocated at the peak of the last :meth:`watching` block beyond what the budget allows,
        handed over once (then 0). The allowance: the capacity twice over (a result is allocated while its
        inputs still live) plus :data:`OUTSIDE_SLACK` floats of Python's own bookkeeping and index arrays."""
        outside, self._outside = self._outside, 0.0
        return outside

    def _rows(self, name, value) -> int:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} must be a row number (int), got {type(value).__name__} {value!r:.40}")
        if value < 0:
            raise ValueError(f"{name} must be >= 0, got {value}")
        return int(value)

    def _hold(self, arr: np.ndarray) -> np.ndarray:
        """``arr`` as a :class:`_Resident` counted against the capacity while it lives (refused if it does not fit)."""
        size = int(arr.size)
        if self.held + size > self.capacity:
            raise FastMemoryFull(f"fast memory full: an array of shape {arr.shape} ({size} floats) does not fit, "
                                 f"{self.held} of capacity={self.capacity} floats are in use")
        tile = arr.view(_Resident)
        tile._memory = self
        self.held += size
        self.peak = max(self.peak, self.held)
        weakref.finalize(tile, self._release, size)
        return tile

    def _release(self, size: int) -> None:
        self.held -= size

    def __eq__(self, other):
        if not isinstance(other, FastMemory):
            return NotImplemented
        return self.capacity == other.capacity and all(np.array_equal(self._slow[k], other._slow[k]) for k in self.NAMES)

    __hash__ = None

    def __repr__(self):
        return f"FastMemory(n={self.n}, d={self.d}, capacity={self.capacity})"


#: floats' worth of bytes a sound tiled forward may allocate beside its counted arrays (frames, masks,
#: index arrays, the stored output's copy, a first call's caches: under 2,000 on 07-4's cases; a
#: 15,000-character debugging print about 9,400), with room for the unforeseen; whole rows of scores
#: kept on 07-4's longest case come to about 100,000
OUTSIDE_SLACK = 16384


class FastMemoryFull(ValueError):
    """An array that does not fit in the fast memory's remaining capacity."""


class _Resident(np.ndarray):
    """An array in a :class:`FastMemory`: whatever numpy computes from it is held there too."""

    _memory = None

    def __array_finalize__(self, obj):
        self._memory = getattr(obj, "_memory", None)  # a view shares its base's floats: nothing new to count

    def __array_wrap__(self, arr, context=None, return_scalar=False):
        if return_scalar:
            return arr[()]
        return self._memory._hold(np.asarray(arr)) if self._memory is not None else arr

    def __array_function__(self, func, types, args, kwargs):
        result = super().__array_function__(func, types, args, kwargs)
        if self._memory is None:
            return result
        if isinstance(result, np.ndarray) and not isinstance(result, _Resident):
            return self._memory._hold(result)
        return result


def flash_forward(mem: FastMemory, block_q, block_k) -> tuple:
    """Causal attention of the problem in ``mem`` computed FlashAttention's way (the reference of 07's
    exercise 4): for each block of ``block_q`` queries, the key/value blocks of ``block_k`` rows up to
    the diagonal only (blocks wholly right of it are skipped), a running max, sum and accumulator per
    query row, one store of the block's output. Returns ``mem.result()``."""
    if not isinstance(mem, FastMemory):
        raise TypeError(f"mem must be a FastMemory, got {type(mem).__name__}")
    block_q, block_k = positive_int("block_q", block_q), positive_int("block_k", block_k)
    n, scale = mem.n, 1.0 / np.sqrt(mem.d)
    for qs in range(0, n, block_q):
        qb = mem.load("q", qs, qs + block_q) * scale
        rows = np.arange(qs, qs + len(qb))[:, None]
        m, l, acc = np.full((len(qb), 1), -np.inf), np.zeros((len(qb), 1)), np.zeros((len(qb), mem.d))
        for ks in range(0, qs + len(qb), block_k):  # key blocks starting right of the last row: all masked
            kb, vb = mem.load("k", ks, ks + block_k), mem.load("v", ks, ks + block_k)
            s = np.where(np.arange(ks, ks + len(kb))[None, :] > rows, -np.inf, qb @ kb.T)
            m, l, acc = _tile_update(m, l, acc, s, vb)
        mem.store(qs, acc / l)
    return mem.result()


def flash_traffic(n, d, block_q, block_k) -> dict:
    """Floats moved between slow and fast memory by :func:`flash_forward`, counted on paper: each query
    block read once, for the block ending at row ``e`` the keys and values ``0 … min(⌈e / block_k⌉·block_k, n) − 1``
    read once each, the output written once. ``{"reads": …, "writes": …}``."""
    n, d = positive_int("n", n), positive_int("d", d)
    block_q, block_k = positive_int("block_q", block_q), positive_int("block_k", block_k)
    reads = 0
    for qs in range(0, n, block_q):
        end = min(qs + block_q, n)
        keys = min(-(-end // block_k) * block_k, n)
        reads += (end - qs) * d + 2 * keys * d
    return {"reads": reads, "writes": n * d}


def naive_traffic(n, d) -> dict:
    """Floats moved by the textbook forward that materialises the n×n table in slow memory (FlashAttention
    paper, Algorithm 0): read Q, K, write S; read S, write P; read P and V, write O."""
    n, d = positive_int("n", n), positive_int("d", d)
    return {"reads": 2 * n * d + n * n + n * n + n * d, "writes": n * n + n * n + n * d}


def traffic_table(forward, *, n: int = 256, d: int = 16, block_q: int = 32, block_k: int = 32,
                  capacity: int = 8192, seed: int = 0) -> dict:
    """Run ``forward(mem, block_q, block_k)`` (the learner's tiled forward) once on a random causal
    problem and return the floats it moved beside the count on paper (:func:`flash_traffic`) and the
    naive forward's (:func:`naive_traffic`), and the most it held in fast memory:
    ``{"reads", "writes", "paper", "naive", "peak", "capacity"}``."""
    if not callable(forward):
        raise TypeError(f"forward must be your function flash_forward, got {type(forward).__name__}")
    rng = np.random.default_rng(check_seed("seed", seed))
    q, k, v = rng.standard_normal((3, positive_int("n", n, maximum=4096), positive_int("d", d, maximum=1024)))
    mem = FastMemory(q, k, v, capacity)
    forward(mem, block_q, block_k)
    return {"reads": mem.reads, "writes": mem.writes, "paper": flash_traffic(n, d, block_q, block_k),
            "naive": naive_traffic(n, d), "peak": mem.peak, "capacity": mem.capacity}
