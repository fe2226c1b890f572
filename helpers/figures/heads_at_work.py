"""``12_heads_at_work``: its figures — score maps, copy losses, head patterns, null distributions.

:class:`PatternPanel` draws one head's pattern on a repeated sequence (its explorer animates it);
:func:`patterns_figure` puts several side by side and :func:`null_figure` marks measured values in
null distributions — ``13_induction_circuit`` shows both again. The frame of a pattern panel is the
one notebook 11's heads are drawn in (:func:`helpers.render.panels.pattern_frame`).
"""
from __future__ import annotations

import numpy as np

from ..heads import SCORE_LABELS, SCORES, top_heads
from ..heads.stats import percentile
from ..render.palette import ACCENT, BASE, BLACK, LIGHT_GREY, MID_GREY, MUTED, PINK, WHITE
from ..render.panels import ceil_div, pattern_frame
from ..render.png import new_figure, plotted
from ..render.validation import as_real_array, boolean, finite_scalar, positive_int


def score_maps_figure(scores: dict, *, top: int = 3):
    """Three layer × head maps (layers across, as in ``09``), the top ``top`` heads numbered."""
    fig = new_figure(7.6, 6.4)
    axes = fig.subplots(len(SCORES), 1)
    for ax, name in zip(axes, SCORES):
        m = np.asarray(scores[name], dtype=float)
        image = ax.imshow(m.T, vmin=0, vmax=1, cmap="viridis", aspect="auto")
        for rank, (layer, head) in enumerate(top_heads(m, top), start=1):
            ax.text(layer, head, str(rank), ha="center", va="center", fontsize=9,
                    color=BLACK if m[layer, head] > 0.6 else WHITE)
        ax.set_title(f"分数：{SCORE_LABELS[name]}（数字 = 名次）", fontsize=10)
        ax.set_ylabel("头")
        ax.set_yticks(range(m.shape[1]))
        ax.set_xticks(range(0, m.shape[0], 2))
        ax.set_xlabel("层")
    fig.colorbar(image, ax=list(axes), fraction=0.03, label="平均权重（0–1）")
    return fig


#: what :func:`copy_loss_figure` rounds its losses to (nats): about half a pixel of its 2× PNG (its
#: axis spans ≈ 0.036 nats a pixel), so the last float32 bits another CPU's kernels give the live
#: losses (≈ 1e-4 nats at most) leave the figure alone
LOSS_STEP = 0.02


def copy_loss_figure(curves: dict, length: int, control=None):
    """Per-token loss along the repeated sequence, one line per condition (``{label: (2T,)}``);
    x is the position of the predicted token. The first curve is the reference (dashed, thick,
    drawn on top, so a curve that follows it stays visible); grey bands mark the first token of
    each copy, which :func:`helpers.heads.copy_losses` leaves out of the averages. ``control``
    ``(label, (T − 1,))``: losses at the second copy's counted positions ``T+2 … 2T`` on sequences
    with nothing repeated (:meth:`helpers.heads.HeadStudy.unrepeated_losses`), a dotted line with
    square markers there only."""
    fig = new_figure(7.0, 4.0)
    ax = fig.add_subplot()
    x = np.arange(1, 2 * length + 1)
    curves = {label: plotted(curve, LOSS_STEP) for label, curve in curves.items()}
    for i, ((label, curve), color) in enumerate(zip(curves.items(), (BASE, ACCENT, MUTED))):
        style = dict(ls="--", lw=2.4, zorder=4, ms=4) if i == 0 else dict(lw=1.4, zorder=3, ms=3)
        ax.plot(x, curve, marker="o", color=color, label=label, **style)
    if control is not None:
        if not isinstance(control, (list, tuple)) or len(control) != 2:
            raise TypeError(f"control must be a (label, losses) pair, got {control!r:.60}")
        losses = plotted(as_real_array("control[1]", control[1], ndim=1), LOSS_STEP)
        if len(losses) != length - 1:
            raise ValueError(f"control[1] must hold the T − 1 = {length - 1} second-copy losses, got {len(losses)}")
        ax.plot(np.arange(length + 2, 2 * length + 1), losses, ls=":", marker="s", lw=1.6, ms=3, zorder=3,
                color=MID_GREY, label=str(control[0]))
        curves = {**curves, "control": losses}
    for j, pos in enumerate((1, length + 1)):
        ax.axvspan(pos - 0.4, pos + 0.4, color=LIGHT_GREY, zorder=1,
                   label="每遍第一个 token：不计入平均" if j == 0 else None)
    ax.axvline(length + 0.5, color=BLACK, lw=0.8, ls="--")
    top = max(float(np.max(c)) for c in curves.values())
    ax.set_ylim(0, top * 1.15)
    ax.set_xlim(0.3, 2 * length + 0.7)
    ax.text(length / 2 + 0.5, top * 1.07, "第一遍", ha="center")
    ax.text(1.5 * length + 0.5, top * 1.07, "第二遍（重复）", ha="center")
    ax.set_xlabel("被预测的 token 的位置")
    ax.set_ylabel("损失（nats / token）")
    # below the axes: inside, its long labels would cross the dashed line between the two copies
    ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    ax.spines[["top", "right"]].set_visible(False)
    return fig


