"""``04_sqrt_d``: the √d explorer: histogram, largest weights, the 1/√d switch."""
import numpy as np
import pytest

from helpers import widgets
from helpers.attention import softmax


def test_sqrt_d_explorer_each_control():
    e = widgets.sqrt_d_explorer()
    pool = e.pool
    for values in ({"d": 1024}, {"n": 1000}, {"scaled": False}, {"d": 2, "n": 2, "scaled": True}):
        e.set(**values)
        d, n, scaled = e.values["d"], e.values["n"], e.values["scaled"]
        scores = pool.scores(n, d) / (np.sqrt(d) if scaled else 1.0)
        expected = softmax(scores).max(axis=-1).mean()
        assert e.state["mean_max"] == pytest.approx(expected, rel=1e-12)
        assert e.state["score_std"] == pytest.approx(np.std(scores), rel=1e-12)
        assert f'class="maxw">{expected:.3f}' in e.readout.value
        top = np.sort(softmax(scores), axis=-1)[:, ::-1][:, :10].mean(axis=0)
        np.testing.assert_allclose([b.get_height() for b in e.top_bars][: len(top)], top)
        # the first bar is the mean the readout (and the prose) quotes, not one draw's largest weight
        assert e.top_bars[0].get_height() == pytest.approx(expected, rel=1e-12)


def test_sqrt_d_explorer_title_and_histogram_follow_the_switch():
    e = widgets.sqrt_d_explorer()
    assert e.settings.get_text() == "d = 128 · n = 5 · 除以 √d：分数 = q·k/√d"
    # the axis is ±4√d in both modes: scaled scores (std 1) fill ±4, i.e. ±1/√d of it
    assert np.abs(e.state["edges"]).max() == pytest.approx(1 / np.sqrt(128))
    e.set(scaled=False)
    assert e.settings.get_text() == "d = 128 · n = 5 · 不缩放：分数 = 原始分数 q·k"
    assert np.abs(e.state["edges"]).max() == pytest.approx(1.0)
    assert [t.get_text() for t in e.ax_hist.get_xticklabels()] == ["−4√d", "−2√d", "0", "2√d", "4√d"]


def test_sqrt_d_explorer_unscaled_collapses():
    e = widgets.sqrt_d_explorer()
    e.set(d=1024, n=5, scaled=False)
    assert e.state["mean_max"] > 0.9
    e.set(scaled=True)
    assert e.state["mean_max"] < 0.6
    assert e.state["score_std"] == pytest.approx(1.0, abs=0.15)
