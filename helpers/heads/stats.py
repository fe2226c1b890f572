"""Where a measured value falls in a null distribution, and the spread over sequences (``12_heads_at_work``).

A claim such as "removing these heads hurts more than removing random ones" is read off a
**null distribution**: the same measurement on many random choices (all 270 single heads, or
≥ 30 random sets of k heads). :func:`percentile` says where the named choice falls in it;
:func:`spread` summarises a value measured on several sequences (mean, a bootstrap interval,
min and max), so that a table shows how much the sequences disagree.
"""
from __future__ import annotations

import numpy as np

from ..render.validation import as_real_array, boolean, finite_scalar, integer, max_abs, positive_int, work_limit
from ..render.validation import seed as check_seed

#: most values one bootstrap draws in all (resamples × sample size)
MAX_BOOTSTRAP_DRAWS = 10_000_000


def percentile(value, null) -> float:
    """Percentage of the null sample below ``value`` (ties count half): 100 means above every
    draw, 50 the median. A value also in the null (a head among all heads) counts as a tie."""
    value = finite_scalar("value", value)
    null = as_real_array("null", null).ravel()
    return float(100.0 * (np.sum(null < value) + 0.5 * np.sum(null == value)) / len(null))


def spread(values, *, level: float = 0.95, resamples: int = 2000, seed: int = 0) -> dict:
    """Mean of ``values`` (one per sequence) with a bootstrap ``level`` interval of the mean
    (``resamples`` seeded resamples), the minimum and the maximum: ``{"mean", "low", "high",
    "min", "max", "n"}``. Values whose sum could overflow (``[1e308, 1e308]``) are averaged after
    dividing by their largest magnitude, then scaled back: the mean stays finite.

    ``resamples × len(values)`` is at most :data:`MAX_BOOTSTRAP_DRAWS`: every resample draws ``len(values)``
    values (10 million draws take about a second and 160 MB)."""
    values = as_real_array("values", values, ndim=1)
    level = finite_scalar("level", level, low=0.0, high=1.0, low_open=True)
    if level >= 1.0:
        raise ValueError(f"level must be below 1 (e.g. 0.95), got {level}")
    resamples = positive_int("resamples", resamples, maximum=MAX_BOOTSTRAP_DRAWS)
    work_limit("resamples × len(values)", resamples * len(values), MAX_BOOTSTRAP_DRAWS,
               "every resample draws len(values) values; 10 million draws take about a second and 160 MB")
    rng = np.random.default_rng(check_seed("seed", seed))
    top = max_abs(values)
    scale = top if top * len(values) > 1e300 else 1.0   # only where a sum could overflow: ordinary samples are averaged unscaled
    unit = values / scale
    means = unit[rng.integers(0, len(values), (resamples, len(values)))].mean(axis=1)
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return {"mean": float(unit.mean() * scale), "low": float(low * scale), "high": float(high * scale),
            "min": float(values.min()), "max": float(values.max()), "n": len(values)}


def spread_text(values, null=None, *, digits: int = 2, signed: bool = True) -> str:
    """One table cell: the mean of ``values`` (one per sequence) with its bootstrap 95% interval,
    ``"+1.80 [+1.47, +2.10]"`` (a change; ``signed=False`` for a level such as a loss:
    ``"6.19 [4.65, 7.91]"``); with ``null``, followed by the mean's percentile in it (``" 98"``)."""
    digits = integer("digits", digits, low=0, high=6)
    f = f"{'+' if boolean('signed', signed) else ''}.{digits}f"
    s = spread(values)
    text = f"{s['mean']:{f}} [{s['low']:{f}}, {s['high']:{f}}]"
    return text if null is None else f"{text} {percentile(s['mean'], null):.0f}"


def difference_spread(values, control, *, level: float = 0.95, resamples: int = 2000, seed: int = 0) -> dict:
    """The difference of two means, ``mean(values) − mean(control)``, for two independent samples
    (e.g. 12 study sequences and 12 other control sequences), with a bootstrap ``level`` interval
    of the difference: each resample redraws both samples, each from itself. ``{"mean", "low",
    "high"}``. An interval that excludes 0 separates the two; two intervals that merely overlap
    do not test the difference (the interval of a difference is narrower than their union)."""
    values = as_real_array("values", values, ndim=1)
    control = as_real_array("control", control, ndim=1)
    level = finite_scalar("level", level, low=0.0, high=1.0, low_open=True)
    if level >= 1.0:
        raise ValueError(f"level must be below 1 (e.g. 0.95), got {level}")
    resamples = positive_int("resamples", resamples, maximum=MAX_BOOTSTRAP_DRAWS)
    work_limit("resamples × (len(values) + len(control))", resamples * (len(values) + len(control)),
               MAX_BOOTSTRAP_DRAWS, "every resample draws both samples again")
    rng = np.random.default_rng(check_seed("seed", seed))
    draws = [x[rng.integers(0, len(x), (resamples, len(x)))].mean(axis=1) for x in (values, control)]
    low, high = np.quantile(draws[0] - draws[1], [(1 - level) / 2, (1 + level) / 2])
    return {"mean": float(values.mean() - control.mean()), "low": float(low), "high": float(high)}


def difference_text(values, control, *, digits: int = 2) -> str:
    """:func:`difference_spread` as ``"+0.95 [+0.31, +1.62]"``."""
    digits = integer("digits", digits, low=0, high=6)
    d = difference_spread(values, control)
    return f"{d['mean']:+.{digits}f} [{d['low']:+.{digits}f}, {d['high']:+.{digits}f}]"


def ranks(values) -> np.ndarray:
    """Ranks 1 … n of a 1-D sample (ties get the mean of their ranks)."""
    values = as_real_array("values", values).ravel()
    order = np.argsort(values, kind="stable")
    r = np.empty(len(values))
    r[order] = np.arange(1, len(values) + 1)
    unique, counts = np.unique(values, return_counts=True)
    for v in unique[counts > 1]:
        r[values == v] = r[values == v].mean()
    return r


def rank_correlation(x, y) -> float:
    """Spearman's rank correlation of two equally long samples (any shape, flattened): the
    Pearson correlation of their ranks, in [−1, 1]."""
    x, y = as_real_array("x", x).ravel(), as_real_array("y", y).ravel()
    if len(x) != len(y) or len(x) < 2:
        raise ValueError(f"x and y must hold the same number (≥ 2) of values, got {len(x)} and {len(y)}")
    rx, ry = ranks(x) - (len(x) + 1) / 2, ranks(y) - (len(y) + 1) / 2
    denominator = np.sqrt((rx ** 2).sum() * (ry ** 2).sum())
    if denominator == 0:
        raise ValueError("x and y must each hold at least two different values (a constant sample has no ranks to correlate)")
    return float((rx * ry).sum() / denominator)
