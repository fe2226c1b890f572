"""The live page's description of an explorer (helpers.render.web) and the build side that evaluates it
(tools/site/live/live_pages.py), without a browser: controls read from the widgets, a grid with the
explorer's own readouts, compact encoding, and the one declaration of the panel kinds (web.PANELS)
that the producers and the renderer beside them (helpers/render/web/attnlab_live.js, read here as
source) are both held to. The browser side: tests/series/test_live_site.py."""
from __future__ import annotations

import base64
import gzip
import json
import re

import ipywidgets as widgets
import numpy as np
import pytest

from helpers import widgets as factories
from helpers.render import web
from helpers.render.controls import weights_html, weights_template
from helpers.render.format import fill
from helpers.render.palette import REFERENCE, WHITE
from helpers.render.panels import largest
from tools.site.live import live_pages

JS = web.ASSETS[0]


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
        # the readout travels as the template describe() fills: its words are written once
        assert data["templates"] == e.web_templates and data["readout"] == e.readout.value
        assert "{" in data["templates"]["readout"]


def test_the_page_formulas_write_no_words_of_their_own():
    """The words of a formula explorer's readout and title are in its Python templates only: the page's
    formulas (attnlab_live.js, from FORMULAS to the drawing) hold no Chinese outside comments."""
    js = JS.read_text(encoding="utf-8")
    formulas = js[js.index("var FORMULAS = {};"):js.index("// ---- drawing")]
    code = re.sub(r"//[^\n]*", "", formulas)
    assert not re.findall(r"[\u2e80-\u9fff\uff00-\uffef]+", code)


def test_fill_writes_numbers_as_fmt_and_refuses_what_it_cannot_write():
    vec = np.array([0.5, -np.inf])
    assert fill("和 = {t:.3f}；{v:.1f}；{v[0]:.2f}；{w}；{{x}}", {"t": 1 / 3, "v": vec, "w": "年"}) == \
        "和 = 0.333；[0.5, −∞]；0.50；年；{x}"
    for template, named in [("{y:.1f}", "{y:.1f}"), ("{w:.1f}", "{w:.1f}"), ("{t}", "{t}"), ("{v[7]:.1f}", "v"),
                            ("a } b", "'}'")]:
        with pytest.raises((ValueError, TypeError), match=re.escape(named)):
            fill(template, {"t": 1.0, "v": vec, "w": "年"})
    # a row of weights is the same HTML from its template, braces in a token kept as text
    tokens, w = ["{年}", "假"], [0.25, 0.75]
    assert weights_html(tokens, w) == fill(weights_template(tokens, "w"), {"w": w}) == \
        '<span class="weights-0">{年} 0.250</span> · <span class="weights-1">假 0.750</span>'


# ---- one declaration of the panel kinds, two halves held to it ----------------------------------
def _code(js: str) -> str:
    """``js`` with every string, comment and regular-expression literal blanked (same length), so
    that braces and ``p.x`` are only ever code."""
    out, i, n = list(js), 0, len(js)
    last = "("  # the last code character: after one of these, "/" opens a regular expression

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = js[i]
        if c in "\"'":
            j = i + 1
            while js[j] != c:
                j += 2 if js[j] == "\\" else 1
            blank(i + 1, j)
            i, last = j + 1, c
        elif js.startswith("//", i):
            j = js.find("\n", i)
            blank(i, j)
            i = j
        elif js.startswith("/*", i):
            j = js.index("*/", i) + 2
            blank(i, j)
            i = j
        elif c == "/" and last in "(,=:[!&|?{};":
            j, in_class = i + 1, False
            while in_class or js[j] != "/":
                in_class = (in_class or js[j] == "[") and js[j] != "]"
                j += 2 if js[j] == "\\" else 1
            blank(i + 1, j)
            i, last = j + 1, "/"
        else:
            if not c.isspace():
                last = c
            i += 1
    return "".join(out)


