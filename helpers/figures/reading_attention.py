"""``08_reading_attention``: attention sink and eviction, weight vs influence, dilution."""
from __future__ import annotations

import numpy as np

from ..render.palette import ACCENT, BASE, MARKER, MASKED, REFERENCE, SERIES, colour_word
from ..render.panels import BarPanel, future_masked, masked_viridis, matrix_mesh
from ..render.png import new_figure

#: the legend's name for the dashed line at the window's edge (the figure's and the book page's)
WINDOW_EDGE = "窗口边界"


class SinkPanels:
    """``08_reading_attention``: the causal weight map (masked cells grey, a colourbar) and the
    per-position output change after eviction (only a recent window vs first token + window), the
    window's edge dashed; ``update`` changes them in place."""

    def __init__(self, fig, weights, only, with_first, window, *, ylim=None):
        ax_w, ax_c = fig.subplots(1, 2)
        self.ax_change = ax_c
        self.heat = matrix_mesh(ax_w, future_masked(weights), cmap=masked_viridis())
        fig.colorbar(self.heat, ax=ax_w, fraction=0.05, pad=0.03).set_label("权重")
        ax_w.set_title(f"因果注意力权重（{colour_word(MASKED)} = 被掩码遮住）")
        ax_w.set_xlabel("键（K）")
        ax_w.set_ylabel("查询（Q）")
        x = np.arange(len(only))
        (self.only_line,) = ax_c.plot(x, only, "o-", ms=3, color=ACCENT, label="只留最近窗口")
        (self.first_line,) = ax_c.plot(x, with_first, "s-", ms=3, color=BASE, label="首 token + 窗口")
        self.edge = ax_c.axvline(window - 0.5, color=MARKER, ls="--", lw=1, label=WINDOW_EDGE)
        if ylim is not None:
            ax_c.set_ylim(*ylim)
        ax_c.set_xlabel("位置（token）")
        ax_c.set_ylabel("输出变化 ‖Δout‖")
        # the legend sits above the plot, between it and the title: no line can run through it
        ax_c.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, frameon=False, borderaxespad=0.2)
        ax_c.set_title("丢掉前文后，每个位置的输出变化", pad=44)

    @property
    def artists(self) -> list:
        return [self.heat, self.only_line, self.first_line, self.edge]

    def update(self, weights, only, with_first, window):
        self.heat.set_array(future_masked(weights))
        self.only_line.set_ydata(only)
        self.first_line.set_ydata(with_first)
        self.edge.set_xdata([window - 0.5, window - 0.5])


def sink_figure(weights, only, with_first, window):
    """Static version of :class:`SinkPanels`."""
    fig = new_figure(7.4, 3.2)
    SinkPanels(fig, weights, only, with_first, window)
    return fig


class InfluencePanels:
    """``08_reading_attention``: attention weight and ablation influence per position, side by side."""

    def __init__(self, fig, weights, influence, *, show_values=True):
        ax_w, ax_i = fig.subplots(1, 2)
        labels = [str(i) for i in range(len(weights))]
        # each panel highlights its own largest bar: they need not be the same position
        self.weight_bars = BarPanel(ax_w, labels, weights, title="注意力权重（橙 = 最大）", highlight="max",
                                    xlabel="位置（token）", ylabel="权重", show_values=show_values)
        self.influence_bars = BarPanel(ax_i, labels, influence, ylim=(0, 1.35), title="遮掉它以后输出的变化（橙 = 最大）",
                                       highlight="max", xlabel="位置（token）", ylabel="输出变化 ‖Δout‖",
                                       show_values=show_values)

    @property
    def artists(self) -> list:
        return [*self.weight_bars.artists, *self.influence_bars.artists]

    def update(self, weights, influence):
        self.weight_bars.update(weights)
        self.influence_bars.update(influence)


def influence_figure(example_result):
    """Static version of :class:`InfluencePanels`."""
    fig = new_figure(7.0, 2.9)
    InfluencePanels(fig, example_result["weights"], example_result["influence"])
    return fig


def dilution_figure(deltas, ns, closed, simulated):
    """``08_reading_attention``: the relevant position's weight against n, closed form and simulation."""
    fig = new_figure(5.0, 3.0)
    ax = fig.add_subplot()
    colors = SERIES
    for delta, c, cl, sim in zip(deltas, colors, closed, simulated):
        ax.plot(ns, cl, color=c, label=f"Δ = {delta:g}")
        ax.plot(ns, sim, "o", ms=3, color=c)
    ax.axhline(0.5, color=REFERENCE, lw=1)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("长度 n（token，对数刻度）")
    ax.set_ylabel("相关位置的权重")
    ax.set_title("线：闭式解；点：模拟")
    ax.set_ylim(-0.04, 1.04)  # markers at 0 or 1 stay whole
    ax.legend()
    return fig
