"""Every explorer's 恢复默认 button: move every control (and picker) away, press
it, and every control, picker, the state, the readout and the picture are back to the initial ones,
without recomputing the initial state (it is still memoised) and in one update."""
from __future__ import annotations

import numpy as np
import pytest
from explorer_checks import control_ends, factory_params

from helpers import widgets
from helpers.render.explorer import RESET_LABEL


def _other_end(control):
    low, high = control_ends(control)
    return high if control.value != high else low


@pytest.mark.parametrize("name", factory_params())
def test_restore_defaults_puts_every_control_and_the_picture_back(name):
    e = widgets.all_factories()[name]()
    assert e.reset_button.description == RESET_LABEL and e.reset_button in e.widget.children[0].children
    values, png, readout = dict(e.values), e.png, e.readout.value
    pickers = {n: w.value for n, w in e.actions.items() if w.has_trait("value")}
    for w in e.actions.values():  # pickers first (they load values into the controls), then the controls
        if w.has_trait("value"):
            options = [o[1] if isinstance(o, tuple) else o for o in w.options]
            w.value = next(o for o in reversed(options) if o != w.value)
    for n, control in e.controls.items():
        try:
            e.set(**{n: _other_end(control)})
        except ValueError:  # an option another control has just ruled out (06's KV heads)
            pass
    assert e.values != values or e.png != png, "the moves changed nothing: the test would prove nothing"
    calls = []
    compute = e.compute
    e.compute = lambda **kw: calls.append(kw) or compute(**kw)
    renders = e.renders
    e.reset_button.click()
    assert e.values == values
    assert {n: e.actions[n].value for n in pickers} == pickers
    assert e.png == png and e.readout.value == readout
    assert calls == [], "the initial state was recomputed: the memo lost it"
    assert e.renders == renders + 1, "恢复默认 should redraw once"
    assert not e.held


def test_restore_defaults_resets_what_03_keeps_besides_its_controls():
    e = widgets.hand_calculation_explorer()
    weights = e.state.weights.copy()
    e.actions["token"].value = "年"
    e.set(k1=3.0)  # edits 年's k, kept when the picker moves on
    e.actions["token"].value = "怎么"
    e.reset_button.click()
    np.testing.assert_allclose(e.state.weights, weights)
    assert e.actions["token"].value == "假"
