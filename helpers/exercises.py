"""Self-checking exercises of every notebook and the closing quiz of ``08_reading_attention``.

A notebook's exercise cell is two lines::

    answer = None  # 例如 "年"
    helpers.exercises.check("03-2", answer)

:func:`check` prints a verdict in Chinese and returns ``True``/``False`` (``None`` when the answer
is still ``None`` or cannot be read, with a Chinese hint); a wrong answer shows the working. How
answers are read and compared is :mod:`helpers.render.answers`. Each exercise's expected answer and
working are computed by ``helpers`` at check time, never typed in. :data:`EXERCISES` holds every
exercise by its key (``"NN-i"`` = notebook NN, exercise i); :data:`QUIZ` the closing quiz;
:data:`REFERENCES` the reference answers of discussion questions (:func:`reference`).
"""
from __future__ import annotations

import numpy as np

from . import example
from .exercises_heads import EXERCISES as HEADS_EXERCISES
from .exercises_training import EXERCISES as TRAINING_EXERCISES
from .exercises_training import REFERENCES as TRAINING_REFERENCES
from .render.answers import CAN, WILL, YES_NO, Choice, Exercise, Number, Numbers, judge
from .render.format import fmt, fmt_vec

TOKEN = Choice(example.TOKENS)


def check(key: str, answer, **context):
    """Check ``answer`` to exercise ``key`` (``"03-1"`` …) and print the verdict and working."""
    if key not in EXERCISES:
        print(f"⚠ 没有编号为 {key!r} 的练习。可选：{'、'.join(EXERCISES)}。")
        return None
    ok, message = judge(EXERCISES[key], answer, **context)
    print(message)
    return ok


# ---- the exercises ---------------------------------------------------------------------------
def row_working(token: str, q=None, k=None) -> tuple:
    """The unmasked attention row of ``token`` with its working, as text (``03``); ``q`` replaces
    the token's query, ``k`` all four keys."""
    qkv = example.running_qkv()
    i = example.query_index(token)
    q_vec = qkv.q[i] if q is None else np.asarray(q, dtype=float)
    keys = qkv.k if k is None else np.asarray(k, dtype=float)
    row = example.hand_row(q_vec, keys, qkv.v)
    working = "\n".join([
        f"q({token}) = {fmt_vec(q_vec, 0)}",
        "k：" + " · ".join(f"{t} {fmt_vec(key, 0)}" for t, key in zip(example.TOKENS, keys)),
        f"点积 q·k = {fmt_vec(row.dots, 0)}，÷√2 → {fmt_vec(row.scores)}",
        f"e^s = {fmt_vec(row.exps)}，合计 {fmt(row.total)}",
        f"权重 = {fmt_vec(row.weights)}（年、假、怎么、申请）",
    ])
    return row, working


def _largest_after_turn(q=(0.0, 2.0)):
    row, working = row_working("申请", q=q)
    best = example.TOKENS[int(np.argmax(row.weights))]
    return best, working + f"\n最大的权重落在“{best}”上：q 转到了它的 k 所在的方向。"


def _row_with_key(token="怎么", changed="申请", key=(3.0, 0.0)):
    keys = example.running_qkv().k.copy()
    keys[example.query_index(changed)] = key
    row, working = row_working(token, k=keys)
    return row.weights, f"“{changed}”的 k 改成 {fmt_vec(key, 0)}，其余不变：\n" + working


def _smallest_after_turn(q=(-2.0, 0.0)):
    row, working = row_working("申请", q=q)
    worst = example.TOKENS[int(np.argmin(row.weights))]
    return worst, working + (f"\n最小的权重落在“{worst}”上：它的 k 和 q 方向相反，而且最长，点积最负"
                             "（点积为 0 的位置反而比它大）。")


def _time_feature():
    col = example.FEATURES.index("时间")
    best = example.TOKENS[int(np.argmax(example.X[:, col]))]
    lines = [f"{t}：时间 = {x[col]:.0f}" for t, x in zip(example.TOKENS, example.X)]
    return best, ("各 token 的“时间”特征：" + "；".join(lines)
                  + f"\n只有“{best}”带“时间”，所以把它的权重拖到最大（其余拖到 0）时新向量的“时间”一维最大。")