def _closing(code: str, start: int) -> int:
    """The index of the bracket that closes the one at ``start``."""
    pairs, depth = {"{": "}", "(": ")", "[": "]"}, 0
    opening = code[start]
    for k in range(start, len(code)):
        depth += (code[k] == opening) - (code[k] == pairs[opening])
        if depth == 0:
            return k
    raise AssertionError(f"attnlab_live.js: no closing {pairs[opening]} for the one at {start}")


def _arguments(code: str, open_paren: int) -> list:
    """The argument texts of the call whose ``(`` is at ``open_paren``."""
    end, out, depth, begin = _closing(code, open_paren), [], 0, open_paren + 1
    for k in range(open_paren + 1, end):
        depth += (code[k] in "([{") - (code[k] in ")]}")
        if code[k] == "," and depth == 0:
            out.append(code[begin:k].strip())
            begin = k + 1
    return out + [code[begin:end].strip()]


def _reads(code: str, var: str) -> set:
    return set(re.findall(rf"(?<![\w.$]){var}\.(\w+)", code))


def renderer_fields(js: str) -> dict:
    """``{kind: fields read}`` of each ``DRAW.<kind>`` of ``js``, with ``"series"`` (what ``DRAW.lines``
    reads of a line, ``s``) and ``"lines.bars"``: the fields read of the panel ``p`` in the renderer
    and in every function it hands ``p`` to (a function whose parameter of that place is ``p``)."""
    code = _code(js)
    helpers = {}
    for m in re.finditer(r"function\s+(\w+)\s*\(([^)]*)\)\s*\{", code):
        params = [a.strip() for a in m.group(2).split(",")]
        if "p" in params:
            helpers[m.group(1)] = (params.index("p"), code[m.end() - 1:_closing(code, m.end() - 1)])

    def panel_reads(body: str, seen=()) -> set:
        found = _reads(body, "p")
        for name, (place, inner) in helpers.items():
            for call in re.finditer(rf"(?<![\w.$]){name}\s*\(", body):
                args = _arguments(body, call.end() - 1)
                if name not in seen and len(args) > place and args[place] == "p":
                    found |= panel_reads(inner, (*seen, name))
        return found

    start = code.index("var DRAW = {") + len("var DRAW = ")
    table = code[start:_closing(code, start) + 1]
    out = {}
    for m in re.finditer(r"(\w+)\s*:\s*function\s*\(svg,\s*p(?:,\s*\w+)*\)\s*\{", table):  # (svg, p, narrow)
        body = table[m.end() - 1:_closing(table, m.end() - 1) + 1]
        out[m.group(1)] = panel_reads(body)
        if m.group(1) == "lines":
            out["series"] = _reads(body, "s")
            out["lines.bars"] = set(re.findall(r"(?<![\w.$])p\.bars\.(\w+)", body))
    return out


def contract_problems(js: str) -> list:
    """Each kind or field that the renderer in ``js`` and web.PANELS / web.RECORDS do not agree on."""
    read, problems = renderer_fields(js), []
    for kind in [k for k in web.PANELS if k not in read]:
        problems.append(f"attnlab_live.js has no DRAW.{kind}, and web.PANELS declares the kind {kind!r}")
    for kind in [k for k in read if k not in web.PANELS and k not in web.RECORDS]:
        problems.append(f"attnlab_live.js draws DRAW.{kind}, a kind web.PANELS does not declare")
    for kind, declared in [*web.PANELS.items(), *web.RECORDS.items()]:
        if kind not in read:
            continue
        for field in sorted(read[kind] - set(declared)):
            problems.append(f"attnlab_live.js: DRAW.{kind} reads {field!r}, which web declares for no {kind}")
        for field in declared:
            drawn = (kind, field) not in web.NOT_DRAWN
            if drawn and field not in read[kind]:
                problems.append(f"attnlab_live.js: DRAW.{kind} never reads {field!r}, which web declares for {kind}")
            if not drawn and field in read[kind]:
                problems.append(f"attnlab_live.js: DRAW.{kind} reads {field!r}, which web.NOT_DRAWN says it does not")
    return problems


