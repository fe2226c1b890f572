"""``06_attention_layer``: its self-checking exercises — the KV cache per token for other KV-head
counts, and order without RoPE — and one code exercise, 06-3: write the GQA forward (repeat_kv, 32
query heads sharing 8 KV heads; :data:`CODE_EXERCISES`, :mod:`helpers.grading.code_check`).

Registered in :data:`helpers.exercises.EXERCISES` by their keys; each solve function computes
the expected answer and its working at check time (vocabulary: :mod:`helpers.grading.answers`).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..attention import scaled_dot_product_attention
from ..config import LLAMA_3_1_8B, LLAMA_3_1_ROPE, LLAMA_3_2_1B, SMOLLM2_135M, ModelConfig, RopeScaling
from ..cost import KiB, kv_cache_bytes_per_token
from ..grading.answers import WILL, Exercise, Numbers
from ..grading.code_exercise import Case, CodeExercise, Mistake
from ..layer import LayerShape, attention_layer, random_layer, repeat_kv

#: the KV-head counts exercise 06-1 asks about (neither is printed in 06's table)
CACHE_KV_HEADS = (4, 16)


def _kv_heads_cache(kv_heads=CACHE_KV_HEADS):
    cfg = LLAMA_3_1_8B
    values = [kv_cache_bytes_per_token(cfg, num_kv_heads=kv) / KiB for kv in kv_heads]
    steps = "；".join(f"KV 头 {kv}：{cfg.num_layers} × 2 × {kv} × {cfg.head_dim} × 2 字节 = {v:.0f} KiB"
                     for kv, v in zip(kv_heads, values))
    return values, (f"每 token KV Cache = {cfg.num_layers} 层 × 2（K、V）× KV 头数 × {cfg.head_dim} 维 × 2 字节。\n"
                    f"{steps}。\n它和 KV 头数成正比，和查询头数无关。")


def _no_rope_prefix():
    shape = LayerShape(hidden=64, num_heads=4, num_kv_heads=2, head_dim=16)
    weights = random_layer(shape, seed=0)
    x = np.random.default_rng(1).standard_normal((4, shape.hidden))
    order = [1, 0, 2, 3]  # 假 年 怎么 申请
    a, _ = attention_layer(x, weights, shape, rope_theta=None)
    b, _ = attention_layer(x[order], weights, shape, rope_theta=None)
    bound = 1e-9  # a change below this is rounding (its digits depend on the CPU), not a different output
    moved = float(np.abs(a[2] - b[2]).max()) > bound
    diff_year = float(np.abs(a[0] - b[1]).max())
    return ("会" if moved else "不会"), (
        "没有 RoPE、有因果掩码的一层（缩小的随机层）里交换“年”和“假”：\n"
        f"“怎么”的输出变化 < {bound:.0e}：{'否' if moved else '是'}；"
        f"“年”（从位置 0 挪到位置 1）的输出变化 {diff_year:.3f}。\n"
        "“怎么”换序前后看得见的都是 {年, 假, 怎么}：没有 RoPE，点积和加权和都不管这几个 token 的先后，输出不变。"
        "“年”挪到“假”后面，看得见的集合多了“假”，输出就变了。")


EXERCISES = {
    "06-1": Exercise("KV 头 4 和 16 时 Llama-3.1-8B 每 token 的 KV Cache（KiB）",
                      Numbers(tuple(f"KV 头 {kv}" for kv in CACHE_KV_HEADS), 0, unit="KiB"), _kv_heads_cache),
    "06-2": Exercise("没有 RoPE 时交换“年”和“假”，“怎么”的输出会变吗？", WILL, _no_rope_prefix),
}


REFERENCES: dict = {}


# ---- 06-3: write the GQA forward yourself (a code exercise, checked by helpers.grading.code_check) ---
# What it asserts: query head h reads KV head h // n_rep (np.repeat along the head axis, not np.tile),
# causal attention per head, scaled by √d_head. Proof cases: 32/8 and 6/3 heads (tile and repeat differ
# only when n_rep > 1 and there are ≥ 2 KV heads), MQA (one KV head), MHA (n_rep = 1), n = 1 (a single
# position: the causal mask leaves only the diagonal).
def _gqa_cases():
    rng = np.random.default_rng(606)

    def qkv(n, heads, kv_heads, d):
        return (rng.standard_normal((n, heads, d)), rng.standard_normal((n, kv_heads, d)),
                rng.standard_normal((n, kv_heads, d)))

    return [
        Case("小例子：3 个位置、4 个查询头共用 2 个 KV 头、d = 2", qkv(3, 4, 2, 2)),
        Case("Llama-3.1-8B 的比例：32 个查询头共用 8 个 KV 头（5 个位置、d = 4）", qkv(5, 32, 8, 4)),
        Case("6 个查询头、3 个 KV 头（4 个位置、d = 3）", qkv(4, 6, 3, 3)),
        Case("MQA：8 个查询头只有 1 个 KV 头（3 个位置、d = 4）", qkv(3, 8, 1, 4)),
        Case("MHA：KV 头和查询头一样多，都是 4 个（5 个位置、d = 2）", qkv(5, 4, 4, 2)),
        Case("只有 1 个位置：8 个查询头、2 个 KV 头、d = 4", qkv(1, 8, 2, 4)),
    ]


def _heads_first(a):
    return np.swapaxes(a, 0, 1)


def _gqa(q, k, v, expand, *, causal=True, scale=None, heads_first=True):
    """GQA attention of ``(n, heads, d)`` arrays with the KV heads expanded by ``expand(x, n_rep)``."""
    n_rep = q.shape[1] // k.shape[1]
    k_rep, v_rep = expand(k, n_rep), expand(v, n_rep)
    if not heads_first:  # the mistake: (n, heads, d) handed over as if heads came first
        return scaled_dot_product_attention(q, k_rep, v_rep, causal=causal, scale=scale)[0]
    out, _ = scaled_dot_product_attention(_heads_first(q), _heads_first(k_rep), _heads_first(v_rep),
                                          causal=causal, scale=scale)
    return _heads_first(out)


def _gqa_reference(q, k, v):
    return _gqa(q, k, v, repeat_kv)


def _wrong_gqas():
    """The usual mistakes in writing a GQA forward, each as the wrong code a learner writes."""
    def repeat(x, n_rep):
        return np.repeat(x, n_rep, axis=1)

    def tile(q, k, v):
        return _gqa(q, k, v, lambda x, r: np.tile(x, (1, r, 1)))

    def repeat_positions(q, k, v):
        return _gqa(q, k, v, lambda x, r: np.repeat(x, r, axis=0))

    def no_causal(q, k, v):
        return _gqa(q, k, v, repeat, causal=False)

    def no_scale(q, k, v):
        return _gqa(q, k, v, repeat, scale=1.0)

    def scale_by_d_model(q, k, v):
        return _gqa(q, k, v, repeat, scale=1.0 / np.sqrt(q.shape[1] * q.shape[2]))

    def heads_last(q, k, v):
        return _heads_first(_gqa(q, k, v, repeat))

    def heads_as_positions(q, k, v):
        return _gqa(q, k, v, repeat, heads_first=False)

    def reshaped(q, k, v, *, into=True, back=True):
        """Heads moved with reshape (which regroups the numbers) instead of swapaxes."""
        n, heads, d = q.shape
        n_rep = heads // k.shape[1]
        move = (lambda a: a.reshape(a.shape[1], a.shape[0], a.shape[2])) if into else _heads_first
        out, _ = scaled_dot_product_attention(*(move(a) for a in (q, repeat(k, n_rep), repeat(v, n_rep))), causal=True)
        return out.reshape(n, heads, out.shape[-1]) if back else _heads_first(out)

    reshape = "reshape 会把数据打乱：它只按内存顺序重新分组，不会把头这一维挪走；挪头这一维要用 transpose/swapaxes：" \
              "np.swapaxes(q, 0, 1) 把 (n, 头数, d) 变成 (头数, n, d)，算完再 np.swapaxes(out, 0, 1) 换回来。"

    return (
        Mistake("tile", "KV 头的排列顺序错了：你的输出里，查询头 h 配的是 KV 头 h % KV 头数（KV 头整组轮流：8 个 KV 头时是 "
                        "0, 1, …, 7, 0, 1, …；np.tile 或下标 h % KV 头数 都会排成这样），于是查询头 1 配上了 KV 头 1。"
                        "应是每个 KV 头连着供 n_rep 个查询头用：0, 0, 0, 0, 1, 1, 1, 1, …，查询头 h 用 KV 头 h // n_rep，也就是 "
                        "np.repeat(k, n_rep, axis=1)（PyTorch 里是 repeat_interleave，Transformers 的 repeat_kv 也这样排）。",
                tile, seen="https://github.com/onnx/onnx/pull/7274"),
        Mistake("repeat_positions", "重复的是位置这一维（axis=0），应重复 KV 头这一维：k 的形状是 (n, KV 头数, d)，"
                                    "np.repeat(k, n_rep, axis=1)。", repeat_positions,
                seen="https://github.com/PrimeIntellect-ai/prime-rl/pull/2681"),
        Mistake("no_causal", "忘了因果掩码：每个头里第 i 个位置只能看位置 0…i（helpers.scaled_dot_product_attention 的 causal=True，"
                             "或者自己在 softmax 之前把 j > i 的分数设成 −∞）。", no_causal,
                seen=("https://github.com/keras-team/keras/issues/23038",
                      "https://github.com/facebookresearch/xformers/issues/103")),
        Mistake("no_scale", "忘了除以 √d：每个头的分数是 q·kᵀ / √d，d 是每个头的维数 q.shape[-1]。", no_scale,
                seen=("https://github.com/PAIR-code/tiny-transformers/issues/71",
                      "https://github.com/delzac/cntkx/issues/10")),
        # √d_model (all heads' width) for √d_head
        Mistake("scale_by_d_model", "除的是 √(头数 × d)，那是整个模型的宽度 d_model；缩放用每个头自己的维数："
                                    "√d，d = q.shape[-1]。", scale_by_d_model,
                seen=("https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/42",
                      "https://github.com/brightmart/bert_language_understanding/issues/9")),
        Mistake("heads_last", "返回的形状是 (头数, n, d)：算完要把头这一维换回第 1 维，np.swapaxes(out, 0, 1)，"
                              "得到 (n, 头数, d)。", heads_last,
                seen="https://github.com/huggingface/transformers/pull/34942"),
        Mistake("heads_as_positions", "注意力算在了“头”这一维上：scaled_dot_product_attention 把第 0 维当作头、倒数第 2 维当作位置，"
                                      "(n, 头数, d) 要先换成 (头数, n, d)（np.swapaxes(q, 0, 1)），算完再换回来。",
                heads_as_positions, seen="https://github.com/Thinklab-SJTU/Crossformer/issues/13"),
        Mistake("reshape_both", reshape, reshaped,
                seen=("https://github.com/reczoo/FuxiCTR/issues/30",
                      "https://github.com/649453932/Chinese-Text-Classification-Pytorch/issues/10")),
        Mistake("reshape_into", reshape, lambda q, k, v: reshaped(q, k, v, back=False),
                seen=("https://github.com/reczoo/FuxiCTR/issues/30", "https://github.com/hyunwoongko/transformer/issues/15")),
        Mistake("reshape_back", reshape, lambda q, k, v: reshaped(q, k, v, into=False),
                seen=("https://github.com/jsbaan/transformer-from-scratch/pull/6",
                      "https://github.com/ajhalthor/Transformer-Neural-Network/issues/1")),
    )


GQA_SOLUTION = '''\
import numpy as np
import helpers


def repeat_kv(x, n_rep):
    """(n, KV 头数, d) → (n, KV 头数 × n_rep, d)：KV 头 j 连着重复 n_rep 次，供查询头 j·n_rep … j·n_rep + n_rep − 1 使用。"""
    return np.repeat(x, n_rep, axis=1)


def gqa_attention(q, k, v):
    """q: (n, 查询头数, d)，k、v: (n, KV 头数, d) → 每个查询头的输出 (n, 查询头数, d)，带因果掩码。"""
    n_rep = q.shape[1] // k.shape[1]                      # 每个 KV 头供几个查询头用（Llama-3.1-8B：32 // 8 = 4）
    k, v = repeat_kv(k, n_rep), repeat_kv(v, n_rep)       # 现在和 q 一样有 32 个头
    q_h, k_h, v_h = (np.swapaxes(a, 0, 1) for a in (q, k, v))   # 头放到最前面：(头数, n, d)
    out, _ = helpers.scaled_dot_product_attention(q_h, k_h, v_h, causal=True)
    return np.swapaxes(out, 0, 1)                         # 换回 (n, 头数, d)
'''

CODE_EXERCISES = {
    "06-3": CodeExercise("自己写 GQA 的前向：repeat_kv，32 个查询头共用 8 个 KV 头", "gqa_attention(q, k, v)",
                         ("q", "k", "v"), ("输出",), _gqa_cases, _gqa_reference, _wrong_gqas(), GQA_SOLUTION,
                         returns="返回一个数组：每个查询头的输出，形状 (n, 查询头数, d)",
                         forbidden=("helpers.layer.repeat_kv", "helpers.layer.expand_gqa_to_mha", "helpers.layer.attention_layer"),
                         forbidden_hint="repeat_kv 要自己写（np.repeat 沿 KV 头那一维，axis=1）；每个头的注意力可以用 "
                                        "helpers.scaled_dot_product_attention。"),
}


# ---- 06-4: write RoPE with Llama-3.1's scaling (a code exercise) --------------------------------------
# What it asserts: rope(x, positions, config) rotates every pair of x by position · θᵢ, θᵢ from the
# config's θ with its llama3 scaling (three bands by wavelength), for one head (n, d) or many (n, heads, d).
# Pairs are (i, i + d/2) — Transformers' rotate_half, the layout of this series' weights — or, when the
# learner says so (check_code(..., pairing="interleaved")), (2i, 2i+1) as in Meta's original code.
# Proof cases: positions past 8192 and up to 131071, where the slowed low-frequency band and the smooth
# band between matter; d = 16, where the three bands are pairs 0–3, 4 and 5–7; a config without scaling
# (SmolLM2) and one scaled 32× (Llama-3.2); positions that do not start at 0.
PAIRINGS = ("halves", "interleaved")


def _toy_config():
    return ModelConfig(name="小例子（Llama-3.1 的底数 base 和缩放，d = 16）", hidden_size=48, num_layers=1, num_heads=3,
                       num_kv_heads=1, head_dim=16, intermediate_size=64, vocab_size=16, rope_theta=500000.0,
                       tie_word_embeddings=True, source="a small example for 06-4", rope_scaling=LLAMA_3_1_ROPE)


def _other_scaling_config():
    """A config whose scaling shares no number with Llama-3.1's (L, low, high, factor, θ): a RoPE that
    writes any of them into its code instead of reading the config fails here. d = 16, θ = 20000: pairs
    0–3 keep their frequency, pair 4 blends, pairs 5–7 slow down."""
    scaling = RopeScaling(rope_type="llama3", factor=16.0, low_freq_factor=2.0, high_freq_factor=8.0,
                          original_max_position_embeddings=4096)
    return ModelConfig(name="另一种缩放（L = 4096、low 2、high 8、factor 16、base = 20000，d = 16）", hidden_size=48,
                       num_layers=1, num_heads=3, num_kv_heads=1, head_dim=16, intermediate_size=64, vocab_size=16,
                       rope_theta=20000.0, tie_word_embeddings=True, source="a made-up scaling for 06-4",
                       rope_scaling=scaling)


def _rope_cases():
    # the presets are bound when this module is imported: a notebook cell that rebinds
    # helpers.config.LLAMA_3_1_8B afterwards does not change the cases
    rng = np.random.default_rng(640)
    toy = _toy_config()

    def case(label, shape, positions, config):
        return Case(label, (rng.standard_normal(shape), np.array(positions), config))

    return [
        case("一个头、d = 16、位置 0…3", (4, 16), [0, 1, 2, 3], toy),
        case("3 个头、d = 16，位置很远：8190、8191、8192、100000（缩放的三段频率都起作用）", (4, 3, 16),
             [8190, 8191, 8192, 100000], toy),
        case("Llama-3.1-8B 的真实形状：2 个头、d = 128，位置 0、1、4096、131071", (4, 2, 128), [0, 1, 4096, 131071],
             LLAMA_3_1_8B),
        case("SmolLM2-135M：没有缩放（rope_scaling 是 None）、base = 100000、3 个头、d = 64，位置 5…8", (4, 3, 64),
             [5, 6, 7, 8], SMOLLM2_135M),
        case("Llama-3.2-1B：缩放 32 倍、一个头、d = 64，位置 3、17、5000、60000", (4, 64), [3, 17, 5000, 60000],
             LLAMA_3_2_1B),
        case("另一种缩放：L = 4096、low_freq_factor = 2、high_freq_factor = 8、factor = 16、base = 20000，2 个头、d = 16，"
             "位置 0、7、3000、50000", (4, 2, 16), [0, 7, 3000, 50000], _other_scaling_config()),
    ]


def _pair_partner(x, pairing):
    """The vector each pair is turned towards: (−x₂, x₁) for every pair (x₁, x₂) of ``pairing``."""
    half = x.shape[-1] // 2
    if pairing == "halves":
        return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    partner = np.empty_like(x)
    partner[..., 0::2], partner[..., 1::2] = -x[..., 1::2], x[..., 0::2]
    return partner


def _rotate(x, positions, inv_freq, pairing, layout, turn="right", angle_dtype=np.float64):
    """x turned by positions · inv_freq, pairs by ``pairing``, the angles laid out ``"cat"`` ([θ₀…θ_{d/2−1},
    θ₀…]) or ``"repeat"`` ([θ₀, θ₀, θ₁, θ₁, …]); d angles (a mistake) are used as they are; the angles
    and their cos, sin computed in ``angle_dtype``."""
    x = np.asarray(x, dtype=float)
    angles = np.outer(np.asarray(positions, dtype=angle_dtype), np.asarray(inv_freq, dtype=angle_dtype))
    if 2 * angles.shape[-1] == x.shape[-1]:
        angles = np.concatenate([angles, angles], axis=-1) if layout == "cat" else np.repeat(angles, 2, axis=-1)
    if x.ndim == 3:
        angles = angles[:, None, :]
    cos, sin = np.cos(angles), np.sin(angles)
    cos, sin = {"right": (cos, sin), "swapped": (sin, cos), "backwards": (cos, -sin)}[turn]
    return x * cos + _pair_partner(x, pairing) * sin


def _freqs(d, theta, scaling, *, steps="2i/d", bands="llama3"):
    """θᵢ with the usual slips: ``steps`` ("i/d": exponents in steps of 1/d; "d": d frequencies) and
    ``bands`` ("none", "swapped", "smooth_flipped", "smooth_by_wavelength")."""
    exponent = {"2i/d": np.arange(0, d, 2) / d, "i/d": np.arange(d // 2) / d, "d": np.arange(d) / d}[steps]
    inv = theta ** -exponent
    if scaling is None or bands == "none":
        return inv
    wavelength = 2 * np.pi / inv
    length = scaling.original_max_position_embeddings
    short, long = wavelength < length / scaling.high_freq_factor, wavelength > length / scaling.low_freq_factor
    smooth = (length / wavelength - scaling.low_freq_factor) / (scaling.high_freq_factor - scaling.low_freq_factor)
    slow = inv / scaling.factor
    by_wavelength = (wavelength - length / scaling.high_freq_factor) / (
        length / scaling.low_freq_factor - length / scaling.high_freq_factor)
    middle = {"llama3": (1 - smooth) * slow + smooth * inv, "smooth_flipped": smooth * slow + (1 - smooth) * inv,
              "smooth_by_wavelength": (1 - by_wavelength) * inv + by_wavelength * slow,
              "swapped": (1 - smooth) * slow + smooth * inv}[bands]
    if bands == "swapped":
        return np.where(short, slow, np.where(long, inv, middle))
    return np.where(short, inv, np.where(long, slow, middle))


def _rope_with(pairing, *, layout=None, steps="2i/d", bands="llama3", theta=None, shift=0, own_positions=False,
               fixed=None, turn="right", angle_dtype=np.float64):
    """A RoPE written with the given choices (the right one for ``pairing`` by default); ``fixed``: the
    name of a scaling field written into the code as Llama-3.1's value instead of read from the config."""
    layout = layout or ("cat" if pairing == "halves" else "repeat")

    def rope(x, positions, config):
        d = np.shape(x)[-1]
        pos = np.arange(len(x)) if own_positions else np.asarray(positions) + shift
        scaling = config.rope_scaling
        if fixed is not None and scaling is not None:
            scaling = dataclasses.replace(scaling, **{fixed: getattr(LLAMA_3_1_ROPE, fixed)})
        inv = _freqs(d, config.rope_theta if theta is None else theta, scaling, steps=steps, bands=bands)
        return _rotate(x, pos, inv, pairing, layout, turn, angle_dtype)
    return rope


