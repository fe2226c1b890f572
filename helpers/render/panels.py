"""Generic figure pieces shared by static figures and live explorers.

Each ``*Panel`` class draws once and returns its artists; its ``update`` changes them in place
(explorers call it on every control move, see :mod:`helpers.render.explorer`). The plain functions
(``weights_bar``, ``values_bar``, ``heatmaps``, ``vectors_figure``, …) wrap a panel into a finished static figure.
"""
from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib.patches import Rectangle

from .format import fmt
from .palette import ACCENT, BASE, BLACK, MASKED, REFERENCE, WHITE
from .png import new_figure
from .validation import as_real_array, instance, nonneg_int, positive_int


class BarPanel:
    """A labelled bar chart whose heights, value labels and highlighted bar can be updated in place.

    ``highlight``: a bar index, ``"max"`` (the largest bar, recomputed on every update) or ``None``.
    Value labels sit above their bars, or inside the top of a bar too tall to leave them room.
    """

    def __init__(self, ax, labels, values, *, ylim=(0, 1.12), title="", xlabel="", ylabel="", digits=3,
                 highlight=None, show_values=True):
        self.ax = ax
        self.digits = digits
        self.show_values = show_values  # False: bars only (an explorer whose readout prints the numbers)
        self.highlight = highlight
        x = np.arange(len(labels))
        self.bars = ax.bar(x, np.zeros(len(labels)), color=BASE)
        ax.set_xticks(x, list(labels))
        ax.set_ylim(*ylim)
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        self.labels = [ax.text(i, 0, "", ha="center", va="bottom", fontsize=9) for i in x] if show_values else []
        self.update(values)

    @property
    def artists(self) -> list:
        return [*self.bars, *self.labels]

    def update(self, values, highlight=None):
        values = np.ravel(values)
        bottom, top = self.ax.get_ylim()
        room = 0.1 * (top - bottom)  # about one 9-pt line on a panel of ~2 inches
        mark = highlight if highlight is not None else self.highlight
        if isinstance(mark, str):
            mark = int(np.argmax(values))
        for i, (bar, value) in enumerate(zip(self.bars, values)):
            bar.set_height(value)
            bar.set_color(ACCENT if i == mark else BASE)
        for label, value in zip(self.labels, values):
            inside = value + room > top
            label.set_y(value if value >= 0 else 0)
            label.set_va("top" if inside else "bottom")
            label.set_color(WHITE if inside else BLACK)
            label.set_text(fmt(value, self.digits))


