"""A table a notebook shows as HTML, with its text form for plain viewers and nbval (plumbing).

JupyterLab's output font draws a CJK character ≈ 1.66 Latin columns wide, not the 2 that a
fixed-width text table counts, so printed tables with Chinese headers drift. A
:class:`Table` is displayed by the front end as an HTML ``<table>`` (``_repr_html_``); its
``text/plain`` form is :func:`helpers.render.format.text_table` of the same cells, so a viewer
without HTML (a terminal, ``print``) still lines it up and nbval compares the same text as before.
The HTML is a pure function of the cells (no ids, no timestamps): re-running a notebook stores the
same bytes. Taught nowhere (plumbing); notebooks reach it as ``helpers.display.table``.
"""
from __future__ import annotations

import dataclasses
import html
import re

from .format import table_cells, text_table

#: a cell that reads as a number (its column is right-aligned): 12, −0.250, 1,024, 3.0e-05, −∞, 45%
_NUMBER = re.compile(r"^[-−+]?(\d[\d,]*(\.\d+)?([eE][-+]?\d+)?|∞)%?$")

_TABLE = "border-collapse:collapse;margin:0.4em 0;font-variant-numeric:tabular-nums"
#: numbers never wrap (a line break inside "0.735" reads as two numbers); headers and text cells
#: wrap, so a long Chinese header folds onto two lines instead of pushing the table past the
#: output area (JupyterLab at 1366 px with the file browser open leaves ≈ 900 px)
_PAD = "padding:0.2em 0.9em;text-align:{align}"
_CELL = _PAD + ";white-space:{wrap}"
_HEAD = _PAD + ";vertical-align:bottom;border-bottom:1px solid currentColor;font-weight:bold"


@dataclasses.dataclass(frozen=True)
class Table:
    """A displayed table: the formatted ``headers`` and ``rows`` (all text) and each column's
    alignment (``"right"`` for columns whose every cell reads as a number, else ``"left"``).

    Build it with :func:`table`. In a notebook make it the cell's last expression (don't ``print``
    it: ``print`` shows only the text form)."""

    headers: tuple
    rows: tuple
    align: tuple

    def __post_init__(self):
        def texts(name, value, n=None):
            if not isinstance(value, tuple) or not all(isinstance(v, str) for v in value) or (
                    n is not None and len(value) != n):
                raise TypeError(f"{name} must be a tuple of {n if n is not None else 'some'} strings "
                                f"(build a Table with table()), got {value!r:.60}")

        texts("headers", self.headers)
        if not isinstance(self.rows, tuple):
            raise TypeError(f"rows must be a tuple of rows (build a Table with table()), got {self.rows!r:.60}")
        for i, row in enumerate(self.rows):
            texts(f"rows[{i}]", row, len(self.headers))
        texts("align", self.align, len(self.headers))
        if not set(self.align) <= {"left", "right"}:
            raise ValueError(f"align must hold 'left' or 'right' per column, got {self.align!r:.60}")

    @property
    def text(self) -> str:
        """The fixed-width text form (what ``text_table`` prints)."""
        return text_table(list(self.headers), [list(r) for r in self.rows])

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:  # text/plain in the notebook: the same text as the old printed table
        return self.text

    def _repr_pretty_(self, p, cycle) -> None:
        p.text(self.text)

    def _repr_html_(self) -> str:
        def row(cells, tag, style):
            return "<tr>" + "".join(
                f"<{tag} style='{style.format(align=a, wrap='nowrap' if a == 'right' else 'normal')}'>"
                f"{html.escape(c)}</{tag}>" for c, a in zip(cells, self.align)) + "</tr>"

        head = row(self.headers, "th", _HEAD)
        body = "".join(row(r, "td", _CELL) for r in self.rows)
        return f"<table style='{_TABLE}'><thead>{head}</thead><tbody>{body}</tbody></table>"


def table(headers, rows, *, digits: int = 3) -> Table:
    """A table for a notebook cell: HTML in JupyterLab/Colab, the aligned text table elsewhere.

    ``headers`` is a list of column titles (strings), ``rows`` a list of rows with one cell per
    header; float cells get ``digits`` decimals, arrays are written ``[0.1, 0.2]``, anything else
    by ``str`` (format a number yourself, e.g. ``f"{x:.1f}"``, when a column needs other digits).
    Columns whose cells all read as numbers are right-aligned.

    Use it as the last expression of a cell, instead of ``print(text_table(...))``::

        helpers.display.table(["方式", "窗口", "困惑度"], rows, digits=1)

    The stored ``text/plain`` output is exactly ``text_table(headers, rows, digits=digits)``, and
    the ``text/html`` is deterministic, so strict nbval compares both. To show a heading and a
    table from one cell, ``print`` the heading first, then end with the table."""
    head, body = table_cells(headers, rows, digits=digits)
    align = tuple("right" if body and all(_NUMBER.match(r[j].strip()) for r in body) else "left"
                  for j in range(len(head)))
    return Table(tuple(head), tuple(tuple(r) for r in body), align)
