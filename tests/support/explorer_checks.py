"""Reading explorers in tests: the numbers a readout shows, the states worth visiting."""
import re

#: the far end of a text box: the first 280 characters of helpers.texts.PARAGRAPH, 63 of SmolLM2's
#: tokens (the view's cap is 64): the most labels the enlarged map draws
LONG_TEXT_END = 280


def control_ends(control):
    """The low and high end of a control's range (first/last option, False/True, min/max; a text
    box: empty, which the explorer refuses with a sentence, and a text near its token cap)."""
    import ipywidgets

    from helpers import texts

    if isinstance(control, ipywidgets.Text):
        return ["", texts.PARAGRAPH[:LONG_TEXT_END]]
    options = getattr(control, "options", None)
    if isinstance(control.value, bool):
        return [False, True]
    if options is not None:
        values = [o[1] if isinstance(o, tuple) else o for o in options]
        return [values[0], values[-1]]
    return [control.min, control.max]


def explorer_states(explorer):
    """(label, {control: value}) for the defaults, each control's two ends, all low, all high."""
    states = [("defaults", {})]
    ends = {name: control_ends(c) for name, c in explorer.controls.items()}
    for name, (low, high) in ends.items():
        states += [(f"{name}={low}", {name: low}), (f"{name}={high}", {name: high})]
    states += [("all low", {n: e[0] for n, e in ends.items()}), ("all high", {n: e[1] for n, e in ends.items()})]
    return states


def shown_numbers(html):

    return [float(x) for x in re.findall(r"-?\d+\.\d+", re.sub(r"<[^>]+>", " ", html))]


def factory_params(exclude=()):
    """``pytest.param`` per explorer factory of :mod:`helpers.widgets` (by name, sorted); those that
    load the real model are marked ``model`` (slow; skipped outside CI without SmolLM2)."""
    import pytest

    from helpers import widgets

    return [pytest.param(name, marks=[pytest.mark.model, pytest.mark.slow] if getattr(f, "needs_model", False) else [])
            for name, f in sorted(widgets.all_factories().items()) if name not in exclude]
