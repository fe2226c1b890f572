"""Every figure builder of the series under one name (a face: notebooks call ``helpers.plots.*``).

The code lives where it belongs: a figure made for one notebook in that notebook's module,
``helpers/figures/<notebook>.py``; the generic panels and their static wrappers (``weights_bar``,
``heatmaps``, ``vectors_figure`` …) in :mod:`helpers.render.panels`; colours in
:mod:`helpers.render.palette`. This module only gathers them, so notebooks keep one stable
import. Nothing inside ``helpers`` imports this module (explorers import the figure modules).
"""
from __future__ import annotations

from .figures.attention_layer import (
    head_mosaic,
    heads_grid_figure,
    rope_rotation_figure,
    rope_wavelengths_figure,
)
from .figures.causal_mask import causal_heatmaps
from .figures.cost_of_length import cost_curves_figure, decode_reads_figure, timing_figure
from .figures.fixed_state import kept_figure, ledger_figure, recall_figure
from .figures.heads_at_work import copy_loss_figure, null_figure, patterns_figure, score_maps_figure
from .figures.learning_a_circuit import patterns_at_figure, phase_change_figure, sweep_figure
from .figures.learning_to_attend import curves_figure, score_tables_figure, weights_at_steps_figure
from .figures.qkv import query_keys_figure
from .figures.reading_attention import (
    InfluencePanels,
    SinkPanels,
    dilution_figure,
    influence_figure,
    sink_figure,
)
from .figures.real_model import pieces_and_characters_figure, real_heads_figure, sink_by_layer_figure
from .figures.shrinking_caches import cache_widths_figure, sink_rows_figure, streaming_figure
from .figures.sqrt_d import saturation_figure, std_vs_d_figure
from .figures.weighted_average import fixed_vs_content_figure
from .render.palette import ACCENT, BASE, MUTED, PART_COLORS, QKV_COLORS
from .render.panels import (
    BarPanel,
    HeatmapPanel,
    VectorPanel,
    heatmaps,
    values_bar,
    vectors_figure,
    weights_bar,
)

__all__ = [
    "ACCENT", "BASE", "MUTED", "PART_COLORS", "QKV_COLORS",
    "BarPanel", "HeatmapPanel", "VectorPanel", "heatmaps", "values_bar", "vectors_figure", "weights_bar",
    "fixed_vs_content_figure", "query_keys_figure", "std_vs_d_figure", "saturation_figure", "causal_heatmaps",
    "head_mosaic", "heads_grid_figure", "rope_rotation_figure", "rope_wavelengths_figure",
    "cost_curves_figure", "decode_reads_figure", "timing_figure", "SinkPanels", "sink_figure", "InfluencePanels", "influence_figure",
    "dilution_figure", "real_heads_figure", "pieces_and_characters_figure", "sink_by_layer_figure",
    "curves_figure", "weights_at_steps_figure", "score_tables_figure",
    "score_maps_figure", "patterns_figure", "copy_loss_figure", "null_figure",
    "phase_change_figure", "sweep_figure", "patterns_at_figure",
    "cache_widths_figure", "streaming_figure", "sink_rows_figure",
    "kept_figure", "recall_figure", "ledger_figure",
]
