"""The live page's description of an explorer (helpers.render.web) and the build side that evaluates it
(tools/site/live/live_pages.py), without a browser: controls read from the widgets, a grid with the
explorer's own readouts, compact encoding. The browser side: tests/series/test_live_site.py."""
from __future__ import annotations

import base64
import gzip
import json

import ipywidgets as widgets
import live_pages
import numpy as np
import pytest

from helpers import widgets as factories
from helpers.render import web
from helpers.render.palette import REFERENCE, WHITE
from helpers.render.panels import largest


def test_control_spec_reads_kind_values_labels_and_default_from_the_widget():
    spec = web.control_spec("q1", widgets.FloatSlider(value=0.5, min=-1.0, max=1.0, step=0.1, description="q[0]",
                                                      readout_format=".1f"))
    assert spec["kind"] == "range" and len(spec["values"]) == 21 and spec["values"][15] == 0.5
    assert spec["shown"][0] == "-1.0" and spec["default"] == 15 and spec["label"] == "q[0]"
    pick = web.control_spec("n", widgets.SelectionSlider(options=[("1K", 1024), ("2K", 2048)], value=2048))
    assert pick["values"] == [1024, 2048] and pick["shown"] == ["1K", "2K"] and pick["default"] == 1
    assert web.control_spec("c", widgets.Checkbox(value=True))["default"] == 1
    assert web.control_spec("m", widgets.Dropdown(options=["a", "b"], value="b"))["kind"] == "select"


def test_a_default_off_the_grid_is_refused_naming_the_control():
    with pytest.raises(ValueError, match="control 'x'"):
        web.control_spec("x", widgets.Dropdown(options=["a"], value="a"), universe=["b"])


def test_drawn_numbers_are_rounded_and_nan_is_null():
    panel = web.lines([web.series([0, 1], [0.123456, np.nan])])
    assert panel["series"][0]["y"] == [0.123, None]
    json.dumps(panel, allow_nan=False)  # valid JSON: no NaN literal reaches the page


def test_heatmap_cells_are_colour_levels_with_255_for_masked():
    panel = web.heatmap([[0.0, 0.5], [1.0, np.nan]], ["a", "b"], ["r", "s"])
    assert panel["cells"]["shape"] == [2, 2]
    assert list(base64.b64decode(panel["cells"]["bytes"])) == [0, 127, 254, 255]
    json.dumps(panel, allow_nan=False)


def test_a_grid_explorer_stores_its_own_readout_for_every_state_it_allows():
    e = factories.causal_mask_explorer()
    data = live_pages.explorer_data("causal_mask_explorer", e)
    states, strings = data["grid"]["states"], data["grid"]["strings"]
    extra = len(data["controls"][2]["values"])
    # rows 0 … 3 + extra exist for each number of appended tokens, with and without the mask
    assert len(states) == 2 * sum(4 + k for k in range(extra))
    key = "1,5,2"  # mask on, row 5, two tokens appended
    assert live_pages.set_values(e, {"causal": True, "row": 5, "extra": 2})
    _, readout, _ = live_pages.view_now(e)
    assert strings[states[key][1]] == readout
    assert "1,5,1" not in states  # row 5 needs at least two appended tokens
    e.restore_defaults()


def test_encoding_is_gzip_json_and_the_same_bytes_every_time():
    data = {"a": [1, 2, 3], "b": "注意力"}
    once, again = live_pages.encode(data), live_pages.encode(data)
    assert once == again
    assert json.loads(gzip.decompress(base64.b64decode(once))) == data


def test_formula_explorers_name_a_formula_and_give_its_inputs():
    for factory in (factories.weighted_average_explorer, factories.qkv_explorer, factories.hand_calculation_explorer):
        e = factory()
        data = live_pages.explorer_data("x", e)
        assert data["formula"] == e.web_formula and data["view"]["panels"]
        args = e.web_compute_args(e.values, {})
        assert e.describe(e.compute(**args)) == e.readout.value  # the page's inputs reproduce the notebook's state


