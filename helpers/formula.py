"""softmax(QKᵀ/√d + 掩码)·V read symbol by symbol, with shapes (end of ``05_causal_mask``).

The toy shapes are taken from the arrays of the running example; the Llama shapes are derived
from a :class:`helpers.config.ModelConfig` (one head, ``n`` tokens), never typed in.
"""
from __future__ import annotations

import numpy as np

from . import example
from .attention import attention_scores, causal_mask, scaled_dot_product_attention
from .config import ModelConfig
from .render.validation import instance


def _shape(dims) -> str:
    return "[" + ", ".join(str(d) for d in dims) + "]"


def symbol_rows(config) -> list:
    """``[symbol, meaning, toy shape, shape in config]`` for every symbol of the formula."""
    instance("config", config, ModelConfig, "helpers.config.ModelConfig (e.g. helpers.config.LLAMA_3_1_8B)")
    qkv = example.running_qkv()
    n_toy, d_toy = qkv.q.shape
    scores = attention_scores(qkv.q, qkv.k)
    mask = causal_mask(n_toy)
    out, weights = scaled_dot_product_attention(qkv.q, qkv.k, qkv.v, causal=True)
    d, heads, kv = config.head_dim, config.num_heads, config.num_kv_heads
    return [
        ["Q", "query（查询）：每行是一个位置的 q，拿去和别人比较", _shape(qkv.q.shape),
         f"[n, {d}]（每个头一份，共 {heads} 个头）"],
        ["K", "key（键）：每行是一个位置的 k，被别人比较", _shape(qkv.k.shape),
         f"[n, {d}]（{kv} 个 KV 头，每个供 {heads // kv} 个查询头用）"],
        ["Kᵀ", "K 转置：让 Q 的每一行和每个位置的 k 做点积", _shape(qkv.k.T.shape), f"[{d}, n]"],
        ["QKᵀ", "原始分数：第 i 行第 j 列 = q_i·k_j（i 看 j，还没除以 √d）", _shape(scores.shape), "[n, n]"],
        ["√d", "d = 每个头的维度；QKᵀ/√d 就是分数，标准差拉回 1 左右",
         f"√{d_toy} ≈ {np.sqrt(d_toy):.3f}", f"√{d} ≈ {np.sqrt(d):.3f}"],
        ["掩码", "右上角（列 > 行）为 −∞、其余为 0：每个位置只看自己和左边", _shape(mask.shape), "[n, n]"],
        ["softmax(·)", "按行取指数、再除以行和：每行变成和为 1 的权重", _shape(weights.shape), "[n, n]"],
        ["V", "value（值）：每行是一个位置被看中后交出的 v", _shape(qkv.v.shape),
         f"[n, {d}]（和 K 一样 {kv} 个 KV 头）"],
        ["softmax(·)·V", "输出：每行是按权重加起来的 v", _shape(out.shape),
         f"[n, {d}]（{heads} 个头拼成 [n, {heads * d}]，再经 o_proj）"],
    ]
