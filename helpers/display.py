"""Showing figures and numbers in a notebook the same way everywhere.

Figures are built as plain ``matplotlib.figure.Figure`` objects (no pyplot state) and shown as
PNG images, so stored outputs carry no ``<Figure size …>`` text and the same code serves static
figures and live explorers. Numbers are always formatted explicitly (never a numpy repr).
"""
from __future__ import annotations

import io

import numpy as np

DPI = 90


def new_figure(width: float, height: float):
    """A figure with an Agg canvas and constrained layout, independent of pyplot."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def figure_png(fig, dpi: int = DPI) -> bytes:
    """Render ``fig`` to PNG bytes."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def rgba_png(canvas) -> bytes:
    """Encode an Agg canvas's current pixels as PNG (fast compression: explorers re-encode often)."""
    from PIL import Image

    width, height = canvas.get_width_height(physical=True)
    image = Image.frombuffer("RGBA", (width, height), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


def show(fig) -> None:
    """Display ``fig`` as a PNG image in the notebook (static figures in every notebook)."""
    from IPython.display import Image, display

    display(Image(data=figure_png(fig)))


def fmt(x, digits: int = 3) -> str:
    """A number with a fixed number of decimals; integers-valued floats keep the decimals."""
    return f"{float(x):.{digits}f}"


def fmt_vec(values, digits: int = 3) -> str:
    """``[1.648, 0.087]`` style text for a 1-D array."""
    return "[" + ", ".join(fmt(v, digits) for v in np.ravel(values)) + "]"


def fmt_bytes(n_bytes: float) -> str:
    """Bytes in binary units: ``128 KiB``, ``16 GiB``, ``1024 GiB`` (two significant decimals)."""
    n = float(n_bytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if n == round(n) else f"{n:.2f} {unit}"
        n /= 1024
    return f"{n:.2f} TiB"


def text_table(headers, rows, *, digits: int = 3) -> str:
    """A fixed-width text table; float cells are formatted with ``digits`` decimals.

    Widths count CJK characters as two columns so Chinese headers line up.
    """
    def cell(value):
        if isinstance(value, (float, np.floating)):
            return fmt(value, digits)
        if isinstance(value, np.ndarray):
            return fmt_vec(value, digits)
        return str(value)

    table = [[cell(h) for h in headers]] + [[cell(v) for v in row] for row in rows]
    widths = [max(_width(r[i]) for r in table) for i in range(len(headers))]
    lines = []
    for r_i, row in enumerate(table):
        lines.append("  ".join(c + " " * (w - _width(c)) for c, w in zip(row, widths)).rstrip())
        if r_i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _width(text: str) -> int:
    return sum(2 if ord(ch) > 0x2E7F else 1 for ch in text)


def pad(text: str, width: int) -> str:
    """Left-align ``text`` in ``width`` columns, counting CJK characters as two."""
    return text + " " * max(1, width - _width(text))
