"""``12_heads_at_work``: its self-checking exercises, in the vocabulary of :mod:`helpers.grading.answers`.

They live beside the head study they read and are registered in :data:`helpers.exercises.EXERCISES`:
``"12-1"`` is a prediction asked in the body, before the cell that shows the answer, so the notebook
checks it like every other notebook::

    answer = None  # 例如 1
    helpers.exercises.check("12-1", answer)

Each solve function takes the study as optional context (``study=``, a
:class:`helpers.heads.HeadStudy` or anything with its attributes) and otherwise uses
:func:`helpers.heads.study` — loaded once and cached, the same runs the notebook shows — so the
expected answer and its working are computed at check time. Nothing here imports
:mod:`helpers.exercises` (the package gathers this module).

One code exercise (:data:`CODE_EXERCISES`, checked by :func:`helpers.exercises.check_code`) follows
the summary: ``"12-2"`` the induction score.
"""
from __future__ import annotations

from ..grading.answers import Choice, Exercise
from ..heads import induction_score
from ..heads import study as cached_study
from ..render.format import fmt

COPIES = Choice(("第一遍", "第二遍"), {
    "1": "第一遍", "1.0": "第一遍", "一": "第一遍", "第一": "第一遍", "第1遍": "第一遍", "first": "第一遍",
    "2": "第二遍", "2.0": "第二遍", "二": "第二遍", "第二": "第二遍", "第2遍": "第二遍", "second": "第二遍"})


def _study(study=None):
    return cached_study() if study is None else study


def _lower_copy(study=None):
    s = _study(study)
    lower = "第一遍" if s.first_copy_loss < s.second_copy_loss else "第二遍"
    return lower, (f"{len(s.seeds)} 条序列的平均：第一遍每个 token 的损失 {fmt(s.first_copy_loss)}，"
                   f"第二遍 {fmt(s.second_copy_loss)}。第二遍的每个 token 在上文出现过，模型可以照着抄。")


EXERCISES = {
    "12-1": Exercise("重复的随机 token 序列上，哪一遍的平均损失更低？", COPIES, _lower_copy),
}

REFERENCES: dict = {}


# ---- 12-2: write the induction score yourself (a code exercise, checked by helpers.grading.code_check).
# The cases are synthetic patterns, so it needs no model.
import numpy as np  # noqa: E402  (kept inside this block so the block stays self-contained)

from ..grading.code_exercise import Case, CodeExercise, Mistake, causal_rows  # noqa: E402


def _ideal(length, shift):
    """Even causal rows, except that second-copy query i puts all its weight on ``i − T + shift``."""
    n = 2 * length + 1
    a = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    for i in range(length + 1, n):
        a[i] = 0.0
        a[i, i - length + shift] = 1.0
    return a


# What 12-2 asserts: the mean over the second copy's queries i = T+1 … 2T of A[i, i − T + 1]. Proof
# cases: an ideal induction head and an ideal duplicate-token head (off by one key tells them apart);
# heads whose weight piles on the first and last query of the second copy and on the keys at the
# copies' edges (the first, the last, one past the last) — a range one short at either end, or a key
# offset of −1 or +2, lands on a different value there; random rows for everything else.
def _edges(length, seed):
    """Random causal rows whose weight piles on the segment edges: keys 1, T, T+1 and the last query."""
    rng = np.random.default_rng(seed)
    n = 2 * length + 1
    a = causal_rows(rng, n) * 0.2
    for i in range(n):
        for j, w in ((1, 3.0), (length, 5.0), (length + 1, 7.0), (i, 2.0)):
            if j <= i:
                a[i, j] += w * (1 + i % 3)
    return a / a.sum(axis=-1, keepdims=True)


