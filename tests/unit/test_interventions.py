"""helpers.interventions: the four words both forward passes take (11_learning_a_circuit, 12_heads_at_work)."""
import numpy as np
import pytest

from helpers import interventions
from helpers.interventions import Mean, Patch, Replace, Zero


def test_check_keeps_the_words_in_layer_order_and_at_layer_picks_by_kind():
    z, stream = np.zeros((3, 2)), np.ones((1, 3, 4))
    checked = interventions.check("interventions", {(1, 0): Replace(z), (0, 1): Zero(), (1, 1): Patch(k=stream),
                                                    (0, 0): Mean()}, 2, 2)
    assert list(checked) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert set(interventions.at_layer(checked, 0, (Zero, Mean))) == {0, 1}
    assert list(interventions.at_layer(checked, 1, Patch)) == [1]
    assert checked[(1, 1)].streams() == {"k": stream}
    assert interventions.check("interventions", None, 2, 2) == {}


def test_bad_words_are_named_as_the_caller_wrote_them():
    with pytest.raises(TypeError, match=r"^interventions must be a dict \{\(layer, head\)"):
        interventions.check("interventions", [(0, 0)], 2, 2)
    with pytest.raises(TypeError, match=r"^interventions\[\(0, 0\)\] must be Zero\(\).*write Zero\(\) with brackets"):
        interventions.check("interventions", {(0, 0): Zero}, 2, 2)
    with pytest.raises(TypeError, match=r"^interventions\[\(0, 0\)\] must be Zero\(\)"):
        interventions.check("interventions", {(0, 0): np.zeros(3)}, 2, 2)
    with pytest.raises(ValueError, match=r"^interventions's keys: layer index 5"):
        interventions.check("interventions", {(5, 0): Zero()}, 2, 2)
    with pytest.raises(ValueError, match="Patch needs at least one of q=, k=, v="):
        Patch()


def test_at_layer_names_a_layer_or_kind_it_cannot_use_instead_of_finding_nothing():
    """A layer given as text would match no key: {} and a forward pass silently left unchanged."""
    checked = interventions.check("interventions", {(0, 1): Zero()}, 2, 2)
    with pytest.raises(TypeError, match=r"^layer must be an integer, got str '0'"):
        interventions.at_layer(checked, "0", Zero)
    for layer in (0.0, True, None):
        with pytest.raises(TypeError, match=r"^layer must be an integer"):
            interventions.at_layer(checked, layer, Zero)
    with pytest.raises(ValueError, match=r"^layer must be >= 0, got -1"):
        interventions.at_layer(checked, -1, Zero)
    for kind in (Zero(), (), "Zero", np.zeros(3), (Zero, int)):
        with pytest.raises(TypeError, match=r"^kind must be one of the classes Zero, Mean, Replace, Patch"):
            interventions.at_layer(checked, 0, kind)
    with pytest.raises(TypeError, match=r"^checked must be a dict"):
        interventions.at_layer([((0, 1), Zero())], 0, Zero)
    with pytest.raises(TypeError, match=r"^checked must be what helpers.interventions.check returns.*got the keys \[3\]"):
        interventions.at_layer({3: Zero()}, 0, Zero)
    assert interventions.at_layer(checked, np.int64(0), (Zero, Mean)) == {1: checked[(0, 1)]}
