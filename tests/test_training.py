"""10_learning_to_attend: the task, the hand-written backward pass, training, the explorer, exercises."""
import re

import numpy as np
import pytest

from helpers import example, exercises, scaled_dot_product_attention, scaling, training, widgets
from helpers.attention import softmax as helpers_softmax
from helpers.exercises import learning_to_attend as exercises_training


def shown_numbers(html):
    return [float(x) for x in re.findall(r"-?\d+\.\d+", re.sub(r"<[^>]+>", " ", html))]


# ---- gradients -----------------------------------------------------------------------------------
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


# ---- the task and the training ---------------------------------------------------------------------
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


# ---- the explorer ---------------------------------------------------------------------------------------
def test_learning_explorer_step_slider():
    e = widgets.learning_explorer()
    run = training.trained_run()
    data = training.encode([training.EXAMPLES[0]])
    for step in (0, 20, 40, run.steps):
        before = e.renders
        e.controls["step"].value = step
        assert e.renders == before + 1 or step == 0
        expected = training.attention_on_item(run.params_at(step), data)[0]
        assert e.state["weights"][1] == pytest.approx(expected)
        shown = re.search(r'class="item">([\d.]+)<', e.readout.value).group(1)
        assert float(shown) == round(expected, 3)
        assert float(re.search(r'class="acc">([\d.]+)<', e.readout.value).group(1)) == round(
            run.test_accuracy_at(step), 3)
        heights = [bar.get_height() for bar in e.weights.bars.bars[:4]]
        np.testing.assert_allclose(heights, e.state["weights"])
        assert e.marker.get_xdata()[0] == step
    assert e.state["weights"][1] > 0.9  # at the end the weight sits on 假


def test_learning_explorer_sentence_picker_and_memo():
    e = widgets.learning_explorer()
    run = training.trained_run()
    sentence = "假 下周 年 怎么 如何 申请"
    e.set(step=run.steps, sentence=sentence)
    words = tuple(sentence.split())
    assert e.state["words"] == words and e.state["item"] == 0
    assert [t.get_text() for t in e.weights.words] == [*words, ""]
    fwd = training.forward(run.params_at(run.steps), training.encode([words]))
    assert shown_numbers(e.readout.value)[2:8] == [round(x, 3) for x in fwd.weights[0, :6]]
    final = run.params_at(run.steps)
    np.testing.assert_allclose(e.table.image.get_array(),
                               training.centred(training.kind_score_table(final["W_Q"], final["W_K"])))
    first = e.state
    e.set(step=0)
    e.set(step=run.steps)
    assert e.state is first


# ---- exercises (registered in helpers.exercises as 10-1 … 10-3) --------------------------------------------
def check(key, answer):
    """``(verdict, printed text)`` of ``helpers.exercises.check``."""
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        ok = exercises.check(key, answer)
    return ok, buffer.getvalue()


def test_training_exercises_are_registered_with_the_others():
    assert {"10-1", "10-2", "10-3"} <= set(exercises.EXERCISES)
    assert exercises.EXERCISES["10-1"] is exercises_training.EXERCISES["10-1"]
    assert exercises.REFERENCES["10-1"] == exercises_training.REFERENCES["10-1"]


def test_softmax_backward_exercise_right_wrong_boundary():
    p, g = np.array(exercises_training.BACKWARD_WEIGHTS), np.array(exercises_training.BACKWARD_UPSTREAM)
    by_hand = p * (g - p @ g)  # (diag(p) − p pᵀ) g without building the matrix
    expected, working = exercises.EXERCISES["10-1"].solve()
    np.testing.assert_allclose(expected[:3], by_hand, atol=1e-12)
    assert expected[3] == 0.0 and "-0.00" not in working  # the sum is exactly 0, printed without a sign
    right = [f"{v:.2f}" for v in by_hand] + ["0"]
    for answer in (right, [float(v) for v in right], ", ".join(right), "，".join(right), f"“{' '.join(right)}”",
                   "０．２５，－０．１５，－０．１０，０"):
        ok, out = check("10-1", answer)
        assert ok is True and out.startswith("✔"), answer
    for wrong in ([*right[:3], "1"], ["0.5", "0", "0", "0"], ["0.25", "0.15", "0.10", "0.5"]):
        ok, out = check("10-1", wrong)
        assert ok is False and "答案是 [0.25, -0.15, -0.10, 0.00]" in out and working in out
    # two decimals, no slack: 0.254 rounds to 0.25, 0.256 to 0.26; the same on the sum either side of 0
    assert check("10-1", [0.254, *right[1:]])[0] is True and check("10-1", [0.256, *right[1:]])[0] is False
    assert check("10-1", [*right[:3], -0.004])[0] is True and check("10-1", [*right[:3], 0.006])[0] is False


@pytest.mark.parametrize("key", ["10-1", "10-2", "10-3"])
@pytest.mark.parametrize("bad, hint", [
    (None, "还没有作答"), ([0.25, -0.15, -0.10], "要 4 个数"), ("0.1 0.2 0.3 0.4 0.5", "你填了 5 个"),
    ("zero", "要 4 个数"), ("零，零，零，零", "没能从"), ("0.1, 0.2, abc, 0.4", "没能从"), ({"a": 1}, "不要用字典"),
    ([0.1, float("nan"), 0.2, 0.3], "有限"), ("0.1, 0.2, 0.3, 0.4GiB", "单位"),
])
def test_training_exercises_answer_malformed_input_with_a_hint(key, bad, hint):
    ok, out = check(key, bad)
    assert ok is None and hint in out and "✔" not in out and "✘" not in out


