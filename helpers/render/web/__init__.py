"""What an explorer looks like in the book's live page: the producer, beside its renderer.

The site (``make site``) draws every explorer in the browser without Python: for each state the
explorer computes, its :meth:`~helpers.render.explorer.Explorer.web_view` returns a small JSON-able
description — a title and a few *panels* made by the functions below (:func:`bars`, :func:`heatmap`,
:func:`lines`, :func:`arrows`, :func:`tiles`) — which one generic renderer, ``attnlab_live.js`` in
this folder (styled by ``attnlab_live.css``; both are package data, :data:`ASSETS`), draws as SVG.
:data:`PANELS` declares, once, the panel kinds and the fields of each: what the function of that
name writes and what the renderer's ``DRAW.<kind>`` reads (``tests/unit/test_web.py`` holds both
halves to it; the site's build checks every view with :func:`check_view`). The readout is the
explorer's own :meth:`~helpers.render.explorer.Explorer.describe`, byte for byte; an explorer that
the page recomputes (``web_formula``) writes its readout once, as a template of
:func:`helpers.render.format.fill` that ``describe()`` and the page's formula both fill. Numbers
meant only for drawing are rounded to :data:`DRAW_DIGITS` significant digits (the readout keeps
every digit it shows), and colours come from :mod:`helpers.render.palette`, so the page and the
notebook share one palette.

:func:`control_spec` turns an ipywidgets control into the page's control: the same kind, range, step,
options, default and label.
"""
from __future__ import annotations

import base64
import math
from pathlib import Path

import ipywidgets as widgets
import matplotlib
import numpy as np
from matplotlib.colors import Colormap, to_hex

from ..palette import ACCENT, BASE, HATCH_GREY, MASKED, REFERENCE, WHITE
from ..validation import (
    as_real_array,
    asarray_strict,
    boolean,
    choice,
    entries,
    finite_result,
    finite_scalar,
    instance,
    integer,
    positive_float,
    positive_int,
    quiet_overflow,
    short_preview,
    text,
)

#: the page's renderer and its stylesheet, beside this module (the site's build copies them into the
#: site; the wheel carries them as package data)
ASSETS = tuple(Path(__file__).with_name(name) for name in ("attnlab_live.js", "attnlab_live.css"))

#: every panel kind the page draws and the fields of each, in the order its function below writes
#: them (after ``"kind"``); ``attnlab_live.js`` draws kind K with ``DRAW.K``, which reads these fields
PANELS = {
    "bars": ("labels", "values", "title", "xlabel", "ylabel", "ylim", "color", "colors", "highlight", "accent",
             "digits", "visible"),
    "heatmap": ("cells", "xlabels", "ylabels", "title", "vmin", "vmax", "stops", "masked", "highlight", "accent",
                "xlabel", "ylabel", "colorbar", "digits", "numbers", "marks", "vlines", "hlines", "markcolor",
                "hatch", "hatchcolor"),
    "tiles": ("cells", "cols", "group", "title", "vmin", "vmax", "stops", "masked", "note", "colorbar", "separator",
              "row_labels", "narrow"),
    "lines": ("series", "title", "xlabel", "ylabel", "xlim", "ylim", "xlog", "ylog", "xticks", "yticks", "vlines",
              "hlines", "refcolor", "legend", "bars"),
    "arrows": ("vectors", "labels", "colors", "lim", "title", "chain", "widths", "order", "xlabel", "ylabel"),
}
#: fields present only when given (the renderer tests for their presence); every other field is always
#: there, ``None`` where it is not set
OPTIONAL = {("lines", "bars")}
#: fields the renderer does not read: ``digits`` of a heatmap says how its ``numbers`` were written
#: (they arrive as text)
NOT_DRAWN = {("heatmap", "digits")}
#: the fields of the records inside a panel: a line of ``lines`` (:func:`series`), the bars under its
#: curves (``lines(bars=…)``) and a matrix (:func:`cells`: ``heatmap``'s ``cells``, each of ``tiles``')
RECORDS = {"series": ("x", "y", "color", "label", "dash", "marker", "line", "step", "fill", "width"),
           "lines.bars": ("x", "y", "colors"),
           "cells": ("shape", "bytes")}

#: significant digits of a number that is only drawn (a bar's height, a cell's colour)
DRAW_DIGITS = 3
#: most digits a panel writes after the decimal point (the page's ``toFixed`` allows 100; more is noise)
MAX_DIGITS = 15


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


