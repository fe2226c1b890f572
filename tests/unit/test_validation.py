"""Bad input anywhere in helpers: a ValueError/TypeError naming the argument (helpers.render.validation)."""
import numpy as np
import pytest
from tiny_model import tiny_model

from helpers import config, example, layer, reading, real_model, scaling, tiled, training, weighting
from helpers.attention import causal_mask, scaled_dot_product_attention, softmax
from helpers.plots import head_mosaic
from helpers.render import validation
from helpers.render.validation import head_pairs

RNG = np.random.default_rng(16)

Q, K, V = RNG.standard_normal((3, 4, 2))

SHAPE = layer.LayerShape(8, 2, 1, 4)


@pytest.mark.parametrize("scale", [float("nan"), float("inf")])
def test_tiled_attention_rejects_nan_or_inf_scale(scale):
    with pytest.raises(ValueError, match=r"scale must be a finite number, got (nan|inf)"):
        tiled.tiled_attention(Q, K, V, scale=scale)


def test_tiled_attention_overflowing_scores_raise_like_ordinary_attention():
    q = np.full((4, 2), 1e200)
    with pytest.raises(ValueError, match="q, k or scale too large"):
        scaled_dot_product_attention(q, q, V)
    with pytest.raises(ValueError, match="q, k, v or scale too large"):
        tiled.tiled_attention(q, q, V, block=2)


def test_layer_weights_with_nan_are_refused_naming_the_matrix():
    w = layer.random_layer(SHAPE)
    w_o = w.w_o.copy()
    w_o[0, 0] = np.nan
    with pytest.raises(ValueError, match=r"w_o contains NaN"):
        layer.LayerWeights(w.w_q, w.w_k, w.w_v, w_o)


def test_hand_row_with_scores_near_1e4_gives_finite_exponentials_relative_to_the_max():
    q = np.array([100.0, 100.0])                  # scores q·k/√2 up to ≈ 1.4e4
    k = np.array([[100.0, 0.0], [70.0, 70.0], [0.0, 0.0]])
    row = example.hand_row(q, k, np.eye(3, 2))
    assert np.isfinite(row.exps).all() and np.isfinite(row.total)
    assert row.shift == pytest.approx(row.scores.max())
    np.testing.assert_allclose(row.exps, np.exp(row.scores - row.scores.max()))
    np.testing.assert_allclose(row.exps / row.total, row.weights)
    np.testing.assert_allclose(row.weights, softmax(row.scores))
    # the article's small numbers keep the raw e^s (shift 0)
    qkv = example.running_qkv()
    article = example.hand_row(qkv.q[3], qkv.k, qkv.v)
    assert article.shift == 0.0 and round(article.total, 3) == 23.032


def test_sink_sequence_with_negative_strength_is_refused():
    with pytest.raises(ValueError, match=r"strength must be >= 0.0, got -1.0"):
        reading.sink_sequence(8, 4, strength=-1.0)


@pytest.mark.parametrize("delta, expected", [(1e4, 1.0), (-1e4, 0.0), (800.0, 1.0)])
def test_dilution_with_a_huge_margin_is_evaluated_in_log_space(delta, expected):
    w = reading.dilution_weight(delta, np.array([2, 1024, 131072]), sigma=0.5)
    assert np.isfinite(w).all()
    np.testing.assert_allclose(w, expected, atol=1e-12)
    assert 0.0 <= reading.dilution_simulated(delta, 64, trials=4) <= 1.0


def test_dilution_with_a_nan_margin_is_refused():
    with pytest.raises(ValueError, match="delta must be a finite number, got nan"):
        reading.dilution_weight(float("nan"), 16)
    with pytest.raises(ValueError, match="delta too large"):
        reading.half_weight_n(1e4)


def test_influence_with_weights_one_zero_is_refused():
    values = np.eye(2)
    with pytest.raises(ValueError, match="weights puts .*all its weight on position 0"):
        reading.ablation_influence([1.0, 0.0], values)
    with pytest.raises(ValueError, match="weights puts .*all its weight on position 0"):
        reading.ablation_influence_analytic([1.0, 0.0], values)


def test_perplexity_of_a_one_token_text_is_refused():
    with pytest.raises(ValueError, match=r"ids needs at least 2 token ids, got 1"):
        real_model.perplexity(tiny_model(), [5])
    assert np.isfinite(real_model.perplexity(tiny_model(), [5, 6, 7]))


