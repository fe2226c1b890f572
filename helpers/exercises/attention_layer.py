"""``06_attention_layer``: its self-checking exercises — the KV cache per token for other KV-head
counts, and order without RoPE — and one code exercise, 06-3: write the GQA forward (repeat_kv, 32
query heads sharing 8 KV heads; :data:`CODE_EXERCISES`, :mod:`helpers.grading.code_check`).

Registered in :data:`helpers.exercises.EXERCISES` by their keys; each solve function computes
the expected answer and its working at check time (vocabulary: :mod:`helpers.grading.answers`).
"""
from __future__ import annotations

import numpy as np

from ..grading.answers import WILL, Exercise, Numbers
from ..grading.code_exercise import Case, CodeExercise, Mistake

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


# ---- 06-3: write the GQA forward yourself (a code exercise, checked by helpers.grading.code_check) ---
# What it asserts: query head h reads KV head h // n_rep (np.repeat along the head axis, not np.tile),
# causal attention per head, scaled by √d_head. Proof cases: 32/8 and 6/3 heads (tile and repeat differ
# only when n_rep > 1 and there are ≥ 2 KV heads), MQA (one KV head), MHA (n_rep = 1), n = 1 (a single
# position: the causal mask leaves only the diagonal).
def _gqa_cases():
    rng = np.random.default_rng(606)

    def qkv(n, heads, kv_heads, d):
        return (rng.standard_normal((n, heads, d)), rng.standard_normal((n, kv_heads, d)),
                rng.standard_normal((n, kv_heads, d)))

    return [
        Case("小例子：3 个位置、4 个查询头共用 2 个 KV 头、d = 2", qkv(3, 4, 2, 2)),
        Case("Llama-3.1-8B 的比例：32 个查询头共用 8 个 KV 头（5 个位置、d = 4）", qkv(5, 32, 8, 4)),
        Case("6 个查询头、3 个 KV 头（4 个位置、d = 3）", qkv(4, 6, 3, 3)),
        Case("MQA：8 个查询头只有 1 个 KV 头（3 个位置、d = 4）", qkv(3, 8, 1, 4)),
        Case("MHA：KV 头和查询头一样多，都是 4 个（5 个位置、d = 2）", qkv(5, 4, 4, 2)),
        Case("只有 1 个位置：8 个查询头、2 个 KV 头、d = 4", qkv(1, 8, 2, 4)),
    ]


def _heads_first(a):
    return np.swapaxes(a, 0, 1)


def _gqa(q, k, v, expand, *, causal=True, scale=None, heads_first=True):
    """GQA attention of ``(n, heads, d)`` arrays with the KV heads expanded by ``expand(x, n_rep)``."""
    from ..attention import scaled_dot_product_attention

    n_rep = q.shape[1] // k.shape[1]
    k_rep, v_rep = expand(k, n_rep), expand(v, n_rep)
    if not heads_first:  # the mistake: (n, heads, d) handed over as if heads came first
        return scaled_dot_product_attention(q, k_rep, v_rep, causal=causal, scale=scale)[0]
    out, _ = scaled_dot_product_attention(_heads_first(q), _heads_first(k_rep), _heads_first(v_rep),
                                          causal=causal, scale=scale)
    return _heads_first(out)


def _gqa_reference(q, k, v):
    from ..layer import repeat_kv

    return _gqa(q, k, v, repeat_kv)


