"""``08_reading_attention``: three explorers — sink, weight vs influence, dilution."""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .. import reading
from ..attention import scaled_dot_product_attention
from ..figures.reading_attention import WINDOW_EDGE, InfluencePanels, SinkPanels
from ..render import web
from ..render.explorer import Explorer
from ..render.format import fmt
from ..render.palette import ACCENT, BASE, MARKER, MASKED, MUTED, REFERENCE, colour_word

N_SINK = 24
#: the right panel's top, fitted to its curves: the smallest step above the largest ‖Δout‖ (plus
#: room for the markers); four steps, not a continuum: each look (a 3.4 MB background) is drawn once
#: and then restored, and the four stay within the memory bench's bound.
#: The last is above the largest ‖Δout‖ over every strength and window (4.83).
SINK_CHANGE_STEPS = (0.5, 1.5, 3.0, 5.2)
DIL_N = [2 ** i for i in range(1, 18)]  # 2 … 131072
SIGMA = 0.5


def _change_ylim(top: float) -> tuple:
    """The right panel's y range for a top from :data:`SINK_CHANGE_STEPS`; a little below 0, so the
    markers of positions that change by 0 stay whole."""
    return (-0.04 * top, top)


class SinkExplorer(Explorer):
    """Sink strength and window size → the weight map, and the output change when evicting the past."""

    figsize = (7.2, 3.2)

    def make_controls(self):
        return {"strength": widgets.FloatSlider(value=5.0, min=0.0, max=8.0, step=0.5, description="汇聚强度"),
                "window": widgets.IntSlider(value=8, min=1, max=N_SINK - 1, description="窗口")}

    def compute(self, strength, window):
        seq = reading.sink_sequence(N_SINK, strength=strength)
        _, w = scaled_dot_product_attention(seq.q, seq.k, seq.v, causal=True)
        only = reading.eviction_change(seq, window, keep_first=0)
        with_first = reading.eviction_change(seq, window, keep_first=1)
        later = slice(window, None)
        peak = 1.08 * max(float(only.max()), float(with_first.max()))
        top = next((step for step in SINK_CHANGE_STEPS if step >= peak), SINK_CHANGE_STEPS[-1])
        return {"strength": strength, "top": top, "window": window, "weights": w, "first_col": float(w[4:, 0].mean()), "only": only, "with_first": with_first,
                "only_mean": float(only[later].mean()) if window < N_SINK else 0.0,
                "with_first_mean": float(with_first[later].mean()) if window < N_SINK else 0.0}

    def build(self, fig):
        blank = np.zeros(N_SINK)
        self.panels = SinkPanels(fig, np.zeros((N_SINK, N_SINK)), blank, blank, 8)
        self.top = None
        self.animate(*self.panels.artists)

    def draw(self, s):
        self.panels.update(s["weights"], s["only"], s["with_first"], s["window"])
        if s["top"] != self.top:
            self.top = s["top"]
            self.panels.ax_change.set_ylim(*_change_ylim(self.top))
            self.invalidate_background(key=self.top)

    def describe(self, s):
        return (f"后面的查询平均把 <span class='sink'>{fmt(s['first_col'])}</span> 的权重放在第 1 个 token 上 · "
                f"窗口外的位置平均输出变化：只留窗口 <span class='only'>{fmt(s['only_mean'])}</span>，"
                f"首 token + 窗口 <span class='first'>{fmt(s['with_first_mean'])}</span>")

    def web_view(self, s):
        n = N_SINK
        w = np.where(np.tril(np.ones((n, n), dtype=bool)), s["weights"], np.nan)
        x = np.arange(n)
        ticks = [str(i) if i % 5 == 0 else "" for i in range(n)]  # the still's position ticks: 0, 5, 10, …
        heat = web.heatmap(w, ticks, ticks, title=f"因果注意力权重（{colour_word(MASKED)} = 被掩码遮住）",
                           xlabel="键（K）", ylabel="查询（Q）", colorbar="权重")
        change = web.lines([web.series(x, s["only"], color=ACCENT, marker=True, label="只留最近窗口"),
                            web.series(x, s["with_first"], color=BASE, marker=True, label="首 token + 窗口")],
                           title="丢掉前文后，每个位置的输出变化", xlabel="位置（token）", ylabel="输出变化 ‖Δout‖",
                           xlim=(-1, n), ylim=_change_ylim(s["top"]), vlines=[(s["window"] - 0.5, True, None, WINDOW_EDGE)],
                           vline_color=MARKER)
        return {"title": "", "panels": [heat, change]}


