"""Stored text outputs fit JupyterLab's output area, so no line is wrapped inside a number or token.

JupyterLab wraps a stdout / text/plain line that is wider than the output area wherever it runs
out of room: "2.1" / "5", "lm" / "_head". At 1366 px with the file browser open the area holds
about 118 Latin columns (a CJK character is drawn ≈ 1.66 columns). Every stored line is held to
:data:`helpers.render.format.LINE_COLUMNS` columns counting a CJK character as two, which leaves
that margin; long texts the helpers print are folded by :func:`helpers.render.format.wrap_text`,
which breaks only at spaces or beside CJK characters. HTML tables are left out (they wrap their
headers and keep numbers whole by CSS: tests/unit/test_table.py).
"""
import json
import re

import pytest
from paths import ROOT
from series import NOTEBOOKS

from helpers.render.format import LINE_COLUMNS, _width, wrap_text


def long_lines(path):
    """``(cell index, columns, line)`` for each stored text line wider than LINE_COLUMNS."""
    found = []
    for index, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            text = "".join(out.get("text", "")) or ("" if "text/html" in data else "".join(data.get("text/plain", "")))
            found += [(index, _width(line), line) for line in text.split("\n") if _width(line) > LINE_COLUMNS]
    return found


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_stored_text_lines_fit_the_output_area(name):
    found = long_lines(ROOT / "notebooks" / f"{name}.ipynb")
    assert not found, (f"{name}: {len(found)} stored lines wider than {LINE_COLUMNS} columns (split the print, "
                       "or fold helper text with helpers.render.format.wrap_text): "
                       + " | ".join(f"cell {i} ({w}): {line[:40]}…" for i, w, line in found))


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
    # a line is over the width only by a closing CJK mark kept with its character, or when it is one piece
    assert all(_width(line) <= width + 2 or " " not in line.strip() for line in lines), lines
    assert not any(line.lstrip()[:1] in "，。）；：" for line in lines[1:] if line.strip()), lines
    assert "".join(line.strip() for line in lines).replace(" ", "") == text.replace(" ", "")
