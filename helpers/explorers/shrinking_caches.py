"""``14_shrinking_caches``: three explorers — MLA's cache against its widths, SmolLM2 with a sliding
window and sinks, one row's weights with gpt-oss's sink logit."""
from __future__ import annotations

from functools import lru_cache

import ipywidgets as widgets
import numpy as np

from ..figures.shrinking_caches import SINK_ROW, SMOOTH, sink_row, smoothed
from ..render import web
from ..render.explorer import Explorer
from ..render.format import fmt_bytes
from ..render.palette import BASE, MARKER, MUTED, REFERENCE
from ..render.validation import positive_int
from ..smaller_cache import latent, streaming
from ..smaller_cache.latent import DEEPSEEK_V3

LATENTS = (128, 256, 512, 1024)
ROPES = (32, 64, 128)
HEADS = (16, 32, 64, 128)
#: the layers the readout counts over (DeepSeek-V3's 61)
LAYERS = 61
#: the log axis' left end, where the cache bars start (a bar from 0 would reach past the axes)
LOW = 100


class LatentCacheExplorer(Explorer):
    """MLA's widths (latent, rope part, heads) → numbers one token caches per layer, expanded vs latent."""

    figsize = (6.4, 2.8)

    def make_controls(self):
        return {"latent": widgets.SelectionSlider(options=LATENTS, value=512, description="潜在向量"),
                "rope": widgets.SelectionSlider(options=ROPES, value=64, description="RoPE 部分"),
                "heads": widgets.SelectionSlider(options=HEADS, value=128, description="头数")}

    def compute(self, latent, rope, heads):
        shape = latent_shape(latent, rope, heads)
        expanded, small = shape.expanded_numbers(), shape.latent_numbers()
        return {"latent": latent, "rope": rope, "heads": heads, "expanded": expanded, "small": small,
                "ratio": expanded / small, "expanded_bytes": expanded * LAYERS * 2, "small_bytes": small * LAYERS * 2,
                "query": latent + rope, "key_width": shape.qk_head_dim}

    def build(self, fig):
        self.ax = fig.add_subplot()
        self.bars = self.ax.barh([1, 0], [1, 1], left=LOW, color=[MUTED, BASE])
        self.ax.set_yticks([1, 0], ["展开成每头 K、V", "MLA 的潜在向量"])
        self.ax.set_xscale("log")
        self.ax.set_xlim(LOW, 1e6)
        self.ax.set_xlabel("每个 token、每层缓存的数（个，对数刻度）")
        self.ax.set_ylabel("缓存的方式")
        # the settings in the title (the static preview shows them too); the widest text for the layout
        self.title = self.ax.set_title(self.title_text(1024, 128, 128))
        self.labels = [self.ax.text(LOW, y, "", va="center", fontsize=9) for y in (1, 0)]
        self.animate(*self.bars, self.title, *self.labels)

    @staticmethod
    def title_text(latent, rope, heads) -> str:
        return f"缓存多少个数（潜在向量 {latent}、RoPE 部分 {rope}、{heads} 个头）"

    def draw(self, s):
        for bar, text, value in zip(self.bars, self.labels, (s["expanded"], s["small"])):
            bar.set_width(value - LOW)
            text.set_position((value * 1.1, text.get_position()[1]))
            text.set_text(f"{value:,}")
        self.title.set_text(self.title_text(s["latent"], s["rope"], s["heads"]))

    def describe(self, s):
        return (f"{s['heads']} 头 × ({s['key_width']} + 128) = <span class='expanded'>{s['expanded']:,}</span> 个数 vs "
                f"{s['latent']} + {s['rope']} = <span class='small'>{s['small']:,}</span> 个数："
                f"小 <span class='ratio'>{s['ratio']:.1f}</span> 倍<br>{LAYERS} 层、BF16 每 token："
                f"{fmt_bytes(s['expanded_bytes'])} vs {fmt_bytes(s['small_bytes'])}；吸收后每个查询头宽 {s['query']}")

    def web_view(self, s):
        panel = web.bars(["展开成每头 K、V", "MLA 的潜在向量"], [np.log10(s["expanded"]), np.log10(s["small"])],
                         title="缓存多少个数（log₁₀）", ylabel="log₁₀（每 token 每层的数）", ylim=(0.0, 6.0),
                         colors=[MUTED, BASE])
        return {"title": self.title_text(s["latent"], s["rope"], s["heads"]), "panels": [panel]}


def latent_shape(latent_width: int, rope: int, heads: int) -> latent.MLAShape:
    """DeepSeek-V3's attention with another latent width, rope part and head count."""
    latent_width = positive_int("latent_width", latent_width, maximum=1 << 20)
    rope, heads = positive_int("rope", rope, maximum=1 << 20), positive_int("heads", heads, maximum=1 << 20)
    if rope % 2:
        raise ValueError(f"rope must be even (RoPE turns pairs of numbers), got {rope}")
    return latent.MLAShape(hidden=DEEPSEEK_V3.hidden, num_heads=heads, q_lora_rank=DEEPSEEK_V3.q_lora_rank,
                           kv_lora_rank=latent_width, qk_nope_head_dim=DEEPSEEK_V3.qk_nope_head_dim,
                           qk_rope_head_dim=rope, v_head_dim=DEEPSEEK_V3.v_head_dim)


POSITION_OPTIONS = (("按缓存位置（StreamingLLM）", "cache"), ("按原文位置", "text"))


