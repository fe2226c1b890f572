"""helpers.scaling: the √d experiments (std of q·k, saturation, the score pool, the Jacobian)."""
import numpy as np
import pytest

from helpers import scaling, softmax


@pytest.mark.parametrize("d", [2, 16, 128])
def test_dot_product_std_is_sqrt_d(d):
    # 20 000 samples: the std estimate's relative error is about 1/sqrt(2N) = 0.5%; allow 3%
    assert scaling.dot_product_std(d) == pytest.approx(np.sqrt(d), rel=0.03)


def test_article_sqrt_d_figures():
    assert round(scaling.dot_product_std(2), 1) == 1.4
    assert round(scaling.dot_product_std(128), 1) == 11.3
    assert round(scaling.mean_max_weight(5, 128, scaled=False), 2) == 0.93
    assert round(scaling.mean_max_weight(5, 128, scaled=True), 2) == 0.46


def test_score_pool_matches_literal_simulation():
    pool = scaling.ScorePool(trials=200)
    for d in (2, 128):
        literal = scaling.random_scores(5, d, 4000)
        pooled = pool.scores(5, d)
        assert np.std(pooled) == pytest.approx(np.std(literal), rel=0.1)
        # mean max weight unscaled, within Monte-Carlo tolerance
        from helpers import softmax

        assert softmax(pooled).max(-1).mean() == pytest.approx(softmax(literal).max(-1).mean(), abs=0.05)
    with pytest.raises(ValueError, match="d must be one of"):
        pool.scores(5, 3)


def test_jacobian_closed_form_and_saturation():
    s = scaling.standard_scores(6)
    p = softmax(s)
    assert scaling.jacobian_norms(p[None])[0] == pytest.approx(np.linalg.norm(scaling.softmax_jacobian(p)))
    # numerical derivative agrees with diag(p) - p pᵀ
    eps = 1e-6
    numeric = np.array([(softmax(s + eps * np.eye(6)[j]) - softmax(s - eps * np.eye(6)[j])) / (2 * eps)
                        for j in range(6)]).T
    np.testing.assert_allclose(numeric, scaling.softmax_jacobian(p), atol=1e-8)
    rows = scaling.jacobian_vs_temperature(s, [1, 4, 32])
    assert rows[0][2] > rows[1][2] > rows[2][2] and rows[2][2] < 1e-3
