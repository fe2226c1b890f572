"""``09_real_model``: its self-checking exercises — whether the best previous-token head keeps its
pattern on a short sentence, one head's attention moved from byte-level pieces onto characters —
and one code exercise, 09-4: one KV-cached decode step of a layer
(:data:`CODE_EXERCISES`, :mod:`helpers.grading.code_check`).

Registered in :data:`helpers.exercises.EXERCISES` by their keys; each solve function computes
the expected answer and its working at check time (vocabulary: :mod:`helpers.grading.answers`).
"""
from __future__ import annotations

import numpy as np

from ..grading.answers import YES_NO, Exercise, Number
from ..grading.code_exercise import Case, CodeExercise, Mistake
from ..readable_tokens import Spelling, group_attention


def previous_token_ranking(weights) -> list:
    """``[(mean weight on the previous token, layer, head), …]`` best first, for a list of
    per-layer ``(heads, n, n)`` weights (``09_real_model``'s search for a previous-token head)."""
    rows = []
    for layer, w in enumerate(weights):
        arr = np.asarray(w, dtype=float)
        if arr.ndim != 3 or arr.shape[1] < 2:
            raise ValueError(f"weights[{layer}] must have shape (heads, n, n) with n >= 2, got {arr.shape}")
        prev = np.diagonal(arr, offset=-1, axis1=1, axis2=2).mean(axis=1)
        rows.extend((float(p), layer, head) for head, p in enumerate(prev))
    return sorted(rows, reverse=True)


def _previous_token_head(short=None, ranked=None):
    if short is None or ranked is None:
        raise ValueError("exercise 09-1 needs short= (the short sentence's weights) and ranked= (the ranking)")
    _, layer, head = ranked[0]
    on_prev = float(np.diagonal(np.asarray(short[layer][head]), offset=-1).mean())
    verdict = "是" if on_prev > 0.5 else "否"
    return verdict, (f"排名第 1 的头是第 {layer} 层第 {head} 个。在短句上，它平均把 {on_prev:.3f} 的权重"
                     f"放在前一个 token 上（{'超过' if on_prev > 0.5 else '不到'} 0.5）：换一段文字，它{'仍然' if on_prev > 0.5 else '不再'}是“看前一个 token”的头。")


def _grouped_row(weights=None, spelling=None, layer=None, head=None, query="请", key="假"):
    if weights is None or not isinstance(spelling, Spelling) or layer is None or head is None:
        raise ValueError("exercise 09-3 needs weights= (the pieces' weights, per layer and head), "
                         "spelling= (helpers.readable_tokens.spell_ids), layer= and head=")
    w = np.asarray(weights[layer][head], dtype=float)
    (q0, q1), (k0, k1) = spelling.runs[spelling.index(query)], spelling.runs[spelling.index(key)]
    sums = w[q0:q1, k0:k1].sum(axis=1)
    value = float(group_attention(w, spelling)[spelling.index(query), spelling.index(key)])
    return value, (f"层 {layer}、头 {head}：“{query}”的 {q1 - q0} 段 token（第 {q0}–{q1 - 1} 个）各自放在“{key}”的 "
                   f"{k1 - k0} 段（第 {k0}–{k1 - 1} 个）上的权重之和是 {'、'.join(f'{x:.3f}' for x in sums)}；"
                   f"键按段求和、查询按段平均，合到字上就是它们的平均 {value:.3f}。")


EXERCISES = {
    "09-1": Exercise("排名第 1 的头在短句上也主要看前一个 token 吗？", YES_NO, _previous_token_head),
    "09-3": Exercise("合到字上以后，“请”这一行放在“假”上的权重是多少？", Number(digits=3, slack=1), _grouped_row),
}


REFERENCES = {
    "09-2": ("多数英文段落上结论不变：只留最近窗口时困惑度明显上升，留下开头几个 token 后又回到接近完整注意力。"
             "如果段落很短（比窗口还短），三种方式就没有区别——窗口外没有被丢掉的 token。"),
}


