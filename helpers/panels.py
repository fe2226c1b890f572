"""Generic figure pieces shared by static figures and live explorers.

Each ``*Panel`` class draws once and returns its artists; its ``update`` changes them in place
(explorers call it on every control move, see :mod:`helpers.explorer`). The plain functions
(``weights_bar``, ``heatmap``, ``vectors_figure``, …) wrap a panel into a finished static figure.
"""
from __future__ import annotations

import numpy as np

from .display import fmt, new_figure
from .palette import ACCENT, BASE, MASKED, REFERENCE


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

    @property
    def artists(self) -> list:
        return [*self.bars, *self.labels]

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
                 title="", digits=3, annotate=True, highlight_row=None, xlabel="键（K）", ylabel="查询（Q）"):
        import matplotlib

        cmap_obj = matplotlib.colormaps[cmap].with_extremes(bad=MASKED)
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

    @property
    def artists(self) -> list:
        return [self.image, *(t for row in self.texts for t in row), self.row_box]

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


class VectorPanel:
    """2-D arrows (q/k/v vectors, or weighted parts of a sum drawn head to tail).

    With ``chain=True`` all arrows but the last are drawn head to tail and the last (the sum)
    from the origin, so the picture shows ``Σ w_j v_j`` being built. Labels of arrows shorter
    than ``min_label`` are hidden so tiny parts do not pile up.
    """

    def __init__(self, ax, vectors, labels, *, colors=None, lim=2.2, title="", chain=False,
                 min_label=0.0):
        self.ax = ax
        self.chain = chain
        self.min_label = min_label
        n = len(labels)
        colors = colors or [BASE] * n
        self.arrows = [ax.annotate("", xy=(0, 0), xytext=(0, 0),
                                   arrowprops=dict(arrowstyle="-|>", color=c, lw=2, shrinkA=0, shrinkB=0))
                       for c in colors]
        self.texts = [ax.text(0, 0, lab, fontsize=9, color=c) for lab, c in zip(labels, colors)]
        lo, hi = (lim if isinstance(lim, tuple) else (-lim, lim))
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.axhline(0, color=REFERENCE, lw=0.8)
        ax.axvline(0, color=REFERENCE, lw=0.8)
        ax.set_aspect("equal")
        ax.set_title(title)
        self.update(vectors)

    @property
    def artists(self) -> list:
        return [*self.arrows, *self.texts]

    def update(self, vectors):
        vecs = np.asarray(vectors, dtype=float)
        starts = np.zeros_like(vecs)
        if self.chain:
            starts[1:-1] = np.cumsum(vecs[:-1], axis=0)[:-1]
        for i, (arrow, text, start, vec) in enumerate(zip(self.arrows, self.texts, starts, vecs)):
            end = start + vec
            arrow.xy = (end[0], end[1])
            arrow.set_position((start[0], start[1]))
            if self.chain and i == len(vecs) - 1:  # the sum: label under its tip
                text.set_position((end[0] - 0.1, end[1] - 0.3))
            else:
                mid = start + 0.5 * vec if self.chain else end
                text.set_position((mid[0] + 0.04, mid[1] + 0.08))
            text.set_visible(bool(np.hypot(*vec) >= self.min_label))


def head_mosaic(attn, cols: int = 8, gap: int = 1) -> np.ndarray:
    """Tile per-head ``(H, n, n)`` weight maps into one array (NaN gaps), so a whole grid of
    heads is a single image: one ``set_data`` per update (``06_attention_layer``, ``09``)."""
    a = np.asarray(attn, dtype=float)
    heads, n, m = a.shape
    rows = -(-heads // cols)
    out = np.full((rows * (n + gap) - gap, cols * (m + gap) - gap), np.nan)
    for h in range(heads):
        r, c = divmod(h, cols)
        out[r * (n + gap): r * (n + gap) + n, c * (m + gap): c * (m + gap) + m] = a[h]
    return out


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


def vectors_figure(vectors, labels, *, colors=None, lim=2.5, title="", chain=False, width=3.4, height=3.2):
    """Static 2-D arrow picture (``02_qkv``'s q/k/v, ``03``'s weighted sum of v)."""
    fig = new_figure(width, height)
    VectorPanel(fig.add_subplot(), vectors, labels, colors=colors, lim=lim, title=title, chain=chain,
                min_label=0.15 if chain else 0.0)
    return fig


def heads_grid_figure(attn, *, cols=8, title="", kv_groups=None, width=7.6):
    """Static grid of per-head heatmaps; ``kv_groups`` labels which KV head each query head uses."""
    a = np.asarray(attn, dtype=float)
    heads = a.shape[0]
    rows = -(-heads // cols)
    fig = new_figure(width, max(1.6, width / cols * rows + 0.6))
    axes = np.atleast_1d(fig.subplots(rows, cols)).ravel()
    for h, ax in enumerate(axes):
        ax.set_xticks([])
        ax.set_yticks([])
        if h < heads:
            ax.imshow(a[h], vmin=0, vmax=1, cmap="viridis")
            label = f"头 {h}" + (f" · KV {h // kv_groups}" if kv_groups else "")
            ax.set_title(label, fontsize=7)
        else:
            ax.set_visible(False)
    fig.suptitle(title)
    return fig
