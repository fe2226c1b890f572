"""A figure check: what a reader would call a broken figure, found from the drawn artists.

``figure_problems(fig)`` draws the figure once, records every text that the renderer actually
draws (titles, tick labels, legend entries, annotations, cell numbers…) and returns one line per
problem:

- a text leaves the figure (cut at the PNG's edge) or is cut by its clip box;
- ink on the outermost row or column of the rendered picture: something drawn there is cut at the
  PNG's edge (text extents come from the layout, which can leave a title a pixel or two past the
  top on the first draw, within ``TOL``, while its glyph tops are visibly clipped);
- two drawn texts overlap;
- plotted data (line points and markers, bars and other patches, arrows, image cells, scatter
  points) fall outside their axes' limits, so they are clipped or vanish;
- a text is smaller than ``MIN_PT`` points at the displayed size;
- an axis with tick labels has no axis label (colorbars included);
- a colour word in a title or legend (橙, 绿, 紫, 灰…) names a colour no artist in that axes has;
- two entries of one legend differ only by colour (same kind of mark, line style and marker) and
  their colours are closer than ``colour_vision.MIN_DELTA_E`` (tests/support) (CIEDE2000) for
  normal vision or simulated protanopia, deuteranopia or tritanopia;
- a plotted data line runs through a legend entry's text (08's eviction plot: the orange jump
  crossed both labels); reference lines spanning the axes (axhline/axvline) are not checked.

Explorers draw part of their figure as "animated" artists on a cached background; pass
``draw=explorer_draw(explorer)`` so the check sees the picture the explorer shows.
"""
from __future__ import annotations

import itertools
from contextlib import contextmanager
from unittest import mock

import numpy as np

MIN_PT = 9.0
TOL = 2.0  # pixels at the render density (1 px displayed): anti-aliasing and layout rounding


