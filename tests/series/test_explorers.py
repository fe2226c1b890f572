"""Every explorer of the series: builds with a picture, never shows NaN, refuses values naming the
control; colours and titles that several notebooks share."""
import numpy as np
import pytest
from explorer_checks import factory_params
from printed_gaps import noisy_lines

from helpers import widgets
from helpers.render.explorer import Explorer


def test_dropdown_invalid_selection_names_the_control():
    e = widgets.cost_explorer()
    with pytest.raises(ValueError, match=r"model must be one of \['Llama-3.1-8B'.*got str 'GPT-9'"):
        e.set(model="GPT-9")
    with pytest.raises(ValueError, match=r"n must be one of \[1024, 2048"):
        e.set(n=1000)


def test_an_option_ruled_out_by_another_control_is_a_named_error_and_the_picture_follows():
    e = widgets.attention_layer_explorer()
    with pytest.raises(ValueError, match=r"kv must be one of \[1, 2, 4\], got int 8"):
        e.set(heads=4, kv=8)
    assert e.values["heads"] == 4 and e.state["shape"].num_heads == 4


_BUILT = {}


def built(name):
    """One instance per factory and test process: building is most of the cost."""
    if name not in _BUILT:
        _BUILT[name] = widgets.all_factories()[name]()
    return _BUILT[name]


@pytest.mark.parametrize("name", factory_params())
def test_every_explorer_builds_a_picture_and_never_shows_nan_or_leaves_its_range(name):
    """It builds an Explorer whose image shows its PNG; every float control typed to NaN is put
    back; every out-of-range or unknown value given to set() is refused naming the control; the
    readout never shows NaN, nor a gap's noisy digits (tests/support/printed_gaps.py: the live book
    shows this readout, the same on every CPU)."""
    import ipywidgets

    e = built(name)
    assert isinstance(e, Explorer), name
    assert not noisy_lines(e.readout.value), (name, noisy_lines(e.readout.value))
    assert e.png.startswith(b"\x89PNG") and e.image.value == e.png, name
    for control_name, control in e.controls.items():
        if isinstance(control, ipywidgets.FloatSlider):
            before = control.value
            control.value = float("nan")
            assert control.value == before, control_name
        with pytest.raises((ValueError, TypeError), match=rf"^{control_name} "):
            e.set(**{control_name: float("nan")})
        with pytest.raises((ValueError, TypeError), match=rf"^{control_name} "):
            e.set(**{control_name: 10 ** 9})
    assert "nan" not in e.readout.value.lower()


def _out_of_reach(control):
    """A value no control of this kind can give: NaN for a float slider, 10⁹ for an integer one or a
    text box, a word for a menu, text for a checkbox."""
    import ipywidgets

    if isinstance(control, ipywidgets.Text):
        return 10 ** 9
    if isinstance(control, ipywidgets.FloatSlider):
        return float("nan")
    if isinstance(control, ipywidgets.IntSlider):
        return 10 ** 9
    return "yes" if isinstance(control, ipywidgets.Checkbox) else "no such option"


def _compute_args_with(e, control, value):
    """compute()'s arguments now, with ``value`` where ``control``'s value goes; and the name the
    message must start with (the argument, or its entry for one that carries several controls)."""
    args = dict(e.compute_args())
    if control in args:
        return {**args, control: value}, control
    for arg, controls in type(e).compute_controls.items():
        if control in controls:
            rows = np.array(args[arg], dtype=object)
            index = (0,) * (rows.ndim - 1) + (controls.index(control),)
            rows[index] = value
            return {**args, arg: rows.tolist()}, arg + "".join(f"[{i}]" for i in index)
    return None, None


@pytest.mark.parametrize("name", factory_params())
def test_every_explorer_names_the_control_behind_a_bad_compute_value_and_the_state_it_takes(name):
    """compute() with a value none of its controls can give names that control as the learner sees
    it (its label), not the lesson function's internal argument or a KeyError of a lookup table;
    web_view, describe and draw given None or another explorer's state name the explorer and the
    state it takes."""
    e = built(name)
    cls = type(e).__name__
    for control_name, control in e.controls.items():
        args, shown = _compute_args_with(e, control_name, _out_of_reach(control))
        assert args is not None, f"{cls}: no compute() argument carries the control {control_name}"
        with pytest.raises((ValueError, TypeError)) as caught:
            e.compute(**args)
        message = str(caught.value)
        assert message.startswith(f"{shown} ") and f"“{control.description}” of {cls}" in message, message
    foreign = {"someone else's": np.zeros(2)}
    for method in ("web_view", "describe", "draw"):
        if getattr(type(e), method) is getattr(Explorer, method):
            continue
        for state in (None, foreign):
            with pytest.raises(TypeError, match=rf"^{cls}\.{method}: \w+ must be a state of this explorer \(.*, as "
                                                r"its compute\(\) returns.*\), got (None|a dict with keys \"someone else's\")"):
                getattr(e, method)(state)


