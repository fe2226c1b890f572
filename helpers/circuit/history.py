"""The notebook's run, checkpoint by checkpoint (``11_learning_a_circuit``): what its explorer shows.

The ``two_layers`` run of seed 0 (:mod:`helpers.circuit.sweep`), trained for :data:`STEPS` steps,
kept every :data:`EVERY` steps: the attention patterns of all four heads on one evaluation
sequence (:func:`shown_sequence`, float32) and every head's scores and both losses on the whole
evaluation batch. Precomputed (``make circuit-data`` writes ``helpers/data/circuit_history.npz``
under ``tools/data/pinned.py``'s environment), so the explorer's step slider only picks an entry
and the numbers are the same on every CPU.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from ..render.npz import read_npz
from ..render.validation import integer
from .model import CONFIG, forward
from .task import TASK, Batch
from .trainer import EVAL_EVERY, eval_batch, train

STEPS = 1000
EVERY = EVAL_EVERY
DATA = "circuit_history.npz"
#: the file's entries, in the order of History's fields
ENTRIES = ("steps", "patterns", "previous", "induction", "duplicate", "repeat_loss", "other_loss")
SHOWN_REPEAT = 12   # the shown sequence: the first evaluation sequence whose repeated segment is this long


def shown_index(batch: Batch | None = None) -> int:
    """Which evaluation sequence the explorer shows: the first with a repeat of :data:`SHOWN_REPEAT` tokens."""
    batch = eval_batch(TASK) if batch is None else batch
    if not isinstance(batch, Batch):
        raise TypeError(f"batch must be a helpers.circuit.Batch or None (the evaluation batch), got {type(batch).__name__}")
    hits = np.flatnonzero(batch.repeat == SHOWN_REPEAT)
    if not len(hits):
        raise ValueError(f"batch must hold a sequence with a repeat of {SHOWN_REPEAT} tokens, got repeats "
                         f"{sorted(set(batch.repeat.tolist()))}")
    return int(hits[0])


def shown_sequence() -> Batch:
    """The one sequence whose patterns the explorer draws (a :class:`Batch` of one)."""
    batch = eval_batch(TASK)
    i = shown_index(batch)
    return batch.subset(slice(i, i + 1))


@dataclass(frozen=True)
class History:
    """``steps`` ``(S,)``; ``patterns`` ``(S, layers, heads, n, n)`` on :func:`shown_sequence`;
    ``previous``, ``induction``, ``duplicate`` ``(S, layers, heads)`` and ``repeat_loss``,
    ``other_loss`` ``(S,)`` on the evaluation batch."""

    steps: np.ndarray
    patterns: np.ndarray
    previous: np.ndarray
    induction: np.ndarray
    duplicate: np.ndarray
    repeat_loss: np.ndarray
    other_loss: np.ndarray

    def index(self, step: int) -> int:
        """The entry of ``step`` (a multiple of :data:`EVERY` within the run)."""
        step = integer("step", step, low=0, high=int(self.steps[-1]))
        hits = np.flatnonzero(self.steps == step)
        if not len(hits):
            raise ValueError(f"step must be a multiple of {EVERY} between 0 and {int(self.steps[-1])}, got {step}")
        return int(hits[0])


def record(steps: int = STEPS) -> dict:
    """Train the run and return the arrays :func:`load` reads (the generator calls this, pinned)."""
    steps = integer("steps", steps, low=EVERY, high=STEPS)
    wanted = tuple(range(0, steps + 1, EVERY))
    run = train(CONFIG, TASK, steps=steps, seed=0, eval_every=EVERY, checkpoints=wanted)
    shown = shown_sequence()
    patterns = [np.stack(forward(run.checkpoints[t], shown.tokens).weights, axis=1)[0] for t in wanted]
    evals = [run.at(t) for t in wanted]
    out = {"steps": np.array(wanted), "patterns": np.array(patterns, dtype=np.float32)}
    for name in ("previous", "induction", "duplicate", "repeat_loss", "other_loss"):
        out[name] = np.array([getattr(e, name) for e in evals])
    return out


def load() -> History:
    """The stored :class:`History` (package data)."""
    return _load()


@lru_cache(maxsize=1)
def _load() -> History:
    with resources.as_file(resources.files("helpers") / "data" / DATA) as file:
        data = read_npz(file, what="the circuit history .npz", remedy="run make circuit-data", keys=ENTRIES)
        return History(*(data[name] for name in ENTRIES))
