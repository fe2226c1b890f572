"""``01_weighted_average``: the weight sliders and the new 申请 vector."""
import numpy as np
import pytest
from explorer_checks import shown_numbers

from helpers import example, widgets


@pytest.mark.parametrize("control", ["w0", "w1", "w2", "w3"])
def test_weighted_average_explorer_each_control(control):
    e = widgets.weighted_average_explorer()
    e.controls[control].value = 1.0
    raw = np.array([e.values[f"w{i}"] for i in range(4)])
    expected_w = raw / raw.sum()
    np.testing.assert_allclose(e.state["weights"], expected_w)
    np.testing.assert_allclose(e.state["vector"], expected_w @ example.X)
    shown = shown_numbers(e.readout.value)
    assert shown[0] == 1.0  # the sum after renormalising
    assert shown[1:5] == [round(x, 3) for x in expected_w]
    assert shown[5:] == [round(x, 3) for x in expected_w @ example.X]
    np.testing.assert_allclose([b.get_height() for b in e.vector_bars.bars], expected_w @ example.X)


def test_weighted_average_explorer_all_zero_gives_equal_weights():
    e = widgets.weighted_average_explorer()
    e.set(w0=0.0, w1=0.0, w2=0.0, w3=0.0)
    np.testing.assert_allclose(e.state["weights"], 0.25)