# ---- 09-4: one KV-cached decode step (a code exercise, checked by helpers.grading.code_check) -------
# What it asserts: decode_step(x_new, cache, position, weights) projects the new token, turns its q and
# k by RoPE at `position` (not 0), appends k (after RoPE) and v to a cache of (kv_heads, n, d) — KV heads,
# not query heads — and returns the new token's layer output, equal to the last row of recomputing the
# whole sequence (helpers.layer.attention_layer over all n + 1 tokens; tests/series/test_write_it_yourself.py
# holds the reference to that). Proof cases: GQA, MQA and MHA; an empty cache (the first token); a long
# cache, where a missing position offset shows; SmolLM2's real first layer when the model is installed.
#: (label, hidden, query heads, KV heads, head_dim, tokens already cached, θ, seed)
DECODE_SPECS = (
    ("小例子，MHA：KV 头和查询头一样多（都是 2 个）、d = 4，缓存里已有 4 个 token", 8, 2, 2, 4, 4, 10000.0, 5),
    ("GQA：4 个查询头共用 2 个 KV 头、d = 4，缓存里已有 3 个 token", 16, 4, 2, 4, 3, 10000.0, 1),
    ("第一个 token：缓存是空的（n = 0），位置 0；4 个查询头、2 个 KV 头、d = 4", 16, 4, 2, 4, 0, 10000.0, 2),
    ("8 个查询头、2 个 KV 头、d = 8，缓存里已有 20 个 token，θ = 500000", 64, 8, 2, 8, 20, 500000.0, 3),
    ("MQA：4 个查询头只有 1 个 KV 头、d = 4，缓存里已有 5 个 token", 16, 4, 1, 4, 5, 10000.0, 4),
)
#: the real case: the prompt whose last token is the new one (SmolLM2's first layer)
DECODE_PROMPT = "The capital of France is"


def _decode_weights(layer, num_heads, num_kv_heads, head_dim, theta) -> dict:
    return {"w_q": np.asarray(layer.w_q, dtype=float), "w_k": np.asarray(layer.w_k, dtype=float),
            "w_v": np.asarray(layer.w_v, dtype=float), "w_o": np.asarray(layer.w_o, dtype=float),
            "num_heads": num_heads, "num_kv_heads": num_kv_heads, "head_dim": head_dim, "rope_theta": theta}


def decode_setups(real: bool = True) -> list:
    """``(label, x_all, weights)`` per case: the inputs of every token (the last one is the new token)
    and the layer's weights as the exercise hands them over. The real layer (``real``) only where the
    model is installed."""
    from ..layer import LayerShape, random_layer

    setups = []
    for label, hidden, heads, kv, d, n, theta, seed in DECODE_SPECS:
        shape = LayerShape(hidden=hidden, num_heads=heads, num_kv_heads=kv, head_dim=d)
        x_all = np.random.default_rng(900 + seed).standard_normal((n + 1, hidden))
        setups.append((label, x_all, _decode_weights(random_layer(shape, seed=seed), heads, kv, d, theta)))
    real = _real_setup() if real else None
    return setups + ([real] if real is not None else [])


#: seconds the first load of SmolLM2 takes on a laptop (reading the GGUF's 49,152-token vocabulary
#: dominates), said before the 09-4 check waits for it
FIRST_LOAD_SECONDS = 10


def _real_installed() -> bool:
    from .. import real_model

    return real_model.gguf_readable()


