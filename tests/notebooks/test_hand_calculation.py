"""``03_hand_calculation``: the hand-calculation explorer, step by step."""
import numpy as np
import pytest

import helpers
from helpers import example, widgets


def test_a_short_arrow_gets_a_head_no_longer_than_half_of_it():
    """03's two 0.043 parts: a full-size head would reach back past their start (below zero)."""
    e = widgets.hand_calculation_explorer()
    ax = e.vectors.ax
    starts, ends = helpers.render.panels.arrow_points(np.vstack([e.state.parts, e.state.output]), chain=True)
    for arrow, start, end in zip(e.vectors.arrows, starts, ends):
        length_pt = np.hypot(*(ax.transData.transform(end) - ax.transData.transform(start))) * 72 / ax.figure.dpi
        head_pt = 0.4 * arrow.arrowprops["mutation_scale"]
        assert head_pt <= max(length_pt / 2, 0.05) + 1e-9
        if length_pt > 20:
            assert arrow.arrowprops["mutation_scale"] == helpers.render.panels.HEAD_SCALE  # long arrows keep full heads


def reference_row(q, k, v):
    scores = k @ q / np.sqrt(2)
    w = np.exp(scores) / np.exp(scores).sum()
    return w, w @ v


def test_hand_explorer_q_sliders():
    e = widgets.hand_calculation_explorer()
    qkv = example.running_qkv()
    e.controls["q1"].value = 1.0
    e.controls["q2"].value = 0.5
    w, out = reference_row(np.array([1.0, 0.5]), qkv.k, qkv.v)
    np.testing.assert_allclose(e.state.weights, w)
    np.testing.assert_allclose(e.state.output, out)
    assert f"假 {w[1]:.3f}" in e.readout.value
    assert f"[{out[0]:.3f}, {out[1]:.3f}]" in e.readout.value


@pytest.mark.parametrize("token", ["年", "怎么", "申请"])
def test_hand_explorer_k_and_v_of_any_token(token):
    e = widgets.hand_calculation_explorer()
    qkv = example.running_qkv()
    e.actions["token"].value = token
    i = example.query_index(token)
    assert (e.values["k1"], e.values["k2"]) == tuple(qkv.k[i])
    e.controls["k1"].value = 3.0
    e.controls["v2"].value = -2.0
    k, v = qkv.k.copy(), qkv.v.copy()
    k[i, 0] = 3.0
    v[i, 1] = -2.0
    w, out = reference_row(qkv.q[3], k, v)
    np.testing.assert_allclose(e.state.weights, w)
    np.testing.assert_allclose(e.state.output, out)
    np.testing.assert_allclose(e.state.dots, k @ qkv.q[3])
    # switching token keeps the edit; reset restores the article's numbers
    e.actions["token"].value = "假"
    np.testing.assert_allclose(e.state.weights, w)
    e.reset_button.click()
    assert [round(x, 3) for x in e.state.weights] == [0.179, 0.735, 0.043, 0.043]
    assert [round(x, 3) for x in e.state.output] == [1.648, 0.087]


def test_hand_explorer_figure_follows_state():
    e = widgets.hand_calculation_explorer()
    e.set(q1=-1.0, q2=2.0)
    np.testing.assert_allclose([b.get_height() for b in e.bars.bars], e.state.weights)
    tip = e.vectors.arrows[-1].xy
    np.testing.assert_allclose(tip, e.state.output)