@pytest.mark.parametrize("scale", [0, -1.0])
def test_scale_zero_or_negative_is_refused(scale):
    for fn in (scaled_dot_product_attention, tiled.tiled_attention):
        with pytest.raises(ValueError, match=rf"scale must be > 0.0, got {float(scale)!r}"):
            fn(Q, K, V, scale=scale)


def test_row_whose_scores_overflow_to_minus_inf_is_not_read_as_masked():
    q = np.array([[1e200, 1e200]])
    k = np.array([[-1e200, -1e200], [-1e200, -1e200]])
    with pytest.raises(ValueError, match="q, k or scale too large"):
        scaled_dot_product_attention(q, k, np.eye(2))


def test_boolean_keep_mask_follows_torch():
    keep = np.array([[True, False, True, False]] * 4)
    _, w_bool = scaled_dot_product_attention(Q, K, V, mask=keep)
    _, w_add = scaled_dot_product_attention(Q, K, V, mask=np.where(keep, 0.0, -np.inf))
    assert (w_bool[:, [1, 3]] == 0.0).all()
    np.testing.assert_array_equal(w_bool, w_add)
    # a list of booleans is read the same way, and through the layer too
    _, w_list = scaled_dot_product_attention(Q, K, V, mask=keep.tolist())
    np.testing.assert_array_equal(w_list, w_bool)
    x = RNG.standard_normal((4, 8))
    _, attn = layer.attention_layer(x, layer.random_layer(SHAPE), SHAPE, causal=False, mask=keep)
    assert (attn[:, :, [1, 3]] == 0.0).all()


def test_causal_mask_of_a_non_integer_is_refused():
    with pytest.raises(TypeError, match="n_queries must be an integer, got float 2.5"):
        causal_mask(2.5)
    with pytest.raises(TypeError, match="n_keys must be an integer, got bool True"):
        causal_mask(2, True)


def test_rotate_half_on_an_odd_dimension_is_refused():
    with pytest.raises(ValueError, match=r"x must have an even last dimension .* got shape \(2, 3\)"):
        layer.rotate_half(np.ones((2, 3)))


def test_repeat_kv_zero_times_is_refused():
    with pytest.raises(ValueError, match="n_rep must be >= 1, got 0"):
        layer.repeat_kv(np.ones((4, 1, 2)), 0)


def test_random_layer_with_an_integer_dtype_is_refused():
    with pytest.raises(TypeError, match="dtype must be a floating type"):
        layer.random_layer(SHAPE, dtype=np.int32)
    assert layer.random_layer(SHAPE, dtype=np.float32).w_q.dtype == np.float32


def _config(**changes):
    fields = dict(name="c", hidden_size=8, num_layers=1, num_heads=2, num_kv_heads=1, head_dim=4,
                  intermediate_size=16, vocab_size=10, rope_theta=1e4, tie_word_embeddings=True, source="s")
    return config.ModelConfig(**{**fields, **changes})


def test_config_with_a_negative_rope_base_or_boolean_size_is_refused():
    with pytest.raises(ValueError, match=r"rope_theta must be > 1.0, got -10000.0"):
        _config(rope_theta=-1e4)
    with pytest.raises(TypeError, match="hidden_size must be an integer, got bool True"):
        _config(hidden_size=True)


def test_float_token_ids_are_refused_not_truncated():
    with pytest.raises(TypeError, match="ids must hold integer token ids, got ndarray .* float64"):
        real_model.forward(tiny_model(), [1.5, 2.0])


def test_top_k_of_minus_one_is_refused():
    with pytest.raises(ValueError, match="k must be >= 1, got -1"):
        real_model.next_token_top(tiny_model(), [1, 2], k=-1)
    assert len(real_model.next_token_top(tiny_model(), [1, 2], k=3)) == 3


def test_negative_max_new_tokens_is_refused():
    with pytest.raises(ValueError, match="max_new_tokens must be >= 0, got -2"):
        real_model.generate(tiny_model(), [1, 2], -2)
    assert len(real_model.generate(tiny_model(), [1, 2], 3)) == 3