class PatternPanel:
    """One head's weights on ``[first] + r + r``; dashed lines mark where the second copy starts.

    With ``labels`` (one token string per position) every row is labelled — even rows on the
    left, odd rows on the right, so each label has two rows of room at a legible font size —
    and every ``every``-th column; with an even ``length`` and ``every = 2`` both copies show
    the same tokens under the columns, so the repeat stays readable. ``both_sides=False`` labels
    only the even rows, on the left (:attr:`right` is then ``None``): room for a colour bar."""

    def __init__(self, ax, length: int, *, labels=None, title="", every: int = 2, both_sides: bool = True):
        n = 2 * length + 1
        every = positive_int("every", every)
        self.ax, self.right = ax, None
        self.image, self.lines = pattern_frame(ax, n, columns=[length + 0.5], rows=[length + 0.5])
        if labels is None:
            ticks = range(0, n, 8)
            ax.set_xticks(ticks)
            ax.set_yticks(ticks)
        else:
            if len(labels) != n:
                raise ValueError(f"labels must name all 2·length + 1 = {n} positions, got {len(labels)}")
            ax.set_xticks(range(0, n, every), [labels[i] for i in range(0, n, every)], rotation=90)
            ax.set_yticks(range(0, n, 2), [labels[i] for i in range(0, n, 2)])
            if boolean("both_sides", both_sides):
                self.right = ax.secondary_yaxis("right")
                self.right.set_yticks(range(1, n, 2), [labels[i] for i in range(1, n, 2)])
        self.title = ax.set_title(title, fontsize=9)

    def update(self, pattern, title=None):
        self.image.set_array(np.asarray(pattern, dtype=float))
        if title is not None:
            self.title.set_text(title)


def patterns_figure(patterns, titles, length: int):
    """Several heads' patterns side by side (the top head of each score); four or more wrap onto two
    rows, so the figure stays within a page's width (≤ 3 panels in a row)."""
    cols = len(patterns) if len(patterns) <= 3 else ceil_div(len(patterns), 2)
    rows = ceil_div(len(patterns), cols)
    fig = new_figure(3.0 * cols + 0.6, 3.4 * rows)
    axes = np.atleast_1d(fig.subplots(rows, cols)).ravel()
    for ax in axes[len(patterns):]:
        ax.set_axis_off()
    for ax, pattern, title in zip(axes, patterns, titles):
        panel = PatternPanel(ax, length, title=title)
        panel.update(pattern)
    fig.colorbar(panel.image, ax=list(axes[:len(patterns)]), fraction=0.02, label="权重")
    return fig


#: what :func:`null_figure` rounds the values it draws to (x units, nats): well under a pixel of any of
#: its panels, so live values' last float32 bits leave the figure alone (its legend prints them unrounded)
NULL_STEP = 1e-3

#: the marked values of a null figure: colour and line style (distinct without colour too)
MARKS = ((ACCENT, "-"), (MUTED, "--"), (PINK, "-."), (BLACK, ":"))