def ceil_div(count: int, per: int) -> int:
    """``⌈count / per⌉`` in integers: the rows a grid needs for ``count`` panels at ``per`` to a
    row (or the columns for ``count`` panels on ``per`` rows)."""
    return -(-nonneg_int("count", count) // positive_int("per", per))


def matrix_mesh(ax, matrix, *, cmap="viridis", vmin=0.0, vmax=1.0):
    """A matrix drawn as cells, row 0 at the top and cell (i, j) centred on (j, i), like ``imshow``;
    but as vector quads, which redraw about 20× faster at 2× density than a resampled image.
    ``set_array`` takes a new matrix of the same shape (NaN or masked: the colormap's "bad")."""
    m = np.ma.masked_invalid(np.asarray(matrix, dtype=float))
    rows, cols = m.shape
    mesh = ax.pcolormesh(np.arange(cols + 1) - 0.5, np.arange(rows + 1) - 0.5, m, cmap=cmap, vmin=vmin, vmax=vmax)
    ax.set_xlim(-0.5, cols - 0.5)
    ax.set_ylim(rows - 0.5, -0.5)
    ax.set_aspect("equal")
    return mesh


def pattern_frame(ax, n: int, *, columns=(), rows=(), blank: float = 0.0, cmap="viridis", label_size=None) -> tuple:
    """The frame of an attention-pattern panel on a repeated sequence (``11``'s and ``12``'s): an
    ``n × n`` :func:`matrix_mesh` filled with ``blank`` (NaN: the colormap's "bad" until the first
    ``set_array``), dashed white lines at the key positions ``columns`` and the query positions
    ``rows`` (where a copy starts or ends), and the key / query axis labels. ``(mesh, lines)``."""
    mesh = matrix_mesh(ax, np.full((n, n), blank), cmap=cmap)
    lines = [ax.axvline(x, color=WHITE, lw=0.8, ls="--") for x in columns]
    lines += [ax.axhline(y, color=WHITE, lw=0.8, ls="--") for y in rows]
    size = {} if label_size is None else {"fontsize": label_size}
    ax.set_xlabel("被看的位置（键）", **size)
    ax.set_ylabel("提问的位置（查询）", **size)
    return mesh, lines


class HeatmapPanel:
    """A matrix heatmap with per-cell text; ``update`` swaps data and text in place.

    Cells holding ``-inf`` (masked) show as "−∞" on a grey background.
    """

    def __init__(self, ax, matrix, row_labels, col_labels, *, vmin=0.0, vmax=1.0, cmap="viridis",
                 title="", digits=3, annotate=True, highlight_row=None, xlabel="键（K）", ylabel="查询（Q）"):
        cmap_obj = matplotlib.colormaps[cmap].with_extremes(bad=MASKED)
        self.ax = ax
        self.digits = digits
        m = np.asarray(matrix, dtype=float)
        self.image = matrix_mesh(ax, m, cmap=cmap_obj, vmin=vmin, vmax=vmax)
        ax.set_xticks(range(len(col_labels)), list(col_labels))
        ax.set_yticks(range(len(row_labels)), list(row_labels))
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        self.texts = []
        if annotate:
            self.texts = [[ax.text(j, i, "", ha="center", va="center", fontsize=9)
                           for j in range(m.shape[1])] for i in range(m.shape[0])]

        self.row_box = Rectangle((-0.5, -0.5), m.shape[1], 1, fill=False, lw=2.5, ec=ACCENT,
                                 visible=highlight_row is not None)
        ax.add_patch(self.row_box)
        self.update(m, highlight_row=highlight_row)

    @property
    def artists(self) -> list:
        return [self.image, *(t for row in self.texts for t in row), self.row_box]

    def update(self, matrix, highlight_row=None):
        m = np.asarray(matrix, dtype=float)
        self.image.set_array(np.ma.masked_invalid(m))
        lo, hi = self.image.get_clim()
        for i, row in enumerate(self.texts):
            for j, text in enumerate(row):
                value = m[i, j]
                if np.isneginf(value):
                    text.set_text("−∞")
                    text.set_color(BLACK)
                elif np.isnan(value):  # padding (an empty cell): no number to show
                    text.set_text("")
                else:
                    text.set_text(fmt(value, self.digits))
                    text.set_color(WHITE if value < lo + 0.6 * (hi - lo) else BLACK)
        if highlight_row is None:
            self.row_box.set_visible(False)
        else:
            self.row_box.set_visible(True)
            self.row_box.set_y(highlight_row - 0.5)


def _limits(lim):
    """``2.2`` → ±2.2 on both axes; ``(lo, hi)`` on both; ``((xlo, xhi), (ylo, yhi))`` per axis."""
    if np.isscalar(lim):
        return (-lim, lim), (-lim, lim)
    if np.isscalar(lim[0]):
        return tuple(lim), tuple(lim)
    return tuple(lim[0]), tuple(lim[1])


def arrow_points(vectors, chain: bool = False) -> tuple:
    """``(starts, ends)`` of the arrows :class:`VectorPanel` draws for ``vectors``."""
    vecs = np.asarray(vectors, dtype=float)
    starts = np.zeros_like(vecs)
    if chain:
        starts[1:-1] = np.cumsum(vecs[:-1], axis=0)[:-1]
    return starts, starts + vecs


#: arrowhead size of :class:`VectorPanel` (matplotlib's mutation scale, points) for arrows long enough
HEAD_SCALE = 12.0


class VectorPanel:
    """2-D arrows (q/k/v vectors, or weighted parts of a sum drawn head to tail).

    With ``chain=True`` all arrows but the last are drawn head to tail and the last (the sum)
    from the origin, so the picture shows ``Σ w_j v_j`` being built. Every tip carries a dot, so a
    zero vector still shows. Names go into a legend (``legend=True``, no labels that can collide) or
    next to the tips.
    """

    def __init__(self, ax, vectors, labels, *, colors=None, lim=2.2, title="", chain=False, legend=False,
                 xlabel="第 1 维", ylabel="第 2 维", legend_loc="best"):
        self.ax = ax
        self.chain = chain
        n = len(labels)
        colors = list(colors or [BASE] * n)
        self.arrows = [ax.annotate("", xy=(0, 0), xytext=(0, 0), annotation_clip=False,
                                   arrowprops=dict(arrowstyle="-|>", color=c, lw=2, shrinkA=0, shrinkB=0,
                                                   mutation_scale=HEAD_SCALE))
                       for c in colors]
        for arrow in self.arrows:  # an arrow longer than the axes (a zoomed inset) is cut at its frame
            arrow.arrow_patch.set_clip_box(ax.bbox)
        # tips above the arrows (annotations sit at zorder 3): a zero vector's dot is not hidden
        # under another vector's tail
        self.tips = [ax.plot([0], [0], "o", ms=4, color=c, label=lab, zorder=3.5, mec=WHITE, mew=0.6)[0]
                     for lab, c in zip(labels, colors)]
        self.texts = [] if legend else [
            ax.annotate(lab, xy=(0, 0), xytext=(4, 4), textcoords="offset points", fontsize=10, color=c)
            for lab, c in zip(labels, colors)]
        (xlo, xhi), (ylo, yhi) = _limits(lim)
        ax.set_xlim(xlo, xhi)
        ax.set_ylim(ylo, yhi)
        ax.axhline(0, color=REFERENCE, lw=0.8)
        ax.axvline(0, color=REFERENCE, lw=0.8)
        ax.set_aspect("equal")
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if legend:
            ax.legend(loc=legend_loc, fontsize=9, handlelength=1.0, borderaxespad=0.3)
        self.update(vectors)

    @property
    def artists(self) -> list:
        return [*self.arrows, *self.tips, *self.texts]

    def update(self, vectors):
        starts, ends = arrow_points(vectors, self.chain)
        # a head is at most half its arrow: a short part (a weight of 0.04 at a wide scale) must not
        # show as a head-sized blob reaching back past its start
        pixels = self.ax.transData.transform(np.vstack([starts, ends]))
        length_pt = np.hypot(*(pixels[len(starts):] - pixels[:len(starts)]).T) * 72 / self.ax.figure.dpi
        head_scale = np.fmin(HEAD_SCALE, length_pt / (2 * 0.4))  # "-|>" heads are 0.4 × scale long
        for i, (arrow, tip, start, end) in enumerate(zip(self.arrows, self.tips, starts, ends)):
            arrow.xy = (end[0], end[1])
            arrow.set_position((start[0], start[1]))
            arrow.arrowprops["mutation_scale"] = max(float(head_scale[i]), 0.1)  # read at every draw
            tip.set_data([end[0]], [end[1]])
            tip.set_markersize(4 if np.any(end != start) else 7)  # a zero vector: a larger dot
            if self.texts:
                self.texts[i].xy = (end[0], end[1])


def weights_bar(labels, weights, *, title="", highlight=None, width=4.2, height=2.6, xlabel="位置（token）"):
    """Static bar chart of one row of attention weights (0 to 1)."""
    fig = new_figure(width, height)
    BarPanel(fig.add_subplot(), labels, weights, title=title, xlabel=xlabel, ylabel="权重", highlight=highlight)
    return fig


def values_bar(labels, values, *, title="", xlabel="", ylabel="数值", digits=2, width=4.2, height=2.6):
    """Static bar chart of any values (a vector's components…), the y-range fitted to them."""
    v = np.ravel(np.asarray(values, dtype=float))
    lo, hi = min(0.0, float(v.min())), max(0.0, float(v.max()))
    span = (hi - lo) or 1.0
    fig = new_figure(width, height)
    BarPanel(fig.add_subplot(), labels, v, ylim=(lo - (0.15 * span if lo < 0 else 0), hi + 0.18 * span),
             title=title, xlabel=xlabel, ylabel=ylabel, digits=digits)
    return fig


def heatmaps(matrices, titles, row_labels, col_labels, *, vmin=0.0, vmax=1.0, cmap="viridis",
             digits=3, highlight_row=None, width_per=3.0, height=3.0):
    """Several heatmaps side by side (e.g. scores, masked scores, weights)."""
    fig = new_figure(width_per * len(matrices), height)
    # square cells fix each panel's aspect: "compressed" is constrained layout made for that (plain
    # constrained leaves the titles past the top edge on the first draw when width and height both bind)
    fig.set_layout_engine("compressed")
    axes = fig.subplots(1, len(matrices))
    for ax, m, title in zip(np.atleast_1d(axes), matrices, titles):
        finite = np.asarray(m, dtype=float)
        lo = vmin if vmin is not None else float(np.min(finite[np.isfinite(finite)]))
        hi = vmax if vmax is not None else float(np.max(finite[np.isfinite(finite)]))
        HeatmapPanel(ax, m, row_labels, col_labels, title=title, vmin=lo, vmax=hi, cmap=cmap,
                     digits=digits, highlight_row=highlight_row)
    return fig


def vectors_figure(vectors, labels, *, colors=None, lim=None, title="", chain=False, legend=None,
                   zoom=None, width=3.8, height=3.4):
    """Static 2-D arrow picture (``02_qkv``'s q/k/v, ``03``'s weighted sum of v).

    ``lim``: as for :class:`VectorPanel`; ``None`` fits the axes to the arrows with a margin.
    ``zoom=r`` adds a magnified inset of the square of half-width ``r`` around the last arrow's
    tip (the sum, when ``chain``): parts too short to see at full scale.
    """
    panel_legend = chain if legend is None else legend
    fig = new_figure(width, height)
    ax = fig.add_subplot()
    if lim is None:
        starts, ends = arrow_points(vectors, chain)
        pts = np.vstack([starts, ends, [[0.0, 0.0]]])
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        pad = 0.15 * max(float((hi - lo).max()), 1.0)
        lim = ((lo[0] - pad, hi[0] + pad), (lo[1] - pad, hi[1] + pad + (0.9 * (hi[0] - lo[0]) if zoom else 0)))
    VectorPanel(ax, vectors, labels, colors=colors, lim=lim, title=title, chain=chain,
                        legend=panel_legend, legend_loc="upper left" if zoom else "best")
    if zoom is not None:
        tip = arrow_points(vectors, chain)[1][-1]
        inset = ax.inset_axes([0.56, 0.5, 0.42, 0.46])
        inset.set_in_layout(False)  # placed inside ax: the layout need not make room for it (matplotlib 3.10 collapsed)
        VectorPanel(inset, vectors, labels, colors=colors, lim=((tip[0] - zoom, tip[0] + zoom),
                                                                (tip[1] - zoom, tip[1] + zoom)),
                    chain=chain, legend=True, xlabel="", ylabel="")
        inset.get_legend().remove()
        inset.set_xticks([])
        inset.set_yticks([])
        inset.spines[["top", "right"]].set_visible(True)  # a closed frame: the zoomed box
        inset.set_title("放大", fontsize=9, pad=2)
        inset.set_label("inset zoom")  # the figure check lets a zoom cut its arrows
        ax.indicate_inset_zoom(inset, edgecolor=REFERENCE)
    return fig


def masked_viridis():
    """viridis with NaN cells in the series' masked grey."""
    return matplotlib.colormaps["viridis"].with_extremes(bad=MASKED)


def future_masked(weights):
    """Causal weights with the masked cells (above the diagonal) as NaN, so a heatmap drawn with a
    colormap whose "bad" colour is :data:`~helpers.render.palette.MASKED` shows them grey, not as weight 0."""
    w = np.array(weights, dtype=float)
    w[np.triu_indices_from(w, k=1)] = np.nan
    return w


def largest(weights) -> list:
    """The indices of the largest weight: every one of a tie (weights within 1e-12 of the largest:
    the softmax of equal scores can differ in the last bit)."""
    w = as_real_array("weights", weights)
    return [int(i) for i in np.flatnonzero(w >= w.max() - 1e-12)]


def highlight_largest(bars: BarPanel, weights) -> None:
    """Colour the bar of the largest weight orange (every bar, when several tie) and the others
    green (shared by 00 and 03)."""
    instance("bars", bars, BarPanel)
    top = largest(as_real_array("weights", weights, shape=(len(bars.bars),)))
    for i, bar in enumerate(bars.bars):
        bar.set_color(ACCENT if i in top else BASE)
