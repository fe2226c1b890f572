"""helpers.layer's RoPE and Llama-3.1's rope_scaling against the published rule."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import config, layer
from helpers.config import LLAMA_3_1_8B, SMOLLM2_135M, ModelConfig, RopeScaling


def published_llama3(head_dim, theta, factor, low_freq_factor, high_freq_factor, old_context_len):
    """Meta's ``apply_scaling`` (llama-models) written out pair by pair with ``math``."""
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    out = []
    for i in range(head_dim // 2):
        freq = 1.0 / math.pow(theta, 2 * i / head_dim)
        wavelen = 2 * math.pi / freq
        if wavelen < high_freq_wavelen:
            out.append(freq)
        elif wavelen > low_freq_wavelen:
            out.append(freq / factor)
        else:
            smooth = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
            out.append((1 - smooth) * freq / factor + smooth * freq)
    return np.array(out)


# A tiny layer on which all three kinds of pair occur: wavelengths 6.3, 62.8, 628, 6283 against
# 64/4 = 16 (shorter: unchanged) and 64/1 = 64 (longer: slowed 8×), so pair 1 is blended.
SMALL_THETA = 10000.0


SMALL_SCALING = RopeScaling(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                            original_max_position_embeddings=64)


def test_presets_carry_the_published_rope_scaling():
    s = LLAMA_3_1_8B.rope_scaling
    assert (s.rope_type, s.factor, s.low_freq_factor, s.high_freq_factor, s.original_max_position_embeddings) \
        == ("llama3", 8.0, 1.0, 4.0, 8192)
    assert config.LLAMA_3_1_70B.rope_scaling == s
    assert config.LLAMA_3_2_1B.rope_scaling.factor == config.LLAMA_3_2_3B.rope_scaling.factor == 32.0
    assert LLAMA_3_1_8B.max_position_embeddings == 131072
    assert SMOLLM2_135M.rope_scaling is None


def test_llama_3_1_8b_inverse_frequencies_match_the_published_rule():
    cfg, s = LLAMA_3_1_8B, LLAMA_3_1_8B.rope_scaling
    got = layer.rope_inv_freq(cfg.head_dim, cfg.rope_theta, s)
    want = published_llama3(cfg.head_dim, cfg.rope_theta, s.factor, s.low_freq_factor, s.high_freq_factor,
                            s.original_max_position_embeddings)
    assert got.shape == (64,)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


def test_short_wavelengths_unchanged_long_ones_slowed_by_the_factor():
    cfg = LLAMA_3_1_8B
    plain = layer.rope_wavelengths(cfg.head_dim, cfg.rope_theta)
    scaled = layer.rope_wavelengths(cfg.head_dim, cfg.rope_theta, cfg.rope_scaling)
    short, long_ = plain < 2048, plain > 8192
    middle = ~short & ~long_
    assert short.any() and long_.any() and middle.any()
    np.testing.assert_array_equal(scaled[short], plain[short])
    np.testing.assert_allclose(scaled[long_], plain[long_] * 8, rtol=1e-15)
    assert np.all((scaled[middle] > plain[middle]) & (scaled[middle] < plain[middle] * 8))
    assert np.all(np.diff(scaled) > 0)  # the blend keeps the pairs in order: no two swap speeds


def test_smollm2_stays_plain():
    cfg = SMOLLM2_135M
    plain = [1.0 / math.pow(cfg.rope_theta, 2 * i / cfg.head_dim) for i in range(cfg.head_dim // 2)]
    np.testing.assert_allclose(layer.rope_inv_freq(cfg.head_dim, cfg.rope_theta, cfg.rope_scaling), plain, rtol=1e-13)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([8, 16, 64, 128]), st.sampled_from([10000.0, 100000.0, 500000.0]),
       st.floats(1.0, 64.0), st.floats(0.5, 2.0), st.floats(0.5, 6.0), st.sampled_from([64, 1024, 8192]))
def test_rule_matches_the_published_loop_for_any_parameters(head_dim, theta, factor, low, gap, length):
    scaling = RopeScaling("llama3", factor, low, low + gap, length)
    got = layer.rope_inv_freq(head_dim, theta, scaling)
    want = published_llama3(head_dim, theta, factor, low, low + gap, length)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    plain = layer.rope_inv_freq(head_dim, theta)
    assert np.all(got <= plain * (1 + 1e-15)) and np.all(got >= plain / factor * (1 - 1e-15))


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(factor=0.0), ValueError, r"factor must be > 0\.0, got 0\.0"),
    (dict(factor=-8.0), ValueError, r"factor must be > 0\.0, got -8\.0"),
    (dict(low_freq_factor=4.0), ValueError, r"high_freq_factor must be greater than low_freq_factor \(4\.0\), got 4\.0"),
    (dict(high_freq_factor=0.5), ValueError, r"high_freq_factor must be greater than low_freq_factor \(1\.0\), got 0\.5"),
    (dict(rope_type="yarn"), ValueError, r"rope_type must be one of \[.llama3.\], got str .yarn."),
    (dict(original_max_position_embeddings=0), ValueError, r"original_max_position_embeddings must be >= 1, got 0"),
])
def test_bad_scaling_names_the_field(kwargs, error, message):
    fields = dict(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                  original_max_position_embeddings=8192) | kwargs
    with pytest.raises(error, match=message):
        RopeScaling(**fields)


