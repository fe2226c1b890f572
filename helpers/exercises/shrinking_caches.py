"""``14_shrinking_caches``: its self-checking exercises, numbered in reading order — three predictions
asked in the body and taken from public threads (14-1 how many KV heads absorbed MLA attends with, 14-2
whether a rolling cache's keys from layer 1 on are what recomputing the kept tokens gives, 14-3 whether
gpt-oss's sink adds a value) — and two code exercises after the summary: 14-4, absorbed MLA from the
cached latent, and 14-5, one StreamingLLM step with the keys turned by their positions in the cache
(:data:`CODE_EXERCISES`, :mod:`helpers.grading.code_check`).

Registered in :data:`helpers.exercises.EXERCISES` by their keys; each solve function computes the
expected answer and its working at check time (vocabulary: :mod:`helpers.grading.answers`).
"""
from __future__ import annotations

import numpy as np

from ..grading.answers import WILL, YES_NO, Exercise, Number
from ..grading.code_exercise import Case, CodeExercise, Mistake
from ..layer import apply_rope
from ..smaller_cache import latent, sink_logit, streaming

#: a difference below this is rounding in float64 (its digits depend on the CPU), not another result
EQUAL = 1e-10


# ---- 14-1, 14-2, 14-3: predictions from the threads -----------------------------------------------
def _mqa_heads():
    shape = latent.SMALL
    w = latent.random_mla(shape, seed=3)
    x = np.random.default_rng(4).standard_normal((6, shape.hidden))
    naive, _ = latent.mla_naive(x, w, shape)
    as_mqa, _ = latent.mla_as_mqa(x, w, shape)
    same = float(np.abs(naive - as_mqa).max()) < EQUAL
    return 1, (f"吸收以后，{shape.num_heads} 个查询头各有一个宽 {shape.kv_lora_rank} + {shape.qk_rope_head_dim} 的查询，"
               f"它们比较的是同一个键 [c_kv, k_pe]（每个 token 一个，宽 {shape.latent_numbers()}），加权的是同一个值 c_kv："
               f"这就是只有 1 个 KV 头的 MQA（笔记本 06 的 GQA，组大小 = 查询头数）。"
               f"用 repeat_kv 把这一个 KV 头复制给 {shape.num_heads} 个查询头算出的输出，和展开成每头 K、V 的朴素写法"
               f"相差 < {EQUAL:.0e}：{'是' if same else '否'}。")


def _rolling_keys():
    model = streaming.random_decoder(0)
    ids = np.random.default_rng(5).integers(0, model.config.vocab_size, 30)
    run = streaming.rolling_decode(model, ids, window=6, sinks=2, mlp_dtype=np.float64)
    again = streaming.recomputed_keys(model, ids, run.kept[1])
    gaps = [float(np.abs(a - b).max()) for a, b in zip(run.keys, again)]
    rows = "；".join(f"第 {i} 层 {'< ' + format(EQUAL, '.0e') if g < EQUAL else f'{g:.3f}'}" for i, g in enumerate(gaps))
    return "否", (f"随机的 {len(gaps)} 层小模型、30 个 token、2 个汇聚 + 窗口 6：滚动缓存里留下的 token 的 k，"
                  f"和只用这些 token 从头重算的 k，最大差：{rows}。第 0 层的 k 只由 token 自己决定（RoPE 之前），所以一样；"
                  "从第 1 层起，一个 token 的 k 来自它当时看到的上下文，其中有后来被丢掉的 token，从头重算时它们已经不在了。"
                  "滚动缓存并没有算错：它和“一次前向、只改汇聚距离”的写法逐层相同（上文验证过），只是和“重算窗口”不是同一个模型。")


def _sink_value():
    rng = np.random.default_rng(6)
    q, k, v = rng.standard_normal((3, 2, 5, 4))
    sink = np.array([1.0, 3.0])
    out, weights = sink_logit.sink_attention(q, k, v, sink)
    zero = sink_logit.sink_as_zero_value(q, k, v, sink)
    same = float(np.abs(out - zero).max()) < EQUAL
    left = float(1.0 - weights.sum(axis=-1).max())
    return "不会", (f"汇聚 logit 只进分母：每一行的权重加起来小于 1（这个例子里每行至少少了 {left:.3f}），少掉的那份不乘任何值向量。"
                    f"把它当成一个分数恒为 s、值向量为 0 的虚拟键来算，输出相同（差 < {EQUAL:.0e}）：{'是' if same else '否'}。"
                    "所以融合的算子只在分母里加 e^(s − m)，不给累加器加任何东西；Transformers 的写法把它拼成一列做 softmax，"
                    "乘 V 之前再把这一列丢掉。")


