"""``09_real_model``: layer and head sliders over SmolLM2's real attention weights."""
from __future__ import annotations

from functools import cached_property

import numpy as np

from ..figures.real_model import attention_map
from ..render import web
from ..render.explorer import Explorer
from ..render.format import fmt
from ..render.panels import future_masked


class RealAttentionExplorer(Explorer):
    """Layer and head sliders → SmolLM2-135M's attention weights on a fixed text (loads the model),
    shown on the characters and words the pieces spell (:mod:`helpers.readable_tokens`: for English
    text one piece is one word and the map is unchanged; Chinese pieces are merged into characters)."""

    figsize = (5.4, 5.0)

    def __init__(self, text: str | None = None, **kwargs):
        from .. import readable_tokens, real_model, texts
        from ..render.validation import text as check_text

        if text is not None:
            check_text("text", text)
        self.model = real_model.load_model()
        self.ids = real_model.encode(self.model, text or texts.HEATMAP_TEXT)
        self.spelling = readable_tokens.spell_ids(self.model, self.ids)
        self.labels = self.spelling.labels()
        super().__init__(**kwargs)

    @cached_property
    def weights(self):
        from .. import readable_tokens, real_model

        return [readable_tokens.group_attention(w, self.spelling) for w in real_model.forward(self.model, self.ids).weights]

    def make_controls(self):
        import ipywidgets as widgets

        cfg = self.model.config
        return {"layer": widgets.IntSlider(value=cfg.num_layers // 2, min=0, max=cfg.num_layers - 1, description="层"),
                "head": widgets.IntSlider(value=0, min=0, max=cfg.num_heads - 1, description="头")}

    def compute(self, layer, head):
        w = self.weights[layer][head]
        group = self.model.config.num_heads // self.model.config.num_kv_heads
        return {"layer": layer, "head": head, "weights": w, "kv_head": head // group,
                "first": float(w[4:, 0].mean()) if len(w) > 4 else float(w[:, 0].mean())}

    def build(self, fig):
        ax = fig.add_subplot()
        n = len(self.labels)
        self.heat = attention_map(ax, np.zeros((n, n)), self.labels, title=self.title_text(29, 8, 2))
        fig.colorbar(self.heat, ax=ax, fraction=0.04, pad=0.02).set_label("权重")
        fig.get_layout_engine().set(w_pad=0.08)  # inches: matplotlib 3.10 put the y label on the edge
        self.animate(self.heat, ax.title)  # the title names the layer and head shown (the preview too)

    @staticmethod
    def title_text(layer, head, kv_head) -> str:
        return f"SmolLM2-135M · 层 {layer} · 头 {head}（KV 头 {kv_head}；都从 0 数）"

    def draw(self, s):
        self.heat.set_array(future_masked(s["weights"]))
        self.heat.axes.title.set_text(self.title_text(s["layer"], s["head"], s["kv_head"]))

    def describe(self, s):
        return (f"层 <span class='layer'>{s['layer']}</span>、查询头 {s['head']}（用 KV 头 {s['kv_head']}；都从 0 数）· "
                f"第 5 个 token 起的查询平均放在第 1 个 token 上的权重 <span class='first'>{fmt(s['first'])}</span>")

    def web_view(self, s):
        w = future_masked(s["weights"])
        return {"title": self.title_text(s["layer"], s["head"], s["kv_head"]),
                "panels": [web.heatmap(w, self.labels, self.labels, xlabel="键（被看的 token）",
                                       ylabel="查询（正在读的 token）", colorbar="权重")]}
