"""helpers.reading: sinks and eviction, weight vs influence, dilution."""
import numpy as np
import pytest

from helpers import reading, scaled_dot_product_attention


def test_sink_bright_first_column_but_small_contribution():
    seq = reading.sink_sequence(24, strength=5.0)
    out, w = scaled_dot_product_attention(seq.q, seq.k, seq.v, causal=True)
    assert w[4:, 0].mean() > 0.85
    contribution = np.linalg.norm(w[:, :1] * seq.v[0], axis=1)
    assert contribution.max() < 0.011


def test_evicting_the_sink_hurts_keeping_it_does_not():
    seq = reading.sink_sequence(24, strength=5.0)
    only = reading.eviction_change(seq, 8, keep_first=0)
    with_first = reading.eviction_change(seq, 8, keep_first=1)
    assert (only[:8] == 0).all() and (with_first[:8] == 0).all()
    assert only[8:].mean() > 10 * with_first[8:].mean()


def test_window_mask():
    m = reading.window_mask(5, 2, keep_first=1)
    visible = np.isfinite(m)
    assert visible[4].tolist() == [True, False, False, True, True]
    assert visible[1].tolist() == [True, True, False, False, False]


def test_weight_and_influence_rankings_disagree_and_two_ways_agree():
    ex = reading.weight_vs_influence_example(0.05)
    assert ex["by_weight"][0] == 0 and ex["by_influence"][0] == 4
    np.testing.assert_allclose(reading.ablation_influence_analytic(ex["weights"], ex["values"]),
                               ex["influence"], atol=1e-12)
    big = reading.weight_vs_influence_example(3.0)
    assert big["by_influence"][0] == 0


def test_same_output_from_different_weights():
    ex = reading.weight_vs_influence_example()
    w2 = reading.same_output_weights(ex["weights"], ex["values"])
    assert (w2 >= -1e-12).all() and w2.sum() == pytest.approx(1.0)
    assert np.abs(w2 - ex["weights"]).max() > 0.05
    np.testing.assert_allclose(w2 @ ex["values"], ex["weights"] @ ex["values"], atol=1e-12)
    with pytest.raises(ValueError, match="more positions"):
        reading.same_output_weights([0.5, 0.5], [[1.0, 0.0], [0.0, 1.0]])


@pytest.mark.parametrize("delta", [2.0, 5.0, 8.0])
def test_dilution_simulation_agrees_with_closed_form(delta):
    # stated tolerance: 0.02 absolute on the mean weight
    for n in (4, 64, 1024, 16384):
        sim = reading.dilution_simulated(delta, n, sigma=0.5, trials=max(2, min(200, 300_000 // n)))
        assert sim == pytest.approx(float(reading.dilution_weight(delta, n, sigma=0.5)), abs=0.02)
    assert float(reading.dilution_weight(delta, 0.0 + reading.half_weight_n(delta))) == pytest.approx(0.5)
    assert float(reading.dilution_weight(delta, 1 + np.exp(delta))) == pytest.approx(0.5)


def test_dilution_validation():
    with pytest.raises(ValueError, match="n must be >= 1"):
        reading.dilution_weight(1.0, 0)
    with pytest.raises(ValueError, match="value_scale"):
        reading.weight_vs_influence_example(float("nan"))
