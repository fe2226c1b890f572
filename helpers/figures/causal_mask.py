"""``05_causal_mask``: scores, masked scores and weights side by side."""
from __future__ import annotations

import numpy as np

from ..attention import causal_mask
from ..render.panels import HeatmapPanel
from ..render.png import new_figure


def causal_heatmaps(tokens, scores, weights_causal):
    """``05_causal_mask``: raw scores, scores + mask (−∞ above the diagonal), masked weights."""
    masked = scores + causal_mask(len(tokens))
    finite = scores[np.isfinite(scores)]
    fig = new_figure(9.6, 3.3)
    for ax, m, title, lo, hi in zip(fig.subplots(1, 3), [scores, masked, weights_causal],
                                    ["分数 QKᵀ/√d", "加上因果掩码", "softmax 后的权重"],
                                    [finite.min(), finite.min(), 0.0], [finite.max(), finite.max(), 1.0]):
        HeatmapPanel(ax, m, tokens, tokens, title=title, vmin=float(lo), vmax=float(hi))
    return fig
