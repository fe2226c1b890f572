"""Drive every explorer headless: move each control, assert the numbers it then shows."""
import numpy as np
import pytest

from helpers import example, scaled_dot_product_attention, widgets
from helpers.explorer import Explorer


def shown_numbers(html):
    import re

    return [float(x) for x in re.findall(r"-?\d+\.\d+", re.sub(r"<[^>]+>", " ", html))]


def test_every_factory_builds_an_explorer_with_a_png():
    for name, factory in widgets.all_factories().items():
        explorer = factory()
        assert isinstance(explorer, Explorer), name
        assert explorer.png.startswith(b"\x89PNG"), name
        assert explorer.image.value == explorer.png


# ---- 00_index ---------------------------------------------------------------------------------
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


def test_explorer_set_batches_one_update_and_rejects_unknown():
    e = widgets.query_weights_explorer()
    before = e.renders
    e.set(q1=0.0, q2=2.0)
    assert e.renders == before + 1
    assert np.argmax(e.state["weights"]) == 2  # q = [0, 2] points at 怎么's key
    with pytest.raises(ValueError, match="unknown control"):
        e.set(q3=1.0)


def test_naive_mode_shows_the_same_numbers():
    fast, naive = widgets.query_weights_explorer(), widgets.query_weights_explorer(naive=True)
    for e in (fast, naive):
        e.set(q1=-1.0, q2=1.5)
    np.testing.assert_array_equal(fast.state["weights"], naive.state["weights"])
    assert fast.readout.value == naive.readout.value
    assert naive.fig is not fast.fig


def test_state_is_cached_per_control_values():
    e = widgets.query_weights_explorer()
    e.set(q1=1.0)
    first = e.state
    e.set(q1=1.5)
    e.set(q1=1.0)
    assert e.state is first
