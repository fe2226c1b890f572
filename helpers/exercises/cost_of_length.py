"""``07_cost_of_length``: its self-checking exercises — a smaller model's KV cache per token, and
the cached length at which a larger model's generated token reads as many KV-cache bytes as
weight bytes. Both are numbers the learner computes from a config's fields with an expression
of their own (the notebook prints the config; the answer is the number that expression gives).

Registered in :data:`helpers.exercises.EXERCISES` by their keys; each solve function computes
the expected answer and its working at check time (vocabulary: :mod:`helpers.render.answers`).
"""
from __future__ import annotations

from ..render.answers import Exercise, Number


def _kv_cache_1b():
    from ..config import LLAMA_3_1_8B, preset
    from ..cost import DTYPE_BYTES, KiB, kv_cache_bytes_per_token

    cfg = preset("Llama-3.2-1B")
    small, big = kv_cache_bytes_per_token(cfg) / KiB, kv_cache_bytes_per_token(LLAMA_3_1_8B) / KiB
    return small, (f"每 token 的 KV Cache = 2（K 和 V）× 层数 × KV 头数 × head_dim × 每个数的字节数 ÷ 1024：\n"
                   f"2 × {cfg.num_layers} × {cfg.num_kv_heads} × {cfg.head_dim} × {DTYPE_BYTES['bf16']} ÷ 1024 "
                   f"= {small:.0f} KiB；8B 是 {big:.0f} KiB（{big / small:.0f} 倍）。KV Cache 只看层数、KV 头数和 "
                   "head_dim，不看 MLP 和词表，所以不是参数量之比。")


def _decode_crossover_70b():
    from ..config import LLAMA_3_1_8B, preset
    from ..cost import DTYPE_BYTES, decode_crossover, kv_cache_bytes_per_token

    big = preset("Llama-3.1-70B")
    n70, n8 = decode_crossover(big), decode_crossover(LLAMA_3_1_8B)
    b = DTYPE_BYTES["bf16"]
    return n70, (f"每生成一个 token：读权重 = matmul_params() × {b} 字节，读 KV Cache = n × "
                 f"2 × 层数 × KV 头数 × head_dim × {b} 字节；两者相等时\n"
                 f"n = {big.matmul_params():,} × {b} / (2 × {big.num_layers} × {big.num_kv_heads} × {big.head_dim} × {b}) "
                 f"= {big.matmul_params() * b:,} / {kv_cache_bytes_per_token(big):,} ≈ {n70:,.0f}。\n"
                 f"8B 的交点 ≈ {n8:,.0f}。70B 的权重是 8B 的 {big.matmul_params() / LLAMA_3_1_8B.matmul_params():.1f} 倍，"
                 f"每 token 的 KV Cache 只是 {kv_cache_bytes_per_token(big) / kv_cache_bytes_per_token(LLAMA_3_1_8B):.1f} 倍"
                 f"（KV 头同样是 {big.num_kv_heads} 个），所以交点远在它 {big.max_position_embeddings:,} 的上下文之外："
                 "batch 1 时 70B 生成的每个 token，读权重始终比读 KV Cache 多。")


EXERCISES = {
    "07-1": Exercise("Llama-3.2-1B 每 token 的 KV Cache（KiB，BF16）", Number(0, "KiB"), _kv_cache_1b),
    "07-2": Exercise("Llama-3.1-70B，batch 1、BF16：生成一个 token 读的 KV Cache 字节追上权重字节的 n（取到千位）",
                      Number(-3), _decode_crossover_70b),
}


REFERENCES: dict = {}
