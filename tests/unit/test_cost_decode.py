"""What a generated token reads (helpers.cost's decode arithmetic) and the FLOP counts of
helpers.tiled's implementations: against hand-written formulas from the config's fields."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import config, cost
from helpers.tiled import matmul_flops, naive_attention, tiled_attention

C = config.LLAMA_3_1_8B
GiB = 2 ** 30
KV_PER_TOKEN = 2 * C.num_layers * C.num_kv_heads * C.head_dim * 2  # K and V, every layer, BF16


def test_weights_read_per_token_are_every_multiplied_parameter_in_bf16():
    # layers + final norm + lm_head; the embedding table is looked up, not read whole
    assert cost.weight_bytes(C) == 2 * (C.total_params() - C.vocab_size * C.hidden_size)
    assert round(cost.weight_bytes(C) / GiB, 1) == 14.0
    assert cost.weight_bytes(C, dtype="fp8") == cost.weight_bytes(C) / 2


def test_at_128k_the_kv_cache_is_16_gib_and_about_half_of_the_bytes():
    reads = cost.decode_read_bytes(C, 131072)
    assert reads["kv_cache"] == 16 * GiB == 131072 * KV_PER_TOKEN
    share = cost.decode_shares(C, 131072)["bytes"]
    assert share == pytest.approx(16 / (16 + cost.weight_bytes(C) / GiB))
    assert 0.5 < share < 0.55


def test_the_crossover_is_where_kv_bytes_equal_weight_bytes():
    n = cost.decode_crossover(C)
    assert n == pytest.approx(cost.weight_bytes(C) / KV_PER_TOKEN)
    below, above = (cost.decode_read_bytes(C, m) for m in (int(n), int(n) + 1))
    assert below["kv_cache"] < below["weights"] and above["kv_cache"] > above["weights"]
    assert cost.decode_shares(C, int(round(n)))["bytes"] == pytest.approx(0.5, abs=1e-5)


def test_batch_shares_the_weights_but_not_the_kv_cache():
    one, eight = cost.decode_read_bytes(C, 4096), cost.decode_read_bytes(C, 4096, batch=8)
    assert eight["weights"] == one["weights"] / 8 and eight["kv_cache"] == one["kv_cache"]
    assert cost.decode_crossover(C, batch=8) == pytest.approx(cost.decode_crossover(C) / 8)
    assert cost.decode_crossover(C, dtype="fp8") == pytest.approx(cost.decode_crossover(C))  # dtype cancels


@pytest.mark.parametrize("n", [1024, 8192, 131072])
def test_bytes_share_at_n_is_the_flops_share_at_n_over_the_group_size(n):
    """Attention does q_dim / kv_dim = 4 FLOPs per KV byte, the weights 1 per byte (BF16):
    counted in bytes, attention weighs what it weighs in FLOPs at a 4× shorter length."""
    assert C.q_dim / C.kv_dim == 4
    assert cost.decode_shares(C, 4 * n)["bytes"] == pytest.approx(cost.decode_shares(C, n)["flops"])
    assert cost.decode_shares(C, n)["flops"] > cost.decode_shares(C, n)["bytes"]


def test_decode_at_batch_1_waits_on_memory_and_a_large_batch_on_compute():
    gpu = cost.H100_SXM
    assert gpu.ridge == pytest.approx(989 / 3.35)
    slow = cost.decode_step_times(C, 131072, gpu)
    assert slow["flops_per_byte"] < 3 < gpu.ridge
    assert slow["read_s"] > 100 * slow["compute_s"]
    assert slow["read_s"] == pytest.approx((cost.weight_bytes(C) + 16 * GiB) / gpu.bandwidth)
    # short context: each weight byte serves `batch` tokens' 1 FLOP each → past the ridge, compute bounds
    busy = cost.decode_step_times(C, 1, gpu, batch=512)
    assert busy["flops_per_byte"] > gpu.ridge and busy["compute_s"] > busy["read_s"]


def test_decode_arguments_are_named_when_wrong():
    with pytest.raises(TypeError, match="accelerator"):
        cost.decode_step_times(C, 10, "H100")
    with pytest.raises(ValueError, match="batch"):
        cost.decode_read_bytes(C, 10, batch=0)
    with pytest.raises(ValueError, match="dtype"):
        cost.decode_crossover(C, dtype="int3")
    with pytest.raises(ValueError, match="bandwidth"):
        cost.Accelerator("x", 1e12, 0.0, "test")


# ---- helpers.tiled: same result when visiting every block, and how many multiply-adds each does
@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(1, 8), st.integers(1, 12), st.integers(0, 1000))
def test_visiting_every_block_gives_the_same_result(n, d, block, seed):
    q, k, v = np.random.default_rng(seed).standard_normal((3, n, d))
    every = tiled_attention(q, k, v, block=block, causal=True, skip_masked=False)
    assert np.allclose(every, naive_attention(q, k, v), atol=1e-10)
    assert np.allclose(every, tiled_attention(q, k, v, block=block, causal=True), atol=1e-10)


def test_matmul_flops_counts_the_blocks_visited():
    n, d, block = 4096, 64, 128
    assert matmul_flops(n, d) == 4 * n * n * d
    assert matmul_flops(n, d, block=block, skip_masked=False) == matmul_flops(n, d)
    m = n // block  # m query blocks; the i-th sees i + 1 key blocks
    assert matmul_flops(n, d, block=block) == 4 * d * block * block * m * (m + 1) // 2
    assert matmul_flops(n, d, block=block, causal=False) == matmul_flops(n, d)
    assert matmul_flops(100, 8, block=1) == 4 * 8 * 100 * 101 // 2  # block 1: exactly the lower triangle


def test_matmul_flops_names_bad_arguments():
    with pytest.raises(ValueError, match="block"):
        matmul_flops(10, 4, block=0)
    with pytest.raises(ValueError, match="block"):
        matmul_flops(2 ** 31, 4, block=1)
