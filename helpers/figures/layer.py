"""``06_attention_layer``: RoPE's rotation picture."""
from __future__ import annotations

import numpy as np

from ..display import new_figure
from ..palette import REFERENCE


def rope_rotation_figure(vector, positions, theta_step):
    """``06_attention_layer``: one 2-D pair of q rotated by position · θ (RoPE's picture)."""
    fig = new_figure(3.8, 3.8)
    ax = fig.add_subplot()
    v = np.asarray(vector, dtype=float)
    import matplotlib

    cmap = matplotlib.colormaps["viridis"]
    for i, p in enumerate(positions):
        a = p * theta_step
        rotated = np.array([v[0] * np.cos(a) - v[1] * np.sin(a), v[0] * np.sin(a) + v[1] * np.cos(a)])
        color = cmap(i / max(1, len(positions) - 1))
        ax.annotate("", xy=rotated, xytext=(0, 0), arrowprops=dict(arrowstyle="-|>", color=color, lw=1.8))
        ax.text(*(rotated * 1.12), f"m={p}", fontsize=9, ha="center", va="center", color=color)
    lim = 1.35 * float(np.hypot(*v))
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    ax.axhline(0, color=REFERENCE, lw=0.8)
    ax.axvline(0, color=REFERENCE, lw=0.8)
    ax.set_title("同一对分量在位置 m 处转过 m·θ")
    ax.set_xlabel("第 1 个分量")
    ax.set_ylabel("第 2 个分量")
    return fig