EXERCISES = {
    "14-1": Exercise("吸收以后，MLA 的核心注意力有几个 KV 头？", Number(digits=0), _mqa_heads),
    "14-2": Exercise("滚动缓存里从第 1 层起（从 0 数）的 k，和只用留下的 token 从头重算的一样吗？", YES_NO, _rolling_keys),
    "14-3": Exercise("gpt-oss 的汇聚 logit 会给输出加上一个值向量吗？", WILL, _sink_value),
}


REFERENCES: dict = {}


# ---- 14-4: absorbed MLA (a code exercise) ------------------------------------------------------------
# What it asserts: from the cache as it is (c_kv, k_pe), q_nope folded through W_UK (per head, W_UK_hᵀ q),
# scores = (q_latent·c + q_pe·k_pe)·scale with scale 1/√(qk_nope + qk_rope) — the head's key width, not
# the absorbed width —, causal softmax, latent outputs Σ p c turned into values by W_UV. Proof cases: a
# latent narrower and wider than the heads, DeepSeek-V3's widths divided by 16, one position, one head.
#: (label, positions, heads, qk_nope, qk_rope, latent, v_head_dim, seed)
MLA_SPECS = (
    ("小例子：3 个位置、2 个头，qk_nope 4、qk_rope 2、潜在向量 6、v 4", 3, 2, 4, 2, 6, 4, 1),
    ("DeepSeek-V3 的宽度除以 16：8 个头，qk_nope 8、qk_rope 4、潜在向量 32、v 8，6 个位置", 6, 8, 8, 4, 32, 8, 2),
    ("潜在向量比每头的键还窄：4 个头，qk_nope 8、qk_rope 2、潜在向量 5、v 6，5 个位置", 5, 4, 8, 2, 5, 6, 3),
    ("只有 1 个位置：3 个头，qk_nope 4、qk_rope 4、潜在向量 8、v 2", 1, 3, 4, 4, 8, 2, 4),
    ("只有 1 个头：7 个位置，qk_nope 6、qk_rope 2、潜在向量 10、v 3", 7, 1, 6, 2, 10, 3, 5),
)


def mla_inputs(n, heads, nope, rope, r, dv, seed) -> tuple:
    """The arguments of 14-4 for one case: random queries, a latent cache and up-projections, the rope
    parts turned by their positions."""
    rng = np.random.default_rng([seed, 1402])
    pos = np.arange(n)
    q_pe = apply_rope(rng.standard_normal((n, heads, rope)), pos, 10000.0)
    k_pe = apply_rope(rng.standard_normal((n, 1, rope)), pos, 10000.0)[:, 0]
    return (rng.standard_normal((n, heads, nope)), q_pe, rng.standard_normal((n, r)), k_pe,
            rng.standard_normal((heads, nope, r)) / np.sqrt(r), rng.standard_normal((heads, dv, r)) / np.sqrt(r))


def _mla_cases():
    return [Case(label, mla_inputs(*spec)) for label, *spec in MLA_SPECS]


def _mla_reference(q_nope, q_pe, c_kv, k_pe, w_uk, w_uv):
    scale = 1.0 / np.sqrt(q_nope.shape[-1] + q_pe.shape[-1])
    out, _ = latent.absorbed_heads(q_nope, q_pe, c_kv, k_pe, w_uk, w_uv, scale)
    return out, latent.absorbed_query(q_nope, w_uk)


def _mla_with(*, width=None):
    """Absorbed MLA with the scale taken from another width (the right one with none), in numpy alone."""
    def absorbed_mla(q_nope, q_pe, c_kv, k_pe, w_uk, w_uv):
        d = c_kv.shape[-1] + k_pe.shape[-1] if width == "absorbed" else q_nope.shape[-1] + q_pe.shape[-1]
        q_latent = np.einsum("nhd,hdr->nhr", q_nope, w_uk)
        s = (np.einsum("ihr,jr->hij", q_latent, c_kv) + np.einsum("ihd,jd->hij", q_pe, k_pe)) / np.sqrt(d)
        s = s + np.triu(np.full((len(c_kv),) * 2, -np.inf), k=1)
        p = np.exp(s - s.max(axis=-1, keepdims=True))
        out = np.einsum("hij,jr->ihr", p / p.sum(axis=-1, keepdims=True), c_kv)
        return np.einsum("ihr,hdr->ihd", out, w_uv), q_latent
    return absorbed_mla


