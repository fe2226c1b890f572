"""Every figure builder of the series under one name: ``helpers.plots.<name>`` in the notebooks.

The code lives where it belongs: generic panels and their static wrappers in
:mod:`helpers.render.panels`, figures made for one notebook in :mod:`helpers.figures` (one module per
notebook, named like :mod:`helpers.explorers`), colours in :mod:`helpers.render.palette`. This module only
gathers them, so notebooks and explorers keep one stable import.
"""
from __future__ import annotations

import numpy as np  # noqa: F401  (kept for builders added here before they find their module)

from .display import fmt, new_figure  # noqa: F401
from .figures.causal import causal_heatmaps
from .figures.cost import cost_curves_figure, timing_figure
from .figures.layer import rope_rotation_figure, rope_wavelengths_figure
from .figures.qkv import query_keys_figure
from .figures.reading import InfluencePanels, SinkPanels, dilution_figure, influence_figure, sink_figure
from .figures.real_model import real_heads_figure, sink_by_layer_figure
from .figures.sqrt_d import saturation_figure, std_vs_d_figure
from .figures.weighted_average import fixed_vs_content_figure
from .render.palette import ACCENT, BASE, MUTED, PART_COLORS, QKV_COLORS
from .render.panels import (
    BarPanel,
    HeatmapPanel,
    VectorPanel,
    head_mosaic,
    heads_grid_figure,
    heatmaps,
    values_bar,
    vectors_figure,
    weights_bar,
)

__all__ = [
    "ACCENT", "BASE", "MUTED", "PART_COLORS", "QKV_COLORS",
    "BarPanel", "HeatmapPanel", "VectorPanel", "head_mosaic", "heads_grid_figure", "heatmaps",
    "values_bar", "vectors_figure", "weights_bar", "query_keys_figure", "real_heads_figure",
    "fixed_vs_content_figure", "std_vs_d_figure", "saturation_figure", "causal_heatmaps",
    "rope_rotation_figure", "rope_wavelengths_figure", "cost_curves_figure", "timing_figure",
    "SinkPanels", "sink_figure", "InfluencePanels", "influence_figure", "dilution_figure",
    "sink_by_layer_figure",
]
