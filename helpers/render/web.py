"""What an explorer looks like in the book's live page (plumbing behind :mod:`helpers.explorers`).

The site (``make site``) draws every explorer in the browser without Python: for each state the
explorer computes, its :meth:`~helpers.render.explorer.Explorer.web_view` returns a small JSON-able
description — a title and a few *panels* made by the functions below (:func:`bars`, :func:`heatmap`,
:func:`lines`, :func:`arrows`, :func:`tiles`) — which one generic renderer
(``tools/site/live/attnlab_live.js``) draws as SVG. The readout is the explorer's own
:meth:`~helpers.render.explorer.Explorer.describe`, byte for byte. Numbers meant only for drawing
are rounded to :data:`DRAW_DIGITS` significant digits (the readout keeps every digit it shows), and
colours come from :mod:`helpers.render.palette`, so the page and the notebook share one palette.

:func:`control_spec` turns an ipywidgets control into the page's control: the same kind, range, step,
options, default and label.
"""
from __future__ import annotations

import math

import numpy as np

from .palette import ACCENT, BASE, HATCH_GREY, MASKED, REFERENCE, WHITE

#: significant digits of a number that is only drawn (a bar's height, a cell's colour)
DRAW_DIGITS = 3


def _num(x):
    """A drawn number: finite floats rounded to :data:`DRAW_DIGITS` significant digits, NaN/±inf → None."""
    x = float(x)
    if not math.isfinite(x):
        return None
    return float(f"{x:.{DRAW_DIGITS}g}")


def _nums(values) -> list:
    arr = np.asarray(values, dtype=float)
    if arr.ndim == 0:
        return _num(arr)
    return [_nums(v) for v in arr] if arr.ndim > 1 else [_num(v) for v in arr]


def _texts(labels) -> list:
    return [str(label) for label in labels]


def cells(matrix, vmin: float, vmax: float) -> dict:
    """A matrix as its colour levels: one byte a cell (0…254 from ``vmin`` to ``vmax``, 255 for NaN,
    a masked cell), base64; the page decodes it only when it draws it, and 1/254 of the colour range
    is finer than the eye tells apart."""
    import base64

    m = np.asarray(matrix, dtype=float)
    if m.ndim != 2:
        raise ValueError(f"matrix must be 2-D, got shape {m.shape}")
    level = np.clip(np.rint((np.nan_to_num(m, nan=vmin) - vmin) / (vmax - vmin) * 254), 0, 254).astype(np.uint8)
    level[np.isnan(m)] = 255
    return {"shape": list(m.shape), "bytes": base64.b64encode(level.tobytes()).decode("ascii")}


def cmap_stops(name: str = "viridis", n: int = 11) -> list:
    """``n`` evenly spaced colours of matplotlib's colormap ``name`` as hex (the page interpolates)."""
    import matplotlib
    from matplotlib.colors import to_hex

    cmap = matplotlib.colormaps[name]
    return [to_hex(cmap(i / (n - 1))) for i in range(n)]


def bars(labels, values, *, title="", xlabel="", ylabel="", ylim=(0.0, 1.12), color=BASE, colors=None,
         highlight=None, digits=None, visible=None) -> dict:
    """Vertical bars, one per label; ``highlight`` an index (or several: every bar of a tie) drawn
    in the accent colour; ``digits`` writes each value over its bar; ``visible`` how many bars (from
    the left) are shown."""
    values = np.asarray(values, dtype=float)
    if highlight is not None:
        highlight = [int(i) for i in np.atleast_1d(highlight)]
    return {"kind": "bars", "labels": _texts(labels), "values": _nums(values), "title": title, "xlabel": xlabel,
            "ylabel": ylabel, "ylim": _nums(ylim), "color": color,
            "colors": list(colors) if colors is not None else None,
            "highlight": highlight, "accent": ACCENT,
            "digits": digits, "visible": None if visible is None else int(visible)}


def heatmap(matrix, xlabels, ylabels, *, title="", vmin=0.0, vmax=1.0, cmap="viridis", highlight_row=None,
            numbers=None, digits=3, xlabel="", ylabel="", colorbar="", marks=(), vlines=(), hlines=(),
            mark_color=WHITE, hatch_rows=(), hatch_color=HATCH_GREY) -> dict:
    """A matrix as coloured cells (NaN: masked grey); ``highlight_row`` boxed; ``numbers`` a boolean
    matrix of the cells whose value is written in them. Marks drawn over the cells in ``mark_color``
    (matplotlib's cell coordinates: cell ``(i, j)`` centred at ``x = j, y = i``): ``marks`` rings on
    the cells ``[(row, col), …]``, ``vlines``/``hlines`` dashed lines at those x / y (``j - 0.5``:
    the edge left of column ``j``); ``hatch_rows`` rows faded and hatched in ``hatch_color`` (cells
    a figure marks as not meaningful)."""
    m = np.asarray(matrix, dtype=float)
    spec = {"kind": "heatmap", "cells": cells(m, vmin, vmax), "xlabels": _texts(xlabels), "ylabels": _texts(ylabels),
            "title": title, "vmin": float(vmin), "vmax": float(vmax), "stops": cmap_stops(cmap), "masked": MASKED,
            "highlight": None if highlight_row is None else int(highlight_row), "accent": ACCENT,
            "xlabel": xlabel, "ylabel": ylabel, "colorbar": colorbar, "digits": digits, "numbers": None,
            "marks": [[int(i), int(j)] for i, j in marks], "vlines": [_num(x) for x in vlines],
            "hlines": [_num(y) for y in hlines], "markcolor": mark_color,
            "hatch": [int(i) for i in hatch_rows], "hatchcolor": hatch_color}
    if numbers is not None:
        spec["numbers"] = [[int(i), int(j), f"{m[i, j]:.{digits}f}"] for i, j in zip(*np.nonzero(numbers))]
    return spec