def _induction_cases():
    rng = np.random.default_rng(1212)
    return [
        Case("一个理想的归纳头，T = 3：第二遍的每个位置只看上一次出现之后的那个位置", (_ideal(3, 1), 3)),
        Case("一个理想的“重复 token”头，T = 3：第二遍的每个位置只看上一次出现的自己", (_ideal(3, 0), 3)),
        Case("随机的因果注意力权重，T = 4", (causal_rows(rng, 9), 4)),
        Case("随机的因果注意力权重，T = 6", (causal_rows(rng, 13), 6)),
        Case("随机的因果注意力权重，T = 2", (causal_rows(rng, 5), 2)),
        Case("权重堆在两遍的边界上（键 1、T、T + 1 和每一行自己），T = 5", (_edges(5, 1213), 5)),
        Case("权重堆在两遍的边界上，T = 3", (_edges(3, 1214), 3)),
    ]


def _induction_reference(a, length):
    return float(induction_score(a, length))


def _wrong_induction_scores():
    """The usual mistakes in reading the induction diagonal, each as the wrong code a learner writes."""
    def diagonal(a, length, shift=1, transpose=False, stop=1):
        q = np.arange(length + 1, 2 * length + stop)
        keys = q - length + shift
        return float(np.mean(a[keys, q] if transpose else a[q, keys]))

    return (
        # the induction head's key taken as the earlier copy of the current token itself (a duplicate-token
        # head's key), as in a public induction-head detector's definition
        Mistake("duplicate", "差了一格：i − T 是上一次出现的“同一个 token”本身（重复 token 头看的地方）；归纳头看的是它后面的"
                             "那一个，键的位置是 i − T + 1。", lambda a, t: diagonal(a, t, shift=0),
                seen="https://github.com/Sudharsanselvaraj/Token-Print/issues/16"),
        Mistake("transposed", "行和列反了：A[i, j] 是查询 i 放在键 j 上的权重，要读 A[i, i − T + 1]；你读的是 A[i − T + 1, i]"
                              "（因果注意力里在对角线右上方，全是 0）。", lambda a, t: diagonal(a, t, transpose=True),
                when_constant="如果你读的是 A[i − T + 1, i]（行和列反了），那在因果注意力的对角线右上方，全是 0："
                              "A[i, j] 是查询 i 放在键 j 上的权重，要读 A[i, i − T + 1]。",
                seen="https://github.com/Daner-Wang/VTC-LFC/issues/1"),
        # an exclusive bound (np.arange, range) that silently skips the last index of the range meant
        Mistake("drops_last", "少算了最后一个查询 2T（range 不含终点）：第二遍的查询是 T + 1 … 2T，要写成 "
                              "range(T + 1, 2 * T + 1) 或 np.arange(T + 1, 2 * T + 1)。", lambda a, t: diagonal(a, t, stop=0),
                seen=("https://github.com/harvardnlp/pytorch-struct/issues/59",
                      "https://github.com/RosettaCommons/rosetta/pull/695")),
    )


INDUCTION_SOLUTION = '''\
import numpy as np


def induction_score(A, T):
    """A：一个头的注意力权重 (2T+1, 2T+1)，序列是 [起始 token] + r + r（r 是 T 个随机 token）。
    返回第二遍的每个查询 i = T+1 … 2T 放在 i − T + 1（上一次出现之后的那个位置）上的平均权重。"""
    queries = np.arange(T + 1, 2 * T + 1)    # 第二遍的位置
    keys = queries - T + 1                   # 上一次出现是 i − T，它后面的那个是 i − T + 1
    return float(A[queries, keys].mean())
'''

CODE_EXERCISES = {
    "12-2": CodeExercise("自己写归纳分数：第二遍的查询看“上一次出现之后的那个位置”的平均权重", "induction_score(A, T)",
                         ("A", "T"), ("归纳分数",), _induction_cases, _induction_reference, _wrong_induction_scores(),
                         INDUCTION_SOLUTION, returns="返回一个数：归纳分数（T 个权重的平均）",
                         forbidden=("helpers.heads.induction_score", "helpers.heads.all_scores"),
                         forbidden_hint="先列出第二遍的查询位置和每个查询要读的键位置，用 A[queries, keys] 一次取出这 T 个权重，"
                                        "再取平均。"),
}


