"""helpers.cost: FLOPs and bytes from a model config, the article's figures, the crossovers."""
import pytest

from helpers import config, cost

C = config.LLAMA_3_1_8B

GiB, KiB = 2 ** 30, 2 ** 10


def test_article_flops():
    assert round(cost.attention_flops_per_token(C, 8192) / 1e9, 1) == 4.3
    assert round(cost.attention_flops_per_token(C, 131072) / 1e9, 1) == 68.7
    assert round(cost.weight_flops_per_token(C) / 1e9, 1) == 15.0


def test_article_prefill_shares():
    assert round(cost.prefill_share(C, 8192) * 100) == 14
    assert round(cost.prefill_share(C, 32768) * 100) == 57
    assert round(cost.prefill_share(C, 131072), 1) == 2.3


def test_article_memory():
    assert [cost.score_table_bytes(C, n) / GiB for n in (8192, 32768, 131072)] == [4, 64, 1024]
    assert cost.kv_cache_bytes_per_token(C) == 128 * KiB
    assert cost.kv_cache_bytes(C, 131072) == 16 * GiB
    assert cost.kv_cache_bytes(C, 1000, dtype="fp8", batch=4) == 4 * 1000 * 64 * KiB


def test_param_counts_from_config():
    assert C.total_params() == 8_030_261_248  # Llama-3.1-8B's published size (8.03B)
    assert config.preset("Llama-3.2-1B").total_params() == 1_235_814_400  # tied embeddings
    assert C.projection_shapes()["k_proj"] == (4096, 1024)


def test_crossovers_are_where_curves_meet():
    cross = cost.crossovers(C)
    n = cross["per_token"]
    assert 4 * n * C.q_dim * C.num_layers == pytest.approx(cost.weight_flops_per_token(C))
    assert cost.prefill_share(C, int(round(cross["prefill"]))) == pytest.approx(1.0, rel=1e-4)
    m = int(cross["table_vs_cache"])
    assert cost.score_table_bytes(C, m) == cost.kv_cache_bytes(C, m)


def test_cost_validation():
    with pytest.raises(ValueError, match="dtype must be one of"):
        cost.score_table_bytes(C, 10, dtype="int3")
    with pytest.raises(ValueError, match="n must be >= 1"):
        cost.attention_flops_per_token(C, 0)
    with pytest.raises(ValueError, match="num_kv_heads .* must divide"):
        config.ModelConfig("bad", 64, 1, 6, 4, 8, 128, 10, 1e4, False, "test")
