"""helpers.smaller_cache (``14_shrinking_caches``): every equality the notebook claims, at the shapes it
claims it, to 1e-10 in float64 — MLA naive ≡ absorbed ≡ MQA over one latent head; StreamingLLM's rolling
cache ≡ one pass with the sinks' distances changed; a learned sink logit ≡ one factor per row ≡ a
zero-valued key — and the inequalities it shows (RoPE on the whole key, recomputing the kept tokens)."""
import numpy as np
import pytest

import helpers
from helpers.smaller_cache import latent, sink_logit, streaming

#: float64 sums of at most a few thousand products: two orders differ by ~1e-13 relative, so 1e-10
#: (the notebook's bound) leaves three orders of margin and still fails any real difference
EQUAL = 1e-10


@pytest.fixture(scope="module")
def mla():
    shape = latent.SMALL
    return shape, latent.random_mla(shape, seed=0), np.random.default_rng(1).standard_normal((12, shape.hidden))


def test_small_is_deepseek_v3_divided_by_16():
    v3, small = latent.DEEPSEEK_V3, latent.SMALL
    assert (v3.num_heads, v3.kv_lora_rank, v3.qk_nope_head_dim, v3.qk_rope_head_dim, v3.v_head_dim) == (128, 512, 128, 64, 128)
    assert (small.num_heads, small.kv_lora_rank, small.qk_nope_head_dim, small.qk_rope_head_dim) == (8, 32, 8, 4)
    assert v3.latent_numbers() == 576 and v3.expanded_numbers() == 128 * (192 + 128)


def test_naive_absorbed_and_mqa_forms_are_one_computation(mla):
    shape, w, x = mla
    naive, p_naive = latent.mla_naive(x, w, shape)
    absorbed, p_absorbed = latent.mla_absorbed(x, w, shape)
    as_mqa, p_mqa = latent.mla_as_mqa(x, w, shape)
    assert np.abs(naive - absorbed).max() < EQUAL and np.abs(naive - as_mqa).max() < EQUAL
    assert np.abs(p_naive - p_absorbed).max() < EQUAL and np.abs(p_naive - p_mqa).max() < EQUAL


def test_the_forms_agree_at_other_positions_and_shapes():
    shape = latent.DEEPSEEK_V3.scaled_down(32)
    w = latent.random_mla(shape, seed=5)
    x = np.random.default_rng(2).standard_normal((7, shape.hidden))
    positions = np.arange(100, 107)
    assert np.abs(latent.mla_naive(x, w, shape, positions)[0] - latent.mla_absorbed(x, w, shape, positions)[0]).max() < EQUAL


def test_the_direct_fold_of_rope_on_the_whole_key_misses(mla):
    # the gap is of the size of the outputs themselves (~1), nothing like rounding
    shape, w, x = mla
    expanded, folded = latent.coupled_rope_outputs(x, w, shape)
    assert expanded.shape == folded.shape == (shape.num_heads, len(x), shape.v_head_dim)
    assert np.abs(expanded - folded).max() > 0.1


def test_a_wrong_scale_is_not_the_layer(mla):
    # the scale is the head's key width: the absorbed query's width changes every weight
    shape, w, x = mla
    naive, _ = latent.mla_naive(x, w, shape)
    assert np.abs(latent.mla_absorbed(x, w, shape, scale=shape.scale)[0] - naive).max() < EQUAL
    assert np.abs(latent.mla_absorbed(x, w, shape, scale=1 / np.sqrt(shape.latent_numbers()))[0] - naive).max() > 0.1


def test_the_one_kv_head_s_value_is_the_start_of_its_key(mla):
    shape, w, x = mla
    key, value = latent.mqa_key_value(latent.project(x, w, shape))
    assert key.shape == (len(x), shape.latent_numbers()) and np.array_equal(value, key[:, :shape.kv_lora_rank])


def test_the_scale_is_the_heads_key_width():
    assert latent.SMALL.scale == pytest.approx(1 / np.sqrt(12))


def test_wrong_shapes_are_named():
    shape = latent.SMALL
    w = latent.random_mla(shape)
    with pytest.raises(ValueError, match="x must have shape"):
        latent.mla_naive(np.zeros((3, 5)), w, shape)
    with pytest.raises(ValueError, match="qk_rope_head_dim must be even"):
        latent.MLAShape(64, 2, 16, 8, 4, 3, 4)


@pytest.fixture(scope="module")
def tiny():
    return streaming.random_decoder(0), np.random.default_rng(3).integers(0, 64, 40)


