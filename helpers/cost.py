"""The cost of length, driven by a :class:`helpers.config.ModelConfig` (``07_cost_of_length``).

Also the KV-cache size per token used in ``06_attention_layer`` and ``09_real_model``.
"""
from __future__ import annotations

from .validation import one_of, positive_int

DTYPE_BYTES = {"bf16": 2, "fp16": 2, "fp8": 1, "fp32": 4}
GiB = 1024 ** 3
KiB = 1024


def kv_cache_bytes_per_token(config, *, dtype: str = "bf16", num_kv_heads: int | None = None) -> int:
    """K and V of one token over all layers: ``2 · layers · kv_heads · head_dim · bytes``."""
    kv = config.num_kv_heads if num_kv_heads is None else positive_int("num_kv_heads", num_kv_heads)
    return 2 * config.num_layers * kv * config.head_dim * DTYPE_BYTES[one_of("dtype", dtype, DTYPE_BYTES)]
