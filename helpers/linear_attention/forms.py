"""Linear attention's three forms, equal up to rounding (``15_fixed_state``).

Katharopoulos et al. (2020, "Transformers are RNNs") replace ``e^(q·k)`` by ``φ(q)·φ(k)`` with a
positive feature map ``φ(x) = elu(x) + 1`` (:func:`feature_map`). Query ``i`` then reads::

    out_i = Σ_{j≤i} (φq_i·φk_j) v_j / Σ_{j≤i} φq_i·φk_j

- :func:`parallel`: that sum written out, an ``n × n`` table of weights as in softmax attention;
- :func:`recurrent`: the same sum regrouped, ``φq_iᵀ (Σ_{j≤i} φk_j v_jᵀ)``: a state ``S`` of
  ``d_k × d_v`` numbers and a normaliser ``z`` of ``d_k``, each grown by one outer product per token,
  read *after* the token's own key is added (its weight on itself is part of the sum);
- :func:`chunkwise`: blocks of ``chunk`` tokens, the parallel form inside a block, the state between
  blocks (how trained kernels run it).

The state's size does not depend on ``n`` (:func:`state_numbers`): that is the whole saving, and
the price — everything seen is summed into those numbers — is what the rest of the notebook measures.
Inputs are ``(n, d)`` for one head or ``(n, heads, d)`` (positions first, as ``06``'s layers).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..render.validation import as_real_array, positive_int


def feature_map(x) -> np.ndarray:
    """``elu(x) + 1``: ``x + 1`` for ``x > 0``, ``e^x`` otherwise — positive, so every weight is positive."""
    x = as_real_array("x", x, keep_float_dtype=True)
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


def _heads(name, x):
    arr = as_real_array(name, x, ndim=(2, 3), keep_float_dtype=True)
    return arr if arr.ndim == 3 else arr[:, None, :]


def _inputs(phi_q, phi_k, v):
    q, k, v_arr = _heads("phi_q", phi_q), _heads("phi_k", phi_k), _heads("v", v)
    if q.shape != k.shape or v_arr.shape[:2] != q.shape[:2]:
        raise ValueError(f"phi_q and phi_k must have the same shape (n, [heads,] d_k) and v (n, [heads,] d_v) the "
                         f"same n and heads, got {np.shape(phi_q)}, {np.shape(phi_k)}, {np.shape(v)}")
    if (q < 0).any() or (k < 0).any():
        raise ValueError("phi_q and phi_k must be features (no negative entry): pass feature_map(q), feature_map(k)")
    return q, k, v_arr, np.ndim(phi_q) == 2


def _shaped(out, one_head):
    return out[:, 0, :] if one_head else out


def parallel(phi_q, phi_k, v) -> np.ndarray:
    """``out`` ``(n, [heads,] d_v)`` from the ``n × n`` table ``(φq_i·φk_j)`` masked to ``j ≤ i``, each
    row divided by its sum."""
    q, k, v, one = _inputs(phi_q, phi_k, v)
    n = len(q)
    table = np.einsum("ihd,jhd->hij", q, k) * np.tril(np.ones((n, n)))
    weights = table / table.sum(axis=-1, keepdims=True)
    return _shaped(np.einsum("hij,jhd->ihd", weights, v), one)


def weights(phi_q, phi_k) -> np.ndarray:
    """The parallel form's weights ``(heads, n, n)`` (one head: ``(n, n)``): every row sums to 1."""
    q, k, _, one = _inputs(phi_q, phi_k, phi_k)
    n = len(q)
    table = np.einsum("ihd,jhd->hij", q, k) * np.tril(np.ones((n, n)))
    table = table / table.sum(axis=-1, keepdims=True)
    return table[0] if one else table


@dataclass(frozen=True)
class State:
    """The recurrent state after some tokens: ``S`` ``(heads, d_k, d_v)`` = Σ φk vᵀ and ``z``
    ``(heads, d_k)`` = Σ φk."""

    S: np.ndarray
    z: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "S", as_real_array("S", self.S, ndim=3))
        object.__setattr__(self, "z", as_real_array("z", self.z, ndim=2))
        if self.S.shape[:2] != self.z.shape:
            raise ValueError(f"S (heads, d_k, d_v) and z (heads, d_k) must have the same heads and d_k, got S "
                             f"{self.S.shape} and z {self.z.shape}")

    @property
    def numbers(self) -> int:
        """How many numbers the state holds (all heads)."""
        return int(self.S.size + self.z.size)


def state_numbers(d_k: int, d_v: int, heads: int = 1) -> int:
    """Numbers in the state of ``heads`` heads: ``heads × (d_k·d_v + d_k)``, whatever the length."""
    return positive_int("heads", heads) * (positive_int("d_k", d_k) * positive_int("d_v", d_v) + d_k)


def kept_numbers(n, heads: int = 8, d: int = 64) -> dict:
    """Numbers one layer keeps after ``n`` tokens (a number or an array of lengths): softmax attention's
    KV cache ``n × 2 × heads × d``; linear attention's state :func:`state_numbers` ``(d, d, heads)``."""
    n = as_real_array("n", n, keep_float_dtype=False)
    return {"cache": n * 2 * positive_int("heads", heads) * positive_int("d", d),
            "state": np.full_like(n, state_numbers(d, d, heads))}


def recurrent(phi_q, phi_k, v) -> tuple:
    """``(out, state)``: one token at a time, ``S += φk_t v_tᵀ``, ``z += φk_t``, then
    ``out_t = φq_tᵀ S / φq_tᵀ z``."""
    q, k, v, one = _inputs(phi_q, phi_k, v)
    n, h, d_k = q.shape
    S, z = np.zeros((h, d_k, v.shape[-1])), np.zeros((h, d_k))
    out = np.zeros((n, h, v.shape[-1]))
    for t in range(n):
        S = S + k[t][:, :, None] * v[t][:, None, :]
        z = z + k[t]
        out[t] = np.einsum("hd,hde->he", q[t], S) / np.einsum("hd,hd->h", q[t], z)[:, None]
    return _shaped(out, one), State(S, z)


def chunkwise(phi_q, phi_k, v, chunk: int) -> tuple:
    """``(out, state)`` block by block: inside a block of ``chunk`` tokens the parallel form; from
    earlier blocks, the state carried over (``φq S`` and ``φq z``)."""
    q, k, v, one = _inputs(phi_q, phi_k, v)
    chunk = positive_int("chunk", chunk, maximum=1 << 20)
    n, h, d_k = q.shape
    S, z = np.zeros((h, d_k, v.shape[-1])), np.zeros((h, d_k))
    out = np.zeros((n, h, v.shape[-1]))
    for start in range(0, n, chunk):
        qc, kc, vc = q[start:start + chunk], k[start:start + chunk], v[start:start + chunk]
        m = len(qc)
        inside = np.einsum("ihd,jhd->hij", qc, kc) * np.tril(np.ones((m, m)))
        top = np.einsum("ihd,hde->ihe", qc, S) + np.einsum("hij,jhe->ihe", inside, vc)
        bottom = np.einsum("ihd,hd->ih", qc, z) + inside.sum(axis=-1).T
        out[start:start + m] = top / bottom[:, :, None]
        S = S + np.einsum("jhd,jhe->hde", kc, vc)
        z = z + kc.sum(axis=0)
    return _shaped(out, one), State(S, z)