@pytest.mark.parametrize("window, sinks", [(8, 4), (5, 2), (8, 0), (40, 4), (1, 1)])
def test_the_rolling_cache_is_the_one_pass_with_cache_positions(tiny, window, sinks):
    model, ids = tiny
    rolled = streaming.rolling_decode(model, ids, window=window, sinks=sinks, mlp_dtype=np.float64)
    once = streaming.streaming_logits(model, ids, window=window, sinks=sinks, mlp_dtype=np.float64)
    # logits of 3 layers of float64 sums: the two differ by the order of their sums only
    assert np.abs(rolled.logits - once).max() < EQUAL


def test_only_the_sinks_distances_differ(tiny):
    model, ids = tiny
    for t in range(40):
        cache, text = (streaming.distances(t, 8, 4, p) for p in streaming.POSITIONS)
        assert set(cache) == set(text)
        assert all(cache[j] == text[j] for j in cache if j >= 4)
        assert all(cache[j] == min(t, 11) - j for j in cache if j < 4)
    no_sink = [streaming.streaming_logits(model, ids, window=8, sinks=0, positions=p, mlp_dtype=np.float64)
               for p in streaming.POSITIONS]
    assert np.array_equal(*no_sink)   # the same code on the same input: no sink column is touched
    with_sink = [streaming.streaming_logits(model, ids, window=8, sinks=4, positions=p, mlp_dtype=np.float64)
                 for p in streaming.POSITIONS]
    assert np.abs(with_sink[0][:12] - with_sink[1][:12]).max() < EQUAL   # nothing evicted before position 12
    assert np.abs(with_sink[0][12:] - with_sink[1][12:]).max() > 0.1


def test_text_positions_are_09s_streaming_mask(tiny):
    model, ids = tiny
    mine = streaming.streaming_logits(model, ids, window=8, sinks=4, positions="text")
    theirs = helpers.real_model.forward(model, ids, mask=helpers.real_model.streaming_mask(40, 8, sink=4)).logits
    # the same float32 MLP and float64 attention, summed in the same order where the products are shaped alike
    assert np.abs(mine - theirs).max() < 1e-4


def test_the_rolling_cache_is_not_a_recomputed_window(tiny):
    model, ids = tiny
    rolled = streaming.rolling_decode(model, ids, window=6, sinks=2, mlp_dtype=np.float64)
    again = streaming.recomputed_keys(model, ids, rolled.kept[0])
    gaps = [np.abs(a - b).max() for a, b in zip(rolled.keys, again)]
    assert gaps[0] < EQUAL and min(gaps[1:]) > 0.1
    assert list(rolled.kept[0]) == [0, 1, *range(34, 40)]


def test_stored_losses_cover_every_variant():
    stored = streaming.load()
    assert set(stored.losses) == set((w, s, p if s else "text") for w, s, p in streaming.variants())
    n = len(stored.ids)
    assert n > 1000 and all(len(v) == n - 1 and np.isfinite(v).all() for v in stored.losses.values())
    full = stored.perplexity()
    assert all(stored.perplexity(w) > full for w in streaming.WINDOWS)
    with pytest.raises(ValueError, match="no stored run"):
        stored.of(48, 4, "cache")


def _sink_case():
    rng = np.random.default_rng(6)
    q, k, v = rng.standard_normal((3, 4, 6, 8))
    return q, k, v, np.array([0.5, 2.0, -1.0, 4.0])


def test_a_sink_logit_only_rescales_each_row():
    q, k, v, sink = _sink_case()
    out, w = sink_logit.sink_attention(q, k, v, sink)
    plain, w_plain = helpers.scaled_dot_product_attention(q, k, v, causal=True)
    factor = sink_logit.row_factor(q @ np.swapaxes(k, -1, -2) / np.sqrt(8) + helpers.causal_mask(6), sink)[..., None]
    # six-term float64 sums: rounding is ~1e-16
    assert np.abs(w - w_plain * factor).max() < 1e-12 and np.abs(out - plain * factor).max() < 1e-12
    assert np.abs(out - sink_logit.sink_as_zero_value(q, k, v, sink)).max() < 1e-12
    assert (w.sum(axis=-1) < 1).all() and (np.argmax(w, -1) == np.argmax(w_plain, -1)).all()


def test_a_sink_with_a_value_is_another_output():
    q, k, v, sink = _sink_case()
    out, _ = sink_logit.sink_attention(q, k, v, sink)
    assert np.abs(sink_logit.sink_with_a_value(q, k, v, sink, np.ones(8)) - out).max() > 0.1


def test_sink_shapes_are_named():
    with pytest.raises(ValueError, match="sink must be one number, or one per head"):
        sink_logit.softmax_with_sink(np.zeros((2, 3, 3)), np.zeros(5))
