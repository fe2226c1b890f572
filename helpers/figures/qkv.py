"""``02_qkv``: one token's q beside every token's k (what the dot products of 03 compare)."""
from __future__ import annotations

import numpy as np
from matplotlib.transforms import offset_copy

from ..render.format import fmt_vec
from ..render.palette import BASE, QKV_COLORS, REFERENCE
from ..render.png import new_figure

#: where each key's name goes around its tip (offset in points), so names on one line do not meet
_OFFSETS = ((0, 8), (0, -9), (8, 0), (-8, -8))
#: the name of a zero key, below and right of the origin
_ZERO_OFFSET = (6, -14)
#: q is drawn this many points to the side of its true line, so keys lying along it stay visible
_Q_SHIFT = 5.0


def query_keys_figure(q, keys, tokens, *, query_token=""):
    """``q`` (one arrow in q's colour, shifted a few points to its side so that keys on the same
    line stay visible) and every token's ``k`` (green arrows, named at their tips). A zero key
    shows as a dot at the origin, named with its value."""
    q = np.asarray(q, dtype=float)
    keys = np.asarray(keys, dtype=float)
    pts = np.vstack([keys, q, [0.0, 0.0]])
    lo, hi = pts.min(axis=0) - 0.6, pts.max(axis=0) + 0.6
    fig = new_figure(4.6, 3.2)
    ax = fig.add_subplot()
    q_colour = QKV_COLORS[0]
    length = float(np.hypot(*q))
    side = (q[1] / length, -q[0] / length) if length else (0.0, 0.0)  # q turned a quarter clockwise
    shifted = offset_copy(ax.transData, fig=fig, x=_Q_SHIFT * side[0], y=_Q_SHIFT * side[1], units="points")
    ax.annotate("", xy=q, xytext=(0, 0), xycoords=shifted, textcoords=shifted,
                arrowprops=dict(arrowstyle="-|>", color=q_colour, lw=2.5, shrinkA=0, shrinkB=0, mutation_scale=14))
    name = f"“{query_token}”的 q" if query_token else "q"
    ax.plot([], [], color=q_colour, lw=2.5, label=f"{name}（错开一点画，免得盖住 k）")
    ax.plot([], [], color=BASE, lw=2, label="每个 token 的 k")
    for i, (k, token) in enumerate(zip(keys, tokens)):
        ax.annotate("", xy=k, xytext=(0, 0), arrowprops=dict(arrowstyle="-|>", color=BASE, lw=2, shrinkA=0,
                                                             shrinkB=0, mutation_scale=12))
        ax.plot([k[0]], [k[1]], "o", ms=4, color=BASE)
        dx, dy = _OFFSETS[i % len(_OFFSETS)]
        label = token
        if not np.any(k):  # a zero key: named with its value, right of the origin (not where q starts)
            label, (dx, dy) = f"{token}（k = {fmt_vec(k, 0)}）", _ZERO_OFFSET
        ax.annotate(label, xy=k, xytext=(dx, dy), textcoords="offset points", fontsize=10, color=BASE,
                    ha="center" if dx == 0 else ("left" if dx > 0 else "right"),
                    va="center" if dy == 0 else ("bottom" if dy > 0 else "top"))
    ax.axhline(0, color=REFERENCE, lw=0.8)
    ax.axvline(0, color=REFERENCE, lw=0.8)
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_aspect("equal")
    ax.set_xlabel("第 1 维")
    ax.set_ylabel("第 2 维")
    ax.set_title("q 和每个 k：方向越一致、越长，点积越大")
    ax.legend(loc="upper right")
    return fig
