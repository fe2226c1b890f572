"""``11_learning_a_circuit``: what the notebook shows — its explorer's step slider, its figures, its exercises,
and that the stored history is the same run as the stored sweep."""
import json
import re

import numpy as np
import pytest
from exercise_checks import check
from explorer_checks import shown_numbers

from helpers import circuit, plots, widgets
from helpers.circuit import history, sweep
from helpers.exercises import learning_a_circuit as circuit_exercises
from helpers.figures.learning_a_circuit import CircuitPatterns
from tools.series import NOTEBOOKS


def test_the_notebook_is_listed_and_its_exercises_carry_its_number():
    assert "11_learning_a_circuit" in NOTEBOOKS
    assert sorted(circuit_exercises.EXERCISES) == ["11-1", "11-2", "11-3"]


def test_the_history_is_the_sweeps_two_layer_seed_0_run():
    """The explorer's checkpoints and the sweep's curves come from one run: equal at every shared step."""
    h, run = history.load(), sweep.table("two_layers")[0]
    assert h.steps[0] == 0 and h.steps[-1] == history.STEPS and np.all(np.diff(h.steps) == history.EVERY)
    for i, step in enumerate(h.steps):
        assert h.repeat_loss[i] == run.value_at("repeat_loss", int(step))
        assert h.previous[i][0].max() == run.value_at("previous", int(step))
        assert h.induction[i][1].max() == run.value_at("induction", int(step))
    assert h.patterns.dtype == np.float32 and h.patterns.shape[1:] == (2, 2, 32, 32)
    np.testing.assert_allclose(h.patterns.sum(axis=-1), 1.0, atol=1e-5)       # rows of softmax weights
    assert np.all(np.triu(h.patterns, k=1) == 0)                               # causal


def test_the_shown_sequence_has_the_stated_repeat():
    seq = history.shown_sequence()
    assert len(seq) == 1 and seq.repeat[0] == history.SHOWN_REPEAT
    first, second, r = int(seq.first[0]), int(seq.second[0]), int(seq.repeat[0])
    np.testing.assert_array_equal(seq.tokens[0, first:first + r], seq.tokens[0, second:second + r])
    assert seq.marked(0).count("「") == 2


def test_circuit_explorer_step_slider_shows_the_stored_numbers():
    e = widgets.circuit_explorer()
    h = history.load()
    for step in (0, 350, 550, int(h.steps[-1])):
        e.set(step=step)
        i = h.index(step)
        assert e.state["step"] == step
        np.testing.assert_array_equal(e.state["patterns"], h.patterns[i])
        shown = shown_numbers(e.readout.value)
        assert shown[0] == round(float(h.repeat_loss[i]), 3) and shown[1] == round(float(h.other_loss[i]), 3)
        assert shown[2] == round(float(h.previous[i][0].max()), 3)
        assert shown[3] == round(float(h.induction[i][1].max()), 3)
        prev_head = int(np.argmax(h.previous[i][0]))
        assert f"（头 {prev_head}）" in e.readout.value
        mesh = e.panels.meshes[2 + int(np.argmax(h.induction[i][1]))]            # layer 1's best head
        drawn = np.ma.filled(mesh.get_array(), np.nan).reshape(32, 32)
        np.testing.assert_allclose(np.tril(drawn), np.tril(h.patterns[i][1, int(np.argmax(h.induction[i][1]))]))
        assert np.isnan(drawn[np.triu_indices(32, k=1)]).all()                    # the future is masked
        title = e.panels.titles[1].get_text()
        assert f"前一个 token {h.previous[i][0][1]:.2f}" in title
    with pytest.raises(ValueError, match="step"):
        e.set(step=13)


def test_the_induction_head_grows_across_the_drop_in_the_explorer():
    h, run = history.load(), sweep.table("two_layers")[0]
    start, end = run.drop
    assert h.induction[h.index(start)][1].max() < circuit.positional_ceiling() + 0.05
    assert h.induction[h.index(end)][1].max() > 0.6


