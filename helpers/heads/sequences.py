"""The repeated random-token sequences and their copy losses (``12_heads_at_work``).

``[first token] + r + r``: ``r`` is ``T`` distinct random " word" tokens; the behaviour the heads
should explain is measured as next-token loss on the first vs the second copy.
"""
from __future__ import annotations

import re

import numpy as np

from ..render.validation import as_float_array, positive_int
from ..render.validation import seed as check_seed

FIRST_TOKEN = 1   # <|im_start|>, the GGUF's BOS id: a fixed first token that can act as the sink
WORD = re.compile(r"Ġ[a-z]{3,}")  # " word" tokens: random but readable, and in every font


def word_pool(tokens) -> np.ndarray:
    """Ids of the vocabulary's lower-case " word" tokens (space + ≥ 3 letters)."""
    if not isinstance(tokens, (list, tuple, np.ndarray)) or (isinstance(tokens, np.ndarray) and tokens.ndim != 1):
        raise TypeError(f"tokens must be the vocabulary's token strings (a list, e.g. model.tokens), "
                        f"got {type(tokens).__name__} {tokens!r:.60}")
    return np.array([i for i, t in enumerate(tokens) if WORD.fullmatch(str(t))], dtype=np.int64)


def repeated_sequence(pool, length: int, seed: int) -> np.ndarray:
    """``[FIRST_TOKEN] + r + r``: ``r`` is ``length`` distinct ids drawn from ``pool`` (seeded)."""
    length = positive_int("length", length)
    pool = np.asarray(pool)
    if pool.ndim != 1 or len(pool) < length:
        raise ValueError(f"pool must be a 1-D array of at least length = {length} token ids, got shape {pool.shape}")
    r = np.random.default_rng(check_seed("seed", seed)).choice(pool, size=length, replace=False)
    return np.concatenate([[FIRST_TOKEN], r, r]).astype(np.int64)


def unrepeated_sequence(pool, length: int, seed: int) -> np.ndarray:
    """The control for :func:`repeated_sequence`: ``[FIRST_TOKEN]`` then ``2·length`` distinct ids
    drawn from ``pool`` (seeded), the same layout and length but nothing repeated."""
    length = positive_int("length", length)
    pool = np.asarray(pool)
    if pool.ndim != 1 or len(pool) < 2 * length:
        raise ValueError(f"pool must be a 1-D array of at least 2·length = {2 * length} token ids, got shape {pool.shape}")
    r = np.random.default_rng(check_seed("seed", seed)).choice(pool, size=2 * length, replace=False)
    return np.concatenate([[FIRST_TOKEN], r]).astype(np.int64)


def copy_losses(losses, length: int) -> tuple:
    """``(first, second)``: mean loss of predicting tokens 2…T of the first copy and of the second
    copy, from per-token losses (``2T`` values per sequence, entry ``i`` predicts token ``i+1``).
    The first token of each copy is left out: nothing earlier in the context predicts it."""
    length = positive_int("length", length)
    arr = as_float_array("losses", losses)
    if arr.ndim < 1 or arr.shape[-1] != 2 * length:
        raise ValueError(f"losses must end in 2·length = {2 * length} values, got shape {arr.shape}")
    return arr[..., 1:length].mean(axis=-1), arr[..., length + 1:].mean(axis=-1)