#: one panel of each kind, every optional field given
PRODUCED = {
    "bars": lambda: web.bars(["a", "b"], [0.2, 0.8], colors=["#000000", "#111111"], highlight=1, digits=2, visible=1),
    "heatmap": lambda: web.heatmap(np.eye(2), ["a", "b"], ["r", "s"], numbers=np.eye(2, dtype=bool), marks=[(0, 1)]),
    "tiles": lambda: web.tiles([np.eye(2)] * 2, cols=2, row_labels=["头"]),
    "lines": lambda: web.lines([web.series([0, 1], [1.0, 2.0])], bars=([1.0, 2.0], ["#000000", "#111111"])),
    "arrows": lambda: web.arrows([[1.0, 0.0]], ["q"], ["#000000"], lim=1),
}


def test_the_renderer_draws_every_declared_kind_and_reads_exactly_its_fields():
    assert contract_problems(JS.read_text(encoding="utf-8")) == []


def test_each_producer_writes_exactly_its_declared_fields_in_order():
    assert set(PRODUCED) == set(web.PANELS)
    for kind, make in PRODUCED.items():
        panel = make()
        assert getattr(web, kind).__name__ == kind and panel["kind"] == kind
        assert list(panel)[1:] == list(web.PANELS[kind]), f"web.{kind} writes {list(panel)[1:]}"
        web.check_view({"title": "", "panels": [panel]})
    assert list(web.series([0], [0])) == list(web.RECORDS["series"])
    assert list(PRODUCED["lines"]()["bars"]) == list(web.RECORDS["lines.bars"])
    assert list(web.cells(np.eye(2), 0, 1)) == list(web.RECORDS["cells"])
    assert "bars" not in web.lines([])  # optional: absent unless given (web.OPTIONAL)


@pytest.mark.parametrize("edit, named", [
    (("p.visible", "p.shown"), ["bars", "'visible'", "'shown'"]),
    (("    tiles: function (svg, p, narrow) {", "    tile: function (svg, p, narrow) {"), ["DRAW.tiles", "DRAW.tile"]),
    (("s.dash ?", "s.dashed ?"), ["DRAW.series", "'dashed'"]),
    (("if (p.colorbar) colorbar(svg, p, box.x", "if (p.colorbar) colorbar(svg, {}, box.x"), ["heatmap", "'vmin'"]),
])
def test_a_kind_or_field_one_side_lacks_is_named(edit, named):
    js = JS.read_text(encoding="utf-8")
    assert edit[0] in js
    found = "\n".join(contract_problems(js.replace(edit[0], edit[1])))
    for word in named:
        assert word in found, (word, found)


@pytest.mark.parametrize("change, named", [
    (lambda p: p.update(extra=1), "'extra'"),
    (lambda p: p.pop("accent"), "'accent'"),
    (lambda p: p.update(kind="pie"), "'pie'"),
])
def test_a_view_with_a_field_the_declaration_lacks_is_refused_naming_it(change, named):
    panel = PRODUCED["bars"]()
    change(panel)
    with pytest.raises(ValueError, match=named):
        web.check_view({"title": "", "panels": [panel]})


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
    (lambda: web.heatmap([[0.5]], ["a"], ["r"], cmap=3), "cmap"),
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


def test_a_heatmap_takes_a_figures_own_colormap():
    """A ListedColormap the still draws with (15's chunk roles) gives the page the same two colours."""
    from matplotlib.colors import ListedColormap

    stops = web.heatmap([[0.0, 1.0]], ["a", "b"], ["r"], cmap=ListedColormap(["#123456", "#abcdef"]))["stops"]
    assert (stops[0], stops[-1]) == ("#123456", "#abcdef")
