"""helpers.render.panels: the grid arithmetic the figures share."""
import pytest

from helpers.render.panels import ceil_div


@pytest.mark.parametrize(("count", "per", "expected"), [(0, 3, 0), (1, 3, 1), (3, 3, 1), (4, 3, 2), (32, 8, 4),
                                                         (33, 8, 5), (5, 2, 3)])
def test_ceil_div_is_the_rows_a_grid_needs(count, per, expected):
    assert ceil_div(count, per) == expected


@pytest.mark.parametrize(("count", "per", "named"), [(-1, 2, "count"), (3, 0, "per"), (2.5, 2, "count"),
                                                     ("4", 2, "count")])
def test_ceil_div_refuses_bad_sizes_naming_the_argument(count, per, named):
    with pytest.raises((TypeError, ValueError), match=named):
        ceil_div(count, per)
