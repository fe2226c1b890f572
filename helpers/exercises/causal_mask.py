"""``05_causal_mask``: its self-checking exercises — the weight a token keeps on itself without the
mask, and a right-looking mask's cache — and one code exercise, 05-3: write causal scaled dot-product
attention returning output and weights (:data:`CODE_EXERCISES`, :mod:`helpers.grading.code_check`).

Registered in :data:`helpers.exercises.EXERCISES` by their keys; each solve function computes
the expected answer and its working at check time (vocabulary: :mod:`helpers.grading.answers`).
"""
from __future__ import annotations

import numpy as np

from .. import example
from ..attention import causal_mask, scaled_dot_product_attention
from ..grading.answers import CAN, Exercise, Number
from ..grading.code_exercise import Case, CodeExercise, Mistake
from ..kv_cache import earlier_output_change


def _unmasked_self_weight():
    tokens, qkv = example.extended_qkv(len(example.EXTRA_TOKENS))
    _, w = scaled_dot_product_attention(qkv.q, qkv.k, qkv.v)
    row = " · ".join(f"{t} {v:.3f}" for t, v in zip(tokens, w[0]))
    return float(w[0, 0]), (f"不加掩码，8 个 token 时“年”这一行：{row}\n"
                            f"它放在自己身上的只剩 {w[0, 0]:.3f}，其余都给了右边还没出现的 token；开着掩码时是 1.000。")


def _right_looking_cache():
    tokens, qkv = example.extended_qkv(1)
    left = earlier_output_change(qkv.q, qkv.k, qkv.v, 4, causal=True)
    # "only look right" = the causal mask transposed: earlier rows see every later token

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


# ---- 05-3: write causal attention yourself (a code exercise, checked by helpers.grading.code_check) ---
# What it asserts: weights = softmax(q·kᵀ/√d_head with j > i hidden as −∞), out = weights @ v, for any n
# and any width of v. Proof cases: n = 1 (the first row sees only itself: a mask that hides the diagonal
# gives 0/0 there); d_v ≠ d_k (√d must come from q, and out has v's width); scores ±1800 (a softmax
# without the maximum overflows); a row whose visible scores are all far below the hidden ones
# ("fully masked-looking": zeroing instead of −∞ lets the hidden zeros win the whole row).
def _attention_cases():
    qkv = example.running_qkv()
    rng = np.random.default_rng(505)
    big = rng.standard_normal((3, 5, 4)) * 30
    return [
        Case("手算例子的 4 个 token（笔记本 02 的 q、k、v，d = 2）", (qkv.q, qkv.k, qkv.v)),
        Case("随机：5 个位置、d = 3、v 的宽度 2", tuple(rng.standard_normal((5, w)) for w in (3, 3, 2))),
        Case("随机：6 个位置、d = 8", tuple(rng.standard_normal((6, 8)) for _ in range(3))),
        Case("只有 1 个位置", tuple(rng.standard_normal((1, 4)) for _ in range(3))),
        Case("分数很大：q、k 的元素在 ±30 左右（5 个位置、d = 4）", (big[0], big[1], big[2] / 30)),
        Case("看得见的分数都很负（像被整行遮住）：4 个位置、d = 2、v 的宽度 3",
             (np.array([[5.0, 0.0], [4.0, 1.0], [3.0, -2.0], [1.0, 1.0]]),
              np.array([[-8.0, 1.0], [-7.0, 0.0], [6.0, 2.0], [5.0, -3.0]]), rng.standard_normal((4, 3)))),
    ]


def _attention_reference(q, k, v):
    return scaled_dot_product_attention(q, k, v, causal=True)


