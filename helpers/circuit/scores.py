"""What each head does, read from its attention patterns on the task's sequences (``11_learning_a_circuit``).

- **previous-token score** of a head: mean over queries ``i ≥ 1`` of the weight on ``i − 1``
  (:func:`helpers.reading.previous_token_score`, also notebook 12's);
- **induction score**: mean, over every predictable query of the second copy, of the weight on
  the position right after the earlier occurrence of the query's token (query ``second + j`` →
  key ``first + j + 1``, :attr:`helpers.circuit.task.Batch.induction_pairs`) — notebook 12's
  diagonal, generalised to a random offset and length;
- **duplicate-token score**: mean weight from a second-copy query on the earlier occurrence of
  its own token (``second + j`` → ``first + j``): another way to find "last time", used by the
  circuit that forms when positions travel in the residual stream.

:func:`head_scores` runs the model once and returns all three per ``(layer, head)`` with the
losses on the predictable (repeated) and the other tokens.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..reading import previous_token_score
from ..render.validation import as_float_array, choice, integer
from .model import Cache, Model, run
from .task import Batch

SCORES = ("previous", "induction", "duplicate")


def _check_batch(batch) -> Batch:
    if not isinstance(batch, Batch):
        raise TypeError(f"batch must be a helpers.circuit.Batch (from sequences), got {type(batch).__name__}")
    return batch


def _check_weights(weights, batch: Batch) -> np.ndarray:
    arr = as_float_array("weights", weights, ndim=(3, 4), keep_float_dtype=True)
    n = batch.task.length
    if arr.shape[0] != len(batch) or arr.shape[-2:] != (n, n):
        raise ValueError(f"weights must be patterns (B, [heads,] n, n) of the batch's {len(batch)} sequences of "
                         f"{n} tokens, got shape {arr.shape}")
    return arr


def induction_score(weights, batch) -> np.ndarray:
    """Mean weight from every second-copy query ``second + j`` on ``first + j + 1``;
    ``weights`` ``(B, H, n, n)`` → ``(H,)`` (or ``(B, n, n)`` → a number)."""
    batch = _check_batch(batch)
    arr = _check_weights(weights, batch)
    seq, query, key = batch.induction_pairs
    picked = arr[seq, ..., query, key] if arr.ndim == 3 else arr[seq, :, query, key]
    return picked.mean(axis=0)


def duplicate_token_score(weights, batch) -> np.ndarray:
    """Mean weight from every second-copy query ``second + j`` on ``first + j`` (its own token's
    earlier occurrence)."""
    batch = _check_batch(batch)
    arr = _check_weights(weights, batch)
    seq, query, key = batch.induction_pairs
    picked = arr[seq, ..., query, key - 1] if arr.ndim == 3 else arr[seq, :, query, key - 1]
    return picked.mean(axis=0)


def repeat_losses(cache: Cache, batch) -> tuple:
    """``(repeated, other)``: mean next-token loss on the predictable entries and on all the others."""
    batch = _check_batch(batch)
    if not isinstance(cache, Cache) or cache.tokens.shape != batch.tokens.shape:
        raise TypeError("cache must be the Cache of forward(model, batch.tokens)")
    losses = cache.token_losses()
    return float(losses[batch.predictable].mean()), float(losses[~batch.predictable].mean())


@dataclass(frozen=True)
class HeadScores:
    """Per ``(layer, head)``: the three scores (arrays ``(layers, heads)``); and the losses."""

    previous: np.ndarray
    induction: np.ndarray
    duplicate: np.ndarray
    repeat_loss: float
    other_loss: float

    def best(self, score: str, layer: int) -> tuple:
        """``(head, value)`` of the highest ``score`` (one of :data:`SCORES`) in ``layer``."""
        values = getattr(self, choice("score", score, SCORES))
        row = values[integer("layer", layer, low=0, high=len(values) - 1)]
        head = int(np.argmax(row))
        return head, float(row[head])


def head_scores(model: Model, batch, *, interventions=None) -> HeadScores:
    """Run ``model`` on ``batch`` (with optional ``interventions``, see :func:`helpers.circuit.forward`)
    and score every head."""
    return scores_with(model, batch, interventions)


def scores_with(model: Model, batch, interventions, *, name: str = "interventions") -> HeadScores:
    """:func:`head_scores` for wrappers: ``name`` as in :func:`helpers.circuit.model.run`."""
    batch = _check_batch(batch)
    cache = run(model, batch.tokens, interventions=interventions, name=name)
    return scores_of(cache, batch)


def scores_of(cache: Cache, batch: Batch) -> HeadScores:
    """:class:`HeadScores` of a forward pass already run on ``batch``."""
    batch = _check_batch(batch)
    if not isinstance(cache, Cache) or cache.tokens.shape != batch.tokens.shape or not cache.weights:
        raise TypeError(f"cache must be the helpers.circuit Cache of forward(model, batch.tokens), got "
                        f"{type(cache).__name__} {cache!r:.60}")
    weights = np.stack(cache.weights, axis=1)                      # (B, layers, H, n, n)
    previous = previous_token_score(weights).mean(axis=0)
    flat = weights.reshape(len(batch), -1, *weights.shape[-2:])   # (B, layers·H, n, n)
    shape = weights.shape[1:3]
    induction = induction_score(flat, batch).reshape(shape)
    duplicate = duplicate_token_score(flat, batch).reshape(shape)
    return HeadScores(previous, induction, duplicate, *repeat_losses(cache, batch))
