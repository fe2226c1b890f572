"""``06_attention_layer``: query heads, KV heads (divisors only), length, RoPE → shapes, heads, cache."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..config import LLAMA_3_1_8B
from ..cost import kv_cache_bytes_per_token
from ..display import fmt_bytes
from ..explorer import Explorer
from ..layer import LayerShape, attention_layer, random_layer, shape_trace_text
from ..panels import head_mosaic

HEAD_OPTIONS = (1, 2, 4, 8, 16, 32)
HEAD_DIM = 16      # scaled down so every move is instant; the real layer is shown statically
N_MAX = 16
COLS = 8
SEED = 6


def divisors(n: int) -> list:
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
        ax = fig.add_subplot()
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title("每个头的注意力权重（每格一个头，按行排列，每行 8 个）")
        rows = -(-max(HEAD_OPTIONS) // COLS)
        blank = np.full((rows * (N_MAX + 1) - 1, COLS * (N_MAX + 1) - 1), np.nan)
        import matplotlib

        cmap = matplotlib.colormaps["viridis"].with_extremes(bad="white")
        self.mosaic = ax.imshow(blank, vmin=0, vmax=1, cmap=cmap, interpolation="nearest")
        self.animate(self.mosaic)

    def draw(self, s):
        tile = head_mosaic(s["attn"], cols=COLS)
        rows = -(-max(HEAD_OPTIONS) // COLS)
        full = np.full((rows * (N_MAX + 1) - 1, COLS * (N_MAX + 1) - 1), np.nan)
        full[: tile.shape[0], : tile.shape[1]] = tile
        self.mosaic.set_data(full)

    def describe(self, s):
        shape = s["shape"]
        lines = [shape_trace_text(s["trace"])]
        group = shape.num_heads // shape.num_kv_heads
        kind = "MHA" if group == 1 else ("MQA" if shape.num_kv_heads == 1 else "GQA")
        return ("<pre style='line-height:1.25'>" + "\n".join(lines) + "</pre>"
                f"{kind}：每个 KV 头供 {group} 个查询头共用 · "
                f"按 Llama-3.1-8B 的尺寸（32 层、head_dim 128、BF16），{shape.num_kv_heads} 个 KV 头的 KV Cache 为"
                f' <span class="kv">{fmt_bytes(s["kv_bytes"])}</span> / token')