def test_three_weights_for_four_tokens_are_refused():
    with pytest.raises(ValueError, match=r"fixed must have shape \(4\), got shape \(3,\)"):
        weighting.fixed_vs_content([1.0, 1.0, 1.0])


def test_empty_input_names_the_argument():
    with pytest.raises(ValueError, match=r"x is empty \(shape \(0,\)\)"):
        softmax([])
    with pytest.raises(ValueError, match=r"weights is empty"):
        reading.ablation_influence([], np.zeros((0, 2)))
    with pytest.raises(ValueError, match=r"ns is empty"):
        tiled.time_naive_vs_tiled([])


def test_nan_error_names_the_callers_argument():
    x = RNG.standard_normal((4, 8))
    x[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"^x contains NaN"):
        layer.attention_layer(x, layer.random_layer(SHAPE), SHAPE, rope_theta=1e4)
    with pytest.raises(ValueError, match=r"^x contains NaN"):
        weighting.content_weights(np.full((4, 4), np.nan))


def test_no_zero_division_for_zero_columns():
    with pytest.raises(ValueError, match="cols must be >= 1, got 0"):
        head_mosaic(np.zeros((2, 3, 3)), cols=0)


def test_lists_are_accepted_where_arrays_are():
    np.testing.assert_array_equal(layer.rotate_half([1.0, 2.0, 3.0, 4.0]), [-3.0, -4.0, 1.0, 2.0])
    assert layer.repeat_kv([[[1.0, 2.0]]], 2).shape == (1, 2, 2)
    np.testing.assert_allclose(real_model.rms_norm([[3.0, 4.0]], [1, 1], 1e-12), [[3, 4] / np.sqrt(12.5)])
    assert scaling.softmax_jacobian([0.5, 0.5]).shape == (2, 2)
    assert scaling.jacobian_norms([[0.5, 0.5]]).shape == (1,)
    assert np.isfinite(scaling.jacobian_norm([1, 2, 3]))   # integers converted: the maths is real-valued
    out, _ = scaled_dot_product_attention([[1, 0]], [[1, 0], [0, 1]], [[1, 2], [3, 4]])
    assert out.dtype == np.float64


def test_positions_out_of_range_are_value_errors_naming_them():
    with pytest.raises(ValueError, match=r"query_position must be a position in -4…3, got 10"):
        weighting.content_weights(example.X, query_position=10)
    model = tiny_model()
    result = real_model.forward(model, [1, 2, 3], keep_inputs=True)
    with pytest.raises(ValueError, match=r"layer must be a position in -2…1, got 99"):
        real_model.head_values(model, result, 99)
    with pytest.raises(ValueError, match=r"caches must be a list of 2 LayerCache objects"):
        real_model.forward(model, [1, 2], caches=[layer.LayerCache()])


def test_raw_numpy_errors_are_replaced_by_named_ones():
    cache = layer.LayerCache()
    cache.append(np.zeros((2, 1, 4)), np.zeros((2, 1, 4)))
    with pytest.raises(ValueError, match=r"k and v must match the cached \(kv_heads, d\)"):
        cache.append(np.zeros((1, 2, 4)), np.zeros((1, 2, 4)))
    with pytest.raises(ValueError, match="positions has 2 entries but x has 3 rows"):
        layer.apply_rope(np.zeros((3, 1, 4)), [0, 1], 1e4)
    with pytest.raises(ValueError, match=r"weight's 6 rows must split into n_heads = 2 heads"):
        real_model.unpermute_qk(np.zeros((6, 4)), 2)
    small = layer.random_layer(layer.LayerShape(8, 2, 2, 4))
    with pytest.raises(ValueError, match=r"weights.w_k must have shape \(8, 4\)"):
        layer.attention_layer(np.zeros((3, 8)), small, SHAPE)


def test_growth_fit_of_degenerate_data_is_a_clear_error_without_lapack_chatter(capfd):
    with pytest.raises(ValueError, match="ns needs at least two different lengths"):
        tiled.growth_exponent([8, 8], [1.0, 2.0])
    with pytest.raises(ValueError, match="seconds must be times > 0"):
        tiled.growth_exponent([8, 16], [0.0, 1.0])
    with pytest.raises(ValueError, match="seconds contains NaN"):
        tiled.growth_exponent([8, 16], [np.nan, 1.0])
    assert capfd.readouterr().err == ""
    assert tiled.growth_exponent([8, 16, 32], [1.0, 4.0, 16.0]) == pytest.approx(2.0)