def _rope_reference(pairing):
    def reference(x, positions, config):
        from ..layer import apply_rope

        arr = np.asarray(x, dtype=float)
        heads = arr if arr.ndim == 3 else arr[:, None, :]
        d = arr.shape[-1]
        order = np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])  # (2i, 2i+1) → (i, i + d/2)
        if pairing == "interleaved":
            heads = heads[..., order]
        out = apply_rope(heads, positions, config.rope_theta, config.rope_scaling)
        if pairing == "interleaved":
            out = out[..., np.argsort(order)]
        return out if arr.ndim == 3 else out[:, 0, :]
    return reference


def _rope_mistakes(pairing):
    """The usual mistakes in writing RoPE, each as the wrong code a learner writes (pairs by ``pairing``)."""
    other = PAIRINGS[1 - PAIRINGS.index(pairing)]
    said = {"halves": "(i, i + d/2)（前一半和后一半配对，Transformers 的 rotate_half）",
            "interleaved": "(2i, 2i+1)（相邻两维配对，Meta 原始代码的写法）"}
    layout = {"halves": ("cat", "np.concatenate([angles, angles], axis=-1)：[θ₀, θ₁, …, θ₀, θ₁, …]"),
              "interleaved": ("repeat", "np.repeat(angles, 2, axis=-1)：[θ₀, θ₀, θ₁, θ₁, …]")}
    wrong_layout = "repeat" if pairing == "halves" else "cat"
    written_in = ("https://github.com/meta-pytorch/torchtune/pull/1386",)  # all four scaling numbers written in
    band = ("Llama-3.1 的缩放按波长 λᵢ = 2π/θᵢ 分三段（L = original_max_position_embeddings）：λᵢ < L/high_freq_factor "
            "的高频对不变；λᵢ > L/low_freq_factor 的低频对变成 θᵢ/factor；两者之间平滑过渡："
            "s = (L/λᵢ − low_freq_factor)/(high_freq_factor − low_freq_factor)，θᵢ ← (1 − s)·θᵢ/factor + s·θᵢ。")
    return (
        Mistake("wrong_pairing", f"配对方式和你说的不一样：你写的是 {said[other]}，判分按的是 {said[pairing]}。"
                                 f"两种都对，只要 q、k 的权重按同一种排：用另一种就在 check_code 里说明，"
                                 f"pairing=\"{other}\"。", _rope_with(other),
                seen=("https://github.com/huggingface/transformers/issues/25199",
                      "https://github.com/huggingface/transformers/issues/34741",
                      "https://github.com/NeuraLegion/shainet/pull/111", "https://github.com/jmaczan/tiny-vllm/pull/6")),
        Mistake("angle_layout", f"角度的排法和配对方式对不上：配对是 {said[pairing]}，每一对的两维要用同一个角度，"
                                f"角度要排成 {layout[pairing][1]}。", _rope_with(pairing, layout=wrong_layout),
                seen=("https://github.com/raiyanyahya/how-to-train-your-gpt/issues/6",
                      "https://github.com/karpathy/nanochat/issues/264")),
        Mistake("steps_of_d", "频率的指数走错了步长：θᵢ = base^(−2i/d)，i = 0 … d/2 − 1（np.arange(0, d, 2) / d），"
                              "你用的是 base^(−i/d)。", _rope_with(pairing, steps="i/d"),
                seen="https://github.com/rasbt/LLMs-from-scratch/issues/410"),
        Mistake("d_frequencies", "算了 d 个频率：d 维只有 d/2 对，每一对一个频率 θᵢ = base^(−2i/d)，i = 0 … d/2 − 1"
                                 "（np.arange(0, d, 2) / d），再按配对方式铺到 d 维。", _rope_with(pairing, steps="d"),
                seen="https://github.com/rasbt/LLMs-from-scratch/issues/410"),
        Mistake("no_scaling", "没有用 config.rope_scaling：" + band + "rope_scaling 是 None（SmolLM2）时才用原始的 θᵢ。",
                _rope_with(pairing, bands="none"),
                seen=("https://github.com/huggingface/transformers/pull/32330",
                      "https://github.com/felafax/felafax/issues/59", "https://github.com/jmaczan/tiny-vllm/pull/1")),
        Mistake("bands_swapped", "缩放的两端反了：应是低频（波长长）的对变慢、高频的对不变。" + band,
                _rope_with(pairing, bands="swapped"), seen="https://github.com/Lightning-AI/litgpt/pull/1745"),
        # not named, as no public thread shows it: the middle band left out (kept or slowed whole); the
        # generic path answers it, and tests/support/grader_corpus.py keeps both as wrong versions
        Mistake("smooth_flipped", "平滑段的两个权重反了：s 越大越接近原来的 θᵢ。" + band,
                _rope_with(pairing, bands="smooth_flipped"),
                seen=("https://github.com/ml-explore/mlx-examples/pull/907",
                      "https://github.com/ml-explore/mlx-swift-examples/issues/152")),
        Mistake("smooth_by_wavelength", "平滑段的 s 是按波长 λᵢ 线性插的：两端对了，中间不对。s 要按 L/λᵢ 线性变化。" + band,
                _rope_with(pairing, bands="smooth_by_wavelength"),
                seen=("https://github.com/ml-explore/mlx-examples/pull/907",
                      "https://github.com/ml-explore/mlx-swift-examples/issues/152",
                      "https://github.com/ml-explore/mlx-swift-examples/pull/154")),
        *(Mistake(f"fixed_{field}", f"用了写死的 {field} = {getattr(LLAMA_3_1_ROPE, field):g}（Llama-3.1 的值）："
                                    f"要从配置里读，config.rope_scaling.{field}，不同的模型不一样。",
                  _rope_with(pairing, fixed=field), seen=seen)
          for field, seen in (("original_max_position_embeddings", written_in), ("low_freq_factor", written_in),
                              ("high_freq_factor", written_in),
                              ("factor", ("https://github.com/pytorch/executorch/issues/7265", *written_in)))),
        Mistake("sin_cos_swapped", "sin 和 cos 用反了：每一对 (x₁, x₂) 转成 (x₁·cos − x₂·sin, x₂·cos + x₁·sin)，"
                                   "位置 0（角度 0）时应该原样不动。", _rope_with(pairing, turn="swapped"),
                seen=("https://github.com/Haskell-Things/ImplicitCAD/pull/72", "https://github.com/stackgl/gl-vec3/pull/8")),
        Mistake("turned_backwards", "转的方向反了（sin 前的符号）：每一对 (x₁, x₂) 转成 (x₁·cos − x₂·sin, x₂·cos + x₁·sin)，"
                                    "即 x·cos + rotate_half(x)·sin，rotate_half(x) 是 (−x₂, x₁)。", _rope_with(pairing, turn="backwards"),
                seen="https://github.com/karpathy/nanochat/pull/489"),
        Mistake("base_10000", "底数 base 用了 10000：要从配置里读，base = config.rope_theta（Llama-3.1 是 500000，SmolLM2 是 100000）。",
                _rope_with(pairing, theta=10000.0),
                seen=("https://github.com/lyogavin/airllm/pull/369", "https://github.com/sgl-project/SpecForge/issues/265")),
        Mistake("positions_from_1", "位置多加了 1：第一个 token 是位置 0，直接用传进来的 positions。",
                _rope_with(pairing, shift=1),
                seen=("https://github.com/PrimeIntellect-ai/prime-rl/pull/1545",
                      "https://github.com/huggingface/transformers/issues/36856")),
        Mistake("ignores_positions", "没有用传进来的 positions，而是用了 0, 1, 2, …：位置不一定从 0 开始"
                                     "（KV Cache 里新 token 的位置是前面的 token 数）。", _rope_with(pairing, own_positions=True),
                seen="https://github.com/NVIDIA/Megatron-LM/issues/453"),
        # named only when float32 angles reproduce the learner's output on every case (float32 rounding of
        # the rest is within the float32 tolerance such an answer is judged at)
        Mistake("float32_angles", "角度是用 float32 算的：位置到 10⁵ 时 positions × θ 有几万弧度，float32 只有约 7 位有效数字，"
                                  "角度差到千分之几弧度，cos、sin 就跟着错——这不是公式写错了。positions × θ 和 cos、sin "
                                  "用 float64 算；要 float32 的结果，最后再 .astype(np.float32)。",
                _rope_with(pairing, angle_dtype=np.float32),
                seen="https://github.com/kekzl/imp/pull/1325"),
    )


