"""helpers.tiled: tiled attention with the online softmax equals the naive one, in little memory."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import scaled_dot_product_attention, softmax, tiled
from helpers.tiled import measure, naive_attention, online_softmax_steps, tiled_attention


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 70), st.integers(1, 70), st.integers(1, 16), st.integers(1, 80), st.booleans(),
       st.integers(0, 10_000))
def test_tiled_equals_naive(n_q, extra_keys, d, block, causal, seed):
    rng = np.random.default_rng(seed)
    n_k = n_q + extra_keys if causal else extra_keys
    q = rng.standard_normal((n_q, d)) * 3
    k = rng.standard_normal((n_k, d)) * 3
    v = rng.standard_normal((n_k, d + 1))

    expected, _ = scaled_dot_product_attention(q, k, v, causal=causal)
    np.testing.assert_allclose(tiled_attention(q, k, v, block=block, causal=causal), expected, atol=1e-10)


def test_online_softmax_last_step_is_exact():
    rng = np.random.default_rng(1)
    s, v = rng.standard_normal(13) * 5, rng.standard_normal((13, 3))
    for block in (1, 4, 13, 20):
        steps = online_softmax_steps(s, v, block)
        assert len(steps) == -(-13 // block)
        np.testing.assert_allclose(steps[-1].output, softmax(s) @ v, atol=1e-12)
        assert steps[-1].running_max == s.max()


def test_tiled_peak_memory_is_small_at_2048():
    """The naive way holds at least one n × n table of float64 scores (07 measures it); the tiled
    way's peak stays under an eighth of that table, and the naive one really reaches it (n = 1024)."""
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((3, 2048, 64))
    _, tiled_peak = measure(tiled_attention, q, k, v, block=128, causal=True)
    table = 2048 ** 2 * 8
    assert tiled_peak <= table / 8, (tiled_peak, table)
    small = rng.standard_normal((3, 1024, 64))
    _, naive_peak = measure(naive_attention, *small)
    assert naive_peak >= 1024 ** 2 * 8, naive_peak


def test_tiled_validation():
    with pytest.raises(ValueError, match="block must be >= 1"):
        tiled_attention(np.zeros((2, 2)), np.zeros((2, 2)), np.zeros((2, 2)), block=0)
    with pytest.raises(ValueError, match="k and v need the same number of rows"):
        tiled_attention(np.zeros((2, 2)), np.zeros((2, 2)), np.zeros((3, 2)))


def test_online_softmax_update_steps_to_the_softmax_and_checks_its_state():
    rng = np.random.default_rng(3)
    scores, values = rng.standard_normal(10) * 3, rng.standard_normal((10, 2))
    m, l, acc = -np.inf, 0.0, np.zeros(2)
    for start in range(0, 10, 4):
        m, l, acc = tiled.online_softmax_update(m, l, acc, scores[start:start + 4], values[start:start + 4])
    assert m == scores.max()
    assert np.allclose(acc / l, softmax(scores) @ values, rtol=1e-12, atol=1e-12)
    steps = tiled.online_softmax_steps(scores, values, 4)
    assert (steps[-1].running_max, steps[-1].running_sum) == (m, l)
    with pytest.raises(ValueError, match="running_sum"):
        tiled.online_softmax_update(-np.inf, 1.0, np.zeros(2), scores[:2], values[:2])
    with pytest.raises(ValueError, match="values"):
        tiled.online_softmax_update(0.0, 1.0, np.zeros(3), scores[:2], values[:2])
    with pytest.raises(ValueError, match="running_max"):
        tiled.online_softmax_update(np.nan, 1.0, np.zeros(2), scores[:2], values[:2])
