"""The self-checking exercises say right or wrong correctly."""
import pytest

from helpers import exercises


def test_row_checker(capsys):
    assert exercises.check_row("怎么", None) is None
    assert "还没有作答" in capsys.readouterr().out
    assert exercises.check_row("怎么", [0.25, 0.50, 0.12, 0.12]) is True
    assert "正确" in capsys.readouterr().out
    assert exercises.check_row("怎么", [0.25, 0.25, 0.25, 0.25]) is False
    out = capsys.readouterr().out
    assert "还不对" in out and "0.249, 0.505, 0.123, 0.123" in out
    with pytest.raises(ValueError, match="4 weights"):
        exercises.check_row("怎么", [0.5, 0.5])


def test_turn_checker(capsys):
    assert exercises.check_largest_after_turn("怎么") is True
    assert exercises.check_largest_after_turn("假") is False
    assert "最大的权重落在“怎么”上" in capsys.readouterr().out
    with pytest.raises(ValueError, match="must be one of"):
        exercises.check_largest_after_turn("猫")


def test_weighting_validation():
    from helpers.weighting import normalise_weights, weighted_average

    with pytest.raises(ValueError, match="raw weights must be >= 0"):
        normalise_weights([1, -1, 0, 0])
    with pytest.raises(ValueError, match="sum to 1"):
        weighted_average([[1, 0], [0, 1]], [0.7, 0.7])
    with pytest.raises(ValueError, match="weights has 3 entries but vectors has 2 rows"):
        weighted_average([[1, 0], [0, 1]], [0.2, 0.3, 0.5])


def test_fixed_weights_fail_content_weights_serve_both():
    from helpers.weighting import fixed_vs_content

    a, b = fixed_vs_content()
    assert a.fixed_on_target == pytest.approx(a.content_on_target)
    assert a.content_on_target > 0.7 and b.content_on_target > 0.7
    assert b.fixed_on_target < 0.2
