"""The article's running example: 年 假 怎么 申请, 4 input features, one 2-dim head.

Introduced in ``01_weighted_average`` and ``02_qkv``; computed by hand in
``03_hand_calculation``; masked in ``05_causal_mask``. The article fixes the rows of 申请 and 假
and the q/k/v table; the other inputs are one consistent choice that reproduces that table.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .attention import softmax
from .render.format import text_table
from .render.validation import (
    as_real_array,
    boolean,
    choice,
    finite_result,
    integer,
    magnitude_bound,
    max_abs,
    quiet_overflow,
    same_length,
    text,
)

TOKENS = ("年", "假", "怎么", "申请")
FEATURES = ("事项", "时间", "疑问", "动作")
QUERY_TOKEN = "申请"


def _frozen(rows):
    arr = np.array(rows, dtype=np.float64)
    arr.setflags(write=False)
    return arr


X = _frozen([[0, 1, 0, 0], [2, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
W_Q = _frozen([[0, 1], [1, 1], [1, 0], [2, 0]])
W_K = _frozen([[1, 0], [1, 0], [0, 1], [0, 0]])
W_V = _frozen([[1, 0], [1, 0], [0, 1], [0, 1]])


def project(x, weight, *, name: str = "weight") -> np.ndarray:
    """``x @ weight`` with shape checks: rows of ``x`` are tokens, rows of ``weight`` features.

    Taught in ``02_qkv``: each of q, k, v is the input row times one learned matrix.
    """
    label = "weight" if text("name", name) == "weight" else f"{name} (weight)"
    x_arr = as_real_array("x", x, ndim=(1, 2))
    w_arr = as_real_array(label, weight, ndim=2)
    if x_arr.shape[-1] != w_arr.shape[0]:
        raise ValueError(
            f"x has {x_arr.shape[-1]} features (shape {x_arr.shape}) but {name} expects "
            f"{w_arr.shape[0]} rows (shape {w_arr.shape})")
    magnitude_bound(f"x or {label}", max_abs(x_arr), max_abs(w_arr), x_arr.shape[-1], limit=1e300)
    return x_arr @ w_arr


@dataclass(frozen=True)
class QKV:
    """q, k and v of every token, each ``(n_tokens, d)``."""

    q: np.ndarray
    k: np.ndarray
    v: np.ndarray

    def __post_init__(self):
        for name in ("q", "k", "v"):
            object.__setattr__(self, name, as_real_array(name, getattr(self, name), ndim=2))
        same_length("q, k and v", self.q, self.k, self.v)


def running_qkv(x=X) -> QKV:
    """q, k, v of the running example (the article's table in ``02_qkv``); ``x`` is ``(n, 4)``."""
    x = as_real_array("x", x, shape=(None, len(FEATURES)))
    return QKV(project(x, W_Q, name="W_Q"), project(x, W_K, name="W_K"), project(x, W_V, name="W_V"))


@dataclass(frozen=True)
class HandRow:
    """Every intermediate of one attention row, as computed by hand in ``03_hand_calculation``."""

    dots: np.ndarray      # q · k_j
    scale: float          # 1/√d, or 1.0 when unscaled
    scores: np.ndarray    # dots * scale
    exps: np.ndarray      # e^(score − shift); shift = 0 (the article's raw e^s) unless that overflows
    total: float          # Σ exps
    weights: np.ndarray   # exps / total
    parts: np.ndarray     # weights_j · v_j, one row per token
    output: np.ndarray    # Σ_j parts_j
    shift: float = 0.0    # the c in e^(s − c): 0, or the largest score when e^s is not representable


def hand_row(q, k, v, *, scaled: bool = True) -> HandRow:
    """One query row step by step: dots → ÷√d → e^s → Σ → weights → weighted sum of v.

    ``q`` is ``(d,)``, ``k`` is ``(n, d)``, ``v`` is ``(n, d_v)``.

    The exponentials are taken relative to a shift ``c``: ``exps = e^(s − c)``. While the raw
    exponentials are representable (largest score within ±700) ``c = 0``, so ``exps`` are the
    article's ``e^s``; beyond that ``c`` is the largest score (``exps`` then lie in (0, 1] and
    their total in [1, n]). Either way ``exps / total`` is the same weight row — the factor
    ``e^(−c)`` cancels — and equals the stable :func:`softmax`. ``shift`` records ``c``.
    """
    q_arr = as_real_array("q", q, ndim=1)
    k_arr = as_real_array("k", k, ndim=2)
    v_arr = as_real_array("v", v, ndim=2)
    scaled = boolean("scaled", scaled)
    if k_arr.shape[1] != q_arr.shape[0]:
        raise ValueError(f"q has d={q_arr.shape[0]} but k has shape {k_arr.shape}; they must share d")
    if v_arr.shape[0] != k_arr.shape[0]:
        raise ValueError(f"k and v must have one row per token, got k {k_arr.shape} and v {v_arr.shape}")
    with quiet_overflow():
        dots = finite_result(k_arr @ q_arr, "q or k", "the dot products q·k")
    scale = 1.0 / np.sqrt(q_arr.shape[0]) if scaled else 1.0
    scores = dots * scale
    top = float(scores.max())
    shift = 0.0 if abs(top) <= 700.0 else top
    exps = np.exp(scores - shift)
    weights = softmax(scores)
    with quiet_overflow():
        parts = weights[:, None] * v_arr
        output = finite_result(parts.sum(axis=0), "v", "the weighted sum of v")
    return HandRow(dots, float(scale), scores, exps, float(exps.sum()), weights, parts, output, shift)


def query_index(token: str = QUERY_TOKEN) -> int:
    """Position of ``token`` in :data:`TOKENS`."""
    choice("token", text("token", token), TOKENS)
    return TOKENS.index(token)


# The contrast sentence of 01_weighted_average: 报销要怎么申请, split at the same positions as
# 年假怎么申请. Here the thing being applied for (报销) sits at position 0, and position 1 holds
# 要, a word that names no item (the article's 报销单 would put 单, part of the item, there, and
# hide the problem). The inputs are a teaching choice in the same four features (要: a little 动作).
TOKENS_B = ("报销", "要", "怎么", "申请")
X_B = _frozen([[2, 0, 0, 0], [0, 0, 0, 0.5], [0, 0, 1, 0], [0, 0, 0, 1]])


def input_rows(tokens=TOKENS, x=X) -> tuple:
    """``(headers, rows)`` of the input table: one row per token with its feature values
    (``01_weighted_average``, ``02_qkv`` show it with ``helpers.display.show_table``)."""
    if isinstance(tokens, str) or not isinstance(tokens, (list, tuple)) or not all(isinstance(t, str) for t in tokens):
        raise TypeError(f"tokens must be a list or tuple of strings, got {type(tokens).__name__} {tokens!r:.60}")
    x = as_real_array("x", x, shape=(len(tokens), len(FEATURES)))
    return ["token", *FEATURES], [[t, *row] for t, row in zip(tokens, x)]


def input_table(tokens=TOKENS, x=X, *, digits: int = 0) -> str:
    """The input rows as a fixed-width text table with the feature names (for a terminal)."""
    integer("digits", digits, low=0, high=12)
    return text_table(*input_rows(tokens, x), digits=digits)


EXTRA_TOKENS = ("？", "需要", "审批", "吗")
X_EXTRA = _frozen([[0.5, 0, 1, 0], [0, 0, 0, 0.5], [1, 0, 0, 0.5], [0, 0, 1, 0]])


def extended_qkv(n_extra: int) -> tuple:
    """Tokens and q/k/v of the running example with the first ``n_extra`` extra tokens appended."""
    n_extra = integer("n_extra", n_extra, low=0, high=len(EXTRA_TOKENS))
    tokens = TOKENS + EXTRA_TOKENS[:n_extra]
    return tokens, running_qkv(np.vstack([X, X_EXTRA[:n_extra]]))
