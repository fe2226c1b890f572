"""``09_real_model``: SmolLM2-135M's attention, per layer and head."""
from __future__ import annotations

import numpy as np

from ..display import new_figure


def sink_by_layer_figure(first_weights):
    """``09_real_model``: per layer and head, the mean weight on position 0 (a heatmap)."""
    fig = new_figure(7.0, 2.6)
    ax = fig.add_subplot()
    image = ax.imshow(np.asarray(first_weights).T, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xlabel("层")
    ax.set_ylabel("头")
    ax.set_title("查询放在第 1 个 token 上的平均权重")
    fig.colorbar(image, ax=ax, fraction=0.04)
    return fig
