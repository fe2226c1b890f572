"""``04_sqrt_d``: d (log steps), n and the 1/√d switch → score histogram and weight distribution."""
from __future__ import annotations

from functools import cached_property

import numpy as np

from ..attention import softmax
from ..display import fmt
from ..explorer import Explorer
from ..palette import BASE, MUTED
from ..scaling import D_STEPS, ScorePool, jacobian_norms

BINS = 30
TOP = 10


class SqrtDExplorer(Explorer):
    figsize = (6.6, 2.6)

    @cached_property
    def pool(self):
        return ScorePool()

    def make_controls(self):
        import ipywidgets as widgets

        return {
            "d": widgets.SelectionSlider(options=list(D_STEPS), value=128, description="d"),
            "n": widgets.IntSlider(value=5, min=2, max=1000, step=1, description="n"),
            "scaled": widgets.Checkbox(value=True, description="除以 √d"),
        }

    def compute(self, d, n, scaled):
        scores = self.pool.scores(n, d)
        if scaled:
            scores = scores / np.sqrt(d)
        weights = softmax(scores)
        first = np.sort(weights[0])[::-1]
        top = np.zeros(TOP)
        top[: min(TOP, n)] = first[:TOP]
        lim = 4.0 * float(np.sqrt(d)) if not scaled else 4.0  # ±4 theoretical std
        sample = scores[: max(1, 20_000 // n)].ravel()  # enough points for a histogram
        counts, edges = np.histogram(sample, bins=BINS, range=(-lim, lim))
        # heights in units where the x-axis spans −1…1, so the axes never change
        density = counts / counts.sum() / (edges[1] - edges[0]) * lim
        return {
            "d": d, "n": n, "scaled": scaled,
            "score_std": float(np.std(scores)),
            "mean_max": float(weights.max(axis=-1).mean()),
            "jacobian": float(jacobian_norms(weights).mean()),
            "density": density,
            "lim": lim,
            "top": top,
        }

    def build(self, fig):
        self.ax_hist, self.ax_top = fig.subplots(1, 2)
        edges = np.linspace(-1, 1, BINS + 1)
        self.hist = self.ax_hist.bar(edges[:-1], np.zeros(BINS), width=edges[1] - edges[0], align="edge",
                                     color=MUTED)
        self.ax_hist.set_xlim(-1, 1)
        self.ax_hist.set_ylim(0, 2.0)
        self.ax_hist.set_xticks([-1, 0, 1], ["", "0", ""])
        self.ax_hist.set_yticks([])
        self.ax_hist.set_title("分数 q·k 的分布")
        self.tick_texts = [self.ax_hist.text(x, -0.02, "", transform=self.ax_hist.get_xaxis_transform(),
                                             ha="center", va="top", fontsize=9) for x in (-1, 1)]
        self.top_bars = self.ax_top.bar(np.arange(1, TOP + 1), np.zeros(TOP), color=BASE)
        self.ax_top.set_ylim(0, 1)
        self.ax_top.set_xticks(np.arange(1, TOP + 1))
        self.ax_top.set_title("一次抽样中最大的 10 个权重")
        for ax in (self.ax_hist, self.ax_top):
            ax.spines[["top", "right"]].set_visible(False)
        self.animate(*self.hist, *self.tick_texts, *self.top_bars)

    def draw(self, s):
        for rect, h in zip(self.hist, s["density"]):
            rect.set_height(min(h, 2.0))
        self.tick_texts[0].set_text(f"−{s['lim']:.0f}" if s["lim"] >= 10 else f"−{s['lim']:.1f}")
        self.tick_texts[1].set_text(f"{s['lim']:.0f}" if s["lim"] >= 10 else f"{s['lim']:.1f}")
        for rect, h in zip(self.top_bars, s["top"]):
            rect.set_height(h)

    def describe(self, s):
        mode = "÷√d" if s["scaled"] else "不缩放"
        return (f"d = {s['d']}，n = {s['n']}，{mode}：分数标准差 "
                f'<span class="std">{fmt(s["score_std"], 2)}</span> · 最大权重平均 '
                f'<span class="maxw">{fmt(s["mean_max"])}</span> · softmax 雅可比范数平均 '
                f'<span class="jac">{fmt(s["jacobian"])}</span>')