def test_as_real_array_says_what_was_expected_and_given():
    with pytest.raises(TypeError, match=r"w must be an array of real numbers .* got str 'ab'"):
        validation.as_real_array("w", "ab")
    with pytest.raises(TypeError, match="w must hold real numbers, got booleans"):
        validation.as_real_array("w", [True, False])
    with pytest.raises(ValueError, match=r"w must have shape \(any, 2\), got shape \(2, 3\)"):
        validation.as_real_array("w", np.zeros((2, 3)), shape=(None, 2))
    with pytest.raises(ValueError, match="w must be a rectangular array"):
        validation.as_real_array("w", [[1, 2], [3]])
    assert validation.as_real_array("w", (1, 2)).dtype == np.float64


def test_integer_refuses_floats_and_booleans():
    assert validation.positive_int("n", np.int64(3)) == 3
    for bad, kind in ((2.0, "float"), (True, "bool"), ("3", "str")):
        with pytest.raises(TypeError, match=f"n must be an integer, got {kind}"):
            validation.positive_int("n", bad)
    with pytest.raises(ValueError, match="n must be <= 1,000,000"):
        validation.positive_int("n", 10 ** 12)


def test_load_model_path_is_checked_before_reading():
    with pytest.raises(TypeError, match="path must be a file path"):
        real_model.load_model(["model.gguf"])
    with pytest.raises(ValueError, match="path must be an existing GGUF file"):
        real_model.load_model("/nonexistent/model.gguf")


def test_head_pairs_names_the_argument_for_a_numpy_scalar_or_a_0d_array():
    for bad in (np.int64(1), np.array(1)):
        with pytest.raises(TypeError, match="sender must hold"):
            head_pairs("sender", [bad], 2, 2)
    assert head_pairs("sender", [np.array([1, 0])], 2, 2) == {1: (0,)}


def test_seeds_are_a_non_empty_list_of_distinct_seeds_named_as_the_learner_wrote_them():
    assert validation.seeds("init_seeds", range(3)) == (0, 1, 2)
    assert validation.seeds("init_seeds", np.array([4, 2])) == (4, 2)
    with pytest.raises(ValueError, match="init_seeds must name at least one seed, got none"):
        validation.seeds("init_seeds", [])
    with pytest.raises(ValueError, match=r"init_seeds must be distinct \(each seed names one draw\)"):
        validation.seeds("init_seeds", (1, 1))
    with pytest.raises(TypeError, match="init_seeds must be a list of seeds"):
        validation.seeds("init_seeds", 3)
    with pytest.raises(TypeError, match="init_seeds"):
        validation.seeds("init_seeds", [0.5])
    with pytest.raises(ValueError, match="init_seeds"):
        validation.seeds("init_seeds", [-1])
    with pytest.raises(ValueError, match=r"init_seeds must be a flat list of seeds"):
        validation.seeds("init_seeds", np.zeros((2, 2), dtype=int))
    with pytest.raises(ValueError, match=r"len\(seeds\) must be at most 2 \(each is a forward pass\), got 3"):
        validation.seeds("seeds", [0, 1, 2], limit=2, why="each is a forward pass")



def test_whole_numbers_are_a_flat_int64_array_named_as_the_caller_wrote_it():
    got = validation.whole_numbers("kept", [0, 3.0, 7])
    assert got.dtype == np.int64 and got.tolist() == [0, 3, 7]
    assert validation.whole_numbers("kept", []).shape == (0,)
    for bad in ([1.5], [-1], [10 ** 7]):
        with pytest.raises(ValueError, match=r"kept must hold whole numbers in 0…1,000,000"):
            validation.whole_numbers("kept", bad)
    with pytest.raises(ValueError, match="kept must have rank 1"):
        validation.whole_numbers("kept", [[1, 2]])
    with pytest.raises(ValueError, match="kept contains NaN"):
        validation.whole_numbers("kept", [1.0, float("nan")])

def test_the_experiment_s_initial_draws_go_through_the_one_seed_list_check():
    with pytest.raises(ValueError, match="init_seeds must be distinct"):
        training.sqrt_d_experiment((2,), steps=3, init_seeds=(0, 0))
