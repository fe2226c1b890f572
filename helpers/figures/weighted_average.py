"""``01_weighted_average``: fixed weights beside content-dependent weights."""
from __future__ import annotations

import numpy as np

from ..render.palette import BASE, REFERENCE
from ..render.png import new_figure


def fixed_vs_content_figure(results):
    """``01_weighted_average``: per sentence, fixed weights (grey, palette REFERENCE) beside content weights."""
    fig = new_figure(7.2, 2.6)
    axes = fig.subplots(1, len(results))
    for ax, r in zip(np.atleast_1d(axes), results):
        x = np.arange(len(r.tokens))
        ax.bar(x - 0.2, r.fixed_weights, width=0.4, label="固定权重", color=REFERENCE)
        ax.bar(x + 0.2, r.content_weights, width=0.4, label="按内容", color=BASE)
        ax.set_xticks(x, list(r.tokens))
        ax.set_ylim(0, 1.05)
        ax.set_title("".join(r.tokens))
        ax.set_xlabel("位置（token）")
        ax.set_ylabel("权重")
    ax.legend(loc="upper right")
    return fig
