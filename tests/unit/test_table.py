"""helpers.render.table: HTML tables whose plain-text form is the old text table (a CJK
character is ≈ 1.66 columns in JupyterLab's font, so a text table with Chinese headers drifts)."""
from __future__ import annotations

import html.parser

import numpy as np
import pytest

import helpers
from helpers.render.format import text_table
from helpers.render.table import table

HEADERS = ["方式", "窗口", "困惑度"]
ROWS = [["全部注意力", 512, 12.3456], ["滑动窗口 <局部>", 64, np.float64(15.0)], ["−∞ 掩码", "—", -np.inf]]


class _Cells(html.parser.HTMLParser):
    """Reads the cells back out of the HTML (tag, text, style)."""

    def __init__(self):
        super().__init__()
        self.cells, self._open = [], None

    def handle_starttag(self, tag, attrs):
        if tag in ("th", "td"):
            self._open = [tag, "", dict(attrs).get("style", "")]

    def handle_data(self, data):
        if self._open is not None:
            self._open[1] += data

    def handle_endtag(self, tag):
        if tag in ("th", "td") and self._open is not None:
            self.cells.append(tuple(self._open))
            self._open = None


def _cells(t):
    parser = _Cells()
    parser.feed(t._repr_html_())
    return parser.cells


def test_plain_text_is_exactly_the_text_table():
    t = helpers.display.table(HEADERS, ROWS, digits=1)
    expected = text_table(HEADERS, ROWS, digits=1)
    assert repr(t) == expected and str(t) == expected and t.text == expected
    from IPython.core.formatters import PlainTextFormatter
    assert PlainTextFormatter()(t) == expected  # what a notebook stores as text/plain


def test_html_holds_the_same_cells_escaped_and_aligned():
    t = table(HEADERS, ROWS, digits=2)
    cells = _cells(t)
    assert [c[1] for c in cells[:3]] == HEADERS and all(c[0] == "th" for c in cells[:3])
    body = [c[1] for c in cells[3:]]
    assert body == ["全部注意力", "512", "12.35", "滑动窗口 <局部>", "64", "15.00", "−∞ 掩码", "—", "−∞"]
    assert "&lt;局部&gt;" in t._repr_html_()  # text is escaped, not markup
    # the name column is left-aligned; 窗口 holds "—" so it is text; 困惑度 is all numbers
    assert t.align == ("left", "left", "right")
    assert all("text-align:right" in c[2] for c in cells if c[1] in ("困惑度", "12.35", "15.00", "−∞"))
    assert all("text-align:left" in c[2] for c in cells if c[1] in ("方式", "全部注意力", "512"))


def test_html_is_deterministic():
    a, b = table(HEADERS, ROWS), table(HEADERS, [list(r) for r in ROWS])
    assert a._repr_html_() == b._repr_html_()
    assert "id=" not in a._repr_html_()


def test_numbers_in_text_are_right_aligned_and_a_header_only_table_is_left():
    t = table(["n", "比例"], [["1,024", "45%"], ["3.0e-05", "−0.250"]])
    assert t.align == ("right", "right")
    assert table(["n"], []).align == ("left",)


@pytest.mark.parametrize("headers, rows, digits, named", [
    ("方式", ROWS, 3, "headers"),
    ([], ROWS, 3, "headers"),
    ([1, 2, 3], ROWS, 3, "headers"),
    (HEADERS, "rows", 3, "rows"),
    (HEADERS, [["a", 1]], 3, "rows[0]"),
    (HEADERS, [["a", 1, float("nan")]], 3, "rows[0][2]"),
    (HEADERS, ROWS, -1, "digits"),
])
def test_bad_input_names_the_argument(headers, rows, digits, named):
    with pytest.raises((TypeError, ValueError), match=named.replace("[", r"\[").replace("]", r"\]")):
        table(headers, rows, digits=digits)


def test_headers_and_text_cells_wrap_and_numbers_do_not():
    """A long Chinese header folds onto two lines instead of pushing the table past the output area;
    a number never breaks ("0.735" read as "0." and "735")."""
    t = helpers.display.table(["一个很长很长的中文表头，说明这一列是什么", "名字"], [[0.735, "全部注意力 很长的说明"]])
    cells = _cells(t)
    head, number, words = cells[0], cells[2], cells[3]
    assert "nowrap" not in head[2]
    assert "white-space:nowrap" in number[2] and "white-space:normal" in words[2]
