"""Learners' versions of every code exercise, written independently of the exercises' own lists of
known mistakes: for each exercise, wrong versions (each with the diagnoses that would be *true* of
it) and right versions written differently from the solution (loops, float32, log-sum-exp, einsum).
Used by tests/series/test_grader_mutations.py, and runnable against any checkout to count wrong
accepted / right rejected / untrue hints."""
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
    ("divided by the row max", lambda x: np.exp(x - x.max(-1, keepdims=True)), {"no_normalise"}),
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
     {"row_min"}),
    ("row mean via np.mean",
     lambda x: (lambda e: e / e.sum(-1, keepdims=True))(np.exp(x - np.mean(x, axis=-1, keepdims=True))), {"row_mean"}),
    ("first element via x[..., 0:1]",
     lambda x: (lambda e: e / e.sum(-1, keepdims=True))(np.exp(x - x[..., 0:1])), {"first_element"}),
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
    return _gqa_einsum(*(np.asarray(a, dtype=np.float32) for a in (q, k, v)))


GQA_RIGHT = [lambda q, k, v: _per_head(q, k, v, lambda h, H, G: h // (H // G)), _gqa_einsum, _gqa_grouped, _gqa_float32]
GQA_WRONG = [
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
    ("l not rescaled", lambda *a: _on(*a, l_new=lambda l, c, p: l + np.sum(p)), {"no_l_rescale"}),
    ("block max only", lambda *a: _on(*a, m_new=lambda m, s: float(np.max(s))), {"block_max"}),
    ("acc divided by l", lambda *a: (lambda r: (r[0], r[1], r[2] / r[1]))(_on(*a)), {"normalised"}),
    ("new block with the old max", lambda *a: _on(*a, p=lambda s, m, mn: np.exp(s - m)), {"old_max_in_p"}),
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
    ("key i − T + 2", lambda A, T: _ind(A, T, 2), {"two_after"}),
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
    ("the T values, not their mean", lambda A, T: A[np.arange(T + 1, 2 * T + 1), np.arange(2, T + 2)], {"no_mean"}),
    ("previous-token score", lambda A, T: float(np.mean([A[i, i - 1] for i in range(1, 2 * T + 1)])), {"previous"}),
    ("queries from T", lambda A, T: float(np.mean([A[i, i - T + 1] for i in range(T, 2 * T + 1)])), {"from_T"}),
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
    ("no half", lambda A, B, r: _pc(A, B, r, lambda d: np.abs(d).sum(-1)), {"no_half"}),
    # rows sum to 1: the signed sum is 0 on every case, like ``return 0.0`` and the typo A[r] − A[r]
    ("signed", lambda A, B, r: _pc(A, B, r, lambda d: d.sum(-1)), {"constant"}),
    ("a constant 0.0", lambda A, B, r: 0.0, {"constant"}),
    ("typo A[r] − A[r]", lambda A, B, r: float(0.5 * np.abs(A[r] - A[r]).sum(-1).mean()), {"constant"}),
    ("squared", lambda A, B, r: _pc(A, B, r, lambda d: (d ** 2).sum(-1)), {"squared"}),
    ("largest change", lambda A, B, r: _pc(A, B, r, lambda d: np.abs(d).max(-1)), {"largest"}),
    ("mean over keys", lambda A, B, r: _pc(A, B, r, lambda d: 0.5 * np.abs(d).mean(-1)), {"mean_over_keys"}),
    ("sum over rows", lambda A, B, r: _pc(A, B, r, reduce=np.sum), {"sum_rows"}),
    ("every row", lambda A, B, r: _pc(A, B, range(len(A))), {"every_row"}),
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

CORPUS = {
    "03-3": (SOFTMAX_WRONG, SOFTMAX_RIGHT),
    "05-3": (ATTENTION_WRONG, ATTENTION_RIGHT),
    "06-3": (GQA_WRONG, GQA_RIGHT),
    "07-3": (ONLINE_WRONG, ONLINE_RIGHT),
    "12-2": (INDUCTION_WRONG, INDUCTION_RIGHT),
    "13-3": (PATTERN_WRONG, PATTERN_RIGHT),
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
