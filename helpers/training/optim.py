"""``10_learning_to_attend``'s optimiser: Adam on a dict of parameter arrays, updated in place.

:class:`Adam` knows nothing about the model: it takes ``params`` and ``grads`` as dicts with the
same keys, so any model that keeps its parameters in a dict (one head here, a deeper one elsewhere)
can use it. :data:`LEARNING_RATE` is the notebook's step size.
"""
from __future__ import annotations

import numpy as np

from ..render.validation import positive_float

LEARNING_RATE = 0.02


class Adam:
    """Adam (Kingma & Ba 2015) with the usual β₁ = 0.9, β₂ = 0.999, ε = 1e-8."""

    def __init__(self, lr: float = LEARNING_RATE, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8):
        self.lr = positive_float("lr", lr)
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.t = 0
        self.m: dict = {}
        self.v: dict = {}

    def step(self, params: dict, grads: dict) -> None:
        """Update ``params`` in place."""
        self.t += 1
        for name, g in grads.items():
            m = self.m[name] = self.beta1 * self.m.get(name, 0.0) + (1 - self.beta1) * g
            v = self.v[name] = self.beta2 * self.v.get(name, 0.0) + (1 - self.beta2) * g * g
            m_hat = m / (1 - self.beta1 ** self.t)
            v_hat = v / (1 - self.beta2 ** self.t)
            params[name] -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)
