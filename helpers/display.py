"""Showing figures and numbers in a notebook (a face: notebooks call ``helpers.display.*``).

:func:`show` displays a figure as a PNG image rendered at 2× density and shown at its 1× size; the
formatting helpers (:func:`fmt`, :func:`fmt_vec`, :func:`fmt_bytes`, :func:`text_table`,
:func:`pad`) write numbers explicitly, never as a numpy repr; :func:`wrap_text` folds a long printed line
without splitting a number (JupyterLab would wrap it anywhere); :func:`show_table` (or :func:`table` as a
cell's last expression) shows a table as HTML with the text table as its plain-text form: the way to
show a table with Chinese headers, which a fixed-width text table cannot line up in a browser. The code lives in the plumbing wing
(:mod:`helpers.render.format`, :mod:`helpers.render.table`, :mod:`helpers.render.png`); this module gathers it under the one name
the notebooks use. Nothing inside ``helpers`` imports this module.
"""
from __future__ import annotations

from .render.format import fmt, fmt_bytes, fmt_vec, pad, text_table, wrap_text
from .render.png import DPI, RENDER_DPI, display_width, figure_png, new_figure, png_size, rgba_png
from .render.table import Table, table

# IPython is imported inside show and show_table: fmt, text_table and table work (and are tested)
# where IPython is not installed, and a notebook pays for it only when it first displays something.


def show_table(headers, rows, *, digits: int = 3) -> None:
    """Display a table (HTML in JupyterLab/Colab, its aligned text elsewhere) anywhere in a cell:
    ``helpers.display.show_table(["方式", "窗口"], rows)``. Same arguments as :func:`table`; the
    stored ``text/plain`` is ``text_table(headers, rows, digits=digits)``."""
    from IPython.display import display

    display(table(headers, rows, digits=digits))


def show(fig) -> None:
    """Display ``fig`` as a PNG image in the notebook (static figures in every notebook): rendered
    at 2× density, shown at its 1× width."""
    from IPython.display import Image, display

    png = figure_png(fig)  # checks fig (a matplotlib Figure)
    display(Image(data=png, width=display_width(png)))


__all__ = ["show", "show_table", "table", "Table", "fmt", "fmt_vec", "fmt_bytes", "text_table", "pad", "wrap_text", "new_figure", "figure_png",
           "display_width", "png_size", "rgba_png", "DPI", "RENDER_DPI"]
