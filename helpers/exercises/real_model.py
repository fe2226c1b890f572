"""``09_real_model``: its self-checking exercises — whether the best previous-token head keeps its
pattern on a short sentence, and one head's attention moved from byte-level pieces onto characters.

Registered in :data:`helpers.exercises.EXERCISES` by their keys; each solve function computes
the expected answer and its working at check time (vocabulary: :mod:`helpers.grading.answers`).
"""
from __future__ import annotations

import numpy as np

from ..grading.answers import YES_NO, Exercise, Number
from ..readable_tokens import Spelling, group_attention


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


def _grouped_row(weights=None, spelling=None, layer=None, head=None, query="请", key="假"):
    if weights is None or not isinstance(spelling, Spelling) or layer is None or head is None:
        raise ValueError("exercise 09-3 needs weights= (the pieces' weights, per layer and head), "
                         "spelling= (helpers.readable_tokens.spell_ids), layer= and head=")
    w = np.asarray(weights[layer][head], dtype=float)
    (q0, q1), (k0, k1) = spelling.runs[spelling.index(query)], spelling.runs[spelling.index(key)]
    sums = w[q0:q1, k0:k1].sum(axis=1)
    value = float(group_attention(w, spelling)[spelling.index(query), spelling.index(key)])
    return value, (f"层 {layer}、头 {head}：“{query}”的 {q1 - q0} 段 token（第 {q0}–{q1 - 1} 个）各自放在“{key}”的 "
                   f"{k1 - k0} 段（第 {k0}–{k1 - 1} 个）上的权重之和是 {'、'.join(f'{x:.3f}' for x in sums)}；"
                   f"键按段求和、查询按段平均，合到字上就是它们的平均 {value:.3f}。")


EXERCISES = {
    "09-1": Exercise("排名第 1 的头在短句上也主要看前一个 token 吗？", YES_NO, _previous_token_head),
    "09-3": Exercise("合到字上以后，“请”这一行放在“假”上的权重是多少？", Number(digits=3, slack=1), _grouped_row),
}


REFERENCES = {
    "09-2": ("多数英文段落上结论不变：只留最近窗口时困惑度明显上升，留下开头几个 token 后又回到接近完整注意力。"
             "如果段落很短（比窗口还短），三种方式就没有区别——窗口外没有被丢掉的 token。"),
}
