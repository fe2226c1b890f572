"""``02_qkv``: the q/k/v explorer and the figure of q beside every k."""
import re

import numpy as np
import pytest

import helpers
from helpers import example, plots, widgets
from helpers.explorers.qkv import CUSTOM


def test_a_zero_key_is_named_with_its_value_not_as_the_start_of_q():
    qkv = helpers.example.running_qkv()
    fig = plots.query_keys_figure(qkv.q[3], qkv.k, helpers.example.TOKENS, query_token="申请")
    names = [t.get_text() for t in fig.axes[0].texts if t.get_text()]
    assert "申请（k = [0, 0]）" in names and "年" in names and "假" in names


def test_qkv_explorer_never_shows_nan():
    e = widgets.qkv_explorer()
    e.controls["x0"].value = float("nan")   # a FloatSlider lets NaN through: the explorer puts it back
    assert np.isfinite(e.controls["x0"].value)
    assert "nan" not in e.readout.value.lower()
    assert np.isfinite(e.state["q"]).all()
    with pytest.raises(ValueError, match=r"x0 must be a finite number, got nan"):
        e.set(x0=float("nan"))
    with pytest.raises(ValueError, match=r"x1 must be <= 2.0, got 5.0"):
        e.set(x1=5.0)


@pytest.mark.parametrize("control, value", [("x0", 2.0), ("x1", -1.0), ("x2", 1.5), ("x3", 0.0)])
def test_qkv_explorer_each_feature(control, value):
    e = widgets.qkv_explorer()
    e.controls[control].value = value
    x = np.array([e.values[f"x{i}"] for i in range(4)])
    for name, w in (("q", example.W_Q), ("k", example.W_K), ("v", example.W_V)):
        np.testing.assert_allclose(e.state[name], x @ w)

    shown = re.search(r'class="k">k = \[([^\]]+)\]', e.readout.value).group(1)
    assert [float(s) for s in shown.split(",")] == [round(c, 2) for c in x @ example.W_K]


def test_qkv_explorer_token_picker_loads_rows_of_x():
    e = widgets.qkv_explorer()
    for token in example.TOKENS:
        e.actions["token"].value = token
        np.testing.assert_array_equal(e.state["x"], example.X[example.query_index(token)])
        np.testing.assert_array_equal(e.state["q"], example.running_qkv().q[example.query_index(token)])


def test_the_picker_says_custom_once_the_sliders_leave_every_tokens_row():
    e = widgets.qkv_explorer()
    picker = e.actions["token"]
    assert picker.value == "申请"
    e.set(x0=1.0)  # [1, 0, 0, 1]: no token's input
    assert picker.value == CUSTOM and e.values["x0"] == 1.0  # showing 自定义 loads nothing
    assert "申请" not in e.panel.ax.get_title()
    e.set(x0=2.0, x3=0.0)  # 假's row: the picker follows
    assert picker.value == "假" and e.panel.ax.get_title().endswith("（假）")
    picker.value = CUSTOM  # choosing 自定义 by hand changes nothing
    assert e.values == {"x0": 2.0, "x1": 0.0, "x2": 0.0, "x3": 0.0}


def test_k_is_drawn_over_a_wider_v_so_equal_k_and_v_both_show():
    e = widgets.qkv_explorer()
    e.actions["token"].value = "怎么"  # x = 疑问 alone: k = v = [0, 1]
    np.testing.assert_array_equal(e.state["k"], e.state["v"])
    q_arrow, k_arrow, v_arrow = e.panel.arrows
    order = e._animated
    assert order.index(k_arrow) > order.index(v_arrow)  # animated artists are drawn in list order
    assert k_arrow.arrow_patch.get_linewidth() < v_arrow.arrow_patch.get_linewidth()
