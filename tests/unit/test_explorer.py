"""helpers.render.explorer: the explorer machinery (set(), the memo, naive mode), on 00's explorer."""
import numpy as np
import pytest

from helpers import widgets


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
