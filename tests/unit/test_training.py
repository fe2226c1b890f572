"""helpers.training: the task, the model and its backward pass, Adam, the readouts, the √d experiment."""
import numpy as np
import pytest

from helpers import example, scaled_dot_product_attention, scaling, training
from helpers.attention import softmax as helpers_softmax
from helpers.exercises import learning_to_attend as exercises_training


@pytest.mark.parametrize("d, scaled, fixed, seed", [(1, True, False, 0), (3, False, False, 1), (2, True, True, 2),
                                                     (5, True, False, 3), (4, False, False, 4)])
def test_backward_matches_central_differences(d, scaled, fixed, seed):
    errors = training.gradient_check(d, n_sentences=6, seed=seed, scaled=scaled, fixed_positions=fixed)
    expected = {"W_V", "W_O", "b_O"} | ({"bias"} if fixed else {"W_Q", "W_K"})
    assert set(errors) == expected
    assert max(errors.values()) <= 1e-6, errors


def test_a_wrong_gradient_is_caught_by_the_check():
    """The check is not vacuous: perturbing the analytic gradient makes the error large."""
    data = training.encode(training.random_sentences(4, 5))
    params = training.init_params(2, 5)
    _, grads = training.loss_and_grads(params, data)
    numeric = training.numerical_gradient(params, data)
    assert training.relative_error(grads["W_K"] * 1.01, numeric["W_K"]) > 1e-3


def test_softmax_backward_is_the_jacobian_of_notebook_04():
    rng = np.random.default_rng(0)
    for n in (1, 3, 7):
        p = helpers_softmax(rng.standard_normal(n))
        g = rng.standard_normal(n)
        np.testing.assert_allclose(training.softmax_backward(p, g), scaling.softmax_jacobian(p) @ g, atol=1e-15)
    with pytest.raises(ValueError, match="same shape"):
        training.softmax_backward([0.5, 0.5], [1.0, 0.0, 0.0])


def test_backward_steps_expose_the_softmax_step():
    data = training.encode([training.EXAMPLES[0]])
    params = training.init_params(2)
    steps = training.backward_steps(params, data)
    p = training.forward(params, data).weights[0, :4]
    np.testing.assert_allclose(scaling.softmax_jacobian(p) @ steps["d_weights"][0, :4], steps["d_scores"][0, :4],
                               atol=1e-15)
    _, grads = training.loss_and_grads(params, data)
    for name in grads:
        np.testing.assert_array_equal(steps["grads"][name], grads[name])


def test_forward_equals_the_literal_attention_of_the_series():
    """The regrouped forward (x·(W_K q), (Σ p x) W_V) equals forming every k_j and v_j."""
    params = training.init_params(3, 7)
    data = training.encode(training.EXAMPLES)
    fwd = training.forward(params, data)
    for b, words in enumerate(data.tokens):
        x = data.x[b, : len(words)]
        q, k, v = x[-1:] @ params["W_Q"], x @ params["W_K"], x @ params["W_V"]
        out, weights = scaled_dot_product_attention(q, k, v)
        np.testing.assert_allclose(fwd.weights[b, : len(words)], weights[0], rtol=1e-12)
        np.testing.assert_allclose(fwd.output[b], out[0], rtol=1e-12)
        assert np.all(fwd.weights[b, len(words):] == 0)
    unscaled = training.forward(params, data, scaled=False)
    assert not np.allclose(unscaled.weights, fwd.weights)


def test_sentences_follow_the_rules():
    data = training.dataset("train")
    assert len(data) == 512
    for words, target, pos in zip(data.tokens, data.target, data.item_pos):
        kinds = [training.KIND_OF[w] for w in words]
        assert kinds[-1] == "动作" and kinds.count("事项") == 1 and kinds.count("动作") == 1
        assert words[pos] == training.ITEMS[target]
        assert training.MIN_LEN <= len(words) <= training.MAX_LEN
    # the 事项 word is not at a fixed place
    assert len(set(data.item_pos.tolist())) == training.MAX_LEN - 1
    assert set(training.dataset("test").tokens) != set(data.tokens)


