"""The cost of length, driven by a :class:`helpers.config.ModelConfig` (``07_cost_of_length``).

Also the KV-cache size per token used in ``06_attention_layer`` and ``09_real_model``.
"""
from __future__ import annotations

from .config import ModelConfig
from .render.validation import choice, instance, positive_int

DTYPE_BYTES = {"bf16": 2, "fp16": 2, "fp8": 1, "fp32": 4}
GiB = 1024 ** 3
KiB = 1024


def kv_cache_bytes_per_token(config, *, dtype: str = "bf16", num_kv_heads: int | None = None) -> int:
    """K and V of one token over all layers: ``2 · layers · kv_heads · head_dim · bytes``."""
    _config(config)
    kv = config.num_kv_heads if num_kv_heads is None else positive_int("num_kv_heads", num_kv_heads,
                                                                        maximum=config.num_heads)
    return 2 * config.num_layers * kv * config.head_dim * DTYPE_BYTES[_dtype(dtype)]


def _config(config) -> ModelConfig:
    return instance("config", config, ModelConfig, "ModelConfig (e.g. helpers.config.LLAMA_3_1_8B)")


def _dtype(dtype) -> str:
    return choice("dtype", dtype, DTYPE_BYTES)


def _n(n) -> int:
    return positive_int("n", n, maximum=2 ** 40)


def _batch(batch) -> int:
    return positive_int("batch", batch, maximum=2 ** 20)


def attention_flops_per_token(config, n: int) -> float:
    """FLOPs for one new token attending over ``n`` positions, all layers:
    QKᵀ and PV each cost ``2 · n · head_dim`` per head → ``4 · n · heads · head_dim · layers``."""
    return 4.0 * _n(n) * _config(config).q_dim * config.num_layers


def weight_flops_per_token(config) -> float:
    """FLOPs of the weight matmuls per token: 2 × (non-embedding parameters incl. lm_head).
    Independent of n (``07_cost_of_length``)."""
    return 2.0 * _config(config).matmul_params()


def prefill_attention_flops(config, n: int) -> float:
    """Attention FLOPs of processing ``n`` tokens at once: each sees n/2 positions on average,
    ``2 · n² · heads · head_dim · layers``."""
    return 2.0 * float(_n(n)) ** 2 * _config(config).q_dim * config.num_layers


def prefill_share(config, n: int) -> float:
    """Prefill attention FLOPs relative to the fixed (weight) FLOPs of the same ``n`` tokens."""
    return prefill_attention_flops(config, n) / (_n(n) * weight_flops_per_token(config))


def score_table_bytes(config, n: int, *, dtype: str = "bf16", batch: int = 1) -> float:
    """One layer's full score tables written out: ``heads · n² · bytes`` (what FlashAttention avoids)."""
    return float(_batch(batch)) * _config(config).num_heads * float(_n(n)) ** 2 * DTYPE_BYTES[_dtype(dtype)]


def kv_cache_bytes(config, n: int, *, dtype: str = "bf16", batch: int = 1) -> float:
    """KV cache of ``n`` tokens (all layers) for ``batch`` sequences."""
    return float(_batch(batch)) * _n(n) * kv_cache_bytes_per_token(config, dtype=dtype)


def crossovers(config) -> dict:
    """Lengths where the curves of ``07`` cross.

    - ``per_token``: attention FLOPs per token = fixed FLOPs per token;
    - ``prefill``: prefill attention FLOPs = fixed FLOPs of the prefill;
    - ``table_vs_cache``: one layer's score table = the whole model's KV cache (same dtype, batch).
    """
    fixed = weight_flops_per_token(_config(config))
    return {
        "per_token": fixed / (4.0 * config.q_dim * config.num_layers),
        "prefill": fixed / (2.0 * config.q_dim * config.num_layers),
        "table_vs_cache": 2.0 * config.num_layers * config.num_kv_heads * config.head_dim / config.num_heads,
    }
