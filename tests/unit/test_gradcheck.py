"""helpers.gradcheck: central finite differences, shared by notebooks 10 and 11."""
import numpy as np
import pytest

from helpers.gradcheck import central_differences


def test_central_differences_of_a_quadratic_are_its_gradient():
    a = np.array([[2.0, -1.0], [0.5, 3.0]])
    params = {"w": np.array([[0.3, -0.2], [1.0, 0.1]]), "b": np.array([0.5, -1.5])}

    def loss(p):
        return float(np.sum(a * p["w"] ** 2) + np.sum(p["b"] ** 3))

    grads = central_differences(loss, params)
    np.testing.assert_allclose(grads["w"], 2 * a * params["w"], atol=1e-8)
    np.testing.assert_allclose(grads["b"], 3 * params["b"] ** 2, atol=1e-8)
    # the caller's arrays are left as they were
    np.testing.assert_array_equal(params["w"], [[0.3, -0.2], [1.0, 0.1]])


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="eps must be"):
        central_differences(lambda p: 0.0, {"w": np.zeros(2)}, eps=0.0)
    with pytest.raises(TypeError, match="loss must be a function"):
        central_differences(3.0, {"w": np.zeros(2)})
