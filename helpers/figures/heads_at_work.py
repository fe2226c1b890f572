"""``12_heads_at_work``: its figures — score maps and copy losses.

The head patterns and null distributions it shows with ``13_induction_circuit`` are generic panels
(:class:`helpers.render.panels.PatternPanel`, :func:`helpers.render.panels.patterns_figure`,
:func:`helpers.render.panels.null_figure`).
"""
from __future__ import annotations

import numpy as np

from ..heads import SCORE_LABELS, SCORES, top_heads
from ..render.palette import ACCENT, BASE, BLACK, LIGHT_GREY, MID_GREY, MUTED, WHITE
from ..render.png import new_figure, plotted
from ..render.validation import as_real_array


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
