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
        # e^(s − 0) underflows to 0 below ≈ −745: a step that starts its maximum at 0 instead of −∞ gets 0 / 0
        Case("第一块，分数都在 −1000 附近（m = −∞）", (-np.inf, 0.0, np.zeros(2), np.array([-1000.0, -1001.0, -1003.0]),
                                                    v3)),
    ]


def _online_reference(m, l, acc, s, v):
    return online_softmax_update(m, l, acc, s, v)


def _wrong_online_steps():
    """The usual mistakes in one online-softmax update, each as the wrong code a learner writes."""
    def step(m, l, acc, s, v, *, rescale_acc=True, inverted=False, running=True, shift=True):
        m_new = max(m, s.max()) if running else s.max()
        c = np.exp(m_new - m) if inverted else np.exp(m - m_new)
        p = np.exp(s - m_new) if shift else np.exp(s)
        return m_new, l * c + p.sum(), (acc * c if rescale_acc else acc) + p @ v

    def old_max(m, l, acc, s, v):
        _, l_new, acc_new = step(m, l, acc, s, v)
        return m, l_new, acc_new

    def variant(**kw):
        return lambda m, l, acc, s, v: step(m, l, acc, s, v, **kw)

    rescale = ("最大值从 m 变成 m_new 时，旧的 l 和 acc 是按 e^(s − m) 加起来的，要先乘上修正因子 e^(m − m_new)，"
               "才能和新块按 e^(s − m_new) 算的部分相加。")
    return (
        # keeping the running maximum and rescaling what was summed under the old one
        Mistake("no_acc_rescale", "忘了重新缩放累加器 acc：" + rescale, variant(rescale_acc=False),
                seen="https://github.com/tile-ai/tilelang/pull/1148"),
        Mistake("inverted", "修正因子写反了：应是 e^(m − m_new)（不大于 1，把旧的部分缩小），你的是 e^(m_new − m)；"
                            "第一块时 m = −∞，它还会变成 inf。", variant(inverted=True),
                seen="https://github.com/deepseek-ai/FlashMLA/pull/177"),
        Mistake("block_max", "运行最大值要取 max(m, 新块的最大值)：新块的分数都比 m 小时，m 不能变小。", variant(running=False),
                seen=("https://github.com/tile-ai/tilelang/pull/1148", "https://github.com/tile-ai/TileOPs/pull/239")),
        Mistake("no_shift", "新块的指数没有减去最大值：e^s 在分数 1000 附近溢出成 inf；要算 e^(s − m_new)。", variant(shift=False),
                seen="https://github.com/HabanaAI/vllm-fork/pull/104"),
        # l and acc rescaled to the new maximum, but the maximum handed back is still the old one (the
        # next block would then rescale by the wrong factor): the first block returns m = −∞. Seen as a
        # state whose m was put back to m_old while the block's terms stayed on m_new.
        Mistake("old_m", "返回的 m 还是传进来的旧 m：l 和 acc 已经换到了新的最大值 m_new 上（乘了 e^(m − m_new)），"
                         "返回的 m 也要是 m_new，下一块才会用对的修正因子；第一块时旧的 m 是 −∞。", old_max,
                seen="https://github.com/meta-pytorch/MSLK/pull/242"),
    )


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


