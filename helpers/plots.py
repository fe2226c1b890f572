"""Plot builders shared by static figures and live explorers.

Each ``*_panel`` function draws once and returns the artists; the matching ``update_*`` changes
them in place (explorers call it on every control move, see :mod:`helpers.explorer`).
"""
from __future__ import annotations

import numpy as np

from .display import fmt, new_figure

ACCENT = "#d95f02"
BASE = "#1b9e77"
MUTED = "#7570b3"


class BarPanel:
    """A labelled bar chart whose heights (and value labels) can be updated in place."""

    def __init__(self, ax, labels, values, *, ylim=(0, 1), title="", ylabel="", digits=3,
                 highlight=None):
        self.ax = ax
        self.digits = digits
        x = np.arange(len(labels))
        colors = [ACCENT if highlight is not None and i == highlight else BASE for i in x]
        self.bars = ax.bar(x, np.zeros(len(labels)), color=colors)
        ax.set_xticks(x, list(labels))
        ax.set_ylim(*ylim)
        ax.set_title(title)
        ax.set_ylabel(ylabel)
        ax.spines[["top", "right"]].set_visible(False)
        self.labels = [ax.text(i, 0, "", ha="center", va="bottom", fontsize=9) for i in x]
        self.update(values)

    def update(self, values):
        top = self.ax.get_ylim()[1]
        for bar, label, value in zip(self.bars, self.labels, np.ravel(values)):
            bar.set_height(value)
            label.set_y(min(value, top * 0.92) if value >= 0 else 0)
            label.set_text(fmt(value, self.digits))


class HeatmapPanel:
    """A matrix heatmap with per-cell text; ``update`` swaps data and text in place.

    Cells holding ``-inf`` (masked) show as "−∞" on a grey background.
    """

    def __init__(self, ax, matrix, row_labels, col_labels, *, vmin=0.0, vmax=1.0, cmap="viridis",
                 title="", digits=3, annotate=True, highlight_row=None, xlabel="key", ylabel="query"):
        import matplotlib

        cmap_obj = matplotlib.colormaps[cmap].copy()
        cmap_obj.set_bad("#dddddd")
        self.ax = ax
        self.digits = digits
        m = np.asarray(matrix, dtype=float)
        self.image = ax.imshow(np.ma.masked_invalid(m), cmap=cmap_obj, vmin=vmin, vmax=vmax)
        ax.set_xticks(range(len(col_labels)), list(col_labels))
        ax.set_yticks(range(len(row_labels)), list(row_labels))
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        self.texts = []
        if annotate:
            self.texts = [[ax.text(j, i, "", ha="center", va="center", fontsize=8)
                           for j in range(m.shape[1])] for i in range(m.shape[0])]
        from matplotlib.patches import Rectangle

        self.row_box = Rectangle((-0.5, -0.5), m.shape[1], 1, fill=False, lw=2.5, ec=ACCENT,
                                 visible=highlight_row is not None)
        ax.add_patch(self.row_box)
        self.update(m, highlight_row=highlight_row)

    def update(self, matrix, highlight_row=None):
        m = np.asarray(matrix, dtype=float)
        self.image.set_data(np.ma.masked_invalid(m))
        lo, hi = self.image.get_clim()
        for i, row in enumerate(self.texts):
            for j, text in enumerate(row):
                value = m[i, j]
                if np.isneginf(value):
                    text.set_text("−∞")
                    text.set_color("black")
                else:
                    text.set_text(fmt(value, self.digits))
                    text.set_color("white" if value < lo + 0.6 * (hi - lo) else "black")
        if highlight_row is None:
            self.row_box.set_visible(False)
        else:
            self.row_box.set_visible(True)
            self.row_box.set_y(highlight_row - 0.5)


def weights_bar(labels, weights, *, title="", highlight=None, width=4.2, height=2.6):
    """Static bar chart of one row of attention weights."""
    fig = new_figure(width, height)
    BarPanel(fig.add_subplot(), labels, weights, title=title, ylabel="权重", highlight=highlight)
    return fig


def heatmap(matrix, row_labels, col_labels, *, title="", vmin=0.0, vmax=1.0, cmap="viridis",
            highlight_row=None, digits=3, width=3.6, height=3.2):
    """Static heatmap of a score or weight matrix (rows = query, columns = key)."""
    fig = new_figure(width, height)
    HeatmapPanel(fig.add_subplot(), matrix, row_labels, col_labels, title=title, vmin=vmin,
                 vmax=vmax, cmap=cmap, highlight_row=highlight_row, digits=digits)
    return fig


def heatmaps(matrices, titles, row_labels, col_labels, *, vmin=0.0, vmax=1.0, cmap="viridis",
             digits=3, highlight_row=None, width_per=3.0, height=3.0):
    """Several heatmaps side by side (e.g. scores, masked scores, weights)."""
    fig = new_figure(width_per * len(matrices), height)
    axes = fig.subplots(1, len(matrices))
    for ax, m, title in zip(np.atleast_1d(axes), matrices, titles):
        finite = np.asarray(m, dtype=float)
        lo = vmin if vmin is not None else float(np.min(finite[np.isfinite(finite)]))
        hi = vmax if vmax is not None else float(np.max(finite[np.isfinite(finite)]))
        HeatmapPanel(ax, m, row_labels, col_labels, title=title, vmin=lo, vmax=hi, cmap=cmap,
                     digits=digits, highlight_row=highlight_row)
    return fig


class VectorPanel:
    """2-D arrows from the origin (value vectors, their weighted parts and the sum)."""

    def __init__(self, ax, vectors, labels, *, colors=None, lim=2.2, title=""):
        self.ax = ax
        n = len(labels)
        colors = colors or [BASE] * n
        self.arrows = [ax.annotate("", xy=(0, 0), xytext=(0, 0),
                                   arrowprops=dict(arrowstyle="-|>", color=c, lw=2)) for c in colors]
        self.texts = [ax.text(0, 0, lab, fontsize=9, color=c) for lab, c in zip(labels, colors)]
        ax.set_xlim(-lim, lim)
        ax.set_ylim(-lim, lim)
        ax.axhline(0, color="#bbbbbb", lw=0.8)
        ax.axvline(0, color="#bbbbbb", lw=0.8)
        ax.set_aspect("equal")
        ax.set_title(title)
        self.update(vectors)

    def update(self, vectors):
        for arrow, text, vec in zip(self.arrows, self.texts, np.asarray(vectors, dtype=float)):
            arrow.xy = (vec[0], vec[1])
            text.set_position((vec[0] * 1.05 + 0.05, vec[1] * 1.05 + 0.05))
