"""``08_reading_attention``: the closing quiz of the series (:func:`closing_quiz`, ten questions over
00–08) — the three reading outcomes of ``00_index``.

08 has no numbered exercises of its own (:data:`EXERCISES` is empty); :mod:`helpers.exercises`
re-exports :data:`QUIZ` and :func:`closing_quiz`, which the notebook calls.
"""
from __future__ import annotations

import numpy as np

from .. import example
from ..attention import scaled_dot_product_attention
from ..config import LLAMA_3_1_8B
from ..cost import GiB, kv_cache_bytes, prefill_share
from ..grading.answers import CAN, Choice, Exercise, Number, judge
from ..reading import dilution_weight, eviction_change, same_output_weights, sink_sequence, weight_vs_influence_example
from ..render.format import LINE_COLUMNS, wrap_text


def _quiz_formula():
    return "Q", "Q 是 query（查询）：每一行是一个位置拿去和别人的 K 比较的“要找什么”；K 是被比较的标签，V 是被取走的内容。"


def _quiz_masked_row():
    qkv = example.running_qkv()
    _, w = scaled_dot_product_attention(qkv.q, qkv.k, qkv.v, causal=True)
    i = example.query_index("怎么")
    best = example.TOKENS[int(np.argmax(w[i]))]
    row = " · ".join(f"{t} {v:.3f}" for t, v in zip(example.TOKENS, w[i]))
    return best, f"“怎么”这一行（带掩码）：{row}；行里最大的是“{best}”，右边的“申请”被掩码置 0。"


def _quiz_head_dim():
    cfg = LLAMA_3_1_8B
    return float(cfg.head_dim), (f"每个头独立做注意力，点积只在这个头的 {cfg.head_dim} 维里求和，"
                                 f"所以除以 √{cfg.head_dim}，不是 √{cfg.hidden_size}。")


def _quiz_prefill():
    share = prefill_share(LLAMA_3_1_8B, 131072)
    return share, (f"Prefill 注意力 ≈ 2·n²·4096·32，固定开销 ≈ n × 15.0 GFLOPs；n = 131,072 时比值 {share:.3f}，"
                   "约 2.3 倍。")


def _quiz_growth():
    a, b = prefill_share(LLAMA_3_1_8B, 8192), prefill_share(LLAMA_3_1_8B, 131072)
    ratio = b / a
    closest = min(((1, "不变"), (4, "4 倍"), (16, "16 倍"), (256, "256 倍")), key=lambda o: abs(np.log(ratio / o[0])))[1]
    return closest, (f"注意力总量 ∝ n²，固定开销 ∝ n，比值 ∝ n：长度 ×16，比值也 ×16（{a:.1%} → {b:.2f} 倍，"
                    f"正好 {b / a:.0f} 倍）。")


def _quiz_kv():
    size = kv_cache_bytes(LLAMA_3_1_8B, 131072) / GiB
    return size, f"128 KiB/token × 131,072 token = {size:.0f} GiB：KV Cache 随长度线性增长。"


def _quiz_sink():
    seq = sink_sequence(24, strength=5.0)
    only = eviction_change(seq, 8, keep_first=0)[8:].mean()
    kept = eviction_change(seq, 8, keep_first=1)[8:].mean()
    return ("明显改变" if only > 5 * kept else "几乎不变"), (f"笔记本 08 的构造里：丢掉第 1 个 token，窗口外位置的输出平均变化 {only:.3f}；留下它只有 {kept:.3f}。"
                        "它的 v 几乎为 0，可它“占住”的大量权重被迫分给别的位置，输出就变了。")


def _quiz_influence():
    ex = weight_vs_influence_example(0.05)
    top = int(ex["by_influence"][0])
    return float(top), (f"权重最高的是位置 {int(ex['by_weight'][0])}，但它的 v 很小；遮掉位置 {top} 输出变化最大"
                        f"（{ex['influence'][top]:.3f}）。影响 = w/(1−w)·‖v − out‖，既看权重也看 v。")


def _quiz_dilution():
    w = float(dilution_weight(4.0, 1000))
    return w, (f"e^Δ / (e^Δ + n − 1) = e^4 / (e^4 + 999) = {np.exp(4):.1f} / {np.exp(4) + 999:.1f} = {w:.3f}："
               "分数最高也只拿到约 5%，其余被 999 个小权重分走。")


def _quiz_same_output():
    ex = weight_vs_influence_example(0.05)
    w2 = same_output_weights(ex["weights"], ex["values"])
    bound = 1e-12  # notebook 08's bound for "the same output": the difference itself is rounding, CPU-dependent
    same = float(np.abs(w2 @ ex["values"] - ex["weights"] @ ex["values"]).max()) < bound
    return ("能" if same else "不能"), (f"笔记本 08：两组权重最大相差 {np.abs(w2 - ex['weights']).max():.3f}，"
                                     f"输出最大差 < {bound:.0e}：{'是' if same else '否'}。"
                                     "位置数多于 v 的维数 + 1 时，总有别的非负、和为 1 的权重给出同一个输出。")


QUIZ = {
    "q1": Exercise("softmax(QKᵀ/√d + 掩码)·V 里，哪个矩阵的每一行表示“这个位置想找什么”？（填 Q、K 或 V）",
                    Choice(("Q", "K", "V"), {"query": "Q", "查询": "Q", "key": "K", "键": "K", "value": "V", "值": "V"}),
                    _quiz_formula),
    "q2": Exercise("笔记本 05 带掩码的 4×4 权重矩阵里，“怎么”那一行最大的权重落在哪个 token 上？", Choice(example.TOKENS),
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
        print(wrap_text(f"{key}. {exercise.prompt}", indent="   ") + "\n   "
              + wrap_text(message, LINE_COLUMNS - 3).replace("\n", "\n   "))
    score = sum(1 for v in results.values() if v)
    print(f"\n得分：{score} / {len(QUIZ)}")
    return results


EXERCISES: dict = {}
REFERENCES: dict = {}
