"""The series' colours, in one place (every figure and explorer takes its colours from here).

Colours come from ColorBrewer's "Dark2" set, plus a wine (Paul Tol's "muted" scheme) and a dark
blue where Dark2's pink, lime and brown were too close to their neighbours for colour-blind readers.
Roles first (what a colour means in a figure), then the named colours behind them;
:func:`colour_word` gives the Chinese word a title uses for a colour, so words and colours agree.
:data:`ROLE_SETS` lists the colours that must be told apart from each other in one figure; under
simulated protanopia, deuteranopia and tritanopia every pair of a set stays at least
``MIN_DELTA_E`` of tests/support/colour_vision.py apart (CIEDE2000; tests/unit/test_palette.py).
"""
from __future__ import annotations

ORANGE = "#d95f02"
GREEN = "#1b9e77"
PURPLE = "#7570b3"
PINK = "#e7298a"
LIME = "#66a61e"
BROWN = "#a6761d"
WINE = "#882255"
BLUE = "#1f4e9c"
BLACK = "#000000"
GREY = "#bbbbbb"
DARK_GREY = "#999999"
LIGHT_GREY = "#dddddd"
WHITE = "#ffffff"
#: greys for text and marks that carry no meaning of their own
TEXT_GREY = "#333333"       # secondary text: a note on a figure, the preview's hint
FADED_GREY = "#555555"      # numbers of rows a figure marks as not meaningful (10's untrained rows)
MID_GREY = "#666666"        # a fourth line beside BASE, ACCENT and MUTED (12's copy losses)
HATCH_GREY = "#888888"      # hatching over cells a figure marks as not meaningful
BAND_GREY = "#f2f2f2"       # the band behind the static preview's hint

#: the highlighted series or bar (the row being read, attention's cost, the largest weight)
ACCENT = ORANGE
#: the ordinary series or bar
BASE = GREEN
#: a second series beside BASE (a fixed reference, the closed form)
MUTED = PURPLE
#: reference lines (zero, 0.5, √d theory) and the fixed weights of 01
REFERENCE = GREY
#: dashed markers of a chosen n or a crossover
MARKER = DARK_GREY
#: masked (−∞ or NaN) heatmap cells
MASKED = LIGHT_GREY
#: q, k, v arrows (02_qkv); no orange, which marks the largest weight beside them in 00 and 03.
#: (Dark2's pink for q was ΔE00 4.9 from k's green under deuteranopia.)
QKV_COLORS = (WINE, GREEN, PURPLE)
#: the weighted parts w·v of the four tokens, then their sum (03_hand_calculation); no orange,
#: which marks the largest weight in the bar chart beside it. (Lime and brown were ΔE00 5.6 apart
#: under deuteranopia.)
PART_COLORS = (GREEN, BLUE, PURPLE, WINE, BLACK)
#: a cycle for several series of the same kind (e.g. one curve per Δ in 08)
SERIES = (ORANGE, GREEN, PURPLE, WINE)

#: colours that share a figure and must be told apart, by role set (checked for colour-blind readers)
ROLE_SETS = {
    "q/k/v (02_qkv)": QKV_COLORS,
    "the weighted parts and their sum (03_hand_calculation)": PART_COLORS,
    "series of one kind (08_reading_attention)": SERIES,
    "highlight, ordinary, second series, reference": (ACCENT, BASE, MUTED, REFERENCE),
    "q/k/v beside the highlighted largest weight (00, 03)": (ACCENT, *QKV_COLORS),
    "the weighted parts beside the highlighted largest weight (03)": (ACCENT, *PART_COLORS),
}

_WORDS = {ORANGE: "橙", GREEN: "绿", PURPLE: "紫", PINK: "粉", LIME: "黄绿", BROWN: "棕", WINE: "酒红",
          BLUE: "蓝", BLACK: "黑",
          GREY: "灰", DARK_GREY: "深灰", LIGHT_GREY: "浅灰", WHITE: "白", TEXT_GREY: "深灰", FADED_GREY: "深灰",
          MID_GREY: "深灰", HATCH_GREY: "灰", BAND_GREY: "浅灰"}


def colour_word(colour: str) -> str:
    """The Chinese word for one of the palette's colours (``colour_word(ACCENT) == "橙"``)."""
    try:
        return _WORDS[colour.lower()]
    except (KeyError, AttributeError):
        raise ValueError(f"colour_word: colour={colour!r} is not one of the palette's colours "
                         f"{sorted(_WORDS)}") from None
