"""tests/support/blas.py: the one tolerance for two computations that take different BLAS paths."""
import numpy as np
import pytest
from blas import LAMBDA, assert_blas_close, blas_tolerance, forward_reductions, lm_head_reductions

from helpers.config import ModelConfig


def test_the_tolerance_grows_with_the_root_of_the_terms_the_depth_and_the_precision():
    assert blas_tolerance(np.float32, 100) == pytest.approx(LAMBDA * 10 * np.finfo(np.float32).eps)
    assert blas_tolerance(np.float32, 400) == pytest.approx(2 * blas_tolerance(np.float32, 100))
    assert blas_tolerance(np.float32, 100, depth=3) == pytest.approx(3 * blas_tolerance(np.float32, 100))
    assert blas_tolerance(np.float64, 100) < 1e-8 * blas_tolerance(np.float32, 100)
    with pytest.raises(TypeError, match="dtype must be a floating dtype"):
        blas_tolerance(np.int64, 10)
    with pytest.raises(ValueError, match="reduction_size and depth"):
        blas_tolerance(np.float32, 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_any_summation_order_stays_inside_it(dtype):
    """Sequential, pairwise (numpy's sum) and BLAS (a GEMM on a batch, a GEMV on one row) orders."""
    rng = np.random.default_rng(0)
    n = 4096
    a, b = rng.standard_normal((64, n)).astype(dtype), rng.standard_normal(n).astype(dtype)
    batch = a @ b
    for i in range(0, 64, 9):
        terms = a[i] * b
        scale = float(np.abs(terms.astype(np.float64)).sum())
        exact = float(np.sum(terms.astype(np.longdouble)))
        for value in (batch[i], a[i] @ b, terms.sum(), np.cumsum(terms)[-1]):
            assert abs(float(value) - exact) <= blas_tolerance(dtype, n) / 2 * scale


def test_the_assertion_is_normwise_and_catches_a_real_difference():
    desired = np.array([5.0, 1e-9])
    assert_blas_close(desired + 1e-6, desired, dtype=np.float32, reduction_size=16)  # near zero: the scale is 5
    with pytest.raises(AssertionError):
        assert_blas_close(desired + 1e-3, desired, dtype=np.float32, reduction_size=16)
    assert_blas_close([1e-3], [0.0], dtype=np.float32, reduction_size=16, scale=1e3)


def test_a_forwards_reductions_are_its_float32_matmuls():
    cfg = ModelConfig(name="t", hidden_size=8, num_layers=2, num_heads=2, num_kv_heads=1, head_dim=4,
                      intermediate_size=16, vocab_size=10, rope_theta=1e4, tie_word_embeddings=True, source="t")
    assert forward_reductions(cfg) == {"dtype": np.float32, "reduction_size": 16, "depth": 5}
    assert lm_head_reductions(cfg) == {"dtype": np.float32, "reduction_size": 8}
