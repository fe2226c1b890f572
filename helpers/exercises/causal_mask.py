"""``05_causal_mask``: its self-checking exercises — the weight a token keeps on itself without the
mask, and a right-looking mask's cache.

Registered in :data:`helpers.exercises.EXERCISES` by their keys; each solve function computes
the expected answer and its working at check time (vocabulary: :mod:`helpers.render.answers`).
"""
from __future__ import annotations

import numpy as np

from .. import example
from ..render.answers import CAN, Exercise, Number


def _unmasked_self_weight():
    from ..attention import scaled_dot_product_attention

    tokens, qkv = example.extended_qkv(len(example.EXTRA_TOKENS))
    _, w = scaled_dot_product_attention(qkv.q, qkv.k, qkv.v)
    row = " · ".join(f"{t} {v:.3f}" for t, v in zip(tokens, w[0]))
    return float(w[0, 0]), (f"不加掩码，8 个 token 时“年”这一行：{row}\n"
                            f"它放在自己身上的只剩 {w[0, 0]:.3f}，其余都给了右边还没出现的 token；开着掩码时是 1.000。")


def _right_looking_cache():
    from ..kv_cache import earlier_output_change

    tokens, qkv = example.extended_qkv(1)
    left = earlier_output_change(qkv.q, qkv.k, qkv.v, 4, causal=True)
    # "only look right" = the causal mask transposed: earlier rows see every later token
    from ..attention import causal_mask, scaled_dot_product_attention

    def right_only(q, k, v):
        return scaled_dot_product_attention(q, k, v, mask=causal_mask(len(q)).T)[0]

    before = right_only(qkv.q[:4], qkv.k[:4], qkv.v[:4])
    after = right_only(qkv.q, qkv.k, qkv.v)[:4]
    change = float(np.abs(after - before).max())
    return ("不能" if change > 1e-9 else "能"), (f"追加“{tokens[-1]}”后，前 4 个位置输出的最大变化：只看左边 {left:.3f}，只看右边 {change:.3f}。\n"
                 "只看右边时，新 token 出现在每个旧位置的右边，旧位置的输出全都要重算；"
                 "更根本的是，生成时右边还没有内容，第一个位置就无从算起。")


EXERCISES = {
    "05-1": Exercise("关掉掩码、追加 4 个 token，“年”放在自己身上的权重", Number(2, slack=1),
                      _unmasked_self_weight),
    "05-2": Exercise("掩码改成“只能看右边”，还能用 KV Cache 吗？", CAN, _right_looking_cache),
}


REFERENCES: dict = {}
