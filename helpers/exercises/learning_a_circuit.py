"""``11_learning_a_circuit``: its self-checking exercises, in the vocabulary of :mod:`helpers.grading.answers`.

``"11-1"`` (predict, then run): does a larger learning rate bring the drop earlier or later — the
stored sweep's drop starts per learning rate (medians over the seeds); ``"11-2"`` (read a pattern):
where the layer-1 induction head looks from a second-copy query of the shown sequence whose token
occurs several times before, at the end of the drop — it follows a later occurrence, not the aligned
target, so the answer needs the pattern, not the formula;
``"11-3"`` (work it out): the fixed variant's first predictable query and its induction target.
Each solve function computes the expected answer from the stored runs or the task at check time.
"""
from __future__ import annotations

import functools

import numpy as np

from ..circuit import history, sweep
from ..circuit.model import MAX_HEADS, Config, Model, forward
from ..circuit.task import Task
from ..grading.answers import Choice, Exercise, Number, Numbers
from ..grading.code_exercise import NOT_JUDGED, Case, CodeExercise, Mistake
from ..render.threads import with_one_blas_thread

EARLIER, LATER, SAME = "更早", "更晚", "差不多"
LR_VARIANTS = (("lr_low", "1e-3"), ("two_layers", "3e-3"), ("lr_high", "1e-2"))
#: exercise 2: the query ``second + OFFSET`` of the shown sequence (its token 24 occurs three times before)
OFFSET = 4


def drop_starts() -> dict:
    """``{learning rate label: [drop start per seed]}`` from the stored sweep."""
    return {label: [s.drop[0] for s in sweep.table(variant)] for variant, label in LR_VARIANTS}


def _drop_earlier(**_):
    starts = drop_starts()
    high, base = np.median(starts["1e-2"]), np.median(starts["3e-3"])
    answer = EARLIER if high < base else LATER if high > base else SAME
    lines = "\n".join(f"学习率 {lr}：骤降开始于第 " + "、".join(str(s) for s in st) + " 步"
                      f"（中位数 {np.median(st):.0f}）" for lr, st in starts.items())
    return answer, lines + "\n在这三种学习率、这几个种子上，步子越大，骤降来得越早。"


def induction_look(offset: int = OFFSET) -> dict:
    """Exercise 2: the query ``second + offset`` of the shown sequence at the end of the drop, the
    layer-1 head with the higher induction score there, the key it weights most and its target."""
    h, seq = history.load(), history.shown_sequence()
    run = sweep.table("two_layers")[0]
    step = run.drop[1]
    i = h.index(step)
    head = int(np.argmax(h.induction[i][1]))
    query = int(seq.second[0]) + offset
    row = h.patterns[i][1, head, query]
    key = int(np.argmax(row))
    tokens = seq.tokens[0]
    return {"step": step, "head": head, "query": query, "key": key, "weight": float(row.max()),
            "target": int(seq.first[0]) + offset + 1, "token": int(tokens[query]),
            "earlier": [int(t) for t in np.flatnonzero(tokens[:query] == tokens[query])]}


def _induction_look(**_):
    r = induction_look()
    where = "、".join(str(t) for t in r["earlier"])
    return r["key"], (f"第 {r['step']} 步，第 1 层归纳分数较高的是头 {r['head']}；查询位置 {r['query']}"
                      f"（second + {OFFSET}，token {r['token']:02d}）权重最大的键是位置 {r['key']}"
                      f"（权重 {r['weight']:.2f}）。\ntoken {r['token']:02d} 在前面的位置 {where} 都出现过；"
                      f"白圈（对齐的目标 first + {OFFSET} + 1 = {r['target']}）跟在位置 {r['target'] - 1} 后面，"
                      f"而这个头跟的是位置 {r['key'] - 1} 那一次，所以抄错了。")