@pytest.mark.parametrize("bad, match", [
    ([("猫", "假", "怎么", "申请")], "not in the vocabulary"),
    ([("年", "假", "怎么", "如何")], "end with an 动作"),
    ([("假", "报销", "怎么", "申请")], "exactly one 事项"),
    ([("假", "申请")], "4…7 words"),
    ([], "non-empty"),
    ("年假怎么申请", "non-empty"),
])
def test_encode_rejects_bad_sentences(bad, match):
    with pytest.raises(ValueError, match=match):
        training.encode(bad)


def test_argument_validation_names_the_argument():
    with pytest.raises(ValueError, match="d must be"):
        training.init_params(0)
    with pytest.raises(ValueError, match="seed must be"):
        training.embeddings(-1)
    with pytest.raises(TypeError, match="params must be a dict"):
        training.forward([1, 2], training.dataset("train"))
    with pytest.raises(TypeError, match="data must be Sentences"):
        training.forward(training.init_params(2), [("年", "假", "怎么", "申请")])
    bad = training.init_params(2)
    bad["W_K"] = np.zeros((3, 2))
    with pytest.raises(ValueError, match=r"params\['W_K'\] must have shape"):
        training.forward(bad, training.dataset("train"))
    with pytest.raises(ValueError, match="split must be one of"):
        training.dataset("dev")
    with pytest.raises(ValueError, match="stop_at must be"):
        training.train(2, steps=1, stop_at=2.0)
    with pytest.raises(ValueError, match="step must be one of the checkpoints"):
        training.trained_run().params_at(7)


def test_adam_first_step_moves_every_entry_by_the_learning_rate():
    params = {"w": np.array([1.0, -2.0, 0.5])}
    training.Adam(0.1).step(params, {"w": np.array([3.0, -0.001, 1e-3])})
    np.testing.assert_allclose(params["w"], [0.9, -1.9, 0.4], atol=1e-6)


def test_training_is_deterministic():
    a = training.train(2, steps=5, checkpoints=(5,))
    b = training.train(2, steps=5, checkpoints=(5,))
    assert a.loss == b.loss
    for name in a.params_at(5):
        np.testing.assert_array_equal(a.params_at(5)[name], b.params_at(5)[name])


def test_fixed_weights_fail_and_attention_learns_to_find_the_item():
    run, baseline = training.trained_run(), training.trained_run(fixed_positions=True)
    assert baseline.test_accuracy_at(baseline.steps) < 0.6
    assert run.test_accuracy_at(run.steps) > 0.95
    assert run.loss[-1] < 0.1 * run.loss[0]
    test = training.dataset("test")
    start = training.attention_on_item(run.params_at(0), test).mean()
    end = training.attention_on_item(run.params_at(run.steps), test).mean()
    assert start < 0.3 < 0.9 < end


def test_learned_table_points_action_at_items_and_untrained_rows_stay_put():
    run = training.trained_run()
    final, start = run.params_at(run.steps), run.params_at(0)
    table = training.centred(training.kind_score_table(final["W_Q"], final["W_K"]))
    assert training.KINDS[int(np.argmax(table[training.KINDS.index("动作")]))] == "事项"
    # only the 动作 row of W_Q ever gets a gradient: the query is always an 动作 word
    np.testing.assert_array_equal(final["W_Q"][:3], start["W_Q"][:3])
    assert not np.allclose(final["W_Q"][3], start["W_Q"][3])


