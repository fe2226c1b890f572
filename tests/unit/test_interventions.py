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