@contextmanager
def recording_texts():
    """Record ``(text artist, string, size in points)`` for every text the Agg renderer draws."""
    from matplotlib.backends.backend_agg import RendererAgg

    drawn = []
    original = RendererAgg.draw_text

    def spy(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
        if s.strip():
            drawn.append((mtext, s, prop.get_size_in_points()))
        return original(self, gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)

    with mock.patch.object(RendererAgg, "draw_text", spy):
        yield drawn


def explorer_draw(explorer):
    """A ``draw`` for :func:`figure_problems`: the explorer's own render (background + animated)."""
    def draw():
        explorer.invalidate_background()
        explorer.text_stamps = False  # every string through matplotlib's draw_text, where it is seen
        try:
            explorer.render()
        finally:
            explorer.text_stamps = True
    return draw


def figure_problems(fig, *, draw=None, min_pt: float = MIN_PT, display_scale: float | None = None) -> list:
    """Every problem found in ``fig`` (empty list: the figure passes)."""
    from helpers.display import DPI

    if display_scale is None:  # displayed points per matplotlib point (DPI CSS px per inch, 96 px = 72 pt)
        display_scale = DPI / 96
    with recording_texts() as drawn:
        (draw or fig.canvas.draw)()
    renderer = fig.canvas.get_renderer()
    problems = _ink_at_edges(fig)
    texts = []
    seen = set()
    for artist, _s, size in drawn:
        if artist is None or id(artist) in seen:
            continue
        seen.add(id(artist))
        texts.append((artist, artist.get_text().replace("\n", " "), size, artist.get_window_extent(renderer)))
    fig_box = fig.bbox
    for artist, s, size, box in texts:
        if (box.x0 < fig_box.x0 - TOL or box.y0 < fig_box.y0 - TOL or box.x1 > fig_box.x1 + TOL
                or box.y1 > fig_box.y1 + TOL):
            problems.append(f"text {s!r} leaves the figure ({_box(box)} vs {_box(fig_box)})")
        clip = artist.get_clip_box() if artist.get_clip_on() else None
        if clip is not None and not _inside(box, clip):
            problems.append(f"text {s!r} is cut by its axes ({_box(box)} vs {_box(clip)})")
        if size * display_scale < min_pt - 1e-6:
            problems.append(f"text {s!r} is {size * display_scale:.1f} pt at the displayed size (< {min_pt:g} pt)")
    for (_a, sa, _, ba), (_b, sb, _, bb) in itertools.combinations(texts, 2):
        w = min(ba.x1, bb.x1) - max(ba.x0, bb.x0)
        h = min(ba.y1, bb.y1) - max(ba.y0, bb.y0)
        if w > TOL and h > TOL:
            problems.append(f"texts {sa!r} and {sb!r} overlap ({w:.0f}×{h:.0f} px)")
    for ax in fig.axes:
        if ax.get_visible() and not ax.get_label().startswith("inset zoom"):  # a zoom shows a part on purpose
            problems += _data_outside(ax, renderer)
            problems += _lines_through_legend(ax, renderer)
    problems += _unlabelled_axes(fig, [t[0] for t in texts])
    problems += _colour_words(fig, texts)
    problems += _legend_colours(fig)
    return problems


def _ink_at_edges(fig, contrast: int = 60) -> list:
    """One line per edge of the rendered picture (as last drawn) that has ink on its outermost
    pixels: a pixel differing from the figure's background by more than ``contrast`` levels."""
    from matplotlib.colors import to_rgb

    pixels = np.asarray(fig.canvas.buffer_rgba())[..., :3].astype(int)
    background = np.round(np.array(to_rgb(fig.get_facecolor())) * 255).astype(int)
    problems = []
    for edge, strip in (("top", pixels[0]), ("bottom", pixels[-1]), ("left", pixels[:, 0]), ("right", pixels[:, -1])):
        ink = np.abs(strip - background).max(axis=-1) > contrast
        if ink.any():
            where = np.nonzero(ink)[0]
            problems.append(f"ink on the {edge} edge of the picture (pixels {where.min()}–{where.max()}): "
                            "something is cut at the figure's edge")
    return problems


def _box(b) -> str:
    return f"[{b.x0:.0f}, {b.y0:.0f}, {b.x1:.0f}, {b.y1:.0f}]"


def _inside(box, frame, tol=TOL) -> bool:
    return (box.x0 >= frame.x0 - tol and box.y0 >= frame.y0 - tol and box.x1 <= frame.x1 + tol
            and box.y1 <= frame.y1 + tol)


def _outside_points(points, frame, margin=0.0) -> int:
    p = np.asarray(points, dtype=float).reshape(-1, 2)
    p = p[np.all(np.isfinite(p), axis=1)]
    bad = ((p[:, 0] < frame.x0 + margin - TOL) | (p[:, 0] > frame.x1 - margin + TOL)
           | (p[:, 1] < frame.y0 + margin - TOL) | (p[:, 1] > frame.y1 - margin + TOL))
    return int(bad.sum())


def _label(artist) -> str:
    label = artist.get_label() if hasattr(artist, "get_label") else ""
    return f"{type(artist).__name__}" + (f" {label!r}" if label and not label.startswith("_") else "")


def _data_outside(ax, renderer) -> list:
    from matplotlib.collections import QuadMesh
    from matplotlib.image import AxesImage
    from matplotlib.text import Annotation

    frame = ax.get_window_extent(renderer)
    name = ax.get_title() or ax.get_label() or "axes"
    problems = []
    px_per_pt = ax.figure.dpi / 72
    for line in ax.lines:
        if not line.get_visible() or not line.get_clip_on():
            continue
        xy = line.get_transform().transform(np.column_stack([line.get_xdata(), line.get_ydata()]).astype(float))
        margin = (line.get_markersize() * px_per_pt / 2) if line.get_marker() not in (None, "None", "", " ") else 0
        n = _outside_points(xy, frame, margin)
        if n:
            problems.append(f"{name}: {n} point(s) of {_label(line)} outside the axes limits")
    for patch in ax.patches:
        if not patch.get_visible() or not patch.get_clip_on():
            continue
        verts = patch.get_transform().transform(patch.get_path().vertices)
        extent = np.nanmax(verts, axis=0) - np.nanmin(verts, axis=0)
        if np.min(extent) < 0.5:  # a bar of height 0 draws nothing
            continue
        if _outside_points(verts, frame):
            problems.append(f"{name}: {_label(patch)} extends past the axes limits")
    for coll in ax.collections:
        if not coll.get_visible() or not coll.get_clip_on():
            continue
        offsets = coll.get_offsets()
        if isinstance(coll, QuadMesh):  # heatmap cells: the centres of the cells holding a value
            corners = coll.get_coordinates()
            centres = (corners[:-1, :-1] + corners[1:, 1:]) / 2
            shown = ~np.ma.getmaskarray(np.ma.masked_invalid(np.ma.asarray(coll.get_array(), dtype=float)))
            pts = coll.get_transform().transform(centres[shown.reshape(centres.shape[:2])])
        elif len(offsets) and not np.all(np.asarray(offsets) == 0):
            pts = coll.get_offset_transform().transform(np.asarray(offsets, dtype=float))
        else:
            paths = coll.get_paths()
            pts = np.vstack([coll.get_transform().transform(p.vertices) for p in paths]) if paths else np.zeros((0, 2))
        n = _outside_points(pts, frame)
        if n:
            problems.append(f"{name}: {n} point(s) of {_label(coll)} outside the axes limits")
    for image in ax.images:
        if not isinstance(image, AxesImage) or not image.get_visible():
            continue
        data = np.ma.masked_invalid(np.ma.asarray(image.get_array(), dtype=float))
        if data.ndim != 2:
            continue
        left, right, bottom, top = image.get_extent()
        rows, cols = data.shape
        ii, jj = np.nonzero(~np.ma.getmaskarray(data))
        x = left + (jj + 0.5) * (right - left) / cols
        y = top + (ii + 0.5) * (bottom - top) / rows if image.origin == "upper" else bottom + (ii + 0.5) * (top - bottom) / rows
        n = _outside_points(ax.transData.transform(np.column_stack([x, y])), frame)
        if n:
            problems.append(f"{name}: {n} cell(s) of the image outside the axes limits")
    for text in ax.texts:
        if not text.get_visible():
            continue
        if isinstance(text, Annotation) and text.arrow_patch is not None:
            ends = []
            for xy, coords in ((text.xy, text.xycoords), (text.xyann, text.anncoords)):
                if coords == "data":
                    ends.append(ax.transData.transform(np.asarray(xy, dtype=float)))
            if ends and _outside_points(ends, frame):
                problems.append(f"{name}: an arrow ends outside the axes limits")
        elif text.get_text().strip() and text.get_transform() == ax.transData:
            if not _inside(text.get_window_extent(renderer), frame):
                problems.append(f"{name}: data label {text.get_text()!r} sticks out of the axes")
    return problems


def _lines_through_legend(ax, renderer, step: float = 2.0) -> list:
    """Lines of ``ax`` that pass through the text of its legend (sampled every ``step`` px)."""
    legend = ax.get_legend()
    if legend is None or not legend.get_visible():
        return []
    boxes = [t.get_window_extent(renderer) for t in legend.get_texts() if t.get_text().strip()]
    problems = []
    for line in ax.lines:
        # data lines only: a reference line spanning the axes (axhline/axvline) is left to the eye
        if not line.get_visible() or line.get_linestyle() in ("None", "", " ") or line.get_transform() != ax.transData:
            continue
        xy = line.get_transform().transform(np.column_stack([line.get_xdata(), line.get_ydata()]).astype(float))
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        if len(xy) < 2:
            continue
        seg = np.diff(xy, axis=0)
        counts = np.maximum(1, np.ceil(np.hypot(seg[:, 0], seg[:, 1]) / step)).astype(int)
        pts = np.vstack([xy[i] + np.outer(np.linspace(0, 1, c + 1), seg[i]) for i, c in enumerate(counts)])
        for box, text in zip(boxes, (t for t in legend.get_texts() if t.get_text().strip())):
            inside = ((pts[:, 0] > box.x0 + TOL) & (pts[:, 0] < box.x1 - TOL)
                      & (pts[:, 1] > box.y0 + TOL) & (pts[:, 1] < box.y1 - TOL))
            if inside.any():
                problems.append(f"{ax.get_title() or 'axes'}: {_label(line)} runs through the legend text "
                                f"{text.get_text()!r}")
    return problems


def _unlabelled_axes(fig, drawn_texts) -> list:
    drawn = {id(t) for t in drawn_texts}
    problems = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for axis, which in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            ticks = [t for t in axis.get_ticklabels(which="both") if id(t) in drawn]
            if ticks and not axis.get_label_text().strip():
                shown = ", ".join(t.get_text() for t in ticks[:3])
                problems.append(f"{ax.get_title() or ax.get_label() or 'axes'}: {which} axis (ticks {shown}…) "
                                "has no axis label")
    return problems


def _colours_in(ax) -> set:
    from matplotlib.colors import to_hex

    found = set()
    for artist in [*ax.lines, *ax.patches, *ax.collections]:
        for getter in ("get_color", "get_facecolor", "get_edgecolor"):
            if hasattr(artist, getter):
                value = getattr(artist, getter)()
                for c in np.atleast_2d(np.asarray(value, dtype=object)) if not isinstance(value, str) else [[value]]:
                    try:
                        found.add(to_hex(c if len(c) != 1 else c[0]))
                    except (ValueError, TypeError):
                        pass
    return found


def _colour_words(fig, texts) -> list:
    from helpers.render import palette

    words = {w: c for c, w in palette._WORDS.items()}
    problems = []
    for artist, s, _, _ in texts:
        ax = getattr(artist, "axes", None)
        if ax is None:
            legend = next((leg for a in fig.axes for leg in [a.get_legend()] if leg is not None
                           and artist in leg.get_texts()), None)
            ax = legend.axes if legend is not None else None
        scope = [ax] if ax is not None else fig.axes
        present = set().union(*(_colours_in(a) for a in scope)) if scope else set()
        for word, colour in words.items():
            if f"（{word}）" in s or f"{word}色" in s or f"{word}线" in s or f"{word}柱" in s or f"{word}点" in s:
                if colour not in present:
                    problems.append(f"text {s!r} names {word} ({colour}) but no artist there has that colour")
    return problems


def _handle_look(handle):
    """``(colour, look)`` of a legend handle: its hex colour and what else tells it apart."""
    from matplotlib.colors import to_hex

    try:
        if hasattr(handle, "get_linestyle") and hasattr(handle, "get_marker"):  # a line
            return to_hex(handle.get_color()), ("line", handle.get_linestyle(), handle.get_marker())
        if hasattr(handle, "get_hatch") and hasattr(handle, "get_facecolor"):  # a patch or collection
            face = np.atleast_2d(np.asarray(handle.get_facecolor(), dtype=float))
            if face.size == 0 or face[0][3] == 0:
                face = np.atleast_2d(np.asarray(handle.get_edgecolor(), dtype=float))
            return to_hex(face[0]), (type(handle).__name__, handle.get_hatch())
    except (ValueError, TypeError, IndexError):
        pass
    return None, None


def _legend_colours(fig) -> list:
    """One line per pair of legend entries told apart by colour alone that a reader with normal
    vision or a simulated dichromacy sees within ``MIN_DELTA_E`` of each other."""
    import colour_vision

    problems = []
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or not legend.get_visible():
            continue
        handles = getattr(legend, "legend_handles", None) or getattr(legend, "legendHandles", [])
        entries = [(text.get_text(), *_handle_look(h)) for h, text in zip(handles, legend.get_texts())]
        for (sa, ca, la), (sb, cb, lb) in itertools.combinations(entries, 2):
            if ca is None or cb is None or ca == cb or la != lb:
                continue
            for vision in colour_vision.VISIONS:
                d = colour_vision.delta_e(ca, cb, vision)
                if d < colour_vision.MIN_DELTA_E:
                    problems.append(f"legend entries {sa!r} ({ca}) and {sb!r} ({cb}) differ only by colour, "
                                    f"ΔE00 {d:.1f} < {colour_vision.MIN_DELTA_E:g} under {vision} vision")
                    break
    return problems
