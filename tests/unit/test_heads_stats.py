"""helpers.heads.stats: percentiles in a null distribution and the spread over sequences."""
import numpy as np
import pytest

from helpers.heads import stats as nulls


def test_percentile_counts_the_share_below_with_ties_half():
    null = np.arange(10.0)
    assert nulls.percentile(100.0, null) == 100.0
    assert nulls.percentile(-1.0, null) == 0.0
    assert nulls.percentile(4.5, null) == 50.0
    assert nulls.percentile(4.0, null) == 45.0  # 4 below, one tie
    assert nulls.percentile(9.0, null) == 95.0  # the largest member of its own null is not "above all"
    with pytest.raises(ValueError, match="null"):
        nulls.percentile(1.0, [])
    with pytest.raises(ValueError, match="value"):
        nulls.percentile(float("nan"), null)


def test_spread_is_seeded_and_its_interval_holds_the_mean():
    values = np.random.default_rng(3).normal(2.0, 1.0, 12)
    a, b = nulls.spread(values), nulls.spread(values)
    assert a == b
    assert a["min"] <= a["low"] <= a["mean"] <= a["high"] <= a["max"] and a["n"] == 12
    assert a["mean"] == pytest.approx(values.mean())
    narrow = nulls.spread(values, level=0.5)
    assert a["low"] < narrow["low"] < narrow["high"] < a["high"]
    same = nulls.spread(np.full(5, 1.5))
    assert same["low"] == same["high"] == 1.5
    with pytest.raises(ValueError, match="level must be below 1"):
        nulls.spread(values, level=1.0)


def test_spread_text_writes_the_mean_interval_and_percentile():
    values = np.array([1.0, 2.0, 3.0])
    s = nulls.spread(values)
    assert nulls.spread_text(values) == f"+2.00 [{s['low']:+.2f}, {s['high']:+.2f}]"
    assert nulls.spread_text(values, signed=False).startswith("2.00 [")
    assert nulls.spread_text(values, np.arange(10.0)).endswith(" 25")  # 2.0 in 0…9: 2 below, one tie
    assert nulls.spread_text(-values, digits=1).startswith("-2.0 [")
    with pytest.raises(ValueError, match="digits"):
        nulls.spread_text(values, digits=-1)
    with pytest.raises(TypeError, match="signed"):
        nulls.spread_text(values, signed="yes")


def test_ranks_give_ties_their_mean_rank():
    assert nulls.ranks([3.0, 1.0, 3.0, 2.0]).tolist() == [3.5, 1.0, 3.5, 2.0]


def test_rank_correlation_is_spearman():
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    assert nulls.rank_correlation(x, x ** 3) == pytest.approx(1.0)  # monotone, not linear
    assert nulls.rank_correlation(x, -np.exp(x)) == pytest.approx(-1.0)
    # hand-computed: ranks (1,2,3,4,5) vs (2,1,4,3,5) → 1 − 6·Σd²/(n(n²−1)) = 1 − 6·4/120 = 0.8
    assert nulls.rank_correlation(x, [2.0, 1.0, 4.0, 3.0, 5.0]) == pytest.approx(0.8)
    with pytest.raises(ValueError, match="same number"):
        nulls.rank_correlation(x, x[:3])
    with pytest.raises(ValueError, match="different values"):
        nulls.rank_correlation(x, np.ones(5))


def test_difference_spread_tests_the_difference_not_the_overlap():
    rng = np.random.default_rng(3)
    a, b = rng.normal(0.0, 1.0, 12), rng.normal(1.2, 1.0, 12)
    d = nulls.difference_spread(a, b)
    assert d["mean"] == pytest.approx(a.mean() - b.mean())
    assert d["low"] < d["mean"] < d["high"]
    sa, sb = nulls.spread(a), nulls.spread(b)
    # independent errors add in quadrature: the difference's interval is narrower than the two widths summed
    assert d["high"] - d["low"] < (sa["high"] - sa["low"]) + (sb["high"] - sb["low"])
    assert nulls.difference_text([1.0, 1.0], [0.0, 0.0]) == "+1.00 [+1.00, +1.00]"
    with pytest.raises(ValueError, match="level"):
        nulls.difference_spread(a, b, level=1.0)
    with pytest.raises(ValueError, match="control"):
        nulls.difference_spread(a, [[1.0]])
