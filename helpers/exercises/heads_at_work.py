"""``12_heads_at_work``: its self-checking exercises, in the vocabulary of :mod:`helpers.render.answers`.

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
"""
from __future__ import annotations

from dataclasses import dataclass

from ..render.answers import Choice, Exercise, Malformed, Number, clean_text
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
            raise Malformed(f"层号是从 0 数起的整数，收到的是 {answer!r}。")
        return value


def _study(study=None):
    if study is not None:
        return study
    from ..heads import study as cached_study

    return cached_study()


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
