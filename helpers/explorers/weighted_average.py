"""``01_weighted_average``: four weight sliders → the new 申请 vector."""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .. import example
from ..render import web
from ..render.controls import weights_template
from ..render.explorer import Explorer
from ..render.format import fill
from ..render.panels import BarPanel
from ..weighting import normalise_weights, weighted_average


class WeightedAverageExplorer(Explorer):
    """Raw weights for 年 假 怎么 申请 (renormalised to sum 1) → Σ w_j x_j over the 4 features."""

    figsize = (6.4, 2.5)
    #: four continuous sliders (21⁴ ≈ 194,000 states): recomputed in the page
    web_formula = "weighted_average"
    web_templates = {"readout": "权重（和 = {total:.3f}）：" + weights_template(example.TOKENS, "weights")
                                + "<br>新的“申请” = {vector:.3f}"}

    def make_controls(self):
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
        return fill(self.web_templates["readout"], {"total": float(state["weights"].sum()), **state})

    def web_view(self, state):
        return {"title": "", "panels": [
            web.bars(example.TOKENS, state["weights"], title="归一化后的权重", xlabel="位置（token）", ylabel="权重"),
            web.bars(example.FEATURES, state["vector"], ylim=(0, 2.35), title="新的“申请”向量", xlabel="输入特征",
                     ylabel="分量值")]}

    def web_formula_data(self) -> dict:
        """What the page's formula needs besides the controls: the token rows X."""
        return {"tokens": list(example.TOKENS), "X": np.asarray(example.X, dtype=float).tolist()}

    def web_compute_args(self, values, extra=None) -> dict:
        """:meth:`compute`'s arguments for the page's control values."""
        return dict(values)

    @staticmethod
    def web_state_numbers(state) -> dict:
        """The numbers of a state the page's formula must reproduce."""
        return {"weights": state["weights"], "vector": state["vector"]}
