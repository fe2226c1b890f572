"""helpers.kv_cache: cached decoding equals the full causal pass; the mask keeps earlier outputs."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import example, kv_cache, scaled_dot_product_attention
from helpers.kv_cache import KVCache, decode_with_cache, earlier_output_change


def test_stacked_kv_change_needs_the_mask_from_layer_two_on():
    x = np.vstack([example.X, example.X_EXTRA[:2]])
    masked = kv_cache.stacked_kv_change(x, 4, causal=True, n_layers=3)
    unmasked = kv_cache.stacked_kv_change(x, 4, causal=False, n_layers=3)
    assert [layer for layer, _, _ in masked] == [1, 2, 3]
    assert all(dk == 0.0 and dv == 0.0 for _, dk, dv in masked)
    assert unmasked[0][1:] == (0.0, 0.0)  # layer 1: projections of unchanged inputs, mask or not
    assert all(dk > 1e-3 and dv > 1e-3 for _, dk, dv in unmasked[1:])
    with pytest.raises(ValueError, match="n_before must be <= 5, got 6"):
        kv_cache.stacked_kv_change(x, 6, causal=True)
    with pytest.raises(ValueError, match="num_heads=3"):
        kv_cache.stacked_kv_change(x, 4, causal=True, num_heads=3)


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