def _mla_mistakes():
    return (
        Mistake("scale_absorbed_width", "缩放用的是吸收以后的宽度 √(潜在向量 + qk_rope)（DeepSeek-V3 里是 √576）。"
                                        "吸收只是把同一个乘法换了个结合顺序，分数一个数也没变，缩放也不能变："
                                        "仍然是每个头的键的宽度 √(qk_nope + qk_rope)（DeepSeek-V3 里是 √192）。",
                _mla_with(width="absorbed"), seen="https://github.com/ollama/ollama/pull/13893"),
    )


MLA_SOLUTION = '''\
import numpy as np


def absorbed_mla(q_nope, q_pe, c_kv, k_pe, w_uk, w_uv):
    """q_nope (n, H, d_nope)、q_pe (n, H, d_rope)、c_kv (n, r)、k_pe (n, d_rope)、w_uk (H, d_nope, r)、w_uv (H, d_v, r)。"""
    q_latent = np.einsum("nhd,hdr->nhr", q_nope, w_uk)          # 把 W_UK 折进查询：每个头 W_UK_hᵀ q_nope_h
    scale = 1.0 / np.sqrt(q_nope.shape[-1] + q_pe.shape[-1])    # 每头键的宽度，不是吸收后的宽度
    s = (np.einsum("ihr,jr->hij", q_latent, c_kv)               # 直接和缓存里的潜在向量比
         + np.einsum("ihd,jd->hij", q_pe, k_pe)) * scale         # 位置那一小段：和共用的 k_pe 比
    n = len(c_kv)
    s = s + np.triu(np.full((n, n), -np.inf), k=1)              # 因果掩码
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p = p / p.sum(axis=-1, keepdims=True)
    latent_out = np.einsum("hij,jr->ihr", p, c_kv)              # 每个头输出的还是潜在向量的加权和
    return np.einsum("ihr,hdr->ihd", latent_out, w_uv), q_latent   # 最后才用 W_UV 变成值
'''

# ---- 14-5: one StreamingLLM step, keys turned by their positions in the cache -------------------------
# What it asserts: the cached keys, kept before RoPE, are turned by 0 … m − 1 (their places in the cache),
# the new query by m − 1, scale 1/√d, no mask (every cached key is older or the token itself); not by
# the text positions `kept`. Proof cases: a cache before any eviction (both agree there), sinks and a window
# far into the text, one token, SmolLM2's θ.
#: (label, text positions of the cached tokens, heads, d, θ, seed)
STREAM_SPECS = (
    ("还没有丢掉任何 token：缓存里是第 0–5 个 token（2 个头、d = 4）", tuple(range(6)), 2, 4, 10000.0, 1),
    ("4 个汇聚 + 窗口 3：缓存里是第 0–3 个和第 37–39 个 token（2 个头、d = 4）",
     (0, 1, 2, 3, 37, 38, 39), 2, 4, 10000.0, 2),
    ("4 个汇聚 + 窗口 4，已读到第 2000 个 token（3 个头、d = 8，θ = 100000，SmolLM2 的值）",
     (0, 1, 2, 3, 1997, 1998, 1999, 2000), 3, 8, 100000.0, 3),
    ("只有 1 个汇聚 + 窗口 2：第 0 个和第 9、10 个 token（1 个头、d = 6）", (0, 9, 10), 1, 6, 10000.0, 4),
    ("缓存里只有新 token 自己（第 0 个 token，2 个头、d = 4）", (0,), 2, 4, 10000.0, 5),
)


def stream_inputs(kept, heads, d, theta, seed) -> tuple:
    """The arguments of 14-5: the new query, the cache before RoPE, the text positions, θ."""
    rng = np.random.default_rng([seed, 1404])
    m = len(kept)
    return (rng.standard_normal((heads, d)), rng.standard_normal((m, heads, d)), rng.standard_normal((m, heads, d)),
            np.array(kept, dtype=np.int64), theta)


def _stream_cases():
    return [Case(label, stream_inputs(*spec)) for label, *spec in STREAM_SPECS]


def _stream_reference(q, k_cache, v_cache, kept, theta):
    return streaming.rolling_step(q, k_cache, v_cache, theta)


def _stream_with(*, keys="cache", query="cache", scale=True, turn_q=True):
    """One step with the positions taken from elsewhere (the right one with none)."""
    def streaming_attention(q, k_cache, v_cache, kept, theta):
        m, d = len(k_cache), q.shape[-1]
        where = {"cache": np.arange(m), "text": np.asarray(kept)}
        k = apply_rope(k_cache, where[keys], theta)
        qr = apply_rope(q[None], where[query][-1:], theta)[0] if turn_q else q
        s = np.einsum("hd,jhd->hj", qr, k) / (np.sqrt(d) if scale else 1.0)
        p = np.exp(s - s.max(axis=-1, keepdims=True))
        return np.einsum("hj,jhd->hd", p / p.sum(axis=-1, keepdims=True), v_cache)
    return streaming_attention


