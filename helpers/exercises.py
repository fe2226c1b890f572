"""Self-checking exercises: the reader types an answer, a checker says right or wrong and shows
the working (``03_hand_calculation``; later notebooks add their own).

Each checker prints its verdict and returns ``True``/``False`` (``None`` when unanswered), so
tests can drive it.
"""
from __future__ import annotations

import numpy as np

from . import example
from .display import fmt, fmt_vec

UNANSWERED = "还没有作答：把答案填进上面的变量，再运行这个单元。"


def _verdict(ok: bool, working: str) -> bool:
    print(("✔ 正确！" if ok else "✘ 还不对。") + "\n" + working)
    return ok


def row_working(token: str, q=None) -> tuple:
    """The unmasked attention row of ``token`` with its working, as text."""
    qkv = example.running_qkv()
    i = example.query_index(token)
    q_vec = qkv.q[i] if q is None else np.asarray(q, dtype=float)
    row = example.hand_row(q_vec, qkv.k, qkv.v)
    working = "\n".join([
        f"q({token}) = {fmt_vec(q_vec, 0)}",
        f"点积 q·k = {fmt_vec(row.dots, 0)}，÷√2 → {fmt_vec(row.scores)}",
        f"e^s = {fmt_vec(row.exps)}，合计 {fmt(row.total)}",
        f"权重 = {fmt_vec(row.weights)}",
    ])
    return row, working


def check_row(token: str, answer, *, tol: float = 0.01):
    """Check a typed row of 4 weights for ``token`` (no mask) to within ``tol``."""
    if answer is None:
        print(UNANSWERED)
        return None
    values = np.asarray(answer, dtype=float).ravel()
    row, working = row_working(token)
    if values.shape != (4,):
        raise ValueError(f"answer must be 4 weights (年, 假, 怎么, 申请), got {len(values)} values")
    return _verdict(bool(np.all(np.abs(values - row.weights) <= tol)), working)


def check_largest_after_turn(answer, q=(0.0, 2.0)):
    """Which token gets 申请's largest weight when its q turns to ``q``? ``answer`` is a token."""
    if answer is None:
        print(UNANSWERED)
        return None
    if answer not in example.TOKENS:
        raise ValueError(f"answer must be one of {example.TOKENS}, got {answer!r}")
    row, working = row_working("申请", q=q)
    best = example.TOKENS[int(np.argmax(row.weights))]
    return _verdict(answer == best, working + f"\n最大的权重落在“{best}”上：q 转向了它的 k 的方向。")


QUIZ = {
    "q1": ("softmax(QKᵀ/√d + 掩码)·V 里，哪个矩阵的每一行表示“这个位置想找什么”？（填 Q、K 或 V）", "Q"),
    "q2": ("第 05 篇带掩码的 4×4 权重矩阵里，“怎么”那一行最大的权重落在哪个 token 上？", "假"),
    "q3": ("Llama-3.1-8B 在 128K 长度下，Prefill 的注意力是固定开销的几倍？（保留一位小数）", None),
}


def _quiz_answer(key):
    if key == "q3":
        from .config import LLAMA_3_1_8B
        from .cost import prefill_share

        return round(prefill_share(LLAMA_3_1_8B, 131072), 1)
    return QUIZ[key][1]


def closing_quiz(answers: dict) -> dict:
    """The closing quiz of ``08_reading_attention``: checks the three reading outcomes of
    ``00_index``. ``answers`` maps ``"q1"…"q3"`` to the reader's answers (``None`` = unanswered).
    Prints one verdict per question; returns ``{key: True/False/None}``."""
    results = {}
    for key, (question, _) in QUIZ.items():
        given = answers.get(key)
        expected = _quiz_answer(key)
        if given is None:
            results[key] = None
            print(f"{key}. {question}\n   还没有作答")
            continue
        if isinstance(expected, float):
            try:
                ok = abs(float(given) - expected) <= 0.1
            except (TypeError, ValueError):
                ok = False
        else:
            ok = str(given).strip().upper() == expected.upper()
        results[key] = ok
        print(f"{key}. {question}\n   {'✔ 正确' if ok else '✘ 不对'}（答案：{expected}）")
    return results