def test_scaling_of_the_wrong_kind_is_refused():
    with pytest.raises(TypeError, match=r"scaling must be a helpers\.config\.RopeScaling or None, got \{"):
        layer.rope_inv_freq(128, 500000.0, {"rope_type": "llama3", "factor": 8.0})
    fields = {f: getattr(SMOLLM2_135M, f) for f in SMOLLM2_135M.__dataclass_fields__}
    with pytest.raises(TypeError, match="rope_scaling must be a RopeScaling or None, got 'llama3'"):
        ModelConfig(**fields | {"rope_scaling": "llama3"})
    with pytest.raises(ValueError, match="max_position_embeddings must be >= 1, got 0"):
        ModelConfig(**fields | {"max_position_embeddings": 0})


def test_scaled_rope_is_the_published_rotation_and_differs_from_plain():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 2, 8))
    positions = [0, 40, 300]
    freqs = published_llama3(8, SMALL_THETA, 8.0, 1.0, 4.0, 64)
    want = x.copy()
    for row, pos in enumerate(positions):
        for i, f in enumerate(freqs):
            a, b = x[row, :, i], x[row, :, i + 4]
            want[row, :, i] = a * np.cos(pos * f) - b * np.sin(pos * f)
            want[row, :, i + 4] = b * np.cos(pos * f) + a * np.sin(pos * f)
    got = layer.apply_rope(x, positions, SMALL_THETA, SMALL_SCALING)
    np.testing.assert_allclose(got, want, atol=1e-12)
    assert np.abs(got - layer.apply_rope(x, positions, SMALL_THETA)).max() > 0.1


def test_scaled_layer_gqa_equals_its_mha_expansion():
    shape = layer.LayerShape(64, 8, 2, 8)
    w = layer.random_layer(shape, seed=3)
    x = np.random.default_rng(4).standard_normal((5, 64))
    kw = dict(rope_theta=SMALL_THETA, rope_scaling=SMALL_SCALING, positions=np.arange(200, 205))
    out, _ = layer.attention_layer(x, w, shape, **kw)
    w_mha, shape_mha = layer.expand_gqa_to_mha(w, shape)
    np.testing.assert_allclose(layer.attention_layer(x, w_mha, shape_mha, **kw)[0], out, atol=1e-12)
    plain, _ = layer.attention_layer(x, w, shape, rope_theta=SMALL_THETA, positions=np.arange(200, 205))
    assert np.abs(out - plain).max() > 1e-3


def test_scaled_rope_preserves_norms_and_depends_on_offset_only():
    rng = np.random.default_rng(0)
    q = rng.standard_normal((1, 1, 16))
    k = rng.standard_normal((1, 1, 16))
    scaling = LLAMA_3_1_8B.rope_scaling
    for pos in (0, 1, 77, 5000, 131071):
        assert np.linalg.norm(layer.apply_rope(q, [pos], 500000.0, scaling)) == pytest.approx(np.linalg.norm(q))

    def score(m, n, s=scaling):
        return float((layer.apply_rope(q, [m], 500000.0, s) * layer.apply_rope(k, [n], 500000.0, s)).sum())

    assert score(20005, 2) == pytest.approx(score(120005, 100002), abs=1e-8)
    assert score(3, 3) == pytest.approx(score(0, 0), abs=1e-12)
    assert abs(score(20005, 2) - score(20005, 2, None)) > 1e-3


def test_scaled_layer_cache_equals_full_pass():
    shape = layer.LayerShape(48, 6, 2, 8)
    w = layer.random_layer(shape, seed=7)
    x = np.random.default_rng(8).standard_normal((7, 48))
    kw = dict(rope_theta=SMALL_THETA, rope_scaling=SMALL_SCALING)
    pos = np.arange(100, 107)
    full, _ = layer.attention_layer(x, w, shape, positions=pos, **kw)
    cache = layer.LayerCache()
    first, _ = layer.attention_layer(x[:3], w, shape, positions=pos[:3], cache=cache, **kw)
    steps = [layer.attention_layer(x[i:i + 1], w, shape, positions=pos[i:i + 1], cache=cache, **kw)[0] for i in range(3, 7)]
    np.testing.assert_allclose(np.vstack([first, *steps]), full, atol=1e-12)


def test_rope_scores_are_rotated_dot_products():
    rng = np.random.default_rng(5)
    q, k = rng.standard_normal((2, 3, 16))
    scaling = LLAMA_3_1_8B.rope_scaling
    distances = [0, 16, 4096, 131072]
    got = layer.rope_scores(q, k, distances, 500000.0, scaling)
    assert got.shape == (4, 3)
    for a, m in enumerate(distances):
        for b in range(3):
            qr = layer.apply_rope(q[b][None, None], [m], 500000.0, scaling)
            assert got[a, b] == pytest.approx(float((qr * k[b]).sum()) / 4.0, abs=1e-12)
    np.testing.assert_allclose(layer.rope_scores(q[1], k[1], distances, 500000.0, scaling), got[:, 1])
    np.testing.assert_allclose(got[0], (q * k).sum(axis=1) / 4.0)
    with pytest.raises(ValueError, match=r"q and k must have the same shape, got \(3, 16\) and \(16,\)"):
        layer.rope_scores(q, k[0], distances, 500000.0)
