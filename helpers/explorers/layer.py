"""``06_attention_layer``: query heads, KV heads (divisors only), length, RoPE → shapes, heads, cache."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..config import LLAMA_3_1_8B
from ..cost import kv_cache_bytes_per_token
from ..display import fmt_bytes
from ..explorer import Explorer
from ..layer import LayerShape, attention_layer, random_layer
from ..panels import head_mosaic, matrix_mesh

HEAD_OPTIONS = (1, 2, 4, 8, 16, 32)
HEAD_DIM = 16      # scaled down so every move is instant; the real layer is shown statically
N_MAX = 16
SEED = 6


ASPECT = 2  # width : height of the mosaic's box
#: the mosaic's fixed grid of cells: 32 heads of 16 tokens (4 × 8 tiles of 16 + 1-cell gaps) fill it
GRID = (68, 136)


def columns_for(heads: int, n: int, aspect: int = ASPECT) -> int:
    """Tiles per row that make ``heads`` tiles of ``n × n`` cells as large as an ``aspect`` : 1 box allows."""
    from ..validation import finite_scalar, positive_int

    heads, n = positive_int("heads", heads, maximum=4096), positive_int("n", n, maximum=4096)
    aspect = finite_scalar("aspect", aspect, low=0.0, low_open=True, high=100.0)

    def tile_size(cols):
        rows = -(-heads // cols)
        return min(aspect / (cols * (n + 1)), 1 / (rows * (n + 1)))
    return max(range(1, heads + 1), key=tile_size)


def mosaic_scale(heads: int, n: int) -> int:
    """How many grid cells wide each token's cell is drawn (fewer heads or tokens: larger tiles)."""
    from ..validation import positive_int

    heads, n = positive_int("heads", heads, maximum=4096), positive_int("n", n, maximum=4096)
    h = -(-heads // columns_for(heads, n)) * (n + 1) - 1
    w = columns_for(heads, n) * (n + 1) - 1
    if h > GRID[0] or w > GRID[1]:
        raise ValueError(f"heads={heads} tiles of n={n} tokens do not fit the explorer's {GRID} grid")
    return min(GRID[0] // h, GRID[1] // w)


def fitted_mosaic(attn) -> np.ndarray:
    """The heads' tiles (NaN gaps), each cell repeated :func:`mosaic_scale` times, centred on the
    fixed :data:`GRID` (NaN around): one array shape for every state, so the figure keeps one mesh."""
    from ..validation import as_real_array

    attn = as_real_array("attn", attn, ndim=3)
    heads, n, _ = attn.shape
    s = mosaic_scale(heads, n)
    tile = head_mosaic(attn, cols=columns_for(heads, n))
    big = np.repeat(np.repeat(tile, s, axis=0), s, axis=1)
    h, w = big.shape
    out = np.full(GRID, np.nan)
    top, left = (GRID[0] - h) // 2, (GRID[1] - w) // 2
    out[top:top + h, left:left + w] = big
    return out


def divisors(n: int) -> list:
    """The KV-head counts that divide ``n`` query heads."""
    from ..validation import positive_int

    n = positive_int("n", n, maximum=4096)
    return [k for k in range(1, n + 1) if n % k == 0]


@lru_cache(maxsize=64)
def _weights(heads: int, kv: int):
    return random_layer(LayerShape(heads * HEAD_DIM, heads, kv, HEAD_DIM), seed=SEED)


@lru_cache(maxsize=4)
def _inputs(hidden: int):
    return np.random.default_rng(SEED).standard_normal((N_MAX, hidden))


class LayerExplorer(Explorer):
    figsize = (6.4, 3.4)

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
        return {"shape": shape, "trace": trace, "attn": attn, "kv_bytes": per_token, "rope": rope}

    def build(self, fig):
        import matplotlib

        ax = fig.add_subplot()
        ax.axis("off")  # tiles only: no frame, no stray axis lines
        ax.set_title("每个头的注意力权重（一格一个头，从左到右、从上到下）")
        cmap = matplotlib.colormaps["viridis"].with_extremes(bad="white")
        # one mesh on a fixed grid; draw() lays the tiles out as large as the grid allows
        self.mosaic = matrix_mesh(ax, np.full(GRID, np.nan), cmap=cmap)
        fig.colorbar(self.mosaic, ax=ax, fraction=0.03, pad=0.02).set_label("权重")
        self.animate(self.mosaic)

    def draw(self, s):
        self.mosaic.set_array(fitted_mosaic(s["attn"]))

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