def _item_twice():
    from .weighting import content_weights

    x_b = example.X_B.copy()
    x_b[1, 0] = example.X_B[0, 0]
    w = content_weights(x_b)
    first, second = example.TOKENS_B[:2]
    verdict = "一样" if abs(w[0] - w[1]) < 1e-9 else (first if w[0] > w[1] else second)
    return verdict, (f"把“{second}”的“事项”改成 {x_b[1, 0]:.0f} 后，它的 k 和“{first}”的 k 完全相同"
                     f"（{fmt_vec(example.project(x_b[1], example.W_K), 0)}），分数也就相同：\n按内容的权重："
                     + " · ".join(f"{t} {v:.3f}" for t, v in zip(example.TOKENS_B, w))
                     + "\n分数只看 q 和 k：k 相同，权重就相同，分不出哪个才是事项。")


def _qkv_of(x=(1.0, 1.0, 0.0, 0.0)):
    row = np.asarray(x, dtype=float)
    qkv = [example.project(row, w) for w in (example.W_Q, example.W_K, example.W_V)]
    lines = [f"{name} = x·{w} = {fmt_vec(vec, 0)}（W 的“事项”行 + “时间”行）"
             for name, w, vec in zip("qkv", ("W_Q", "W_K", "W_V"), qkv)]
    return np.concatenate(qkv), "x = [1, 1, 0, 0] 选出每个矩阵的第 1、2 行并相加：\n" + "\n".join(lines)


def _k_proj_out(name="Llama-3.2-1B"):
    from .config import preset

    cfg = preset(name)
    return cfg.kv_dim, (f"{name}：{cfg.num_kv_heads} 个 KV 头 × head_dim {cfg.head_dim} = {cfg.kv_dim} 维；"
                        f"k_proj 是 {cfg.hidden_size} × {cfg.kv_dim}。")


def _n_dilutes(d=128):
    from .scaling import mean_max_weight

    small, large = (mean_max_weight(n, d, scaled=True, trials=200) for n in (5, 1000))
    verdict = "变小" if large < small else "变大"
    return verdict, (f"d = {d}、缩放：n = 5 时最大权重平均 {small:.2f}，n = 1000 时 {large:.3f}。"
                     "位置越多，和为 1 的权重要分给越多的位置，最大的那份越小——这就是第 08 篇的“稀释”。")


def _d64_vs_128():
    from .scaling import mean_max_weight

    w64, w128 = (mean_max_weight(5, d, scaled=False) for d in (64, 128))
    verdict = "小" if w64 < w128 else "大"
    return verdict, (f"不缩放、5 个位置：d = 64 时最大权重平均 {w64:.2f}，d = 128 时 {w128:.2f}。"
                     f"d 小，点积的标准差 √d 也小（{64 ** 0.5:.1f} 对 {128 ** 0.5:.1f}），分数拉不开，塌缩得轻一些。")


def _unmasked_self_weight():
    from .attention import scaled_dot_product_attention

    tokens, qkv = example.extended_qkv(len(example.EXTRA_TOKENS))
    _, w = scaled_dot_product_attention(qkv.q, qkv.k, qkv.v)
    row = " · ".join(f"{t} {v:.3f}" for t, v in zip(tokens, w[0]))
    return float(w[0, 0]), (f"不加掩码，8 个 token 时“年”这一行：{row}\n"
                            f"它放在自己身上的只剩 {w[0, 0]:.3f}，其余都给了右边还没出现的 token；开着掩码时是 1.000。")


def _right_looking_cache():
    from .kv_cache import earlier_output_change

    tokens, qkv = example.extended_qkv(1)
    left = earlier_output_change(qkv.q, qkv.k, qkv.v, 4, causal=True)
    # "only look right" = the causal mask transposed: earlier rows see every later token
    from .attention import causal_mask, scaled_dot_product_attention

    def right_only(q, k, v):
        return scaled_dot_product_attention(q, k, v, mask=causal_mask(len(q)).T)[0]

    before = right_only(qkv.q[:4], qkv.k[:4], qkv.v[:4])
    after = right_only(qkv.q, qkv.k, qkv.v)[:4]
    change = float(np.abs(after - before).max())
    return ("不能" if change > 1e-9 else "能"), (f"追加“{tokens[-1]}”后，前 4 个位置输出的最大变化：只看左边 {left:.3f}，只看右边 {change:.3f}。\n"
                 "只看右边时，新 token 出现在每个旧位置的右边，旧位置的输出全都要重算；"
                 "更根本的是，生成时右边还没有内容，第一个位置就无从算起。")


