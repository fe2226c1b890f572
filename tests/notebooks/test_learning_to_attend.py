"""``10_learning_to_attend``: the checkpoint explorer, the exercises and the figures."""
import re

import numpy as np
import pytest
from exercise_checks import check
from explorer_checks import shown_numbers

from helpers import exercises, training, widgets
from helpers.exercises import learning_to_attend as exercises_training
from helpers.figures import learning_to_attend as training_plots


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


def test_figures_have_legends_scales_and_mark_the_untrained_rows():
    import matplotlib.pyplot as plt


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
