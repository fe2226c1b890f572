"""``05_causal_mask``: mask on/off, the query row, appended tokens → weight matrix and row."""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .. import example
from ..attention import scaled_dot_product_attention
from ..kv_cache import earlier_output_change
from ..render import web
from ..render.explorer import Explorer
from ..render.format import fmt
from ..render.panels import HeatmapPanel

N_MAX = len(example.TOKENS) + len(example.EXTRA_TOKENS)


class CausalMaskExplorer(Explorer):
    """Mask on/off, the query row, tokens appended → the weight matrix, the row, the cache check."""

    figsize = (4.5, 4.2)

    def make_controls(self):
        n = len(example.TOKENS)
        extra = widgets.IntSlider(value=0, min=0, max=len(example.EXTRA_TOKENS), description="追加 token")
        extra.observe(self._follow_length, names="value")  # runs before the update observer
        return {
            "causal": widgets.Checkbox(value=True, description="因果掩码"),
            "row": widgets.IntSlider(value=n - 1, min=0, max=n - 1, description="查询行"),
            "extra": extra,
        }

    def _follow_length(self, change):
        """The query-row slider ends at the last token there is (no rows past the sequence)."""
        row = self.controls["row"]
        with self.holding():
            row.max = len(example.TOKENS) + change["new"] - 1  # a lower max also lowers the value

    def compute(self, causal, row, extra):
        tokens, qkv = example.extended_qkv(extra)
        n = len(tokens)
        if not 0 <= row < n:
            raise ValueError(f"CausalMaskExplorer.compute: row={row} is outside the {n} tokens")
        _, weights = scaled_dot_product_attention(qkv.q, qkv.k, qkv.v, causal=causal)
        change = earlier_output_change(qkv.q, qkv.k, qkv.v, len(example.TOKENS), causal=causal) if extra else 0.0
        return {"tokens": tokens, "weights": weights, "row": row, "causal": causal, "change": change}

    def build(self, fig):
        ax = fig.add_subplot()
        self.heat = HeatmapPanel(ax, np.full((N_MAX, N_MAX), np.nan), [""] * N_MAX, [""] * N_MAX,
                                 title="注意力权重（框内是正在读的行）", digits=3, highlight_row=0)
        self.animate(*self.heat.artists)
        self.shown_tokens = None

    def draw(self, s):
        n = len(s["tokens"])
        padded = np.full((N_MAX, N_MAX), np.nan)
        padded[:n, :n] = s["weights"]
        self.heat.update(padded, highlight_row=s["row"])
        self.heat.row_box.set_width(n)
        for i, row_texts in enumerate(self.heat.texts):
            for j, t in enumerate(row_texts):
                # numbers only on the row being read (the rest is colour), and not on masked cells
                t.set_visible(i == s["row"] and j < n and (j <= i or not s["causal"]))
        if s["tokens"] != self.shown_tokens:  # ticks and limits are background: redraw it
            self.shown_tokens = s["tokens"]
            labels = list(s["tokens"]) + [""] * (N_MAX - n)
            self.heat.ax.set_xticks(range(N_MAX), labels)
            self.heat.ax.set_yticks(range(N_MAX), labels)
            self.heat.ax.set_xlim(-0.5, n - 0.5)
            self.heat.ax.set_ylim(n - 0.5, -0.5)
            self.invalidate_background(key=n)

    def background_variants(self):
        """One static look per sequence length (its token labels and limits)."""
        return [{"extra": extra} for extra in range(len(example.EXTRA_TOKENS) + 1)]

    def describe(self, s):
        i = s["row"]
        row = " · ".join(f"{t} {fmt(w)}" for t, w in zip(s["tokens"], s["weights"][i]))
        text = f"“{s['tokens'][i]}”这一行：<span class=\"row\">{row}</span>"
        if len(s["tokens"]) > len(example.TOKENS):
            text += (f"<br>追加 token 后，前 4 个位置输出的最大变化："
                     f'<span class="change">{fmt(s["change"])}</span>'
                     + ("（有掩码：不变，可以缓存）" if s["causal"] else "（无掩码：变了，缓存会出错）"))
        return text

    def web_universe(self):
        """The query row can be any position of the longest sequence (its maximum follows 追加 token)."""
        return {"row": list(range(N_MAX))}

    def web_view(self, s):
        n, i = len(s["tokens"]), s["row"]
        shown = np.zeros((n, n), dtype=bool)
        shown[i] = [j <= i or not s["causal"] for j in range(n)]
        # a masked cell is what the still draws: its weight, 0 (the colormap's darkest)
        return {"title": "", "panels": [web.heatmap(s["weights"], s["tokens"], s["tokens"], highlight_row=i, numbers=shown,
                                                    title="注意力权重（框内是正在读的行）",
                                                    xlabel="键（K）", ylabel="查询（Q）")]}