def _drawn(name: str, values, **shape) -> np.ndarray:
    """Numbers that are only drawn: any real array, NaN/±inf allowed (a gap, a masked cell)."""
    return as_real_array(name, values, allow_empty=True, allow_nonfinite=True, **shape)


def _counted(name: str, value, count, what: str) -> list:
    """``value``'s entries, one per drawn item when ``count`` is given."""
    out = entries(name, value, what)
    if count is not None and len(out) != count:
        raise ValueError(f"{name} must hold {count} {what}, one per item drawn, got {len(out)}")
    return out


def _texts(name: str, labels, count=None) -> list:
    """Labels (anything with a ``str``)."""
    return [str(label) for label in _counted(name, labels, count, "labels")]


def _colours(name: str, colors, count) -> list:
    return [text(f"{name}[{i}]", c) for i, c in enumerate(_counted(name, colors, count, "colours"))]


def _optional_index(name: str, value, count: int):
    return None if value is None else integer(name, value, low=0, high=count - 1)


def _indices(name: str, value, count: int):
    """``None``, one index or several (a tie's every bar) into ``count`` items, as a list."""
    if value is None:
        return None
    items = [value] if np.ndim(value) == 0 and not isinstance(value, (list, tuple)) else list(value)
    return [integer(f"{name}[{i}]", v, low=0, high=count - 1) for i, v in enumerate(items)]