def null_figure(panels, xlabel: str, *, bins: int = 40, window=None):
    """Null distributions as histograms (bars in BASE), each with up to four marked values.

    ``panels`` is a list of ``(title, null, marks)``: ``null`` a 1-D sample (e.g. the loss change
    of every single head, or of every random set of k heads), ``marks`` ``{label: value}``. Each
    mark is a vertical line; its legend entry gives the value and its percentile in that panel's
    null (:func:`helpers.heads.stats.percentile`), so the figure says what the text quotes. ``window``
    ``(low, high)`` zooms the x axis there (the bins span it); the null values outside it are not
    drawn but counted, with the most extreme one, in an arrow label at that edge (percentiles still
    use the whole null)."""
    if isinstance(panels, (str, bytes, dict)) or not isinstance(panels, (list, tuple)) or not panels:
        raise TypeError(f"panels must be a non-empty list of (title, null, marks) tuples, got {panels!r:.60}")
    bins = positive_int("bins", bins)
    if window is not None:
        if not isinstance(window, (list, tuple)) or len(window) != 2:
            raise TypeError(f"window must be a (low, high) pair of numbers, got {window!r:.60}")
        window = (finite_scalar("window[0]", window[0]), finite_scalar("window[1]", window[1]))
        if window[0] >= window[1]:
            raise ValueError(f"window must have low < high, got {window!r}")
    fig = new_figure(3.6 * len(panels) + 0.4, 4.3)
    axes = np.atleast_1d(fig.subplots(1, len(panels)))
    for ax, panel in zip(axes, panels):
        if not isinstance(panel, (list, tuple)) or len(panel) != 3 or not isinstance(panel[2], dict):
            raise TypeError(f"each panel must be a (title, null, marks) tuple with marks a dict, got {panel!r:.60}")
        title, null, marks = panel
        if len(marks) > len(MARKS):
            raise ValueError(f"marks must hold at most {len(MARKS)} values per panel, got {len(marks)}")
        null = as_real_array("null", null).ravel()
        values = [finite_scalar(f"marks[{label!r}]", v) for label, v in marks.items()]
        if window is None:
            low, high = (float(plotted(v, NULL_STEP)) for v in (min([null.min(), *values]), max([null.max(), *values])))
            pad = 0.04 * (high - low or 1.0)
            low, high = low - pad, high + pad
        else:
            low, high = window
            outside = [v for v in values if not low <= v <= high]
            if outside:
                raise ValueError(f"window {window!r} must contain every marked value, got {outside[0]:+.3f}")
        inside = plotted(null[(null >= low) & (null <= high)], NULL_STEP)
        ax.hist(inside, bins=np.linspace(low, high, bins + 1), color=BASE, label=f"对照（{len(null)} 个）")
        if window is not None:
            ax.set_xlim(low, high)
            top = ax.get_ylim()[1]
            for side, beyond in (("right", null[null > high]), ("left", null[null < low])):
                if beyond.size:
                    extreme = beyond.max() if side == "right" else beyond.min()
                    edge = high if side == "right" else low
                    text = (f"另有 {beyond.size} 个\n{'>' if side == 'right' else '<'} {edge:+.2f}\n"
                            f"最{'大' if side == 'right' else '小'} {extreme:+.2f}")
                    ax.annotate(text, xy=(edge, 0.62 * top), xytext=(-8 if side == "right" else 8, 0),
                                textcoords="offset points", ha="right" if side == "right" else "left", va="center",
                                fontsize=9)
                    ax.annotate("", xy=(edge, 0.45 * top), xytext=(edge - (high - low) * (0.12 if side == "right" else -0.12), 0.45 * top),
                                arrowprops={"arrowstyle": "->", "color": BLACK, "lw": 1.2})
        for (label, value), (colour, style) in zip(marks.items(), MARKS):
            ax.axvline(plotted(value, NULL_STEP), color=colour, ls=style, lw=2.0,
                       label=f"{label}：{value:+.2f}（第 {percentile(value, null):.0f} 百分位）")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("个数")
        ax.spines[["top", "right"]].set_visible(False)
        ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1, frameon=False)
    return fig
