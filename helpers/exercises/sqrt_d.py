"""``04_sqrt_d``: its self-checking exercises — how the mean largest weight moves with n and with d.

Registered in :data:`helpers.exercises.EXERCISES` by their keys; each solve function computes
the expected answer and its working at check time (vocabulary: :mod:`helpers.grading.answers`).
"""
from __future__ import annotations

from functools import lru_cache

from ..grading.answers import Choice, Exercise
from ..scaling import mean_max_weight


@lru_cache(maxsize=1)  # 200 trials at n = 1000: about a second, the same every check
def _n_dilutes(d=128):
    small, large = (mean_max_weight(n, d, scaled=True, trials=200) for n in (5, 1000))
    verdict = "变小" if large < small else "变大"
    return verdict, (f"d = {d}、缩放：n = 5 时最大权重平均 {small:.2f}，n = 1000 时 {large:.3f}。"
                     "位置越多，和为 1 的权重要分给越多的位置，最大的那份越小——这就是笔记本 08 的“稀释”。")


@lru_cache(maxsize=1)
def _d64_vs_128():
    w64, w128 = (mean_max_weight(5, d, scaled=False) for d in (64, 128))
    verdict = "小" if w64 < w128 else "大"
    return verdict, (f"不缩放、5 个位置：d = 64 时最大权重平均 {w64:.2f}，d = 128 时 {w128:.2f}。"
                     f"d 小，点积的标准差 √d 也小（{64 ** 0.5:.1f} 对 {128 ** 0.5:.1f}），分数拉不开，塌缩得轻一些。")


EXERCISES = {
    "04-1": Exercise("d = 128、缩放，n 从 5 拉到 1000，最大权重平均变大还是变小？",
                      Choice(("变大", "变小", "不变"), {"大": "变大", "小": "变小", "减小": "变小", "增大": "变大"}),
                      _n_dilutes),
    "04-2": Exercise("d = 64 不缩放时，最大权重平均比 d = 128 时大还是小？",
                      Choice(("大", "小", "一样"), {"更大": "大", "更小": "小", "变大": "大", "变小": "小"}),
                      _d64_vs_128),
}


REFERENCES: dict = {}
