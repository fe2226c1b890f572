"""The repeated-segment task (``11_learning_a_circuit``): sequences in which only content finds the target.

Each sequence holds ``length`` random tokens (uniform over ``vocab``, with replacement). One segment
of ``repeat`` tokens, starting at ``first``, is copied a second time starting at ``second``
(``second ≥ first + repeat``: the copies do not overlap)::

    … a b c d e … … a b c d e …
        ↑ first       ↑ second          (repeat = 5)

Inside the second copy the next token is predictable: the token after ``a`` is ``b``, as it was
last time. Entry ``i`` of a model's output predicts token ``i + 1``, so the predictable entries
are ``i = second … second + repeat − 2`` (:attr:`Batch.predictable`); the first token of the
second copy is not predictable (nothing says a copy starts there).

**Why the length and the offset are random.** With a fixed ``repeat`` and fixed ``first`` and
``second`` (``fixed=True``), the target of query ``i`` is always position ``i − (second − first) +
1``: a head can find it from positions alone, without reading any token, and an induction score
then says nothing about an induction *circuit*. With both drawn at random per sequence, the
distance changes from one sequence to the next and content — "where was my token last time?" — is
the only way to the target.

An induction head's target: query ``second + j`` (``j = 0 … repeat − 2``) looks at key ``first + j
+ 1``, the position right after the earlier occurrence of its own token
(:attr:`Batch.induction_pairs`, the generalisation of :func:`helpers.heads.induction_score`'s
diagonal to a random offset and length).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..render.validation import boolean, integer, positions, positive_int
from ..render.validation import seed as check_seed

VOCAB = 32
LENGTH = 32
MIN_REPEAT, MAX_REPEAT = 8, 14   # a third of the predictions are predictable: the drop comes within ~500 steps
MAX_SEQUENCES = 100_000   # most sequences one call draws
MAX_VOCAB = 10_000
MAX_LENGTH = 512


@dataclass(frozen=True)
class Task:
    """The task's sizes. ``fixed=True`` is the shortcut variant: every sequence has ``repeat =
    max_repeat`` and the same ``first`` and ``second`` (:attr:`fixed_first`, :attr:`fixed_second`)."""

    vocab: int = VOCAB
    length: int = LENGTH
    min_repeat: int = MIN_REPEAT
    max_repeat: int = MAX_REPEAT
    fixed: bool = False

    def __post_init__(self):
        positive_int("vocab", self.vocab, maximum=MAX_VOCAB)
        positive_int("length", self.length, maximum=MAX_LENGTH)
        integer("min_repeat", self.min_repeat, low=2)
        integer("max_repeat", self.max_repeat, low=self.min_repeat)
        boolean("fixed", self.fixed)
        if self.vocab < 2:
            raise ValueError(f"vocab must be at least 2 tokens, got {self.vocab}")
        if 2 * self.max_repeat > self.length:
            raise ValueError(f"two copies of max_repeat = {self.max_repeat} tokens must fit in length = "
                             f"{self.length} (2·max_repeat ≤ length), got 2·{self.max_repeat} = {2 * self.max_repeat}")

    @property
    def fixed_first(self) -> int:
        """Where the first copy starts in the fixed variant: a third of the free room before it."""
        return (self.length - 2 * self.max_repeat) // 3

    @property
    def fixed_second(self) -> int:
        """Where the second copy starts in the fixed variant (the rest of the room between the copies)."""
        free = self.length - 2 * self.max_repeat
        return self.fixed_first + self.max_repeat + (free - free // 3) // 2


#: the lesson's task
TASK = Task()


@dataclass(frozen=True)
class Batch:
    """``tokens`` ``(B, length)`` int64 and, per sequence, ``first``, ``second`` (where the two
    copies start) and ``repeat`` (their length)."""

    task: Task
    tokens: np.ndarray
    first: np.ndarray
    second: np.ndarray
    repeat: np.ndarray

    def __post_init__(self):
        if not isinstance(self.task, Task):
            raise TypeError(f"task must be a helpers.circuit.Task, got {type(self.task).__name__} {self.task!r:.60}")
        tokens = _int_array("tokens", self.tokens, 2)
        if tokens.shape[1] != self.task.length or not len(tokens):
            raise ValueError(f"tokens must have shape (B ≥ 1, {self.task.length}) for the task, got {tokens.shape}")
        if tokens.min() < 0 or tokens.max() >= self.task.vocab:
            raise ValueError(f"tokens must be ids in 0 … {self.task.vocab - 1}, got {tokens.min()} … {tokens.max()}")
        first, second, repeat = (_int_array(name, getattr(self, name), 1) for name in ("first", "second", "repeat"))
        if not first.shape == second.shape == repeat.shape == (len(tokens),):
            raise ValueError(f"first, second and repeat must hold one entry per sequence ({len(tokens)}), got "
                             f"shapes {first.shape}, {second.shape}, {repeat.shape}")
        if ((repeat < 2).any() or (first < 0).any() or (second < first + repeat).any()
                or (second + repeat > self.task.length).any()):
            raise ValueError(f"first, second and repeat must place two copies of ≥ 2 tokens, one after the other, "
                             f"inside {self.task.length} tokens (0 ≤ first, first + repeat ≤ second, "
                             f"second + repeat ≤ length)")
        for name, value in (("tokens", tokens), ("first", first), ("second", second), ("repeat", repeat)):
            object.__setattr__(self, name, value)

    def __len__(self) -> int:
        return len(self.tokens)

    @cached_property
    def predictable(self) -> np.ndarray:
        """``(B, length − 1)`` bool: entry ``i`` (predicting token ``i + 1``) lies in the second copy
        after its first token — the tokens that earlier context gives away."""
        i = np.arange(self.task.length - 1)[None, :]
        return (i >= self.second[:, None]) & (i <= (self.second + self.repeat - 2)[:, None])

    @cached_property
    def induction_pairs(self) -> tuple:
        """``(sequence, query, key)`` index arrays: query ``second + j`` and its induction target
        ``first + j + 1``, for ``j = 0 … repeat − 2`` of every sequence."""
        seq = np.repeat(np.arange(len(self)), self.repeat - 1)
        j = np.concatenate([np.arange(r - 1) for r in self.repeat])
        return seq, self.second[seq] + j, self.first[seq] + j + 1

    @cached_property
    def copy_of(self) -> np.ndarray:
        """``(B, length)``: for a position in the second copy, the position it copies; −1 elsewhere."""
        i = np.arange(self.task.length)[None, :]
        inside = (i >= self.second[:, None]) & (i < (self.second + self.repeat)[:, None])
        return np.where(inside, i - (self.second - self.first)[:, None], -1)

    @cached_property
    def ambiguous(self) -> np.ndarray:
        """One bool per induction pair (:attr:`induction_pairs`): the query's token occurs more than
        once before the query, so "the last time this token occurred" need not be the aligned ``first + j``."""
        seq, query, _ = self.induction_pairs
        before = np.arange(self.task.length)[None, :] < query[:, None]
        same = self.tokens[seq] == self.tokens[seq, query][:, None]
        return (same & before).sum(axis=1) > 1

    def most_repeated(self, row: int = 0) -> tuple:
        """``(token, in the first copy, in the whole sequence)``: the token that occurs most often in
        the first copy of sequence ``row`` (the smallest id on a tie) and how often."""
        row = integer("row", row, low=0, high=len(self) - 1)
        f, r = int(self.first[row]), int(self.repeat[row])
        counts = np.bincount(self.tokens[row, f:f + r], minlength=self.task.vocab)
        token = int(np.argmax(counts))
        return token, int(counts[token]), int(np.count_nonzero(self.tokens[row] == token))

    def marked(self, row: int = 0) -> str:
        """Sequence ``row`` as text: two-digit token ids, each copy inside 「 」."""
        row = integer("row", row, low=0, high=len(self) - 1)
        f, s, r = int(self.first[row]), int(self.second[row]), int(self.repeat[row])
        out = []
        for i, t in enumerate(self.tokens[row]):
            text = f"{t:02d}"
            if i in (f, s):
                text = "「" + text
            if i in (f + r - 1, s + r - 1):
                text += "」"
            out.append(text)
        return " ".join(out)

    def subset(self, rows) -> "Batch":
        """The sequences ``rows`` (a list of row positions, negative from the end, or a slice) as a new batch."""
        if isinstance(rows, slice):
            rows = np.arange(len(self))[rows]
            if not len(rows):
                raise ValueError(f"rows must pick at least one of the batch's {len(self)} sequences, got an empty slice")
        else:
            rows = positions("rows", rows, len(self))
        return Batch(self.task, self.tokens[rows], self.first[rows], self.second[rows], self.repeat[rows])


def _int_array(name: str, value, ndim: int) -> np.ndarray:
    arr = np.asarray(value) if isinstance(value, (list, tuple, np.ndarray)) else None
    if arr is None or arr.dtype.kind not in "iu" or arr.ndim != ndim:
        raise TypeError(f"{name} must be a {ndim}-D integer array, got {type(value).__name__} {value!r:.60}")
    return arr.astype(np.int64, copy=False)


def sequences(n: int, seed: int, task: Task = TASK, *, draw: int = 0) -> Batch:
    """``n`` sequences of ``task`` (seeded): per sequence a repeat length in ``min_repeat …
    max_repeat``, the first copy's start ``first`` uniform where both copies fit, the second copy's
    ``second`` uniform in ``first + repeat … length − repeat``; every other token uniform random.
    ``draw`` numbers independent batches of one seed (training draws batch ``t`` at step ``t``)."""
    n = positive_int("n", n, maximum=MAX_SEQUENCES)
    seed = check_seed("seed", seed)
    draw = integer("draw", draw, low=0)
    if not isinstance(task, Task):
        raise TypeError(f"task must be a helpers.circuit.Task, got {type(task).__name__} {task!r:.60}")
    rng = np.random.default_rng([seed, 26, draw])
    tokens = rng.integers(0, task.vocab, size=(n, task.length))
    if task.fixed:
        repeat = np.full(n, task.max_repeat)
        first = np.full(n, task.fixed_first)
        second = np.full(n, task.fixed_second)
    else:
        repeat = rng.integers(task.min_repeat, task.max_repeat + 1, size=n)
        # uniform over the allowed starts: floor(u · count) for u in [0, 1)
        first = np.floor(rng.random(n) * (task.length - 2 * repeat + 1)).astype(np.int64)
        room = task.length - repeat - (first + repeat) + 1
        second = first + repeat + np.floor(rng.random(n) * room).astype(np.int64)
    batch = Batch(task, tokens, first, second, repeat)
    src = batch.copy_of
    rows = np.nonzero(src >= 0)
    tokens[rows] = tokens[rows[0], src[rows]]
    return batch


CEILING_SAMPLES = 20_000


def positional_ceiling(task: Task = TASK, *, samples: int = CEILING_SAMPLES) -> float:
    """The highest induction score a head can reach from positions alone.

    A head that reads no tokens gives query position ``i`` the same weights ``A[i, ·]`` in every
    sequence, so its induction score is ``Σ_i Σ_k A[i, k] · P(query i, target k)`` — at most
    ``Σ_i max_k P(query i, target k)``: every query putting all its weight on its most frequent
    target. Measured on ``samples`` sequences of ``task`` (seeded); 1.0 for the fixed variant,
    where position gives the target away.
    """
    if not isinstance(task, Task):
        raise TypeError(f"task must be a helpers.circuit.Task, got {type(task).__name__} {task!r:.60}")
    samples = positive_int("samples", samples, maximum=MAX_SEQUENCES)
    _, query, key = sequences(samples, 0, task, draw=1).induction_pairs
    counts = np.zeros((task.length, task.length))
    np.add.at(counts, (query, key), 1.0)
    return float(counts.max(axis=1).sum() / len(query))
