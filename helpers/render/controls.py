"""Controls and readouts that several explorers share (plumbing behind :mod:`helpers.explorers`).

:func:`query_slider` is the slider for one component of a 2-dim query or key (``00_index``,
``03_hand_calculation``); :func:`weights_html` writes a row of weights as the readout's HTML, one
span per token, which the browser tests read (``00``, ``01``, ``03``), from :func:`weights_template`,
the same row as a template that a readout recomputed in the book's page carries; :func:`limit_note` says in
a readout which sliders are at their maximum, where a further key press changes nothing (``06``, ``12``).
"""
from __future__ import annotations

import ipywidgets as widgets

from .format import fill, literal
from .validation import as_real_array, finite_scalar, text


def query_slider(description: str, value: float):
    """A slider for one component of a 2-dim query (shared by 00 and 03)."""

    text("description", description)
    value = finite_scalar("value", value, low=-3.0, high=3.0)
    return widgets.FloatSlider(value=value, min=-3.0, max=3.0, step=0.1, description=description,
                               continuous_update=True, readout_format=".1f")


def weights_template(tokens, field: str, *, css_class="weights") -> str:
    """:func:`weights_html` as a :func:`~helpers.render.format.fill` template: token ``i``, then entry
    ``i`` of the vector named ``field``."""
    if isinstance(tokens, str) or not isinstance(tokens, (list, tuple)) or not all(isinstance(t, str) for t in tokens):
        raise TypeError(f"tokens must be a list or tuple of strings, got {type(tokens).__name__} {tokens!r:.60}")
    field, css_class = text("field", field), literal(text("css_class", css_class))
    if not field.isidentifier():
        raise ValueError(f"field must be a name (letters, digits, _), got {field!r:.60}")
    return " · ".join(f'<span class="{css_class}-{i}">{literal(tok)} {{{field}[{i}]:.3f}}</span>'
                      for i, tok in enumerate(tokens))


def weights_html(tokens, weights, *, css_class="weights") -> str:
    """``年 0.179 · 假 0.735 …`` as HTML with one span per token (the browser test reads it)."""
    template = weights_template(tokens, "weights", css_class=css_class)
    return fill(template, {"weights": as_real_array("weights", weights, shape=(len(tokens),))})


#: what a readout says about a slider at its maximum (a key press there does nothing visible)
AT_MAX = "已是最大值"


def limit_note(controls) -> str:
    """``' · 长度 n 已是最大值（64）'`` for each slider of ``controls`` (``{name: widget}``) at its
    maximum (an Int/FloatSlider at ``max``, a SelectionSlider at its last option); ``''`` if none."""
    if not isinstance(controls, dict):
        raise TypeError(f"controls must be a dict of name → widget, got {type(controls).__name__}")
    notes = []
    for control in controls.values():
        if isinstance(control, (widgets.IntSlider, widgets.FloatSlider)):
            top = control.max
        elif isinstance(control, widgets.SelectionSlider) and control.options:
            last = control.options[-1]
            top = last[1] if isinstance(last, tuple) else last
        else:
            continue
        if control.value == top:
            shown = f"{top:{control.readout_format}}" if isinstance(control, widgets.FloatSlider) else f"{top}"
            notes.append(f"{control.description} {AT_MAX}（{shown}）")
    return "".join(f' · <span class="at-max">{n}</span>' for n in notes)
