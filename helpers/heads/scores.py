"""Three scores of a head read from its attention weights, and choosing heads by score (``12_heads_at_work``).

The scores read any array ``(…, n, n)`` of causal attention rows:

- **previous-token**: mean over queries ``i = 1 … n−1`` of ``A[i, i−1]`` (:func:`helpers.reading.previous_token_score`,
  shared with ``11``);
- **sink**: mean over queries ``i = 4 … n−1`` of ``A[i, 0]`` (``09``'s first-position statistic);
- **induction**: on ``[first token] + r + r`` (``r`` = ``T`` distinct random tokens), mean over the
  second copy's queries ``i = T+1 … 2T`` of ``A[i, i−T+1]``, the position right after the first
  occurrence of the current token (Olsson et al. 2022; ARENA / TransformerLens take the diagonal
  at offset ``−T+1`` of the pattern in the same way).
"""
from __future__ import annotations

import numpy as np

from ..reading import SINK_SKIP, attention_patterns, heads_by_score, previous_token_score, sink_score
from ..render.validation import as_float_array, grid_shape, head_pairs, positive_int, work_limit
from ..render.validation import seed as check_seed

__all__ = ["SCORES", "SCORE_LABELS", "SINK_SKIP", "MAX_GRID", "previous_token_score", "sink_score",
           "induction_score", "duplicate_token_score", "all_scores", "top_heads", "random_heads"]

SCORES = ("previous", "sink", "induction")
SCORE_LABELS = {"previous": "前一个 token", "sink": "汇聚", "induction": "归纳"}
MAX_GRID = 1_000_000     # layers × heads random_heads lists


def _second_copy_diagonal(weights, length: int, shift: int) -> np.ndarray:
    """Mean weight from each second-copy query ``i = T+1 … 2T`` to key ``i − T + shift``."""
    length = positive_int("length", length)
    arr = attention_patterns(weights, 3)
    if arr.shape[-1] != 2 * length + 1:
        raise ValueError(f"weights must be patterns over 2·length + 1 = {2 * length + 1} positions "
                         f"(first token + two copies), got n = {arr.shape[-1]}")
    q = np.arange(length + 1, 2 * length + 1)
    return arr[..., q, q - length + shift].mean(axis=-1)


def induction_score(weights, length: int) -> np.ndarray:
    """Mean weight from each second-copy query ``i = T+1 … 2T`` to ``i − T + 1`` (``T = length``);
    the sequence must be laid out as :func:`repeated_sequence` makes it (``n = 2T + 1``)."""
    return _second_copy_diagonal(weights, length, 1)


def duplicate_token_score(weights, length: int) -> np.ndarray:
    """Mean weight from each second-copy query ``i = T+1 … 2T`` to ``i − T``, the *first occurrence
    of its own token* (a duplicate-token head; the induction diagonal is one step to the right)."""
    return _second_copy_diagonal(weights, length, 0)


def all_scores(weights, length: int) -> dict:
    """The three scores of every pattern, ``{name: array}`` in the order of :data:`SCORES`."""
    return {"previous": previous_token_score(weights), "sink": sink_score(weights),
            "induction": induction_score(weights, length)}


def top_heads(score, k: int) -> list:
    """The ``k`` highest-scoring ``(layer, head)`` pairs of a ``(layers, heads)`` score map."""
    arr = as_float_array("score", score, ndim=2)
    k = positive_int("k", k)
    if k > arr.size:
        raise ValueError(f"k must be at most {arr.size} (the number of heads), got {k}")
    return [(int(layer), int(head)) for layer, head in heads_by_score(arr)[:k]]


def random_heads(k: int, seed: int, shape: tuple, *, exclude=()) -> list:
    """``k`` distinct ``(layer, head)`` pairs drawn uniformly (seeded) from a ``shape = (layers,
    heads)`` grid, leaving out ``exclude``; sorted."""
    k = positive_int("k", k)
    seed = check_seed("seed", seed)
    layers, heads = grid_shape("shape", shape)
    work_limit("shape", layers * heads, MAX_GRID, "the heads are listed one by one before the draw")
    banned = head_pairs("exclude", exclude, layers, heads)
    pool = [(i, h) for i in range(layers) for h in range(heads) if h not in banned.get(i, ())]
    if k > len(pool):
        raise ValueError(f"k must be at most {len(pool)} (heads left after exclude), got {k}")
    picked = np.random.default_rng(seed).choice(len(pool), size=k, replace=False)
    return sorted(pool[i] for i in picked)