def test_score_table_is_invariant_to_any_invertible_a_and_matches_the_article():
    rng = np.random.default_rng(1)
    w_q, w_k = rng.standard_normal((6, 3)), rng.standard_normal((6, 3))
    rotation, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    np.testing.assert_allclose(training.kind_score_table(w_q @ rotation, w_k @ rotation),
                               training.kind_score_table(w_q, w_k), atol=1e-12)
    a = rng.standard_normal((3, 3)) + 3 * np.eye(3)  # invertible, not orthogonal
    np.testing.assert_allclose(training.kind_score_table(w_q @ a, w_k @ np.linalg.inv(a).T),
                               training.kind_score_table(w_q, w_k), atol=1e-10)
    # the article's 动作 row: 申请's q = [2, 0] against unit 事项/时间/疑问/动作 keys, ÷√2
    np.testing.assert_allclose(training.article_score_table()[3], np.array([2, 2, 0, 0]) / np.sqrt(2))
    np.testing.assert_allclose(training.centred([[1.0, 3.0]]), [[-1.0, 1.0]])
    with pytest.raises(ValueError, match="w_q and w_k"):
        training.kind_score_table(example.W_Q, np.zeros((4, 3)))


def test_sqrt_d_start_saturates_without_the_scale():
    """Same initial draw, scaled vs not: at d = 128 the unscaled start is far more peaked."""
    rows = {(r.d, r.scaled): r for r in (training.train(d, scaled=s, steps=1, checkpoints=(), test_every=None)
                                          for d in (2, 128) for s in (True, False))}
    assert rows[(128, False)].init_max_weight > 0.8 > 0.5 > rows[(128, True)].init_max_weight
    assert rows[(128, False)].init_saturated > 0.2 and rows[(128, True)].init_saturated == 0
    assert abs(rows[(2, False)].init_max_weight - rows[(2, True)].init_max_weight) < 0.1


def test_baseline_spreads_its_weight_at_every_distance():
    """The failure reason the notebook prints: the fixed weights never single out the 事项 word."""
    test = training.dataset("test")
    np.testing.assert_array_equal(test.item_distance, test.lengths - 1 - test.item_pos)
    assert set(test.item_distance.tolist()) == set(range(1, training.MAX_LEN))
    base, run = training.trained_run(fixed_positions=True), training.trained_run()
    rows = training.by_item_distance(base.params_at(base.steps), test)
    assert sum(n for n, _, _ in rows.values()) == len(test)
    assert all(w < 0.4 and a < 0.7 for _, w, a in rows.values())
    learned = training.by_item_distance(run.params_at(run.steps), test)
    assert all(w > 0.9 and a > 0.95 for _, w, a in learned.values())
    # the same numbers straight from a forward pass, for one distance
    fwd = training.forward(base.params_at(base.steps), test)
    far = test.item_distance == 3
    assert rows[3][1] == pytest.approx(fwd.weights[far, test.item_pos[far]].mean())


def test_action_row_is_the_centred_table_row():
    run = training.trained_run()
    for step in (0, 35, run.steps):
        p = run.params_at(step)
        np.testing.assert_allclose(training.action_row(p),
                                   training.centred(training.kind_score_table(p["W_Q"], p["W_K"]))[3])
    with pytest.raises(ValueError, match="W_Q and W_K"):
        training.action_row(training.init_params(2, fixed_positions=True))


def test_sqrt_d_experiment_rows():
    rows = training.sqrt_d_experiment((2,), steps=30, init_seeds=(0, 1))
    assert [(r["d"], r["scaled"]) for r in rows] == [(2, True), (2, False)]
    for r in rows:
        assert len(r["steps_to_target"]) == 2 and len(r["final_item_weight"]) == 2
        assert all(s is None or 0 <= s <= 30 for s in r["steps_to_target"])
        assert r["grad_qk"] > 0 and 0 < r["init_max_weight"] < 1
    ratios = exercises_training.slowdown_by_d(rows)
    assert set(ratios) == {2} and ratios[2] > 0
    assert rows[0]["init_saturated"] == pytest.approx(np.mean(rows[0]["init_saturated_each"]))
    pairs = training.sqrt_d_pairs(rows)
    assert [(p["d"], p["draw"]) for p in pairs] == [(2, 0), (2, 1)]
    for p in pairs:
        assert p["steps"][True] == rows[0]["steps_to_target"][p["draw"]]
        assert p["steps"][False] == rows[1]["steps_to_target"][p["draw"]]
        assert p["saturated"] == rows[1]["init_saturated_each"][p["draw"]]
