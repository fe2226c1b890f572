"""Controls and readouts that several explorers share (plumbing behind :mod:`helpers.explorers`).

:func:`query_slider` is the slider for one component of a 2-dim query or key (``00_index``,
``03_hand_calculation``); :func:`weights_html` writes a row of weights as the readout's HTML, one
span per token, which the browser tests read (``00``, ``01``, ``03``).
"""
from __future__ import annotations

from .format import fmt


def query_slider(description: str, value: float):
    """A slider for one component of a 2-dim query (shared by 00 and 03)."""
    import ipywidgets as widgets

    from .validation import finite_scalar, text

    text("description", description)
    value = finite_scalar("value", value, low=-3.0, high=3.0)
    return widgets.FloatSlider(value=value, min=-3.0, max=3.0, step=0.1, description=description,
                               continuous_update=True, readout_format=".1f")


def weights_html(tokens, weights, *, css_class="weights") -> str:
    """``年 0.179 · 假 0.735 …`` as HTML with one span per token (the browser test reads it)."""
    from .validation import as_real_array, text

    if isinstance(tokens, str) or not isinstance(tokens, (list, tuple)) or not all(isinstance(t, str) for t in tokens):
        raise TypeError(f"tokens must be a list or tuple of strings, got {type(tokens).__name__} {tokens!r:.60}")
    weights = as_real_array("weights", weights, shape=(len(tokens),))
    text("css_class", css_class)
    parts = [f'<span class="{css_class}-{i}">{tok} {fmt(w)}</span>'
             for i, (tok, w) in enumerate(zip(tokens, weights))]
    return " · ".join(parts)
