"""The series' figure style: one set of matplotlib settings for every static figure and explorer.

Sizes are points at the displayed size (figures are shown at 96 CSS px per inch, see
:mod:`helpers.display`): nothing a reader must read is below 9 pt. ``tests/series/test_figures.py``
checks every figure against the rest of the style (labelled axes, nothing clipped or overlapping).
"""
from __future__ import annotations

# matplotlib is imported inside apply: helpers.setup calls it, and a notebook that draws nothing
# never loads matplotlib (about 1 s).

RC = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "figure.titlesize": 11,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "image.cmap": "viridis",
}


def apply() -> None:
    """Set :data:`RC` in matplotlib (called by :func:`helpers.setup`)."""
    import matplotlib

    matplotlib.rcParams.update(RC)