#: the KV-head counts exercise 06-1 asks about (neither is printed in 06's table)
CACHE_KV_HEADS = (4, 16)


def _kv_heads_cache(kv_heads=CACHE_KV_HEADS):
    from .config import LLAMA_3_1_8B
    from .cost import KiB, kv_cache_bytes_per_token

    cfg = LLAMA_3_1_8B
    values = [kv_cache_bytes_per_token(cfg, num_kv_heads=kv) / KiB for kv in kv_heads]
    steps = "；".join(f"KV 头 {kv}：{cfg.num_layers} × 2 × {kv} × {cfg.head_dim} × 2 字节 = {v:.0f} KiB"
                     for kv, v in zip(kv_heads, values))
    return values, (f"每 token KV Cache = {cfg.num_layers} 层 × 2（K、V）× KV 头数 × {cfg.head_dim} 维 × 2 字节。\n"
                    f"{steps}。\n它和 KV 头数成正比，和查询头数无关。")


def _no_rope_prefix():
    from .layer import LayerShape, attention_layer, random_layer

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


def _crossover_70b():
    from .config import LLAMA_3_1_8B, preset
    from .cost import crossovers

    big, small = preset("Llama-3.1-70B"), LLAMA_3_1_8B
    n70, n8 = crossovers(big)["per_token"], crossovers(small)["per_token"]
    return n70, (f"每 token：注意力 4·n·q_dim·层数 = 固定开销 2·参数量 → n = 参数量 / (2·q_dim·层数)。\n"
                 f"70B：{big.matmul_params():,} / (2 × {big.q_dim} × {big.num_layers}) ≈ {n70:,.0f}；"
                 f"8B：≈ {n8:,.0f}。参数量比 q_dim × 层数长得快，交点就更靠后。")


def _kv_cache_1b():
    from .config import LLAMA_3_1_8B, preset
    from .cost import KiB, kv_cache_bytes_per_token

    cfg = preset("Llama-3.2-1B")
    small, big = kv_cache_bytes_per_token(cfg) / KiB, kv_cache_bytes_per_token(LLAMA_3_1_8B) / KiB
    return small, (f"2 × {cfg.num_layers} 层 × {cfg.num_kv_heads} 个 KV 头 × {cfg.head_dim} × 2 字节 = {small:.0f} KiB；"
                   f"8B 是 {big:.0f} KiB（{big / small:.0f} 倍）。KV Cache 只看层数、KV 头数和 head_dim，"
                   "不看 MLP 和词表，所以不是参数量之比。")


def previous_token_ranking(weights) -> list:
    """``[(mean weight on the previous token, layer, head), …]`` best first, for a list of
    per-layer ``(heads, n, n)`` weights (``09_real_model``'s search for a previous-token head)."""
    rows = []
    for layer, w in enumerate(weights):
        arr = np.asarray(w, dtype=float)
        if arr.ndim != 3 or arr.shape[1] < 2:
            raise ValueError(f"weights[{layer}] must have shape (heads, n, n) with n >= 2, got {arr.shape}")
        prev = np.diagonal(arr, offset=-1, axis1=1, axis2=2).mean(axis=1)
        rows.extend((float(p), layer, head) for head, p in enumerate(prev))
    return sorted(rows, reverse=True)


def _previous_token_head(short=None, ranked=None):
    if short is None or ranked is None:
        raise ValueError("exercise 09-1 needs short= (the short sentence's weights) and ranked= (the ranking)")
    _, layer, head = ranked[0]
    on_prev = float(np.diagonal(np.asarray(short[layer][head]), offset=-1).mean())
    verdict = "是" if on_prev > 0.5 else "否"
    return verdict, (f"排名第 1 的头是第 {layer} 层第 {head} 个。在短句上，它平均把 {on_prev:.3f} 的权重"
                     f"放在前一个 token 上（{'超过' if on_prev > 0.5 else '不到'} 0.5）：换一段文字，它{'仍然' if on_prev > 0.5 else '不再'}是“看前一个 token”的头。")


