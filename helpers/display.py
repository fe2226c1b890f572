"""Showing figures and numbers in a notebook the same way everywhere.

Figures are built as plain ``matplotlib.figure.Figure`` objects (no pyplot state) and shown as
PNG images, so stored outputs carry no ``<Figure size …>`` text and the same code serves static
figures and live explorers. Every picture is rendered at twice its display density (``RENDER_DPI``)
and shown at its 1× size (``DPI`` CSS pixels per inch, so a 9-pt font in matplotlib is 9 pt on the
page), which keeps it sharp on HiDPI screens. PNGs carry no software/version metadata, so the
same figure gives the same bytes on every run. Numbers are always formatted explicitly (never a
numpy repr).
"""
from __future__ import annotations

import io

import numpy as np

from .validation import finite_scalar, instance, integer, text

#: CSS pixels per figure inch when shown (a browser's 96 px per inch: points mean points)
DPI = 96
#: pixels per figure inch when rendered (2×: sharp on HiDPI screens)
RENDER_DPI = 2 * DPI
#: PNG metadata matplotlib would otherwise write (its version): left out so bytes are stable
PNG_METADATA = {"Software": None}


def _figure(name, fig):
    from matplotlib.figure import Figure

    return instance(name, fig, Figure, "matplotlib Figure")


def _digits(digits) -> int:
    return integer("digits", digits, low=0, high=15)


def new_figure(width: float, height: float):
    """A figure with an Agg canvas and constrained layout, independent of pyplot (inches)."""
    width = finite_scalar("width", width, low=0.1, high=40.0)
    height = finite_scalar("height", height, low=0.1, high=40.0)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=RENDER_DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


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
    import struct
    import zlib

    try:
        from isal.isal_zlib import compress
    except ImportError:  # pragma: no cover - isal has wheels for the usual platforms
        compress = zlib.compress

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    instance("canvas", canvas, FigureCanvasAgg, "matplotlib Agg canvas (fig.canvas)")

    width, height = canvas.get_width_height(physical=True)
    pixels = np.asarray(canvas.buffer_rgba())  # (height, width, 4), C-contiguous
    rows = np.empty((height, 1 + 4 * width), dtype=np.uint8)
    rows[:, 0] = 0  # each row starts with its filter type: 0 = none
    rows[:, 1:] = pixels.reshape(height, -1)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", compress(rows, 1))
            + chunk(b"IEND", b""))


def show(fig) -> None:
    """Display ``fig`` as a PNG image in the notebook (static figures in every notebook): rendered
    at 2× density, shown at its 1× width."""
    from IPython.display import Image, display

    _figure("fig", fig)
    png = figure_png(fig)
    display(Image(data=png, width=display_width(png)))


def fmt(x, digits: int = 3) -> str:
    """A number with a fixed number of decimals; integers-valued floats keep the decimals.

    ``-inf`` (a masked score) is written ``−∞``; NaN and ``+inf`` are refused (a number shown to a
    reader is never ``nan``)."""
    digits = _digits(digits)
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x[()]
    if isinstance(x, (float, np.floating)) and x == -np.inf:
        return "−∞"
    return f"{finite_scalar('x', x):.{digits}f}"


def fmt_vec(values, digits: int = 3) -> str:
    """``[1.648, 0.087]`` style text for a 1-D array (lists and tuples too)."""
    from .validation import as_real_array

    arr = as_real_array("values", values, ndim=(0, 1), allow_empty=True, allow_neg_inf=True)
    return "[" + ", ".join(fmt(v, digits) for v in np.ravel(arr)) + "]"


def fmt_bytes(n_bytes: float) -> str:
    """Bytes in binary units: ``128 KiB``, ``16 GiB``, ``1024 GiB`` (two significant decimals)."""
    n = finite_scalar("n_bytes", n_bytes, low=0.0)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if n == round(n) else f"{n:.2f} {unit}"
        n /= 1024
    return f"{n:.2f} TiB"


def text_table(headers, rows, *, digits: int = 3) -> str:
    """A fixed-width text table; float cells are formatted with ``digits`` decimals.

    Widths count CJK characters as two columns so Chinese headers line up.
    """
    _digits(digits)
    if isinstance(headers, (str, bytes)) or not isinstance(headers, (list, tuple)) or not headers:
        raise TypeError(f"headers must be a non-empty list of column titles, got {type(headers).__name__} {headers!r:.60}")
    if not all(isinstance(h, str) for h in headers):
        raise TypeError(f"headers must be strings (column titles), got {list(headers)!r:.80}")
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__iter__"):
        raise TypeError(f"rows must be a list of rows (each a list of cells), got {type(rows).__name__} {rows!r:.60}")
    rows = list(rows)
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__") or len(row) != len(headers):
            raise ValueError(f"rows[{i}] must have {len(headers)} cells (one per header), got {row!r:.60}")
    def cell(value):
        if isinstance(value, (float, np.floating)):
            return fmt(value, digits)
        if isinstance(value, np.ndarray):
            return fmt_vec(value, digits)
        return str(value)

    def body_cell(i, j, value):
        try:
            return cell(value)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"rows[{i}][{j}] cannot be shown: {exc}") from None

    table = [[cell(h) for h in headers]] + [[body_cell(i, j, v) for j, v in enumerate(row)]
                                            for i, row in enumerate(rows)]
    widths = [max(_width(r[i]) for r in table) for i in range(len(headers))]
    lines = []
    for r_i, row in enumerate(table):
        lines.append("  ".join(c + " " * (w - _width(c)) for c, w in zip(row, widths)).rstrip())
        if r_i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


_text = text


def _width(text: str) -> int:
    return sum(2 if ord(ch) > 0x2E7F else 1 for ch in text)


def pad(text: str, width: int) -> str:
    """Left-align ``text`` in ``width`` columns, counting CJK characters as two."""
    text = _text("text", text)
    width = integer("width", width, low=0, high=1000)
    return text + " " * max(1, width - _width(text))
