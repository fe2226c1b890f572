"""Greedy generation, next-token probabilities, losses and perplexity of the real model (``09_real_model``).
"""
from __future__ import annotations

import numpy as np

from ..attention import softmax, target_loss
from ..render.validation import (
    as_real_array,
    boolean,
    index,
    nonneg_int,
    positive_int,
    token_ids,
)
from .forward_pass import forward, new_caches
from .model import Model, _ids, check_model
from .tokenizer import decode

#: the longest continuation :func:`generate` makes in one call (a notebook-sized limit)
MAX_NEW_TOKENS = 1024


def generate(model: Model, ids, max_new_tokens: int, *, use_cache: bool = True) -> list:
    """Greedy continuation. With ``use_cache`` each step feeds one token through the KV caches
    (``05``'s idea, now real); without it every step recomputes the whole sequence.
    ``max_new_tokens`` is 0 … :data:`MAX_NEW_TOKENS`."""
    ids = [int(i) for i in _ids(check_model(model), ids)]
    max_new_tokens = nonneg_int("max_new_tokens", max_new_tokens, maximum=MAX_NEW_TOKENS)
    use_cache = boolean("use_cache", use_cache)
    caches = new_caches(model) if use_cache else None
    new = []
    logits = forward(model, ids, caches=caches, last_only=True).logits
    for _ in range(max_new_tokens):
        token = int(np.argmax(logits[-1]))
        new.append(token)
        ids.append(token)
        step = [token] if use_cache else ids
        logits = forward(model, step, caches=caches, last_only=True).logits
    return new


def next_token_top(model: Model, ids, k: int = 5) -> list:
    """``[(token string, probability)]`` for the k most likely next tokens (1 ≤ k ≤ vocabulary)."""
    ids = _ids(check_model(model), ids)
    k = positive_int("k", k, maximum=model.config.vocab_size)
    return [(decode(model, [i]), p) for i, p in top_tokens(forward(model, ids, last_only=True).logits[-1], k)]


def top_tokens(logits, k: int) -> list:
    """``[(token id, probability)]`` of the ``k`` likeliest tokens of one position's ``logits``
    (``(vocab,)``): softmax in float64, highest first, ties by the lower id."""
    logits = as_real_array("logits", logits, ndim=1, keep_float_dtype=True)
    k = positive_int("k", k, maximum=len(logits))
    p = softmax(logits.astype(np.float64))
    return [(int(i), float(p[i])) for i in np.argsort(-p, kind="stable")[:k]]


def perplexity(model: Model, ids, *, mask=None) -> float:
    """exp(mean negative log-likelihood of each next token); ``ids`` needs at least 2 tokens
    (the first one is only context)."""
    ids = _ids(check_model(model), ids, min_length=2)
    return float(np.exp(next_token_losses(forward(model, ids, mask=mask).logits, ids).mean()))


def next_token_losses(logits, ids, *, positions=None) -> np.ndarray:
    """Negative log-likelihood of each next token: entry ``i`` is ``−log p(ids[i+1] | ids[…i])``
    from ``logits[i]`` (``(n, vocab)``); ``n − 1`` values (``09``'s perplexity, ``12``'s per-token loss).
    With ``positions`` (``forward``'s ``logits_at``), ``logits`` has one row per position and entry
    ``j`` is the loss of predicting ``ids[positions[j] + 1]``. A batch — ``logits`` ``(batch, rows,
    vocab)`` with ``ids`` ``(batch, n)`` — gives one row of losses per sequence."""
    logits = as_real_array("logits", logits, ndim=(2, 3), keep_float_dtype=True)
    if logits.ndim == 3:
        batch = ids if isinstance(ids, np.ndarray) else None
        if batch is None or batch.ndim != 2 or len(batch) != len(logits):
            raise ValueError(f"ids must be a (batch, n) array with one row per sequence of logits {logits.shape}, "
                             f"got {type(ids).__name__} of shape {np.shape(batch) if batch is not None else '?'}")
        return np.stack([next_token_losses(lg, row, positions=positions) for lg, row in zip(logits, batch)])
    ids = token_ids("ids", ids, logits.shape[1], min_length=2)
    if positions is None:
        if len(ids) != len(logits):
            raise ValueError(f"logits must have one row per token id: logits {logits.shape}, ids {ids.shape}")
        rows, targets = logits[:-1], ids[1:]  # (n-1, vocab) float32
    else:
        if isinstance(positions, (str, bytes, dict)) or not hasattr(positions, "__iter__"):
            raise TypeError(f"positions must be a list of positions (forward's logits_at), got {positions!r:.60}")
        pos = np.array([index("positions", p, len(ids) - 1) for p in positions], dtype=np.int64)
        if len(pos) != len(logits):
            raise ValueError(f"logits must have one row per position: logits {logits.shape}, {len(pos)} positions")
        rows, targets = logits, ids[pos + 1]
    return target_loss(rows, targets)
