"""``03_hand_calculation``: every step of 申请's row, live; sliders for q and any token's k, v."""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .. import example
from ..render import web
from ..render.controls import query_slider, weights_template
from ..render.explorer import Explorer
from ..render.format import fill
from ..render.palette import PART_COLORS
from ..render.panels import BarPanel, VectorPanel, arrow_points, highlight_largest, largest
from ..render.validation import as_real_array

#: the v-chain panel's half-widths (round the origin): the smallest that holds the whole chain with a
#: margin is shown (±3.3 holds anything the sliders can make: v within ±3, weights summing to 1). Each
#: is one background, drawn when the explorer is made, so no move waits for a full redraw.
ZOOMS = (1.2, 1.8, 2.4, 3.3)


def chain_zoom(points) -> float:
    """The smallest half-width of :data:`ZOOMS` that holds ``points`` (n × 2) with an 8 % margin."""
    points = as_real_array("points", points, shape=(None, 2))
    reach = float(np.abs(points).max())
    return next((z for z in ZOOMS if reach <= 0.92 * z), ZOOMS[-1])


class HandCalculationExplorer(Explorer):
    """q of 申请 (2 sliders) and k, v of the token picked in the dropdown (4 sliders)."""

    figsize = (7.0, 3.3)
    #: six continuous sliders and every token's k, v rows: recomputed in the page
    web_formula = "hand_calculation"
    web_templates = {"readout": "<br>".join([
        "点积 q·k：{dots:.3f}", "÷√2：{scores:.3f}", "e^s：{exps:.3f}，合计 {total:.3f}",
        "权重：" + weights_template(example.TOKENS, "weights"), '输出：<span class="output">{output:.3f}</span>'])}
    #: compute's q is the two q sliders; every token's k and v rows are what the k and v sliders edit
    compute_controls = {"q": ("q1", "q2"), "k": ("k1", "k2"), "v": ("v1", "v2")}

    def __init__(self, **kwargs):
        qkv = example.running_qkv()
        self.original_k, self.original_v = qkv.k, qkv.v
        self.k, self.v = qkv.k.copy(), qkv.v.copy()
        self.token = example.query_index("假")
        super().__init__(**kwargs)
        if not self.naive:  # every zoom's background now, then back to the one shown
            shown = self.zoom
            for zoom in ZOOMS:
                self._show_zoom(zoom)
                self.render()
            self._show_zoom(shown)
            self.render()

    def make_controls(self):
        q = example.running_qkv().q[example.query_index()]
        t = example.query_index("假")
        controls = {
            "q1": query_slider("q[0]", float(q[0])), "q2": query_slider("q[1]", float(q[1])),
            "k1": query_slider("k[0]", float(self.k[t, 0])), "k2": query_slider("k[1]", float(self.k[t, 1])),
            "v1": query_slider("v[0]", float(self.v[t, 0])), "v2": query_slider("v[1]", float(self.v[t, 1])),
        }
        # the k/v sliders edit the picked token's row: each writes its component there when it moves
        # (these observers run before the update), so compute_args only reads
        for name in ("k1", "k2", "v1", "v2"):
            controls[name].observe(self._editor(name[0], int(name[1]) - 1), names="value")
        return controls

    def _editor(self, which: str, column: int):
        """An observer writing a k or v slider's new value into the picked token's row."""
        def edit(change):
            getattr(self, which)[self.token, column] = change["new"]
        return edit

    def make_actions(self):
        picker = widgets.Dropdown(options=list(example.TOKENS), value="假", description="改 k、v：")
        picker.observe(self._pick_token, names="value")
        return {"token": picker}

    def _pick_token(self, change):
        self.token = example.query_index(change["new"])
        t = self.token
        self.set(k1=float(self.k[t, 0]), k2=float(self.k[t, 1]), v1=float(self.v[t, 0]), v2=float(self.v[t, 1]))

    def restore_state(self):
        """Every token's k and v back to the article's numbers (part of 恢复默认)."""
        self.k, self.v = self.original_k.copy(), self.original_v.copy()

    def compute_args(self):
        """q from its sliders, every token's k and v rows (the picked one as its sliders edited it)."""
        values = self.values
        return {"q": (values["q1"], values["q2"]),
                "k": tuple(map(tuple, self.k.tolist())), "v": tuple(map(tuple, self.v.tolist()))}

    def compute(self, q, k, v):
        return example.hand_row(np.array(q), np.array(k), np.array(v))

    def build(self, fig):
        ax_w, ax_v = fig.subplots(1, 2)
        self.bars = BarPanel(ax_w, example.TOKENS, np.zeros(4), title="权重 w = softmax(q·k/√2)", highlight=1,
                             xlabel="位置（token）", ylabel="权重")
        labels = [f"w·v({t})" for t in example.TOKENS] + ["输出"]
        # v sliders span −3…3 and the parts sum with weights ≤ 1: every point stays within ±3
        self.zoom = ZOOMS[-1]
        self.vectors = VectorPanel(ax_v, np.zeros((5, 2)), labels, colors=PART_COLORS, lim=self.zoom,
                                   title="按权重把 v 首尾相接", chain=True, legend=True, legend_loc="lower left")
        self.animate(*self.bars.artists, *self.vectors.artists)

    def draw(self, row):
        self.bars.update(row.weights)
        highlight_largest(self.bars, row.weights)
        vectors = np.vstack([row.parts, row.output])
        self._show_zoom(chain_zoom(np.vstack(arrow_points(vectors, chain=True))))
        self.vectors.update(vectors)

    def _show_zoom(self, zoom):
        """The v-chain panel at ±``zoom`` (its background is kept per zoom)."""
        if zoom != self.zoom:
            self.zoom = zoom
            self.vectors.ax.set_xlim(-zoom, zoom)
            self.vectors.ax.set_ylim(-zoom, zoom)
            self.invalidate_background(key=zoom)

    def describe(self, row):
        return fill(self.web_templates["readout"], vars(row))

    def web_view(self, row):
        vectors = np.vstack([row.parts, row.output])
        return {"title": "", "panels": [
            web.bars(example.TOKENS, row.weights, highlight=largest(row.weights), digits=3,
                     title="权重 w = softmax(q·k/√2)", xlabel="位置（token）", ylabel="权重"),
            web.arrows(vectors, [f"w·v({t})" for t in example.TOKENS] + ["输出"], PART_COLORS,
                       lim=chain_zoom(np.vstack(arrow_points(vectors, chain=True))), chain=True,
                       title="按权重把 v 首尾相接", xlabel="第 1 维", ylabel="第 2 维")]}

    def web_formula_data(self) -> dict:
        """What the page's formula needs: the article's k, v rows, the zooms, the picker."""
        picker = self.actions["token"]
        options = list(picker.options)
        return {"tokens": list(example.TOKENS), "k0": self.original_k.tolist(), "v0": self.original_v.tolist(),
                "zooms": list(ZOOMS), "scale": float(1.0 / np.sqrt(2)),
                "actions": [{"name": "token", "label": picker.description, "shown": options,
                             "default": options.index(picker.value)}]}

    def web_compute_args(self, values, extra=None) -> dict:
        """:meth:`compute`'s arguments for the page's control values and the rows it keeps
        (``extra``: ``k``, ``v`` as edited, ``token`` picked; the article's rows and 假 if absent)."""
        extra = extra or {}
        k = np.array(extra.get("k") or self.original_k, dtype=float)
        v = np.array(extra.get("v") or self.original_v, dtype=float)
        t = int(extra.get("token", example.query_index("假")))
        k[t] = values["k1"], values["k2"]
        v[t] = values["v1"], values["v2"]
        return {"q": (values["q1"], values["q2"]), "k": tuple(map(tuple, k.tolist())), "v": tuple(map(tuple, v.tolist()))}

    def web_random_extra(self, rng) -> dict:
        """Random edited rows (on the sliders' 0.1 grid) and a picked token, for the formula test."""
        grid = np.round(np.arange(-30, 31) / 10, 1)
        return {"k": rng.choice(grid, (4, 2)).tolist(), "v": rng.choice(grid, (4, 2)).tolist(),
                "token": int(rng.integers(4))}

    @staticmethod
    def web_state_numbers(row) -> dict:
        """The numbers of a state the page's formula must reproduce."""
        return {name: getattr(row, name) for name in ("dots", "scores", "exps", "total", "weights", "parts", "output")}