# ---- 07-4: the whole tiled forward under a fast-memory budget (a code exercise) ------------------------
# What it asserts: causal attention computed tile by tile against helpers.tiled.FastMemory — the output
# to 1e-10, the floats read and written to 1 % of the count on paper for the case's block sizes (query
# blocks read once, keys and values only up to the diagonal, the output written once), and nothing
# larger than the budget held at any moment (FastMemory refuses it). Proof cases: block sizes that do
# not divide n (a ragged last block, on either side); query and key blocks of different sizes (the
# diagonal tile is not square); scores that grow along the keys (each block raises the running max:
# without the rescale the old terms count up to e^30 too much); n = 1; a budget that holds a few tiles
# but not a whole row of scores or all the keys.
def _flash_case(n, d, block_q, block_k, capacity, seed, growing=False, negative=False):
    from ..tiled import FastMemory

    rng = np.random.default_rng([707, seed])
    q, k, v = rng.standard_normal((3, n, d))
    if growing:  # keys aligned with every query and longer further right: each key block raises the max
        u = np.abs(rng.standard_normal(d)) + 0.5
        q, k = np.abs(q) + u, u * np.linspace(0.2, 6.0, n)[:, None]
    if negative:  # keys opposite the queries: every score near −1400, where e^(s − 0) underflows to 0
        q = np.tile([40.0, 20.0], (n, d // 2)) + 0.5 * q
        k = -q
    label = (f"n = {n}、d = {d}、查询块 {block_q}、键块 {block_k}、快速内存 {capacity} 个数"
             + ("（块大小除不尽 n：最后一块较小）" if n % block_q or n % block_k else ""))
    return Case(label + ("；分数沿着键越来越大：每一块都抬高最大值" if growing else "")
                + ("；每一行的分数都在 −1400 附近（e 的这么多次方本身会下溢成 0）" if negative else ""),
                (FastMemory(q, k, v, capacity), block_q, block_k))


def _flash_cases():
    return [
        _flash_case(8, 2, 4, 4, 512, 0),
        _flash_case(10, 3, 4, 4, 512, 1),
        _flash_case(13, 4, 4, 3, 512, 2),
        _flash_case(13, 4, 3, 5, 512, 3),
        _flash_case(24, 4, 4, 4, 512, 4, growing=True),
        _flash_case(1, 3, 4, 4, 512, 5),
        _flash_case(96, 4, 8, 8, 640, 6),
        _flash_case(12, 2, 4, 4, 512, 8, negative=True),
        # long enough that a whole row of scores computed outside the count is far past the allowance
        _flash_case(512, 2, 32, 32, 8192, 7),
        # wide and in small blocks: all the keys and values a row needs (2 × 256 × 256 floats), gathered
        # as plain arrays the count does not see (.view(np.ndarray), np.asarray), are three times what
        # the allowance lets pass, so a forward that skips the online softmax this way is caught
        _flash_case(256, 256, 4, 4, 12288, 10),
    ]


def _flash_measured(result, mem, block_q, block_k):
    """The learner's ``(o, reads, writes)`` with the floats they computed outside the fast memory's count
    added to the reads (a plain-array escape moves data the count never saw)."""
    outside = mem.outside()
    mem.seen_outside = outside
    if not isinstance(result, tuple) or len(result) != 3 or not outside:
        return result
    o, reads, writes = result
    return o, np.asarray(reads, dtype=float) + outside, writes


def _escaped(case, got, expected):
    return getattr(case.args[0], "seen_outside", 0.0) > 0


def _flash_reference(mem, block_q, block_k):
    from ..tiled import flash_forward

    return flash_forward(mem, block_q, block_k)


def _flash(mem, bq, bk, *, rescale_l=True, rescale_acc=True, per_block=False, skip=True, mask=True,
           q_tail=True, k_tail=True, diagonal=True, keep_row=False, all_keys=False, q_inside=False, scale=True,
           store_inside=False, divide=True, inverted=False, m0=-np.inf):
    """A learner's tiled forward with one of the usual mistakes switched on."""
    n, d = mem.n, mem.d
    factor = 1.0 / np.sqrt(d) if scale else 1.0
    for qs in range(0, n if q_tail else n - n % bq, bq):
        qb = mem.load("q", qs, qs + bq) * factor
        rows = np.arange(qs, qs + len(qb))[:, None]
        m, l, acc = np.full((len(qb), 1), m0), np.zeros((len(qb), 1)), np.zeros((len(qb), d))
        end = (qs + len(qb) if diagonal else qs) if skip else n
        if all_keys:
            kb, vb = mem.load("k", 0, end), mem.load("v", 0, end)
            s = np.where(np.arange(end)[None, :] > rows, -np.inf, qb @ kb.T)
            p = np.exp(s - s.max(axis=1, keepdims=True))
            mem.store(qs, (p @ vb) / p.sum(axis=1, keepdims=True))
            continue
        row = []
        for ks in range(0, end if k_tail else end - end % bk, bk):
            if q_inside:
                qb = mem.load("q", qs, qs + bq) * factor
            kb, vb = mem.load("k", ks, ks + bk), mem.load("v", ks, ks + bk)
            s = qb @ kb.T
            if mask:
                s = np.where(np.arange(ks, ks + len(kb))[None, :] > rows, -np.inf, s)
            if keep_row:
                row.append(s)
                continue
            m_new = np.maximum(m, s.max(axis=1, keepdims=True))
            p = np.exp(s - m_new)
            c = np.exp(np.where(np.isinf(m), -np.inf, m_new - m)) if inverted else np.exp(m - m_new)
            if per_block:
                p = p / p.sum(axis=1, keepdims=True)
            l = (l * c if rescale_l else l) + p.sum(axis=1, keepdims=True)
            acc = (acc * c if rescale_acc else acc) + p @ vb
            m = m_new
            if store_inside:
                mem.store(qs, acc / l)
        if keep_row:
            s = np.concatenate(row, axis=1)
            p = np.exp(s - s.max(axis=1, keepdims=True))
            acc, l = p @ mem.load("v", 0, s.shape[1]), p.sum(axis=1, keepdims=True)
        mem.store(qs, acc / l if divide else acc)
    return mem.result()


def _wrong_flashes():
    """The usual mistakes in a tiled forward, each as the wrong code a learner writes."""
    def variant(**kw):
        return lambda mem, bq, bk: _flash(mem, bq, bk, **kw)

    rescale = ("最大值从 m 变成 m_new 时，旧的 l 和 acc 都是按 e^(s − m) 加起来的，两个都要先乘修正因子 e^(m − m_new)，"
               "再加上新块按 e^(s − m_new) 算的部分（练习 3 的那一步）。")
    return (
        Mistake("outside", "函数运行时占的内存远超快速内存的容量，而这些数 mem 没有记到：多半是把读进来的块变成了普通数组"
                           "（np.asarray、np.array、.view(np.ndarray)、.tolist()）或直接用了 mem 内部的数据，再在上面"
                           "算了整行的分数、把整行的键和值拼在了一起（也可能是函数里建了别的很大的对象）。上面“你的”读入"
                           "里加上了这些 mem 没记到的数。快速内存只认 mem.load 读进来的块和从它们算出来的数组：每个块算完"
                           "就并进 m、l、acc。",
                test=_escaped, seen=("Dao et al. 2022, FlashAttention §3.1 (the n×n scores never leave SRAM-sized tiles)",)),
        Mistake("no_rescale", "l 和 acc 都没有重新缩放：" + rescale, variant(rescale_l=False, rescale_acc=False),
                seen=("https://github.com/tile-ai/tilelang/pull/1148", "https://github.com/Dao-AILab/flash-attention/issues/333")),
        Mistake("rescale_l_only", "只缩放了 l，累加器 acc 没有缩放：" + rescale, variant(rescale_acc=False),
                seen=("https://github.com/Dao-AILab/flash-attention/issues/991",)),
        Mistake("rescale_acc_only", "只缩放了 acc，运行和 l 没有缩放：" + rescale, variant(rescale_l=False),
                seen=("https://github.com/PaddleJitLab/CUDATutorial/issues/69",)),
        Mistake("per_block", "每一块各自归一化了（p 除以了这一块自己的和）：块内的权重不是最终的 softmax，"
                             "分母要等所有块都加进 l 之后，最后算一次 o = acc / l。", variant(per_block=True),
                seen=("https://github.com/Dao-AILab/flash-attention/issues/1349", "https://github.com/datawhalechina/llm-algo-leetcode/issues/147")),
        Mistake("no_causal_skip", "输出对了，但读入的数太多：因果掩码下，键块整个在对角线右边（起点 ≥ 这一块最后一个查询的位置 + 1）"
                                  "时全被遮住，不用读进来；内层循环只走到 qs + 这一块的行数。", variant(skip=False),
                seen=("https://github.com/marin-community/levanter/issues/283", "https://github.com/Xilinx/mlir-air/pull/1749")),
        Mistake("no_mask", "对角线上的那一块忘了加因果掩码：块里键的位置 j 大于查询位置 i 的分数要设成 −∞"
                           "（块的起点 ks、qs 加上块内的下标才是真正的位置）。", variant(mask=False),
                seen=("https://github.com/iCog-Labs-Dev/PC-Transformers/issues/97", "https://github.com/facebookresearch/xformers/issues/103")),
        Mistake("diagonal_skipped", "内层循环少走了对角线上的那一块：查询块 qs … qs + b − 1 能看到的键一直到它自己，"
                                    "内层要走到 qs + 这一块的行数，不是 qs。", variant(diagonal=False),
                seen=("https://github.com/PaddlePaddle/flash-attention/pull/48",)),
        Mistake("q_tail", "最后那个不满的查询块没有算：n 不是块大小的倍数时，range(0, n, block_q) 的最后一块只有 "
                          "n − qs 行；load 读到 n 为止，切片不会越界。", variant(q_tail=False),
                seen=("https://github.com/jax-ml/jax/issues/27224", "https://github.com/tspeterkim/flash-attention-minimal/pull/2")),
        Mistake("k_tail", "最后那个不满的键块没有读：n（或这一块的终点）不是块大小的倍数时，range(0, 终点, block_k) "
                          "的最后一块较小，也要算进去。", variant(k_tail=False),
                seen=("https://github.com/66RING/tiny-flash-attention/issues/12", "https://github.com/intel/sycl-tla/pull/489")),
        Mistake("keep_row", "把一整行的分数块都留了下来再做 softmax：那就是 n×n 的分数表，快速内存放不下。"
                            "每个块算完就要并进 m、l、acc（在线 softmax），然后丢掉。", variant(keep_row=True),
                seen=("https://github.com/Dao-AILab/flash-attention/issues/618",)),
        Mistake("all_keys", "一次把所有的键和值都读进了快速内存：容量只够放几个块；键和值要一块一块地读（block_k 行一次）。",
                variant(all_keys=True),
                seen=("https://github.com/Dao-AILab/flash-attention/issues/67",)),
        Mistake("q_inside", "输出对了，但读入的数太多：查询块在内层循环里每次都重新读了一遍。它在外层读一次，"
                            "整个内层循环都留在快速内存里。", variant(q_inside=True),
                seen=("Dao 2023, FlashAttention-2 §3.1 (the loops swapped so each query block is read once)",)),
        Mistake("store_inside", "输出对了，但写出的数太多：输出块在内层循环里每处理一个键块就写回了一遍。等这个查询块的"
                                "所有键块都处理完，最后 mem.store(qs, acc / l) 一次。", variant(store_inside=True),
                seen=("Dao et al. 2022, FlashAttention Algorithm 1 (O_i written back after every key block)",)),
        Mistake("no_scale", "忘了除以 √d：分数是 q·kᵀ / √d，d = mem.d。", variant(scale=False),
                seen=("https://github.com/jax-ml/jax/issues/19450", "https://github.com/NVIDIA/Megatron-LM/pull/848")),
        Mistake("no_divide", "写回的是累加器 acc 本身：它是还没除以 l 的加权和 Σ e^(s − m)·v。所有键块处理完之后，"
                             "输出是 acc / l，最后 mem.store(qs, acc / l)。", variant(divide=False),
                seen=("Dao et al. 2022, FlashAttention Algorithm 1 (O_i = diag(ℓ_i)^−1 · Õ_i)",)),
        Mistake("inverted", "修正因子写反了：应是 e^(m − m_new)（不大于 1，把旧的部分缩小），你的是 e^(m_new − m)。",
                variant(inverted=True), seen=("https://github.com/tile-ai/tilelang/pull/1148",)),
        # a finite start for the running max: right until every score of a row is far below it
        Mistake("m_finite_start", "运行最大值 m 的初值不是 −∞：一行的分数都比初值小很多时（这一组都在 −1400 "
                                  "附近），e^(s − m) 全部下溢成 0，l = 0，输出是 0 / 0。m 从 −∞ 开始："
                                  "np.full((行数, 1), -np.inf)，第一块的修正因子 e^(−∞) = 0。", variant(m0=0.0),
                seen=("https://github.com/flashinfer-ai/flashinfer/issues/4267",)),
        # none of the named slips, but the output is right: only the traffic is off (the lines above the hint
        # give both counts)
        Mistake("traffic", "输出对了，只是读写的数和纸上算的不一样（上面列出了应得的和你的）。读入多了：某个块读了两遍"
                           "（比如 v 又 load 了一次），或没跳过对角线右边的块；读入少了：对角线上的块被截短了（纸上的数"
                           "按 block_k 整块读，见题目），或漏了块。写出不一样：输出块写了不止一次，或有的行没写。",
                test=_traffic_only, seen=("Dao et al. 2022, FlashAttention Theorem 2 (the HBM accesses counted)",)),
    )


def _traffic_only(case, got, expected):
    """The output right, a count of floats moved not."""
    right = np.allclose(got[0], expected[0], rtol=1e-10, atol=1e-10)
    return bool(right) and not all(np.isclose(g, e, rtol=1e-2, atol=0.0) for g, e in zip(got[1:], expected[1:]))


FLASH_SOLUTION = '''\
import numpy as np


def flash_forward(mem, block_q, block_k):
    """带因果掩码的注意力，一块一块地算：mem 是 helpers.tiled.FastMemory（q、k、v 在慢速内存里）。"""
    n, d = mem.n, mem.d
    for qs in range(0, n, block_q):
        qb = mem.load("q", qs, qs + block_q) / np.sqrt(d)    # 这一块查询，在外层读一次
        rows = np.arange(qs, qs + len(qb))[:, None]           # 它们的位置
        m = np.full((len(qb), 1), -np.inf)                    # 运行最大值
        l = np.zeros((len(qb), 1))                            # 运行和 Σ e^(s − m)
        acc = np.zeros((len(qb), d))                          # 累加器 Σ e^(s − m)·v
        for ks in range(0, qs + len(qb), block_k):            # 对角线右边的键块整块跳过
            kb, vb = mem.load("k", ks, ks + block_k), mem.load("v", ks, ks + block_k)
            cols = np.arange(ks, ks + len(kb))[None, :]
            s = np.where(cols > rows, -np.inf, qb @ kb.T)     # 块内的因果掩码
            m_new = np.maximum(m, s.max(axis=1, keepdims=True))
            c = np.exp(m - m_new)                             # 旧的部分换到新基准
            p = np.exp(s - m_new)
            l = l * c + p.sum(axis=1, keepdims=True)
            acc = acc * c + p @ vb
            m = m_new
        mem.store(qs, acc / l)                                # 最后才除以 l，写回一次
    return mem.result()
'''

CODE_EXERCISES["07-4"] = CodeExercise(
    "自己写整个分块的前向：查询块在外、键块在内，运行最大值、运行和、累加器，快速内存有容量上限",
    "flash_forward(mem, block_q, block_k)", ("mem", "block_q", "block_k"), ("输出 o", "读入 reads", "写出 writes"),
    _flash_cases, _flash_reference, _wrong_flashes(), FLASH_SOLUTION, rtol=1e-10, atol=1e-10,
    # traffic is an exact count for given block sizes; 1 % leaves room for a different but sound bookkeeping
    output_tolerances=((1e-10, 1e-10), (1e-2, 0.0), (1e-2, 0.0)), measure=_flash_measured,
    during=lambda mem, block_q, block_k: mem.watching(),
    # one key of one query at a time in Python (m, l, acc as scalars, the online softmax as written on paper)
    # is right and 180 times the reference's CPU time bare, about 260 times under the grader's watch
    # (tracemalloc and the profiler charge every Python object and call, and the reference makes few) on
    # the n = 512 case: 14 s against 55 ms here. 500 lets it finish with room; a runaway on that case is
    # stopped after 28 s, on the others after the 2 s floor.
    time_factor=500.0,
    extra={"mutated": {"mem": "你改了 mem 的慢速内存（q、k、v 只能用 mem.load 读，输出只能用 mem.store 写）："
                              "判分看的是 load 和 store 记下的读写，不是 mem 里面的数据。"}},
    returns="返回三个值：慢速内存里的输出 o、读入和写出的浮点数个数（最后一行 return mem.result() 就是它们）",
    forbidden=("helpers.tiled.flash_forward", "helpers.tiled.tiled_attention", "helpers.tiled._tile_update",
               "helpers.tiled.naive_attention", "helpers.scaled_dot_product_attention"),
    forbidden_hint="照练习 3 的一步自己写：外层按 block_q 读查询块，内层按 block_k 读键块和值块，更新 m、l、acc，"
                   "最后 mem.store(qs, acc / l)。")
