"""helpers.render.explorer: the explorer machinery (set(), the memo, naive mode), on 00's explorer."""
import io

import numpy as np
import pytest
from PIL import Image

from helpers import widgets
from helpers.explorers.index import QueryWeightsExplorer
from helpers.render.explorer import RESET_LABEL


def test_explorer_set_batches_one_update_and_rejects_unknown():
    e = widgets.query_weights_explorer()
    before = e.renders
    e.set(q1=0.0, q2=2.0)
    assert e.renders == before + 1
    assert np.argmax(e.state["weights"]) == 2  # q = [0, 2] points at 怎么's key
    with pytest.raises(ValueError, match="unknown control"):
        e.set(q3=1.0)


def test_naive_mode_shows_the_same_numbers():
    fast, naive = widgets.query_weights_explorer(), widgets.query_weights_explorer(naive=True)
    for e in (fast, naive):
        e.set(q1=-1.0, q2=1.5)
    np.testing.assert_array_equal(fast.state["weights"], naive.state["weights"])
    assert fast.readout.value == naive.readout.value
    assert naive.fig is not fast.fig


def test_state_is_cached_per_control_values():
    e = widgets.query_weights_explorer()
    e.set(q1=1.0)
    first = e.state
    e.set(q1=1.5)
    e.set(q1=1.0)
    assert e.state is first


def test_the_memo_stays_within_its_bytes():
    class Small(QueryWeightsExplorer):
        memo_bytes = 150_000  # a few PNGs

    e = Small()
    for q in np.linspace(-3, 3, 25):
        e.set(q1=float(round(q, 1)))
    sizes = e.cache_bytes()
    assert 0 < sizes["memo"] <= 150_000 and len(e._cache) >= 1
    assert sizes["stamps"] > 0


def test_holding_nests_and_only_the_end_of_a_set_updates():
    e = widgets.query_weights_explorer()
    before = e.renders
    with e.holding():
        with e.holding():
            e.controls["q1"].value = 1.0
        assert e.held
        e.controls["q2"].value = 1.0
    assert not e.held and e.renders == before  # nothing drawn while held
    e.update()
    assert e.renders == before + 1 and e.state["q"].tolist() == [1.0, 1.0]


def test_compute_args_changes_nothing():
    e = widgets.hand_calculation_explorer()
    e.set(k1=2.5)  # 假's k[0], edited through its slider
    k, v = e.k.copy(), e.v.copy()
    first = e.compute_args()
    assert e.compute_args() == first
    np.testing.assert_array_equal(e.k, k)
    np.testing.assert_array_equal(e.v, v)
    assert first["k"][1] == (2.5, k[1, 1])


def test_a_set_inside_someone_elses_hold_leaves_the_update_to_them():
    e = widgets.query_weights_explorer()
    before = e.renders
    with e.holding():
        e.set(q1=2.0)
        e.set(q2=-1.0)
        assert e.renders == before
    e.update()
    assert e.renders == before + 1 and e.state["q"].tolist() == [2.0, -1.0]


def test_restore_defaults_is_the_button_and_survives_a_full_memo():
    class Small(QueryWeightsExplorer):
        memo_bytes = 60_000  # about one PNG: the initial state is pushed out

    e = Small()
    png, values = e.png, dict(e.values)
    for q in np.linspace(-3, 3, 13):
        e.set(q1=float(round(q, 1)), q2=float(round(-q, 1)))
    e.reset_button.click()  # recomputed when the memo lost it: the same picture
    assert e.reset_button.description == RESET_LABEL
    assert e.values == values and e.png == png


def test_picture_variants_are_drawn_up_front_and_a_move_to_one_draws_nothing():
    from helpers.explorers.index import QueryWeightsExplorer

    class Warm(QueryWeightsExplorer):
        def picture_variants(self):
            return [{"q1": 1.0}, {"q1": 1.5, "q2": -1.0}]

    e = Warm()
    shown = e.png
    e.render = lambda: pytest.fail("a move to a warmed state drew its picture again")
    e.set(q1=1.5, q2=-1.0)
    e.set(q1=1.0, q2=e.defaults["q2"])
    assert e.png != shown and e.readout.value
    e.restore_defaults()
    assert e.png == shown  # the figure was put back to the shown state after warming


