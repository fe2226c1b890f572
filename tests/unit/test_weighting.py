"""helpers.weighting: fixed weights against weights computed from content (01)."""
import pytest

from helpers.weighting import fixed_vs_content, normalise_weights, weighted_average


def test_fixed_weights_miss_the_item_content_weights_find_it():
    a, b = fixed_vs_content()
    assert a.fixed_on_target == pytest.approx(a.content_on_target)
    assert a.content_on_target > 0.7 and b.content_on_target > 0.7
    assert b.fixed_on_target < 0.2
    # the weight the fixed vector puts elsewhere lands on a position that carries no item
    assert b.fixed_weights.argmax() == 1 and b.content_weights.argmax() == 0


def test_weighting_validation():
    with pytest.raises(ValueError, match="raw weights must be >= 0"):
        normalise_weights([1, -1, 0, 0])
    with pytest.raises(ValueError, match="sum to 1"):
        weighted_average([[1, 0], [0, 1]], [0.7, 0.7])
    with pytest.raises(ValueError, match="weights has 3 entries but vectors has 2 rows"):
        weighted_average([[1, 0], [0, 1]], [0.2, 0.3, 0.5])