def _masked_softmax(scores, keep_offset=1):
    """Softmax of ``scores`` with positions ``j ≥ i + keep_offset`` hidden (1 = causal)."""
    n = scores.shape[-1]
    hidden = np.triu(np.ones((len(scores), n), dtype=bool), k=keep_offset)
    s = np.where(hidden, -np.inf, scores)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _wrong_attentions():
    """The usual mistakes in writing causal attention, each as the wrong code a learner writes."""
    def scores(q, k):
        return q @ k.T / np.sqrt(q.shape[-1])

    def with_offset(offset):
        def attention(q, k, v):
            w = _masked_softmax(scores(q, k), offset)
            return w @ v, w
        return attention

    def no_mask(q, k, v):
        s = scores(q, k)
        w = np.exp(s - s.max(axis=-1, keepdims=True))
        w = w / w.sum(axis=-1, keepdims=True)
        return w @ v, w

    def wrong_triangle(q, k, v):
        s = np.where(np.tril(np.ones((len(q), len(k)), dtype=bool), k=-1), -np.inf, scores(q, k))
        w = np.exp(s - s.max(axis=-1, keepdims=True))
        w = w / w.sum(axis=-1, keepdims=True)
        return w @ v, w

    def mask_added_after(q, k, v):
        _, w = no_mask(q, k, v)
        w = w + np.where(np.triu(np.ones((len(q), len(k)), dtype=bool), k=1), -np.inf, 0.0)
        return w @ v, w

    def mask_zeroed_after(q, k, v):
        _, w = no_mask(q, k, v)
        w = w * np.tril(np.ones((len(q), len(k))))
        return w @ v, w

    def no_scale(q, k, v):
        w = _masked_softmax(q @ k.T)
        return w @ v, w

    def scale_by_d(q, k, v):
        w = _masked_softmax(q @ k.T / q.shape[-1])
        return w @ v, w

    def axis0(q, k, v):
        s = np.where(np.triu(np.ones((len(q), len(k)), dtype=bool), k=1), -np.inf, scores(q, k))
        e = np.exp(s - s.max(axis=0, keepdims=True))
        w = e / e.sum(axis=0, keepdims=True)
        return w @ v, w

    def zeroed_scores(q, k, v):
        s = np.where(np.triu(np.ones((len(q), len(k)), dtype=bool), k=1), 0.0, scores(q, k))
        w = np.exp(s - s.max(axis=-1, keepdims=True))
        w = w / w.sum(axis=-1, keepdims=True)
        return w @ v, w

    def keys_first(q, k, v):
        w = _masked_softmax(k @ q.T / np.sqrt(q.shape[-1]))
        return w @ v, w

    def scale_by_dv(q, k, v):
        w = _masked_softmax(q @ k.T / np.sqrt(v.shape[-1]))
        return w @ v, w

    def no_max(q, k, v):
        s = np.where(np.triu(np.ones((len(q), len(k)), dtype=bool), k=1), -np.inf, scores(q, k))
        e = np.exp(s)
        w = e / e.sum(axis=-1, keepdims=True)
        return w @ v, w

    return (
        Mistake("no_max", "分数很大时 e^s 溢出成 inf，inf / inf 是 nan：softmax 之前先减去每一行的最大值"
                          "（s − s.max(axis=-1, keepdims=True)），结果不变（笔记本 03 的练习 3）。", no_max,
                seen="https://github.com/uTensor/uTensor/issues/175"),
        Mistake("no_mask", "没有加因果掩码：第 i 行只能看位置 0…i，对角线右上方（j > i，未来的位置）的分数要在 softmax "
                           "之前设成 −∞，softmax 之后这些权重就是 0。", no_mask,
                seen=("https://github.com/facebookresearch/xformers/issues/103",
                      "https://github.com/alex-matton/causal-transformer-decoder/issues/1")),
        Mistake("wrong_triangle", "掩码的三角反了：要遮住的是对角线右上方（j > i，还没出现的位置），你遮住的是左下方。"
                                  "np.triu(np.ones((n, n)), k=1) 是右上方、不含对角线。", wrong_triangle,
                seen="https://github.com/karpathy/nanoGPT/issues/170"),
        Mistake("mask_added_after", "−∞ 加在了 softmax 之后，权重里出现了 −∞，乘 v 以后输出也坏了。掩码要加在分数上、"
                                    "在 softmax 之前：softmax 把 −∞ 变成 0，剩下的权重重新加成 1。", mask_added_after,
                seen=("https://github.com/huggingface/pytorch-image-models/pull/2236",
                      "https://github.com/lucidrains/memory-compressed-attention/issues/2")),
        Mistake("mask_zeroed_after", "softmax 之后才把右上方清零：剩下的权重加起来不到 1。掩码要在 softmax 之前加（分数设成 −∞），"
                                     "让 softmax 自己在看得见的位置上归一化。", mask_zeroed_after,
                seen="https://github.com/huggingface/transformers/issues/542"),
        # np.triu(…, k=0) hides the diagonal
        Mistake("diagonal_hidden", "差了一格：对角线也被遮住了，每个位置连自己都看不见（第 0 行什么都看不见，0/0 = nan）。"
                                   "j = i 要留着：np.triu(…, k=1) 的 k=1 表示从对角线右边一格开始遮。", with_offset(0),
                seen="https://github.com/pbloem/former/issues/10"),
        Mistake("no_scale", "忘了除以 √d：分数应是 q·kᵀ / √d，d 是 q 的最后一维（q.shape[-1]）。", no_scale,
                seen="https://github.com/microsoft/MInference/issues/69"),
        Mistake("scale_by_d", "除的是 d，应该除以 √d：np.sqrt(q.shape[-1])。", scale_by_d,
                seen="https://github.com/delzac/cntkx/issues/10"),
        Mistake("axis0", "softmax 沿第 0 维（每一列）做了：每一行（一个查询）的权重加起来才等于 1，用 axis=-1。", axis0,
                seen=("https://github.com/PetrochukM/PyTorch-NLP/issues/2",
                      "https://github.com/nerminnuraydogan/vision-transformer/issues/1")),
        # Zeroing the hidden scores (or multiplying by a 0/1 mask) instead of −∞: softmax still gives them e^0
        Mistake("zeroed_scores", "把未来位置的分数设成了 0，而不是 −∞：e^0 = 1，softmax 照样给它们权重；"
                                 "看得见的分数都很负时，权重几乎全落在未来的位置上。要设成 −np.inf，softmax 之后才是 0。",
                zeroed_scores, seen=("https://github.com/georg-wolflein/good-features/pull/1",
                                     "https://github.com/hyunwoongko/transformer/issues/10")),
        # k @ q.T: the weights transposed (row = key, column = query), as in the transposed attention seen
        Mistake("keys_first", "分数写成了 k @ q.T：那是它的转置，第 i 行变成了“键 i 被每个查询打的分”。"
                              "第 i 行应是查询 i 对每个键的分数：q @ k.T。", keys_first,
                seen="https://github.com/heykeetae/Self-Attention-GAN/issues/11"),
        # √ of the wrong width (the model width or v's instead of the head's d_k)
        Mistake("scale_by_dv", "除的是 √(v 的宽度)：缩放用的是 q、k 的维数 d_k = q.shape[-1]（每个头的维数），"
                               "v 的宽度可以不一样。", scale_by_dv,
                seen="https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/42"),
    )


