"""Self-checking exercises of ``10_learning_to_attend`` (same style as :mod:`helpers.exercises`).

Every checker prints a verdict in Chinese with the working and returns ``True``/``False``
(``None`` when unanswered). Whatever the reader types, a checker never raises: an answer it
cannot read is a wrong answer with a hint.
"""
from __future__ import annotations

import numpy as np

from . import training
from .attention import softmax
from .display import fmt_vec
from .exercises import UNANSWERED, _verdict
from .scaling import softmax_jacobian

#: exercise 1: weights p of three positions and the upstream gradient ∂L/∂p
BACKWARD_WEIGHTS = (0.5, 0.3, 0.2)
BACKWARD_UPSTREAM = (1.0, 0.0, 0.0)
#: exercise 2: the checkpoint whose 动作 row the reader turns into weights, and the sentence
KIND_STEP = 35
KIND_SENTENCE = training.EXAMPLES[0]


def _as_vector(answer, n: int):
    """``answer`` as ``n`` floats, or ``None`` (with the reason) when it cannot be read."""
    try:
        values = np.asarray(answer, dtype=float).ravel()
    except Exception:  # noqa: BLE001 - whatever was typed, answer with a hint
        return None, f"没能把答案读成数字：{answer!r}。请填 {n} 个数，例如 [{', '.join(['0.1'] * n)}]。"
    if values.shape != (n,) or not np.all(np.isfinite(values)):
        return None, f"答案应当是 {n} 个有限的数，收到 {values.size} 个：{answer!r}。"
    return values, ""


def check_softmax_backward(answer, total=None, *, tol: float = 0.01):
    """Exercise 1: ∂L/∂s for p = (0.5, 0.3, 0.2) and ∂L/∂p = (1, 0, 0), three numbers; ``total``
    is their sum (judged too once given)."""
    if answer is None:
        print(UNANSWERED)
        return None
    p, g = np.array(BACKWARD_WEIGHTS), np.array(BACKWARD_UPSTREAM)
    expected = softmax_jacobian(p) @ g
    total_expected = float(np.round(expected.sum(), 12)) + 0.0  # no "-0.00"
    working = (f"(diag(p) − p pᵀ) · ∂L/∂p，p = {fmt_vec(p, 1)}，∂L/∂p = {fmt_vec(g, 0)}\n"
               f"= p ⊙ (∂L/∂p − p·∂L/∂p) = {fmt_vec(expected, 2)}，三个数之和 {total_expected:.2f}")
    values, problem = _as_vector(answer, 3)
    if values is None:
        return _verdict(False, problem + "\n" + working)
    ok = bool(np.all(np.abs(values - expected) <= tol))
    if total is None:
        return _verdict(ok, working + "\n（再把三个数之和填进 total，一起核对。）")
    try:
        total_ok = bool(abs(float(total) - total_expected) <= tol)
    except (TypeError, ValueError):
        return _verdict(False, f"total 应当是一个数，收到 {total!r}。\n" + working)
    return _verdict(ok and total_ok, working)


def kind_only_weights(step: int = KIND_STEP, words=KIND_SENTENCE) -> dict:
    """The weights the last word of ``words`` would give if its scores were only the 动作 row of
    the kind table at checkpoint ``step`` (identity dimensions left out), beside the model's own."""
    params = training.trained_run().params_at(step)
    row = training.action_row(params)
    scores = np.array([row[training.KINDS.index(training.KIND_OF[w])] for w in words])
    actual = training.forward(params, training.encode([words])).weights[0, : len(words)]
    return {"row": row, "scores": scores, "weights": softmax(scores), "model": actual}


def check_kind_weights(answer, *, tol: float = 0.01):
    """Exercise 2: softmax of the step-35 动作 row's kind scores over 年 假 怎么 申请."""
    if answer is None:
        print(UNANSWERED)
        return None
    k = kind_only_weights()
    words = KIND_SENTENCE
    working = (f"第 {KIND_STEP} 步的“动作”一行：" + " · ".join(f"{n} {v:.2f}" for n, v in zip(training.KINDS, k["row"])) +
               "\n按种类给每个词的分数：" + " · ".join(f"{w}（{training.KIND_OF[w]}）{s:.2f}" for w, s in zip(words, k["scores"])) +
               f"\nsoftmax → {fmt_vec(k['weights'], 2)}"
               f"\n模型真正的权重：{fmt_vec(k['model'], 2)}——不一样，因为真正的分数还包括身份维度那一部分。")
    values, problem = _as_vector(answer, len(words))
    if values is None:
        return _verdict(False, problem + "\n" + working)
    return _verdict(bool(np.all(np.abs(values - k["weights"]) <= tol)), working)


def slowdown_by_d(rows=None) -> dict:
    """``{d: ratio}``: median steps to the target without the scale ÷ with it (a run that never
    reached the target counts as the step limit)."""
    rows = training.sqrt_d_experiment() if rows is None else rows

    def median_steps(row):
        return float(np.median([training.SQRT_D_STEPS if s is None else s for s in row["steps_to_target"]]))

    by = {(r["d"], r["scaled"]): median_steps(r) for r in rows}
    return {d: by[(d, False)] / by[(d, True)] for d in sorted({r["d"] for r in rows})}


def check_slowdown_ratios(answer, *, tol: float = 0.01):
    """Exercise 3: for every d, median steps without 1/√d ÷ median steps with it (2 decimals)."""
    if answer is None:
        print(UNANSWERED)
        return None
    ratios = slowdown_by_d()
    expected = np.array(list(ratios.values()))
    most = max(ratios, key=ratios.get)
    working = ("不除 ÷ 除以 √d 的步数中位数（3 组初始参数；“—”按 "
               f"{training.SQRT_D_STEPS} 步算）：" + " · ".join(f"d = {d}：{r:.2f}" for d, r in ratios.items()) +
               f"\n步数增加得最多的是 d = {most}；比值小于 1 的 d 上，不除反而更快。")
    values, problem = _as_vector(answer, len(ratios))
    if values is None:
        return _verdict(False, problem + "\n" + working)
    return _verdict(bool(np.all(np.abs(values - expected) <= tol * np.maximum(1.0, np.abs(expected)))), working)
