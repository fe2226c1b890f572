"""The palette's role sets stay apart for colour-blind readers (about 1 in 12 men).

colour_vision (tests/support) simulates protanopia, deuteranopia and tritanopia (Machado et al. 2009,
severity 1.0) and measures CIEDE2000; every role set of helpers.render.palette must keep each pair of
its colours at least MIN_DELTA_E apart under every vision.
"""
from __future__ import annotations

import itertools

import colour_vision as cv
import numpy as np
import pytest

from helpers.render import palette

#: Sharma, Wu & Dalal (2005), Table 1: pairs 1, 7, 17, 25 and 34 with their published ΔE00
SHARMA_PAIRS = [
    ((50.0000, 2.6772, -79.7751), (50.0000, 0.0000, -82.7485), 2.0425),
    ((50.0000, 0.0000, 0.0000), (50.0000, -1.0000, 2.0000), 2.3669),
    ((50.0000, 2.5000, 0.0000), (73.0000, 25.0000, -18.0000), 27.1492),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
]


@pytest.mark.parametrize("lab1, lab2, expected", SHARMA_PAIRS)
def test_ciede2000_matches_sharmas_test_data(lab1, lab2, expected):
    assert cv.ciede2000(lab1, lab2) == pytest.approx(expected, abs=5e-5)
    assert cv.ciede2000(lab2, lab1) == pytest.approx(expected, abs=5e-5)


def test_lab_of_white_black_and_srgb_red():
    assert cv.lab([1, 1, 1]) == pytest.approx([100, 0, 0], abs=1e-6)
    assert cv.lab([0, 0, 0]) == pytest.approx([0, 0, 0], abs=1e-9)
    assert cv.lab([1, 0, 0]) == pytest.approx([53.24, 80.09, 67.20], abs=0.01)  # the textbook value


def test_the_simulation_keeps_greys_and_merges_what_each_deficiency_confuses():
    for vision in cv.MACHADO_2009:
        for grey in ("#000000", "#777777", "#ffffff"):  # each matrix's rows sum to 1: greys stay grey
            assert cv.simulate(grey, vision) == pytest.approx(cv.simulate(grey, "normal"), abs=2e-3)
    red, green, blue, yellow = "#d62728", "#2ca02c", "#1f77b4", "#bcbd22"
    assert cv.delta_e(red, green) > 60
    for vision in ("protanopia", "deuteranopia"):  # red–green confusion
        assert cv.delta_e(red, green, vision) < cv.delta_e(red, green) / 2
        assert cv.delta_e(blue, yellow, vision) > 40  # blue–yellow survives
    assert cv.delta_e(red, green, "tritanopia") > 40  # tritanopes keep red–green
    assert cv.delta_e(blue, "#2ca02c", "tritanopia") < cv.delta_e(blue, "#2ca02c") / 2


@pytest.mark.parametrize("role", list(palette.ROLE_SETS))
def test_every_role_set_stays_apart_for_every_vision(role):
    colours = palette.ROLE_SETS[role]
    assert len(set(colours)) == len(colours), f"{role}: a colour repeats"
    problems = [f"{vision}: {palette.colour_word(a)} {a} vs {palette.colour_word(b)} {b}: ΔE00 {d:.1f}"
                for vision in cv.VISIONS for a, b in itertools.combinations(colours, 2)
                for d in [cv.delta_e(a, b, vision)] if d < cv.MIN_DELTA_E]
    assert problems == [], f"{role} (need ΔE00 ≥ {cv.MIN_DELTA_E:g})"


def test_the_check_would_have_caught_the_old_qkv_and_part_colours():
    """Dark2's pink/green/purple for q/k/v and lime/brown for 03's parts were ≈ 5 apart under deuteranopia."""
    d, a, b = cv.closest_pair((palette.PINK, palette.GREEN, palette.PURPLE), "deuteranopia")
    assert d < cv.MIN_DELTA_E and {a, b} == {palette.PINK, palette.GREEN}
    d, a, b = cv.closest_pair((palette.LIME, palette.BROWN, palette.PURPLE, palette.PINK, palette.BLACK), "deuteranopia")
    assert d < cv.MIN_DELTA_E and {a, b} == {palette.LIME, palette.BROWN}


def test_role_sets_name_palette_colours_with_words():
    for colours in palette.ROLE_SETS.values():
        for colour in colours:
            assert palette.colour_word(colour)  # a title can name it


@pytest.mark.parametrize("call, named", [
    (lambda: cv.simulate("#123456", "colourblind"), "vision"),
    (lambda: cv.simulate("not a colour", "normal"), "colour"),
    (lambda: cv.delta_e("#123456", [1, 2], "normal"), "colour2"),
    (lambda: cv.lab([0.5, np.nan, 0.1]), "rgb"),
    (lambda: cv.lab([0.5, 2.0, 0.1]), "rgb"),
    (lambda: cv.ciede2000([50, 0, 0], [50, 0]), "lab2"),
    (lambda: cv.closest_pair(["#123456"]), "colours"),
    (lambda: cv.closest_pair("#123456"), "colours"),
    (lambda: cv.closest_pair(["#123456", "nope"]), r"colours\[1\]"),
])
def test_bad_input_names_the_argument(call, named):
    with pytest.raises((TypeError, ValueError), match=named):
        call()
