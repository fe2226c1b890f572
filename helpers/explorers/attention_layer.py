"""``06_attention_layer``: query heads, KV heads (divisors only), length, RoPE → shapes, heads, cache."""
from __future__ import annotations

from functools import lru_cache

import ipywidgets as widgets
import matplotlib
import numpy as np

from ..config import LLAMA_3_1_8B
from ..cost import kv_cache_bytes_per_token
from ..figures.attention_layer import ASPECT, MosaicPanel, TileLayout, divisors
from ..layer import LayerShape, LayerWeights, attention_layer, random_layer
from ..render import web
from ..render.controls import limit_note
from ..render.explorer import Explorer
from ..render.format import fmt_bytes

HEAD_OPTIONS = (1, 2, 4, 8, 16, 32)
HEAD_DIM = 16      # scaled down so every move is instant; the real layer is shown statically
N_MAX = 16
#: the width : height of the tiles' box in the book page's narrow (phone) layout
NARROW_ASPECT = 0.5
SEED = 6


@lru_cache(maxsize=1)
def _pool() -> LayerWeights:
    """One seeded layer of the largest shape; every smaller layer is cut from it."""
    widest = max(HEAD_OPTIONS)
    return random_layer(LayerShape(widest * HEAD_DIM, widest, widest, HEAD_DIM), seed=SEED)


@lru_cache(maxsize=64)
def _weights(heads: int, kv: int) -> LayerWeights:
    """The layer for ``heads`` query and ``kv`` KV heads: the pool's top-left blocks, rescaled to
    std 1/√fan_in (drawing fresh weights per setting took up to ~40 ms on a first visit)."""
    pool = _pool()
    hidden, q, k = heads * HEAD_DIM, heads * HEAD_DIM, kv * HEAD_DIM
    scale = np.sqrt(pool.w_q.shape[0] / hidden)  # pool entries have std 1/√(widest hidden)
    return LayerWeights(pool.w_q[:hidden, :q] * scale, pool.w_k[:hidden, :k] * scale,
                        pool.w_v[:hidden, :k] * scale, pool.w_o[:q, :hidden] * scale)


@lru_cache(maxsize=4)
def _inputs(hidden: int):
    return np.random.default_rng(SEED).standard_normal((N_MAX, hidden))


class LayerExplorer(Explorer):
    """Query heads, KV heads (only divisors of the heads), length n and RoPE → the shape trace, one tile
    of weights per head, the KV cache per token."""

    figsize = (5.95, 3.0)

    def make_controls(self):
        heads = widgets.SelectionSlider(options=list(HEAD_OPTIONS), value=32, description="查询头")
        kv = widgets.Dropdown(options=divisors(32), value=8, description="KV 头")
        heads.observe(self._restrict_kv, names="value")  # runs before the update observer
        return {"heads": heads, "kv": kv,
                "n": widgets.IntSlider(value=8, min=2, max=N_MAX, description="长度 n"),
                "rope": widgets.Checkbox(value=True, description="RoPE")}

    def _restrict_kv(self, change):
        kv = self.controls["kv"]
        allowed = divisors(change["new"])
        keep = kv.value if kv.value in allowed else max(k for k in allowed if k <= kv.value)
        with self.holding():
            kv.options = allowed
            kv.value = keep

    def compute(self, heads, kv, n, rope):
        shape = LayerShape(heads * HEAD_DIM, heads, kv, HEAD_DIM)
        trace = []
        _, attn = attention_layer(_inputs(shape.hidden)[:n], _weights(heads, kv), shape,
                                  rope_theta=LLAMA_3_1_8B.rope_theta if rope else None, trace=trace)
        per_token = kv_cache_bytes_per_token(LLAMA_3_1_8B, num_kv_heads=kv)
        return {"shape": shape, "trace": trace, "attn": attn, "kv_bytes": per_token, "rope": rope,
                "layout": TileLayout(heads, kv, n)}

    def build(self, fig):
        for heads in HEAD_OPTIONS:  # cut every setting's weights now (~50 ms), not on a move
            for kv in divisors(heads):
                _weights(heads, kv)
        fig.set_layout_engine("none")  # fixed places: the tiles' box, its colorbar, title and note
        width, height = self.figsize
        left, right, top, bottom = 0.75, 0.76, 0.42, 0.36  # inches: row labels, colorbar, title, note
        box_h = min(height - top - bottom, (width - left - right) / ASPECT)
        ax = fig.add_axes([left / width, bottom / height, ASPECT * box_h / width, box_h / height])
        self.ax = ax
        self.cmap = matplotlib.colormaps["viridis"].with_extremes(bad=(0, 0, 0, 0))
        self.panel = MosaicPanel(ax, self.cmap, on_new_mesh=self.animate, on_drop_mesh=self.forget)
        cax = fig.add_axes([(left + ASPECT * box_h + 0.12) / width, bottom / height, 0.12 / width, box_h / height])
        scale = matplotlib.cm.ScalarMappable(norm=matplotlib.colors.Normalize(0, 1), cmap=self.cmap)
        fig.colorbar(scale, cax=cax).set_label("权重")
        fig.text(0.5, 0.08 / height, "每格一个头：行 = 查询位置，列 = 键位置；橙线隔开使用不同 K、V 的头",
                 ha="center", va="bottom", fontsize=9)
        # the settings in the title (an artist updated in draw): the live view and the preview show them
        self.settings = fig.text(0.5, 1 - 0.08 / height, " ", ha="center", va="top", fontsize=10)
        self.animate(*self.panel.artists, self.settings)

    def draw(self, s):
        self.panel.update(s["attn"], s["layout"])
        self.settings.set_text(s["layout"].title(s["rope"]))

    def describe(self, s):
        shape = s["shape"]
        group = shape.num_heads // shape.num_kv_heads
        kind = "MHA" if group == 1 else ("MQA" if shape.num_kv_heads == 1 else "GQA")
        # a table, not spaces in <pre>: Chinese and Latin glyphs differ in width, columns would drift
        rows = "".join(f"<tr><td style='padding-right:1.5em'>{step}</td><td><code class='shape'>{list(dims)}</code>"
                       f"</td></tr>" for step, dims in s["trace"])
        cols = s["layout"].cols
        return (f"<table style='border-collapse:collapse'>{rows}</table>"
                f"图中 {shape.num_heads} 个头排成每行 {cols} 个 · "
                f"{kind}：每个 KV 头供 {group} 个查询头共用 · "
                f"按 Llama-3.1-8B 的尺寸（32 层、head_dim 128、BF16），{shape.num_kv_heads} 个 KV 头的 KV Cache 为"
                f' <span class="kv">{fmt_bytes(s["kv_bytes"])}</span> / token' + limit_note(self.controls))

    def web_view(self, s):
        layout = s["layout"]
        # a phone's column: the tiles in a box twice as tall as wide (half as many to a row), each as
        # large as on a wide screen
        narrow = TileLayout(layout.heads, layout.kv, layout.n, aspect=NARROW_ASPECT)
        # a masked cell (a later key) is what the still draws: its weight, 0
        return {"title": layout.title(s["rope"]),
                "panels": [web.tiles(s["attn"], cols=layout.cols, group=layout.group, colorbar="权重",
                                     row_labels=[text for _, text in layout.row_labels()],
                                     narrow=(narrow.cols, [text for _, text in narrow.row_labels()]),
                                     note="每格一个头：行 = 查询位置，列 = 键位置；橙线隔开使用不同 K、V 的头")]}
