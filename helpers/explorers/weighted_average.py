"""``01_weighted_average``: four weight sliders → the new 申请 vector."""
from __future__ import annotations

import numpy as np

from .. import example
from ..render.controls import weights_html
from ..render.explorer import Explorer
from ..render.format import fmt, fmt_vec
from ..render.panels import BarPanel
from ..weighting import normalise_weights, weighted_average


class WeightedAverageExplorer(Explorer):
    """Raw weights for 年 假 怎么 申请 (renormalised to sum 1) → Σ w_j x_j over the 4 features."""

    figsize = (6.4, 2.5)

    def make_controls(self):
        import ipywidgets as widgets

        return {f"w{i}": widgets.FloatSlider(value=0.25, min=0.0, max=1.0, step=0.05, description=tok,
                                             readout_format=".2f")
                for i, tok in enumerate(example.TOKENS)}

    def compute(self, w0, w1, w2, w3):
        weights = normalise_weights([w0, w1, w2, w3])
        return {"weights": weights, "vector": weighted_average(example.X, weights)}

    def build(self, fig):
        ax_w, ax_v = fig.subplots(1, 2)
        self.weight_bars = BarPanel(ax_w, example.TOKENS, np.zeros(4), title="归一化后的权重",
                                    xlabel="位置（token）", ylabel="权重", show_values=False)
        self.vector_bars = BarPanel(ax_v, example.FEATURES, np.zeros(4), ylim=(0, 2.35),  # numbers: readout
                                    title="新的“申请”向量", digits=2, xlabel="输入特征", ylabel="分量值",
                                    show_values=False)
        self.animate(*self.weight_bars.artists, *self.vector_bars.artists)

    def draw(self, state):
        self.weight_bars.update(state["weights"])
        self.vector_bars.update(state["vector"])

    def describe(self, state):
        total = float(state["weights"].sum())
        return (f"权重（和 = {fmt(total)}）：" + weights_html(example.TOKENS, state["weights"])
                + f"<br>新的“申请” = {fmt_vec(state['vector'])}")
