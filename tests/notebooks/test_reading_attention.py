"""``08_reading_attention``: the sink, influence and dilution explorers, and the closing quiz."""
import numpy as np
import pytest

from helpers import exercises as ex
from helpers import reading, widgets
from helpers.exercises import QUIZ


def test_quiz_covers_the_three_outcomes_and_shows_reasoning_when_wrong(capsys):
    assert len(QUIZ) >= 8
    prompts = " ".join(e.prompt for e in QUIZ.values())
    for topic in ("第一列", "遮掉", "999", "×16", "√d", "KV Cache"):
        assert topic in prompts
    results = ex.closing_quiz({})
    assert set(results.values()) == {None} and "得分：0" in capsys.readouterr().out
    results = ex.closing_quiz({"q9": "4 倍"})
    out = capsys.readouterr().out
    assert results["q9"] is False and "比值 ∝ n" in out
    assert ex.closing_quiz(["Q"]) == {key: None for key in QUIZ}
    assert "字典" in capsys.readouterr().out


def test_sink_explorer_each_control():
    e = widgets.sink_explorer()
    for values in ({"strength": 0.0}, {"window": 3}, {"strength": 8.0, "window": 12}):
        e.set(**values)
        strength, window = e.values["strength"], e.values["window"]
        seq = reading.sink_sequence(24, strength=strength)
        only = reading.eviction_change(seq, window, keep_first=0)
        np.testing.assert_allclose(e.state["only"], only)
        assert f"class='only'>{only[window:].mean():.3f}" in e.readout.value
        np.testing.assert_allclose(e.panels.only_line.get_ydata(), only)
        # the right axis fits its curves: both inside, and the top under twice their peak
        low, top = e.panels.ax_change.get_ylim()
        peak = max(only.max(), e.state["with_first"].max())
        assert low < 0 and peak < top < 2 * peak + 0.5
    assert e.state["first_col"] > 0.95


def test_sink_explorer_default_axis_fits_the_curves_it_shows():
    e = widgets.sink_explorer()
    assert max(e.state["only"].max(), e.state["with_first"].max()) < 1.3
    assert e.panels.ax_change.get_ylim()[1] == 1.5


def test_influence_explorer_control():
    e = widgets.influence_explorer()
    assert "by-influence'>4 > 0" in e.readout.value
    e.controls["value_scale"].value = 3.0
    ex = reading.weight_vs_influence_example(3.0)
    np.testing.assert_allclose([b.get_height() for b in e.panels.influence_bars.bars], ex["influence"])
    assert "by-influence'>0 >" in e.readout.value


def test_dilution_explorer_each_control():
    e = widgets.dilution_explorer()
    e.controls["n"].value = 131072
    e.controls["delta"].value = 10.0
    expected = float(reading.dilution_weight(10.0, 131072, sigma=0.5))
    assert f"class='closed'>{expected:.3f}" in e.readout.value
    assert e.state["simulated"] == pytest.approx(expected, abs=0.02)
    assert e.point.get_xdata()[0] == 131072


def test_same_output_quiz_prints_the_bound_not_the_rounding():
    """q6's working says the outputs agree within notebook 08's bound; the difference itself (1e-16
    or 0 depending on the CPU's kernel) is never printed."""
    answer, working = QUIZ["q6"].solve()
    assert answer == "能" and "输出最大差 < 1e-12：是" in working and "e-1" not in working.replace("1e-12", "")
