"""The one rule for comparing two computations that take different BLAS paths.

Two evaluations of the same math — batch vs one sequence, a few rows vs all rows, another CPU's
OpenBLAS kernel family (``OPENBLAS_CORETYPE``) or numpy's SIMD dispatch (``NPY_DISABLE_CPU_FEATURES``)
— add their products in different orders, so they agree to rounding, never bit for bit. Each
rounding of a sum of ``n`` terms errs by at most ``u = eps/2`` relative; the errors of a sum behave as
independent random variables, so its total error stays within ``λ·√n·u·Σ|term|`` with probability at
least ``1 − 2·exp(−λ²/2)`` (Higham & Mary, "A new approach to probabilistic rounding error
analysis", SISC 2019) — with ``λ = 8`` a failure once in ~10¹³ comparisons; two orders differ by at
most twice that, and chained reductions (layers) add theirs. Tests compare with
:func:`assert_blas_close` and a one-line reason; a bit-exact check stays only where the same code runs
on the same input, on values every order sums exactly (small integers), or under
``tools/data/pinned.py``'s ``pinned_env``.
"""
from __future__ import annotations

import numpy as np

#: how many standard deviations of rounding error a comparison allows (λ above)
LAMBDA = 8.0


def blas_tolerance(dtype, reduction_size: int, *, depth: int = 1) -> float:
    """The relative gap allowed between two orders of the same sums: ``2·λ·√n·u·depth`` with
    ``u = eps(dtype)/2``, for ``n = reduction_size`` terms per sum through ``depth`` chained
    reductions (a model's matmuls layer after layer) whose rounding errors add up."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"dtype must be a floating dtype, got {dtype}")
    if int(reduction_size) < 1 or int(depth) < 1:
        raise ValueError(f"reduction_size and depth must be ≥ 1, got {reduction_size} and {depth}")
    return LAMBDA * int(depth) * float(np.sqrt(int(reduction_size))) * float(np.finfo(dtype).eps)


def assert_blas_close(actual, desired, *, dtype, reduction_size: int, depth: int = 1, scale=None, err_msg=""):
    """``actual`` equals ``desired`` within :func:`blas_tolerance` times ``scale`` — the size of the
    summed terms, by default the largest ``|desired|`` (at least 1: a near-zero result of large
    terms still carries their rounding). Normwise, so a value near zero is not held to a tighter
    bound than the terms it was summed from allow."""
    desired = np.asarray(desired, dtype=float)
    actual = np.asarray(actual, dtype=float)
    if scale is None:
        scale = max(float(np.max(np.abs(desired), initial=0.0)), 1.0)
    atol = blas_tolerance(dtype, reduction_size, depth=depth) * float(scale)
    np.testing.assert_allclose(actual, desired, rtol=0, atol=atol, err_msg=err_msg)


def forward_reductions(config) -> dict:
    """:func:`assert_blas_close`'s ``dtype``, ``reduction_size`` and ``depth`` for two runs of
    ``helpers.real_model.forward`` (``config`` a ``ModelConfig``) on different paths: its float32
    reductions (the MLP's, over at most ``intermediate_size`` terms, and the lm_head's) dominate —
    the residual stream and attention run in float64 — two per layer plus the lm_head."""
    return {"dtype": np.float32, "reduction_size": max(config.hidden_size, config.intermediate_size),
            "depth": 2 * config.num_layers + 1}


def lm_head_reductions(config) -> dict:
    """:func:`assert_blas_close`'s arguments for two runs that differ only in which rows reach the
    lm_head (``logits_at``, a fast path): one float32 matmul over ``hidden_size`` terms."""
    return {"dtype": np.float32, "reduction_size": config.hidden_size}
