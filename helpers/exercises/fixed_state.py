"""``15_fixed_state``: its self-checking exercises — a prediction taken from a public review (is a
recurrence that reads the state before adding the token's own key still linear attention?), the
context length at which the ledger's Gemma-3 row falls below Llama-3.1's — and one code exercise, 15-2: linear attention's recurrent
form from its parallel form (:data:`CODE_EXERCISES`, :mod:`helpers.grading.code_check`).

Registered in :data:`helpers.exercises.EXERCISES` by their keys; each solve function computes the
expected answer and its working at check time (vocabulary: :mod:`helpers.grading.answers`).
"""
from __future__ import annotations

import numpy as np

from ..grading.answers import YES_NO, Exercise, Number
from ..grading.code_exercise import Case, CodeExercise, Mistake
from ..linear_attention import forms, ledger

#: a difference below this is rounding in float64 (its digits depend on the CPU), not another result
EQUAL = 1e-10


def _read_first():
    rng = np.random.default_rng(15)
    q, k, v = rng.standard_normal((3, 12, 2, 4))
    pq, pk = forms.feature_map(q), forms.feature_map(k)
    right = forms.parallel(pq, pk, v)
    early = _recurrent_with(read_first=True)(pq, pk, v)[0]
    gap = float(np.abs(right[1:] - early[1:]).max())
    return "否", (f"先读状态再加入当前 token，第 t 个查询只看得见 0 … t − 1，看不见自己：并行形式的那张表里，对角线"
                  f"（φq_t·φk_t）就少了。12 个位置、2 个头的随机例子里，从第 2 个位置起两者的最大差 {gap:.3f}"
                  f"（第 1 个位置根本没有可读的：状态是 0，0 / 0）。所以要先把 φk_t v_tᵀ 加进 S、φk_t 加进 z，再读。")


def _gemma_beats_llama():
    rows = {m.name: m for m in ledger.MODELS}
    llama, gemma = rows["Llama-3.1-8B"], rows["Gemma-3-27B（5 层窗口 : 1 层全局）"]
    lf, gf = llama.closed_form(), gemma.closed_form()
    window = gf["window"] * gf["window_per_token"]
    n = window // (lf["per_token"] - gf["per_token"]) + 1
    return n, (f"窗口存满以后（n ≥ {gf['window']:,}），Gemma-3-27B 一共 {gf['per_token']:,} n + {window:,} 字节"
               f"（{gemma.kinds()['full']} 层全局每 token {gf['per_token']:,} B，{gemma.kinds()['window']} 层窗口存满后 "
               f"{window:,} B），Llama-3.1-8B 一共 {lf['per_token']:,} n。前者更小当且仅当 "
               f"({lf['per_token']:,} − {gf['per_token']:,}) n > {window:,}，即 n > {window / (lf['per_token'] - gf['per_token']):,.1f}："
               f"最小的整数是 {n:,}。更短的上下文里，窗口那部分还占着大头。")


EXERCISES = {
    "15-1": Exercise("先读状态、再加入当前 token：还和并行形式一样吗？", YES_NO, _read_first),
    "15-3": Exercise("上下文至少多长时，Gemma-3-27B 的缓存比 Llama-3.1-8B 的小？", Number(digits=0), _gemma_beats_llama),
}


REFERENCES: dict = {}


# ---- 15-2: the recurrent form from the parallel form (a code exercise) ---------------------------
# What it asserts: S and z grow by φk_t v_tᵀ and φk_t *before* query t reads them (its own key is in its
# sum), out_t = φq_tᵀ S / φq_tᵀ z with the normaliser carried like S, per head (axis 1), summed over time
# (axis 0); the final state returned. Proof cases: one head, several heads (where summing over the head
# axis shows), one position, d_k ≠ d_v, large features, a long sequence (the state stays d_k × d_v).
#: (label, positions, heads, d_k, d_v, feature scale, seed)
RECURRENT_SPECS = (
    ("小例子：5 个位置、1 个头、d_k = 3、d_v = 2", 5, 1, 3, 2, 1.0, 1),
    ("4 个头：8 个位置、d_k = 4、d_v = 4", 8, 4, 4, 4, 1.0, 2),
    ("只有 1 个位置：3 个头、d_k = 2、d_v = 5", 1, 3, 2, 5, 1.0, 3),
    ("特征很大（到 100 左右）：6 个位置、2 个头、d_k = 3、d_v = 3", 6, 2, 3, 3, 60.0, 4),
    ("长序列：200 个位置、2 个头、d_k = 4、d_v = 6（状态仍是 4 × 6）", 200, 2, 4, 6, 1.0, 5),
)


def recurrent_inputs(n, heads, d_k, d_v, scale, seed) -> tuple:
    """The arguments of 15-2: features ``φ(q)``, ``φ(k)`` ``(n, heads, d_k)`` and values ``(n, heads, d_v)``."""
    rng = np.random.default_rng([seed, 1502])
    q, k = rng.standard_normal((2, n, heads, d_k))
    return forms.feature_map(q * scale), forms.feature_map(k * scale), rng.standard_normal((n, heads, d_v))


def _recurrent_cases():
    return [Case(label, recurrent_inputs(*spec)) for label, *spec in RECURRENT_SPECS]


def _recurrent_reference(phi_q, phi_k, v):
    out, state = forms.recurrent(phi_q, phi_k, v)
    return out, state.S, state.z


