"""``06_attention_layer``: its self-checking exercises — the KV cache per token for other KV-head
counts, and order without RoPE.

Registered in :data:`helpers.exercises.EXERCISES` by their keys; each solve function computes
the expected answer and its working at check time (vocabulary: :mod:`helpers.render.answers`).
"""
from __future__ import annotations

import numpy as np

from ..render.answers import WILL, Exercise, Numbers

#: the KV-head counts exercise 06-1 asks about (neither is printed in 06's table)
CACHE_KV_HEADS = (4, 16)


def _kv_heads_cache(kv_heads=CACHE_KV_HEADS):
    from ..config import LLAMA_3_1_8B
    from ..cost import KiB, kv_cache_bytes_per_token

    cfg = LLAMA_3_1_8B
    values = [kv_cache_bytes_per_token(cfg, num_kv_heads=kv) / KiB for kv in kv_heads]
    steps = "；".join(f"KV 头 {kv}：{cfg.num_layers} × 2 × {kv} × {cfg.head_dim} × 2 字节 = {v:.0f} KiB"
                     for kv, v in zip(kv_heads, values))
    return values, (f"每 token KV Cache = {cfg.num_layers} 层 × 2（K、V）× KV 头数 × {cfg.head_dim} 维 × 2 字节。\n"
                    f"{steps}。\n它和 KV 头数成正比，和查询头数无关。")


def _no_rope_prefix():
    from ..layer import LayerShape, attention_layer, random_layer

    shape = LayerShape(hidden=64, num_heads=4, num_kv_heads=2, head_dim=16)
    weights = random_layer(shape, seed=0)
    x = np.random.default_rng(1).standard_normal((4, shape.hidden))
    order = [1, 0, 2, 3]  # 假 年 怎么 申请
    a, _ = attention_layer(x, weights, shape, rope_theta=None)
    b, _ = attention_layer(x[order], weights, shape, rope_theta=None)
    diff_how = float(np.abs(a[2] - b[2]).max())
    diff_year = float(np.abs(a[0] - b[1]).max())
    return ("会" if diff_how > 1e-9 else "不会"), (
        "没有 RoPE、有因果掩码的一层（缩小的随机层）里交换“年”和“假”：\n"
        f"“怎么”的输出变化 {diff_how:.1e}；“年”（从位置 0 挪到位置 1）的输出变化 {diff_year:.3f}。\n"
        "“怎么”换序前后看得见的都是 {年, 假, 怎么}：没有 RoPE，点积和加权和都不管这几个 token 的先后，输出不变。"
        "“年”挪到“假”后面，看得见的集合多了“假”，输出就变了。")


EXERCISES = {
    "06-1": Exercise("KV 头 4 和 16 时 Llama-3.1-8B 每 token 的 KV Cache（KiB）",
                      Numbers(tuple(f"KV 头 {kv}" for kv in CACHE_KV_HEADS), 0, unit="KiB"), _kv_heads_cache),
    "06-2": Exercise("没有 RoPE 时交换“年”和“假”，“怎么”的输出会变吗？", WILL, _no_rope_prefix),
}


REFERENCES: dict = {}