def _cell_marks(name: str, value, shape) -> list:
    """Cells ``[(row, col), …]`` of a matrix of ``shape``."""
    out = []
    for k, pair in enumerate(entries(name, value, "(row, col) pairs")):
        if isinstance(pair, (str, bytes, dict)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise TypeError(f"{name}[{k}] must be a (row, col) pair, got {short_preview(pair)}")
        out.append([integer(f"{name}[{k}]", pair[0], low=0, high=shape[0] - 1),
                    integer(f"{name}[{k}]", pair[1], low=0, high=shape[1] - 1)])
    return out


def _coordinates(name: str, value) -> list:
    """Positions along an axis (finite numbers)."""
    return [_num(finite_scalar(f"{name}[{i}]", v)) for i, v in enumerate(entries(name, value, "positions"))]


def _digits(name: str, value):
    return integer(name, value, low=0, high=MAX_DIGITS)


def _limits(name: str, value) -> list:
    """An axis range ``(low, high)``: two finite numbers."""
    return _nums(as_real_array(name, value, shape=(2,)))


def _pairs(name: str, value, second) -> list:
    """``[(value, x), …]`` (ticks, reference lines): a finite number and ``second(name, x)`` each."""
    out = []
    for i, pair in enumerate(entries(name, value, "(value, …) pairs")):
        if isinstance(pair, (str, bytes, dict)) or not hasattr(pair, "__len__") or np.ndim(pair) != 1 \
                or len(pair) != 2:
            raise TypeError(f"{name}[{i}] must be a (value, …) pair, got {short_preview(pair)}")
        out.append([_num(finite_scalar(f"{name}[{i}]", pair[0])), second(f"{name}[{i}]", pair[1])])
    return out


def _cmap(name: str, value):
    if isinstance(value, Colormap):  # a figure's own map, not a registered name (15's two-colour roles)
        return value
    if not isinstance(value, str) or value not in matplotlib.colormaps:
        raise ValueError(f"{name} must be a matplotlib colormap name such as 'viridis' or a Colormap, "
                         f"got {short_preview(value)}")
    return matplotlib.colormaps[value]


def _stops(name: str, cmap, n: int) -> list:
    cmap = _cmap(name, cmap)
    n = integer("n", n, low=2, high=256)
    return [to_hex(cmap(i / (n - 1))) for i in range(n)]


def _range(vmin, vmax) -> tuple:
    """The colour range: finite ``vmin`` < ``vmax`` whose span is a float."""
    vmin, vmax = finite_scalar("vmin", vmin), finite_scalar("vmax", vmax)
    if not vmax > vmin:
        raise ValueError(f"vmax must be greater than vmin, got vmin={vmin!r}, vmax={vmax!r}")
    with quiet_overflow():
        finite_result(vmax - vmin, "vmin and vmax", "vmax − vmin")
    return vmin, vmax


def _cells(name: str, matrix, vmin: float, vmax: float) -> dict:
    m = _drawn(name, matrix, ndim=2)
    with quiet_overflow():  # a huge entry is clipped to the end of the range, not an overflow
        level = np.clip(np.rint((np.nan_to_num(m, nan=vmin) - vmin) / (vmax - vmin) * 254), 0, 254).astype(np.uint8)
    level[np.isnan(m)] = 255
    return {"shape": list(m.shape), "bytes": base64.b64encode(level.tobytes()).decode("ascii")}


def cells(matrix, vmin: float, vmax: float) -> dict:
    """A matrix as its colour levels: one byte a cell (0…254 from ``vmin`` to ``vmax``, 255 for NaN,
    a masked cell), base64; the page decodes it only when it draws it, and 1/254 of the colour range
    is finer than the eye tells apart."""
    vmin, vmax = _range(vmin, vmax)
    return _cells("matrix", matrix, vmin, vmax)


def cmap_stops(name: str = "viridis", n: int = 11) -> list:
    """``n`` evenly spaced colours of matplotlib's colormap ``name`` as hex (the page interpolates)."""
    return _stops("name", name, n)


def bars(labels, values, *, title="", xlabel="", ylabel="", ylim=(0.0, 1.12), color=BASE, colors=None,
         highlight=None, digits=None, visible=None) -> dict:
    """Vertical bars, one per label; ``highlight`` an index (or several: every bar of a tie) drawn
    in the accent colour; ``digits`` writes each value over its bar; ``visible`` how many bars (from
    the left) are shown."""
    values = _drawn("values", values, ndim=1)
    n = len(values)
    return {"kind": "bars", "labels": _texts("labels", labels, n), "values": _nums(values),
            "title": text("title", title), "xlabel": text("xlabel", xlabel), "ylabel": text("ylabel", ylabel),
            "ylim": _limits("ylim", ylim), "color": text("color", color),
            "colors": _colours("colors", colors, n) if colors is not None else None,
            "highlight": _indices("highlight", highlight, n), "accent": ACCENT,
            "digits": None if digits is None else _digits("digits", digits),
            "visible": None if visible is None else integer("visible", visible, low=0, high=n)}


def heatmap(matrix, xlabels, ylabels, *, title="", vmin=0.0, vmax=1.0, cmap="viridis", highlight_row=None,
            numbers=None, digits=3, xlabel="", ylabel="", colorbar="", marks=(), vlines=(), hlines=(),
            mark_color=WHITE, hatch_rows=(), hatch_color=HATCH_GREY) -> dict:
    """A matrix as coloured cells (NaN: masked grey); ``highlight_row`` boxed; ``numbers`` a boolean
    matrix of the cells whose value is written in them. Marks drawn over the cells in ``mark_color``
    (matplotlib's cell coordinates: cell ``(i, j)`` centred at ``x = j, y = i``): ``marks`` rings on
    the cells ``[(row, col), …]``, ``vlines``/``hlines`` dashed lines at those x / y (``j - 0.5``:
    the edge left of column ``j``); ``hatch_rows`` rows faded and hatched in ``hatch_color`` (cells
    a figure marks as not meaningful)."""
    vmin, vmax = _range(vmin, vmax)
    m = _drawn("matrix", matrix, ndim=2)
    digits = _digits("digits", digits)
    rows, cols = m.shape
    spec = {"kind": "heatmap", "cells": _cells("matrix", m, vmin, vmax),
            "xlabels": _texts("xlabels", xlabels, cols), "ylabels": _texts("ylabels", ylabels, rows),
            "title": text("title", title), "vmin": vmin, "vmax": vmax, "stops": _stops("cmap", cmap, 11),
            "masked": MASKED, "highlight": _optional_index("highlight_row", highlight_row, rows),
            "accent": ACCENT, "xlabel": text("xlabel", xlabel), "ylabel": text("ylabel", ylabel),
            "colorbar": text("colorbar", colorbar), "digits": digits, "numbers": None,
            "marks": _cell_marks("marks", marks, m.shape), "vlines": _coordinates("vlines", vlines),
            "hlines": _coordinates("hlines", hlines), "markcolor": text("mark_color", mark_color),
            "hatch": _indices("hatch_rows", hatch_rows, rows) or [], "hatchcolor": text("hatch_color", hatch_color)}
    if numbers is not None:
        shown = _written(numbers, m)
        spec["numbers"] = [[int(i), int(j), f"{m[i, j]:.{digits}f}"] for i, j in zip(*np.nonzero(shown))]
    return spec


def _written(numbers, m) -> np.ndarray:
    """``heatmap``'s ``numbers``: a boolean matrix of ``m``'s shape marking finite cells only."""
    try:
        shown = asarray_strict(numbers)
    except (TypeError, ValueError):
        shown = None
    if shown is None or shown.dtype.kind != "b":
        raise TypeError(f"numbers must be a boolean matrix (True: write the value), got {short_preview(numbers)}")
    if shown.shape != m.shape:
        raise ValueError(f"numbers must have the shape of matrix {m.shape}, got shape {shown.shape}")
    if not np.isfinite(m[shown]).all():
        raise ValueError("numbers marks cells of matrix that are NaN or inf (a masked cell has no value to write)")
    return shown


def _tile_rows(name: str, value, count: int):
    """``tiles``' ``narrow``: ``(cols, row_labels)``, the layout of a narrow column (a phone)."""
    if value is None:
        return None
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__") or len(value) != 2:
        raise TypeError(f"{name} must be (cols, row_labels), got {short_preview(value)}")
    cols = positive_int(f"{name}[0]", value[0])
    return {"cols": cols, "row_labels": _texts(f"{name}[1]", value[1], -(-count // cols) if value[1] else 0)}


def tiles(matrices, *, cols, group=1, title="", vmin=0.0, vmax=1.0, cmap="viridis", note="", colorbar="",
          separator=ACCENT, row_labels=(), narrow=None) -> dict:
    """Several square matrices side by side, ``cols`` to a row (06's one tile per head), across the
    whole text column; a line between neighbours whose index // ``group`` differs; ``row_labels`` one
    text per row of tiles, at its left; ``narrow`` ``(cols, row_labels)``: the layout in a narrow
    column (a phone), fewer to a row so that each tile stays large enough to read."""
    vmin, vmax = _range(vmin, vmax)
    count = len(entries("matrices", matrices, "matrices"))
    return {"kind": "tiles",
            "cells": [_cells(f"matrices[{i}]", m, vmin, vmax) for i, m in enumerate(entries("matrices", matrices,
                                                                                              "matrices"))],
            "cols": positive_int("cols", cols), "group": positive_int("group", group),
            "title": text("title", title), "vmin": vmin, "vmax": vmax, "stops": _stops("cmap", cmap, 11),
            "masked": MASKED, "note": text("note", note), "colorbar": text("colorbar", colorbar),
            "separator": text("separator", separator), "row_labels": _texts("row_labels", row_labels),
            "narrow": _tile_rows("narrow", narrow, count)}


def series(x, y, *, color=BASE, label="", dash=False, marker=False, line=True, step=False, fill=False,
           width=2.0) -> dict:
    """One line of :func:`lines`: ``step`` draws stairs (``x`` holds the edges, one more than ``y``),
    ``fill`` fills under it (a histogram), ``marker`` a dot at each point (``line=False``: dots only)."""
    x, y = _drawn("x", x, ndim=1), _drawn("y", y, ndim=1)
    step = boolean("step", step)
    if len(x) != len(y) + step:
        want = "one more than y (step: x holds the edges)" if step else "as many as y"
        raise ValueError(f"x must hold {want}: got {len(x)} x values and {len(y)} y values")
    return {"x": _nums(x), "y": _nums(y), "color": text("color", color), "label": text("label", label),
            "dash": boolean("dash", dash), "marker": boolean("marker", marker), "line": boolean("line", line),
            "step": step, "fill": boolean("fill", fill), "width": positive_float("width", width)}


def _curve(name: str, value) -> dict:
    instance(name, value, dict, "series(...) line")
    if set(value) != set(RECORDS["series"]):
        raise ValueError(f"{name} must be a line made by series(...), got a dict with keys {sorted(map(str, value))}")
    return value


def _log(name: str, value):
    """An axis scale: ``False``/``None`` (linear) or a log base 2 or 10."""
    return choice(name, value if value is not None else False, (False, 2, 10)) or False


def _ref_lines(name: str, value, default_colour: str) -> list:
    """Reference lines of :func:`lines`: ``(value, dashed)`` with ``dashed`` a bool or ``"dotted"``,
    ``(value, dashed, colour)``, or ``(value, dashed, colour, label)`` for a line the legend names
    (``colour`` None: the panel's reference colour)."""
    out = []
    for i, line in enumerate(entries(name, value, "(value, dashed) pairs")):
        where = f"{name}[{i}]"
        if isinstance(line, (str, bytes, dict)) or not hasattr(line, "__len__") or len(line) not in (2, 3, 4):
            raise TypeError(f"{where} must be (value, dashed), (value, dashed, colour) or (value, dashed, colour, label), "
                            f"got {short_preview(line)}")
        style = "dotted" if isinstance(line[1], str) and line[1] == "dotted" else boolean(where, line[1])
        colour = [default_colour if len(line) == 4 and line[2] is None else text(where, line[2])] if len(line) > 2 else []
        label = [text(where, line[3])] if len(line) == 4 else []
        out.append([_num(finite_scalar(where, line[0])), style, *colour, *label])
    return out


def _under_bars(value) -> dict:
    """``lines``' ``bars``: ``(heights, colours)``, one bar per position 0, 1, …"""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__") or len(value) != 2:
        raise TypeError(f"bars must be (heights, colours), got {short_preview(value)}")
    heights = _drawn("bars[0]", value[0], ndim=1)
    return {"x": list(range(len(heights))), "y": _nums(heights), "colors": _colours("bars[1]", value[1], len(heights))}


def lines(curves, *, title="", xlabel="", ylabel="", xlim=None, ylim=None, xlog=False, ylog=False, xticks=None,
          yticks=None, vlines=(), hlines=(), vline_color=REFERENCE, legend=True, bars=None) -> dict:
    """Curves (:func:`series`) on shared axes; ``xlog``/``ylog`` a base (2, 10) or False; ticks as
    ``[(value, label), …]``; ``vlines``/``hlines`` as ``[(value, dashed), …]`` (``dashed``: a bool or
    ``"dotted"``), ``(value, dashed, colour)`` for a line not in ``vline_color``, or ``(value, dashed,
    colour, label)`` for one the legend names (once per label; ``colour`` None: ``vline_color``);
    ``bars`` ``(heights, colours)``: a bar at each position 0, 1, … under the curves (07's scores,
    coloured by block)."""
    def label(_name, t):
        return str(t)

    spec = {"kind": "lines", "series": [_curve(f"curves[{i}]", c) for i, c in enumerate(entries("curves", curves,
                                                                                                 "lines"))],
            "title": text("title", title), "xlabel": text("xlabel", xlabel), "ylabel": text("ylabel", ylabel),
            "xlim": None if xlim is None else _limits("xlim", xlim),
            "ylim": None if ylim is None else _limits("ylim", ylim),
            "xlog": _log("xlog", xlog), "ylog": _log("ylog", ylog),
            "xticks": None if xticks is None else _pairs("xticks", xticks, label),
            "yticks": None if yticks is None else _pairs("yticks", yticks, label),
            "vlines": _ref_lines("vlines", vlines, vline_color), "hlines": _ref_lines("hlines", hlines, vline_color),
            "refcolor": text("vline_color", vline_color), "legend": boolean("legend", legend)}
    if bars is not None:
        spec["bars"] = _under_bars(bars)
    return spec


def arrows(vectors, labels, colors, *, lim, title="", chain=False, widths=None, order=None, xlabel="",
           ylabel="") -> dict:
    """2-d vectors as arrows from the origin (``chain``: each from the previous one's tip, the last
    from the origin: a sum); ``lim`` a half-width or ``((x0, x1), (y0, y1))``; ``order`` the indices
    in drawing order (the last on top; default as given)."""
    vectors = as_real_array("vectors", vectors, shape=(None, 2))
    n = len(vectors)
    if np.isscalar(lim):
        lim = positive_float("lim", lim)
        lim = ((-lim, lim), (-lim, lim))
    else:
        lim = as_real_array("lim", lim, shape=(2, 2))
        if not (lim[:, 0] < lim[:, 1]).all():
            raise ValueError(f"lim must be ((x0, x1), (y0, y1)) with x0 < x1 and y0 < y1, got {lim.tolist()}")
    if widths is not None:
        widths = as_real_array("widths", widths, shape=(n,))
        if (widths <= 0).any():
            raise ValueError(f"widths must be > 0, got {widths.tolist()}")
    if order is not None:
        order = _indices("order", order, n)
        if sorted(order) != list(range(n)):
            raise ValueError(f"order must list each of the {n} arrows once, got {order}")
    return {"kind": "arrows", "vectors": _nums(vectors), "labels": _texts("labels", labels, n),
            "colors": _colours("colors", colors, n), "lim": _nums(lim), "title": text("title", title),
            "chain": boolean("chain", chain), "widths": None if widths is None else [float(w) for w in widths],
            "order": order, "xlabel": text("xlabel", xlabel), "ylabel": text("ylabel", ylabel)}


def control_spec(name: str, control, universe=None) -> dict:
    """The page's control for the ipywidgets ``control``: kind, label, the values it can take (in
    order), the index of its value now, and how a value is shown. ``universe`` overrides the values
    (a slider whose range follows another control: every value it can ever take)."""
    text("name", name)
    kinds = (widgets.Checkbox, widgets.IntSlider, widgets.FloatSlider, widgets.SelectionSlider, widgets.ToggleButtons,
             widgets.Dropdown, widgets.RadioButtons, widgets.Select)
    instance("control", control, kinds, "ipywidgets control (a Checkbox, IntSlider, FloatSlider, SelectionSlider, "
                                        "ToggleButtons, Dropdown, RadioButtons or Select)")
    if universe is not None:
        universe = entries("universe", universe, "values")
    label = control.description
    if isinstance(control, widgets.Checkbox):
        kind, values, shown = "check", [False, True], ["否", "是"]
    elif isinstance(control, (widgets.IntSlider, widgets.FloatSlider)):
        kind = "range"
        if universe is None:
            count = int(round((control.max - control.min) / control.step)) + 1
            universe = [control.min + i * control.step for i in range(count)]
        if isinstance(control, widgets.IntSlider):
            values = [integer(f"universe[{i}]", v) for i, v in enumerate(universe)]
            shown = [str(v) for v in values]
        else:
            # the decimal a slider position means
            values = [float(f"{finite_scalar(f'universe[{i}]', v):.12g}") for i, v in enumerate(universe)]
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


def _fields(where: str, record: dict, declared, optional=()) -> None:
    """``record``'s keys are ``declared`` (those in ``optional`` may be absent), else a ValueError naming
    each field one side lacks."""
    extra = [k for k in record if k not in declared]
    missing = [k for k in declared if k not in record and k not in optional]
    if extra or missing:
        said = [f"field {k!r} that web.PANELS does not declare" for k in extra]
        said += [f"no field {k!r}, which web.PANELS declares" for k in missing]
        raise ValueError(f"{where} has " + "; ".join(said) + " (what the page draws is declared once, in web.PANELS)")


def check_view(view, name: str = "view") -> None:
    """Check a :meth:`~helpers.render.explorer.Explorer.web_view` result against :data:`PANELS` and
    :data:`RECORDS`: a title and a list of panels, each of a declared kind with exactly its declared
    fields; a ValueError names the panel, its kind and the field one side lacks."""
    instance(name, view, dict, "web view ({'title': str, 'panels': [...]})")
    _fields(name, view, ("title", "panels"))
    for i, panel in enumerate(entries(f"{name}['panels']", view["panels"], "panels")):
        where = f"{name}['panels'][{i}]"
        instance(where, panel, dict, "panel made by helpers.render.web")
        kind = panel.get("kind")
        if kind not in PANELS:
            raise ValueError(f"{where} has kind {short_preview(kind)}, not one of the kinds the page draws "
                             f"({', '.join(PANELS)})")
        where = f"{where} ({kind})"
        _fields(where, {k: v for k, v in panel.items() if k != "kind"}, PANELS[kind],
                [f for k, f in OPTIONAL if k == kind])
        if kind == "lines":
            for j, line in enumerate(panel["series"]):
                _fields(f"{where}['series'][{j}]", line, RECORDS["series"])
            if "bars" in panel:
                _fields(f"{where}['bars']", panel["bars"], RECORDS["lines.bars"])
        for j, matrix in enumerate([panel["cells"]] if kind == "heatmap" else panel["cells"] if kind == "tiles" else []):
            _fields(f"{where}['cells'][{j}]", matrix, RECORDS["cells"])
