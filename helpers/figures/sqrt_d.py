"""``04_sqrt_d``: the std of q·k against d, and softmax saturation."""
from __future__ import annotations

import numpy as np

from ..render.palette import ACCENT, BASE, MUTED, REFERENCE
from ..render.png import new_figure


def std_vs_d_figure(ds, stds):
    """``04_sqrt_d``: measured std of q·k against d on log axes, with the √d curve."""
    fig = new_figure(4.6, 3.0)
    ax = fig.add_subplot()
    d = np.asarray(ds, dtype=float)
    ax.plot(d, np.sqrt(d), color=REFERENCE, lw=3, label="√d（理论）")
    ax.plot(d, stds, "o", color=ACCENT, label="模拟")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("每个头的维度 d")
    ax.set_ylabel("点积 q·k 的标准差")
    ax.legend()
    return fig


def saturation_figure(rows):
    """``04_sqrt_d``: as scores are multiplied up, the largest weight → 1 and ‖J‖_F → 0."""
    fig = new_figure(4.6, 3.0)
    ax = fig.add_subplot()
    factors = [r[0] for r in rows]
    ax.plot(factors, [r[1] for r in rows], "o-", color=BASE, label="最大的权重")
    ax.plot(factors, [r[2] for r in rows], "s-", color=MUTED, label="softmax 雅可比范数 ‖J‖_F")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("分数放大的倍数（无单位）")
    ax.set_ylabel("最大权重 / 范数 ‖J‖_F")
    top = 1.1 * max(1.0, max(max(r[1], r[2]) for r in rows))
    ax.set_ylim(-0.04 * top, top)  # markers at 0 stay whole
    ax.legend()
    return fig
