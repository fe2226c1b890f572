"""Figures as PNG bytes, the same way everywhere (plumbing behind :mod:`helpers.display`).

Figures are built as plain ``matplotlib.figure.Figure`` objects (no pyplot state) with
:func:`new_figure` and turned into PNG bytes here, so the same code serves static figures and
live explorers. Every picture is rendered at twice its display density (``RENDER_DPI``) and shown
at its 1× size (``DPI`` CSS pixels per inch, so a 9-pt font in matplotlib is 9 pt on the page),
which keeps it sharp on HiDPI screens. PNGs carry no software/version metadata, so the same
figure gives the same bytes on every run. Taught nowhere (plumbing).
"""
from __future__ import annotations

import io
import struct
import zlib

import numpy as np

from .validation import as_real_array, finite_scalar, instance, integer, positive_float

# matplotlib is imported inside the functions that draw: helpers.display imports this module for
# its sizes, so a notebook that only prints numbers and tables never loads matplotlib (about 1 s).

#: CSS pixels per figure inch when shown (a browser's 96 px per inch: points mean points)
DPI = 96
#: pixels per figure inch when rendered (2×: sharp on HiDPI screens)
RENDER_DPI = 2 * DPI
#: PNG metadata matplotlib would otherwise write (its version): left out so bytes are stable
PNG_METADATA = {"Software": None}


def _figure(name, fig):
    from matplotlib.figure import Figure

    return instance(name, fig, Figure, "matplotlib Figure")



def new_figure(width: float, height: float):
    """A figure with an Agg canvas and constrained layout, independent of pyplot (inches)."""
    width = finite_scalar("width", width, low=0.1, high=40.0)
    height = finite_scalar("height", height, low=0.1, high=40.0)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=RENDER_DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def plotted(values, step: float) -> np.ndarray:
    """``values`` rounded to multiples of ``step``, for a figure drawn from real-model numbers: another
    CPU's BLAS kernels move their last float32 bits, and an antialiased line moved by a thousandth of
    a pixel changes a few pixels' shades. ``step`` is what the figure can show (about a pixel), so
    the same figure gives the same PNG on every CPU unless a value lies within that noise of a
    rounding boundary."""
    values = as_real_array("values", values, allow_empty=True)
    step = positive_float("step", step)
    return np.round(values / step) * step


def figure_png(fig, dpi: int = RENDER_DPI) -> bytes:
    """Render ``fig`` to PNG bytes at 2× density, with no metadata that changes between runs."""
    _figure("fig", fig)
    dpi = integer("dpi", dpi, low=10, high=1200)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata=PNG_METADATA)
    return buffer.getvalue()


def display_width(png: bytes) -> int:
    """The 1× width in CSS pixels of a PNG rendered at ``RENDER_DPI`` (half its pixel width)."""
    return png_size(png)[0] * DPI // RENDER_DPI


def png_size(png: bytes) -> tuple:
    """``(width, height)`` in pixels, read from a PNG's header."""
    instance("png", png, (bytes, bytearray), "PNG bytes")
    if len(png) < 24 or png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"png_size: png does not start with the PNG signature (got {png[:8]!r})")
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def rgba_png(canvas) -> bytes:
    """Encode an Agg canvas's current pixels as a PNG, fast: explorers re-encode on every move.

    The canvas's RGBA buffer is stored as it is (colour type 6): dropping the alpha channel would
    need a strided copy that costs more than the bytes it saves. Rows are stored unfiltered and
    deflated at level 1, which for plots is both faster and smaller than adaptive filtering. The
    deflate step uses ISA-L (``isal``, a dependency) where it is installed: the same zlib stream,
    about 8× faster; otherwise the standard library's ``zlib``.
    """
    try:
        from isal.isal_zlib import compress
    except ImportError:  # pragma: no cover - isal has wheels for the usual platforms
        compress = zlib.compress

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    instance("canvas", canvas, FigureCanvasAgg, "matplotlib Agg canvas (fig.canvas)")
    if getattr(canvas, "renderer", None) is None:
        raise ValueError("canvas has no pixels yet: draw it first (canvas.draw())")

    # the size of the pixels themselves, not of the figure: a savefig at another dpi leaves the
    # canvas holding that render (figure_png(fig, dpi=…) then rgba_png(fig.canvas))
    pixels = np.asarray(canvas.buffer_rgba())  # (height, width, 4), C-contiguous
    height, width = pixels.shape[:2]
    rows = np.empty((height, 1 + 4 * width), dtype=np.uint8)
    rows[:, 0] = 0  # each row starts with its filter type: 0 = none
    rows[:, 1:] = pixels.reshape(height, -1)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", compress(rows, 1))
            + chunk(b"IEND", b""))