def _fixed_target(**_):
    task = Task(fixed=True)
    query, key = task.fixed_second, task.fixed_first + 1
    return [query, key], (f"（位置从 0 数起。）固定版本：第一遍从 {task.fixed_first} 开始，第二遍从 {task.fixed_second} 开始，"
                          f"重复 {task.max_repeat} 个。查询 second + 0 = {query}，它的 token 上次出现在 "
                          f"first + 0 = {task.fixed_first}，目标是后一个位置 {key}。每条序列都一样，"
                          f"所以“往前 {query - key} 个位置”这条位置规则就够了。")


EXERCISES = {
    "11-1": Exercise("学习率从 3e-3 换成 1e-2，骤降来得更早、更晚，还是差不多？",
                     Choice((EARLIER, LATER, SAME), {"早": EARLIER, "earlier": EARLIER, "晚": LATER, "later": LATER,
                                                      "一样": SAME, "same": SAME}), _drop_earlier),
    "11-2": Exercise(f"第 1 层归纳头在查询 second + {OFFSET} 上权重最大的位置（读图差一格也算对）",
                     Number(0, slack=1), _induction_look),
    "11-3": Exercise("固定版本：第一个可预测的查询位置，和归纳头在那里该看的位置",
                     Numbers(("查询位置", "目标位置"), 0), _fixed_target),
}

REFERENCES: dict = {}


# ---- 11-4: an induction head built by hand (a code exercise, checked by helpers.grading.code_check) ----
# What it asserts: weights W_pos, W_Q, W_K, W_V, W_O for 11's two-layer attention-only model (positions
# in queries and keys only), around a given embedding W_E and unembedding W_U, that predict the
# repeated half of 1,000 random sequences: ≥ 99 % top-1 on the predictable entries. The sequences draw
# the repeated segment's length and start anew each time (a rule by position cannot find the target)
# and make the segment's tokens distinct from each other and from what precedes them (the earlier
# occurrence is unique: a perfect induction head can be right every time). Proof cases: three
# vocabularies and lengths (the weights must follow the sizes, not be written for one).
#: sequences per case; at least 1,000 predictable entries each
INDUCTION_SEQUENCES = 1000
#: the lesson's layout: token t at dimension t, the logit of t read from dimension 2·vocab + t
INDUCTION_SIZES = ((8, 12), (10, 16), (12, 20))


def induction_embedding(vocab: int, length: int) -> tuple:
    """``(W_E, W_U)`` of 11-4: ``d_model = 3·vocab + length``; token ``t`` is dimension ``t`` of the
    stream, the logit of ``t`` reads dimension ``2·vocab + t``; the rest is free for the learner."""
    d = 3 * vocab + length
    w_e, w_u = np.zeros((vocab, d)), np.zeros((d, vocab))
    w_e[np.arange(vocab), np.arange(vocab)] = 1.0
    w_u[2 * vocab + np.arange(vocab), np.arange(vocab)] = 1.0
    return w_e, w_u