class StreamingExplorer(Explorer):
    """Sinks and RoPE positions → SmolLM2's loss along the stored text with the stored window, against
    full attention."""

    figsize = (7.0, 3.0)

    def make_controls(self):
        return {"sinks": widgets.SelectionSlider(options=streaming.SINKS, value=4, description="汇聚"),
                "positions": widgets.ToggleButtons(options=POSITION_OPTIONS, value="cache", description="位置")}

    def compute(self, sinks, positions):
        stored, window = _stored(), streaming.WINDOWS[0]
        full_x, full_y = smoothed(stored.of())
        x, y = smoothed(stored.of(window, sinks, positions))
        return {"window": window, "sinks": sinks, "positions": positions, "x": x, "y": y, "full": full_y,
                "ppl": stored.perplexity(window, sinks, positions), "full_ppl": stored.perplexity(),
                "alone_ppl": stored.perplexity(window)}

    def build(self, fig):
        stored = _stored()
        self.ax = fig.add_subplot()
        x, y = smoothed(stored.of())
        (self.full_line,) = self.ax.plot(x, y, color=REFERENCE, label="完整注意力")
        (self.line,) = self.ax.plot(x, y, color=BASE, label="所选的窗口与汇聚")
        self.marker = self.ax.axvline(streaming.WINDOWS[0] + 4, color=MARKER, ls=":", lw=1)
        self.ax.set_ylim(1.5, 6.5)
        self.ax.set_xlabel("文中的位置（token）")
        self.ax.set_ylabel(f"前 {SMOOTH} 个预测的平均损失（nats）")
        # above the axes: the selected curve climbs into every corner (no sinks: the whole upper right);
        # the settings beside it, right-aligned (the static preview shows them too)
        self.ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, borderaxespad=0.2)
        self.title = self.ax.set_title(self.title_text(streaming.WINDOWS[0], 4, "text"), loc="right", fontsize=10)
        self.animate(self.line, self.marker, self.title)

    @staticmethod
    def title_text(window, sinks, positions) -> str:
        how = {"cache": "按缓存位置", "text": "按原文位置"}[positions]
        return f"窗口 {window}、{sinks} 个汇聚" + (f"，{how}" if sinks else "")

    def draw(self, s):
        self.line.set_ydata(s["y"])
        self.marker.set_xdata([s["window"] + s["sinks"]] * 2)
        self.title.set_text(self.title_text(s["window"], s["sinks"], s["positions"]))

    def describe(self, s):
        how = "按缓存位置" if s["positions"] == "cache" else "按原文位置"
        kept = f"{s['sinks']} 个汇聚 + 最近 {s['window']} 个" + (f"（{how}）" if s["sinks"] else "")
        return (f"{kept}：困惑度 <span class='ppl'>{s['ppl']:.2f}</span>；"
                f"只留最近 {s['window']} 个 {s['alone_ppl']:.2f}，完整注意力 {s['full_ppl']:.2f}")

    def web_view(self, s):
        panel = web.lines([web.series(s["x"], s["full"], color=REFERENCE, label="完整注意力"),
                           web.series(s["x"], s["y"], color=BASE, label="所选的窗口与汇聚")],
                          title="SmolLM2-135M 的损失，沿着文字", xlabel="文中的位置（token）",
                          ylabel=f"前 {SMOOTH} 个预测的平均损失（nats）", xlim=(0, len(s["full"]) + SMOOTH),
                          ylim=(1.5, 6.5), vlines=[(s["window"] + s["sinks"], True)], vline_color=MARKER)
        return {"title": self.title_text(s["window"], s["sinks"], s["positions"]), "panels": [panel]}


@lru_cache(maxsize=1)
def _stored() -> streaming.StoredLosses:
    """The stored SmolLM2 runs, read once."""
    return streaming.load()


class SinkLogitExplorer(Explorer):
    """A sink logit s → one row's eight weights with and without it, and the factor they share."""

    figsize = (6.0, 2.8)

    def make_controls(self):
        return {"sink": widgets.FloatSlider(value=2.0, min=-4.0, max=8.0, step=0.5, description="汇聚 logit s")}

    def compute(self, sink):
        row = sink_row(sink)
        return {"sink": sink, "plain": row["plain"], "with_sink": row["with_sink"], "factor": row["factor"],
                "sum": float(row["with_sink"].sum()), "top": int(np.argmax(row["with_sink"]))}

    def build(self, fig):
        self.ax = fig.add_subplot()
        x = np.arange(len(SINK_ROW))
        self.ax.bar(x - 0.2, sink_row(0.0)["plain"], 0.4, color=REFERENCE, label="没有汇聚 logit")
        self.bars = self.ax.bar(x + 0.2, np.zeros(len(x)), 0.4, color=BASE, label="加上 s")
        self.ax.set_xticks(x, [str(i) for i in x])
        self.ax.set_ylim(0, 0.4)
        self.ax.set_xlabel("键的位置")
        self.ax.set_ylabel("权重")
        self.ax.legend(loc="upper right")
        self.animate(*self.bars)

    def draw(self, s):
        for bar, h in zip(self.bars, s["with_sink"]):
            bar.set_height(h)

    def describe(self, s):
        return (f"s = {s['sink']:.1f}：每个权重都乘 <span class='factor'>{s['factor']:.3f}</span>，"
                f"一行加起来 {s['sum']:.3f}；最大的还是位置 {s['top']}")

    def web_view(self, s):
        x = np.arange(len(SINK_ROW))
        panel = web.lines([web.series(x, s["plain"], color=REFERENCE, marker=True, line=False, label="没有汇聚 logit")],
                          title="加上汇聚 logit s 以后的权重", xlabel="键的位置", ylabel="权重", xlim=(-0.6, len(x) - 0.4),
                          ylim=(0.0, 0.4), xticks=[(i, str(i)) for i in x], bars=(s["with_sink"], [BASE] * len(x)))
        return {"title": "", "panels": [panel]}

