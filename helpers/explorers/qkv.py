"""``02_qkv``: a token's four input features → its q, k and v."""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .. import example
from ..render import web
from ..render.explorer import Explorer
from ..render.format import fill
from ..render.palette import QKV_COLORS
from ..render.panels import VectorPanel

#: what the 载入 picker shows while the sliders hold an input that is no token's row of X
CUSTOM = "（自定义）"


class QKVExplorer(Explorer):
    """Sliders for 事项 时间 疑问 动作 of one token; a picker loads any token's row of X and
    shows :data:`CUSTOM` once the sliders leave every token's row."""

    figsize = (5.4, 3.4)
    #: four continuous sliders (41⁴ ≈ 2.8 million states): recomputed in the page
    web_formula = "qkv"
    #: the title names the token whose row x is (``named``: filled, or empty for :data:`CUSTOM`)
    web_templates = {"readout": 'x = {x:.1f} → <span class="q">q = {q:.2f}</span> · '
                                '<span class="k">k = {k:.2f}</span> · <span class="v">v = {v:.2f}</span>',
                     "title": "q、k、v · 当前输入 x = {x:.1f}{named}", "named": "（{token}）"}

    def make_controls(self):
        x = example.X[example.query_index()]
        return {f"x{i}": widgets.FloatSlider(value=float(x[i]), min=-2.0, max=2.0, step=0.1,
                                             description=name, readout_format=".1f")
                for i, name in enumerate(example.FEATURES)}

    def make_actions(self):
        picker = widgets.Dropdown(options=[*example.TOKENS, CUSTOM], value=example.QUERY_TOKEN,
                                  description="载入")
        picker.observe(self._load_token, names="value")
        self._following = False
        return {"token": picker}

    def _load_token(self, change):
        if self._following or change["new"] == CUSTOM:  # the picker following the sliders loads nothing
            return
        x = example.X[example.query_index(change["new"])]
        self.set(**{f"x{i}": float(v) for i, v in enumerate(x)})

    @staticmethod
    def matching_token(x) -> str:
        """The token whose row of X is ``x``, else :data:`CUSTOM`."""
        return next((t for t, row in zip(example.TOKENS, example.X) if np.allclose(row, x)), CUSTOM)

    def compute(self, x0, x1, x2, x3):
        x = np.array([x0, x1, x2, x3])
        return {"x": x, "q": x @ example.W_Q, "k": x @ example.W_K, "v": x @ example.W_V}

    def build(self, fig):
        # fixed axes that hold every q, k, v the sliders (−2…2) can make: q reaches (±8, ±4)
        self.panel = VectorPanel(fig.add_subplot(), np.zeros((3, 2)), ["q", "k", "v"], colors=list(QKV_COLORS),
                                 lim=((-8.5, 8.5), (-4.5, 4.5)), title="q、k、v（2 维）", legend=True,
                                 legend_loc="lower left")
        self.title = self.panel.ax.title  # names the current input, so the static preview says what it shows
        # k above v and v drawn wider, so that k = v (one feature: 疑问 alone) shows as k inside v
        q_arrow, k_arrow, v_arrow = self.panel.arrows
        v_arrow.arrow_patch.set_linewidth(5.0)
        q_tip, k_tip, v_tip = self.panel.tips
        # animated artists are drawn in this order (not by zorder): k after v
        self.animate(q_arrow, v_arrow, k_arrow, q_tip, v_tip, k_tip, *self.panel.texts, self.title)


    def draw(self, state):
        self.panel.update([state["q"], state["k"], state["v"]])
        self.panel.tips[2].set_markersize(8)  # update() resets the tips' sizes
        token = self.matching_token(state["x"])
        self.title.set_text(self.title_text(state["x"], token))
        picker = self.actions["token"]
        if picker.value != token:
            self._following = True
            try:
                picker.value = token
            finally:
                self._following = False

    def title_text(self, x, token: str) -> str:
        """The title for input ``x``, naming ``token`` unless it is :data:`CUSTOM`."""
        named = fill(self.web_templates["named"], {"token": token}) if token != CUSTOM else ""
        return fill(self.web_templates["title"], {"x": x, "named": named})

    def describe(self, state):
        return fill(self.web_templates["readout"], state)

    def web_view(self, state):
        return {"title": self.title_text(state["x"], self.matching_token(state["x"])),
                "panels": [web.arrows([state["q"], state["k"], state["v"]], ["q", "k", "v"], QKV_COLORS,
                                      lim=((-8.5, 8.5), (-4.5, 4.5)), widths=(2.5, 2.5, 5.0), title="q、k、v（2 维）",
                                      order=(0, 2, 1), xlabel="第 1 维", ylabel="第 2 维")]}  # k over v, as the figure

    def web_formula_data(self) -> dict:
        """What the page's formula needs: the tokens' rows of X, the three projections, the picker."""
        picker = self.actions["token"]
        options = list(picker.options)
        return {"tokens": list(example.TOKENS), "custom": CUSTOM, "X": np.asarray(example.X, dtype=float).tolist(),
                "W_Q": np.asarray(example.W_Q, dtype=float).tolist(), "W_K": np.asarray(example.W_K, dtype=float).tolist(),
                "W_V": np.asarray(example.W_V, dtype=float).tolist(),
                "actions": [{"name": "token", "label": picker.description, "shown": options,
                             "default": options.index(picker.value)}]}

    def web_compute_args(self, values, extra=None) -> dict:
        """:meth:`compute`'s arguments for the page's control values."""
        return dict(values)

    @staticmethod
    def web_state_numbers(state) -> dict:
        """The numbers of a state the page's formula must reproduce."""
        return {name: state[name] for name in ("x", "q", "k", "v")}
