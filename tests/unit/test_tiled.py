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


# ---- the fast-memory simulator of 07's exercise 4 ----------------------------------------------------
from helpers.tiled import FastMemory, FastMemoryFull, flash_forward, flash_traffic, naive_traffic  # noqa: E402


def _problem(n, d, seed=0):
    return np.random.default_rng(seed).standard_normal((3, n, d))


@pytest.mark.parametrize("n, d, bq, bk", [(8, 2, 4, 4), (10, 3, 4, 4), (13, 4, 4, 3), (13, 4, 3, 5), (1, 3, 4, 4),
                                          (64, 8, 16, 8)])
def test_flash_forward_matches_attention_and_moves_what_the_count_on_paper_says(n, d, bq, bk):
    q, k, v = _problem(n, d)
    mem = FastMemory(q, k, v, 10_000)
    o, reads, writes = flash_forward(mem, bq, bk)
    # float64 sums of ≤ 64 terms of size ~1 (rounding ~1e-15): the reference's order differs, not its terms
    np.testing.assert_allclose(o, naive_attention(q, k, v), rtol=0, atol=1e-12)
    assert (reads, writes) == tuple(float(x) for x in flash_traffic(n, d, bq, bk).values())
    assert mem.held == 0  # every tile released once the forward returns


def test_the_counts_on_paper_for_one_block_and_the_naive_forward():
    assert flash_traffic(4, 2, 4, 4) == {"reads": 4 * 2 * 3, "writes": 8}
    assert naive_traffic(4, 2) == {"reads": 3 * 8 + 2 * 16, "writes": 2 * 16 + 8}
    assert flash_traffic(256, 16, 32, 32)["reads"] < naive_traffic(256, 16)["reads"] / 3


def test_an_array_that_does_not_fit_is_refused_with_its_size():
    q, k, v = _problem(16, 4)
    mem = FastMemory(q, k, v, 100)
    kb = mem.load("k", 0, 16)  # 64 floats
    with pytest.raises(FastMemoryFull, match=r"shape \(16, 16\) \(256 floats\).*64 of capacity=100"):
        kb @ kb.T
    assert mem.held == 64 and mem.peak == 64
    with pytest.raises(FastMemoryFull, match="40 floats"):
        mem.load("v", 0, 10)
    del kb
    assert mem.held == 0


def test_temporaries_count_while_they_live_and_views_are_free():
    q, k, v = _problem(8, 2)
    mem = FastMemory(q, k, v, 1000)
    qb = mem.load("q", 0, 4)
    s = np.exp(qb @ qb.T - 1.0)  # three 4×4 arrays made, one kept
    assert mem.peak == 8 + 16 + 16 and mem.held == 8 + 16
    _ = s[:, :2]
    assert mem.held == 8 + 16
    w = np.where(s > 1, s, 0.0)  # numpy functions' results are held too
    assert mem.held == 8 + 32 and isinstance(w, np.ndarray)


def test_bad_calls_name_the_argument():
    q, k, v = _problem(6, 2)
    mem = FastMemory(q, k, v, 100)
    with pytest.raises(ValueError, match="name must be one of 'q', 'k', 'v'"):
        mem.load("o", 0, 2)
    with pytest.raises(TypeError, match="start must be a row number"):
        mem.load("q", 0.0, 2)
    with pytest.raises(ValueError, match="start < n = 6"):
        mem.load("q", 6, 8)
    with pytest.raises(ValueError, match="store writes rows"):
        mem.store(5, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="k"):
        FastMemory(q, k[:3], v, 100)
    with pytest.raises(ValueError, match="capacity"):
        FastMemory(q, k, v, 0)


def test_a_load_past_n_reads_up_to_n_and_memories_with_the_same_problem_are_equal():
    q, k, v = _problem(6, 2)
    mem = FastMemory(q, k, v, 100)
    assert mem.load("k", 4, 10).shape == (2, 2) and mem.reads == 4
    mem.store(0, np.ones((6, 2)))
    assert mem == FastMemory(q, k, v, 100) and mem != FastMemory(q, k, v, 101)


def test_measure_leaves_memory_tracing_as_it_found_it_even_when_the_function_raises():
    """Tracing left on makes every later allocation in the kernel walk the whole stack (a deep recursion
    then takes time quadratic in its depth): ``measure`` stops what it started, whatever happens."""
    import tracemalloc

    def fails():
        raise ValueError("inside the timed call")
    with pytest.raises(ValueError, match="inside the timed call"):
        measure(fails)
    assert not tracemalloc.is_tracing()
    tracemalloc.start()
    try:
        measure(lambda: None)
        assert tracemalloc.is_tracing()  # someone else's tracing goes on
    finally:
        tracemalloc.stop()
