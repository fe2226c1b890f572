"""Self-checking exercises of ``10_learning_to_attend`` (same style as :mod:`helpers.exercises`).

Every checker prints a verdict in Chinese with the working and returns ``True``/``False``
(``None`` when unanswered). Whatever the reader types, a checker never raises: an answer it
cannot read is a wrong answer with a hint.
"""
from __future__ import annotations

import numpy as np

from . import training
from .display import fmt_vec
from .exercises import UNANSWERED, _verdict
from .scaling import softmax_jacobian

#: exercise 1: weights p of three positions and the upstream gradient ∂L/∂p
BACKWARD_WEIGHTS = (0.5, 0.3, 0.2)
BACKWARD_UPSTREAM = (1.0, 0.0, 0.0)


def _as_vector(answer, n: int):
    """``answer`` as ``n`` floats, or ``None`` (with the reason) when it cannot be read."""
    try:
        values = np.asarray(answer, dtype=float).ravel()
    except Exception:  # noqa: BLE001 - whatever was typed, answer with a hint
        return None, f"没能把答案读成数字：{answer!r}。请填 {n} 个数，例如 [0.1, 0.2, 0.3]。"
    if values.shape != (n,) or not np.all(np.isfinite(values)):
        return None, f"答案应当是 {n} 个有限的数，收到 {values.size} 个：{answer!r}。"
    return values, ""


def check_softmax_backward(answer, *, tol: float = 0.01):
    """Exercise 1: ∂L/∂s for p = (0.5, 0.3, 0.2) and ∂L/∂p = (1, 0, 0), three numbers."""
    if answer is None:
        print(UNANSWERED)
        return None
    p, g = np.array(BACKWARD_WEIGHTS), np.array(BACKWARD_UPSTREAM)
    expected = softmax_jacobian(p) @ g
    working = (f"(diag(p) − p pᵀ) · ∂L/∂p，p = {fmt_vec(p, 1)}，∂L/∂p = {fmt_vec(g, 0)}\n"
               f"= p ⊙ (∂L/∂p − p·∂L/∂p) = {fmt_vec(expected, 2)}\n"
               "三个数加起来是 0：整体抬高所有分数，softmax 不变，所以梯度没有这个方向的分量。")
    values, problem = _as_vector(answer, 3)
    if values is None:
        return _verdict(False, problem + "\n" + working)
    return _verdict(bool(np.all(np.abs(values - expected) <= tol)), working)


def check_learned_kind(answer):
    """Exercise 2: after training, which kind gets the largest score in the 动作 row?"""
    if answer is None:
        print(UNANSWERED)
        return None
    params = training.trained_run().params_at(training.STEPS)
    row = training.centred(training.kind_score_table(params["W_Q"], params["W_K"]))[training.KINDS.index("动作")]
    best = training.KINDS[int(np.argmax(row))]
    working = ("学出来的“动作”一行（减去行均值）：" +
               " · ".join(f"{k} {v:.2f}" for k, v in zip(training.KINDS, row)) +
               f"\n最大的是“{best}”：最后一个词学会了去找事项。")
    given = str(answer).strip().strip("“”\"'")
    if given not in training.KINDS:
        return _verdict(False, f"请填四种之一：{'、'.join(training.KINDS)}；收到 {answer!r}。\n" + working)
    return _verdict(given == best, working)


def slowdown_by_d(rows=None) -> dict:
    """``{d: ratio}``: median steps to the target without the scale ÷ with it (a run that never
    reached the target counts as the step limit)."""
    rows = training.sqrt_d_experiment() if rows is None else rows

    def median_steps(row):
        return float(np.median([training.SQRT_D_STEPS if s is None else s for s in row["steps_to_target"]]))

    by = {(r["d"], r["scaled"]): median_steps(r) for r in rows}
    return {d: by[(d, False)] / by[(d, True)] for d in sorted({r["d"] for r in rows})}


def check_slowest_d(answer):
    """Exercise 3: at which d did dropping 1/√d slow training down the most (median steps ratio)?"""
    if answer is None:
        print(UNANSWERED)
        return None
    ratios = slowdown_by_d()
    best = max(ratios, key=ratios.get)
    working = ("不缩放 ÷ 缩放 的步数（3 次初始化的中位数；没达到的按 "
               f"{training.SQRT_D_STEPS} 步算）：" + " · ".join(f"d = {d}：{r:.2f}" for d, r in ratios.items()) +
               f"\n最慢的是 d = {best}。")
    try:
        given = int(str(answer).strip())
    except ValueError:
        return _verdict(False, f"请填一个整数（{'、'.join(str(d) for d in ratios)} 之一），收到 {answer!r}。\n" + working)
    return _verdict(given == best, working)