class InfluenceExplorer(Explorer):
    """The value size of position 0 → its weight beside its influence (the output change without it)."""

    figsize = (7.0, 2.9)

    def make_controls(self):
        return {"value_scale": widgets.FloatSlider(value=0.05, min=0.0, max=3.0, step=0.05,
                                                   description="位置 0 的 ‖v‖", readout_format=".2f",
                                                   style={"description_width": "initial"})}

    def compute(self, value_scale):
        return reading.weight_vs_influence_example(value_scale)

    def build(self, fig):
        self.panels = InfluencePanels(fig, np.zeros(6), np.zeros(6), show_values=False)  # numbers: readout
        self.animate(*self.panels.artists)

    def draw(self, s):
        self.panels.update(s["weights"], s["influence"])

    def describe(self, s):
        by_w = " > ".join(str(i) for i in s["by_weight"])
        by_i = " > ".join(str(i) for i in s["by_influence"])
        return (f"位置 0：权重 {fmt(s['weights'][0])}，遮掉后输出变化 <span class='infl0'>{fmt(s['influence'][0])}</span>"
                f"（位置 4：{fmt(s['influence'][4])}）<br>按权重排序：<span class='by-weight'>{by_w}</span> · "
                f"按影响排序：<span class='by-influence'>{by_i}</span>")

    def web_view(self, s):
        labels = [str(i) for i in range(len(s["weights"]))]
        return {"title": "", "panels": [
            web.bars(labels, s["weights"], highlight=int(np.argmax(s["weights"])), title="注意力权重（橙 = 最大）",
                     xlabel="位置（token）", ylabel="权重"),
            web.bars(labels, s["influence"], highlight=int(np.argmax(s["influence"])), ylim=(0, 1.35),
                     title="遮掉它以后输出的变化（橙 = 最大）", xlabel="位置（token）", ylabel="输出变化 ‖Δout‖")]}


class DilutionExplorer(Explorer):
    """Margin Δ and length n (log, up to 128K) → the relevant position's weight, closed form and simulated."""

    figsize = (4.8, 2.8)

    def make_controls(self):
        return {"delta": widgets.FloatSlider(value=4.0, min=0.0, max=12.0, step=0.5, description="分数差 Δ"),
                "n": widgets.SelectionSlider(options=[(f"{n:,}", n) for n in DIL_N], value=1024, description="长度 n")}

    def compute(self, delta, n):
        trials = max(2, min(200, 300_000 // n))  # large n concentrates: fewer trials suffice
        return {"delta": delta, "n": n,
                "closed": float(reading.dilution_weight(delta, n, sigma=SIGMA)),
                "simulated": reading.dilution_simulated(delta, n, sigma=SIGMA, trials=trials),
                "curve": reading.dilution_weight(delta, np.array(DIL_N), sigma=SIGMA),
                "half": reading.half_weight_n(delta, sigma=SIGMA)}

    def build(self, fig):
        ax = fig.add_subplot()
        (self.curve,) = ax.plot(DIL_N, np.zeros(len(DIL_N)), color=MUTED, label="闭式解")
        (self.point,) = ax.plot([1024], [0.5], "o", color=ACCENT, label="模拟")
        ax.axhline(0.5, color=REFERENCE, lw=1)
        ax.set_xscale("log", base=2)
        ax.set_ylim(-0.04, 1.04)  # room for the simulated point's marker at 0 or 1
        ax.set_xlabel("长度 n（token，对数刻度）")
        ax.set_ylabel("相关位置的权重")
        # the settings in the title (the static preview shows them too); longest text first for the layout
        self.title = ax.set_title(self.title_text(12.0, 131072))
        ax.legend()
        self.animate(self.curve, self.point, self.title)

    @staticmethod
    def title_text(delta, n) -> str:
        return f"相关位置的权重（Δ = {delta:.1f}；点 = 模拟，n = {n:,}）"

    def draw(self, s):
        self.curve.set_ydata(s["curve"])
        self.point.set_data([s["n"]], [s["simulated"]])
        self.title.set_text(self.title_text(s["delta"], s["n"]))

    def describe(self, s):
        return (f"Δ = {s['delta']:.1f}，n = {s['n']:,}：闭式解 <span class='closed'>{fmt(s['closed'])}</span>，"
                f"模拟 <span class='sim'>{fmt(s['simulated'])}</span>；"
                f"权重在 n ≈ <span class='half'>{s['half']:,.0f}</span> 时降到 50%")

    def web_view(self, s):
        return {"title": self.title_text(s["delta"], s["n"]), "panels": [web.lines(
            [web.series(DIL_N, s["curve"], color=MUTED, label="闭式解"),
             web.series([s["n"]], [s["simulated"]], color=ACCENT, marker=True, line=False, label="模拟")],
            xlabel="长度 n（token，对数刻度）", ylabel="相关位置的权重", xlog=2, xlim=(DIL_N[0], DIL_N[-1]),
            ylim=(-0.04, 1.04), xticks=[(n, f"2^{i + 1}") for i, n in enumerate(DIL_N) if i % 4 == 0],
            hlines=[(0.5, False)])]}