def test_a_preview_with_its_readout_draws_the_readout_between_the_hint_and_the_picture():
    class WithReadout(QueryWeightsExplorer):
        preview_readout = True

    plain, with_readout = QueryWeightsExplorer(), WithReadout()
    heights = [Image.open(io.BytesIO(e.preview_png())).height for e in (plain, with_readout)]
    assert heights[1] > heights[0]  # one band more, as tall as the readout's lines
    text = with_readout.readout_text()
    assert "<" not in text and text.strip()  # the readout's HTML as plain text
    assert all(len(line) <= with_readout.figsize[0] * 72 / 4.8 for line in text.split("\n"))


def test_compute_names_the_control_behind_a_bad_value_as_the_learner_sees_it():
    """A NaN for one of 01's sliders names the slider by its label, not the argument of the lesson
    function it reaches (raw)."""
    e = widgets.weighted_average_explorer()
    with pytest.raises(ValueError, match=r"^w0 must be a finite number, got nan \(w0 is the slider “年” of "
                                         r"WeightedAverageExplorer, 0…1\)$"):
        e.compute(w0=float("nan"), w1=0.25, w2=0.25, w3=0.25)
    with pytest.raises(ValueError, match=r"^w3 must be <= 1.0, got 7.0 \(w3 is the slider “申请”"):
        e.compute(0.25, 0.25, 0.25, 7.0)                     # positional, as a learner may call it
    with pytest.raises(TypeError, match=r"^WeightedAverageExplorer.compute\(self, w0, w1, w2, w3\): missing"):
        e.compute(0.25)
    with pytest.raises(ValueError, match=r"^w1 must be a finite number, got nan \(w1 is the slider “假”"):
        e.set(w1=float("nan"))                               # set() says the same
    assert e.compute.__doc__ == type(e).compute.__wrapped__.__doc__


def test_an_argument_that_carries_several_sliders_names_the_entry_and_its_slider():
    """03's compute(q, k, v): q is the two q sliders, each k and v row what the k and v sliders edit."""
    e = widgets.hand_calculation_explorer()
    args = e.compute_args()
    k = [list(row) for row in args["k"]]
    k[2][1] = float("nan")
    with pytest.raises(ValueError, match=r"^k\[2\]\[1\] must be a finite number, got nan \(k\[2\]\[1\] is set by the "
                                         r"slider “k\[1\]” of HandCalculationExplorer, -3…3\)$"):
        e.compute(**{**args, "k": k})
    with pytest.raises(ValueError, match=r"^q\[0\] must be <= 3.0, got 9.0 \(q\[0\] is set by the slider “q\[0\]”"):
        e.compute(**{**args, "q": (9.0, 0.0)})
    with pytest.raises(ValueError, match=r"^q must hold 2 numbers along its last axis, got shape \(3,\) \(q is set by "
                                         r"the controls “q\[0\]”, “q\[1\]” of HandCalculationExplorer\)$"):
        e.compute(**{**args, "q": (1.0, 2.0, 3.0)})


def test_a_state_that_is_not_this_explorers_names_the_explorer_and_the_state_it_takes():
    e, other = widgets.query_weights_explorer(), widgets.weighted_average_explorer()
    for method in ("web_view", "describe", "draw"):
        with pytest.raises(TypeError, match=rf"^QueryWeightsExplorer\.{method}: state must be a state of this explorer "
                                            r"\(a dict with keys 'q', 'weights', as its compute\(\) returns; "
                                            r"explorer\.state is the one shown now\), got None$"):
            getattr(e, method)(None)
    with pytest.raises(TypeError, match=r"got a dict with keys 'vector', 'weights', lacking 'q'$"):
        e.web_view(other.state)
    with pytest.raises(TypeError, match=r"got a dict with keys 'q', 'weights', lacking 'vector'$"):
        other.describe(state=e.state)                        # by keyword too
    assert e.web_view(e.state)["panels"] and e.describe(state=e.state) == e.readout.value