EXERCISES = {
    "00-1": Exercise("把 q 拖到 [0, 2] 时，哪个位置的权重最大？", TOKEN, _largest_after_turn),
    "01-1": Exercise("哪个 token 能让新“申请”的“时间”一维最大？", TOKEN, _time_feature),
    "02-1": Exercise("输入 [1, 1, 0, 0] 的 q、k、v", Numbers(("q[0]", "q[1]", "k[0]", "k[1]", "v[0]", "v[1]"), 0),
                      _qkv_of),
    "02-2": Exercise("Llama-3.2-1B 的 k_proj 输出多少维？", Number(0, "维"), _k_proj_out),
    "02-3": Exercise("“要”的“事项”改成 2 以后，“报销”和“要”谁的权重大？",
                      Choice((*example.TOKENS_B[:2], "一样"), {"相同": "一样", "相等": "一样", "一样大": "一样"}), _item_twice),
    "03-1": Exercise("“申请”的 k 改成 [3, 0] 后，“怎么”这一行（不加掩码）的 4 个权重", Numbers(example.TOKENS, 2, slack=1),
                      _row_with_key),
    "03-2": Exercise("q 变成 [−2, 0] 后，哪个 token 的权重最小？", TOKEN, _smallest_after_turn),
    "04-1": Exercise("d = 128、缩放，n 从 5 拉到 1000，最大权重平均变大还是变小？",
                      Choice(("变大", "变小", "不变"), {"大": "变大", "小": "变小", "减小": "变小", "增大": "变大"}),
                      _n_dilutes),
    "04-2": Exercise("d = 64 不缩放时，最大权重平均比 d = 128 时大还是小？",
                      Choice(("大", "小", "一样"), {"更大": "大", "更小": "小", "变大": "大", "变小": "小"}),
                      _d64_vs_128),
    "05-1": Exercise("关掉掩码、追加 4 个 token，“年”放在自己身上的权重", Number(2, slack=1),
                      _unmasked_self_weight),
    "05-2": Exercise("掩码改成“只能看右边”，还能用 KV Cache 吗？", CAN, _right_looking_cache),
    "06-1": Exercise("KV 头 4 和 16 时 Llama-3.1-8B 每 token 的 KV Cache（KiB）",
                      Numbers(tuple(f"KV 头 {kv}" for kv in CACHE_KV_HEADS), 0, unit="KiB"), _kv_heads_cache),
    "06-2": Exercise("没有 RoPE 时交换“年”和“假”，“怎么”的输出会变吗？", WILL, _no_rope_prefix),
    "07-1": Exercise("Llama-3.2-1B 每 token 的 KV Cache（KiB）", Number(0, "KiB"), _kv_cache_1b),
    "07-2": Exercise("Llama-3.1-70B 每 token 注意力超过固定开销的 n（取到千位）", Number(-3), _crossover_70b),
    "09-1": Exercise("排名第 1 的头在短句上也主要看前一个 token 吗？", YES_NO, _previous_token_head),
    **TRAINING_EXERCISES,  # 10's exercises live beside the training code they recompute
    **HEADS_EXERCISES,  # 11's beside the head study they read
}

REFERENCES = {
    "09-2": ("多数英文段落上结论不变：只留最近窗口时困惑度明显上升，留下开头几个 token 后又回到接近完整注意力。"
             "如果段落很短（比窗口还短），三种方式就没有区别——窗口外没有被丢掉的 token。"),
    **TRAINING_REFERENCES,  # "10-1": the discussion that follows exercise 1
}


def reference(key: str, show: bool = False) -> None:
    """The reference answer of discussion question ``key``, printed only when ``show`` is true."""
    if key not in REFERENCES:
        print(f"⚠ 没有编号为 {key!r} 的讨论题。可选：{'、'.join(REFERENCES)}。")
    elif not show:
        print("先自己想一想（需要时做个实验），写下结论；想对照参考答案时，把 show 改成 True 再运行。")
    else:
        print("参考答案：" + REFERENCES[key])


