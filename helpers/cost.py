"""The cost of length, driven by a :class:`helpers.config.ModelConfig` (``07_cost_of_length``).

FLOPs (per token, prefill), memory (score tables, KV cache) and the bytes a decode step reads
(weights vs KV cache, :func:`decode_read_bytes`), set against an accelerator's published peak
rates (:class:`Accelerator`): FLOPs are not wall time. Also the KV-cache size per token used in
``06_attention_layer`` and ``09_real_model``.
"""
from __future__ import annotations

from dataclasses import dataclass

from .config import ModelConfig
from .render.validation import choice, instance, positive_float, positive_int, text

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


# ---- decode: the bytes each generated token reads (07_cost_of_length) ---------------------------
@dataclass(frozen=True)
class Accelerator:
    """An accelerator's published peak rates: dense BF16 matrix FLOP/s and memory bandwidth (bytes/s)."""

    name: str
    bf16_flops: float
    bandwidth: float
    source: str

    def __post_init__(self):
        text("name", self.name)
        positive_float("bf16_flops", self.bf16_flops)
        positive_float("bandwidth", self.bandwidth)
        text("source", self.source)

    @property
    def ridge(self) -> float:
        """FLOPs per byte read at which computing takes as long as reading (the roofline's ridge):
        work with fewer FLOPs per byte waits on memory."""
        return self.bf16_flops / self.bandwidth


H100_SXM = Accelerator(
    name="NVIDIA H100 SXM", bf16_flops=989e12, bandwidth=3.35e12,
    source="NVIDIA H100 Tensor Core GPU datasheet: BF16 Tensor Core 1,979 TFLOPS with sparsity "
           "(989 dense), GPU memory bandwidth 3.35 TB/s")


def _accelerator(accelerator) -> Accelerator:
    return instance("accelerator", accelerator, Accelerator, "Accelerator (e.g. helpers.cost.H100_SXM)")


def weight_bytes(config, *, dtype: str = "bf16") -> float:
    """Bytes of the weights one decode step reads: every matrix a token is multiplied by (all
    layers, the final norm, lm_head), ``matmul_params × bytes``, read once per step however many
    sequences the batch holds. The embedding table is only looked up (one row per token): not counted."""
    return float(_config(config).matmul_params()) * DTYPE_BYTES[_dtype(dtype)]


def decode_read_bytes(config, n: int, *, dtype: str = "bf16", batch: int = 1) -> dict:
    """Bytes read per generated token when each of ``batch`` sequences has ``n`` positions cached:
    ``{"weights": weight_bytes / batch, "kv_cache": n × KV bytes per token}`` (one decode step
    reads the weights once for the whole batch, and every sequence's own KV cache)."""
    batch = _batch(batch)
    return {"weights": weight_bytes(config, dtype=dtype) / batch,
            "kv_cache": float(_n(n)) * kv_cache_bytes_per_token(config, dtype=dtype)}


def decode_crossover(config, *, dtype: str = "bf16", batch: int = 1) -> float:
    """The cached length ``n`` at which a generated token reads as many KV-cache bytes as weight
    bytes: ``weight_bytes / (batch × KV bytes per token)`` (the dtype cancels when both use it)."""
    return weight_bytes(config, dtype=dtype) / (_batch(batch) * kv_cache_bytes_per_token(config, dtype=dtype))


def decode_shares(config, n: int, *, dtype: str = "bf16", batch: int = 1) -> dict:
    """Attention's share of a generated token's work at cached length ``n``, counted two ways:
    ``"flops"`` (attention FLOPs ÷ all FLOPs) and ``"bytes"`` (KV-cache bytes ÷ all bytes read)."""
    attention, weights = attention_flops_per_token(config, n), weight_flops_per_token(config)
    reads = decode_read_bytes(config, n, dtype=dtype, batch=batch)
    return {"flops": attention / (attention + weights),
            "bytes": reads["kv_cache"] / (reads["kv_cache"] + reads["weights"])}


def decode_step_times(config, n: int, accelerator=H100_SXM, *, dtype: str = "bf16", batch: int = 1) -> dict:
    """Lower bounds on one decode step (``batch`` sequences, ``n`` cached positions each) at the
    accelerator's peak rates: ``"read_s"`` = bytes read ÷ bandwidth, ``"compute_s"`` = FLOPs ÷
    peak FLOP/s; and ``"flops_per_byte"``. The step takes at least the larger of the two times."""
    acc = _accelerator(accelerator)
    batch = _batch(batch)
    reads = decode_read_bytes(config, n, dtype=dtype, batch=batch)
    read = batch * (reads["weights"] + reads["kv_cache"])
    flops = batch * (attention_flops_per_token(config, n) + weight_flops_per_token(config))
    return {"read_s": read / acc.bandwidth, "compute_s": flops / acc.bf16_flops, "flops_per_byte": flops / read}
