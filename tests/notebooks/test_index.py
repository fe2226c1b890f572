"""``00_index``: the small explorer (申请's q → its four weights)."""
import numpy as np
import pytest
from explorer_checks import shown_numbers

from helpers import example, widgets


def test_query_weights_explorer_starts_at_article_numbers():
    e = widgets.query_weights_explorer()
    np.testing.assert_allclose(np.round(e.state["weights"], 3), [0.179, 0.735, 0.043, 0.043])
    assert shown_numbers(e.readout.value) == [0.179, 0.735, 0.043, 0.043]


@pytest.mark.parametrize("control, value", [("q1", 0.5), ("q2", 2.0), ("q1", -3.0)])
def test_query_weights_explorer_controls(control, value):
    e = widgets.query_weights_explorer()
    before = e.renders
    e.controls[control].value = value
    assert e.renders == before + 1
    q = np.array([[e.values["q1"], e.values["q2"]]])
    k = example.running_qkv().k
    expected = np.exp(q @ k.T / np.sqrt(2))
    expected /= expected.sum()
    np.testing.assert_allclose(e.state["weights"], expected[0], rtol=1e-12)
    assert shown_numbers(e.readout.value) == [round(x, 3) for x in expected[0]]
    # the bar heights on the figure follow
    heights = [bar.get_height() for bar in e.bars.bars]
    np.testing.assert_allclose(heights, expected[0])
