"""``03_hand_calculation``: its self-checking exercises — a row of the hand calculation with a changed
key, and with a turned query — and one code exercise, 03-3: write softmax over the last axis that
survives scores of 1000 (:data:`CODE_EXERCISES`, checked by :mod:`helpers.grading.code_check`).

Registered in :data:`helpers.exercises.EXERCISES` by their keys; each solve function computes
the expected answer and its working at check time (vocabulary: :mod:`helpers.grading.answers`).
"""
from __future__ import annotations

import numpy as np

from .. import example
from ..attention import softmax
from ..grading.answers import Choice, Exercise, Numbers
from ..grading.code_exercise import Case, CodeExercise, Mistake
from ..render.format import fmt_vec


def _row_with_key(token="怎么", changed="申请", key=(3.0, 0.0)):
    keys = example.running_qkv().k.copy()
    keys[example.query_index(changed)] = key
    row, working = example.row_working(token, k=keys)
    return row.weights, f"“{changed}”的 k 改成 {fmt_vec(key, 0)}，其余不变：\n" + working


def _smallest_after_turn(q=(-2.0, 0.0)):
    row, working = example.row_working("申请", q=q)
    worst = example.TOKENS[int(np.argmin(row.weights))]
    return worst, working + (f"\n最小的权重落在“{worst}”上：它的 k 和 q 方向相反，而且最长，点积最负"
                             "（点积为 0 的位置反而比它大）。")


EXERCISES = {
    "03-1": Exercise("“申请”的 k 改成 [3, 0] 后，“怎么”这一行（不加掩码）的 4 个权重", Numbers(example.TOKENS, 2, slack=1),
                      _row_with_key),
    "03-2": Exercise("q 变成 [−2, 0] 后，哪个 token 的权重最小？", Choice(example.TOKENS), _smallest_after_turn),
}


REFERENCES: dict = {}


# ---- 03-3: write softmax yourself (a code exercise, checked by helpers.grading.code_check) ------------
# What it asserts: softmax along the last axis, any number of dimensions, that survives scores far
# beyond e's float64 range. Proof cases: the row [1000, 0, −1000] (spread 2000 ≫ 709: subtracting
# anything but the row maximum — the minimum, the mean, the first element, the global maximum —
# overflows or underflows to nan there); float32 rows around ±100 (e^89 already overflows float32, so a
# float32 solution must subtract the maximum too); the 3-D and (5, 1) cases prove axis=-1.
def _softmax_cases():
    rng = np.random.default_rng(303)
    return [
        Case("一维的 3 个分数", (np.array([1.0, 2.0, 3.0]),)),
        Case("随机分数，形状 (3, 5)：每一行各做一次 softmax", (rng.standard_normal((3, 5)),)),
        Case("随机分数，方阵 (4, 4)", (rng.standard_normal((4, 4)) * 2,)),
        Case("一行分数大到 1000", (np.array([1000.0, 999.0, 998.0]),)),
        Case("一行分数都在 −1000 附近", (np.array([-1000.0, -1001.0, -1003.0]),)),
        Case("两行差得很远：一行在 1000 附近，一行在 0 附近", (np.array([[1000.0, 999.0, 997.0], [0.0, 1.0, 2.0]]),)),
        Case("随机分数，三维 (2, 3, 4)：仍然沿最后一维", (rng.standard_normal((2, 3, 4)) * 3,)),
        Case("每行只有一个位置，形状 (5, 1)", (rng.standard_normal((5, 1)),)),
        Case("一行里差 2000：[1000, 0, −1000] 和 [−1000, 0, 1000]（e^1000 溢出，e^−1000 下溢成 0）",
             (np.array([[1000.0, 0.0, -1000.0], [-1000.0, 0.0, 1000.0]]),)),
        Case("float32 的分数在 ±100 附近（float32 的 e^89 就溢出了）",
             (np.array([[100.0, 98.0, 95.0], [-100.0, -97.0, -99.0]], dtype=np.float32),)),
    ]


def _softmax_reference(x):
    return softmax(x, axis=-1)


