"""Every explorer of the series: builds with a picture, never shows NaN, refuses values naming the
control; colours and titles that several notebooks share."""
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


@pytest.mark.parametrize("name", factory_params())
def test_every_explorer_builds_a_picture_and_never_shows_nan_or_leaves_its_range(name):
    """It builds an Explorer whose image shows its PNG; every float control typed to NaN is put
    back; every out-of-range or unknown value given to set() is refused naming the control; the
    readout never shows NaN, nor a gap's noisy digits (tests/support/printed_gaps.py: the live book
    shows this readout, the same on every CPU). (One instance per factory: building is most of the cost.)"""
    import ipywidgets

    e = widgets.all_factories()[name]()
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
