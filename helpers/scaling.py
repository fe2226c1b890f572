"""Why divide by √d: Monte-Carlo experiments of ``04_sqrt_d``.

q and k have i.i.d. N(0, 1) components. Then q·k has variance d (std √d); without the 1/√d
scale, softmax over n positions saturates onto one position and its Jacobian vanishes.
"""
from __future__ import annotations

import numpy as np

from .attention import softmax
from .render.validation import (
    as_real_array,
    boolean,
    check_elements,
    choice,
    integer,
    positive_int,
    preview,
    probability_vector,
    quiet_overflow,
)
from .render.validation import seed as check_seed

SEED = 20260501
D_STEPS = tuple(2 ** i for i in range(11))  # 1 … 1024, the explorer's log steps


def dot_products(d: int, n_samples: int = 20_000, seed: int = SEED) -> np.ndarray:
    """``n_samples`` dot products of two random d-dim vectors with N(0,1) components (literal)."""
    d = positive_int("d", d)
    n_samples = positive_int("n_samples", n_samples)
    seed = check_seed("seed", seed)
    check_elements("n_samples × d", 2 * n_samples * d)
    rng = np.random.default_rng([seed, d])
    q = rng.standard_normal((n_samples, d))
    k = rng.standard_normal((n_samples, d))
    return np.einsum("sd,sd->s", q, k)


def dot_product_std(d: int, n_samples: int = 20_000, seed: int = SEED) -> float:
    """Sample std of q·k at width ``d`` (theory: √d)."""
    return float(np.std(dot_products(d, n_samples, seed)))


def random_scores(n: int, d: int, trials: int, seed: int = SEED) -> np.ndarray:
    """Raw scores q·k_j of ``trials`` random queries against ``n`` random keys, shape (trials, n)."""
    n, d, trials = positive_int("n", n), positive_int("d", d), positive_int("trials", trials)
    seed = check_seed("seed", seed)
    check_elements("trials × n × d", trials * (n + 1) * d)
    rng = np.random.default_rng([seed, n, d])
    q = rng.standard_normal((trials, 1, d))
    k = rng.standard_normal((trials, n, d))
    return (q * k).sum(axis=-1)


def mean_max_weight(n: int, d: int, *, scaled: bool, trials: int = 20_000, seed: int = SEED) -> float:
    """Mean over trials of the largest softmax weight among ``n`` positions (``04_sqrt_d``)."""
    scaled = boolean("scaled", scaled)
    scores = random_scores(n, d, trials, seed)
    if scaled:
        scores = scores / np.sqrt(d)
    return mean_largest_weight(softmax(scores))


def mean_largest_weight(weights) -> float:
    """The largest weight of each row, averaged over the rows: how far softmax has collapsed onto
    one position (1/n when spread evenly, 1 when all on one; ``04_sqrt_d``)."""
    w = as_real_array("weights", weights, ndim=(1, 2))
    return float(w.max(axis=-1).mean())


def softmax_jacobian(weights) -> np.ndarray:
    """∂softmax/∂scores = diag(p) − p pᵀ for one row of weights ``p``."""
    p = probability_vector("weights", weights)
    check_elements("weights (n × n)", len(p) ** 2)
    return np.diag(p) - np.outer(p, p)


def jacobian_norms(weights) -> np.ndarray:
    """‖diag(p) − p pᵀ‖_F for every row p of ``weights`` without building the n×n matrices:
    ‖J‖² = Σp² − 2Σp³ + (Σp²)²."""
    p = as_real_array("weights", weights, ndim=(1, 2, 3))
    with np.errstate(over="ignore"):
        row_sums = p.sum(axis=-1)
    if (p < 0).any() or not np.allclose(row_sums, 1.0, atol=1e-6):
        raise ValueError(f"weights must be rows of weights >= 0 that sum to 1, got shape {p.shape} "
                         f"with row sums {preview(row_sums, 6)}")
    p2 = (p * p).sum(axis=-1)
    p3 = (p * p * p).sum(axis=-1)
    return np.sqrt(np.maximum(p2 - 2 * p3 + p2 * p2, 0.0))


def jacobian_norm(scores) -> float:
    """Frobenius norm of softmax's Jacobian at ``scores``: how much a score change can move weights."""
    s = as_real_array("scores", scores, ndim=1)
    return float(jacobian_norms(softmax(s)))


def standard_scores(n: int, seed: int = SEED) -> np.ndarray:
    """``n`` scores with N(0, 1) entries (a fixed seed), the starting point of the saturation demo."""
    n = positive_int("n", n, maximum=10 ** 7)
    return np.random.default_rng([check_seed("seed", seed), n]).standard_normal(n)


def jacobian_vs_temperature(scores, factors) -> list:
    """``(factor, max weight, ‖J‖_F)`` for the same scores multiplied by each factor."""
    s = as_real_array("scores", scores, ndim=1)
    f_arr = as_real_array("factors", factors, ndim=1)
    rows = []
    for f in f_arr:
        with quiet_overflow():
            scaled = s * f
        if not np.isfinite(scaled).all():
            raise ValueError(f"scores × factors too large: {f:.3g} × max |score| {np.abs(s).max():.3g} overflows float64")
        w = softmax(scaled)
        rows.append((float(f), float(w.max()), float(jacobian_norms(w))))
    return rows


class ScorePool:
    """Precomputed draws behind the ``04_sqrt_d`` explorer, so a slider move computes almost nothing.

    Conditional on q, the scores q·k_j of independent N(0, I) keys are i.i.d. N(0, ‖q‖²), and
    ‖q‖² follows a χ² law with d degrees of freedom. So ``scores = ‖q‖ · z`` with a fixed pool of
    standard normals ``z`` has exactly the distribution of the literal simulation, for every d and
    n at once (checked against :func:`random_scores` in the tests).
    """

    def __init__(self, n_max: int = 1000, trials: int = 200, seed: int = SEED):
        n_max = positive_int("n_max", n_max, maximum=100_000)
        trials = positive_int("trials", trials, maximum=100_000)
        check_elements("trials × n_max", trials * n_max)
        if n_max < 2:
            raise ValueError(f"n_max must be >= 2 (a softmax over one position is trivial), got {n_max}")
        seed = check_seed("seed", seed)
        rng = np.random.default_rng(seed)
        self.n_max, self.trials = n_max, trials
        self.z = rng.standard_normal((trials, n_max))
        self.chi2 = {d: rng.chisquare(d, size=trials) for d in D_STEPS}

    def scores(self, n: int, d: int, *, scaled: bool = False) -> np.ndarray:
        """Scores of ``trials`` random queries against ``n`` keys at width ``d`` (one of :data:`D_STEPS`);
        ``scaled``: divided by √d, as attention does."""
        choice("d", integer("d", d), D_STEPS)
        integer("n", n, low=2, high=self.n_max)
        scores = np.sqrt(self.chi2[d])[:, None] * self.z[:, :n]
        return scores / np.sqrt(d) if boolean("scaled", scaled) else scores
