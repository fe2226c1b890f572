"""``02_qkv``: its self-checking exercises — q, k, v of an input row, a model's k_proj width, and two
equal keys.

Registered in :data:`helpers.exercises.EXERCISES` by their keys; each solve function computes
the expected answer and its working at check time (vocabulary: :mod:`helpers.grading.answers`).
"""
from __future__ import annotations

import numpy as np

from .. import example
from ..config import preset
from ..grading.answers import Choice, Exercise, Number, Numbers
from ..render.format import fmt_vec
from ..weighting import content_weights


def _item_twice():
    x_b = example.X_B.copy()
    x_b[1, 0] = example.X_B[0, 0]
    w = content_weights(x_b)
    first, second = example.TOKENS_B[:2]
    verdict = "一样" if abs(w[0] - w[1]) < 1e-9 else (first if w[0] > w[1] else second)
    return verdict, (f"把“{second}”的“事项”改成 {x_b[1, 0]:.0f} 后，它的 k 和“{first}”的 k 完全相同"
                     f"（{fmt_vec(example.project(x_b[1], example.W_K), 0)}），分数也就相同：\n按内容的权重："
                     + " · ".join(f"{t} {v:.3f}" for t, v in zip(example.TOKENS_B, w))
                     + "\n分数只看 q 和 k：k 相同，权重就相同，分不出哪个才是事项。")


def _qkv_of(x=(1.0, 1.0, 0.0, 0.0)):
    row = np.asarray(x, dtype=float)
    qkv = [example.project(row, w) for w in (example.W_Q, example.W_K, example.W_V)]
    lines = [f"{name} = x·{w} = {fmt_vec(vec, 0)}（W 的“事项”行 + “时间”行）"
             for name, w, vec in zip("qkv", ("W_Q", "W_K", "W_V"), qkv)]
    return np.concatenate(qkv), "x = [1, 1, 0, 0] 选出每个矩阵的第 1、2 行并相加：\n" + "\n".join(lines)


def _k_proj_out(name="Llama-3.2-1B"):
    cfg = preset(name)
    return cfg.kv_dim, (f"{name}：{cfg.num_kv_heads} 个 KV 头 × head_dim {cfg.head_dim} = {cfg.kv_dim} 维；"
                        f"k_proj 是 {cfg.hidden_size} × {cfg.kv_dim}。")


EXERCISES = {
    "02-1": Exercise("输入 [1, 1, 0, 0] 的 q、k、v", Numbers(("q[0]", "q[1]", "k[0]", "k[1]", "v[0]", "v[1]"), 0),
                      _qkv_of),
    "02-2": Exercise("Llama-3.2-1B 的 k_proj 输出多少维？", Number(0, "维"), _k_proj_out),
    "02-3": Exercise("“要”的“事项”改成 2 以后，“报销”和“要”谁的权重大？",
                      Choice((*example.TOKENS_B[:2], "一样"), {"相同": "一样", "相等": "一样", "一样大": "一样"}), _item_twice),
}


REFERENCES: dict = {}
