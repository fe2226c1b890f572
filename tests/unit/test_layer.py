"""helpers.layer: one attention layer (GQA, RoPE, o_proj) against a per-head loop."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.layer import (
    LayerCache,
    LayerShape,
    apply_rope,
    attention_layer,
    expand_gqa_to_mha,
    random_layer,
    repeat_kv,
    rope_angles,
    shape_trace_rows,
)


def reference_layer(x, w, shape, theta):
    """Straightforward per-head loop, written independently of helpers.layer."""
    n, d = x.shape[0], shape.head_dim
    q_all, k_all, v_all = x @ w.w_q, x @ w.w_k, x @ w.w_v
    group = shape.num_heads // shape.num_kv_heads
    heads = []
    for h in range(shape.num_heads):
        j = h // group
        q = q_all[:, h * d:(h + 1) * d].copy()
        k = k_all[:, j * d:(j + 1) * d].copy()
        v = v_all[:, j * d:(j + 1) * d]
        if theta is not None:
            half = d // 2
            for mat in (q, k):
                rotated = mat.copy()
                for pos in range(n):
                    for i in range(half):
                        angle = pos * theta ** (-2 * i / d)
                        a, b = mat[pos, i], mat[pos, i + half]
                        rotated[pos, i] = a * np.cos(angle) - b * np.sin(angle)
                        rotated[pos, i + half] = b * np.cos(angle) + a * np.sin(angle)
                mat[...] = rotated
        out = np.zeros((n, d))
        for i in range(n):
            scores = np.array([q[i] @ k[j_] / np.sqrt(d) for j_ in range(i + 1)])
            p = np.exp(scores - scores.max())
            p /= p.sum()
            out[i] = sum(p[j_] * v[j_] for j_ in range(i + 1))
        heads.append(out)
    return np.concatenate(heads, axis=1) @ w.w_o


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([(1, 1), (2, 1), (2, 2), (4, 2), (6, 3), (8, 2), (9, 3)]),
       st.sampled_from([2, 4, 8]), st.integers(1, 7), st.booleans(), st.integers(0, 1000))
def test_layer_matches_per_head_loop(heads_kv, head_dim, n, rope, seed):
    heads, kv = heads_kv
    shape = LayerShape(heads * head_dim + 3, heads, kv, head_dim)
    w = random_layer(shape, seed=seed)
    x = np.random.default_rng(seed + 1).standard_normal((n, shape.hidden))
    theta = 10000.0 if rope else None
    out, attn = attention_layer(x, w, shape, rope_theta=theta)
    np.testing.assert_allclose(out, reference_layer(x, w, shape, theta), atol=1e-10)
    assert attn.shape == (heads, n, n)


def test_gqa_with_kv_equal_heads_is_mha_and_expansion_is_exact():
    shape = LayerShape(64, 8, 2, 8)
    w = random_layer(shape, seed=3)
    x = np.random.default_rng(4).standard_normal((5, 64))
    out, _ = attention_layer(x, w, shape, rope_theta=10000.0)
    w_mha, shape_mha = expand_gqa_to_mha(w, shape)
    assert shape_mha.num_kv_heads == 8 and w_mha.w_k.shape == (64, 64)
    out_mha, _ = attention_layer(x, w_mha, shape_mha, rope_theta=10000.0)
    np.testing.assert_allclose(out_mha, out, atol=1e-12)
    # and kv = heads is plain multi-head attention: each head uses its own k/v columns
    np.testing.assert_allclose(out_mha, reference_layer(x, w_mha, shape_mha, 10000.0), atol=1e-10)


def test_shape_trace_records_each_tensor_with_its_own_shape():
    """06's shape table: k keeps its KV heads through RoPE; only repeat_kv widens it to the query heads."""
    shape = LayerShape(48, 6, 2, 8)
    x = np.random.default_rng(5).standard_normal((3, 48))
    trace = []
    attention_layer(x, random_layer(shape, seed=1), shape, rope_theta=10000.0, trace=trace)
    shapes = dict(trace)
    assert shapes["RoPE(q)"] == (3, 6, 8) and shapes["RoPE(k)"] == (3, 2, 8)
    assert shapes["repeat_kv(k), repeat_kv(v)"] == (3, 6, 8)
    assert [step for step, _ in trace].index("RoPE(k)") < [step for step, _ in trace].index("repeat_kv(k), repeat_kv(v)")
    assert shape_trace_rows(trace)[0] == ["x", "[3, 48]"]
    with pytest.raises(TypeError, match="trace"):
        shape_trace_rows("x")


