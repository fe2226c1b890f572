"""``00_index``: the small explorer of the index: turn 申请's query, watch its four weights move."""
from __future__ import annotations

import numpy as np

from .. import example
from ..attention import scaled_dot_product_attention
from ..render import web
from ..render.controls import query_slider, weights_html
from ..render.explorer import Explorer
from ..render.format import fmt_vec
from ..render.panels import BarPanel, highlight_largest, largest


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

    def web_view(self, state):
        w = state["weights"]
        return {"title": f"“申请”的注意力权重 · 当前 q = {fmt_vec(state['q'], 1)}",
                "panels": [web.bars(example.TOKENS, w, highlight=largest(w), digits=3,
                                    xlabel="位置（token）", ylabel="权重")]}
