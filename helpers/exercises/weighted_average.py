"""``01_weighted_average``: its self-checking exercises — which token's weight makes a feature of the
new 申请 vector largest.

Registered in :data:`helpers.exercises.EXERCISES` by their keys; each solve function computes
the expected answer and its working at check time (vocabulary: :mod:`helpers.grading.answers`).
"""
from __future__ import annotations

import numpy as np

from .. import example
from ..grading.answers import Choice, Exercise


def _time_feature():
    col = example.FEATURES.index("时间")
    best = example.TOKENS[int(np.argmax(example.X[:, col]))]
    lines = [f"{t}：时间 = {x[col]:.0f}" for t, x in zip(example.TOKENS, example.X)]
    return best, ("各 token 的“时间”特征：" + "；".join(lines)
                  + f"\n只有“{best}”带“时间”，所以把它的权重拖到最大（其余拖到 0）时新向量的“时间”一维最大。")


EXERCISES = {
    "01-1": Exercise("哪个 token 能让新“申请”的“时间”一维最大？", Choice(example.TOKENS), _time_feature),
}


REFERENCES: dict = {}