def test_repeat_kv_order():
    x = np.arange(2 * 3 * 1).reshape(2, 3, 1)
    r = repeat_kv(x, 2)
    assert r[0, :, 0].tolist() == [0, 0, 1, 1, 2, 2]


def test_rope_preserves_norms_and_depends_on_offset_only():
    rng = np.random.default_rng(0)
    q = rng.standard_normal((1, 1, 16))
    k = rng.standard_normal((1, 1, 16))
    for pos in (0, 1, 77, 5000):
        assert np.linalg.norm(apply_rope(q, [pos], 500000.0)) == pytest.approx(np.linalg.norm(q))

    def score(m, n):
        return float((apply_rope(q, [m], 500000.0) * apply_rope(k, [n], 500000.0)).sum())

    assert score(5, 2) == pytest.approx(score(105, 102), abs=1e-9)
    assert score(3, 3) == pytest.approx(score(0, 0), abs=1e-12)
    assert abs(score(5, 2) - score(5, 4)) > 1e-3
    cos, sin = rope_angles([0, 1], 8, 10000.0)
    assert cos.shape == (2, 8) and cos[0].tolist() == [1.0] * 8 and sin[1, 0] == pytest.approx(np.sin(1.0))


def test_permutation_invariance_without_rope_only():
    shape = LayerShape(32, 4, 2, 8)
    w = random_layer(shape, seed=5)
    x = np.random.default_rng(6).standard_normal((5, 32))
    perm = x[[2, 0, 3, 1, 4]]
    a, _ = attention_layer(x, w, shape, rope_theta=None)
    b, _ = attention_layer(perm, w, shape, rope_theta=None)
    np.testing.assert_allclose(a[4], b[4], atol=1e-12)
    a, _ = attention_layer(x, w, shape, rope_theta=10000.0)
    b, _ = attention_layer(perm, w, shape, rope_theta=10000.0)
    assert np.abs(a[4] - b[4]).max() > 1e-3


def test_layer_cache_equals_full_pass():
    shape = LayerShape(48, 6, 2, 8)
    w = random_layer(shape, seed=7)
    x = np.random.default_rng(8).standard_normal((7, 48))
    full, _ = attention_layer(x, w, shape, rope_theta=10000.0)
    cache = LayerCache()
    first, _ = attention_layer(x[:3], w, shape, rope_theta=10000.0, cache=cache)
    steps = [attention_layer(x[i:i + 1], w, shape, rope_theta=10000.0, cache=cache)[0] for i in range(3, 7)]
    np.testing.assert_allclose(np.vstack([first, *steps]), full, atol=1e-12)
    assert len(cache) == 7


@pytest.mark.parametrize("kwargs, message", [
    (dict(hidden=32, num_heads=6, num_kv_heads=4, head_dim=8), r"num_kv_heads \(4\) must divide num_heads \(6\); choose one of \[1, 2, 3, 6\]"),
    (dict(hidden=32, num_heads=0, num_kv_heads=1, head_dim=8), "num_heads must be >= 1"),
])
def test_layer_shape_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        LayerShape(**kwargs)


def test_layer_input_validation():
    shape = LayerShape(32, 4, 2, 8)
    w = random_layer(shape)
    with pytest.raises(ValueError, match=r"x must have shape \(n, 32\), got \(3, 16\)"):
        attention_layer(np.zeros((3, 16)), w, shape)
    bad = random_layer(LayerShape(32, 4, 4, 8))
    with pytest.raises(ValueError, match="w_k must have shape"):
        attention_layer(np.zeros((3, 32)), bad, shape)
    with pytest.raises(ValueError, match="head_dim must be even"):
        rope_angles([0], 7, 10000.0)
