"""helpers.attention: softmax, the causal mask, scaled dot-product attention."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from helpers import causal_mask, scaled_dot_product_attention, softmax

finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False)


def test_softmax_extreme_scores_neither_overflow_nor_nan():
    w = softmax(np.array([1e4, -1e4, 0.0, 1e4]))
    assert np.isfinite(w).all()
    np.testing.assert_allclose(w, [0.5, 0.0, 0.0, 0.5])


def test_softmax_neg_inf_gets_exactly_zero():
    w = softmax(np.array([[0.0, -np.inf, 1.0]]))
    assert w[0, 1] == 0.0
    assert w.sum() == pytest.approx(1.0)


def test_softmax_fully_masked_row_is_all_zero():
    w = softmax(np.array([[-np.inf, -np.inf], [0.0, 0.0]]))
    assert (w[0] == 0.0).all()
    np.testing.assert_allclose(w[1], [0.5, 0.5])


def test_softmax_any_axis():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(softmax(x, axis=0).sum(axis=0), 1.0)
    np.testing.assert_allclose(softmax(x, axis=0), softmax(x.T, axis=-1).T)


@pytest.mark.parametrize("bad, message", [
    (np.array([1.0, np.nan]), "NaN"),
    (np.array([1.0, np.inf]), r"\+inf"),
    (3.0, "scalar"),
])
def test_softmax_rejects_bad_input(bad, message):
    with pytest.raises(ValueError, match=message):
        softmax(bad)


def test_softmax_axis_out_of_range():
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        softmax(np.zeros((2, 2)), axis=2)


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=6), elements=finite),
       st.floats(-100, 100))
def test_softmax_rows_sum_to_one_and_shift_invariant(x, shift):
    w = softmax(x)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(softmax(x + shift), w, atol=1e-12)


def test_causal_mask_shape_and_values():
    m = causal_mask(3)
    assert m.shape == (3, 3)
    assert np.isneginf(m[0, 1]) and m[1, 0] == 0.0 and m[2, 2] == 0.0
    # decoding: 1 query at the end of 4 keys sees all of them
    assert (causal_mask(1, 4) == 0).all()
    with pytest.raises(ValueError, match="n_keys"):
        causal_mask(3, 2)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 7), st.integers(1, 5), st.integers(0, 10_000))
def test_masked_weights_are_exactly_zero(n, d, seed):
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(3, n, d))
    _, w = scaled_dot_product_attention(q, k, v, causal=True)
    assert (w[np.triu_indices(n, 1)] == 0.0).all()
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 8), st.integers(1, 4), st.integers(0, 10_000), st.data())
def test_causal_output_ignores_later_tokens(n, d, seed, data):
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(3, n, d))
    i = data.draw(st.integers(0, n - 2))
    out, _ = scaled_dot_product_attention(q, k, v, causal=True)
    q2, k2, v2 = q.copy(), k.copy(), v.copy()
    for a in (q2, k2, v2):
        a[i + 1:] = rng.normal(size=a[i + 1:].shape)
    out2, _ = scaled_dot_product_attention(q2, k2, v2, causal=True)
    np.testing.assert_array_equal(out[: i + 1], out2[: i + 1])


def test_scale_none_means_inverse_sqrt_d():
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(3, 4, 8))
    a, _ = scaled_dot_product_attention(q, k, v)
    b, _ = scaled_dot_product_attention(q, k, v, scale=8 ** -0.5)
    np.testing.assert_allclose(a, b, rtol=1e-14)


def test_heads_shape_and_additive_mask():
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(3, 2, 5, 4))
    out, w = scaled_dot_product_attention(q, k, v, mask=causal_mask(5))
    assert out.shape == (2, 5, 4) and w.shape == (2, 5, 5)
    out_c, w_c = scaled_dot_product_attention(q, k, v, causal=True)
    np.testing.assert_array_equal(w, w_c)
    # each head equals the 2-D computation
    out0, _ = scaled_dot_product_attention(q[0], k[0], v[0], causal=True)
    np.testing.assert_allclose(out[0], out0)


@pytest.mark.parametrize("q, k, v, kwargs, message", [
    (np.zeros((4, 2)), np.zeros((4, 3)), np.zeros((4, 2)), {}, r"share the last dimension d, got q \(4, 2\) and k \(4, 3\)"),
    (np.zeros((4, 2)), np.zeros((4, 2)), np.zeros((3, 2)), {}, r"v must have shape .* got v \(3, 2\)"),
    (np.zeros(2), np.zeros((4, 2)), np.zeros((4, 2)), {}, r"q must have rank 2 or 3, got shape \(2,\)"),
    (np.zeros((4, 0)), np.zeros((4, 0)), np.zeros((4, 2)), {}, r"q is empty \(shape \(4, 0\)\)"),
    (np.full((4, 2), np.nan), np.zeros((4, 2)), np.zeros((4, 2)), {}, "q contains NaN"),
    (np.zeros((4, 2)), np.full((4, 2), np.inf), np.zeros((4, 2)), {}, "k contains inf"),
    (np.zeros((4, 2)), np.zeros((4, 2)), np.zeros((4, 2)), {"mask": np.zeros((3, 3))}, r"mask must have shape \(4, 4\)"),
    (np.zeros((4, 2)), np.zeros((4, 2)), np.zeros((4, 2)), {"scale": 0}, "scale must be > 0"),
    (np.zeros((2, 4, 2)), np.zeros((3, 4, 2)), np.zeros((3, 4, 2)), {}, "same number of heads"),
])
def test_attention_rejects_bad_input_with_clear_message(q, k, v, kwargs, message):
    with pytest.raises(ValueError, match=message):
        scaled_dot_product_attention(q, k, v, **kwargs)


def test_target_loss_is_minus_log_softmax_at_the_target_and_names_bad_targets():
    from helpers.attention import target_loss

    logits = np.random.default_rng(0).standard_normal((2, 3, 7)).astype(np.float32)
    targets = np.array([[0, 6, 3], [1, 1, 2]])
    want = -np.log(softmax(logits.astype(np.float64)))
    got = target_loss(logits, targets)
    assert got.dtype == np.float64 and got.shape == (2, 3)
    # float32 logits: the row maximum and the differences are float32, the sum float64
    np.testing.assert_allclose(got, np.take_along_axis(want, targets[..., None], axis=-1)[..., 0], rtol=1e-6)
    assert target_loss(np.array([1e4, 0.0]), np.array(0)) == 0.0       # no overflow for a huge logit
    with pytest.raises(ValueError, match=r"targets must be ids in 0…6"):
        target_loss(logits, targets + 1)
    with pytest.raises(TypeError, match=r"targets must be integer ids of shape \(2, 3\)"):
        target_loss(logits, targets[0])
    with pytest.raises(ValueError, match="logits must have a vocabulary axis"):
        target_loss(1.0, 0)
