"""``00_index``: its self-checking exercises — the q the reader turns in the small explorer → where the
largest weight goes.

Registered in :data:`helpers.exercises.EXERCISES` by their keys; each solve function computes
the expected answer and its working at check time (vocabulary: :mod:`helpers.grading.answers`).
"""
from __future__ import annotations

import numpy as np

from .. import example
from ..grading.answers import Choice, Exercise


def _largest_after_turn(q=(0.0, 2.0)):
    row, working = example.row_working("申请", q=q)
    best = example.TOKENS[int(np.argmax(row.weights))]
    return best, working + f"\n最大的权重落在“{best}”上：q 转到了它的 k 所在的方向。"


EXERCISES = {
    "00-1": Exercise("把 q 拖到 [0, 2] 时，哪个位置的权重最大？", Choice(example.TOKENS), _largest_after_turn),
}


REFERENCES: dict = {}
