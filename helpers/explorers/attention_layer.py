"""``06_attention_layer``: query heads, KV heads (divisors only), length, RoPE → shapes, heads, cache."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..config import LLAMA_3_1_8B
from ..cost import kv_cache_bytes_per_token
from ..figures.attention_layer import head_mosaic
from ..layer import LayerShape, LayerWeights, attention_layer, random_layer
from ..render.explorer import Explorer
from ..render.format import fmt_bytes
from ..render.palette import ACCENT
from ..render.panels import matrix_mesh

HEAD_OPTIONS = (1, 2, 4, 8, 16, 32)
HEAD_DIM = 16      # scaled down so every move is instant; the real layer is shown statically
N_MAX = 16
SEED = 6


ASPECT = 2  # width : height of the box the tiles are laid out in
#: the most rows of tiles any head count takes (32 heads: 4 rows of 8), i.e. the row labels kept
MAX_ROWS = 4


def columns_for(heads: int, n: int, aspect: int = ASPECT) -> int:
    """Tiles per row that make ``heads`` tiles of ``n × n`` cells as large as an ``aspect`` : 1 box
    allows, among the divisors of ``heads`` (full rows, so a KV group's tiles line up); on a tie,
    the wider layout."""
    from ..render.validation import finite_scalar, positive_int

    heads, n = positive_int("heads", heads, maximum=4096), positive_int("n", n, maximum=4096)
    aspect = finite_scalar("aspect", aspect, low=0.0, low_open=True, high=100.0)

    def tile_size(cols):
        rows = -(-heads // cols)
        return min(aspect / (cols * (n + 1)), 1 / (rows * (n + 1)))
    return max((c for c in range(1, heads + 1) if heads % c == 0), key=lambda c: (round(tile_size(c), 12), c))


class TileLayout:
    """Where the tiles of ``heads`` heads of ``n`` tokens go in the ``ASPECT`` × 1 box (data units):
    ``unit`` is one tile plus its gap, centred; ``group`` heads share one KV head."""

    def __init__(self, heads: int, kv: int, n: int):
        from ..render.validation import positive_int

        self.cols = columns_for(heads, n)  # checks heads and n
        kv = positive_int("kv", kv, maximum=heads)
        if heads % kv:
            raise ValueError(f"kv must divide heads={heads}; choose one of {divisors(heads)}, got {kv}")
        self.heads, self.kv, self.n = heads, kv, n
        self.rows = -(-heads // self.cols)
        self.group = heads // kv
        self.unit = min(ASPECT / self.cols, 1.0 / self.rows)
        self.x0 = (ASPECT - self.cols * self.unit) / 2
        self.y0 = (1.0 - self.rows * self.unit) / 2
        self.cell = self.unit / (n + 1)  # one token's cell; one cell of gap between tiles

    def mesh_transform(self):
        """Mesh coordinates (cell j centred on j) → data: the mosaic fills the layout's tiles."""
        from matplotlib.transforms import Affine2D

        return Affine2D().scale(self.cell).translate(self.x0 + self.cell, self.y0 + self.cell)

    def separators(self) -> list:
        """Segments in the gaps between neighbouring tiles whose heads use different KV heads."""
        u, x0, y0, segments = self.unit, self.x0, self.y0, []
        for h in range(self.heads):
            r, c = divmod(h, self.cols)
            right, below = h + 1, h + self.cols
            if c + 1 < self.cols and right < self.heads and right // self.group != h // self.group:
                x = x0 + (c + 1) * u
                segments.append([(x, y0 + r * u), (x, y0 + (r + 1) * u)])
            if below < self.heads and below // self.group != h // self.group:
                y = y0 + (r + 1) * u
                segments.append([(x0 + c * u, y), (x0 + (c + 1) * u, y)])
        return segments

    def row_labels(self) -> list:
        """``(y, text)`` per row of tiles: the heads in it (``头 8–15``)."""
        labels = []
        for r in range(self.rows):
            first, last = r * self.cols, min(self.heads, (r + 1) * self.cols) - 1
            labels.append((self.y0 + (r + 0.5) * self.unit, f"头 {first}" if first == last else f"头 {first}–{last}"))
        return labels

    def title(self, rope: bool) -> str:
        """The settings (short: a long text costs milliseconds on every move)."""
        kind = "MHA" if self.group == 1 else ("MQA" if self.kv == 1 else "GQA")
        return f"查询头 {self.heads} · KV 头 {self.kv}（{kind}）· n = {self.n} · RoPE {'开' if rope else '关'}"


def divisors(n: int) -> list:
    """The KV-head counts that divide ``n`` query heads."""
    from ..render.validation import positive_int

    n = positive_int("n", n, maximum=4096)
    return [k for k in range(1, n + 1) if n % k == 0]


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
        import ipywidgets as widgets

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
        self._holding = True
        try:
            kv.options = allowed
            kv.value = keep
        finally:
            self._holding = False

    def compute(self, heads, kv, n, rope):
        shape = LayerShape(heads * HEAD_DIM, heads, kv, HEAD_DIM)
        trace = []
        _, attn = attention_layer(_inputs(shape.hidden)[:n], _weights(heads, kv), shape,
                                  rope_theta=LLAMA_3_1_8B.rope_theta if rope else None, trace=trace)
        per_token = kv_cache_bytes_per_token(LLAMA_3_1_8B, num_kv_heads=kv)
        return {"shape": shape, "trace": trace, "attn": attn, "kv_bytes": per_token, "rope": rope,
                "layout": TileLayout(heads, kv, n)}

    def build(self, fig):
        import matplotlib
        from matplotlib.collections import LineCollection

        for heads in HEAD_OPTIONS:  # cut every setting's weights now (~50 ms), not on a move
            for kv in divisors(heads):
                _weights(heads, kv)
        from matplotlib.transforms import offset_copy

        fig.set_layout_engine("none")  # fixed places: the tiles' box, its colorbar, title and note
        width, height = self.figsize
        left, right, top, bottom = 0.75, 0.76, 0.42, 0.36  # inches: row labels, colorbar, title, note
        box_h = min(height - top - bottom, (width - left - right) / ASPECT)
        ax = fig.add_axes([left / width, bottom / height, ASPECT * box_h / width, box_h / height])
        ax.set_xlim(0, ASPECT)
        ax.set_ylim(1, 0)
        ax.set_aspect("equal")
        ax.axis("off")  # tiles only: no frame, no stray axis lines
        self.ax = ax
        self.cmap = matplotlib.colormaps["viridis"].with_extremes(bad=(0, 0, 0, 0))
        # one mesh per mosaic shape (made on first use, then reused): a mesh only as large as the
        # tiles draws fastest; draw() scales and places it with its transform
        self.meshes = {}
        self.mosaic = None
        self.lines = LineCollection([], colors=ACCENT, linewidths=1.5)
        ax.add_collection(self.lines)
        label_at = offset_copy(ax.transData, fig=fig, x=-5, units="points")  # a fixed gap left of the tiles
        self.row_texts = [ax.text(0, 0, "", transform=label_at, ha="right", va="center", fontsize=9,
                                  clip_on=False) for _ in range(MAX_ROWS)]
        cax = fig.add_axes([(left + ASPECT * box_h + 0.12) / width, bottom / height, 0.12 / width, box_h / height])
        scale = matplotlib.cm.ScalarMappable(norm=matplotlib.colors.Normalize(0, 1), cmap=self.cmap)
        fig.colorbar(scale, cax=cax).set_label("权重")
        fig.text(0.5, 0.08 / height, "每格一个头：行 = 查询位置，列 = 键位置；橙线隔开使用不同 K、V 的头",
                 ha="center", va="bottom", fontsize=9)
        # the settings in the title (an artist updated in draw): the live view and the preview show them
        self.settings = fig.text(0.5, 1 - 0.08 / height, " ", ha="center", va="top", fontsize=10)
        self.animate(self.lines, *self.row_texts, self.settings)

    def mesh_for(self, shape):
        """The mesh for a mosaic of ``shape`` cells (its gaps transparent)."""
        if shape not in self.meshes:
            mesh = matrix_mesh(self.ax, np.full(shape, np.nan), cmap=self.cmap)
            self.ax.set_xlim(0, ASPECT)  # matrix_mesh fits the limits to the mesh: back to the tiles' box
            self.ax.set_ylim(1, 0)
            self.animate(mesh)
            self.meshes[shape] = mesh
        return self.meshes[shape]

    def draw(self, s):
        layout = s["layout"]
        tiles = head_mosaic(s["attn"], cols=layout.cols)
        self.mosaic = self.mesh_for(tiles.shape)
        for mesh in self.meshes.values():
            mesh.set_visible(mesh is self.mosaic)
        self.mosaic.set_array(np.ma.masked_invalid(tiles))
        self.mosaic.set_transform(layout.mesh_transform() + self.ax.transData)
        self.lines.set_segments(layout.separators())
        labels = layout.row_labels()
        for i, text in enumerate(self.row_texts):
            text.set_visible(i < len(labels))
            if i < len(labels):
                y, label = labels[i]
                text.set_position((layout.x0, y))
                text.set_text(label)
        self.settings.set_text(layout.title(s["rope"]))

    def describe(self, s):
        shape = s["shape"]
        group = shape.num_heads // shape.num_kv_heads
        kind = "MHA" if group == 1 else ("MQA" if shape.num_kv_heads == 1 else "GQA")
        # a table, not spaces in <pre>: Chinese and Latin glyphs differ in width, columns would drift
        rows = "".join(f"<tr><td style='padding-right:1.5em'>{step}</td><td><code class='shape'>{list(dims)}</code>"
                       f"</td></tr>" for step, dims in s["trace"])
        cols = columns_for(shape.num_heads, s["attn"].shape[-1])
        return (f"<table style='border-collapse:collapse'>{rows}</table>"
                f"图中 {shape.num_heads} 个头排成每行 {cols} 个 · "
                f"{kind}：每个 KV 头供 {group} 个查询头共用 · "
                f"按 Llama-3.1-8B 的尺寸（32 层、head_dim 128、BF16），{shape.num_kv_heads} 个 KV 头的 KV Cache 为"
                f' <span class="kv">{fmt_bytes(s["kv_bytes"])}</span> / token')