ROPE_SOLUTION = '''\
import numpy as np


def rope(x, positions, config):
    """x: (n, d) 或 (n, 头数, d)；positions: n 个位置；config: 模型配置。配对 (i, i + d/2)。"""
    x = np.asarray(x, dtype=float)
    d = x.shape[-1]
    inv_freq = config.rope_theta ** (-np.arange(0, d, 2) / d)      # d/2 个频率 θᵢ
    s = config.rope_scaling
    if s is not None:                                               # Llama-3.1 的三段缩放
        wavelength = 2 * np.pi / inv_freq
        L = s.original_max_position_embeddings
        smooth = (L / wavelength - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor)
        blended = (1 - smooth) * inv_freq / s.factor + smooth * inv_freq
        inv_freq = np.where(wavelength < L / s.high_freq_factor, inv_freq,
                            np.where(wavelength > L / s.low_freq_factor, inv_freq / s.factor, blended))
    angles = np.outer(positions, inv_freq)                          # (n, d/2)
    angles = np.concatenate([angles, angles], axis=-1)              # 第 i 维和第 i + d/2 维同一个角度
    if x.ndim == 3:
        angles = angles[:, None, :]                                 # 每个头转同样的角度
    half = d // 2
    partner = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)   # rotate_half
    return x * np.cos(angles) + partner * np.sin(angles)
'''


def _rope_exercise(pairing, choices=None):
    title = {"halves": "自己写 RoPE（带 Llama-3.1 的缩放）", "interleaved": "自己写 RoPE（带 Llama-3.1 的缩放，相邻配对）"}
    return CodeExercise(title[pairing], "rope(x, positions, config)", ("x", "positions", "config"), ("旋转后的 x",),
                        _rope_cases, _rope_reference(pairing), _rope_mistakes(pairing), ROPE_SOLUTION,
                        returns="返回一个数组：转过之后的 x，形状和 x 一样",
                        forbidden=("helpers.layer.apply_rope", "helpers.layer.rope_angles", "helpers.layer.rope_inv_freq",
                                   "helpers.layer.rope_wavelengths", "helpers.layer.rotate_half",
                                   "helpers.layer.rope_scores"),
                        forbidden_hint="这道题练的就是 RoPE 本身：频率、缩放和配对都要自己写，只用 numpy。",
                        choices=choices or {})


ROPE_INTERLEAVED = _rope_exercise("interleaved")
CODE_EXERCISES["06-4"] = _rope_exercise("halves", {"pairing": {"halves": None, "interleaved": ROPE_INTERLEAVED}})