def _wrong_softmaxes():
    """The usual mistakes in writing softmax, each as the wrong code a learner writes."""
    def no_max(x):
        e = np.exp(x)
        return e / e.sum(axis=-1, keepdims=True)

    def global_max(x):
        e = np.exp(x - x.max())
        return e / e.sum(axis=-1, keepdims=True)

    def axis0(x):
        e = np.exp(x - x.max(axis=0, keepdims=True))
        return e / e.sum(axis=0, keepdims=True)

    def axis1(x):
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def sum_no_keepdims(x):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1)

    def max_no_keepdims(x):
        e = np.exp(x - x.max(axis=-1))
        return e / e.sum(axis=-1, keepdims=True)

    def sum_all(x):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum()

    def shifted_by(shift):
        def wrong(x):
            e = np.exp(x - shift(x))
            return e / e.sum(axis=-1, keepdims=True)
        return wrong

    keepdims = ("求最大值或求和时去掉了那一维：形状 (3, 5) 的 x.sum(axis=-1) 是 (3,)，再和 (3, 5) 相减或相除时"
                "按列对齐（方阵时不报错，悄悄算错；否则广播报错）。加 keepdims=True，形状保持 (3, 1)。")
    return (
        Mistake("no_max", "e^1000 超出了 float64 能表示的最大数（约 1.8e308），变成 inf，inf / inf 是 nan；"
                          "分数都在 −1000 附近时 e^s 全部下溢成 0，0 / 0 也是 nan。先减去每一行的最大值："
                          "softmax(x) = softmax(x − max)，结果不变，最大的一项变成 e^0 = 1。", no_max,
                seen=("https://github.com/deeplearning4j/deeplearning4j-examples/issues/730",
                      "https://github.com/uTensor/uTensor/issues/175")),
        Mistake("global_max", "减去的是整个数组的最大值 x.max()：两行差得很远时，另一行的 e^s 全部下溢成 0，0 / 0 是 nan。"
                              "要减每一行自己的最大值：x.max(axis=-1, keepdims=True)。", global_max,
                seen="https://github.com/keras-team/keras/pull/10027"),
        Mistake("axis0", "沿第 0 维（每一列）做了 softmax；这里要沿最后一维，让每一行（一个查询的一行分数）加起来等于 1："
                         "axis=-1。", axis0, seen="https://github.com/PetrochukM/PyTorch-NLP/issues/2"),
        Mistake("axis1", "写死了 axis=1：一维的 x 没有第 1 维，三维的 x 第 1 维也不是最后一维。用 axis=-1（最后一维），"
                         "任何维数都对。", axis1, seen="https://github.com/pytorch/pytorch/issues/3238"),
        Mistake("sum_no_keepdims", keepdims, sum_no_keepdims,
                seen=("https://github.com/triton-lang/triton/pull/11409",
                      "https://github.com/sahandsafizadeh/qeep/pull/29")),
        Mistake("max_no_keepdims", keepdims, max_no_keepdims, seen="https://github.com/triton-lang/triton/pull/11409"),
        Mistake("sum_all", "除以了整个数组的总和：每一行要除以它自己那一行的和，e.sum(axis=-1, keepdims=True)。", sum_all,
                seen=("https://github.com/rickwierenga/MLFundamentals/issues/1",
                      "https://github.com/uTensor/uTensor/pull/171")),
        # Subtracting another number than the row maximum: the result is the same in exact arithmetic,
        # so small cases cannot tell; the [1000, 0, −1000] row can. (The row minimum and the row mean
        # are rejected too, by the generic path: no public thread was found that makes them.)
        Mistake("first_element", "减去的是每一行的第一个元素：第一个数不一定最大，[1000, 0, −1000] 换个顺序就会溢出。"
                                 "要减去每一行的最大值。", shifted_by(lambda x: x[..., :1]),
                seen="https://github.com/ROCm/AMDMIGraphX/pull/1290"),
    )


SOFTMAX_SOLUTION = '''\
import numpy as np


def softmax(x):
    """沿最后一维的 softmax；分数大到 1000 也不溢出。"""
    x = np.asarray(x, dtype=float)
    shifted = x - x.max(axis=-1, keepdims=True)   # 每一行减去自己的最大值：最大的一项变成 0
    e = np.exp(shifted)                            # 最大是 e^0 = 1，不会溢出
    return e / e.sum(axis=-1, keepdims=True)       # 每一行除以自己的和，加起来等于 1
'''


def _code_exercises():
    return {
        "03-3": CodeExercise("自己写 softmax：沿最后一维，分数大到 1000 也不溢出", "softmax(x)", ("x",), ("权重",),
                             _softmax_cases, _softmax_reference, _wrong_softmaxes(), SOFTMAX_SOLUTION,
                             returns="返回和 x 同样形状的权重数组", forbidden=("helpers.softmax",),
                             forbidden_hint="用 np.exp 和沿最后一维的求最大值、求和自己算，不要调用 helpers.softmax"
                                            "（也不要调用用到它的 helpers 函数）。"),
    }


CODE_EXERCISES = _code_exercises()
