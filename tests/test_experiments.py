"""The √d experiments and the KV cache (04_sqrt_d, 05_causal_mask)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import example, scaled_dot_product_attention, scaling
from helpers.kv_cache import KVCache, decode_with_cache, earlier_output_change


@pytest.mark.parametrize("d", [2, 16, 128])
def test_dot_product_std_is_sqrt_d(d):
    # 20 000 samples: the std estimate's relative error is about 1/sqrt(2N) = 0.5%; allow 3%
    assert scaling.dot_product_std(d) == pytest.approx(np.sqrt(d), rel=0.03)


def test_article_sqrt_d_figures():
    assert round(scaling.dot_product_std(2), 1) == 1.4
    assert round(scaling.dot_product_std(128), 1) == 11.3
    assert round(scaling.mean_max_weight(5, 128, scaled=False), 2) == 0.93
    assert round(scaling.mean_max_weight(5, 128, scaled=True), 2) == 0.46


def test_score_pool_matches_literal_simulation():
    pool = scaling.ScorePool(trials=200)
    for d in (2, 128):
        literal = scaling.random_scores(5, d, 4000)
        pooled = pool.scores(5, d)
        assert np.std(pooled) == pytest.approx(np.std(literal), rel=0.1)
        # mean max weight unscaled, within Monte-Carlo tolerance
        from helpers import softmax

        assert softmax(pooled).max(-1).mean() == pytest.approx(softmax(literal).max(-1).mean(), abs=0.05)
    with pytest.raises(ValueError, match="d must be one of"):
        pool.scores(5, 3)


def test_jacobian_closed_form_and_saturation():
    from helpers import softmax

    s = scaling.standard_scores(6)
    p = softmax(s)
    assert scaling.jacobian_norms(p[None])[0] == pytest.approx(np.linalg.norm(scaling.softmax_jacobian(p)))
    # numerical derivative agrees with diag(p) - p pᵀ
    eps = 1e-6
    numeric = np.array([(softmax(s + eps * np.eye(6)[j]) - softmax(s - eps * np.eye(6)[j])) / (2 * eps)
                        for j in range(6)]).T
    np.testing.assert_allclose(numeric, scaling.softmax_jacobian(p), atol=1e-8)
    rows = scaling.jacobian_vs_temperature(s, [1, 4, 32])
    assert rows[0][2] > rows[1][2] > rows[2][2] and rows[2][2] < 1e-3


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 9), st.integers(1, 6), st.integers(1, 6), st.integers(0, 10_000))
def test_cached_decoding_equals_full_causal(n, d, d_v, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=(2, n, d))
    v = rng.normal(size=(n, d_v))
    full, _ = scaled_dot_product_attention(q, k, v, causal=True)
    np.testing.assert_allclose(decode_with_cache(q, k, v), full, atol=1e-12)


def test_mask_makes_earlier_outputs_stable():
    tokens, qkv = example.extended_qkv(1)
    assert earlier_output_change(qkv.q, qkv.k, qkv.v, 4, causal=True) == 0.0
    assert earlier_output_change(qkv.q, qkv.k, qkv.v, 4, causal=False) > 0.05


def test_kv_cache_validation():
    cache = KVCache(2, 3)
    with pytest.raises(ValueError, match="v_row"):
        cache.step([1.0, 0.0], [1.0, 0.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="one row per token"):
        decode_with_cache(np.zeros((3, 2)), np.zeros((2, 2)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="n_extra"):
        example.extended_qkv(9)