def repeated_sequences(vocab: int, length: int, count: int, seed: int, *, fixed: bool = False) -> tuple:
    """``(tokens (count, length), first, second, repeat)`` per sequence: ``first ≥ 1`` filler tokens, a
    segment of ``repeat`` tokens, the segment again, random tokens after it; the filler and the segment
    are distinct tokens. ``fixed``: every sequence starts its segment at 1 with the longest repeat."""
    rng = np.random.default_rng([seed, vocab, length, int(fixed)])
    longest = min(vocab - 1, (length - 1) // 2)
    tokens = rng.integers(0, vocab, size=(count, length))
    first, repeat = np.ones(count, int), np.full(count, longest)
    for row in range(count):
        if not fixed:
            repeat[row] = rng.integers(3, longest + 1)
            first[row] = rng.integers(1, min(length - 2 * repeat[row], vocab - repeat[row]) + 1)
        f, r = first[row], repeat[row]
        head = rng.permutation(vocab)[:f + r]
        tokens[row, :f + r] = head
        tokens[row, f + r:f + 2 * r] = head[f:]
    return tokens, first, first + repeat, repeat


def _induction_cases():
    return [Case(f"词表 {v}、长度 {n}、d_model = 3 × {v} + {n} = {3 * v + n}；{INDUCTION_SEQUENCES} 条随机重复序列",
                 (*induction_embedding(v, n), n)) for v, n in INDUCTION_SIZES]


def _induction_model(params, w_e, w_u, length):
    """The learner's weights around the given embedding as a :class:`helpers.circuit.Model`."""
    if not isinstance(params, dict):
        raise TypeError(f"应返回一个字典 {{'W_pos': …, 'W_Q': …, 'W_K': …, 'W_V': …, 'W_O': …}}，"
                        f"收到的是 {type(params).__name__}")
    missing = [k for k in ("W_pos", "W_Q", "W_K", "W_V", "W_O") if k not in params]
    if missing:
        raise KeyError(f"字典里缺了 {missing}")
    w_q = np.asarray(params["W_Q"])
    if w_q.ndim != 4 or w_q.shape[0] != 2:
        raise ValueError(f"W_Q 的形状应是 (2 层, 头数, d_model, d_head)，收到的是 {w_q.shape}")
    vocab, d_model = w_e.shape
    heads = w_q.shape[1]
    if not 1 <= heads <= MAX_HEADS or d_model % heads:
        raise ValueError(f"头数（W_Q.shape[1]）要在 1 到 {MAX_HEADS} 之间，并且整除 d_model = {d_model}，收到的是 {heads}")
    config = Config(vocab=vocab, length=length, d_model=d_model, heads=heads, layers=2, positions="qk")
    for name, shape in config.shapes().items():
        if name in params:
            value = np.asarray(params[name])
            if value.shape != shape:
                raise ValueError(f"{name} 的形状应是 {shape}（{heads} 个头，d_head = {config.d_head}），收到的是 {value.shape}")
            if not np.issubdtype(value.dtype, np.number) or np.issubdtype(value.dtype, np.complexfloating):
                raise ValueError(f"{name} 要是实数数组，收到的是 {value.dtype}")
            if not np.all(np.isfinite(value)) or np.abs(value).max(initial=0.0) > MAX_WEIGHT:
                raise ValueError(f"{name} 里有 NaN、inf 或绝对值大于 {MAX_WEIGHT:.0e} 的数：分数会溢出")
    return Model(config, {"W_E": w_e, "W_U": w_u, **{k: np.asarray(params[k], dtype=float)
                                                     for k in ("W_pos", "W_Q", "W_K", "W_V", "W_O")}})


#: the largest weight 11-4 accepts: past it the scores overflow float64 (a gain of 20·√d is about 200)
MAX_WEIGHT = 1e6


def _head_outputs(cache, layer, rows, cols):
    """What each head of ``layer`` adds to the stream at the entries ``(rows, cols)``: ``(entries, heads, D)``."""
    return np.einsum("ehd,hdD->ehD", cache.z[layer][rows, :, cols], cache.params["W_O"][layer])


@functools.lru_cache(maxsize=8)
def _graded_sequences(vocab: int, length: int) -> tuple:
    """The sequences 11-4 is judged on, drawn once per size: the random ones followed by the fixed ones,
    the random ones' predictable entries ``(rows, cols)`` and induction targets, and the fixed ones'
    second start and repeat. Read-only: the cache hands the same arrays to every check."""
    tokens, first, second, repeat = repeated_sequences(vocab, length, INDUCTION_SEQUENCES, seed=11)
    fixed_tokens, _, f_second, f_repeat = repeated_sequences(vocab, length, 200, seed=11, fixed=True)
    rows = np.concatenate([np.full(r - 1, i) for i, r in enumerate(repeat)])
    cols = np.concatenate([np.arange(s, s + r - 1) for s, r in zip(second, repeat)])
    targets = np.concatenate([np.arange(f + 1, f + r) for f, r in zip(first, repeat)])
    arrays = (np.concatenate([tokens, fixed_tokens]), rows, cols, targets)
    for a in arrays:
        a.flags.writeable = False
    return (*arrays, int(f_second[0]), int(f_repeat[0]))


@with_one_blas_thread  # 1,200 sequences of small products: two threads on a busy 2-core machine wait for each other
def induction_measure(params, w_e, w_u, length) -> tuple:
    """What 11-4 judges, on :data:`INDUCTION_SEQUENCES` sequences: top-1 accuracy on the predictable
    entries — and, for the diagnosis only, where the working head of each layer looks (layer 0: one and
    two back; layer 1: itself and the induction target), how often layer 1's head raises the logit of
    the token it attends to most, the accuracy when every sequence repeats at the same offset (200 more
    sequences), and how sharp the flatter layer's working head is (its largest weight per query, averaged)."""
    model = _induction_model(params, w_e, w_u, length)
    tokens, rows, cols, targets, s, r = _graded_sequences(w_e.shape[0], length)
    cache = forward(model, tokens)                             # the random sequences, then the fixed ones
    fixed_logits, fixed_tokens = cache.logits[INDUCTION_SEQUENCES:], tokens[INDUCTION_SEQUENCES:]
    accuracy = float(np.mean(cache.logits[rows, cols].argmax(-1) == tokens[rows, cols + 1]))
    fixed = float(np.mean(fixed_logits[:, s:s + r - 1].argmax(-1) == fixed_tokens[:, s + 1:s + r]))
    outs = [_head_outputs(cache, layer, rows, cols) for layer in (0, 1)]
    h0, h1 = (int(np.argmax(np.linalg.norm(o, axis=-1).mean(axis=0))) for o in outs)  # each layer's working head
    w0 = cache.weights[0][:INDUCTION_SEQUENCES, h0]
    prev1 = float(np.mean(w0[:, np.arange(1, length), np.arange(length - 1)]))
    prev2 = float(np.mean(w0[:, np.arange(2, length), np.arange(length - 2)]))
    w1 = cache.weights[1][rows, h1, cols]                     # (entries, keys)
    looked = w1.argmax(-1)
    copies = float(np.mean((outs[1][:, h1] @ w_u).argmax(-1) == tokens[rows, looked]))  # that head's own logits
    sharpest = min(float(w0.max(-1).mean()), float(w1.max(-1).mean()))
    entries = np.arange(len(cols))
    queries = np.arange(1, length)
    written = outs[0].sum(axis=1)                                              # layer 0's whole output, (entries, D)
    embedded = w_e[tokens[rows, cols]]                                         # the tokens themselves
    in_tokens = written @ np.linalg.pinv(w_e) @ w_e                            # its part in the embedding's dimensions
    w_q1, w_k1 = (model.params[k][1, h1] for k in ("W_Q", "W_K"))
    reads = [float(np.linalg.norm(x @ w)) for x in (written, embedded) for w in (w_q1, w_k1)]  # qp, kp, qt, kt
    weights = [np.asarray(params[k], dtype=float) for k in ("W_Q", "W_K", "W_V", "W_O")]
    diagnosis = (prev1, prev2, float(np.mean(w1[entries, cols])), float(np.mean(w1[entries, targets])), copies,
                 fixed, sharpest,
                 float(np.mean(w0[:, queries, queries])),                                  # layer 0 looks at i
                 float(np.linalg.norm(written, axis=-1).mean()),                           # layer 0 writes anything
                 float(np.sum(in_tokens ** 2) / max(np.sum(written ** 2), 1e-300)),       # … into the token dims
                 float(np.mean(w0[:, queries].argmax(-1) == queries - 1)),                 # layer 0's argmax at i − 1
                 float(np.mean(looked == targets)),                                         # layer 1's argmax on target
                 reads[0] / max(reads[0] + reads[2], 1e-300),                               # layer-1 query reads layer 0
                 reads[3] / max(reads[1] + reads[3], 1e-300),                               # layer-1 key reads the token
                 float(sum(np.count_nonzero(w) for w in weights)))                         # anything at all
    return (accuracy, *np.nan_to_num(diagnosis))


def _induction_reference(w_e, w_u, length, scale=20.0):
    """One-hot subspaces: token ``[0, V)``, previous token ``[V, 2V)``, output ``[2V, 3V)`` (where W_U
    reads), positions ``[3V, 3V + n)`` (queries and keys only); one head per layer."""
    vocab, d = w_e.shape
    tok, prev, pos = np.arange(vocab), vocab + np.arange(vocab), 3 * vocab + np.arange(length)
    out = w_u.argmax(axis=0)                                   # the dimension the logit of each token reads
    w = {k: np.zeros((2, 1, d, d)) for k in ("W_Q", "W_K", "W_V", "W_O")}
    w["W_pos"] = np.zeros((length, d))
    w["W_pos"][np.arange(length), pos] = 1.0
    sharp = scale * np.sqrt(d)                                 # scores 20 apart after the 1/√d_head
    # layer 0: the query at position i matches the key at i − 1; it copies that token into "prev"
    w["W_Q"][0, 0, pos[1:], np.arange(length - 1)] = sharp
    w["W_K"][0, 0, pos[:-1], np.arange(length - 1)] = 1.0
    w["W_V"][0, 0, tok, tok] = 1.0
    w["W_O"][0, 0, tok, prev] = 1.0
    # layer 1: query = current token, key = the token before the key (K-composition), value = its token
    w["W_Q"][1, 0, tok, tok] = sharp
    w["W_K"][1, 0, prev, tok] = 1.0
    w["W_V"][1, 0, tok, tok] = 1.0
    w["W_O"][1, 0, tok, out] = 1.0
    return w


def _induction_mistakes():
    """The usual mistakes in building an induction head, recognised from what the weights do (the
    diagnosis outputs of :func:`induction_measure`); the weights that make each are in the grader's
    corpus of learners' answers."""
    (acc, prev1, prev2, self1, target1, copies, fixed, sharpest, self0, wrote0, in_tok0, arg0, arg1, q_reads0,
     k_reads_tok, nonzero) = range(16)
    def l0_off(got):  # layer 0 does not look at i − 1, not even most
        return got[prev1] < 0.5 and got[arg0] < 0.9

    return (
        Mistake("all_zero", "返回的 W_Q、W_K、W_V、W_O 全是零：两层都什么也没做，每个位置的 logit 都一样。"
                            "照题目的四步把几个位置填上数。", test=lambda case, got, exp: got[nonzero] == 0,
                seen=("https://transformer-circuits.pub/2021/exercises/index.html",)),
        Mistake("two_back", "第 0 层的头看的是前两个位置（i − 2），不是前一个（i − 1）：位置的查询 i 要和键 i − 1 对上。"
                            "这样第 1 层找到的是“前两个 token 是我”的位置，抄来的就错了一格。",
                test=lambda case, got, exp: got[prev2] > 0.5,
                seen=("https://transformer-circuits.pub/2021/exercises/index.html", "Elhage et al. 2021, A Mathematical Framework for Transformer Circuits (previous-token head)")),
        Mistake("l0_self", "第 0 层的头看的是查询自己（位置 i），不是前一个位置 i − 1：位置的查询 i 要和键 i − 1 对上"
                           "（W_Q 读位置 i 的那一维，W_K 读位置 i − 1 的那一维，写到同一个 d_head 分量上）。"
                           "第 0 层错了，第 1 层的键读到的“前一个 token”其实是当前 token，所以它也会看自己。",
                test=lambda case, got, exp: l0_off(got) and got[self0] > 0.5,
                seen=("https://transformer-circuits.pub/2021/exercises/index.html",)),
        Mistake("l0_not_prev", "第 0 层的头没有看前一个位置 i − 1（它最看重的位置多数不是 i − 1）：它要按位置找，查询的位置 i "
                               "对上键的位置 i − 1。位置只能从 W_pos 进来：W_pos 把每个位置放进自己的一维，W_Q、W_K 读这些维。",
                test=lambda case, got, exp: l0_off(got),
                seen=("Elhage et al. 2021, A Mathematical Framework for Transformer Circuits (previous-token head)",)),
        Mistake("l0_silent", "第 0 层的头看对了 i − 1，但什么也没写出来（它的 W_V 或 W_O 是零）：要把被看位置的 token "
                             "抄进残差流空着的维度，第 1 层的键才读得到“前一个 token”。",
                test=lambda case, got, exp: got[wrote0] < 1e-6,
                seen=("Elhage et al. 2021, A Mathematical Framework for Transformer Circuits (OV circuit)",)),
        Mistake("l0_into_tokens", "第 0 层把前一个 token 写进了 W_E 用的那几维，和当前 token 混在了一起：第 1 层分不出"
                                  "哪个是当前的、哪个是前一个。要写进 W_E 没用的维度（比如 V … 2V − 1）。",
                test=lambda case, got, exp: got[in_tok0] > 0.5,
                seen=("Elhage et al. 2021, A Mathematical Framework for Transformer Circuits (residual stream subspaces)",)),
        Mistake("positional", "只在重复段的起点和长度固定时才对：第 1 层按位置往回看固定的距离，而这里每条序列的重复段"
                              "长度和起点都是随机的。要按内容找：查询的当前 token 和键的“前一个 token”相同（笔记本 11 的"
                              "位置上限）。",
                # what it names, tested: right when the offsets are fixed, and layer 1 not following content
                # (its strongest key is the induction target on under 90 % of the random sequences' entries)
                test=lambda case, got, exp: got[fixed] >= 0.9 and got[acc] < 0.99 and got[arg1] < 0.9,
                seen=("https://transformer-circuits.pub/2021/exercises/index.html", "Olsson et al. 2022, In-context Learning and Induction Heads (repeated random tokens)")),
        Mistake("self_attend", "第 1 层的头主要看的是查询自己（和同一个 token 上次出现的位置）：它的键读的是当前 token，"
                               "和查询一样。键要读第 0 层写进来的“前一个 token”（K-组合），查询读当前 token："
                               "找的是“前一个 token 和我一样”的位置。",
                test=lambda case, got, exp: got[self1] >= 0.4 and got[k_reads_tok] > 0.5,
                seen=("https://transformer-circuits.pub/2021/exercises/index.html", "Olsson et al. 2022, In-context Learning and Induction Heads (the K-composition mechanism)")),
        Mistake("query_prev", "第 1 层的查询读的是第 0 层写进来的“前一个 token”：查询要读当前 token，键才读“前一个 token”"
                              "（K-组合），找的是“前一个 token 和我的当前 token 一样”的位置。",
                test=lambda case, got, exp: got[arg1] < 0.9 and got[q_reads0] > 0.5,
                seen=("Olsson et al. 2022, In-context Learning and Induction Heads (the K-composition mechanism)",)),
        Mistake("no_copy", "第 1 层的头看对了位置（归纳目标），但它写出的不是那个位置的 token：OV 不是拷贝，"
                           "被看的 token 的 logit 没有升高。W_V 要读被看位置的当前 token，W_O 要写到 W_U 读出"
                           "这个 token 的方向（W_U 里 logit t 读的那一维）。",
                test=lambda case, got, exp: got[target1] > 0.5 and got[copies] < 0.5,
                seen=("Elhage et al. 2021, A Mathematical Framework for Transformer Circuits (OV copying circuit)",)),
        Mistake("soft", "注意力太平了：第 0 层最看重的位置是对的（i − 1），但至少有一层平均连它看得最多的位置也分不到一半的权重。"
                        "分数只差 1 左右时 softmax 分得很散；把 W_Q（或 W_K）乘一个大的系数（比如 20·√d_head），"
                        "分数的差就大到 softmax 几乎只选一个位置。",
                # scaling helps where the patterns point the right way; a soft layer 0 blurs what layer 1's key reads
                test=lambda case, got, exp: got[sharpest] < 0.5 and got[arg0] >= 0.9 and (got[arg1] >= 0.9 or got[prev1] < 0.5),
                seen=("Elhage et al. 2021, A Mathematical Framework for Transformer Circuits (attention sharpness)",)),
        Mistake("other", "准确率不够：用 helpers.circuit.forward(模型, tokens) 看两层的注意力模式（cache.weights），"
                         "先确认第 0 层看 i − 1、第 1 层看归纳目标，再看第 1 层写出的 logit（cache.head_outputs(1) @ W_U）。",
                test=lambda case, got, exp: True,
                seen=("Olsson et al. 2022, In-context Learning and Induction Heads",)),
    )


INDUCTION_SOLUTION = '''\
import numpy as np


def induction_weights(W_E, W_U, length):
    """两层、每层一个头：第 0 层把前一个 token 抄进“前一个”子空间，第 1 层用它找上次的位置并抄下一个 token。"""
    V, D = W_E.shape                                   # D = 3V + length
    tok = np.arange(V)                                 # 当前 token：第 t 维（W_E 的布局）
    prev = V + np.arange(V)                            # 前一个 token：空着的 V … 2V − 1 维
    out = W_U.argmax(axis=0)                           # logit t 读的那一维（2V + t）
    pos = 3 * V + np.arange(length)                    # 位置：最后 length 维（只进查询和键）
    W_pos = np.zeros((length, D))
    W_pos[np.arange(length), pos] = 1.0
    W_Q, W_K, W_V = (np.zeros((2, 1, D, D)) for _ in range(3))
    W_O = np.zeros((2, 1, D, D))
    big = 20 * np.sqrt(D)                              # 除以 √d_head 之后分数差 20：softmax 几乎只选一个
    W_Q[0, 0, pos[1:], np.arange(length - 1)] = big   # 第 0 层：查询位置 i …
    W_K[0, 0, pos[:-1], np.arange(length - 1)] = 1.0  # … 对上键位置 i − 1
    W_V[0, 0, tok, tok] = 1.0
    W_O[0, 0, tok, prev] = 1.0                         # 把那个 token 写进“前一个”子空间
    W_Q[1, 0, tok, tok] = big                          # 第 1 层：查询读当前 token …
    W_K[1, 0, prev, tok] = 1.0                         # … 键读“前一个 token”（K-composition）
    W_V[1, 0, tok, tok] = 1.0                          # 值读被看位置的当前 token …
    W_O[1, 0, tok, out] = 1.0                          # … 写到 W_U 读它的那一维：拷贝
    return {"W_pos": W_pos, "W_Q": W_Q, "W_K": W_K, "W_V": W_V, "W_O": W_O}
'''

CODE_EXERCISES = {
    "11-4": CodeExercise(
        "亲手搭一个归纳头：第 0 层看前一个 token，第 1 层用 K-composition 找上次的位置并拷贝",
        "induction_weights(W_E, W_U, length)", ("W_E", "W_U", "length"),
        ("可预测位置上的 top-1 准确率", "诊断：第 0 层看 i − 1", "诊断：第 0 层看 i − 2", "诊断：第 1 层看自己",
         "诊断：第 1 层看归纳目标", "诊断：第 1 层拷贝被看的 token", "诊断：固定起点和长度时的准确率",
         "诊断：两层里较平的那层的最大权重", "诊断：第 0 层看自己", "诊断：第 0 层写出的大小",
         "诊断：第 0 层写进 token 维度的比例", "诊断：第 0 层最看重 i − 1", "诊断：第 1 层最看重归纳目标",
         "诊断：第 1 层的查询读第 0 层的比例", "诊断：第 1 层的键读当前 token 的比例", "诊断：非零权重的个数"),
        _induction_cases, _induction_reference, _induction_mistakes(), INDUCTION_SOLUTION,
        # 99 % of ≥ 1,000 predictable entries: the reference is right on every one (accuracy 1.0)
        rtol=0.0, atol=0.01, output_tolerances=((0.0, 0.01),) + ((0.0, NOT_JUDGED),) * 15, measure=induction_measure,
        returns="返回一个字典：{'W_pos': …, 'W_Q': …, 'W_K': …, 'W_V': …, 'W_O': …}，形状见题目",
        forbidden=("helpers.circuit.trainer.train", "helpers.circuit.history.load",
                   "helpers.exercises.learning_a_circuit._induction_reference"),
        forbidden_hint="这道题不训练，不读存好的模型，也不调用判分的参考答案：每个矩阵都自己写出来"
                       "（np.zeros 再填几个位置就够了）。"),
}
