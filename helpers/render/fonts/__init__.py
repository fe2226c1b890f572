"""Chinese text in matplotlib on machines without a CJK font (Colab has none).

Used by every notebook through :func:`helpers.setup`. The bundled font is a GB2312 subset of
Noto Sans CJK SC, renamed as the SIL OFL asks for a modified font (licence in ``OFL.txt``
beside it; rebuilt by ``tools/data/build_cjk_font.py``). Taught nowhere (plumbing).
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

# matplotlib is imported inside the functions that register the font: helpers.setup calls them,
# and a notebook that draws nothing never loads matplotlib (about 1 s).

FONT_PATH = Path(__file__).resolve().parent / "AttnLabSansSC-Regular.otf"
LATIN_FAMILY = "DejaVu Sans"


@lru_cache(maxsize=None)
def cjk_family_name() -> str:
    """The family name the bundled font registers under, read from the file itself."""
    from matplotlib.font_manager import FontProperties

    return FontProperties(fname=str(FONT_PATH)).get_name()


def register_cjk_font() -> str:
    """Add the bundled font to matplotlib and set per-glyph fallback: Latin first, CJK second.

    ``fontManager.addfont`` is not persisted, so this runs at every :func:`helpers.setup`.
    Returns the registered family name.
    """
    import matplotlib
    from matplotlib import font_manager

    name = cjk_family_name()
    if not any(entry.fname == str(FONT_PATH) for entry in font_manager.fontManager.ttflist):
        font_manager.fontManager.addfont(str(FONT_PATH))
    matplotlib.rcParams["font.family"] = [LATIN_FAMILY, name]
    matplotlib.rcParams["axes.unicode_minus"] = True
    return name
