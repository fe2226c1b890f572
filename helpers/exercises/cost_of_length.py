"""``07_cost_of_length``: its self-checking exercises — a smaller model's KV cache per token, and a
larger model's crossover length.

Registered in :data:`helpers.exercises.EXERCISES` by their keys; each solve function computes
the expected answer and its working at check time (vocabulary: :mod:`helpers.render.answers`).
"""
from __future__ import annotations

from ..render.answers import Exercise, Number


def _crossover_70b():
    from ..config import LLAMA_3_1_8B, preset
    from ..cost import crossovers

    big, small = preset("Llama-3.1-70B"), LLAMA_3_1_8B
    n70, n8 = crossovers(big)["per_token"], crossovers(small)["per_token"]
    return n70, (f"每 token：注意力 4·n·q_dim·层数 = 固定开销 2·参数量 → n = 参数量 / (2·q_dim·层数)。\n"
                 f"70B：{big.matmul_params():,} / (2 × {big.q_dim} × {big.num_layers}) ≈ {n70:,.0f}；"
                 f"8B：≈ {n8:,.0f}。参数量比 q_dim × 层数长得快，交点就更靠后。")


def _kv_cache_1b():
    from ..config import LLAMA_3_1_8B, preset
    from ..cost import KiB, kv_cache_bytes_per_token

    cfg = preset("Llama-3.2-1B")
    small, big = kv_cache_bytes_per_token(cfg) / KiB, kv_cache_bytes_per_token(LLAMA_3_1_8B) / KiB
    return small, (f"2 × {cfg.num_layers} 层 × {cfg.num_kv_heads} 个 KV 头 × {cfg.head_dim} × 2 字节 = {small:.0f} KiB；"
                   f"8B 是 {big:.0f} KiB（{big / small:.0f} 倍）。KV Cache 只看层数、KV 头数和 head_dim，"
                   "不看 MLP 和词表，所以不是参数量之比。")


EXERCISES = {
    "07-1": Exercise("Llama-3.2-1B 每 token 的 KV Cache（KiB）", Number(0, "KiB"), _kv_cache_1b),
    "07-2": Exercise("Llama-3.1-70B 每 token 注意力超过固定开销的 n（取到千位）", Number(-3), _crossover_70b),
}


REFERENCES: dict = {}
