"""``12_heads_at_work``: its self-checking exercises, in the vocabulary of :mod:`helpers.grading.answers`.

They live beside the head study they read and are registered in :data:`helpers.exercises.EXERCISES`
as ``"12-1"`` … ``"12-3"`` (all three are predictions asked in the body, before the cells that
show the answer; nothing above them gives it away), so the notebook checks them like every other notebook::

    answer = None  # 例如 1
    helpers.exercises.check("12-1", answer)

Each solve function takes the study as optional context (``study=``, a
:class:`helpers.heads.HeadStudy` or anything with its attributes) and otherwise uses
:func:`helpers.heads.study` — loaded once and cached, the same runs the notebook shows — so the
expected answer and its working are computed at check time. Nothing here imports
:mod:`helpers.exercises` (the package gathers this module).

Two code exercises (:data:`CODE_EXERCISES`, checked by :func:`helpers.exercises.check_code`) follow
the summary: ``"12-4"`` the induction score, ``"12-5"`` the screen's pattern-change measure (the
mean total-variation distance of chosen query rows, :func:`helpers.heads.pattern_change`).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..grading.answers import Choice, Exercise, Malformed, Number, clean_text, shown_answer
from ..heads import induction_score, pattern_change
from ..heads import study as cached_study
from ..render.format import fmt

COPIES = Choice(("第一遍", "第二遍"), {
    "1": "第一遍", "1.0": "第一遍", "一": "第一遍", "第一": "第一遍", "第1遍": "第一遍", "first": "第一遍",
    "2": "第二遍", "2.0": "第二遍", "二": "第二遍", "第二": "第二遍", "第2遍": "第二遍", "second": "第二遍"})
HEAD_KINDS = Choice(("前一个 token 头", "汇聚头", "归纳头"), {
    **dict.fromkeys(("前一个token", "前一个", "前一个头", "前一个token的头", "上一个token", "上一个token头",
                     "上一个token的头", "上一个", "上一个头", "previous", "previous-token", "previoustoken",
                     "previous-tokenhead", "previoustokenhead", "previous-token-head", "prev", "prev-token",
                     "prevtoken", "prev-tokenhead", "prevtokenhead", "prev-token-head"), "前一个 token 头"),
    **dict.fromkeys(("汇聚", "sink", "sinkhead", "attentionsink"), "汇聚头"),
    **dict.fromkeys(("归纳", "induction", "inductionhead"), "归纳头")})


@dataclass(frozen=True)
class LayerNumber(Number):
    """A layer index: a whole number, also written ``"第5层"`` / ``"5层"``."""

    digits: int = 0
    unit: str | None = "层"

    def read(self, answer) -> float:
        if isinstance(answer, str):
            answer = clean_text(answer).removeprefix("第")
        try:
            value = super().read(answer)
        except OverflowError:  # an int too large for a float (parse_number lets it through)
            raise Malformed("层号是从 0 数起的整数，收到的数太大了。") from None
        if value != int(value) or value < 0:
            raise Malformed(f"层号是从 0 数起的整数，收到的是 {shown_answer(answer)}。")
        return value


def _study(study=None):
    return cached_study() if study is None else study


def _lower_copy(study=None):
    s = _study(study)
    lower = "第一遍" if s.first_copy_loss < s.second_copy_loss else "第二遍"
    return lower, (f"{len(s.seeds)} 条序列的平均：第一遍每个 token 的损失 {fmt(s.first_copy_loss)}，"
                   f"第二遍 {fmt(s.second_copy_loss)}。第二遍的每个 token 在上文出现过，模型可以照着抄。")


def _later_head_layer(study=None):
    s = _study(study)
    layer, head = s.top("induction", 1)[0]
    ranked = s.top("previous", 5)
    later = [(rank, h) for rank, h in enumerate(ranked, start=1) if h[0] > layer]
    if not later:
        raise ValueError(f"no head of the top 5 previous-token heads sits above layer {layer}")
    rank, (lay, h) = later[0]
    before, after = s.scores["induction"][layer, head], s.ablate([(lay, h)])["induction"][layer, head]
    return lay, (f"归纳分数第一的是第 {layer} 层第 {head} 个头；前一个 token 前 5 名里只有第 {rank} 名、"
                 f"第 {lay} 层第 {h} 个头比它靠后。第 {layer} 层的输入只来自第 0…{layer - 1} 层，"
                 f"更后面的层改变不了它看哪里。实测：只去掉第 {lay} 层第 {h} 个头，"
                 f"它的归纳分数 {fmt(before)} → {fmt(after)}。")


def _earlier_head(study=None):
    s = _study(study)
    layer, head = s.top("induction", 1)[0]
    lines = [f"得分最高的归纳头在第 {layer} 层（第 {head} 个头）。它要找“上次出现当前 token 之后的那个位置”，"
             "这个位置得先“记住自己前面是谁”——这件事由更早的层里的前一个 token 头完成。"]
    for lay, h in (h for h in s.top("previous", 3) if h[0] < layer):
        lines.append(f"第 {lay} 层第 {h} 个头（前一个 token 分数 {fmt(s.scores['previous'][lay, h])}）："
                     f"只去掉它，第二遍的损失 {fmt(s.second_copy_loss)} → {fmt(s.second_copy_loss_without([(lay, h)]))}，"
                     f"第 {layer} 层第 {head} 个头的归纳分数 {fmt(s.scores['induction'][layer, head])} → "
                     f"{fmt(s.ablate([(lay, h)])['induction'][layer, head])}")
    return "前一个 token 头", "\n".join(lines)


EXERCISES = {
    "12-1": Exercise("重复的随机 token 序列上，哪一遍的平均损失更低？", COPIES, _lower_copy),
    "12-2": Exercise("前一个 token 前 5 名里，去掉哪一层的那个头一定不会改变归纳分数第一的头的归纳分数？",
                     LayerNumber(), _later_head_layer),
    "12-3": Exercise("本篇的归纳头靠更早的层里哪一种头找到“上次的下一个”？", HEAD_KINDS, _earlier_head),
}

REFERENCES: dict = {}


# ---- 12-4: write the induction score yourself (a code exercise, checked by helpers.grading.code_check).
# A separate block: the cases are synthetic patterns, so it needs no model (nor the study above).
import numpy as np  # noqa: E402  (kept inside this block so the block stays self-contained)

from ..grading.code_exercise import Case, CodeExercise, Mistake  # noqa: E402


def _causal_rows(rng, n):
    """Random causal attention rows ``(n, n)``: each row a softmax over positions 0…i."""
    s = np.where(np.triu(np.ones((n, n), dtype=bool), k=1), -np.inf, rng.standard_normal((n, n)) * 1.5)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _ideal(length, shift):
    """Even causal rows, except that second-copy query i puts all its weight on ``i − T + shift``."""
    n = 2 * length + 1
    a = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    for i in range(length + 1, n):
        a[i] = 0.0
        a[i, i - length + shift] = 1.0
    return a


# What 12-4 asserts: the mean over the second copy's queries i = T+1 … 2T of A[i, i − T + 1]. Proof
# cases: an ideal induction head and an ideal duplicate-token head (off by one key tells them apart);
# heads whose weight piles on the first and last query of the second copy and on the keys at the
# copies' edges (the first, the last, one past the last) — a range one short at either end, or a key
# offset of −1 or +2, lands on a different value there; random rows for everything else.
def _edges(length, seed):
    """Random causal rows whose weight piles on the segment edges: keys 1, T, T+1 and the last query."""
    rng = np.random.default_rng(seed)
    n = 2 * length + 1
    a = _causal_rows(rng, n) * 0.2
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
        Case("随机的因果注意力权重，T = 4", (_causal_rows(rng, 9), 4)),
        Case("随机的因果注意力权重，T = 6", (_causal_rows(rng, 13), 6)),
        Case("随机的因果注意力权重，T = 2", (_causal_rows(rng, 5), 2)),
        Case("权重堆在两遍的边界上（键 1、T、T + 1 和每一行自己），T = 5", (_edges(5, 1213), 5)),
        Case("权重堆在两遍的边界上，T = 3", (_edges(3, 1214), 3)),
    ]


def _induction_reference(a, length):
    return float(induction_score(a, length))


def _wrong_induction_scores():
    """The usual mistakes in reading the induction diagonal, each as the wrong code a learner writes."""
    def diagonal(a, length, shift=1, start=None, transpose=False, reduce=np.mean, stop=1):
        q = np.arange(length + 1 if start is None else start(length), 2 * length + stop)
        keys = q - length + shift
        return float(reduce(a[keys, q] if transpose else a[q, keys]))

    return (
        Mistake("duplicate", "差了一格：i − T 是上一次出现的“同一个 token”本身（重复 token 头看的地方）；归纳头看的是它后面的"
                             "那一个，键的位置是 i − T + 1。", lambda a, t: diagonal(a, t, shift=0)),
        Mistake("two_after", "差了一格：键的位置应是 i − T + 1（上一次出现之后紧挨着的那个），你取的是 i − T + 2。",
                lambda a, t: diagonal(a, t, shift=2)),
        Mistake("transposed", "行和列反了：A[i, j] 是查询 i 放在键 j 上的权重，要读 A[i, i − T + 1]；你读的是 A[i − T + 1, i]"
                              "（因果注意力里在对角线右上方，全是 0）。", lambda a, t: diagonal(a, t, transpose=True),
                when_constant="如果你读的是 A[i − T + 1, i]（行和列反了），那在因果注意力的对角线右上方，全是 0："
                              "A[i, j] 是查询 i 放在键 j 上的权重，要读 A[i, i − T + 1]。"),
        Mistake("from_T", "多算了位置 T：第二遍是位置 T + 1 … 2T（位置 0 是起始 token，第一遍是 1 … T），只对这 T 个查询取平均。",
                lambda a, t: diagonal(a, t, start=lambda length: length)),
        Mistake("whole_diagonal", "把第一遍的位置也平均进去了：只取第二遍的查询 i = T + 1 … 2T。",
                lambda a, t: float(np.diagonal(a, -(t - 1)).mean())),
        Mistake("drops_last", "少算了最后一个查询 2T（range 不含终点）：第二遍的查询是 T + 1 … 2T，要写成 "
                              "range(T + 1, 2 * T + 1) 或 np.arange(T + 1, 2 * T + 1)。", lambda a, t: diagonal(a, t, stop=0)),
        Mistake("no_mean", "应返回一个数：把这 T 个权重取平均（.mean()）。",
                lambda a, t: a[np.arange(t + 1, 2 * t + 1), np.arange(2, t + 2)]),
        Mistake("sum", "求的是和，不是平均：第二遍有 T 个查询，要除以 T（np.mean）。",
                lambda a, t: diagonal(a, t, reduce=np.sum)),
        Mistake("previous", "这是前一个 token 分数（每个位置放在 i − 1 上的平均权重）；归纳分数只看第二遍的查询 i，"
                            "读的是 A[i, i − T + 1]。", lambda a, t: float(a[np.arange(1, 2 * t + 1), np.arange(2 * t)].mean())),
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
    "12-4": CodeExercise("自己写归纳分数：第二遍的查询看“上一次出现之后的那个位置”的平均权重", "induction_score(A, T)",
                         ("A", "T"), ("归纳分数",), _induction_cases, _induction_reference, _wrong_induction_scores(),
                         INDUCTION_SOLUTION, returns="返回一个数：归纳分数（T 个权重的平均）",
                         forbidden=("helpers.heads.induction_score", "helpers.heads.all_scores"),
                         forbidden_hint="先列出第二遍的查询位置和每个查询要读的键位置，用 A[queries, keys] 一次取出这 T 个权重，"
                                        "再取平均。"),
}


# ---- 12-5: how far a pattern moved (the screen's total-variation measure, written by the learner).
# Synthetic causal patterns again: no model needed.
def _pattern_cases():
    rng = np.random.default_rng(1205)
    one_hot = np.eye(5)
    shifted = np.eye(5)[[0, 0, 1, 2, 3]]  # each query from 1 on moves all its weight one key back
    clean, patched = _causal_rows(rng, 9), _causal_rows(rng, 9)
    return [
        Case("两个随机的因果注意力模式，n = 6，只看查询 2、3、5", (_causal_rows(rng, 6), _causal_rows(rng, 6), [2, 3, 5])),
        Case("每一行都把全部权重挪到另一个键上（查询 1 … 4），n = 5", (one_hot, shifted, [1, 2, 3, 4])),
        Case("两个随机的因果注意力模式，n = 9，第二遍的查询 5 … 8（T = 4）", (clean, patched, np.arange(5, 9))),
        Case("同一个模式比它自己，n = 9，查询 0 … 8", (clean, clean.copy(), list(range(9)))),
        Case("两个随机的因果注意力模式，n = 7，只看查询 6", (_causal_rows(rng, 7), _causal_rows(rng, 7), [6])),
    ]


def _pattern_reference(a, b, rows):
    return float(pattern_change(a, b, rows))


def _wrong_pattern_changes():
    """The usual mistakes in measuring how far attention rows moved."""
    def rows_of(a, b, rows):
        rows = np.asarray(rows)
        return np.asarray(a)[rows], np.asarray(b)[rows]

    def per_row(a, b, rows, distance=lambda d: 0.5 * np.abs(d).sum(axis=-1), reduce=np.mean):
        x, y = rows_of(a, b, rows)
        return float(reduce(distance(y - x)))

    return (
        Mistake("no_half", "差了一倍：一行里挪走的权重和挪来的权重一样多，|A − B| 的和把每份挪动算了两次；"
                           "总变差要乘 ½，这样两行完全不重叠时正好是 1。",
                lambda a, b, r: per_row(a, b, r, lambda d: np.abs(d).sum(axis=-1))),
        Mistake("signed", "没取绝对值：每一行的权重加起来都是 1，A − B 的正负两部分正好抵消，和永远是 0；"
                          "要把每个键上的差取绝对值（np.abs）再加。", lambda a, b, r: per_row(a, b, r, lambda d: d.sum(axis=-1)),
                when_constant="如果你把 B − A 直接加起来（没取绝对值）：每一行的权重加起来都是 1，正负两部分正好抵消，"
                              "和永远是 0；要把每个键上的差取绝对值（np.abs）再加。"),
        Mistake("squared", "用的是差的平方和：总变差是差的绝对值之和的一半（½ Σ_j |A[i, j] − B[i, j]|），不平方。",
                lambda a, b, r: per_row(a, b, r, lambda d: np.square(d).sum(axis=-1))),
        Mistake("largest", "只取了一行里变得最多的那个键：总变差要把这一行所有键上的变化加起来（再乘 ½）。",
                lambda a, b, r: per_row(a, b, r, lambda d: np.abs(d).max(axis=-1))),
        Mistake("mean_over_keys", "在键这一维上取了平均：一行里要把所有键上的 |A − B| 加起来（sum），再乘 ½；"
                                  "平均是对查询行取的。", lambda a, b, r: per_row(a, b, r, lambda d: 0.5 * np.abs(d).mean(axis=-1))),
        Mistake("sum_rows", "对查询行求的是和，不是平均：每一行的距离在 0 到 1 之间，再对 rows 里的这些行取平均（np.mean）。",
                lambda a, b, r: per_row(a, b, r, reduce=np.sum)),
        Mistake("every_row", "没按 rows 挑行：只对 rows 里列出的查询行取平均（A[rows]、B[rows]），别的行不算。",
                lambda a, b, r: per_row(a, b, np.arange(len(a)))),
        Mistake("columns", "行和列反了：A[i, j] 是查询 i 放在键 j 上的权重，rows 挑的是行（查询）：A[rows]，"
                           "一行的权重加起来是 1；你挑的是列 A[:, rows]。",
                lambda a, b, r: float(np.mean(0.5 * np.abs(np.asarray(b)[:, r] - np.asarray(a)[:, r]).sum(axis=0)))),
    )


PATTERN_SOLUTION = '''\
import numpy as np


def pattern_change(A, B, rows):
    """A、B：同一个头的两个注意力模式 (n, n)（行 = 查询，每一行是键上的一个分布）。
    返回 rows 里每个查询行的总变差距离 ½ Σ_j |A[i, j] − B[i, j]| 的平均。"""
    moved = np.abs(B[rows] - A[rows])        # 只取 rows 这些查询行，每个键上的变化
    return float(0.5 * moved.sum(axis=-1).mean())   # 一行里要挪走多少权重，再对这些行取平均
'''

CODE_EXERCISES["12-5"] = CodeExercise(
    "自己写“模式变了多少”：两个注意力模式在指定查询行上的平均总变差距离", "pattern_change(A, B, rows)",
    ("A", "B", "rows"), ("平均总变差距离",), _pattern_cases, _pattern_reference, _wrong_pattern_changes(),
    PATTERN_SOLUTION, returns="返回一个数：rows 里这些查询行的总变差距离的平均（0 到 1 之间）",
    forbidden=("helpers.heads.pattern_change", "helpers.heads.composition_screen"),
    forbidden_hint="先取出 rows 这些行（A[rows]、B[rows]），每一行把各个键上变化的绝对值加起来再乘 ½，最后对这些行取平均。")
