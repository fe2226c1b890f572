"""``11_learning_a_circuit``: its self-checking exercises, in the vocabulary of :mod:`helpers.grading.answers`.

``"11-1"`` (predict, then run): does a larger learning rate bring the drop earlier or later — the
stored sweep's drop starts per learning rate (medians over the seeds); ``"11-2"`` (read a pattern):
where the layer-1 induction head looks from a second-copy query of the shown sequence whose token
occurs several times before, at the end of the drop — it follows a later occurrence, not the aligned
target, so the answer needs the pattern, not the formula;
``"11-3"`` (work it out): the fixed variant's first predictable query and its induction target.
Each solve function computes the expected answer from the stored runs or the task at check time.
"""
from __future__ import annotations

import numpy as np

from ..circuit import history, sweep
from ..circuit.task import Task
from ..grading.answers import Choice, Exercise, Number, Numbers

EARLIER, LATER, SAME = "更早", "更晚", "差不多"
LR_VARIANTS = (("lr_low", "1e-3"), ("two_layers", "3e-3"), ("lr_high", "1e-2"))
#: exercise 2: the query ``second + OFFSET`` of the shown sequence (its token 24 occurs three times before)
OFFSET = 4


def drop_starts() -> dict:
    """``{learning rate label: [drop start per seed]}`` from the stored sweep."""
    return {label: [s.drop[0] for s in sweep.table(variant)] for variant, label in LR_VARIANTS}


def _drop_earlier(**_):
    starts = drop_starts()
    high, base = np.median(starts["1e-2"]), np.median(starts["3e-3"])
    answer = EARLIER if high < base else LATER if high > base else SAME
    lines = "\n".join(f"学习率 {lr}：骤降开始于第 " + "、".join(str(s) for s in st) + " 步"
                      f"（中位数 {np.median(st):.0f}）" for lr, st in starts.items())
    return answer, lines + "\n在这三种学习率、这几个种子上，步子越大，骤降来得越早。"


def induction_look(offset: int = OFFSET) -> dict:
    """Exercise 2: the query ``second + offset`` of the shown sequence at the end of the drop, the
    layer-1 head with the higher induction score there, the key it weights most and its target."""
    h, seq = history.load(), history.shown_sequence()
    run = sweep.table("two_layers")[0]
    step = run.drop[1]
    i = h.index(step)
    head = int(np.argmax(h.induction[i][1]))
    query = int(seq.second[0]) + offset
    row = h.patterns[i][1, head, query]
    key = int(np.argmax(row))
    tokens = seq.tokens[0]
    return {"step": step, "head": head, "query": query, "key": key, "weight": float(row.max()),
            "target": int(seq.first[0]) + offset + 1, "token": int(tokens[query]),
            "earlier": [int(t) for t in np.flatnonzero(tokens[:query] == tokens[query])]}


def _induction_look(**_):
    r = induction_look()
    where = "、".join(str(t) for t in r["earlier"])
    return r["key"], (f"第 {r['step']} 步，第 1 层归纳分数较高的是头 {r['head']}；查询位置 {r['query']}"
                      f"（second + {OFFSET}，token {r['token']:02d}）权重最大的键是位置 {r['key']}"
                      f"（权重 {r['weight']:.2f}）。\ntoken {r['token']:02d} 在前面的位置 {where} 都出现过；"
                      f"白圈（对齐的目标 first + {OFFSET} + 1 = {r['target']}）跟在位置 {r['target'] - 1} 后面，"
                      f"而这个头跟的是位置 {r['key'] - 1} 那一次，所以抄错了。")


def _fixed_target(**_):
    task = Task(fixed=True)
    query, key = task.fixed_second, task.fixed_first + 1
    return [query, key], (f"（位置从 0 数起。）固定版本：第一遍从 {task.fixed_first} 开始，第二遍从 {task.fixed_second} 开始，"
                          f"重复 {task.max_repeat} 个。查询 second + 0 = {query}，它的 token 上次出现在 "
                          f"first + 0 = {task.fixed_first}，目标是后一个位置 {key}。每条序列都一样，"
                          f"所以“往前 {query - key} 个位置”这条位置规则就够了。")


EXERCISES = {
    "11-1": Exercise("学习率从 3e-3 换成 1e-2，骤降来得更早、更晚，还是差不多？",
                     Choice((EARLIER, LATER, SAME), {"早": EARLIER, "earlier": EARLIER, "晚": LATER, "later": LATER,
                                                      "一样": SAME, "same": SAME}), _drop_earlier),
    "11-2": Exercise(f"第 1 层归纳头在查询 second + {OFFSET} 上权重最大的位置（读图差一格也算对）",
                     Number(0, slack=1), _induction_look),
    "11-3": Exercise("固定版本：第一个可预测的查询位置，和归纳头在那里该看的位置",
                     Numbers(("查询位置", "目标位置"), 0), _fixed_target),
}

REFERENCES: dict = {}