def test_the_figures_draw_the_stored_curves():
    run = sweep.table("two_layers")[0]
    fig = plots.phase_change_figure(run, vocab=32, ceiling=0.19)
    loss_ax, score_ax = fig.axes
    lines = {line.get_label(): line for ax in fig.axes for line in ax.get_lines()}
    np.testing.assert_array_equal(lines["重复段里可预测的 token"].get_ydata(), run.curves["repeat_loss"])
    np.testing.assert_array_equal(lines["第 1 层最好的归纳分数"].get_ydata(), run.curves["induction"])
    assert loss_ax.patches and score_ax.patches           # the drop window, shaded in both
    band = loss_ax.patches[0]  # a Rectangle on matplotlib ≥ 3.9, a Polygon before: read its outline
    extent = band.get_path().transformed(band.get_patch_transform()).get_extents()
    x0, x1 = extent.x0, extent.x1
    assert (x0, x1) == run.drop
    fig = plots.sweep_figure({"两层": sweep.table("two_layers"), "一层": sweep.table("one_layer")})
    assert len(fig.axes[0].get_lines()) == 10
    fig = plots.sweep_figure({"两层": sweep.table("two_layers"), "一层": sweep.table("one_layer")}, vocab=32)
    lines = fig.axes[0].get_lines()
    guess = [line for line in lines if line.get_label() == "瞎猜（ln 32）"]
    assert len(lines) == 11 and len(guess) == 1 and guess[0].get_linestyle() == "--"
    np.testing.assert_allclose(guess[0].get_ydata(), np.log(32))
    assert "瞎猜（ln 32）" in [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    with pytest.raises(ValueError, match="vocab must be"):
        plots.sweep_figure({"两层": sweep.table("two_layers")}, vocab=0)


def test_the_pattern_figures_say_which_step_they_show():
    h, shown = history.load(), history.shown_sequence()
    assert plots.patterns_at_figure(h, 350, shown, note="骤降开始")._suptitle.get_text() == "第 350 步（骤降开始）"
    assert plots.patterns_at_figure(h, 0, shown)._suptitle.get_text() == "第 0 步"
    with pytest.raises(TypeError, match="note must be"):
        plots.patterns_at_figure(h, 0, shown, note=3)


def test_the_explorers_summary_is_shown_once_and_its_picture_names_the_step():
    """The step's numbers (losses, best scores) are in the readout only; the figure's title names the
    step, so the static preview (no kernel) still says which checkpoint it shows."""
    e = widgets.circuit_explorer()
    h = history.load()
    for step in (int(h.steps[-1]), 350):
        e.set(step=step)
        i = h.index(step)
        assert e.summary.get_text() == f"第 {step} 步"
        assert f"{h.repeat_loss[i]:.3f}" in e.readout.value and f"{h.induction[i][1].max():.3f}" in e.readout.value
        assert f"{h.repeat_loss[i]:.3f}" not in e.summary.get_text()
    e.restore_defaults()
    assert e.summary.get_text() == f"第 {int(h.steps[-1])} 步"
    assert e.summary in e._animated                       # redrawn on every move, drawn in the preview


def test_every_step_is_drawn_when_the_explorer_is_made_and_its_picture_is_small():
    """A first visit to a step in JupyterLab waited for the kernel to draw (60–110 ms) and for a
    174 KB picture: every checkpoint's picture is now drawn once up front, so a move draws nothing,
    and each picture stays under 150 KiB."""
    e = widgets.circuit_explorer()
    e.render = lambda: pytest.fail("a move drew a picture: it should have been drawn up front")
    for step in reversed([int(t) for t in history.load().steps]):
        e.set(step=step)
        assert e.summary.get_text() == f"第 {step} 步" and len(e.png) < 150 * 1024


def test_exercise_1_the_drop_comes_earlier_with_a_larger_learning_rate():
    starts = circuit_exercises.drop_starts()
    assert np.median(starts["1e-2"]) < np.median(starts["3e-3"]) < np.median(starts["1e-3"])
    assert check("11-1", "更早")[0] is True
    assert check("11-1", "earlier")[0] is True
    ok, text = check("11-1", "更晚")
    assert ok is False and "答案是 更早" in text and "1e-2" in text
    assert check("11-1", "快")[0] is None and check("11-1", [1])[0] is None


def test_exercise_2_reads_the_induction_heads_pattern():
    r = circuit_exercises.induction_look()
    # the row needs reading: the head misses the aligned target, following a later occurrence of its token
    assert abs(r["key"] - r["target"]) > 2 and r["key"] - 1 in r["earlier"] and len(r["earlier"]) >= 2
    assert r["weight"] > 0.3                  # and clearly: the next-largest weight of that row is far lower
    h = history.load()
    row = np.sort(h.patterns[h.index(r["step"])][1, r["head"], r["query"]])
    assert row[-1] - row[-2] > 0.15
    assert check("11-2", r["key"])[0] is True
    assert check("11-2", str(r["key"]))[0] is True
    assert check("11-2", r["key"] - 1)[0] is True      # one cell off reading the figure still counts
    ok, text = check("11-2", r["target"])             # the formula's answer, without reading the figure
    assert ok is False and f"位置 {r['key']}" in text
    assert check("11-2", "六")[0] is None


def test_exercise_3_the_fixed_variants_first_query_and_target():
    task = circuit.Task(fixed=True)
    assert check("11-3", [task.fixed_second, task.fixed_first + 1])[0] is True
    ok, text = check("11-3", [task.fixed_second, task.fixed_first])
    assert ok is False and str(task.fixed_second) in text
    assert check("11-3", "16")[0] is None


def test_no_stored_output_gives_an_answer_away():
    """The notebook's stored outputs never print an exercise's answer line (the checker's working)."""
    from paths import ROOT

    nb = json.loads((ROOT / "notebooks" / "11_learning_a_circuit.ipynb").read_text())
    text = "".join("".join(o.get("text", "")) for c in nb["cells"] if c["cell_type"] == "code"
                   for o in c.get("outputs", []))
    assert "骤降开始于" not in text and "权重最大的键" not in text
    assert not re.search(r"lr_high|1e-2", text)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="steps must be"):
        history.record(steps=history.STEPS + 1)
    with pytest.raises(TypeError, match="batch must be"):
        history.shown_index("all")
    with pytest.raises(ValueError, match="batch must hold a sequence with a repeat of 12"):
        history.shown_index(circuit.sequences(2, seed=0, task=circuit.Task(fixed=True)))


