"""``02_qkv``: a token's four input features → its q, k and v."""
from __future__ import annotations

import numpy as np

from .. import example
from ..render.explorer import Explorer
from ..render.format import fmt_vec
from ..render.palette import QKV_COLORS
from ..render.panels import VectorPanel


class QKVExplorer(Explorer):
    """Sliders for 事项 时间 疑问 动作 of one token; a picker loads any token's row of X."""

    figsize = (5.4, 3.4)

    def make_controls(self):
        import ipywidgets as widgets

        x = example.X[example.query_index()]
        return {f"x{i}": widgets.FloatSlider(value=float(x[i]), min=-2.0, max=2.0, step=0.1,
                                             description=name, readout_format=".1f")
                for i, name in enumerate(example.FEATURES)}

    def make_actions(self):
        import ipywidgets as widgets

        picker = widgets.Dropdown(options=list(example.TOKENS), value=example.QUERY_TOKEN,
                                  description="载入")
        picker.observe(self._load_token, names="value")
        return {"token": picker}

    def _load_token(self, change):
        x = example.X[example.query_index(change["new"])]
        self.set(**{f"x{i}": float(v) for i, v in enumerate(x)})

    def compute(self, x0, x1, x2, x3):
        x = np.array([x0, x1, x2, x3])
        return {"x": x, "q": x @ example.W_Q, "k": x @ example.W_K, "v": x @ example.W_V}

    def build(self, fig):
        # fixed axes that hold every q, k, v the sliders (−2…2) can make: q reaches (±8, ±4)
        self.panel = VectorPanel(fig.add_subplot(), np.zeros((3, 2)), ["q", "k", "v"], colors=list(QKV_COLORS),
                                 lim=((-8.5, 8.5), (-4.5, 4.5)), title="q、k、v（2 维）", legend=True,
                                 legend_loc="lower left")
        self.title = self.panel.ax.title  # names the current input, so the static preview says what it shows
        self.animate(*self.panel.artists, self.title)

    def draw(self, state):
        self.panel.update([state["q"], state["k"], state["v"]])
        matches = [t for t, row in zip(example.TOKENS, example.X) if np.allclose(row, state["x"])]
        self.title.set_text(f"q、k、v · 当前输入 x = {fmt_vec(state['x'], 1)}"
                            + (f"（{matches[0]}）" if matches else ""))

    def describe(self, state):
        return (f"x = {fmt_vec(state['x'], 1)} → "
                f'<span class="q">q = {fmt_vec(state["q"], 2)}</span> · '
                f'<span class="k">k = {fmt_vec(state["k"], 2)}</span> · '
                f'<span class="v">v = {fmt_vec(state["v"], 2)}</span>')