def _real_setup():
    from .. import real_model

    if not _real_installed():
        return None
    if not real_model.is_loaded():
        print(f"正在载入 SmolLM2 第 0 层，第一次约 {FIRST_LOAD_SECONDS} 秒…", flush=True)
    try:
        model = real_model.load_model()
    except real_model.ModelNotInstalled:
        return None
    cfg, block = model.config, model.blocks[0]
    ids = real_model.encode(model, DECODE_PROMPT)
    x_all = real_model.rms_norm(model.embed[ids].astype(float), block.attn_norm.astype(float), model.eps)
    label = (f"SmolLM2-135M 的第 0 层（真实权重，9 个查询头、3 个 KV 头、d = 64）：“{DECODE_PROMPT}” 的前 "
             f"{len(ids) - 1} 个 token 在缓存里，新 token 是最后一个")
    return label, x_all, _decode_weights(block.attention, cfg.num_heads, cfg.num_kv_heads, cfg.head_dim, cfg.rope_theta)


def _layer_of(weights, hidden):
    from ..layer import LayerShape, LayerWeights

    shape = LayerShape(hidden=hidden, num_heads=weights["num_heads"], num_kv_heads=weights["num_kv_heads"],
                       head_dim=weights["head_dim"])
    return LayerWeights(weights["w_q"], weights["w_k"], weights["w_v"], weights["w_o"]), shape


def _prefill(x_prev, weights) -> dict:
    """The cache after the earlier tokens: k (after RoPE) and v, each ``(kv_heads, n, d)``."""
    from ..layer import LayerCache, attention_layer

    kv, d = weights["num_kv_heads"], weights["head_dim"]
    if len(x_prev) == 0:
        return {"k": np.zeros((kv, 0, d)), "v": np.zeros((kv, 0, d))}
    layer, shape = _layer_of(weights, x_prev.shape[-1])
    cache = LayerCache()
    attention_layer(x_prev, layer, shape, rope_theta=weights["rope_theta"], cache=cache)
    return {"k": np.swapaxes(cache.k, 0, 1).copy(), "v": np.swapaxes(cache.v, 0, 1).copy()}


def _decode_cases(real: bool = False):
    """The random cases; ``real``: the real layer's case instead (none where the model is not installed)."""
    setups = decode_setups(real=False) if not real else [s for s in (_real_setup(),) if s is not None]
    return [Case(label, (x_all[-1], _prefill(x_all[:-1], weights), len(x_all) - 1, weights))
            for label, x_all, weights in setups]


def _decode_reference(x_new, cache, position, weights):
    from ..layer import LayerCache, attention_layer

    x = np.asarray(x_new, dtype=float)
    layer, shape = _layer_of(weights, len(x))
    layer_cache = LayerCache()
    if cache["k"].shape[1]:
        layer_cache.append(np.swapaxes(cache["k"], 0, 1), np.swapaxes(cache["v"], 0, 1))
    out, _ = attention_layer(x[None], layer, shape, rope_theta=weights["rope_theta"], positions=[position],
                             cache=layer_cache)
    return out[0], np.swapaxes(layer_cache.k, 0, 1), np.swapaxes(layer_cache.v, 0, 1)


def _cache_written(args, after, got) -> str:
    """What a decode step wrote into ``cache`` when it is neither the cache it was given nor the
    caches it returned (``""`` when it is one of them, key by key)."""
    if "cache" not in after:
        return ""
    given, left = args[1], after["cache"]
    if not isinstance(left, dict) or set(left) != {"k", "v"}:
        keys = sorted(map(repr, left)) if isinstance(left, dict) else type(left).__name__
        return (f"cache 里现在是 {keys}，应该只有 'k' 和 'v'：函数可以不动 cache，也可以把返回的两个新缓存"
                f"写回 cache['k']、cache['v']，别的键不要加也不要删。")
    for name, returned in (("k", got[1]), ("v", got[2])):
        value = np.asarray(left[name]) if isinstance(left[name], np.ndarray) else None
        same = value is not None and value.shape == given[name].shape and np.array_equal(value, given[name])
        back = value is not None and value.shape == returned.shape and np.allclose(value, returned, rtol=1e-6,
                                                                                     atol=1e-9)
        if not (same or back):
            shown = f"形状 {value.shape}" if value is not None else type(left[name]).__name__
            return (f"调用之后 cache['{name}']（{shown}）既不是传进来的缓存，也不是你返回的新 {name} 缓存。"
                    f"写回的话要写返回的那个数组（cache['{name}'] = {name}_cache），用完也不要清零或改动它。")
    return ""