ATTENTION_SOLUTION = '''\
import numpy as np


def attention(q, k, v):
    """因果掩码的缩放点积注意力：返回 (输出, 权重)。q, k: (n, d)，v: (n, d_v)。"""
    n, d = q.shape
    scores = q @ k.T / np.sqrt(d)                      # (n, n)：第 i 行是位置 i 对每个位置的分数
    future = np.triu(np.ones((n, n), dtype=bool), k=1)  # 对角线右上方：j > i，还没出现的位置
    scores = np.where(future, -np.inf, scores)          # 在 softmax 之前遮住：e^(−∞) = 0
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)   # 每一行加起来等于 1
    return weights @ v, weights
'''

CODE_EXERCISES = {
    "05-3": CodeExercise("自己写带因果掩码的注意力：返回输出和权重", "attention(q, k, v)", ("q", "k", "v"),
                         ("输出 out", "权重 weights"), _attention_cases, _attention_reference, _wrong_attentions(),
                         ATTENTION_SOLUTION, returns="返回两个数组：return out, weights",
                         forbidden=("helpers.scaled_dot_product_attention", "helpers.tiled.naive_attention",
                                    "helpers.tiled.tiled_attention"),
                         forbidden_hint="自己算分数 q @ k.T / √d，在 softmax 之前把 j > i 的分数设成 −∞，再做 softmax、"
                                        "乘 v；softmax 可以自己写，也可以用 helpers.softmax。"),
}
