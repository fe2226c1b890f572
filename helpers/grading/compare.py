"""Comparing the learner's outputs with the reference's: which tolerance, at which precision.

The expected values are the reference implementation's, computed in float64
(:func:`reference_outputs`) only after the learner's calls are over, so nothing the learner's code
can reach holds them. Precision
is judged per case (:func:`judged_precisions`): float32 where the case's input or the learner's
result is float32 — the tolerance is then the error the reference itself makes in float32 on that
very case, with a margin (:func:`tolerances`) — and the exercise's float64 tolerance elsewhere.
"""
from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass

import numpy as np

from .code_exercise import Case, CodeExercise


def fit(got: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """A one-element array where a scalar is expected (``np.float64`` vs ``array([x])``) is read as it."""
    if expected.shape == () and got.size == 1:
        return got.reshape(())
    return got


def _tol(tol, i):
    """The ``i``-th output's tolerance when ``tol`` is a per-output tuple, else ``tol`` itself."""
    return tol[i] if isinstance(tol, (tuple, list)) else tol


def matches(got: tuple, other: tuple, rtol, atol) -> bool:
    """Whether every output of ``got`` has ``other``'s shape and values (NaN matching NaN): the test
    of a wrong implementation reproducing the learner's outputs. ``rtol``/``atol``: one per output."""
    for i in range(len(got)):
        g, o = fit(got[i], other[i]), other[i]
        if g.shape != o.shape or not np.allclose(g, o, rtol=_tol(rtol, i), atol=_tol(atol, i), equal_nan=True):
            return False
    return True


#: float32 results may differ from the exact value by this many times the error the reference itself
#: makes in float32 on the same case (two float32 paths round differently: a factor, not equality) …
FLOAT32_ERROR_FACTOR = 4.0
#: … plus this many float32 rounding units relative to the value (one exp and short sums per value)
FLOAT32_ULPS = 64


def _cast_args(args: tuple, dtype) -> tuple:
    """``args`` with every floating array and float in ``dtype`` (ints, lists of indices unchanged)."""
    def cast(a):
        if isinstance(a, np.ndarray) and a.dtype.kind == "f":
            return a.astype(dtype)
        if isinstance(a, (float, np.floating)):
            return dtype(a)
        return a
    return tuple(cast(a) for a in args)


def _outputs(exercise: CodeExercise, value) -> tuple:
    return tuple(np.asarray(e, dtype=float) for e in (value if len(exercise.outputs) > 1 else (value,)))


def reference_outputs(exercise: CodeExercise, case: Case) -> tuple:
    """The reference's outputs on ``case``, computed in float64 (float32 inputs are exact in float64)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        args = copy.deepcopy(_cast_args(case.args, np.float64))
        return _outputs(exercise, measured(exercise, exercise.reference(*args), args))


def measured(exercise: CodeExercise, value, args: tuple):
    """``value`` (what a function returned on ``args``) as the outputs to compare: the exercise's
    :attr:`~helpers.grading.code_exercise.CodeExercise.measure` of it, else ``value`` itself."""
    return value if exercise.measure is None else exercise.measure(value, *args)


def tolerances(exercise: CodeExercise, case: Case, exact: tuple, precisions: tuple, ulps: int = FLOAT32_ULPS) -> tuple:
    """``((rtol, atol), …)`` per output: the exercise's for float64 results; for float32 results the
    error the reference itself makes in float32 on this very case (× :data:`FLOAT32_ERROR_FACTOR`) plus
    ``ulps`` float32 rounding units — a float32 solution is judged at float32 precision."""
    tols = []
    ref32 = None
    for i, e in enumerate(exact):
        rtol, atol = exercise.output_tolerances[i] if i < len(exercise.output_tolerances) else (exercise.rtol, exercise.atol)
        if i < len(precisions) and precisions[i] is np.float32:
            if ref32 is None:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    args32 = copy.deepcopy(_cast_args(case.args, np.float32))
                    ref32 = _outputs(exercise, measured(exercise, exercise.reference(*args32), args32))
            eps = float(np.finfo(np.float32).eps)
            err = np.abs(ref32[i] - e) if ref32[i].shape == e.shape else np.zeros_like(e)
            err = np.where(np.isfinite(err), err, 0.0)
            rel = float(np.max(FLOAT32_ERROR_FACTOR * err / (1.0 + np.abs(e)), initial=0.0)) + ulps * eps
            tols.append((max(rel, rtol), max(rel, atol)))
        else:
            tols.append((rtol, atol))
    return tuple(tols)


_SHAPES: dict = {}


def expected_shapes(exercise: CodeExercise, cases: list) -> list:
    """The shapes of the reference's outputs per case (cached per exercise; values are not kept, so
    the learner's code finds no expected value in memory while it runs)."""
    cached = _SHAPES.get((id(exercise), len(cases)))
    if cached is None or cached[0] is not exercise:
        cached = (exercise, [tuple(e.shape for e in reference_outputs(exercise, c)) for c in cases])
        _SHAPES[(id(exercise), len(cases))] = cached
    return cached[1]


@dataclass
class Result:
    """One case the learner's function answered readably: its outputs, the exact ones, the tolerance
    per output and which outputs are right."""

    case: Case
    index: int
    got: tuple
    exact: tuple
    tols: tuple
    ok: list
    precisions: tuple

    @property
    def rtol(self):
        return tuple(t[0] for t in self.tols)

    @property
    def atol(self):
        return tuple(t[1] for t in self.tols)


def close_each(got: tuple, exact: tuple, tols: tuple) -> list:
    """Per output: ``True`` when its shape agrees and its values are within that output's ``(rtol, atol)``."""
    return [fit(g, e).shape == e.shape and bool(np.allclose(fit(g, e), e, rtol=r, atol=a))
            for g, e, (r, a) in zip(got, exact, tols)]


def input_is_float32(case: Case) -> bool:
    """Whether any argument of ``case`` is a float32 array or number."""
    return any(isinstance(a, (np.ndarray, np.generic)) and a.dtype == np.float32 for a in case.args)


def judged_precisions(case: Case, returned: tuple, count: int) -> tuple:
    """The precision each output of ``case`` is judged at: float32 when the case's input is float32
    (a learner may compute in either, and float32 input carries float32 rounding into any step done in
    float32) or when that output came back float32; float64 otherwise — a float64 case keeps the
    exercise's float64 tolerance whatever the other cases were."""
    if input_is_float32(case):
        return (np.float32,) * count
    return tuple(returned[i] if i < len(returned) else np.float64 for i in range(count))