def _decode_with(*, offset=True, query_heads_cache=None, rerotate=False, attended_raw=False,
                 new_token_seen=True, top_left=False, cache_q=False, rope_v=False, scale_width="head", shift=0,
                 rope_q=True, swap_caches=False, o_proj=True):
    """One decode step written with the given slips (the right one with none)."""
    def decode_step(x_new, cache, position, weights):
        from ..layer import apply_rope

        h, kv, d, theta = (weights[k] for k in ("num_heads", "num_kv_heads", "head_dim", "rope_theta"))
        x = np.asarray(x_new, dtype=float)
        q, k, v = ((x @ weights[w]).reshape(1, -1, d) for w in ("w_q", "w_k", "w_v"))
        pos = [position + shift if offset else 0]
        q_r, k_r = apply_rope(q, pos, theta) if rope_q else q, apply_rope(k, pos, theta)
        if rope_v:
            v = apply_rope(v, pos, theta)
        old_k, old_v = cache["k"], cache["v"]
        stored, stored_v = (q_r if cache_q else k_r), v
        if query_heads_cache is not None:  # repeat_kv before caching: a cache of query heads
            stored, stored_v = np.repeat(stored, h // kv, axis=1), np.repeat(stored_v, h // kv, axis=1)
            if query_heads_cache == "all":
                old_k, old_v = np.repeat(old_k, h // kv, axis=0), np.repeat(old_v, h // kv, axis=0)
        k_cache = np.concatenate([old_k, np.swapaxes(stored, 0, 1)], axis=1)
        v_cache = np.concatenate([old_v, np.swapaxes(stored_v, 0, 1)], axis=1)
        keys = k_cache.copy()
        if attended_raw:
            keys[:, -1] = np.swapaxes(k, 0, 1)[:, 0]
        if rerotate:  # the cached keys (already turned) turned again by their positions
            k_cache = keys = np.swapaxes(apply_rope(np.swapaxes(np.concatenate(
                [old_k, np.swapaxes(k, 0, 1)], axis=1), 0, 1), np.arange(old_k.shape[1] + 1), theta), 0, 1)
        values = v_cache
        if not new_token_seen:
            keys, values = keys[:, :-1], values[:, :-1]
        if top_left:
            keys, values = keys[:, :1], values[:, :1]
        group = keys.shape[0]
        keys, values = np.repeat(keys, h // group, axis=0), np.repeat(values, h // group, axis=0)
        width = {"head": d, "model": x.shape[-1], "none": 1}[scale_width]
        scores = np.einsum("hd,hjd->hj", q_r[0], keys) / np.sqrt(width)
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        out = np.einsum("hj,hjd->hd", e / e.sum(axis=-1, keepdims=True), values)
        out = out.reshape(-1) @ weights["w_o"] if o_proj else out.reshape(-1)
        return (out, v_cache, k_cache) if swap_caches else (out, k_cache, v_cache)
    return decode_step


def _decode_mistakes():
    """The usual mistakes in one cached decode step, each as the wrong code a learner writes."""
    order = ("k 的顺序是：x_new @ w_k → 按位置 position 做 RoPE → 接到缓存后面；缓存里存的是转过的 k，"
             "注意力里用的也是同一个转过的 k。")
    by_kv = ("缓存按 KV 头存：形状 (KV 头数, n + 1, d)。复制给查询头（repeat_kv）只在算注意力时做，存进缓存的是"
             "没复制的 k、v——GQA 省下的就是这部分显存（Llama-3.1-8B 是 4 倍）。")
    return (
        Mistake("cache_by_query_heads", by_kv, _decode_with(query_heads_cache="new"),
                seen=("https://github.com/meta-pytorch/torchtune/issues/38",
                      "https://github.com/FasterDecoding/SnapKV/issues/16")),
        Mistake("cache_by_query_heads_all", by_kv, _decode_with(query_heads_cache="all"),
                seen=("https://github.com/meta-pytorch/torchtune/issues/38",
                      "https://github.com/FYYFU/HeadKV/issues/3")),
        Mistake("no_position_offset", "新 token 的 q、k 没有按它的位置转：位置当成了 0（或者忘了做 RoPE——位置 0 的 RoPE "
                                      "就是不转）。它的位置是 position（前面已经有 position 个 token），q 和 k 都要按 "
                                      "position 转。", _decode_with(offset=False),
                seen=("https://github.com/karpathy/nanoGPT/pull/694", "https://github.com/Blaizzy/mlx-vlm/issues/1983",
                      "https://github.com/ml-explore/mlx-lm/pull/93")),
        Mistake("rerotate_cache", "缓存里的 k 又转了一遍：它们存进去时已经按各自的位置转过了，直接用；"
                                  "只有新 token 的 k 要转。", _decode_with(rerotate=True),
                seen="https://github.com/NeuraLegion/shainet/pull/110"),
        # the raw k both cached and attended is not named, as no public thread shows it (the threads show the
        # turned k cached but the raw one attended, below); the generic path answers it, and
        # tests/support/grader_corpus.py keeps it as a wrong version that must be rejected
        Mistake("attended_before_rope", "算注意力时新 token 的 k 没有转：" + order, _decode_with(attended_raw=True),
                seen=("https://github.com/kvcache-ai/sglang/pull/66", "https://github.com/sgl-project/sglang/pull/19636")),
        Mistake("new_token_masked", "新 token 没有看自己：它的查询要看缓存里的 n 个 token 和它自己，一共 n + 1 个键。",
                _decode_with(new_token_seen=False), seen="https://github.com/harvard-edge/cs249r_book/pull/1953"),
        Mistake("top_left_causal", "新 token 只看了第一个 token：解码时只有一个查询，它能看见全部 n + 1 个键，不需要掩码；"
                                   "左上角对齐的因果掩码（PyTorch 的 is_causal=True 在查询比键少时就是这样）"
                                   "只留下了第 0 个键。", _decode_with(top_left=True),
                seen="https://github.com/pytorch/pytorch/issues/144858"),
        Mistake("cache_q", "缓存里存的是 q：KV Cache 只存 k 和 v（以后的 token 要拿它们的 q 来和这些 k 比）；"
                           "新 token 的 q 用完就扔。", _decode_with(cache_q=True),
                seen="https://github.com/jalammar/jalammar.github.io/pull/36"),
        Mistake("rope_on_v", "v 也转了：RoPE 只转 q 和 k（位置要进的是分数 q·k），v 原样存进缓存、原样加权。",
                _decode_with(rope_v=True),
                seen=("https://github.com/lucidrains/x-transformers/issues/182",
                      "https://github.com/labmlai/annotated_deep_learning_paper_implementations/issues/251")),
        Mistake("position_plus_1", "新 token 的位置多加了 1：前面有 n 个 token（位置 0 … n − 1），新 token 的位置就是 "
                                   "position = n，直接用。", _decode_with(shift=1),
                seen="https://github.com/Physical-Intelligence/openpi/issues/705"),
        Mistake("no_rope_on_q", "新 token 的 q 没有做 RoPE：q 和 k 都要按 position 转，分数 q·k 里才有相对位置。",
                _decode_with(rope_q=False),
                seen="https://github.com/RobertCsordas/moeut/pull/6"),
        Mistake("caches_swapped", "返回的 k 缓存和 v 缓存对调了：顺序是（输出, k 缓存, v 缓存）。",
                _decode_with(swap_caches=True), seen="https://github.com/jsbaan/transformer-from-scratch/issues/1"),
        Mistake("no_scale", "忘了除以 √d：每个头的分数是 q·kᵀ / √head_dim。", _decode_with(scale_width="none"),
                seen=("https://github.com/PAIR-code/tiny-transformers/issues/71",
                      "https://github.com/mlc-ai/mlc-llm/pull/3426")),
        Mistake("no_o_proj", "忘了 o_proj：把各头的输出拼成一行 (头数 × d,) 之后，还要乘 weights[\"w_o\"] 才是这一层的输出。",
                _decode_with(o_proj=False),
                seen=("https://github.com/Kyubyong/transformer/issues/117",
                      "https://github.com/awf/functional-transformer/issues/8")),
        Mistake("scale_by_d_model", "除的是 √(x 的宽度)，那是整个模型的宽度 d_model；缩放用每个头的维数：√head_dim。",
                _decode_with(scale_width="model"),
                seen=("https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/42",
                      "https://github.com/brightmart/bert_language_understanding/issues/9")),
    )


DECODE_SOLUTION = '''\
import numpy as np
import helpers


def decode_step(x_new, cache, position, weights):
    """x_new: (hidden,)；cache: {"k", "v"}，各 (KV 头数, n, d)；返回 (输出 (hidden,), 新的 k 缓存, 新的 v 缓存)。"""
    h, kv, d = weights["num_heads"], weights["num_kv_heads"], weights["head_dim"]
    q = (x_new @ weights["w_q"]).reshape(1, h, d)                # 一个位置、h 个头
    k = (x_new @ weights["w_k"]).reshape(1, kv, d)
    v = (x_new @ weights["w_v"]).reshape(1, kv, d)
    q = helpers.layer.apply_rope(q, [position], weights["rope_theta"])   # 位置是 position，不是 0
    k = helpers.layer.apply_rope(k, [position], weights["rope_theta"])   # v 不转
    k_cache = np.concatenate([cache["k"], np.swapaxes(k, 0, 1)], axis=1)  # (kv, n + 1, d)：存转过的 k
    v_cache = np.concatenate([cache["v"], np.swapaxes(v, 0, 1)], axis=1)
    keys = np.repeat(k_cache, h // kv, axis=0)                   # 算注意力时才复制给查询头
    values = np.repeat(v_cache, h // kv, axis=0)
    out, _ = helpers.scaled_dot_product_attention(np.swapaxes(q, 0, 1), keys, values)  # 一个查询看全部 n + 1 个键
    return out.reshape(-1) @ weights["w_o"], k_cache, v_cache
'''

CODE_EXERCISES = {
    "09-4": CodeExercise("一步带 KV Cache 的解码：新 token 进来，缓存加一行", "decode_step(x_new, cache, position, weights)",
                         ("x_new", "cache", "position", "weights"), ("新 token 的输出", "k 缓存", "v 缓存"),
                         _decode_cases, _decode_reference, _decode_mistakes(), DECODE_SOLUTION,
                         returns="按顺序返回 3 个数组：新 token 这一层的输出 (hidden,)，加了一行的 k 缓存和 v 缓存，"
                                 "各 (KV 头数, n + 1, d)",
                         mutable=("cache",), in_place=_cache_written,
                         # the real layer only once the random cases are right: a wrong function is
                         # answered without waiting seconds for the model
                         later=lambda: _decode_cases(real=True), later_count=lambda: int(_real_installed()),
                         later_labels=(f"SmolLM2-135M 的第 0 层（真实权重）：“{DECODE_PROMPT}” 的最后一个 token",),
                         forbidden=("helpers.layer.attention_layer", "helpers.real_model.forward",
                                    "helpers.real_model.generate"),
                         forbidden_hint="这道题练的就是一步解码：投影、RoPE、接缓存、注意力、o_proj 都自己接起来；"
                                        "helpers.layer.apply_rope、helpers.layer.repeat_kv 和 "
                                        "helpers.scaled_dot_product_attention 可以用。"),
}