@pytest.mark.parametrize("call, named", [
    (lambda: web.arrows([["a", 1]], ["q"], ["#000"], lim=1), "vectors"),
    (lambda: web.arrows([[1.0, 2.0]], ["q"], ["#000"], lim=[1.0, 2.0]), "lim"),
    (lambda: web.arrows([[1.0, 2.0], [3.0]], ["q", "k"], ["#000", "#111"], lim=1), "vectors"),
    (lambda: web.arrows([[1.0, 2.0]], ["q"], [1.5], lim=1), "colors"),
    (lambda: web.arrows([[1.0, 2.0]], ["q", "k"], ["#000"], lim=1), "labels"),
    (lambda: web.bars(["a"], [1.0], highlight=3), "highlight"),
    (lambda: web.heatmap([[0.5]], ["a"], ["r"], vmin=1.0, vmax=0.0), "vmax"),
    (lambda: web.heatmap([[np.nan]], ["a"], ["r"], numbers=[[True]]), "numbers"),
    (lambda: web.tiles([np.ones(3)], cols=1), "matrices"),
    (lambda: web.series([0, 1], [1.0]), "x"),
    (lambda: web.lines([{"x": 1}]), "curves"),
    (lambda: web.cmap_stops("no such map"), "name"),
    (lambda: web.heatmap([[0.5]], ["a"], ["r"], cmap="no such map"), "cmap"),
    (lambda: web.control_spec("x", 1.5), "control"),
    (lambda: web.heatmap([[0.5]], ["a"], ["r"], marks=[(1, 0)]), "marks"),
    (lambda: web.heatmap([[0.5]], ["a"], ["r"], hatch_rows=[2]), "hatch_rows"),
    (lambda: web.heatmap([[0.5]], ["a"], ["r"], vlines=[np.nan]), "vlines"),
    (lambda: web.lines([], vlines=[(1.0, "dashdot")]), "vlines"),
    (lambda: web.arrows([[1.0, 2.0], [0.0, 1.0]], ["a", "b"], ["#000"] * 2, lim=1, order=[0, 0]), "order"),
])
def test_bad_panel_input_is_refused_naming_the_argument(call, named):
    with pytest.raises((ValueError, TypeError), match=named):
        call()


def test_figure_marks_travel_to_the_page():
    """What a figure draws over its panels (rings, dashed and dotted lines, hatching, row labels,
    every bar of a tie, the arrows' order) is in the panel the page draws."""
    h = web.heatmap(np.eye(4), list("abcd"), list("abcd"), marks=[(2, 1), (3, 2)], vlines=(0.5,), hlines=(1.5,), hatch_rows=(0, 1))
    assert h["marks"] == [[2, 1], [3, 2]] and h["vlines"] == [0.5] and h["hlines"] == [1.5]
    assert h["hatch"] == [0, 1] and h["markcolor"] == WHITE
    assert web.bars(["a", "b"], [0.5, 0.5], highlight=[0, 1])["highlight"] == [0, 1]
    assert web.bars(["a", "b"], [0.2, 0.8], highlight=1)["highlight"] == [1]
    line = web.lines([web.series([1, 2], [1, 2])], vlines=[(1.5, "dotted", REFERENCE), (1.2, True)])
    assert line["vlines"] == [[1.5, "dotted", REFERENCE], [1.2, True]]
    assert web.tiles([np.eye(2)] * 2, cols=2, row_labels=["头 0–1"])["row_labels"] == ["头 0–1"]
    assert web.arrows([[1, 0], [0, 1]], ["a", "b"], ["#000000"] * 2, lim=2, order=(1, 0))["order"] == [1, 0]


def test_ties_are_all_largest():
    assert largest([0.25, 0.25, 0.25, 0.25]) == [0, 1, 2, 3]
    assert largest([0.1, 0.6, 0.3]) == [1]
