"""helpers.interventions: the four words both forward passes take (11_learning_a_circuit, 12_heads_at_work),
each applying itself through the hook a forward pass hands it, and the check of the dict that holds them."""
from types import SimpleNamespace

import numpy as np
import pytest

from helpers.interventions import Mean, Patch, Replace, Zero
from helpers.render.validation import interventions as check


def test_check_keeps_the_words_in_layer_order():
    z, stream = np.zeros((3, 2)), np.ones((1, 3, 4))
    checked = check("interventions", {(1, 0): Replace(z), (0, 1): Zero(), (1, 1): Patch(k=stream),
                                      (0, 0): Mean()}, 2, 2)
    assert list(checked) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert checked[(1, 1)].streams() == {"k": stream}
    assert check("interventions", None, 2, 2) == {}


def test_bad_words_are_named_as_the_caller_wrote_them():
    with pytest.raises(TypeError, match=r"^interventions must be a dict \{\(layer, head\)"):
        check("interventions", [(0, 0)], 2, 2)
    with pytest.raises(TypeError, match=r"^interventions\[\(0, 0\)\] must be Zero\(\).*write Zero\(\) with brackets"):
        check("interventions", {(0, 0): Zero}, 2, 2)
    with pytest.raises(TypeError, match=r"^interventions\[\(0, 0\)\] must be Zero\(\)"):
        check("interventions", {(0, 0): np.zeros(3)}, 2, 2)
    with pytest.raises(ValueError, match=r"^interventions's keys: layer index 5"):
        check("interventions", {(5, 0): Zero()}, 2, 2)
    with pytest.raises(ValueError, match="Patch needs at least one of q=, k=, v="):
        Patch()


class FakeHook:
    """A forward pass's hook reduced to what the words ask of it: it records what they ask."""

    ids_shape, ids_name = (2, 3), "ids"

    def __init__(self):
        self.asked = []

    def head_output(self, name, z):
        self.asked.append(("head_output", name))
        return np.asarray(z, dtype=float)

    def residual_stream(self, name, x):
        self.asked.append(("residual_stream", name))
        return np.asarray(x, dtype=float)

    def rerun(self, q=None, k=None, v=None):
        self.asked.append(("rerun", tuple(n for n, s in zip("qkv", (q, k, v)) if s is not None)))
        return np.full((2, 3, 2), 7.0)


def test_each_word_applies_itself_through_the_hook():
    z, hook = np.arange(12.0).reshape(2, 3, 2), FakeHook()
    np.testing.assert_array_equal(Zero().apply(z, hook), np.zeros_like(z))
    np.testing.assert_array_equal(Mean().apply(z, hook), z.mean(axis=0))
    given = np.ones((3, 2))
    assert Replace(given).apply(z, hook) is given
    np.testing.assert_array_equal(Patch(k=np.ones((2, 3, 4))).apply(z, hook), np.full((2, 3, 2), 7.0))
    assert hook.asked == [("rerun", ("k",))]


def test_each_word_checks_its_own_arrays_with_the_hook_and_names_where_it_is():
    hook = FakeHook()
    assert Zero().checked("interventions[(1, 0)]", hook) == Zero()
    assert Mean().checked("interventions[(1, 0)]", hook) == Mean()
    Replace([[1.0, 2.0]] * 3).checked("interventions[(1, 0)]", hook)
    Patch(q=np.ones((2, 3, 4)), v=np.ones((2, 3, 4))).checked("interventions[(1, 1)]", hook)
    assert hook.asked == [("head_output", "interventions[(1, 0)].z"), ("residual_stream", "interventions[(1, 1)].q"),
                          ("residual_stream", "interventions[(1, 1)].v")]
    one = SimpleNamespace(ids_shape=(3,), ids_name="ids")
    with pytest.raises(ValueError, match=r"^where: Mean\(\) averages over a batch, so ids must be a \(batch ≥ 2, n\) "
                                         r"array, got shape \(3,\)"):
        Mean().checked("where", one)
