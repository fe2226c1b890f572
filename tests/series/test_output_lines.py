"""Stored text outputs fit JupyterLab's output area, so no line is wrapped inside a number or token.

JupyterLab wraps a stdout / text/plain line that is wider than the output area wherever it runs
out of room: "2.1" / "5", "lm" / "_head". At 1366 px with the file browser open the area holds
about 118 Latin columns (a CJK character is drawn ≈ 1.66 columns). Every stored line is held to
:data:`helpers.render.format.LINE_COLUMNS` columns counting a CJK character as two, which leaves
that margin; long texts the helpers print are folded by :func:`helpers.render.format.wrap_text`,
which breaks only at spaces or beside CJK characters.

HTML tables wrap their headers and text cells and keep numbers whole (tests/unit/test_table.py);
here each stored table's narrowest possible width (every header and text cell folded as far as it
can, numbers whole) is estimated and held to what that output area shows, :data:`TABLE_PX`.
"""
import html.parser
import json
import re

import pytest
from paths import ROOT
from printed_gaps import stored_outputs

from helpers.render.format import _PIECES, LINE_COLUMNS, _width, wrap_text
from tools.series import NOTEBOOKS


def long_lines(path):
    """``(cell index, columns, line)`` for each stored text line wider than LINE_COLUMNS."""
    found = []
    for index, out in stored_outputs(path):
        data = out.get("data", {})
        text = "".join(out.get("text", "")) or ("" if "text/html" in data else "".join(data.get("text/plain", "")))
        found += [(index, _width(line), line) for line in text.split("\n") if _width(line) > LINE_COLUMNS]
    return found


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_stored_text_lines_fit_the_output_area(name):
    wide = [f"cell {i} ({w}): {line[:40]}…" for i, w, line in long_lines(ROOT / "notebooks" / f"{name}.ipynb")]
    hint = "split the print, or fold helper text with helpers.render.format.wrap_text"
    assert not wide, f"{name}: {len(wide)} stored lines wider than {LINE_COLUMNS} columns ({hint}): " + " | ".join(wide)


@pytest.mark.parametrize("text", [
    "Llama-3.2-1B：num_layers 16，num_kv_heads 8，head_dim 64，matmul_params() = 1,235,814,400（含 lm_head）",
    "前 5 步梯度范数，不除 ÷ 除以 √d：d = 2：1.29（√d = 1.4） · d = 16：1.50（√d = 4.0） · d = 64：2.15" * 3,
    "一行里差 2000：[1000, 0, −1000] 和 [−1000, 0, 1000]（e^1000 溢出，e^−1000 下溢成 0）" * 4,
])
@pytest.mark.parametrize("width", [24, 40, 110])
def test_wrap_text_never_splits_a_number_or_a_name(text, width):
    lines = wrap_text(text, width, indent="  ").split("\n")
    for run in re.findall(r"[^\s\u2e80-\uffff]+", text):  # numbers, names, [1000,-like pieces
        assert any(run in line for line in lines), (run, lines)
    # a line is over the width only when it is one piece that cannot be split
    assert all(_width(line) <= width or len(_PIECES.findall(line.strip())) == 1 for line in lines), lines
    assert not any(line.lstrip()[:1] in "，。）；：" for line in lines[1:] if line.strip()), lines
    assert "".join(line.strip() for line in lines).replace(" ", "") == text.replace(" ", "")


@pytest.mark.parametrize("text, kept", [
    ("一段很长的说明文字写在这里，序列长度 T = 5 个位置", "T = 5 个"),
    ("一段很长的说明文字写在这里，投影矩阵是 576 × 64 的", "576 × 64"),
    ("一段很长的说明文字写在这里，每个 token 要读 64 KiB 的", "64 KiB"),
    ("一段很长的说明文字写在这里，梯度范数之比 2.15（√d = 8.0）", "（√d = 8.0）"),
    ("一段很长的说明文字写在这里，最后一行的权重 [0.179, 0.735]", "[0.179, 0.735]"),
])
@pytest.mark.parametrize("width", [24, 30, 36, 40])
def test_wrap_text_keeps_short_expressions_on_one_line(text, kept, width):
    lines = wrap_text(text, width).split("\n")
    assert any(kept in line for line in lines), lines
    assert all(_width(line) <= width for line in lines), lines


def test_wrap_text_folds_a_glued_group_too_long_for_half_a_line():
    text = "字" * 10 + " 4 × 32 × 128 × 2 × 1024 × 8 = 8,388,608 字节"
    lines = wrap_text(text, 30).split("\n")
    assert all(_width(line) <= 30 for line in lines), lines


#: JupyterLab's output area at 1366 px with the file browser open, in CSS pixels, less a margin
TABLE_PX = 880
#: the estimate's font: 13 px text, a Latin character ≈ 7.5 px wide, a CJK one 13 px; padding 0.9 em a side
LATIN_PX, CJK_PX, PADDING_PX = 7.5, 13.0, 2 * 0.9 * 13


class _Rows(html.parser.HTMLParser):
    """A stored table's rows: each cell's ``(style, text)``."""

    def __init__(self):
        super().__init__()
        self.rows, self._cell = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("th", "td"):
            self._cell = [dict(attrs).get("style", ""), ""]

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[1] += data

    def handle_endtag(self, tag):
        if tag in ("th", "td") and self._cell is not None:
            self.rows[-1].append(tuple(self._cell))
            self._cell = None


def _px(text):
    return sum(CJK_PX if _width(ch) == 2 else LATIN_PX for ch in text)


def narrowest_table_px(table_html):
    """The estimated width of a table folded as far as its CSS allows: a ``nowrap`` cell keeps its
    whole text on one line; another breaks at spaces and beside CJK characters."""
    parser = _Rows()
    parser.feed(table_html)
    widths = {}
    for row in parser.rows:
        for j, (style, text) in enumerate(row):
            pieces = [text] if "nowrap" in style else re.findall(r"[^\s\u2e80-\uffff]+|[\u2e80-\uffff]", text)
            widths[j] = max(widths.get(j, 0.0), max((_px(p) for p in pieces), default=0.0))
    return sum(w + PADDING_PX for w in widths.values())


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_stored_tables_fit_the_output_area_once_their_headers_wrap(name):
    wide = []
    for index, cell in enumerate(json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]):
        for out in cell.get("outputs", []):
            table_html = "".join(out.get("data", {}).get("text/html", ""))
            if "<table" in table_html and (px := narrowest_table_px(table_html)) > TABLE_PX:
                wide.append(f"cell {index}: {px:.0f} px")
    assert not wide, f"{name}: tables wider than {TABLE_PX} px even with every header folded: {wide}"


def test_a_folded_header_is_narrower_than_a_nowrap_one():
    head = "<table><tr><th style='white-space:{}'>一个很长很长的中文表头</th></tr></table>"
    assert narrowest_table_px(head.format("normal")) == CJK_PX + PADDING_PX
    assert narrowest_table_px(head.format("nowrap")) == 11 * CJK_PX + PADDING_PX