# ---- the closing quiz of 08 ------------------------------------------------------------------
def _quiz_formula():
    return "Q", "Q 是 query（查询）：每一行是一个位置拿去和别人的 K 比较的“要找什么”；K 是被比较的标签，V 是被取走的内容。"


def _quiz_masked_row():
    from .attention import scaled_dot_product_attention

    qkv = example.running_qkv()
    _, w = scaled_dot_product_attention(qkv.q, qkv.k, qkv.v, causal=True)
    i = example.query_index("怎么")
    best = example.TOKENS[int(np.argmax(w[i]))]
    row = " · ".join(f"{t} {v:.3f}" for t, v in zip(example.TOKENS, w[i]))
    return best, f"“怎么”这一行（带掩码）：{row}；行里最大的是“{best}”，右边的“申请”被掩码置 0。"


def _quiz_head_dim():
    from .config import LLAMA_3_1_8B

    cfg = LLAMA_3_1_8B
    return float(cfg.head_dim), (f"每个头独立做注意力，点积只在这个头的 {cfg.head_dim} 维里求和，"
                                 f"所以除以 √{cfg.head_dim}，不是 √{cfg.hidden_size}。")


def _quiz_prefill():
    from .config import LLAMA_3_1_8B
    from .cost import prefill_share

    share = prefill_share(LLAMA_3_1_8B, 131072)
    return share, (f"Prefill 注意力 ≈ 2·n²·4096·32，固定开销 ≈ n × 15.0 GFLOPs；n = 131,072 时比值 {share:.3f}，"
                   "约 2.3 倍。")


def _quiz_growth():
    from .config import LLAMA_3_1_8B
    from .cost import prefill_share

    a, b = prefill_share(LLAMA_3_1_8B, 8192), prefill_share(LLAMA_3_1_8B, 131072)
    ratio = b / a
    closest = min(((1, "不变"), (4, "4 倍"), (16, "16 倍"), (256, "256 倍")), key=lambda o: abs(np.log(ratio / o[0])))[1]
    return closest, (f"注意力总量 ∝ n²，固定开销 ∝ n，比值 ∝ n：长度 ×16，比值也 ×16（{a:.1%} → {b:.2f} 倍，"
                    f"正好 {b / a:.0f} 倍）。")


def _quiz_kv():
    from .config import LLAMA_3_1_8B
    from .cost import GiB, kv_cache_bytes

    size = kv_cache_bytes(LLAMA_3_1_8B, 131072) / GiB
    return size, f"128 KiB/token × 131,072 token = {size:.0f} GiB：KV Cache 随长度线性增长。"


def _quiz_sink():
    from .reading import eviction_change, sink_sequence

    seq = sink_sequence(24, strength=5.0)
    only = eviction_change(seq, 8, keep_first=0)[8:].mean()
    kept = eviction_change(seq, 8, keep_first=1)[8:].mean()
    return ("明显改变" if only > 5 * kept else "几乎不变"), (f"第 08 篇的构造里：丢掉第 1 个 token，窗口外位置的输出平均变化 {only:.3f}；留下它只有 {kept:.3f}。"
                        "它的 v 几乎为 0，可它“占住”的大量权重被迫分给别的位置，输出就变了。")


def _quiz_influence():
    from .reading import weight_vs_influence_example

    ex = weight_vs_influence_example(0.05)
    top = int(ex["by_influence"][0])
    return float(top), (f"权重最高的是位置 {int(ex['by_weight'][0])}，但它的 v 很小；遮掉位置 {top} 输出变化最大"
                        f"（{ex['influence'][top]:.3f}）。影响 = w/(1−w)·‖v − out‖，既看权重也看 v。")


def _quiz_dilution():
    from .reading import dilution_weight

    w = float(dilution_weight(4.0, 1000))
    return w, (f"e^Δ / (e^Δ + n − 1) = e^4 / (e^4 + 999) = {np.exp(4):.1f} / {np.exp(4) + 999:.1f} = {w:.3f}："
               "分数最高也只拿到约 5%，其余被 999 个小权重分走。")


