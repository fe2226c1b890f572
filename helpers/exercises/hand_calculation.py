"""``03_hand_calculation``: its self-checking exercises — a row of the hand calculation with a changed
key, and with a turned query.

Registered in :data:`helpers.exercises.EXERCISES` by their keys; each solve function computes
the expected answer and its working at check time (vocabulary: :mod:`helpers.render.answers`).
"""
from __future__ import annotations

import numpy as np

from .. import example
from ..render.answers import TOKEN, Exercise, Numbers, row_working
from ..render.format import fmt_vec


def _row_with_key(token="怎么", changed="申请", key=(3.0, 0.0)):
    keys = example.running_qkv().k.copy()
    keys[example.query_index(changed)] = key
    row, working = row_working(token, k=keys)
    return row.weights, f"“{changed}”的 k 改成 {fmt_vec(key, 0)}，其余不变：\n" + working


def _smallest_after_turn(q=(-2.0, 0.0)):
    row, working = row_working("申请", q=q)
    worst = example.TOKENS[int(np.argmin(row.weights))]
    return worst, working + (f"\n最小的权重落在“{worst}”上：它的 k 和 q 方向相反，而且最长，点积最负"
                             "（点积为 0 的位置反而比它大）。")


EXERCISES = {
    "03-1": Exercise("“申请”的 k 改成 [3, 0] 后，“怎么”这一行（不加掩码）的 4 个权重", Numbers(example.TOKENS, 2, slack=1),
                      _row_with_key),
    "03-2": Exercise("q 变成 [−2, 0] 后，哪个 token 的权重最小？", TOKEN, _smallest_after_turn),
}


REFERENCES: dict = {}