@pytest.mark.parametrize("name", factory_params())
def test_a_masked_cell_on_the_book_page_has_the_colour_the_still_gives_it(name):
    """Where the still draws masked cells (a later key, a position the figure leaves out) in the
    masked grey (palette.MASKED: 08, 09, 11), the book's page does too (NaN cells, drawn in MASKED);
    where the still draws a masked weight as the 0 it is (the colormap's darkest: 05, 06, 12), the
    page draws the 0 and no grey. Read in the default state: the still's pixels, the page's levels."""
    import base64
    import io

    from matplotlib.colors import to_rgb
    from PIL import Image

    from helpers.render.palette import MASKED

    e = built(name)
    if type(e).web_view is Explorer.web_view:
        return
    matrices = [p for p in e.web_view(e.state)["panels"] if p["kind"] in ("heatmap", "tiles")]
    cells = [c for p in matrices for c in ([p["cells"]] if p["kind"] == "heatmap" else p["cells"])]
    page_grey = sum(base64.b64decode(c["bytes"]).count(255) for c in cells)  # 255: a NaN cell, drawn MASKED
    assert all(p["masked"] == MASKED for p in matrices)
    still = np.asarray(Image.open(io.BytesIO(e.png)).convert("RGB")).astype(int)
    still_grey = int((still == np.round(np.array(to_rgb(MASKED)) * 255).astype(int)).all(-1).sum())
    assert (page_grey > 0) == (still_grey > 200), (f"{name}: the page draws {page_grey} masked cells grey, "
                                                   f"the still {still_grey} pixels")


@pytest.mark.parametrize("factory", [widgets.query_weights_explorer, widgets.hand_calculation_explorer])
def test_orange_highlight_follows_the_largest_weight(factory):
    from matplotlib.colors import to_hex

    from helpers.plots import ACCENT

    e = factory()
    for q, expected in (((2.0, 0.0), [1]), ((0.0, 2.0), [2]), ((-2.0, -2.0), [3]), ((0.0, 0.0), [0, 1, 2, 3])):
        e.set(q1=q[0], q2=q[1])
        weights = e.state["weights"] if isinstance(e.state, dict) else e.state.weights
        orange = [i for i, bar in enumerate(e.bars.bars) if to_hex(bar.get_facecolor()) == ACCENT]
        assert orange == expected == [i for i, w in enumerate(weights) if w >= max(weights) - 1e-12], q


def test_orange_means_only_the_largest_weight_in_00_to_03():
    """q's arrows (02) and the weighted parts (03) take other colours than the highlight."""
    from helpers.render import palette

    assert palette.ACCENT not in palette.QKV_COLORS
    assert palette.ACCENT not in palette.PART_COLORS
    e = widgets.hand_calculation_explorer()
    part_colours = {a.arrow_patch.get_edgecolor() for a in e.vectors.arrows}
    from matplotlib.colors import to_rgba

    assert to_rgba(palette.ACCENT) not in part_colours


def test_titles_name_the_current_setting_so_the_preview_says_what_it_shows():
    e = widgets.query_weights_explorer()
    assert "q = [2.0, 0.0]" in e.bars.ax.get_title()
    e.set(q1=0.0, q2=2.0)
    assert "q = [0.0, 2.0]" in e.bars.ax.get_title()
    e = widgets.qkv_explorer()
    assert "[0.0, 0.0, 0.0, 1.0]（申请）" in e.panel.ax.get_title()
    e.actions["token"].value = "假"
    assert "[2.0, 0.0, 0.0, 0.0]（假）" in e.panel.ax.get_title()
    e.set(x0=0.5)
    assert e.panel.ax.get_title().endswith("[0.5, 0.0, 0.0, 0.0]")  # no token has this input