def _quiz_same_output():
    from .reading import same_output_weights, weight_vs_influence_example

    ex = weight_vs_influence_example(0.05)
    w2 = same_output_weights(ex["weights"], ex["values"])
    diff = float(np.abs(w2 @ ex["values"] - ex["weights"] @ ex["values"]).max())
    return ("能" if diff < 1e-9 else "不能"), (f"第 08 篇：两组权重最大相差 {np.abs(w2 - ex['weights']).max():.3f}，输出最大差 {diff:.1e}。"
                 "位置数多于 v 的维数 + 1 时，总有别的非负、和为 1 的权重给出同一个输出。")


QUIZ = {
    "q1": Exercise("softmax(QKᵀ/√d + 掩码)·V 里，哪个矩阵的每一行表示“这个位置想找什么”？（填 Q、K 或 V）",
                    Choice(("Q", "K", "V"), {"query": "Q", "查询": "Q", "key": "K", "键": "K", "value": "V", "值": "V"}),
                    _quiz_formula),
    "q2": Exercise("第 05 篇带掩码的 4×4 权重矩阵里，“怎么”那一行最大的权重落在哪个 token 上？", TOKEN,
                    _quiz_masked_row),
    "q3": Exercise("Llama-3.1-8B 的 √d 里，d 是多少？", Number(0), _quiz_head_dim),
    "q4": Exercise("热力图第一列很亮，可第 1 个 token 的 v 几乎为 0。把它从 KV 里丢掉，后面位置的输出会"
                    "“几乎不变”还是“明显改变”？", Choice(("几乎不变", "明显改变"), {"不变": "几乎不变", "改变": "明显改变",
                                                               "变": "明显改变", "明显": "明显改变"}), _quiz_sink),
    "q5": Exercise("“权重高 ≠ 影响大”一节的 6 个位置里，遮掉哪个位置输出变化最大？（填位置编号）", Number(0), _quiz_influence),
    "q6": Exercise("两组不同的注意力权重，能不能给出完全相同的输出？（能/不能）", CAN, _quiz_same_output),
    "q7": Exercise("相关位置比其余 999 个位置的分数高 Δ = 4（其余分数都是 0），它分到多少权重？（两位小数）",
                    Number(2), _quiz_dilution),
    "q8": Exercise("Llama-3.1-8B 在 128K 长度下，Prefill 的注意力是固定开销的几倍？（保留一位小数）",
                    Number(1, "倍", slack=1), _quiz_prefill),
    "q9": Exercise("长度从 8K 变成 128K（×16），Prefill 里“注意力 ÷ 固定开销”这个比值变成原来的几倍？"
                    "（不变 / 4 倍 / 16 倍 / 256 倍）", Choice(("不变", "4 倍", "16 倍", "256 倍"),
                                                          {"1": "不变", "4": "4 倍", "16": "16 倍", "256": "256 倍", "x16": "16 倍",
                                                           "16x": "16 倍", "×16": "16 倍"}),
                    _quiz_growth),
    "q10": Exercise("Llama-3.1-8B 在 128K 上下文时，KV Cache 一共多少 GiB（BF16）？", Number(0, "GiB"), _quiz_kv),
}


def closing_quiz(answers) -> dict:
    """The closing quiz of ``08_reading_attention``: the three reading outcomes of ``00_index``.

    ``answers`` maps ``"q1"…"q10"`` to the reader's answers (missing or ``None`` = unanswered).
    Prints each question with its verdict; a wrong answer also shows the reasoning. Returns
    ``{key: True/False/None}``."""
    if not isinstance(answers, dict):
        print("⚠ answers 应该是一个字典，例如 {\"q1\": \"Q\", \"q2\": \"假\"}。")
        return {key: None for key in QUIZ}
    unknown = [key for key in answers if key not in QUIZ]
    if unknown:
        print(f"⚠ 这些键不是题号，已忽略：{'、'.join(map(str, unknown))}（题号是 q1…q{len(QUIZ)}）。")
    results = {}
    for key, exercise in QUIZ.items():
        ok, message = judge(exercise, answers.get(key))
        results[key] = ok
        if answers.get(key) is None:
            message = "还没有作答"
        elif ok:
            message = message.split("\n", 1)[0]
        print(f"{key}. {exercise.prompt}\n   " + message.replace("\n", "\n   "))
    score = sum(1 for v in results.values() if v)
    print(f"\n得分：{score} / {len(QUIZ)}")
    return results
