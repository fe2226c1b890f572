"""Learners' versions of every code exercise, written independently of the exercises' own lists of
known mistakes: for each exercise, wrong versions (each with the diagnoses that would be *true* of
it) and right versions written differently from the solution (loops, float32, log-sum-exp, einsum).
Used by tests/series/test_grader_mutations.py, and runnable against any checkout to count wrong
accepted / right rejected / untrue hints."""
import dataclasses
import math

import numpy as np

#: diagnoses that name no mistake: always true of a wrong function (they show the first differing row)
#: (``constant``: the same number on every case, a fact about the output; ``small_difference``: a
#: difference above the tolerance but within float32's, also a fact)
GENERIC = frozenset({"values", "shape", "nonfinite", "error", "unreadable", "timeout", "constant", "small_difference"})


def _rows_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _causal(n):
    return np.triu(np.ones((n, n), dtype=bool), k=1)


def _attn(q, k, v, scale=None, fill=-np.inf):
    s = q @ k.T / (np.sqrt(q.shape[-1]) if scale is None else scale)
    w = _rows_softmax(np.where(_causal(len(q)), fill, s))
    return w @ v, w


# ---- 03-3 softmax ------------------------------------------------------------------------------------
def _sm_loops(x):
    x = np.asarray(x, dtype=float)
    flat = x.reshape(-1, x.shape[-1])
    out = np.empty_like(flat)
    for r, row in enumerate(flat):
        top = max(row)
        exps = [math.exp(v - top) for v in row]
        total = sum(exps)
        out[r] = [e / total for e in exps]
    return out.reshape(x.shape)


def _sm_float32(x):
    x = np.asarray(x, dtype=np.float32)
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def _sm_logsumexp(x):
    m = np.max(x, axis=-1, keepdims=True)
    return np.exp(x - (m + np.log(np.exp(x - m).sum(axis=-1, keepdims=True))))


def _sm_einsum(x):
    e = np.exp(x - x.max(axis=-1)[..., None])
    return e / np.einsum("...j->...", e)[..., None]


def _sm_in_place(x):
    x -= x.max(axis=-1, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(axis=-1, keepdims=True)
    return x


SOFTMAX_RIGHT = [_sm_loops, _sm_float32, _sm_logsumexp, _sm_einsum]
SOFTMAX_WRONG = [
    ("global sum, no shift", lambda x: np.exp(x) / np.exp(x).sum(), GENERIC),
    ("shifted numerator, unshifted sum",
     lambda x: np.exp(x - x.max(-1, keepdims=True)) / np.exp(x).sum(-1, keepdims=True), GENERIC),
    ("global max via np.max", lambda x: (lambda e: e / e.sum(-1, keepdims=True))(np.exp(x - np.max(x))),
     {"global_max"}),
    ("log-softmax returned",
     lambda x: x - x.max(-1, keepdims=True) - np.log(np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True)),
     GENERIC),
    ("divided by the row max", lambda x: np.exp(x - x.max(-1, keepdims=True)), GENERIC),
    ("sigmoid", lambda x: np.exp(x) / (1 + np.exp(x)), GENERIC),
    ("temperature 2", lambda x: _rows_softmax(x / 2), GENERIC),
    # ε in the denominator: relative error 1e-5 on a row summing to 1, ten times the float64 tolerance
    ("ε added to the sum", lambda x: (lambda e: e / (e.sum(-1, keepdims=True) + 1e-5))(np.exp(x - x.max(-1, keepdims=True))),
     GENERIC),
    ("float32 without the shift",
     lambda x: (lambda e: e / e.sum(-1, keepdims=True))(np.exp(np.asarray(x, dtype=np.float32))), GENERIC | {"no_max"}),
    ("one-hot argmax", lambda x: (x == x.max(-1, keepdims=True)).astype(float), GENERIC),
    ("apply_along_axis on axis 0",
     lambda x: np.apply_along_axis(lambda r: np.exp(r - r.max()) / np.exp(r - r.max()).sum(), 0, x), {"axis0"}),
    ("clipped instead of shifted", lambda x: (lambda e: e / e.sum(-1, keepdims=True))(np.exp(np.clip(x, -50, 50))),
     GENERIC),
    ("modifies x in place", _sm_in_place, {"mutation"}),
    ("row minimum via np.min", lambda x: (lambda e: e / e.sum(-1, keepdims=True))(np.exp(x - np.min(x, -1)[..., None])),
     GENERIC),
    ("row mean via np.mean",
     lambda x: (lambda e: e / e.sum(-1, keepdims=True))(np.exp(x - np.mean(x, axis=-1, keepdims=True))), GENERIC),
    ("first element via x[..., 0:1]",
     lambda x: (lambda e: e / e.sum(-1, keepdims=True))(np.exp(x - x[..., 0:1])), {"first_element"}),
    # named by no hint (no public thread makes them): rejected by the generic path
    ("no exponential", lambda x: x / x.sum(axis=-1, keepdims=True), GENERIC),
    ("row minimum, keepdims", lambda x: (lambda e: e / e.sum(-1, keepdims=True))(np.exp(x - x.min(-1, keepdims=True))),
     GENERIC),
    ("a complex result", lambda x: _rows_softmax(x) + 5j, {"complex"}),
    ("a float16 result", lambda x: _rows_softmax(x).astype(np.float16), {"float16"}),
]


# ---- 05-3 causal attention ---------------------------------------------------------------------------
def _at_loops(q, k, v):
    n, d = q.shape
    w = np.zeros((n, n))
    for i in range(n):
        s = [float(q[i] @ k[j]) / math.sqrt(d) for j in range(i + 1)]
        top = max(s)
        e = [math.exp(x - top) for x in s]
        w[i, : i + 1] = [x / sum(e) for x in e]
    return w @ v, w


def _at_einsum(q, k, v):
    s = np.einsum("id,jd->ij", q, k) / np.sqrt(q.shape[-1])
    w = _rows_softmax(np.where(_causal(len(q)), -1e30, s))
    return np.einsum("ij,jd->id", w, v), w


def _at_renormalised(q, k, v):
    s = q @ k.T / np.sqrt(q.shape[-1])
    s = s - np.where(_causal(len(q)), -np.inf, s).max(-1, keepdims=True)
    w = np.exp(np.minimum(s, 0)) * ~_causal(len(q))
    w = w / w.sum(-1, keepdims=True)
    return w @ v, w


def _at_float32(q, k, v):
    out, w = _attn(*(np.asarray(a, dtype=np.float32) for a in (q, k, v)))
    return out.astype(np.float32), w.astype(np.float32)


ATTENTION_RIGHT = [_at_loops, _at_einsum, _at_renormalised, _at_float32]
ATTENTION_WRONG = [
    ("mask multiplied into the scores",
     lambda q, k, v: (lambda w: (w @ v, w))(_rows_softmax(q @ k.T / np.sqrt(q.shape[-1]) * np.tril(np.ones((len(q),) * 2))))
     , {"zeroed_scores"}),
    ("k @ q.T via einsum",
     lambda q, k, v: (lambda w: (w @ v, w))(_rows_softmax(np.where(_causal(len(q)), -np.inf,
                                                                   np.einsum("id,jd->ij", k, q) / np.sqrt(q.shape[1])))),
     {"keys_first"}),
    ("scaled by √n", lambda q, k, v: _attn(q, k, v, scale=np.sqrt(len(q))), GENERIC),
    ("scaled by √d_v", lambda q, k, v: _attn(q, k, v, scale=np.sqrt(v.shape[1])), {"scale_by_dv"}),
    ("−1e9 added after softmax",
     lambda q, k, v: (lambda w: (w @ v, w))(_attn(q, k, v, fill=0.0)[1] * 0 + _rows_softmax(q @ k.T / np.sqrt(q.shape[1]))
                                            + np.where(_causal(len(q)), -1e9, 0.0)), GENERIC),
    ("tril k=-1 keeps (diagonal hidden)",
     lambda q, k, v: (lambda w: (w @ v, w))(_rows_softmax(np.where(np.tril(np.ones((len(q),) * 2), -1) > 0,
                                                                   q @ k.T / np.sqrt(q.shape[1]), -np.inf))),
     {"diagonal_hidden"}),
    ("weights @ v.T", lambda q, k, v: (lambda w: (w @ v.T, w))(_attn(q, k, v)[1]), GENERIC),
    ("one softmax over the whole matrix",
     lambda q, k, v: (lambda s: (lambda e: (e / e.sum() @ v, e / e.sum()))(np.exp(s - s.max())))(
         np.where(_causal(len(q)), -np.inf, q @ k.T / np.sqrt(q.shape[1]))), GENERIC),
    ("v @ weights", lambda q, k, v: (lambda w: (v @ w, w))(_attn(q, k, v)[1]), GENERIC),
    ("only the output returned", lambda q, k, v: _attn(q, k, v)[0], GENERIC),
    ("divided by √d twice", lambda q, k, v: _attn(q, k, v, scale=q.shape[1]), {"scale_by_d"}),
    ("no mask, no scale", lambda q, k, v: (lambda w: (w @ v, w))(_rows_softmax(q @ k.T)), GENERIC),
    ("weights zeroed after softmax, written with a product",
     lambda q, k, v: (lambda w: (w @ v, w))(_rows_softmax(q @ k.T / np.sqrt(q.shape[1])) * (1 - _causal(len(q)))),
     {"mask_zeroed_after"}),
    ("scaled by √(q.size)", lambda q, k, v: _attn(q, k, v, scale=np.sqrt(q.size)), GENERIC),
    # named by no hint (no public thread makes them): rejected by the generic path
    ("one future position visible (triu k=2)",
     lambda q, k, v: (lambda w: (w @ v, w))(_rows_softmax(np.where(np.triu(np.ones((len(q),) * 2), 2) > 0, -np.inf,
                                                                   q @ k.T / np.sqrt(q.shape[1])))), GENERIC),
    ("weights returned first", lambda q, k, v: _attn(q, k, v)[::-1], GENERIC),
    ("q @ k without the transpose",
     lambda q, k, v: (lambda w: (w @ v, w))(_rows_softmax(np.where(_causal(len(q)), -np.inf, q @ k / np.sqrt(q.shape[1])))),
     GENERIC),
]


# ---- 06-3 GQA ----------------------------------------------------------------------------------------
def _per_head(q, k, v, pick, scale=None, causal=True):
    n, heads, d = q.shape
    out = np.zeros((n, heads, v.shape[-1]))
    for h in range(heads):
        j = pick(h, heads, k.shape[1])
        s = q[:, h] @ k[:, j].T / (np.sqrt(d) if scale is None else scale)
        if causal:
            s = np.where(_causal(n), -np.inf, s)
        out[:, h] = _rows_softmax(s) @ v[:, j]
    return out