def _recurrent_with(*, read_first=False, z_now=False, no_z=False, times_z=False, z_rows=False, over_heads=False):
    """The recurrence with the given slips (the right one with none), written with running sums."""
    def linear_recurrent(phi_q, phi_k, v):
        n, h, d_k = phi_q.shape
        kv = phi_k[:, :, :, None] * v[:, :, None, :]                       # (n, h, d_k, d_v)
        axis = 1 if over_heads else 0
        S_all, z_all = np.cumsum(kv, axis=axis), np.cumsum(phi_k, axis=axis)
        if read_first:   # the state before the token's own key: shift by one position
            S_all = np.concatenate([np.zeros_like(S_all[:1]), S_all[:-1]])
            z_all = np.concatenate([np.zeros_like(z_all[:1]), z_all[:-1]])
        if z_now:
            z_all = phi_k
        top = np.einsum("nhd,nhde->nhe", phi_q, S_all / z_all[..., None] if z_rows else S_all)
        bottom = np.einsum("nhd,nhd->nh", phi_q, z_all)[..., None]
        if z_rows or no_z:
            out = top
        elif times_z:
            out = top * bottom
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                out = top / bottom
        S, z = kv.sum(axis=0), phi_k.sum(axis=0)
        return out, S, z
    return linear_recurrent


def _recurrent_mistakes():
    order = "每一步先把 φk_t v_tᵀ 加进 S、φk_t 加进 z，再用 φq_t 去读：out_t = φq_tᵀ S_t / (φq_t · z_t)。"
    return (
        Mistake("read_before_write", "先读状态、后加入当前 token：查询 t 看不见自己的键和值（并行形式那张表的对角线）。" + order,
                _recurrent_with(read_first=True), seen="https://github.com/open-lm-engine/lm-engine/pull/496"),
        Mistake("normalizer_without_past", "分母只用了当前 token 的 φk_t：分母和 S 一样要累加，z_t = Σ_{j≤t} φk_j，"
                                           "前面所有键都在里面。" + order, _recurrent_with(z_now=True),
                seen=("https://github.com/fla-org/flash-linear-attention/pull/267",
                      "https://github.com/fla-org/flash-linear-attention/pull/268")),
        Mistake("no_normalizer", "没有除以归一化的分母：并行形式里每一行的权重要除以这一行的和，写成递推就是除以 φq_t · z_t。"
                + order, _recurrent_with(no_z=True), seen="https://github.com/lucidrains/performer-pytorch/issues/40"),
        Mistake("multiplied_by_normalizer", "乘上了分母 φq_t · z_t，应该除以它。" + order, _recurrent_with(times_z=True),
                seen="https://github.com/lucidrains/performer-pytorch/issues/40"),
        Mistake("normalizer_without_query", "把 S 的每一行除以了 z 的对应分量（S / z），再乘 φq_t：分母要先和查询点乘成一个数，"
                                            "φq_t · z_t，整个输出再除以它。" + order, _recurrent_with(z_rows=True),
                seen="https://github.com/lucidrains/performer-pytorch/issues/21"),
        Mistake("sum_over_heads", "累加沿的是头这一维（axis=1），应该沿时间这一维（axis=0）：输入是 (n, 头数, d)，每个头有"
                                  "自己的状态，按位置一个一个地加。", _recurrent_with(over_heads=True),
                seen=("https://github.com/fla-org/flash-linear-attention/pull/594",
                      "https://github.com/fla-org/flash-linear-attention/issues/850")),
    )


RECURRENT_SOLUTION = '''\
import numpy as np


def linear_recurrent(phi_q, phi_k, v):
    """phi_q、phi_k (n, H, d_k)：已经过特征映射；v (n, H, d_v)。返回 (输出 (n, H, d_v), S (H, d_k, d_v), z (H, d_k))。"""
    n, h, d_k = phi_q.shape
    S = np.zeros((h, d_k, v.shape[-1]))                 # 状态：和 n 无关
    z = np.zeros((h, d_k))                              # 归一化用的分母状态
    out = np.zeros((n, h, v.shape[-1]))
    for t in range(n):
        S = S + phi_k[t][:, :, None] * v[t][:, None, :]  # 先加入当前 token 的 φk vᵀ ……
        z = z + phi_k[t]
        top = np.einsum("hd,hde->he", phi_q[t], S)       # …… 再读：φq_tᵀ S
        bottom = np.einsum("hd,hd->h", phi_q[t], z)      # 分母：φq_t · z
        out[t] = top / bottom[:, None]
    return out, S, z
'''

CODE_EXERCISES = {
    "15-2": CodeExercise("线性注意力：从并行形式写出递推形式", "linear_recurrent(phi_q, phi_k, v)",
                         ("phi_q", "phi_k", "v"), ("输出", "状态 S", "分母状态 z"),
                         _recurrent_cases, _recurrent_reference, _recurrent_mistakes(), RECURRENT_SOLUTION,
                         returns="按顺序返回 3 个数组：每个位置每个头的输出 (n, 头数, d_v)，最后的状态 S (头数, d_k, d_v) "
                                 "和 z (头数, d_k)",
                         forbidden=("helpers.linear_attention.forms.recurrent", "helpers.linear_attention.forms.chunkwise",
                                    "helpers.linear_attention.forms.parallel"),
                         forbidden_hint="这道题练的就是递推本身：一个位置一个位置地更新 S 和 z 再读，只用 numpy 写。"),
}