def test_kind_weights_exercise():
    """Exercise 2: the kind-only softmax of the step-35 动作 row, recomputed here by hand."""
    run = training.trained_run()
    p = run.params_at(exercises_training.KIND_STEP)
    table = training.centred(training.kind_score_table(p["W_Q"], p["W_K"]))
    row = table[training.KINDS.index("动作")]
    scores = np.array([row[training.KINDS.index(training.KIND_OF[w])] for w in exercises_training.KIND_SENTENCE])
    by_hand = np.exp(scores) / np.exp(scores).sum()
    expected, _ = exercises.EXERCISES["10-2"].solve()
    np.testing.assert_allclose(expected, by_hand)
    ok, out = check("10-2", [f"{v:.2f}" for v in by_hand])
    assert ok is True
    # the checker also prints the model's own weights, which differ (identity dimensions)
    model = training.forward(p, training.encode([exercises_training.KIND_SENTENCE])).weights[0, :4]
    assert np.abs(model - by_hand).max() > 0.02 and f"{model[1]:.2f}" in out
    assert check("10-2", np.full(4, 0.25))[0] is False
    # two decimals with one unit of slack: working from the table's rounded scores stays right
    rounded_scores = np.round(scores, 2)
    from_table = np.exp(rounded_scores) / np.exp(rounded_scores).sum()
    assert check("10-2", np.round(from_table, 2))[0] is True
    centre = np.round(by_hand[1], 2)
    assert check("10-2", [by_hand[0], centre + 0.014, *by_hand[2:]])[0] is True
    assert check("10-2", [by_hand[0], centre + 0.016, *by_hand[2:]])[0] is False


@pytest.fixture(scope="module")
def small_sqrt_d():
    """A small √d experiment standing in for the notebook's (which takes seconds)."""
    return training.sqrt_d_experiment((2, 16), steps=40, init_seeds=(0,))


def test_slowdown_ratios_from_a_small_experiment(small_sqrt_d):
    ratios = exercises_training.slowdown_by_d(small_sqrt_d)
    rows = {(r["d"], r["scaled"]): r for r in small_sqrt_d}
    steps = {key: training.SQRT_D_STEPS if r["steps_to_target"][0] is None else r["steps_to_target"][0]
             for key, r in rows.items()}
    assert ratios == {d: steps[(d, False)] / steps[(d, True)] for d in (2, 16)}


def test_slowdown_ratios_exercise():
    """Exercise 3 on the notebook's own experiment: medians over the draws, "—" counted as the step limit."""
    rows = training.sqrt_d_experiment()
    median = {(r["d"], r["scaled"]): np.median([training.SQRT_D_STEPS if s is None else s
                                                for s in r["steps_to_target"]]) for r in rows}
    by_hand = [median[(d, False)] / median[(d, True)] for d in training.SQRT_D_DIMS]
    expected, working = exercises.EXERCISES["10-3"].solve()
    np.testing.assert_allclose(expected, by_hand)
    answer = [f"{v:.2f}" for v in by_hand]
    assert check("10-3", answer)[0] is True
    ok, out = check("10-3", answer[::-1])
    assert ok is False and "增加得最多" in out and f"d = {training.SQRT_D_DIMS[int(np.argmax(by_hand))]}" in out
    assert check("10-3", [float(answer[0]) + 0.016, *answer[1:]])[0] is False
    assert check("10-3", [float(answer[0]) + 0.014, *answer[1:]])[0] is True


# ---- figures ---------------------------------------------------------------------------------------------
def test_figures_have_legends_scales_and_mark_the_untrained_rows():
    import matplotlib.pyplot as plt

    from helpers.figures import learning_to_attend as training_plots

    run, baseline = training.trained_run(), training.trained_run(fixed_positions=True)
    fig = training_plots.curves_figure(run, baseline)
    fig.canvas.draw()
    ax_loss, ax_acc = fig.axes
    assert ax_loss.get_legend() is not None and ax_acc.get_legend() is not None
    # the accuracy legend sits above the 1/4 chance line, not on it
    box = ax_acc.get_legend().get_window_extent().transformed(ax_acc.transData.inverted())
    assert box.y0 > 1 / len(training.ITEMS)
    plt.close(fig)

    final = run.params_at(run.steps)
    learned = training.centred(training.kind_score_table(final["W_Q"], final["W_K"]))
    fig = training_plots.score_tables_figure(learned, training.centred(training.article_score_table()))
    assert len(fig.axes) == 4  # two tables, two colourbars
    hatched = [p for p in fig.axes[0].patches if p.get_hatch()]
    assert sorted(round(p.get_y() + 0.5) for p in hatched) == list(training_plots.UNTRAINED_ROWS)
    boxes = [p for ax in fig.axes[:2] for p in ax.patches if not p.get_hatch() and p.get_visible()]
    assert [round(b.get_y() + 0.5) for b in boxes] == [training.KINDS.index("动作")] * 2
    plt.close(fig)
