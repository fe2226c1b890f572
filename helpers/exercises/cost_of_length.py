"""``07_cost_of_length``: its self-checking exercises — a smaller model's KV cache per token, and
the cached length at which a larger model's generated token reads as many KV-cache bytes as
weight bytes. Both are numbers the learner computes from a config's fields with an expression
of their own (the notebook prints the config; the answer is the number that expression gives).
One code exercise, 07-3: write one online-softmax update (:data:`CODE_EXERCISES`,
:mod:`helpers.grading.code_check`).

Registered in :data:`helpers.exercises.EXERCISES` by their keys; each solve function computes
the expected answer and its working at check time (vocabulary: :mod:`helpers.grading.answers`).
"""
from __future__ import annotations

import itertools

import numpy as np

from ..config import LLAMA_3_1_8B, preset
from ..cost import DTYPE_BYTES, KiB, decode_crossover, kv_cache_bytes_per_token
from ..grading.answers import Exercise, Number
from ..grading.code_exercise import Case, CodeExercise, Mistake
from ..tiled import online_softmax_update


def _kv_cache_1b():
    cfg = preset("Llama-3.2-1B")
    small, big = kv_cache_bytes_per_token(cfg) / KiB, kv_cache_bytes_per_token(LLAMA_3_1_8B) / KiB
    return small, (f"每 token 的 KV Cache = 2（K 和 V）× 层数 × KV 头数 × head_dim × 每个数的字节数 ÷ 1024：\n"
                   f"2 × {cfg.num_layers} × {cfg.num_kv_heads} × {cfg.head_dim} × {DTYPE_BYTES['bf16']} ÷ 1024 "
                   f"= {small:.0f} KiB；8B 是 {big:.0f} KiB（{big / small:.0f} 倍）。KV Cache 只看层数、KV 头数和 "
                   "head_dim，不看 MLP 和词表，所以不是参数量之比。")


def _decode_crossover_70b():
    big = preset("Llama-3.1-70B")
    n70, n8 = decode_crossover(big), decode_crossover(LLAMA_3_1_8B)
    b = DTYPE_BYTES["bf16"]
    return n70, (f"每生成一个 token：读权重 = matmul_params() × {b} 字节，读 KV Cache = n × "
                 f"2 × 层数 × KV 头数 × head_dim × {b} 字节；两者相等时\n"
                 f"n = {big.matmul_params():,} × {b} / (2 × {big.num_layers} × {big.num_kv_heads} × {big.head_dim} × {b}) "
                 f"= {big.matmul_params() * b:,} / {kv_cache_bytes_per_token(big):,} ≈ {n70:,.0f}。\n"
                 f"8B 的交点 ≈ {n8:,.0f}。70B 的权重是 8B 的 {big.matmul_params() / LLAMA_3_1_8B.matmul_params():.1f} 倍，"
                 f"每 token 的 KV Cache 只是 {kv_cache_bytes_per_token(big) / kv_cache_bytes_per_token(LLAMA_3_1_8B):.1f} 倍"
                 f"（KV 头同样是 {big.num_kv_heads} 个），所以交点远在它 {big.max_position_embeddings:,} 的上下文之外："
                 "batch 1 时 70B 生成的每个 token，读权重始终比读 KV Cache 多。")


EXERCISES = {
    "07-1": Exercise("Llama-3.2-1B 每 token 的 KV Cache（KiB，BF16）", Number(0, "KiB"), _kv_cache_1b),
    "07-2": Exercise("Llama-3.1-70B，batch 1、BF16：生成一个 token 读的 KV Cache 字节追上权重字节的 n（取到千位）",
                      Number(-3), _decode_crossover_70b),
}


REFERENCES: dict = {}


# ---- 07-3: one step of the online softmax (a code exercise, checked by helpers.grading.code_check) ----
# What it asserts: m_new = max(m, max s); old l and acc rescaled by e^(m − m_new); the new block added
# as e^(s − m_new). Proof cases: a block that raises the running maximum from 0 to 1000 (without the
# rescale of l or acc the old terms count e^1000 too much or overflow; with e^(s − m) the new block
# overflows); the first block (m = −∞); a block whose scores are all below m (m must not fall).
def _online_cases():
    rng = np.random.default_rng(707)
    v3 = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    return [
        Case("第一块：之前什么都没看过（m = −∞、l = 0、acc = 0）", (-np.inf, 0.0, np.zeros(2), np.array([0.5, 2.0, 1.0]), v3)),
        Case("新块把最大值抬高了：m 从 1 变成 2.2", (1.0, 2.5, np.array([0.5, -1.0]), np.array([0.3, 2.2, 1.1]), v3)),
        Case("新块的分数都比 m 小：m 不变", (3.0, 1.8, np.array([1.2, 0.4]), np.array([0.5, 1.0, -0.2]), v3)),
        Case("随机：块大小 4、v 的宽度 3", (0.7, 3.1, rng.standard_normal(3), rng.standard_normal(4) * 2,
                                            rng.standard_normal((4, 3)))),
        Case("分数在 1000 附近", (998.0, 1.5, np.array([0.2, -0.3]), np.array([1000.0, 999.5, 997.0]), v3)),
        Case("块里只有一个分数", (0.4, 1.2, np.array([0.3, 0.9]), np.array([1.5]), np.array([[2.0, -1.0]]))),
        Case("新块把最大值抬高了 1000：m 从 0 变成 1000", (0.0, 2.0, np.array([1.0, -2.0]),
                                                  np.array([1000.0, 998.0, 3.0]), v3)),
    ]


def _online_reference(m, l, acc, s, v):
    return online_softmax_update(m, l, acc, s, v)


