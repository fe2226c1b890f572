"""helpers.render.fonts: the bundled CJK font covers every Chinese string the series draws."""
import json
import re
import subprocess
import sys
import textwrap

import pytest
from paths import ROOT

from helpers.render.fonts import FONT_PATH, cjk_family_name

CJK = re.compile(r"[\u2E80-\u9FFF\u3000-\u303F\uFF00-\uFFEF]+[^\n\"'`<>]*")


def chinese_strings():
    """Every run of CJK text in the notebooks (all cells and outputs) and in helpers' source."""
    found = set()
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        found.update(m.group(0) for m in CJK.finditer(nb.read_text(encoding="utf-8")))
    for py in sorted((ROOT / "helpers").rglob("*.py")):
        found.update(m.group(0) for m in CJK.finditer(py.read_text(encoding="utf-8")))
    # glyph coverage is the point: "$" would start matplotlib's math mode on markdown maths
    return sorted({s.replace("$", "") for s in found})


def test_font_name_is_read_from_file_and_renamed():
    name = cjk_family_name()
    assert name and "Noto" not in name and "Source" not in name
    assert (FONT_PATH.parent / "OFL.txt").exists()
    assert 2_000_000 < FONT_PATH.stat().st_size < 4_500_000


def test_font_covers_gb2312():
    from fontTools.ttLib import TTFont

    cmap = TTFont(str(FONT_PATH)).getBestCmap()
    missing = []
    for hi in range(0xB0, 0xF8):  # GB2312 level-1 and level-2 hanzi
        for lo in range(0xA1, 0xFF):
            try:
                ch = bytes([hi, lo]).decode("gb2312")
            except UnicodeDecodeError:
                continue
            if ord(ch) not in cmap:
                missing.append(ch)
    assert not missing, f"{len(missing)} GB2312 characters missing, e.g. {missing[:10]}"
    for ch in "，。：；？！“”（）、《》—…·√∞×→≈":
        assert ord(ch) in cmap, ch


@pytest.mark.slow  # renders every Chinese string of the series in a clean process (a figure scan)
def test_every_chinese_string_renders_without_system_cjk_fonts():
    strings = chinese_strings()
    assert len(strings) > 20
    script = textwrap.dedent("""
        import json, sys, warnings
        import matplotlib
        matplotlib.use("Agg")
        from matplotlib import font_manager
        # hide every system font: only matplotlib's own (DejaVu) stay, as on Colab
        font_manager.fontManager.ttflist = [f for f in font_manager.fontManager.ttflist
                                            if "mpl-data" in f.fname]
        assert not any("CJK" in f.name for f in font_manager.fontManager.ttflist)
        import helpers
        helpers.setup()
        from helpers.display import new_figure, figure_png
        new_figure(1, 1)  # import the backend first (old pyparsing warns on import, not on glyphs)
        warnings.simplefilter("error", UserWarning)  # a missing glyph is a UserWarning
        warnings.simplefilter("error", RuntimeWarning)
        strings = json.loads(sys.stdin.read())
        for start in range(0, len(strings), 40):
            fig = new_figure(6, 6)
            fig.set_layout_engine("none")
            ax = fig.add_subplot()
            for i, s in enumerate(strings[start:start + 40]):
                ax.text(0, i / 40, s)
            ax.set_title(strings[start])
            figure_png(fig)
        print("rendered", len(strings))
    """)
    result = subprocess.run([sys.executable, "-c", script], input=json.dumps(strings),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Glyph" not in result.stderr
    assert f"rendered {len(strings)}" in result.stdout
