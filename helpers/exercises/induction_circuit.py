"""``13_induction_circuit``: its self-checking exercises, in the vocabulary of :mod:`helpers.grading.answers`.

Two predictions asked in the body before the cells that show the answer (``"13-1"`` the layer whose
previous-token head cannot change the top induction head, ``"13-2"`` the kind of earlier head the
induction heads lean on), and one code exercise after the summary (``"13-3"``, checked by
:func:`helpers.exercises.check_code`): the screen's pattern-change measure, the mean total-variation
distance of chosen query rows (:func:`helpers.heads.pattern_change`). ``"13-4"``, answer-checked
after it: the learner runs the sender screen (:func:`helpers.heads.sender_screen`) on another
induction head, 20.6, and names the sender other than 16.0 that its keys need most.

Each solve function takes the study as optional context (``study=``, a
:class:`helpers.heads.HeadStudy` or anything with its attributes) and otherwise uses
:func:`helpers.heads.study` — loaded once and cached, the same runs the notebook shows — so the
expected answer and its working are computed at check time. Nothing here imports
:mod:`helpers.exercises` (the package gathers this module).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..grading.answers import Choice, Exercise, Malformed, Number, clean_text, shown_answer
from ..grading.code_exercise import Case, CodeExercise, Mistake, causal_rows
from ..heads import induction_score, pattern_change, sender_screen, top_heads
from ..heads import study as cached_study
from ..render.format import fmt

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


def _later_head_layer(study=None):
    s = cached_study() if study is None else study
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
    s = cached_study() if study is None else study
    layer, head = s.top("induction", 1)[0]
    lines = [f"得分最高的归纳头在第 {layer} 层（第 {head} 个头）。它要找“上次出现当前 token 之后的那个位置”，"
             "这个位置得先“记住自己前面是谁”——这件事由更早的层里的前一个 token 头完成。"]
    for lay, h in (h for h in s.top("previous", 3) if h[0] < layer):
        lines.append(f"第 {lay} 层第 {h} 个头（前一个 token 分数 {fmt(s.scores['previous'][lay, h])}）："
                     f"只去掉它，第二遍的损失 {fmt(s.second_copy_loss)} → {fmt(s.second_copy_loss_without([(lay, h)]))}，"
                     f"第 {layer} 层第 {head} 个头的归纳分数 {fmt(s.scores['induction'][layer, head])} → "
                     f"{fmt(s.ablate([(lay, h)])['induction'][layer, head])}")
    return "前一个 token 头", "\n".join(lines)


@dataclass(frozen=True)
class HeadName:
    """A head written ``"层.头"`` (``"19.3"``, ``19.3``, ``(19, 3)``, ``"第19层第3个头"``)."""

    def read(self, answer) -> tuple:
        if isinstance(answer, (tuple, list)) and len(answer) == 2 and all(
                isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in answer):
            return int(answer[0]), int(answer[1])
        if isinstance(answer, float) and np.isfinite(answer):
            answer = f"{answer:.1f}"
        if not isinstance(answer, (str, int, float)) or isinstance(answer, bool):
            raise Malformed(f"写成“层.头”，例如 \"11.1\"，收到的是 {shown_answer(answer)}。")
        text = clean_text(str(answer))
        parts = re.fullmatch(r"(?:第)?(\d+)(?:层第|层|\.|,)(\d+)(?:个头|头|号头)?", text)
        if parts is None:
            raise Malformed(f"写成“层.头”，例如 \"11.1\"，收到的是 {shown_answer(answer)}。")
        return int(parts[1]), int(parts[2])

    def same(self, given, expected) -> bool:
        return tuple(given) == tuple(expected)

    def show(self, expected) -> str:
        return f"{expected[0]}.{expected[1]}"


#: the receiver of 13-4: an induction head below the top four, so the body's screen does not answer it
SCREENED_RECEIVER = (20, 6)
#: the sender the body found first, left out of 13-4's answer
KNOWN_SENDER = (16, 0)


def _second_sender(study=None):
    s = cached_study() if study is None else study
    weights = sender_screen(s.model, s.layer_inputs, SCREENED_RECEIVER)
    mean = induction_score(weights, s.length).mean(axis=-1)
    order = [h for h in top_heads(-mean, 4)]
    best = next(h for h in order if h != KNOWN_SENDER)
    a, b = SCREENED_RECEIVER
    listed = "  ".join(f"{x}.{y} {fmt(mean[x, y])}" for x, y in order)
    return best, (f"只从 {a}.{b} 的键里减去一个发送者（置零），{a}.{b} 的归纳分数（{len(s.seeds)} 条序列的平均，"
                  f"不减去时 {fmt(s.scores['induction'][a, b])}）最低的 4 个：{listed}。"
                  f"16.0 之外最低的是 {best[0]}.{best[1]}：{a}.{b} 的键也离不开它。")


EXERCISES = {
    "13-1": Exercise("前一个 token 前 5 名里，去掉哪一层的那个头一定不会改变归纳分数第一的头的归纳分数？",
                     LayerNumber(), _later_head_layer),
    "13-2": Exercise("本篇的归纳头靠更早的层里哪一种头找到“上次的下一个”？", HEAD_KINDS, _earlier_head),
    "13-4": Exercise("用发送者筛查：除了 16.0，20.6 的键最离不开哪个更早的头？", HeadName(), _second_sender),
}

REFERENCES: dict = {}


# ---- 13-3: how far a pattern moved (the screen's total-variation measure, written by the learner).
# Synthetic causal patterns (random causal rows, as in 12-2): no model needed.
def _pattern_cases():
    rng = np.random.default_rng(1205)
    one_hot = np.eye(5)
    shifted = np.eye(5)[[0, 0, 1, 2, 3]]  # each query from 1 on moves all its weight one key back
    clean, patched = causal_rows(rng, 9), causal_rows(rng, 9)
    return [
        Case("两个随机的因果注意力模式，n = 6，只看查询 2、3、5", (causal_rows(rng, 6), causal_rows(rng, 6), [2, 3, 5])),
        Case("每一行都把全部权重挪到另一个键上（查询 1 … 4），n = 5", (one_hot, shifted, [1, 2, 3, 4])),
        Case("两个随机的因果注意力模式，n = 9，第二遍的查询 5 … 8（T = 4）", (clean, patched, np.arange(5, 9))),
        Case("同一个模式比它自己，n = 9，查询 0 … 8", (clean, clean.copy(), list(range(9)))),
        Case("两个随机的因果注意力模式，n = 7，只看查询 6", (causal_rows(rng, 7), causal_rows(rng, 7), [6])),
    ]


def _pattern_reference(a, b, rows):
    return float(pattern_change(a, b, rows))


def _wrong_pattern_changes():
    """The usual mistakes in measuring how far attention rows moved."""
    def rows_of(a, b, rows):
        rows = np.asarray(rows)
        return np.asarray(a)[rows], np.asarray(b)[rows]

    def per_row(a, b, rows, distance):
        x, y = rows_of(a, b, rows)
        return float(np.mean(distance(y - x)))

    return (
        # the differences summed (or averaged) before any absolute value: the parts cancel
        Mistake("signed", "没取绝对值：每一行的权重加起来都是 1，A − B 的正负两部分正好抵消，和永远是 0；"
                          "要把每个键上的差取绝对值（np.abs）再加。", lambda a, b, r: per_row(a, b, r, lambda d: d.sum(axis=-1)),
                when_constant="如果你把 B − A 直接加起来（没取绝对值）：每一行的权重加起来都是 1，正负两部分正好抵消，"
                              "和永远是 0；要把每个键上的差取绝对值（np.abs）再加。",
                seen=("https://github.com/sagiebenaim/DistanceGAN/issues/3", "https://github.com/vgteam/vg/pull/2947")),
        # the attention matrix read with its two indices swapped (key where the query belongs)
        Mistake("columns", "行和列反了：A[i, j] 是查询 i 放在键 j 上的权重，rows 挑的是行（查询）：A[rows]，"
                           "一行的权重加起来是 1；你挑的是列 A[:, rows]。",
                lambda a, b, r: float(np.mean(0.5 * np.abs(np.asarray(b)[:, r] - np.asarray(a)[:, r]).sum(axis=0))),
                seen="https://github.com/Daner-Wang/VTC-LFC/issues/1"),
    )


PATTERN_SOLUTION = '''\
import numpy as np


def pattern_change(A, B, rows):
    """A、B：同一个头的两个注意力模式 (n, n)（行 = 查询，每一行是键上的一个分布）。
    返回 rows 里每个查询行的总变差距离 ½ Σ_j |A[i, j] − B[i, j]| 的平均。"""
    moved = np.abs(B[rows] - A[rows])        # 只取 rows 这些查询行，每个键上的变化
    return float(0.5 * moved.sum(axis=-1).mean())   # 一行里要挪走多少权重，再对这些行取平均
'''

CODE_EXERCISES = {"13-3": CodeExercise(
    "自己写“模式变了多少”：两个注意力模式在指定查询行上的平均总变差距离", "pattern_change(A, B, rows)",
    ("A", "B", "rows"), ("平均总变差距离",), _pattern_cases, _pattern_reference, _wrong_pattern_changes(),
    PATTERN_SOLUTION, returns="返回一个数：rows 里这些查询行的总变差距离的平均（0 到 1 之间）",
    forbidden=("helpers.heads.pattern_change", "helpers.heads.composition_screen"),
    forbidden_hint="先取出 rows 这些行（A[rows]、B[rows]），每一行把各个键上变化的绝对值加起来再乘 ½，最后对这些行取平均。")}