def _wrong_online_steps():
    """The usual mistakes in one online-softmax update, each as the wrong code a learner writes."""
    def step(m, l, acc, s, v, *, rescale_l=True, rescale_acc=True, inverted=False, running=True, new_max_in_p=True,
             shift=True, normalise=False):
        m_new = max(m, s.max()) if running else s.max()
        c = np.exp(m_new - m) if inverted else np.exp(m - m_new)
        p = np.exp(s - (m_new if new_max_in_p else m)) if shift else np.exp(s)
        l_new = (l * c if rescale_l else l) + p.sum()
        acc_new = (acc * c if rescale_acc else acc) + p @ v
        return m_new, l_new, (acc_new / l_new if normalise else acc_new)

    def old_max(m, l, acc, s, v):
        _, l_new, acc_new = step(m, l, acc, s, v)
        return m, l_new, acc_new

    def variant(**kw):
        return lambda m, l, acc, s, v: step(m, l, acc, s, v, **kw)

    def reorder(order):
        def wrong(m, l, acc, s, v):
            state = step(m, l, acc, s, v)
            return tuple(state[i] for i in order)
        return wrong

    rescale = ("最大值从 m 变成 m_new 时，旧的 l 和 acc 是按 e^(s − m) 加起来的，要先乘上修正因子 e^(m − m_new)，"
               "才能和新块按 e^(s − m_new) 算的部分相加。")
    return (
        # keeping the running maximum and rescaling what was summed under the old one
        Mistake("no_acc_rescale", "忘了重新缩放累加器 acc：" + rescale, variant(rescale_acc=False),
                seen="https://github.com/tile-ai/tilelang/pull/1148"),
        Mistake("no_l_rescale", "忘了重新缩放运行和 l：" + rescale, variant(rescale_l=False)),
        Mistake("no_rescale", "l 和 acc 都没有重新缩放：" + rescale, variant(rescale_l=False, rescale_acc=False)),
        Mistake("inverted", "修正因子写反了：应是 e^(m − m_new)（不大于 1，把旧的部分缩小），你的是 e^(m_new − m)；"
                            "第一块时 m = −∞，它还会变成 inf。", variant(inverted=True)),
        Mistake("block_max", "运行最大值要取 max(m, 新块的最大值)：新块的分数都比 m 小时，m 不能变小。", variant(running=False)),
        Mistake("old_max_in_p", "新块的 e^(s − m) 要用新的最大值 m_new：用旧的 m（第一块时是 −∞）会溢出，"
                                "也和修正过的 l、acc 不在同一个基准上。", variant(new_max_in_p=False)),
        Mistake("no_shift", "新块的指数没有减去最大值：e^s 在分数 1000 附近溢出成 inf；要算 e^(s − m_new)。", variant(shift=False)),
        Mistake("normalised", "返回的 acc 应是还没除以 l 的加权和 Σ e^(s − m)·v；除以 l 只在最后输出时做一次（输出 = acc / l）。",
                variant(normalise=True)),
        # l and acc rescaled to the new maximum, but the maximum handed back is still the old one (the
        # next block would then rescale by the wrong factor): the first block returns m = −∞
        Mistake("old_m", "返回的 m 还是传进来的旧 m：l 和 acc 已经换到了新的最大值 m_new 上（乘了 e^(m − m_new)），"
                         "返回的 m 也要是 m_new，下一块才会用对的修正因子；第一块时旧的 m 是 −∞。", old_max),
        *(Mistake(f"order_{''.join(names)}", f"返回值的顺序不对：你返回的是 {', '.join(names)}，应按 m, l, acc 的顺序返回"
                                               "（return m_new, l_new, acc_new）。", reorder(order))
          for order, names in _reorders()),
    )


def _reorders():
    """Every wrong order of the three returned values: ``(permutation, names in that order)``."""
    return [(order, tuple("m l acc".split()[i] for i in order))
            for order in itertools.permutations(range(3)) if order != (0, 1, 2)]


ONLINE_SOLUTION = '''\
import numpy as np


def online_step(m, l, acc, s, v):
    """在线 softmax 的一步。m：目前的最大值，l：目前的 Σ e^(s − m)，acc：目前的 Σ e^(s − m)·v（形状 (d_v,)）；
    s：新块的分数 (b,)，v：新块的值 (b, d_v)。返回新的 (m, l, acc)；任何时候的输出都是 acc / l。"""
    m_new = max(m, s.max())            # 新的运行最大值
    correction = np.exp(m - m_new)     # 旧的部分换到新基准：e^(s − m) · e^(m − m_new) = e^(s − m_new)；第一块时 e^(−∞) = 0
    p = np.exp(s - m_new)              # 新块，按新的最大值取指数，不会溢出
    l_new = l * correction + p.sum()
    acc_new = acc * correction + p @ v
    return m_new, l_new, acc_new
'''

CODE_EXERCISES = {
    "07-3": CodeExercise("自己写在线 softmax 的一步：运行最大值、运行和、重新缩放的累加器",
                         "online_step(m, l, acc, s, v)", ("m", "l", "acc", "s", "v"), ("m", "l", "acc"),
                         _online_cases, _online_reference, _wrong_online_steps(), ONLINE_SOLUTION,
                         returns="按顺序返回三个值：return m, l, acc（新的状态；acc 是新数组，传进来的 acc 不改）",
                         forbidden=("helpers.tiled.online_softmax_update", "helpers.tiled.online_softmax_steps",
                                    "helpers.tiled.tiled_attention"),
                         forbidden_hint="照上面表格里的三步自己算：m_new = max(m, s.max())，修正因子 e^(m − m_new)，"
                                        "新块 e^(s − m_new)。"),
}