def _gqa_einsum(q, k, v):
    r = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, r, axis=1), np.repeat(v, r, axis=1)
    s = np.einsum("ihd,jhd->hij", q, k) / np.sqrt(q.shape[-1])
    w = _rows_softmax(np.where(_causal(len(q)), -np.inf, s))
    return np.einsum("hij,jhd->ihd", w, v)


def _gqa_grouped(q, k, v):
    n, heads, d = q.shape
    g = k.shape[1]
    qg = q.reshape(n, g, heads // g, d)
    s = np.einsum("igrd,jgd->grij", qg, k) / np.sqrt(d)
    w = _rows_softmax(np.where(_causal(n), -np.inf, s))
    return np.einsum("grij,jgd->igrd", w, v).reshape(n, heads, v.shape[-1])


def _gqa_float32(q, k, v):
    return _gqa_einsum(*(np.asarray(a, dtype=np.float32) for a in (q, k, v))).astype(np.float32)


GQA_RIGHT = [lambda q, k, v: _per_head(q, k, v, lambda h, H, G: h // (H // G)), _gqa_einsum, _gqa_grouped, _gqa_float32]
GQA_WRONG = [
    # inputs cast to float32, the result float64 (np.sqrt of an int is a float64 scalar): judged by the
    # dtype returned, so at float64, and told that the difference is small and where it may come from
    ("float32 inputs, float64 result", lambda q, k, v: _gqa_einsum(*(np.asarray(a, dtype=np.float32) for a in (q, k, v))),
     {"small_difference"}),
    ("KV heads concatenated r times", lambda q, k, v: _per_head(q, k, v, lambda h, H, G: h % G), {"tile"}),
    ("repeat along positions", lambda q, k, v: _per_head(np.asarray(q), np.repeat(k, q.shape[1] // k.shape[1], 0)[: len(q)],
                                                         np.repeat(v, q.shape[1] // k.shape[1], 0)[: len(q)],
                                                         lambda h, H, G: 0), GENERIC),
    ("no causal mask", lambda q, k, v: _per_head(q, k, v, lambda h, H, G: h // (H // G), causal=False), {"no_causal"}),
    ("no scale", lambda q, k, v: _per_head(q, k, v, lambda h, H, G: h // (H // G), scale=1.0), {"no_scale"}),
    ("every query head reads KV head 0", lambda q, k, v: _per_head(q, k, v, lambda h, H, G: 0), GENERIC),
    ("heads first in the result", lambda q, k, v: np.swapaxes(_gqa_einsum(q, k, v), 0, 1), {"heads_last"}),
    ("averaged over heads", lambda q, k, v: _gqa_einsum(q, k, v).mean(axis=1), GENERIC),
    ("scaled by √d_model", lambda q, k, v: _per_head(q, k, v, lambda h, H, G: h // (H // G),
                                                     scale=np.sqrt(q.shape[1] * q.shape[2])), {"scale_by_d_model"}),
    ("n_rep upside down", lambda q, k, v: _per_head(q, k, v, lambda h, H, G: h // max(G // H, 1)), GENERIC),
    ("scaled by d", lambda q, k, v: _per_head(q, k, v, lambda h, H, G: h // (H // G), scale=q.shape[2]), GENERIC),
    ("a float16 result", lambda q, k, v: _gqa_einsum(q, k, v).astype(np.float16), {"float16"}),
    ("KV head (h + 1) // n_rep", lambda q, k, v: _per_head(q, k, v, lambda h, H, G: min((h + 1) // (H // G), G - 1)),
     GENERIC),
    ("causal mask shifted by one", lambda q, k, v: (lambda n: np.einsum(
        "hij,jhd->ihd", _rows_softmax(np.where(np.triu(np.ones((n, n), dtype=bool), k=2), -np.inf,
                                               np.einsum("ihd,jhd->hij", q, np.repeat(k, q.shape[1] // k.shape[1], 1))
                                               / np.sqrt(q.shape[2]))),
        np.repeat(v, q.shape[1] // k.shape[1], 1)))(len(q)), GENERIC),
]


# ---- 07-3 online softmax step ------------------------------------------------------------------------
def _on_right(m, l, acc, s, v):
    m_new = max(m, float(np.max(s)))
    c = math.exp(m - m_new) if m != -math.inf else 0.0
    p = np.exp(s - m_new)
    return m_new, l * c + p.sum(), acc * c + v.T @ p


def _on_loops(m, l, acc, s, v):
    m_new = m
    for x in s:
        m_new = max(m_new, float(x))
    c = math.exp(m - m_new) if m > -math.inf else 0.0
    new_l, new_acc = l * c, [a * c for a in acc]
    for x, row in zip(s, v):
        p = math.exp(float(x) - m_new)
        new_l += p
        new_acc = [a + p * r for a, r in zip(new_acc, row)]
    return m_new, new_l, np.array(new_acc)


def _on_float32(m, l, acc, s, v):
    s, v, acc = (np.asarray(a, dtype=np.float32) for a in (s, v, acc))
    m_new = np.float32(max(m, s.max()))
    c = np.exp(np.float32(m) - m_new)
    p = np.exp(s - m_new)
    return m_new, np.float32(l) * c + p.sum(), acc * c + p @ v


def _on_maximum(m, l, acc, s, v):
    m_new = np.maximum(m, s).max()
    c = np.exp(m - m_new)
    p = np.exp(s - m_new)
    return m_new, l * c + np.sum(p), acc * c + np.einsum("b,bd->d", p, v)


ONLINE_RIGHT = [_on_right, _on_loops, _on_float32, _on_maximum]


def _on(m, l, acc, s, v, *, m_new=None, c=None, p=None, l_new=None, acc_new=None):
    m_new = max(m, s.max()) if m_new is None else m_new(m, s)
    c = np.exp(m - m_new) if c is None else c(m, m_new)
    p = np.exp(s - m_new) if p is None else p(s, m, m_new)
    l_new = l * c + p.sum() if l_new is None else l_new(l, c, p)
    acc_new = acc * c + p @ v if acc_new is None else acc_new(acc, c, p, v)
    return m_new, l_new, acc_new


ONLINE_WRONG = [
    ("correction e^(m_new − m)", lambda *a: _on(*a, c=lambda m, mn: np.exp(mn - m)), {"inverted"}),
    # named by no hint (no public thread makes them): rejected by the generic path
    ("l not rescaled", lambda *a: _on(*a, l_new=lambda l, c, p: l + np.sum(p)), GENERIC),
    ("neither l nor acc rescaled",
     lambda *a: _on(*a, l_new=lambda l, c, p: l + np.sum(p), acc_new=lambda acc, c, p, v: acc + p @ v), GENERIC),
    ("state returned as l, m, acc", lambda *a: (lambda r: (r[1], r[0], r[2]))(_on(*a)), GENERIC),
    ("state returned as acc, l, m", lambda *a: _on(*a)[::-1], GENERIC),
    ("block max only", lambda *a: _on(*a, m_new=lambda m, s: float(np.max(s))), {"block_max"}),
    ("acc divided by l", lambda *a: (lambda r: (r[0], r[1], r[2] / r[1]))(_on(*a)), GENERIC),
    ("new block with the old max", lambda *a: _on(*a, p=lambda s, m, mn: np.exp(s - m)), GENERIC),
    ("acc from the mean of v", lambda *a: _on(*a, acc_new=lambda acc, c, p, v: acc * c + p.sum() * v.mean(0)), GENERIC),
    ("correction on the new block", lambda *a: _on(*a, l_new=lambda l, c, p: l + c * p.sum()), GENERIC),
    ("only m and l returned", lambda *a: _on(*a)[:2], GENERIC),
    ("l grows by the block max", lambda *a: _on(*a, l_new=lambda l, c, p: l * c + p.max()), GENERIC),
    ("block mean as max", lambda *a: _on(*a, m_new=lambda m, s: max(m, float(np.mean(s)))), GENERIC),
    ("new block unshifted", lambda *a: _on(*a, p=lambda s, m, mn: np.exp(s)), {"no_shift"}),
    ("acc rescaled twice", lambda *a: _on(*a, acc_new=lambda acc, c, p, v: acc * c * c + p @ v), GENERIC),
    ("l without the new block", lambda *a: _on(*a, l_new=lambda l, c, p: l * c), GENERIC),
    ("new block rescaled from the old max (e^(s − m) · e^(m − m_new))",
     lambda *a: _on(*a, p=lambda s, m, mn: np.exp(s - m) * np.exp(m - mn) if m > -np.inf else np.exp(s - mn)), GENERIC),
    ("half the correction exponent", lambda *a: _on(*a, c=lambda m, mn: np.exp((m - mn) / 2)), GENERIC),
    ("the old m returned", lambda m, l, acc, s, v: (m, *_on(m, l, acc, s, v)[1:]), {"old_m"}),
]


# ---- 07-4 tiled forward under a fast-memory budget -----------------------------------------------------
def _fl(mem, bq, bk, *, update=None, last=None, mask=lambda s, r, c: np.where(c > r, -np.inf, s),
        q_blocks=None, k_stop=None, reload_q=False, scale=None, store_each=False, m0=-np.inf):
    """A learner's tiled forward written its own way: the tile update in one expression per state."""
    n, d = mem.n, mem.d
    scale = 1 / math.sqrt(d) if scale is None else scale
    for qs in (range(0, n, bq) if q_blocks is None else q_blocks(n, bq)):
        qb = mem.load("q", qs, min(qs + bq, n))
        r = np.arange(qs, qs + qb.shape[0]).reshape(-1, 1)
        m, l, o = np.full((len(qb), 1), m0), np.zeros((len(qb), 1)), np.zeros((len(qb), d))
        for ks in range(0, min(n, qs + len(qb)) if k_stop is None else k_stop(n, qs, len(qb)), bk):
            if reload_q:
                qb = mem.load("q", qs, min(qs + bq, n))
            kb, vb = mem.load("k", ks, min(ks + bk, n)), mem.load("v", ks, min(ks + bk, n))
            s = mask(np.einsum("id,jd->ij", qb, kb) * scale, r, np.arange(ks, ks + len(kb)).reshape(1, -1))
            m, l, o = (update or _fl_update)(m, l, o, s, vb)
            if store_each:
                mem.store(qs, o / l)
        mem.store(qs, o / l if last is None else last(o, l))
    return mem.result()


def _fl_update(m, l, o, s, vb):
    mn = np.maximum(m, s.max(1, keepdims=True))
    p = np.exp(s - mn)
    return mn, np.exp(m - mn) * l + p.sum(1, keepdims=True), np.exp(m - mn) * o + p @ vb


def _fl_normalised_each_step(m, l, o, s, vb):
    """FlashAttention-1's bookkeeping: o kept normalised after every tile (sound: it is rescaled by l)."""
    mn = np.maximum(m, s.max(1, keepdims=True))
    p = np.exp(s - mn)
    ln = np.exp(m - mn) * l + p.sum(1, keepdims=True)
    return mn, ln, (np.exp(m - mn) * l * o + p @ vb) / ln


def _fl_rows(mem, bq, bk):
    """One query row at a time inside each tile (plain Python over the rows)."""
    n, d = mem.n, mem.d
    for qs in range(0, n, bq):
        qb = mem.load("q", qs, qs + bq)
        state = [(-math.inf, 0.0, np.zeros(d)) for _ in range(len(qb))]
        for ks in range(0, qs + len(qb), bk):
            kb, vb = mem.load("k", ks, ks + bk), mem.load("v", ks, ks + bk)
            for i in range(len(qb)):
                seen = min(len(kb), qs + i - ks + 1)
                if seen <= 0:
                    continue
                sc = kb[:seen] @ qb[i] / math.sqrt(d)
                m, l, acc = state[i]
                mn = max(m, float(sc.max()))
                p = np.exp(sc - mn)
                state[i] = (mn, l * math.exp(m - mn) + float(p.sum()), acc * math.exp(m - mn) + p @ vb[:seen])
        mem.store(qs, np.array([acc / l for _, l, acc in state]))
    return mem.result()


def _fl_float32(mem, bq, bk):
    n, d = mem.n, mem.d
    for qs in range(0, n, bq):
        qb = mem.load("q", qs, qs + bq).astype(np.float32) / np.float32(math.sqrt(d))
        r = np.arange(qs, qs + len(qb))[:, None]
        m, l, o = np.full((len(qb), 1), -np.inf, np.float32), np.zeros((len(qb), 1), np.float32), \
            np.zeros((len(qb), d), np.float32)
        for ks in range(0, qs + len(qb), bk):
            kb = mem.load("k", ks, ks + bk).astype(np.float32)
            vb = mem.load("v", ks, ks + bk).astype(np.float32)
            s = qb @ kb.T
            s[np.arange(ks, ks + len(kb))[None, :] > r] = -np.inf
            m, l, o = _fl_update(m, l, o, s, vb)
        mem.store(qs, o / l)
    return mem.result()


def _fl_scalars(mem, bq, bk):
    """One key of one query at a time, m and l as Python floats: the online softmax as written on paper
    (the slowest right way seen: about 260 times the reference's CPU time under the grader's watch)."""
    n, d = mem.n, mem.d
    for qs in range(0, n, bq):
        qb = mem.load("q", qs, qs + bq)
        rows = [[-math.inf, 0.0, np.zeros(d)] for _ in range(len(qb))]
        for ks in range(0, qs + len(qb), bk):
            kb, vb = mem.load("k", ks, ks + bk), mem.load("v", ks, ks + bk)
            for i, state in enumerate(rows):
                for j in range(min(len(kb), qs + i - ks + 1)):
                    score = float(qb[i] @ kb[j]) / math.sqrt(d)
                    m_new = max(state[0], score)
                    fix, w = math.exp(state[0] - m_new), math.exp(score - m_new)
                    state[:] = [m_new, state[1] * fix + w, state[2] * fix + w * vb[j]]
        mem.store(qs, np.array([acc / total for _, total, acc in rows]))
    return mem.result()


FLASH_RIGHT = [_fl, lambda mem, bq, bk: _fl(mem, bq, bk, update=_fl_normalised_each_step, last=lambda o, l: o),
               _fl_rows, _fl_float32, _fl_scalars]


def _fl_strip(mem, bq, bk):
    """Every block read as the count expects, then made a plain array (``.view(np.ndarray)``): the keys and
    values up to each row joined, and an ordinary two-pass softmax per row, no running state at all."""
    n, d = mem.n, mem.d
    for qs in range(0, n, bq):
        qb = mem.load("q", qs, qs + bq).view(np.ndarray)
        ends = range(0, qs + len(qb), bk)
        keys = np.concatenate([mem.load("k", ks, ks + bk).view(np.ndarray) for ks in ends])
        values = np.concatenate([mem.load("v", ks, ks + bk).view(np.ndarray) for ks in ends])
        out = np.empty((len(qb), d))
        for i in range(len(qb)):
            s = keys[: qs + i + 1] @ qb[i] / math.sqrt(d)
            e = np.exp(s - s.max())
            out[i] = e @ values[: qs + i + 1] / e.sum()
        mem.store(qs, out)
    return mem.result()


def _fl_keep(mem, bq, bk):
    """Scores of the whole row kept, softmax at the end (the n-wide table)."""
    n, d = mem.n, mem.d
    for qs in range(0, n, bq):
        qb = mem.load("q", qs, qs + bq) / math.sqrt(d)
        r = np.arange(qs, qs + len(qb))[:, None]
        tiles, values = [], []
        for ks in range(0, qs + len(qb), bk):
            kb, vb = mem.load("k", ks, ks + bk), mem.load("v", ks, ks + bk)
            tiles.append(np.where(np.arange(ks, ks + len(kb))[None, :] > r, -np.inf, qb @ kb.T))
            values.append(vb)
        s = np.hstack(tiles)
        w = np.exp(s - s.max(1, keepdims=True))
        mem.store(qs, (w / w.sum(1, keepdims=True)) @ np.vstack(values))
    return mem.result()


def _fl_v_twice(mem, bq, bk):
    """Right output; each value block loaded a second time (a leftover line)."""
    class Twice:
        def __getattr__(self, name):
            return getattr(mem, name)

        def load(self, name, start, stop):
            if name == "v":
                mem.load(name, start, stop)
            return mem.load(name, start, stop)
    return _fl(Twice(), bq, bk)


def _fl_cut_diagonal(mem, bq, bk):
    """Right output; the diagonal key block read only up to the block's last query (fewer floats than the
    count on paper, which reads whole key blocks)."""
    class Cut:
        def __getattr__(self, name):
            return getattr(mem, name)
    cut, ends = Cut(), {}

    def load(name, start, stop):
        if name == "q":
            ends["q"] = min(stop, mem.n)
            return mem.load(name, start, stop)
        return mem.load(name, start, min(stop, ends["q"]))
    cut.load = load
    return _fl(cut, bq, bk)


class _PlainLoads:
    """``mem`` whose loads come back as plain arrays (``np.asarray(mem.load(…)).view(np.ndarray)``)."""

    def __init__(self, mem):
        self._mem = mem

    def __getattr__(self, name):
        return getattr(self._mem, name)

    def load(self, name, start, stop):
        return np.asarray(self._mem.load(name, start, stop)).view(np.ndarray)


FLASH_WRONG = [
    ("no rescale at all", lambda *a: _fl(*a, update=lambda m, l, o, s, vb: (
        np.maximum(m, s.max(1, keepdims=True)), l + np.exp(s - np.maximum(m, s.max(1, keepdims=True))).sum(1, keepdims=True),
        o + np.exp(s - np.maximum(m, s.max(1, keepdims=True))) @ vb)), {"no_rescale"}),
    ("o not rescaled", lambda *a: _fl(*a, update=lambda m, l, o, s, vb: (lambda mn: (
        mn, np.exp(m - mn) * l + np.exp(s - mn).sum(1, keepdims=True), o + np.exp(s - mn) @ vb))(
        np.maximum(m, s.max(1, keepdims=True)))), {"rescale_l_only"}),
    ("l not rescaled", lambda *a: _fl(*a, update=lambda m, l, o, s, vb: (lambda mn: (
        mn, l + np.exp(s - mn).sum(1, keepdims=True), np.exp(m - mn) * o + np.exp(s - mn) @ vb))(
        np.maximum(m, s.max(1, keepdims=True)))), {"rescale_acc_only"}),
    ("softmax inside each tile", lambda *a: _fl(*a, update=lambda m, l, o, s, vb: (lambda mn: (
        mn, np.exp(m - mn) * l + 1.0, np.exp(m - mn) * o + (np.exp(s - mn) / np.exp(s - mn).sum(1, keepdims=True)) @ vb))(
        np.maximum(m, s.max(1, keepdims=True)))), {"per_block"}),
    ("every key block visited", lambda *a: _fl(*a, k_stop=lambda n, qs, rows: n), {"no_causal_skip"}),
    ("no mask in the diagonal tile", lambda *a: _fl(*a, mask=lambda s, r, c: s), {"no_mask"}),
    ("diagonal tile left out", lambda *a: _fl(*a, k_stop=lambda n, qs, rows: qs), {"diagonal_skipped", "nonfinite"}),
    ("n // block_q query blocks", lambda *a: _fl(*a, q_blocks=lambda n, bq: range(0, n // bq * bq, bq)), {"q_tail"}),
    ("whole row of scores kept", _fl_keep, {"keep_row", "error"}),
    ("q loaded for every key block", lambda *a: _fl(*a, reload_q=True), {"q_inside"}),
    ("no 1/√d", lambda *a: _fl(*a, scale=1.0), {"no_scale"}),
    ("output stored after every key block", lambda *a: _fl(*a, store_each=True), {"store_inside"}),
    ("divided by d", lambda mem, bq, bk: _fl(mem, bq, bk, scale=1 / mem.d), GENERIC),
    ("mask hides the diagonal", lambda *a: _fl(*a, mask=lambda s, r, c: np.where(c >= r, -np.inf, s)),
     GENERIC),
    ("output returned without the traffic", lambda *a: _fl(*a)[0], GENERIC),
    ("v loaded twice", _fl_v_twice, {"traffic"}),
    ("diagonal key block cut short at the last query", _fl_cut_diagonal, {"traffic"}),
    ("every block made a plain array, a whole row of scores kept",
     lambda mem, bq, bk: _fl_keep(_PlainLoads(mem), bq, bk), {"outside"}),
    ("blocks as plain arrays, the keys and values of a row joined, a two-pass softmax", _fl_strip, {"outside"}),
    # all float64: held to the float64 bound, not to float32 rounding (the ε moves o by ≈ 1e-6)
    ("ε added to l before dividing", lambda *a: _fl(*a, last=lambda o, l: o / (l + 1e-6)), {"small_difference"}),
    # right while some score in each row is above ≈ −745; a row of only very negative scores underflows
    ("running max started at 0", lambda *a: _fl(*a, m0=0.0), {"m_finite_start"}),
]


# ---- 11-4 induction head by hand ---------------------------------------------------------------------
def _ih(W_E, W_U, n, *, back=1, key="prev", value="tok", write=None, by_position=None, gain=30.0,
        l0_query="pos", swap_qk=False, layers_swapped=False, l0_write="prev", gain0=None):
    """A learner's induction head in one-hot subspaces (token, previous token, output, positions),
    written its own way; the keywords are the slips."""
    V, D = W_E.shape
    t, p, o = np.arange(V), np.arange(V, 2 * V), np.argmax(W_U, axis=0)
    ps = np.arange(3 * V, 3 * V + n)
    Q, K, Vw, O = (np.zeros((2, 1, D, D)) for _ in range(4))
    W_pos = np.zeros((n, D))
    W_pos[np.arange(n), ps] = 1
    g = gain * math.sqrt(D)
    a, b = (1, 0) if layers_swapped else (0, 1)
    if l0_query == "pos":
        Q[a, 0, ps[back:], np.arange(n - back)] = g if gain0 is None else gain0 * math.sqrt(D)
        K[a, 0, ps[:n - back], np.arange(n - back)] = 1
    else:
        Q[a, 0, t, t] = g
        K[a, 0, t, t] = 1
    Vw[a, 0, t, t] = 1
    O[a, 0, t, p if l0_write == "prev" else t] = 1
    if by_position is None:
        q_src, k_src = (p, t) if swap_qk else (t, p if key == "prev" else t)
        Q[b, 0, q_src, t] = g
        K[b, 0, k_src, t] = 1
    else:
        Q[b, 0, ps[by_position:], np.arange(n - by_position)] = g
        K[b, 0, ps[:n - by_position], np.arange(n - by_position)] = 1
    Vw[b, 0, p if value == "prev" else t, t] = 1
    O[b, 0, t, o if write is None else write(o, t, V)] = 1
    return {"W_pos": W_pos, "W_Q": Q, "W_K": K, "W_V": Vw, "W_O": O}


def _zero_layer(w, layer):
    w = w.copy()
    w[layer] = 0.0
    return w


def _previous_token_head(weights, head, ps, t, dest, g):
    """Layer 0's ``head`` of ``weights`` (Q, K, V, O) made a previous-token head: position dimensions
    ``ps`` (one per position), the query at i matching the key at i − 1 with gap ``g``, token ``t``
    copied into the stream's dimensions ``dest``."""
    Q, K, Vw, O = weights
    n = len(ps)
    Q[0, head, ps[1:], np.arange(n - 1)] = g
    K[0, head, ps[:-1], np.arange(n - 1)] = 1
    Vw[0, head, t, t] = 1
    O[0, head, t, dest] = 1


def _ih_two_heads(W_E, W_U, n):
    """Two heads of D/2 per layer; the work in layer 0's head 1 and layer 1's head 0, the other heads idle."""
    V, D = W_E.shape
    h = D // 2
    t, p, o, ps = np.arange(V), np.arange(V, 2 * V), np.argmax(W_U, axis=0), np.arange(3 * V, 3 * V + n)
    Q, K, Vw = (np.zeros((2, 2, D, h)) for _ in range(3))
    O = np.zeros((2, 2, h, D))
    W_pos = np.zeros((n, D))
    W_pos[np.arange(n), ps] = 1
    g = 25 * math.sqrt(h)
    _previous_token_head((Q, K, Vw, O), 1, ps, t, p, g)
    Q[1, 0, t, t] = g
    K[1, 0, p, t] = 1
    Vw[1, 0, t, t] = 1
    O[1, 0, t, o] = 1
    return {"W_pos": W_pos, "W_Q": Q, "W_K": K, "W_V": Vw, "W_O": O}


def _ih_rotary(W_E, W_U, n):
    """Positions as one rotating pair of dimensions (the query turned back one step, like RoPE); the
    previous token stored in a random orthonormal basis, not one-hot."""
    V, D = W_E.shape
    t, o = np.arange(V), np.argmax(W_U, axis=0)
    rot = np.linalg.qr(np.random.default_rng(V).standard_normal((V, V)))[0]
    pair = np.array([3 * V, 3 * V + 1])
    theta = np.pi / (2 * n)
    W_pos = np.zeros((n, D))
    W_pos[:, pair[0]], W_pos[:, pair[1]] = np.cos(theta * np.arange(n)), np.sin(theta * np.arange(n))
    Q, K, Vw, O = (np.zeros((2, 1, D, D)) for _ in range(4))
    c, s_ = math.cos(-theta), math.sin(-theta)
    g = 40 / (1 - math.cos(theta)) * math.sqrt(D)    # neighbours differ by 1 − cos θ: scaled to a gap of 40
    Q[0, 0, pair[0], :2], Q[0, 0, pair[1], :2] = np.array([c, s_]) * g, np.array([-s_, c]) * g
    K[0, 0, pair, np.arange(2)] = 1
    Vw[0, 0, t, t] = 1
    O[0, 0, t, V:2 * V] = rot                          # token t written as row t of a rotation
    Q[1, 0, t, t] = 30 * math.sqrt(D)
    K[1, 0, V:2 * V, :V] = rot.T                        # read back: rot rows are orthonormal
    Vw[1, 0, t, t] = 1
    O[1, 0, t, o] = 1
    return {"W_pos": W_pos, "W_Q": Q, "W_K": K, "W_V": Vw, "W_O": O}


def _ih_split_vocab_float32(W_E, W_U, n):
    """Float32; the previous token kept in the last dimensions (positions reach only queries and keys,
    so the stream's position dimensions are free) and positions in V…V+n; layer 1 has two heads, one
    for the queries of even tokens, one for the odd."""
    V, D = W_E.shape
    h = D // 2
    t, o = np.arange(V), np.argmax(W_U, axis=0)
    prev = np.arange(D - V, D)
    ps = np.arange(V, V + n)
    Q, K, Vw = (np.zeros((2, 2, D, h), np.float32) for _ in range(3))
    O = np.zeros((2, 2, h, D), np.float32)
    W_pos = np.zeros((n, D), np.float32)
    W_pos[np.arange(n), ps] = 1
    g = 25 * math.sqrt(h)
    _previous_token_head((Q, K, Vw, O), 0, ps, t, prev, g)
    for head, part in enumerate((t[::2], t[1::2])):
        k = np.arange(len(part))
        Q[1, head, part, k] = g
        K[1, head, prev[part], k] = 1
        Vw[1, head, t, t] = 1                           # each head copies whatever token it finds
        O[1, head, t, o] = 1
    return {"W_pos": W_pos, "W_Q": Q, "W_K": K, "W_V": Vw, "W_O": O}


def _ih_reference_called(W_E, W_U, n):
    from helpers.exercises import learning_a_circuit

    return learning_a_circuit._induction_reference(W_E, W_U, n)


INDUCTION_HAND_RIGHT = [_ih, _ih_two_heads, _ih_rotary, _ih_split_vocab_float32]
INDUCTION_HAND_WRONG = [
    ("layer 0 two back", lambda *a: _ih(*a, back=2), {"two_back"}),
    ("layer-1 key reads the token", lambda *a: _ih(*a, key="tok"), {"self_attend"}),
    ("layer 0 looks at itself", lambda *a: _ih(*a, back=0), {"l0_self"}),
    ("layer 0's value is zero", lambda *a: {**_ih(*a), "W_V": _zero_layer(_ih(*a)["W_V"], 0)}, {"l0_silent"}),
    ("layer 0 writes into the token dimensions", lambda *a: _ih(*a, l0_write="tok"), {"l0_into_tokens"}),
    ("all zero", lambda *a: {**_ih(*a), **{k: np.zeros_like(_ih(*a)[k]) for k in ("W_Q", "W_K", "W_V", "W_O")}},
     {"all_zero"}),
    ("no positions", lambda *a: {**_ih(*a), "W_pos": np.zeros_like(_ih(*a)["W_pos"])}, {"l0_not_prev"}),
    ("layer-1 value reads the previous token", lambda *a: _ih(*a, value="prev"), {"no_copy"}),
    ("layer-1 output written where W_U does not read", lambda *a: _ih(*a, write=lambda o, t, V: t), {"no_copy"}),
    ("layer-1 output one token off", lambda *a: _ih(*a, write=lambda o, t, V: o[(t + 1) % V]), {"no_copy"}),
    ("layer 1 by a fixed distance", lambda W_E, W_U, n: _ih(W_E, W_U, n, by_position=min(W_E.shape[0] - 1,
                                                                                          (n - 1) // 2) - 1),
     {"positional"}),
    ("no gain", lambda *a: _ih(*a, gain=1 / math.sqrt(a[0].shape[1])), {"soft"}),
    ("query and key swapped in layer 1", lambda *a: _ih(*a, swap_qk=True), {"query_prev"}),
    ("layer 0 matches tokens, not positions", lambda *a: _ih(*a, l0_query="tok"), {"l0_self"}),
    ("layers in the wrong order", lambda *a: _ih(*a, layers_swapped=True), {"l0_not_prev", "l0_self"}),
    ("W_pos missing", lambda *a: {k: v for k, v in _ih(*a).items() if k != "W_pos"}, {"unreadable"}),
    ("W_Q for one layer", lambda *a: {**_ih(*a), "W_Q": _ih(*a)["W_Q"][0]}, {"unreadable"}),
    # layer 1 finds by content; layer 0's previous-token scores only 0.5 apart: soft, not positional
    ("soft layer 0", lambda *a: _ih(*a, gain0=0.5), {"soft"}),
    ("the grader's reference called", _ih_reference_called, {"forbidden"}),
]


# ---- 12-2 induction score ----------------------------------------------------------------------------
def _ind(A, T, offset=1, start=None, stop=None, reduce=np.mean, transpose=False):
    q = np.arange(T + 1 if start is None else start(T), 2 * T + 1 if stop is None else stop(T))
    kk = q - T + offset
    return float(reduce(A[kk, q] if transpose else A[q, kk]))


INDUCTION_RIGHT = [
    lambda A, T: float(np.mean([A[i, i - T + 1] for i in range(T + 1, 2 * T + 1)])),
    lambda A, T: float(np.diagonal(A, offset=-(T - 1))[-T:].mean()),
    lambda A, T: (lambda n: float(A[np.arange(n // 2 + 1, n), np.arange(2, n // 2 + 2)].mean()))(len(A)),
]
INDUCTION_WRONG = [
    ("key i − T", lambda A, T: _ind(A, T, 0), {"duplicate"}),
    ("key i − T + 2", lambda A, T: _ind(A, T, 2), GENERIC),
    ("key i − T − 1", lambda A, T: _ind(A, T, -1), GENERIC),
    ("queries T … 2T − 1", lambda A, T: _ind(A, T, start=lambda t: t, stop=lambda t: 2 * t), GENERIC),
    ("mean of whole query rows", lambda A, T: float(A[T + 1:].mean()), GENERIC),
    ("sum divided by T + 1", lambda A, T: _ind(A, T, reduce=lambda x: x.sum() / (T + 1)), GENERIC),
    ("max instead of mean", lambda A, T: _ind(A, T, reduce=np.max), GENERIC),
    ("median", lambda A, T: _ind(A, T, reduce=np.median), GENERIC),
    # A[i − T + 1, i] lies above the diagonal of a causal pattern: 0 on every case, like ``return 0.0``;
    # the output cannot tell them apart, so neither is named "transposed"
    ("rows and columns swapped", lambda A, T: _ind(A, T, transpose=True), {"constant"}),
    ("a constant 0.0", lambda A, T: 0.0, {"constant"}),
    # named by no hint (no public thread makes them): rejected by the generic path
    ("the T values, not their mean", lambda A, T: A[np.arange(T + 1, 2 * T + 1), np.arange(2, T + 2)], GENERIC),
    ("previous-token score", lambda A, T: float(np.mean([A[i, i - 1] for i in range(1, 2 * T + 1)])), GENERIC),
    ("queries from T", lambda A, T: float(np.mean([A[i, i - T + 1] for i in range(T, 2 * T + 1)])), GENERIC),
    ("whole diagonal, both copies", lambda A, T: float(np.diagonal(A, -(T - 1)).mean()), GENERIC),
    ("sum, not mean", lambda A, T: _ind(A, T, reduce=np.sum), GENERIC),
    ("argmax hit rate", lambda A, T: float(np.mean([A[i].argmax() == i - T + 1 for i in range(T + 1, 2 * T + 1)])),
     GENERIC),
    ("first-copy queries", lambda A, T: float(np.mean([A[i, i - 1] for i in range(2, T + 1)])), GENERIC),
]


# ---- 13-3 pattern change -----------------------------------------------------------------------------
PATTERN_RIGHT = [
    lambda A, B, rows: float(np.mean([1 - np.minimum(A[r], B[r]).sum() for r in rows])),
    lambda A, B, rows: float(np.mean([0.5 * sum(abs(a - b) for a, b in zip(A[r], B[r])) for r in rows])),
    lambda A, B, rows: float(np.mean(np.clip(np.asarray(A)[rows] - np.asarray(B)[rows], 0, None).sum(-1))),
]


def _pc(A, B, rows, dist=lambda d: 0.5 * np.abs(d).sum(-1), reduce=np.mean):
    rows = np.asarray(rows)
    return float(reduce(dist(np.asarray(B)[rows] - np.asarray(A)[rows])))


PATTERN_WRONG = [
    # named by no hint (no public thread makes them): rejected by the generic path
    ("no half", lambda A, B, r: _pc(A, B, r, lambda d: np.abs(d).sum(-1)), GENERIC),
    # rows sum to 1: the signed sum is 0 on every case, like ``return 0.0`` and the typo A[r] − A[r]
    ("signed", lambda A, B, r: _pc(A, B, r, lambda d: d.sum(-1)), {"constant"}),
    ("a constant 0.0", lambda A, B, r: 0.0, {"constant"}),
    ("typo A[r] − A[r]", lambda A, B, r: float(0.5 * np.abs(A[r] - A[r]).sum(-1).mean()), {"constant"}),
    ("squared", lambda A, B, r: _pc(A, B, r, lambda d: (d ** 2).sum(-1)), GENERIC),
    ("largest change", lambda A, B, r: _pc(A, B, r, lambda d: np.abs(d).max(-1)), GENERIC),
    ("mean over keys", lambda A, B, r: _pc(A, B, r, lambda d: 0.5 * np.abs(d).mean(-1)), GENERIC),
    ("sum over rows", lambda A, B, r: _pc(A, B, r, reduce=np.sum), GENERIC),
    ("every row", lambda A, B, r: _pc(A, B, range(len(A))), GENERIC),
    ("KL divergence", lambda A, B, r: float(np.mean([np.sum(A[i] * np.log((A[i] + 1e-12) / (B[i] + 1e-12))) for i in r])),
     GENERIC),
    ("L2 distance", lambda A, B, r: _pc(A, B, r, lambda d: np.sqrt((d ** 2).sum(-1))), GENERIC),
    ("first listed row only", lambda A, B, r: _pc(A, B, list(r)[:1]), GENERIC),
    ("half the largest change", lambda A, B, r: _pc(A, B, r, lambda d: 0.5 * np.abs(d).max(-1)), GENERIC),
    # every row sums to 1, so the difference of the means is 0 on every case — exactly what the signed
    # sum returns; "the positive and negative parts cancel, it is always 0" is true of it too
    ("difference of the means", lambda A, B, r: float(abs(np.mean(np.asarray(A)[r]) - np.mean(np.asarray(B)[r]))),
     GENERIC),
    ("median over rows", lambda A, B, r: _pc(A, B, r, reduce=np.median), GENERIC),
]


# ---- 06-4 RoPE with Llama-3.1's scaling --------------------------------------------------------------
def _llama3(inv, s, *, low_keep=False, flip=False, multiply=False, no_blend=False, mid_keep=False):
    """A learner's llama3 band code, written per frequency in a loop (with optional slips)."""
    out = []
    for f in inv:
        lam = 2 * math.pi / f
        lo, hi = s.original_max_position_embeddings / s.low_freq_factor, s.original_max_position_embeddings / s.high_freq_factor
        slow = f * s.factor if multiply else f / s.factor
        if lam < hi:
            out.append(slow if low_keep else f)
        elif lam > lo:
            out.append(f if low_keep else slow)
        else:
            if no_blend or mid_keep:
                out.append(f if mid_keep else slow)
                continue
            t = (s.original_max_position_embeddings / lam - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor)
            out.append(t * slow + (1 - t) * f if flip else (1 - t) * slow + t * f)
    return np.array(out)


def _rp(x, positions, config, *, pairs="halves", base=None, exp_den=None, scale=True, band=None, pos_shift=0,
        own_pos=False, interleave_angles=False, sin_sign=1.0, no_sin=False, dtype=float):
    x = np.asarray(x, dtype=dtype)
    d = x.shape[-1]
    theta = config.rope_theta if base is None else base
    i = np.arange(d // 2)
    inv = theta ** (-(2 * i if exp_den is None else i) / (d if exp_den is None else exp_den))
    if scale and config.rope_scaling is not None:
        inv = _llama3(inv, config.rope_scaling, **(band or {}))
    pos = (np.arange(x.shape[0]) if own_pos else np.asarray(positions)) + pos_shift
    ang = np.asarray(np.outer(pos, inv), dtype=dtype)
    if x.ndim == 3:
        ang = ang[:, None, :]
    c, s_ = np.cos(ang), sin_sign * np.sin(ang) * (0 if no_sin else 1)
    if pairs == "halves" and not interleave_angles:
        a, b = x[..., : d // 2], x[..., d // 2:]
        return np.concatenate([a * c - b * s_, a * s_ + b * c], axis=-1)
    if pairs == "halves":  # rotate_half with [θ0, θ0, θ1, θ1, …]
        cc, ss = np.repeat(c, 2, axis=-1), np.repeat(s_, 2, axis=-1)
        return x * cc + np.concatenate([-x[..., d // 2:], x[..., : d // 2]], axis=-1) * ss
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = a * c - b * s_, a * s_ + b * c
    return out


def _rp_loops(x, positions, config):
    x = np.asarray(x, dtype=float)
    out = np.array(x)
    d = x.shape[-1]
    inv = _llama3(np.array([config.rope_theta ** (-2 * i / d) for i in range(d // 2)]), config.rope_scaling) \
        if config.rope_scaling is not None else [config.rope_theta ** (-2 * i / d) for i in range(d // 2)]
    flat_out = out.reshape(len(x), -1, d)
    flat_in = x.reshape(len(x), -1, d)
    for n, p in enumerate(positions):
        for h in range(flat_in.shape[1]):
            for i in range(d // 2):
                a, b = flat_in[n, h, i], flat_in[n, h, i + d // 2]
                c, s = math.cos(p * inv[i]), math.sin(p * inv[i])
                flat_out[n, h, i], flat_out[n, h, i + d // 2] = a * c - b * s, a * s + b * c
    return flat_out.reshape(x.shape)


def _rp_complex(x, positions, config):
    d = x.shape[-1]
    z = x[..., : d // 2] + 1j * x[..., d // 2:]
    inv = config.rope_theta ** (-np.arange(0, d, 2) / d)
    if config.rope_scaling is not None:
        inv = _llama3(inv, config.rope_scaling)
    turn = np.exp(1j * np.outer(positions, inv))
    z = z * (turn[:, None, :] if x.ndim == 3 else turn)
    return np.concatenate([z.real, z.imag], axis=-1)


def _rp_matrix(x, positions, config):
    d = x.shape[-1]
    half = d // 2
    inv = config.rope_theta ** (-np.arange(half) * 2.0 / d)
    if config.rope_scaling is not None:
        inv = _llama3(inv, config.rope_scaling)
    rot = np.zeros((len(positions), d, d))
    for n, p in enumerate(positions):
        c, s = np.cos(p * inv), np.sin(p * inv)
        i = np.arange(half)
        rot[n, i, i], rot[n, i, i + half], rot[n, i + half, i], rot[n, i + half, i + half] = c, -s, s, c
    return np.einsum("nij,n...j->n...i", rot, x)


def _rp_by_wavelength(x, positions, config):
    """The middle band blended linearly in the wavelength between its two ends."""
    d = x.shape[-1]
    inv = 1.0 / config.rope_theta ** (np.arange(0, d, 2) / d)
    s = config.rope_scaling
    if s is not None:
        wl = 2 * np.pi / inv
        lo = s.original_max_position_embeddings / s.high_freq_factor
        hi = s.original_max_position_embeddings / s.low_freq_factor
        t = (wl - lo) / (hi - lo)
        inv = np.where(wl < lo, inv, np.where(wl > hi, inv / s.factor, (1 - t) * inv + t * inv / s.factor))
    ang = np.outer(positions, inv)
    ang = np.concatenate([ang, ang], -1)
    if x.ndim == 3:
        ang = ang[:, None]
    return x * np.cos(ang) + np.concatenate([-x[..., d // 2:], x[..., : d // 2]], -1) * np.sin(ang)


def _llama31_field(config, field):
    """``config`` with one number of its llama3 scaling replaced by Llama-3.1's: a RoPE that writes
    that number into its code instead of reading it."""
    if config.rope_scaling is None:
        return config
    llama31 = {"original_max_position_embeddings": 8192, "low_freq_factor": 1.0, "high_freq_factor": 4.0}
    fixed = dataclasses.replace(config.rope_scaling, **{field: llama31[field]})
    return dataclasses.replace(config, rope_scaling=fixed)


def _rp_sin_cos_swapped(x, positions, config):
    d = np.shape(x)[-1]
    inv = config.rope_theta ** (-np.arange(0, d, 2) / d)
    if config.rope_scaling is not None:
        inv = _llama3(inv, config.rope_scaling)
    ang = np.outer(positions, inv)
    ang = np.concatenate([ang, ang], -1)
    if np.ndim(x) == 3:
        ang = ang[:, None]
    x = np.asarray(x, float)
    return x * np.sin(ang) + np.concatenate([-x[..., d // 2:], x[..., : d // 2]], -1) * np.cos(ang)


def _rp_float32_angles(x, positions, config):
    """Rotate-half RoPE with the angles, cos and sin in float32 (x's own dtype for the rest)."""
    d = x.shape[-1]
    inv = config.rope_theta ** (-np.arange(0, d, 2) / d)
    inv = (inv if config.rope_scaling is None else _llama3(inv, config.rope_scaling)).astype(np.float32)
    ang = np.asarray(positions, np.float32)[:, None] * inv
    ang = np.concatenate([ang, ang], axis=-1)[:, None] if x.ndim == 3 else np.concatenate([ang, ang], axis=-1)
    half = np.concatenate([-x[..., d // 2:], x[..., :d // 2]], axis=-1)
    return x * np.cos(ang) + half * np.sin(ang)


ROPE_RIGHT = [_rp_loops, _rp_complex, _rp_matrix, lambda x, p, c: _rp(x, p, c).astype(np.float32)]
ROPE_WRONG = [
    ("adjacent pairs (2i, 2i+1), not said", lambda x, p, c: _rp(x, p, c, pairs="interleaved"), {"wrong_pairing"}),
    ("rotate_half with repeat_interleave angles", lambda x, p, c: _rp(x, p, c, interleave_angles=True), {"angle_layout"}),
    ("turned the other way (sin sign)", lambda x, p, c: _rp(x, p, c, sin_sign=-1.0), {"turned_backwards"}),
    ("sin and cos swapped", _rp_sin_cos_swapped, {"sin_cos_swapped"}),
    ("L = 8192 written in", lambda x, p, c: _rp(x, p, _llama31_field(c, "original_max_position_embeddings")),
     {"fixed_original_max_position_embeddings"}),
    ("low_freq_factor = 1 written in", lambda x, p, c: _rp(x, p, _llama31_field(c, "low_freq_factor")),
     {"fixed_low_freq_factor"}),
    ("high_freq_factor = 4 written in", lambda x, p, c: _rp(x, p, _llama31_field(c, "high_freq_factor")),
     {"fixed_high_freq_factor"}),
    ("exponent i/d", lambda x, p, c: _rp(x, p, c, exp_den=x.shape[-1]), {"steps_of_d"}),
    ("rope_scaling ignored", lambda x, p, c: _rp(x, p, c, scale=False), {"no_scaling"}),
    ("factor multiplied", lambda x, p, c: _rp(x, p, c, band={"multiply": True}), GENERIC),
    ("bands swapped", lambda x, p, c: _rp(x, p, c, band={"low_keep": True}), {"bands_swapped"}),
    # no public thread shows a missing middle band: rejected without naming a mistake it does not contain
    ("every band above L/high slowed, no blend", lambda x, p, c: _rp(x, p, c, band={"no_blend": True}), {"values"}),
    ("the middle band left as it was, no blend", lambda x, p, c: _rp(x, p, c, band={"mid_keep": True}), {"values"}),
    ("smooth weights flipped", lambda x, p, c: _rp(x, p, c, band={"flip": True}), {"smooth_flipped"}),
    ("smooth band linear in the wavelength", _rp_by_wavelength, {"smooth_by_wavelength"}),
    ("θ = 10000", lambda x, p, c: _rp(x, p, c, base=10000), {"base_10000"}),
    ("positions + 1", lambda x, p, c: _rp(x, p, c, pos_shift=1), {"positions_from_1"}),
    ("positions 0…n−1", lambda x, p, c: _rp(x, p, c, own_pos=True), {"ignores_positions"}),
    ("sin term forgotten", lambda x, p, c: _rp(x, p, c, no_sin=True), GENERIC),
    ("angles in float32", lambda x, p, c: _rp(x, p, c, dtype=np.float32), GENERIC),
    ("positions divided by the factor (interpolation)",
     lambda x, p, c: _rp(x, np.asarray(p) / (c.rope_scaling.factor if c.rope_scaling else 1), c, scale=False), GENERIC),
    # float32 angles, the rest float64 / the whole pipeline float32: named as the angles' precision
    ("float32 angles", lambda x, p, c: _rp_float32_angles(x, p, c), {"float32_angles"}),
    ("everything in float32", lambda x, p, c: _rp_float32_angles(np.asarray(x, np.float32), p, c), {"float32_angles"}),
]


# ---- 09-4 one KV-cached decode step ------------------------------------------------------------------
def _turn(x, pos, theta):
    """A learner's RoPE for rows (…, d) all at one position ``pos`` (pairs (i, i + d/2))."""
    d = x.shape[-1]
    ang = pos * theta ** (-np.arange(0, d, 2) / d)
    c, s = np.cos(np.concatenate([ang, ang])), np.sin(np.concatenate([ang, ang]))
    return x * c + np.concatenate([-x[..., d // 2:], x[..., : d // 2]], axis=-1) * s


def _ds(x_new, cache, position, w, *, pos_shift=0, no_offset=False, rep_new=False, rep_all=False, return_all=False,
        raw_cached=False, raw_attended=False, hide_new=False, first_only=False, q_cached=False, v_turned=False,
        width=None, tile=False, no_oproj=False, no_rope=False, dtype=float):
    h, kv, d, theta = w["num_heads"], w["num_kv_heads"], w["head_dim"], w["rope_theta"]
    x = np.asarray(x_new, dtype=dtype)
    q = (x @ w["w_q"].astype(dtype)).reshape(h, d)
    k = (x @ w["w_k"].astype(dtype)).reshape(kv, d)
    v = (x @ w["w_v"].astype(dtype)).reshape(kv, d)
    p = 0 if no_offset else position + pos_shift
    qr, kr = (q, k) if no_rope else (_turn(q, p, theta), _turn(k, p, theta))
    if v_turned:
        v = _turn(v, p, theta)
    ck, cv = cache["k"].astype(dtype), cache["v"].astype(dtype)
    new_k = qr if q_cached else (k if raw_cached else kr)
    new_v = v
    if rep_new or rep_all:
        new_k, new_v = np.repeat(new_k, h // kv, axis=0), np.repeat(new_v, h // kv, axis=0)
    if rep_all:
        ck, cv = np.repeat(ck, h // kv, axis=0), np.repeat(cv, h // kv, axis=0)
    k_cache = np.concatenate([ck, new_k[:, None, :]], axis=1)
    v_cache = np.concatenate([cv, new_v[:, None, :]], axis=1)
    keys, vals = k_cache.copy(), v_cache
    if raw_attended:
        keys[:, -1] = k
    if return_all:  # every cached key turned again by its position
        n = ck.shape[1]
        keys = np.stack([_turn(np.concatenate([ck, k[:, None]], axis=1)[:, j], j, theta) for j in range(n + 1)], axis=1)
        k_cache = keys
    if hide_new:
        keys, vals = keys[:, :-1], vals[:, :-1]
    if first_only:
        keys, vals = keys[:, :1], vals[:, :1]
    out = np.zeros((h, d), dtype=dtype)
    g = keys.shape[0]
    for head in range(h):
        j = head % g if tile else head // (h // g)
        sc = keys[j] @ qr[head] / np.sqrt(d if width is None else width)
        e = np.exp(sc - sc.max())
        out[head] = (e / e.sum()) @ vals[j]
    merged = out.reshape(-1)
    return (merged if no_oproj else merged @ w["w_o"].astype(dtype)), k_cache, v_cache


def _ds_grouped(x_new, cache, position, w):
    """Right: queries grouped per KV head with einsum, RoPE via complex numbers, no repeat."""
    h, kv, d, theta = w["num_heads"], w["num_kv_heads"], w["head_dim"], w["rope_theta"]
    inv = theta ** (-np.arange(0, d, 2) / d)
    turn = np.exp(1j * position * inv)

    def rope(a):
        z = (a[..., : d // 2] + 1j * a[..., d // 2:]) * turn
        return np.concatenate([z.real, z.imag], axis=-1)
    q = rope((x_new @ w["w_q"]).reshape(kv, h // kv, d))
    k = rope((x_new @ w["w_k"]).reshape(kv, 1, d))
    v = (x_new @ w["w_v"]).reshape(kv, 1, d)
    ks, vs = np.concatenate([cache["k"], k], axis=1), np.concatenate([cache["v"], v], axis=1)
    sc = np.einsum("grd,gjd->grj", q, ks) / math.sqrt(d)
    wts = np.exp(sc - sc.max(-1, keepdims=True))
    wts /= wts.sum(-1, keepdims=True)
    return np.einsum("grj,gjd->grd", wts, vs).reshape(-1) @ w["w_o"], ks, vs


def _ds_helpers(x_new, cache, position, w):
    """Right: the series' own pieces (apply_rope, repeat_kv, scaled_dot_product_attention), heads second."""
    import helpers

    h, kv, d = w["num_heads"], w["num_kv_heads"], w["head_dim"]
    q, k, v = ((x_new @ w[m]).reshape(1, -1, d) for m in ("w_q", "w_k", "w_v"))
    q, k = (helpers.layer.apply_rope(a, [position], w["rope_theta"]) for a in (q, k))
    ks = np.concatenate([np.swapaxes(cache["k"], 0, 1), k])        # (n + 1, kv, d)
    vs = np.concatenate([np.swapaxes(cache["v"], 0, 1), v])
    kr, vr = helpers.layer.repeat_kv(ks, h // kv), helpers.layer.repeat_kv(vs, h // kv)
    out, _ = helpers.scaled_dot_product_attention(np.swapaxes(q, 0, 1), np.swapaxes(kr, 0, 1), np.swapaxes(vr, 0, 1))
    return out.reshape(-1) @ w["w_o"], np.swapaxes(ks, 0, 1), np.swapaxes(vs, 0, 1)


DECODE_RIGHT = [_ds, _ds_grouped, _ds_helpers,
                lambda x, c, p, w: tuple(a.astype(np.float32) for a in _ds(x, c, p, w, dtype=np.float32))]
DECODE_WRONG = [
    ("RoPE at position 0", lambda x, c, p, w: _ds(x, c, p, w, no_offset=True), {"no_position_offset"}),
    ("RoPE at position + 1", lambda x, c, p, w: _ds(x, c, p, w, pos_shift=1), {"position_plus_1"}),
    ("k and v caches returned swapped", lambda x, c, p, w: (lambda o, k, v: (o, v, k))(*_ds(x, c, p, w)),
     {"caches_swapped"}),
    ("new k, v repeated to query heads before caching", lambda x, c, p, w: _ds(x, c, p, w, rep_new=True), {"error"}),
    ("the whole cache repeated to query heads", lambda x, c, p, w: _ds(x, c, p, w, rep_all=True),
     {"cache_by_query_heads_all"}),
    ("cached keys turned again", lambda x, c, p, w: _ds(x, c, p, w, return_all=True), {"rerotate_cache"}),
    # no public thread shows it: rejected without naming a mistake it does not contain
    ("raw k cached", lambda x, c, p, w: _ds(x, c, p, w, raw_cached=True), {"values"}),
    ("raw k attended", lambda x, c, p, w: _ds(x, c, p, w, raw_attended=True), {"attended_before_rope"}),
    ("new token does not see itself", lambda x, c, p, w: _ds(x, c, p, w, hide_new=True),
     {"new_token_masked", "error"}),
    ("only the first key seen", lambda x, c, p, w: _ds(x, c, p, w, first_only=True), {"top_left_causal"}),
    ("q cached for k", lambda x, c, p, w: _ds(x, c, p, w, q_cached=True), {"cache_q"}),
    ("v turned too", lambda x, c, p, w: _ds(x, c, p, w, v_turned=True), {"rope_on_v"}),
    ("√hidden", lambda x, c, p, w: _ds(x, c, p, w, width=len(x)), {"scale_by_d_model"}),
    ("no scale", lambda x, c, p, w: _ds(x, c, p, w, width=1.0), {"no_scale"}),
    ("KV heads tiled", lambda x, c, p, w: _ds(x, c, p, w, tile=True), GENERIC),
    ("o_proj forgotten", lambda x, c, p, w: _ds(x, c, p, w, no_oproj=True), {"no_o_proj"}),
    # RoPE at position 0 is no turn: forgetting RoPE for the new token is the same output as position 0
    ("no RoPE", lambda x, c, p, w: _ds(x, c, p, w, no_rope=True), {"no_position_offset"}),
    # the new k, v neither appended nor attended: the output's shape is right, the caches' are not, and
    # the hint must say so rather than "shape right, values wrong"
    ("new k, v not appended", lambda x, c, p, w: (_ds(x, c, p, w, hide_new=True)[0], c["k"], c["v"]), {"shape"}),
    ("new k, v attended but not appended", lambda x, c, p, w: (_ds(x, c, p, w)[0], c["k"], c["v"]), {"shape"}),
]


# ---- 14-4 absorbed MLA ------------------------------------------------------------------------------
def _mla(q_nope, q_pe, c_kv, k_pe, w_uk, w_uv, *, width=None, rope=True, causal=True, up=True, one_head=False,
         query_axis=False, shift=0, dtype=float):
    """A learner's absorbed MLA, vectorised with einsum (the slips as keywords)."""
    q_nope, q_pe, c_kv, k_pe, w_uk, w_uv = (np.asarray(a, dtype=dtype) for a in (q_nope, q_pe, c_kv, k_pe, w_uk, w_uv))
    if one_head:
        w_uk = np.broadcast_to(w_uk[:1], w_uk.shape)
    q_lat = np.einsum("nhd,hdr->nhr", q_nope, w_uk)
    d = (q_nope.shape[-1] + q_pe.shape[-1]) if width is None else width
    s = np.einsum("ihr,jr->hij", q_lat, c_kv) + (np.einsum("ihd,jd->hij", q_pe, k_pe) if rope else 0.0)
    s = s / np.sqrt(d)
    n = len(c_kv)
    if causal:
        s = np.where(np.triu(np.ones((n, n), dtype=bool), k=1 + shift), -np.inf, s)
    axis = -2 if query_axis else -1
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    p = e / e.sum(axis=axis, keepdims=True)
    lat = np.einsum("hij,jr->ihr", p, c_kv)
    return (np.einsum("ihr,hdr->ihd", lat, w_uv) if up else lat), q_lat


def _mla_loops(q_nope, q_pe, c_kv, k_pe, w_uk, w_uv):
    """Right: a loop over heads, the absorbed query one head at a time."""
    n, h, _ = q_nope.shape
    out = np.zeros((n, h, w_uv.shape[1]))
    q_lat = np.zeros((n, h, c_kv.shape[1]))
    scale = 1 / math.sqrt(q_nope.shape[-1] + q_pe.shape[-1])
    for head in range(h):
        q_lat[:, head] = q_nope[:, head] @ w_uk[head]
        s = (q_lat[:, head] @ c_kv.T + q_pe[:, head] @ k_pe.T) * scale
        s[np.triu_indices(n, 1)] = -np.inf
        p = np.exp(s - s.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        out[:, head] = (p @ c_kv) @ w_uv[head].T
    return out, q_lat


def _mla_expanded(q_nope, q_pe, c_kv, k_pe, w_uk, w_uv):
    """Right in value: every head's K and V expanded first (the naive form), the absorbed query beside."""
    k = np.concatenate([np.einsum("hdr,nr->nhd", w_uk, c_kv),
                        np.broadcast_to(k_pe[:, None, :], (len(c_kv), q_nope.shape[1], k_pe.shape[-1]))], axis=-1)
    v = np.einsum("hdr,nr->nhd", w_uv, c_kv)
    q = np.concatenate([q_nope, q_pe], axis=-1)
    s = np.einsum("ihd,jhd->hij", q, k) / np.sqrt(q.shape[-1])
    s = s + np.triu(np.full((len(c_kv),) * 2, -np.inf), k=1)
    p = np.exp(s - s.max(-1, keepdims=True))
    return np.einsum("hij,jhd->ihd", p / p.sum(-1, keepdims=True), v), np.einsum("nhd,hdr->nhr", q_nope, w_uk)


def _mla_mqa(q_nope, q_pe, c_kv, k_pe, w_uk, w_uv):
    """Right: one KV head [c_kv, k_pe] and per-head queries [q_latent, q_pe], as MQA."""
    q_lat = np.einsum("nhd,hdr->nhr", q_nope, w_uk)
    q = np.concatenate([q_lat, q_pe], axis=-1)
    key = np.concatenate([c_kv, k_pe], axis=-1)
    s = np.einsum("nhc,mc->hnm", q, key) / math.sqrt(q_nope.shape[-1] + q_pe.shape[-1])
    s = s + np.triu(np.full((len(c_kv),) * 2, -np.inf), k=1)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.einsum("hnm,mr,hdr->nhd", p, c_kv, w_uv), q_lat


MLA_RIGHT = [_mla_loops, _mla_expanded, _mla_mqa, lambda *a: tuple(x.astype(np.float32) for x in _mla(*a, dtype=np.float32))]
MLA_WRONG = [
    ("scaled by the absorbed width", lambda *a: _mla(*a, width=a[2].shape[-1] + a[3].shape[-1]), {"scale_absorbed_width"}),
    ("scaled by √qk_nope", lambda *a: _mla(*a, width=a[0].shape[-1]), GENERIC),
    ("no scale", lambda *a: _mla(*a, width=1.0), GENERIC),
    ("scaled by √r", lambda *a: _mla(*a, width=a[2].shape[-1]), GENERIC),
    ("no causal mask", lambda *a: _mla(*a, causal=False), GENERIC),
    ("one future key visible", lambda *a: _mla(*a, shift=1), GENERIC),
    ("the rope term dropped", lambda *a: _mla(*a, rope=False), GENERIC),
    ("W_UV never applied", lambda *a: _mla(*a, up=False), GENERIC),
    ("head 0's W_UK for every head", lambda *a: _mla(*a, one_head=True), GENERIC),
    ("softmax over the queries", lambda *a: _mla(*a, query_axis=True), GENERIC),
    ("the outputs in the other order", lambda *a: _mla(*a)[::-1], GENERIC),
    ("q_nope returned for the absorbed query", lambda *a: (_mla(*a)[0], a[0]), GENERIC),
    ("only the output returned", lambda *a: _mla(*a)[0], GENERIC),
    ("the whole key [c, k_pe] as the value", lambda q, qp, c, kp, uk, uv: _mla(q, qp, np.concatenate([c, kp], -1), kp,
                                                                              uk, uv), GENERIC),
]


# ---- 14-5 one StreamingLLM step -----------------------------------------------------------------------
def _turn_rows(x, positions, theta, pairs="halves"):
    """A learner's RoPE of rows ``(m, H, d)`` each at its own position (pairs (i, i + d/2) or (2i, 2i + 1))."""
    d = x.shape[-1]
    ang = np.asarray(positions, dtype=float)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    if pairs == "adjacent":
        c, s = np.repeat(np.cos(ang), 2, -1)[:, None], np.repeat(np.sin(ang), 2, -1)[:, None]
        other = np.stack([-x[..., 1::2], x[..., ::2]], axis=-1).reshape(x.shape)
        return x * c + other * s
    c, s = np.cos(np.concatenate([ang, ang], -1))[:, None], np.sin(np.concatenate([ang, ang], -1))[:, None]
    return x * c + np.concatenate([-x[..., d // 2:], x[..., :d // 2]], axis=-1) * s


def _sa(q, k_cache, v_cache, kept, theta, *, keys="cache", query="cache", q_shift=0, key_shift=0, scale=None,
        twice=False, drop_self=False, drop_sinks=0, rope_v=False, pairs="halves", base=None, dtype=float):
    q, k_cache, v_cache = (np.asarray(a, dtype=dtype) for a in (q, k_cache, v_cache))
    m, d = len(k_cache), q.shape[-1]
    theta = theta if base is None else base
    where = {"cache": np.arange(m) + key_shift, "text": np.asarray(kept)}
    k = _turn_rows(k_cache, where[keys], theta, pairs)
    if twice:
        k = _turn_rows(k, np.arange(m), theta, pairs)
    qpos = {"cache": m - 1 + q_shift, "text": int(kept[-1])}[query]
    qr = _turn_rows(q[None], [qpos], theta, pairs)[0]
    v = _turn_rows(v_cache, np.arange(m), theta, pairs) if rope_v else v_cache
    keep = slice(drop_sinks, m - 1 if drop_self and m > 1 else m)
    s = np.einsum("hd,jhd->hj", qr, k[keep]) / (math.sqrt(d) if scale is None else scale)
    e = np.exp(s - s.max(-1, keepdims=True))
    return np.einsum("hj,jhd->hd", e / e.sum(-1, keepdims=True), v[keep])


def _sa_helpers(q, k_cache, v_cache, kept, theta):
    """Right: helpers.layer.apply_rope, one head at a time."""
    import helpers

    m = len(k_cache)
    k = helpers.layer.apply_rope(k_cache, np.arange(m), theta)
    qr = helpers.layer.apply_rope(q[None], [m - 1], theta)[0]
    out = np.zeros_like(q)
    for h in range(q.shape[0]):
        s = k[:, h] @ qr[h] / math.sqrt(q.shape[-1])
        p = np.exp(s - s.max())
        out[h] = (p / p.sum()) @ v_cache[:, h]
    return out


def _sa_complex(q, k_cache, v_cache, kept, theta):
    """Right: RoPE as complex multiplication of the pairs (i, i + d/2)."""
    m, d = len(k_cache), q.shape[-1]
    half = d // 2
    freq = theta ** (-np.arange(half) * 2 / d)

    def turn(x, pos):
        z = (x[..., :half] + 1j * x[..., half:]) * np.exp(1j * np.asarray(pos, dtype=float)[:, None, None] * freq)
        return np.concatenate([z.real, z.imag], axis=-1)

    k = turn(k_cache, np.arange(m))
    qr = turn(q[None], [m - 1])[0]
    s = np.einsum("hd,jhd->hj", qr, k) / np.sqrt(d)
    p = np.exp(s - s.max(-1, keepdims=True))
    return np.einsum("hj,jhd->hd", p / p.sum(-1, keepdims=True), v_cache)


STREAM_RIGHT = [_sa_helpers, _sa_complex, lambda *a: _sa(*a, key_shift=7, q_shift=7),  # a constant shift of every position
                lambda *a: _sa(*a, dtype=np.float32).astype(np.float32)]
STREAM_WRONG = [
    ("keys and query at their text positions", lambda *a: _sa(*a, keys="text", query="text"), {"text_positions"}),
    ("keys in the cache, query at its text position", lambda *a: _sa(*a, query="text"), {"query_text_position"}),
    ("query not turned", lambda *a: _sa_no_q(*a), {"no_rope_on_q"}),
    ("no scale", lambda *a: _sa(*a, scale=1.0), {"no_scale"}),
    ("query at position m", lambda *a: _sa(*a, q_shift=1), GENERIC),
    ("keys at their text positions, query in the cache", lambda *a: _sa(*a, keys="text"), GENERIC),
    ("keys turned by text and again by cache positions", lambda *a: _sa(*a, keys="text", twice=True), GENERIC),
    ("adjacent pairs (2i, 2i + 1)", lambda *a: _sa(*a, pairs="adjacent"), GENERIC),
    ("the new token does not see itself", lambda *a: _sa(*a, drop_self=True), GENERIC),
    ("the sinks left out", lambda *a: _sa(*a, drop_sinks=1), GENERIC),
    ("v turned too", lambda *a: _sa(*a, rope_v=True), GENERIC),
    ("θ fixed at 10000", lambda *a: _sa(*a, base=10000.0), GENERIC),
    ("scaled by √(heads × d)", lambda q, k, v, kept, t: _sa(q, k, v, kept, t, scale=math.sqrt(q.size)), GENERIC),
]


def _sa_no_q(q, k_cache, v_cache, kept, theta):
    m, d = len(k_cache), q.shape[-1]
    k = _turn_rows(k_cache, np.arange(m), theta)
    s = np.einsum("hd,jhd->hj", q, k) / math.sqrt(d)
    e = np.exp(s - s.max(-1, keepdims=True))
    return np.einsum("hj,jhd->hd", e / e.sum(-1, keepdims=True), v_cache)


# ---- 15-2 linear attention's recurrence ---------------------------------------------------------------
def _lr_loop(phi_q, phi_k, v):
    """Right: a plain loop, one head and one position at a time."""
    n, h, d_k = phi_q.shape
    S, z, out = np.zeros((h, d_k, v.shape[-1])), np.zeros((h, d_k)), np.zeros((n, h, v.shape[-1]))
    for t in range(n):
        for head in range(h):
            S[head] += np.outer(phi_k[t, head], v[t, head])
            z[head] += phi_k[t, head]
            out[t, head] = phi_q[t, head] @ S[head] / (phi_q[t, head] @ z[head])
    return out, S, z


def _lr_cumsum(phi_q, phi_k, v, *, axis=0, read_first=False, z_now=False, no_z=False, times_z=False, z_rows=False,
               all_z=False, all_s=False, z_from_q=False, eps=0.0, dtype=float):
    phi_q, phi_k, v = (np.asarray(a, dtype=dtype) for a in (phi_q, phi_k, v))
    kv = np.einsum("nhd,nhe->nhde", phi_k, v)
    S, z = np.cumsum(kv, axis=axis), np.cumsum(phi_q if z_from_q else phi_k, axis=axis)
    if read_first:
        S, z = np.concatenate([np.zeros_like(S[:1]), S[:-1]]), np.concatenate([np.zeros_like(z[:1]), z[:-1]])
    if z_now:
        z = phi_k
    if all_z:
        z = np.broadcast_to(z[-1], z.shape)
    if all_s:
        S = np.broadcast_to(S[-1], S.shape)
    top = np.einsum("nhd,nhde->nhe", phi_q, S / z[..., None] if z_rows else S)
    bottom = np.einsum("nhd,nhd->nh", phi_q, z)[..., None] + eps
    with np.errstate(divide="ignore", invalid="ignore"):
        out = top if (no_z or z_rows) else (top * bottom if times_z else top / bottom)
    return out, kv.sum(axis=0), phi_k.sum(axis=0)


def _lr_chunked(phi_q, phi_k, v):
    """Right: blocks of 3 positions, the table inside a block, the state between blocks."""
    n, h, d_k = phi_q.shape
    S, z, out = np.zeros((h, d_k, v.shape[-1])), np.zeros((h, d_k)), np.zeros((n, h, v.shape[-1]))
    for a in range(0, n, 3):
        q, k, vv = phi_q[a:a + 3], phi_k[a:a + 3], v[a:a + 3]
        m = len(q)
        table = np.einsum("ihd,jhd->hij", q, k) * np.tril(np.ones((m, m)))
        top = np.einsum("ihd,hde->ihe", q, S) + np.einsum("hij,jhe->ihe", table, vv)
        bottom = np.einsum("ihd,hd->ih", q, z) + table.sum(-1).T
        out[a:a + m] = top / bottom[..., None]
        S, z = S + np.einsum("jhd,jhe->hde", k, vv), z + k.sum(0)
    return out, S, z


RECURRENT_RIGHT = [_lr_loop, _lr_cumsum, _lr_chunked, lambda *a: tuple(x.astype(np.float32) for x in _lr_cumsum(*a, dtype=np.float32))]
RECURRENT_WRONG = [
    ("state read before the token is added", lambda *a: _lr_cumsum(*a, read_first=True), {"read_before_write"}),
    ("normaliser from the current key only", lambda *a: _lr_cumsum(*a, z_now=True), {"normalizer_without_past"}),
    ("no normaliser", lambda *a: _lr_cumsum(*a, no_z=True), {"no_normalizer"}),
    ("multiplied by the normaliser", lambda *a: _lr_cumsum(*a, times_z=True), {"multiplied_by_normalizer"}),
    ("S divided row by row by z", lambda *a: _lr_cumsum(*a, z_rows=True), {"normalizer_without_query"}),
    ("summed over the heads", lambda *a: _lr_cumsum(*a, axis=1), {"sum_over_heads"}),
    ("the whole sequence's normaliser for every row", lambda *a: _lr_cumsum(*a, all_z=True), GENERIC),
    ("the whole sequence's state for every row", lambda *a: _lr_cumsum(*a, all_s=True), GENERIC),
    ("normaliser summed from φq", lambda *a: _lr_cumsum(*a, z_from_q=True), GENERIC),
    ("ε = 1e-6 added to the normaliser", lambda *a: _lr_cumsum(*a, eps=1e-6), GENERIC),
    ("S returned transposed", lambda *a: (lambda o, S, z: (o, np.swapaxes(S, 1, 2), z))(*_lr_cumsum(*a)), GENERIC),
    ("only the output returned", lambda *a: _lr_cumsum(*a)[0], GENERIC),
    ("S and z in the other order", lambda *a: (lambda o, S, z: (o, z, S))(*_lr_cumsum(*a)), GENERIC),
    ("the state after the first token", lambda *a: (lambda o, S, z: (o, np.einsum("hd,he->hde", a[1][0], a[2][0]),
                                                                      a[1][0]))(*_lr_cumsum(*a)), GENERIC),
]

CORPUS = {
    "03-3": (SOFTMAX_WRONG, SOFTMAX_RIGHT),
    "05-3": (ATTENTION_WRONG, ATTENTION_RIGHT),
    "06-3": (GQA_WRONG, GQA_RIGHT),
    "06-4": (ROPE_WRONG, ROPE_RIGHT),
    "07-3": (ONLINE_WRONG, ONLINE_RIGHT),
    "07-4": (FLASH_WRONG, FLASH_RIGHT),
    "09-4": (DECODE_WRONG, DECODE_RIGHT),
    "11-4": (INDUCTION_HAND_WRONG, INDUCTION_HAND_RIGHT),
    "12-2": (INDUCTION_WRONG, INDUCTION_RIGHT),
    "13-3": (PATTERN_WRONG, PATTERN_RIGHT),
    "14-4": (MLA_WRONG, MLA_RIGHT),
    "14-5": (STREAM_WRONG, STREAM_RIGHT),
    "15-2": (RECURRENT_WRONG, RECURRENT_RIGHT),
}


def tally(run, exercises) -> dict:
    """``{"wrong accepted": [...], "right rejected": [...], "untrue hints": [...], "not named": [...]}``
    for ``run`` (``code_check.run``) over the corpus; each entry ``"key: label (verdict/diagnosis)"``.
    An untrue hint names a mistake the code does not make; "not named" is a generic (true) hint where
    the corpus expects the mistake's own."""
    found = {"wrong accepted": [], "right rejected": [], "untrue hints": [], "not named": []}
    for key, (wrong, right) in CORPUS.items():
        for label, fn, allowed in wrong:
            ok, _, mistake = run(exercises[key], fn)
            if ok is not False:
                found["wrong accepted"].append(f"{key}: {label} ({ok})")
            elif mistake not in allowed:
                kind = "not named" if mistake in GENERIC else "untrue hints"
                found[kind].append(f"{key}: {label} (named {mistake})")
        for i, fn in enumerate(right):
            ok, _, mistake = run(exercises[key], fn)
            if ok is not True:
                found["right rejected"].append(f"{key}: right #{i + 1} ({mistake})")
    return found