def tiles(matrices, *, cols, group=1, title="", vmin=0.0, vmax=1.0, cmap="viridis", note="", colorbar="",
          separator=ACCENT, row_labels=()) -> dict:
    """Several square matrices side by side, ``cols`` to a row (06's one tile per head); a line
    between neighbours whose index // ``group`` differs; ``row_labels`` one text per row of tiles,
    at its left."""
    return {"row_labels": _texts(row_labels), "kind": "tiles", "cells": [cells(m, vmin, vmax) for m in matrices], "cols": int(cols), "group": int(group),
            "title": title, "vmin": float(vmin), "vmax": float(vmax), "stops": cmap_stops(cmap), "masked": MASKED,
            "note": note, "colorbar": colorbar, "separator": separator}


def rounded(values) -> list:
    """``values`` (any shape) as drawn numbers: :data:`DRAW_DIGITS` significant digits, NaN → None."""
    return _nums(values)


def series(x, y, *, color=BASE, label="", dash=False, marker=False, line=True, step=False, fill=False,
           width=2.0) -> dict:
    """One line of :func:`lines`: ``step`` draws stairs (``x`` holds the edges, one more than ``y``),
    ``fill`` fills under it (a histogram), ``marker`` a dot at each point (``line=False``: dots only)."""
    return {"x": _nums(x), "y": _nums(y), "color": color, "label": label, "dash": bool(dash), "marker": bool(marker),
            "line": bool(line), "step": bool(step), "fill": bool(fill), "width": float(width)}


def _ref_line(value, dashed, color=None) -> list:
    """One reference line of :func:`lines`: ``[value, dashed]`` (``dashed`` True/False or "dotted"), colour last if given."""
    style = "dotted" if dashed == "dotted" else bool(dashed)
    return [_num(value), style] + ([color] if color is not None else [])


def lines(curves, *, title="", xlabel="", ylabel="", xlim=None, ylim=None, xlog=False, ylog=False, xticks=None,
          yticks=None, vlines=(), hlines=(), vline_color=REFERENCE, legend=True) -> dict:
    """Curves (:func:`series`) on shared axes; ``xlog``/``ylog`` a base (2, 10) or False; ticks as
    ``[(value, label), …]``; ``vlines``/``hlines`` as ``[(value, dashed), …]`` (``dashed``: a bool or
    ``"dotted"``), or ``(value, dashed, colour)`` for a line not in ``vline_color``."""
    return {"kind": "lines", "series": list(curves), "title": title, "xlabel": xlabel, "ylabel": ylabel,
            "xlim": None if xlim is None else _nums(xlim), "ylim": None if ylim is None else _nums(ylim),
            "xlog": xlog or False, "ylog": ylog or False,
            "xticks": None if xticks is None else [[_num(v), str(t)] for v, t in xticks],
            "yticks": None if yticks is None else [[_num(v), str(t)] for v, t in yticks],
            "vlines": [_ref_line(*v) for v in vlines], "hlines": [_ref_line(*h) for h in hlines],
            "refcolor": vline_color, "legend": bool(legend)}


def arrows(vectors, labels, colors, *, lim, title="", chain=False, widths=None, order=None, xlabel="",
           ylabel="") -> dict:
    """2-d vectors as arrows from the origin (``chain``: each from the previous one's tip, the last
    from the origin: a sum); ``lim`` a half-width or ``((x0, x1), (y0, y1))``; ``order`` the indices
    in drawing order (the last on top; default as given)."""
    lim = ((-lim, lim), (-lim, lim)) if np.isscalar(lim) else lim
    return {"kind": "arrows", "vectors": _nums(vectors), "labels": _texts(labels), "colors": list(colors),
            "lim": _nums(lim), "title": title, "chain": bool(chain),
            "widths": None if widths is None else [float(w) for w in widths],
            "order": None if order is None else [int(i) for i in order], "xlabel": xlabel, "ylabel": ylabel}


def control_spec(name: str, control, universe=None) -> dict:
    """The page's control for the ipywidgets ``control``: kind, label, the values it can take (in
    order), the index of its value now, and how a value is shown. ``universe`` overrides the values
    (a slider whose range follows another control: every value it can ever take)."""
    import ipywidgets as widgets

    label = control.description
    if isinstance(control, widgets.Checkbox):
        kind, values, shown = "check", [False, True], ["否", "是"]
    elif isinstance(control, (widgets.IntSlider, widgets.FloatSlider)):
        kind = "range"
        if universe is None:
            count = int(round((control.max - control.min) / control.step)) + 1
            universe = [control.min + i * control.step for i in range(count)]
        if isinstance(control, widgets.IntSlider):
            values = [int(v) for v in universe]
            shown = [str(v) for v in values]
        else:
            values = [float(f"{v:.12g}") for v in universe]  # the decimal a slider position means
            fmt = control.readout_format or ".2f"
            shown = [format(v, fmt) for v in values]
    else:
        options = getattr(control, "_options_labels", None)
        values = list(universe if universe is not None else control._options_values)
        labels = dict(zip(control._options_values, options))
        shown = [str(labels.get(v, v)) for v in values]
        kind = ("range" if isinstance(control, widgets.SelectionSlider)
                else "toggle" if isinstance(control, widgets.ToggleButtons) else "select")
    if control.value not in values:
        raise ValueError(f"control {name!r}: its value {control.value!r} is not one of its values {values!r:.80}")
    return {"name": name, "label": label, "kind": kind, "values": values, "shown": shown,
            "default": values.index(control.value)}