def _stream_mistakes():
    cache = ("StreamingLLM 按缓存里的位置给位置：缓存里第 i 个键（汇聚在前，窗口在后）转 i 角度，新 token 的查询转 m − 1"
             "（m 是缓存里的 token 数）；kept 只说明它们在原文里的位置，不用来转。")
    return (
        Mistake("text_positions", "键和查询都按原文里的位置 kept 转了：这是“保留原文位置”的做法，不是 StreamingLLM 的。" + cache,
                _stream_with(keys="text", query="text"),
                seen="https://github.com/Zefan-Cai/KVCache-Factory/issues/19"),
        Mistake("query_text_position", "键按缓存里的位置转了，新 token 的查询却按它在原文里的位置 kept[-1] 转：两者的距离就不对了。"
                                       + cache, _stream_with(query="text"),
                seen="https://github.com/intel/intel-extension-for-transformers/pull/481"),
        Mistake("no_rope_on_q", "新 token 的查询没有做 RoPE：查询和键都要转，分数 q·k 里才有距离。" + cache,
                _stream_with(turn_q=False), seen="https://github.com/RobertCsordas/moeut/pull/6"),
        Mistake("no_scale", "忘了除以 √d：分数是 q·kᵀ / √head_dim。", _stream_with(scale=False),
                seen=("https://github.com/PAIR-code/tiny-transformers/issues/71",
                      "https://github.com/mlc-ai/mlc-llm/pull/3426")),
    )


STREAM_SOLUTION = '''\
import numpy as np
import helpers


def streaming_attention(q, k_cache, v_cache, kept, theta):
    """q (H, d)：新 token 转之前的查询；k_cache、v_cache (m, H, d)：缓存（k 还没转）；kept：它们在原文里的位置（这里不用）。"""
    m, d = len(k_cache), q.shape[-1]
    place = np.arange(m)                                          # 在缓存里的位置：0, 1, …, m − 1
    k = helpers.layer.apply_rope(k_cache, place, theta)           # 每一步都按缓存里的位置重新转
    q = helpers.layer.apply_rope(q[None], place[-1:], theta)[0]   # 新 token 在缓存的最后：m − 1
    s = np.einsum("hd,jhd->hj", q, k) / np.sqrt(d)                # 缓存里的都能看，不用掩码
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return np.einsum("hj,jhd->hd", p / p.sum(axis=-1, keepdims=True), v_cache)
'''

CODE_EXERCISES = {
    "14-4": CodeExercise("吸收的 MLA：直接用缓存里的潜在向量算注意力", "absorbed_mla(q_nope, q_pe, c_kv, k_pe, w_uk, w_uv)",
                         ("q_nope", "q_pe", "c_kv", "k_pe", "w_uk", "w_uv"), ("每个头的输出", "吸收后的查询"),
                         _mla_cases, _mla_reference, _mla_mistakes(), MLA_SOLUTION,
                         returns="按顺序返回 2 个数组：每个头的输出 (n, 头数, d_v)（W_O 之前），和吸收后的查询 "
                                 "W_UK_hᵀ q_nope_h，形状 (n, 头数, r)",
                         forbidden=("helpers.smaller_cache.latent.absorbed_heads",
                                    "helpers.smaller_cache.latent.absorbed_query",
                                    "helpers.smaller_cache.latent.mla_absorbed", "helpers.smaller_cache.latent.mla_as_mqa",
                                    "helpers.smaller_cache.latent.mla_naive", "helpers.smaller_cache.latent.expand"),
                         forbidden_hint="这道题练的就是吸收本身：把 W_UK 折进查询、和潜在向量比、最后乘 W_UV，只用 numpy 写。"),
    "14-5": CodeExercise("StreamingLLM 的一步：按缓存里的位置重新转键", "streaming_attention(q, k_cache, v_cache, kept, theta)",
                         ("q", "k_cache", "v_cache", "kept", "theta"), ("新 token 的输出",),
                         _stream_cases, _stream_reference, _stream_mistakes(), STREAM_SOLUTION,
                         returns="返回一个数组：新 token 每个头的注意力输出，形状 (头数, d)",
                         forbidden=("helpers.smaller_cache.streaming.rolling_step",
                                    "helpers.smaller_cache.streaming.rolling_decode",
                                    "helpers.smaller_cache.streaming.streaming_logits"),
                         forbidden_hint="这道题练的就是这一步：按缓存里的位置转键、转查询、做注意力；"
                                        "helpers.layer.apply_rope 可以用。"),
}