def test_the_prose_about_the_curves_holds_in_every_seed():
    """Cells 15–16: the steepest 200 steps fall several times more than the 200 before; the
    previous-token score is still rising after the window; the other tokens' loss
    rises during the drop and never goes below ln 32."""
    for s in sweep.table("two_layers"):
        start, end = s.drop
        before = max(2 * start - end, 0)
        fall = s.value_at("repeat_loss", start) - s.value_at("repeat_loss", end)
        assert fall > 3 * (s.value_at("repeat_loss", before) - s.value_at("repeat_loss", start))
        assert s.curves["previous"][-1] > s.value_at("previous", end) + 0.15
        assert 0.5 < s.value_at("previous", end) < 0.6
        # the second table: at the window's end the induction score is past nine tenths of its top, the
        # previous-token score at seven tenths and more; it reaches 98 % of its top some hundreds to a
        # thousand-odd steps later; a wider window starts no later
        assert s.share_of_top("induction", end) >= 0.9
        assert 0.7 <= s.share_of_top("previous", end) < 0.8
        assert 500 <= s.reaches("previous", 0.98) - end < 2000
        starts = [s.window(width)[0] for width in (200, 300, 400)]
        assert starts == sorted(starts, reverse=True)
    run = sweep.table("two_layers")[0]
    assert run.value_at("other_loss", run.drop[1]) > run.value_at("other_loss", run.drop[0]) + 0.1
    assert run.curves["other_loss"].min() > np.log(32)      # never below guessing


def test_the_pattern_panels_draw_their_marks_above_the_patterns():
    """The explorer animates the meshes; the rings and dashed lines must be animated after them, or
    the static preview hides them under the patterns."""
    import matplotlib.figure


    panels = CircuitPatterns(matplotlib.figure.Figure(), 2, 2, first=2, second=20, repeat=12, length=32)
    artists = panels.artists
    assert len(panels.marks) == 4 * 4
    assert max(artists.index(m) for m in panels.meshes) < min(artists.index(m) for m in panels.marks)
