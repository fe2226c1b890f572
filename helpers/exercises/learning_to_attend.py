"""``10_learning_to_attend``: its self-checking exercises, in the vocabulary of :mod:`helpers.grading.answers`.

They live beside the training code they recompute and are registered in
:data:`helpers.exercises.EXERCISES` as ``"10-1"`` … ``"10-3"`` (and the reference answer of the
discussion after exercise 1 in :data:`helpers.exercises.REFERENCES`), so the notebook checks them
like every other notebook::

    answer = None  # 例如 [0.1, 0.2, 0.3, 0.6]
    helpers.exercises.check("10-1", answer)

Each solve function computes the expected answer and its working at check time. Nothing here imports
:mod:`helpers.exercises` (the package gathers this module).
"""
from __future__ import annotations

import numpy as np

from .. import training
from ..attention import softmax
from ..grading.answers import Exercise, Numbers
from ..render.format import fmt_vec
from ..scaling import softmax_jacobian

#: exercise 1: weights p of three positions and the upstream gradient ∂L/∂p
BACKWARD_WEIGHTS = (0.5, 0.3, 0.2)
BACKWARD_UPSTREAM = (1.0, 0.0, 0.0)
#: exercise 2: the checkpoint whose 动作 row the reader turns into weights, and the sentence
KIND_STEP = 35
KIND_SENTENCE = training.EXAMPLES[0]


def softmax_backward(weights=BACKWARD_WEIGHTS, upstream=BACKWARD_UPSTREAM) -> np.ndarray:
    """Exercise 1: ``[∂L/∂s₁, ∂L/∂s₂, ∂L/∂s₃, their sum]`` = (diag(p) − p pᵀ)·∂L/∂p and its sum."""
    grad = softmax_jacobian(np.asarray(weights, dtype=float)) @ np.asarray(upstream, dtype=float)
    total = float(np.round(grad.sum(), 12)) + 0.0  # the sum is 0 up to rounding: no "-0.00"
    return np.append(grad, total)


def _softmax_backward():
    p, g = np.array(BACKWARD_WEIGHTS), np.array(BACKWARD_UPSTREAM)
    expected = softmax_backward(p, g)
    return expected, (f"(diag(p) − p pᵀ) · ∂L/∂p，p = {fmt_vec(p, 1)}，∂L/∂p = {fmt_vec(g, 0)}\n"
                      f"= p ⊙ (∂L/∂p − p·∂L/∂p) = {fmt_vec(expected[:3], 2)}，三个数之和 {expected[3]:.2f}")


def kind_only_weights(step: int = KIND_STEP, words=KIND_SENTENCE) -> dict:
    """The weights the last word of ``words`` would give if its scores were only the 动作 row of
    the kind table at checkpoint ``step`` (identity dimensions left out), beside the model's own."""
    params = training.trained_run().params_at(step)
    row = training.action_row(params)
    scores = np.array([row[training.KINDS.index(training.KIND_OF[w])] for w in words])
    actual = training.forward(params, training.encode([words])).weights[0, : len(words)]
    return {"row": row, "scores": scores, "weights": softmax(scores), "model": actual}


def _kind_weights():
    k = kind_only_weights()
    return k["weights"], (
        f"第 {KIND_STEP} 步的“动作”一行：" + " · ".join(f"{n} {v:.2f}" for n, v in zip(training.KINDS, k["row"]))
        + "\n按种类给每个词的分数：" + " · ".join(f"{w}（{training.KIND_OF[w]}）{s:.2f}"
                                         for w, s in zip(KIND_SENTENCE, k["scores"]))
        + f"\nsoftmax → {fmt_vec(k['weights'], 2)}"
        + f"\n模型真正的权重：{fmt_vec(k['model'], 2)}——不一样，因为真正的分数还包括身份维度那一部分。")


def slowdown_by_d(rows=None) -> dict:
    """``{d: ratio}``: median steps to the target without the scale ÷ with it (a run that never
    reached the target counts as the step limit)."""
    rows = training.sqrt_d_experiment() if rows is None else rows

    def median_steps(row):
        return float(np.median([training.SQRT_D_STEPS if s is None else s for s in row["steps_to_target"]]))

    by = {(r["d"], r["scaled"]): median_steps(r) for r in rows}
    return {d: by[(d, False)] / by[(d, True)] for d in sorted({r["d"] for r in rows})}


def _slowdown_ratios():
    ratios = slowdown_by_d()
    most = max(ratios, key=ratios.get)
    return list(ratios.values()), (
        f"不除 ÷ 除以 √d 的步数中位数（{len(training.SQRT_D_INITS)} 组初始参数；“—”按 "
        f"{training.SQRT_D_STEPS} 步算）：" + " · ".join(f"d = {d}：{r:.2f}" for d, r in ratios.items())
        + f"\n步数增加得最多的是 d = {most}；比值小于 1 的 d 上，不除反而更快。")


EXERCISES = {
    "10-1": Exercise(f"p = {fmt_vec(BACKWARD_WEIGHTS, 1)}、∂L/∂p = {fmt_vec(BACKWARD_UPSTREAM, 0)} 时的三个 ∂L/∂s 和它们的和",
                     Numbers(("∂L/∂s₁", "∂L/∂s₂", "∂L/∂s₃", "三者之和"), 2), _softmax_backward),
    "10-2": Exercise(f"只看种类：第 {KIND_STEP} 步的“动作”一行给“{' '.join(KIND_SENTENCE)}”的权重",
                     Numbers(KIND_SENTENCE, 2, slack=1), _kind_weights),
    "10-3": Exercise("每个 d 上“不除”÷“除以 √d”的步数中位数",
                     Numbers(tuple(f"d = {d}" for d in training.SQRT_D_DIMS), 2, slack=1), _slowdown_ratios),
}

REFERENCES = {
    "10-1": ("和总是 0，不管 ∂L/∂p 是什么：雅可比矩阵 diag(p) − p pᵀ 每一列的和是 p_j − p_j·Σ_i p_i，"
             "而 Σ_i p_i = 1。意思是：把所有分数一起加上同一个数，softmax 的权重不变，"
             "所以损失对“所有分数一起变大”这个方向的梯度是 0。"),
}