def _wrong_gqas():
    """The usual mistakes in writing a GQA forward, each as the wrong code a learner writes."""
    def repeat(x, n_rep):
        return np.repeat(x, n_rep, axis=1)

    def tile(q, k, v):
        return _gqa(q, k, v, lambda x, r: np.tile(x, (1, r, 1)))

    def repeat_positions(q, k, v):
        return _gqa(q, k, v, lambda x, r: np.repeat(x, r, axis=0))

    def no_causal(q, k, v):
        return _gqa(q, k, v, repeat, causal=False)

    def no_scale(q, k, v):
        return _gqa(q, k, v, repeat, scale=1.0)

    def scale_by_d_model(q, k, v):
        return _gqa(q, k, v, repeat, scale=1.0 / np.sqrt(q.shape[1] * q.shape[2]))

    def heads_last(q, k, v):
        return _heads_first(_gqa(q, k, v, repeat))

    def heads_as_positions(q, k, v):
        return _gqa(q, k, v, repeat, heads_first=False)

    def reshaped(q, k, v, *, into=True, back=True):
        """Heads moved with reshape (which regroups the numbers) instead of swapaxes."""
        from ..attention import scaled_dot_product_attention

        n, heads, d = q.shape
        n_rep = heads // k.shape[1]
        move = (lambda a: a.reshape(a.shape[1], a.shape[0], a.shape[2])) if into else _heads_first
        out, _ = scaled_dot_product_attention(*(move(a) for a in (q, repeat(k, n_rep), repeat(v, n_rep))), causal=True)
        return out.reshape(n, heads, out.shape[-1]) if back else _heads_first(out)

    reshape = "reshape 会把数据打乱：它只按内存顺序重新分组，不会把头这一维挪走；挪头这一维要用 transpose/swapaxes：" \
              "np.swapaxes(q, 0, 1) 把 (n, 头数, d) 变成 (头数, n, d)，算完再 np.swapaxes(out, 0, 1) 换回来。"

    return (
        Mistake("tile", "KV 头的排列顺序错了：你的输出里，查询头 h 配的是 KV 头 h % KV 头数（KV 头整组轮流：8 个 KV 头时是 "
                        "0, 1, …, 7, 0, 1, …；np.tile 或下标 h % KV 头数 都会排成这样），于是查询头 1 配上了 KV 头 1。"
                        "应是每个 KV 头连着供 n_rep 个查询头用：0, 0, 0, 0, 1, 1, 1, 1, …，查询头 h 用 KV 头 h // n_rep，也就是 "
                        "np.repeat(k, n_rep, axis=1)（PyTorch 里是 repeat_interleave，Transformers 的 repeat_kv 也这样排）。",
                tile, seen="https://github.com/onnx/onnx/pull/7274"),
        Mistake("repeat_positions", "重复的是位置这一维（axis=0），应重复 KV 头这一维：k 的形状是 (n, KV 头数, d)，"
                                    "np.repeat(k, n_rep, axis=1)。", repeat_positions,
                seen="https://github.com/PrimeIntellect-ai/prime-rl/pull/2681"),
        Mistake("no_causal", "忘了因果掩码：每个头里第 i 个位置只能看位置 0…i（helpers.scaled_dot_product_attention 的 causal=True，"
                             "或者自己在 softmax 之前把 j > i 的分数设成 −∞）。", no_causal),
        Mistake("no_scale", "忘了除以 √d：每个头的分数是 q·kᵀ / √d，d 是每个头的维数 q.shape[-1]。", no_scale),
        # √d_model (all heads' width) for √d_head
        Mistake("scale_by_d_model", "除的是 √(头数 × d)，那是整个模型的宽度 d_model；缩放用每个头自己的维数："
                                    "√d，d = q.shape[-1]。", scale_by_d_model,
                seen=("https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/42",
                      "https://github.com/brightmart/bert_language_understanding/issues/9")),
        Mistake("heads_last", "返回的形状是 (头数, n, d)：算完要把头这一维换回第 1 维，np.swapaxes(out, 0, 1)，"
                              "得到 (n, 头数, d)。", heads_last),
        Mistake("heads_as_positions", "注意力算在了“头”这一维上：scaled_dot_product_attention 把第 0 维当作头、倒数第 2 维当作位置，"
                                      "(n, 头数, d) 要先换成 (头数, n, d)（np.swapaxes(q, 0, 1)），算完再换回来。",
                heads_as_positions),
        Mistake("reshape_both", reshape, reshaped),
        Mistake("reshape_into", reshape, lambda q, k, v: reshaped(q, k, v, back=False)),
        Mistake("reshape_back", reshape, lambda q, k, v: reshaped(q, k, v, into=False)),
    )


GQA_SOLUTION = '''\
import numpy as np
import helpers


def repeat_kv(x, n_rep):
    """(n, KV 头数, d) → (n, KV 头数 × n_rep, d)：KV 头 j 连着重复 n_rep 次，供查询头 j·n_rep … j·n_rep + n_rep − 1 使用。"""
    return np.repeat(x, n_rep, axis=1)


def gqa_attention(q, k, v):
    """q: (n, 查询头数, d)，k、v: (n, KV 头数, d) → 每个查询头的输出 (n, 查询头数, d)，带因果掩码。"""
    n_rep = q.shape[1] // k.shape[1]                      # 每个 KV 头供几个查询头用（Llama-3.1-8B：32 // 8 = 4）
    k, v = repeat_kv(k, n_rep), repeat_kv(v, n_rep)       # 现在和 q 一样有 32 个头
    q_h, k_h, v_h = (np.swapaxes(a, 0, 1) for a in (q, k, v))   # 头放到最前面：(头数, n, d)
    out, _ = helpers.scaled_dot_product_attention(q_h, k_h, v_h, causal=True)
    return np.swapaxes(out, 0, 1)                         # 换回 (n, 头数, d)
'''

CODE_EXERCISES = {
    "06-3": CodeExercise("自己写 GQA 的前向：repeat_kv，32 个查询头共用 8 个 KV 头", "gqa_attention(q, k, v)",
                         ("q", "k", "v"), ("输出",), _gqa_cases, _gqa_reference, _wrong_gqas(), GQA_SOLUTION,
                         returns="返回一个数组：每个查询头的输出，形状 (n, 查询头数, d)",
                         forbidden=("helpers.layer.repeat_kv", "helpers.layer.expand_gqa_to_mha", "helpers.layer.attention_layer"),
                         forbidden_hint="repeat_kv 要自己写（np.repeat 沿 KV 头那一维，axis=1）；每个头的注意力可以用 "
                                        "helpers.scaled_dot_product_attention。"),
}
