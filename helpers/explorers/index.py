"""The small explorer of ``00_index``: turn 申请's query, watch its four weights move."""
from __future__ import annotations

import numpy as np

from .. import example
from ..attention import scaled_dot_product_attention
from ..render.explorer import Explorer
from ..render.format import fmt, fmt_vec
from ..render.palette import ACCENT, BASE
from ..render.panels import BarPanel


def query_slider(description: str, value: float):
    """A slider for one component of a 2-dim query (shared by 00 and 03)."""
    import ipywidgets as widgets

    from ..render.validation import finite_scalar, text

    text("description", description)
    value = finite_scalar("value", value, low=-3.0, high=3.0)
    return widgets.FloatSlider(value=value, min=-3.0, max=3.0, step=0.1, description=description,
                               continuous_update=True, readout_format=".1f")


def weights_html(tokens, weights, *, css_class="weights") -> str:
    """``年 0.179 · 假 0.735 …`` as HTML with one span per token (the browser test reads it)."""
    from ..render.validation import as_real_array, text

    if isinstance(tokens, str) or not isinstance(tokens, (list, tuple)) or not all(isinstance(t, str) for t in tokens):
        raise TypeError(f"tokens must be a list or tuple of strings, got {type(tokens).__name__} {tokens!r:.60}")
    weights = as_real_array("weights", weights, shape=(len(tokens),))
    text("css_class", css_class)
    parts = [f'<span class="{css_class}-{i}">{tok} {fmt(w)}</span>'
             for i, (tok, w) in enumerate(zip(tokens, weights))]
    return " · ".join(parts)


def highlight_largest(bars: BarPanel, weights) -> None:
    """Colour the bar of the largest weight orange (every bar, when several tie) and the others
    green (shared by 00 and 03)."""
    from ..render.validation import as_real_array, instance

    instance("bars", bars, BarPanel)
    w = as_real_array("weights", weights, shape=(len(bars.bars),))
    for bar, top in zip(bars.bars, w >= w.max() - 1e-12):
        bar.set_color(ACCENT if top else BASE)


class QueryWeightsExplorer(Explorer):
    """申请's q = (q1, q2) against the fixed keys of the running example."""

    figsize = (4.6, 2.4)

    def make_controls(self):
        q = example.running_qkv().q[example.query_index()]
        return {"q1": query_slider("q[0]", float(q[0])), "q2": query_slider("q[1]", float(q[1]))}

    def compute(self, q1, q2):
        qkv = example.running_qkv()
        _, weights = scaled_dot_product_attention(np.array([[q1, q2]]), qkv.k, qkv.v)
        return {"q": np.array([q1, q2]), "weights": weights[0]}

    def build(self, fig):
        self.bars = BarPanel(fig.add_subplot(), example.TOKENS, np.zeros(4), title="“申请”的注意力权重",
                             highlight=1, xlabel="位置（token）", ylabel="权重")
        self.title = self.bars.ax.title  # names the current q, so the static preview says what it shows
        self.animate(*self.bars.artists, self.title)

    def draw(self, state):
        self.bars.update(state["weights"])
        highlight_largest(self.bars, state["weights"])
        self.title.set_text(f"“申请”的注意力权重 · 当前 q = {fmt_vec(state['q'], 1)}")

    def describe(self, state):
        return "权重：" + weights_html(example.TOKENS, state["weights"])
