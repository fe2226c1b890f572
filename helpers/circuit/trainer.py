"""Training the two-layer model with Adam, recording what the notebook plots (``11_learning_a_circuit``).

Every step draws a fresh batch of the task's sequences (seeded: batch ``t`` of ``seed``), runs
:func:`helpers.circuit.forward` and the hand-written :func:`helpers.circuit.backward`, and takes one
step of notebook 10's :class:`helpers.training.Adam`. Recorded:

- at every step, the training batch's loss on the repeated (predictable) tokens and on the others;
- every ``eval_every`` steps, on one fixed evaluation batch: every head's scores and both losses
  (:class:`helpers.circuit.scores.HeadScores`);
- at ``checkpoints``, a copy of the parameters.

Deterministic: the same arguments give the same arrays, bit for bit (one BLAS thread, no
parallel reductions whose order could change).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..render.threads import one_blas_thread
from ..render.validation import (
    as_float_array,
    choice,
    entries,
    integer,
    positive_float,
    positive_int,
    quiet_overflow,
    work_limit,
)
from ..render.validation import seed as check_seed
from ..training import Adam
from .backprop import _backward
from .model import CONFIG, Config, _forward, init_model
from .scores import HeadScores, scores_of
from .task import TASK, Batch, Task, sequences

LEARNING_RATE = 3e-3
BATCH_SIZE = 64
EVAL_SIZE = 128
EVAL_SEED = 2026_11   # the evaluation batch: never drawn by training (its seed differs from every run's)
MAX_STEPS = 20_000
STEPS = 1000          # the notebook's run: the drop comes at about step 400
EVAL_EVERY = 25
DROP_WINDOW = 200     # the drop: the 200 steps in which the repeated tokens' loss falls the most
MAX_SEQUENCES_SEEN = MAX_STEPS * BATCH_SIZE   # steps × batch_size one train() call may take (minutes of CPU)


@dataclass
class TrainingRun:
    """What one training run recorded (see the module docstring). Index ``t`` of the per-step lists
    is the batch of step ``t + 1``, scored *before* the update of that step."""

    config: Config
    task: Task
    lr: float
    seed: int
    batch_size: int
    train_repeat: list = field(default_factory=list)
    train_other: list = field(default_factory=list)
    eval_steps: list = field(default_factory=list)
    evals: list = field(default_factory=list)          # HeadScores at eval_steps
    checkpoints: dict = field(default_factory=dict)    # step → Model (float64 copies)

    def __post_init__(self):
        if not isinstance(self.config, Config) or not isinstance(self.task, Task):
            raise TypeError(f"config and task must be a helpers.circuit Config and Task, got "
                            f"{type(self.config).__name__} and {type(self.task).__name__}")
        positive_float("lr", self.lr)
        check_seed("seed", self.seed)
        positive_int("batch_size", self.batch_size, maximum=4096)
        for name in ("train_repeat", "train_other", "eval_steps", "evals"):
            if not isinstance(getattr(self, name), list):
                raise TypeError(f"{name} must be a list, got {type(getattr(self, name)).__name__}")
        if not isinstance(self.checkpoints, dict):
            raise TypeError(f"checkpoints must be a dict, got {type(self.checkpoints).__name__}")

    @property
    def steps(self) -> int:
        return len(self.train_repeat)

    def curve(self, name: str, layer=None) -> np.ndarray:
        """A recorded quantity at :attr:`eval_steps`: ``"repeat_loss"``, ``"other_loss"``, or the best
        ``"previous"`` / ``"induction"`` / ``"duplicate"`` score over the heads of ``layer``."""
        name = choice("name", name, ("repeat_loss", "other_loss", "previous", "induction", "duplicate"))
        if name in ("repeat_loss", "other_loss"):
            return np.array([getattr(e, name) for e in self.evals])
        layer = integer("layer", layer, low=0, high=self.config.layers - 1)
        return np.array([getattr(e, name)[layer].max() for e in self.evals])

    def drop(self, window: int = DROP_WINDOW) -> tuple:
        """``(start, end)``: the ``window`` steps (between evaluated steps) over which the loss on the
        repeated tokens fell the most — the phase change when there is one (:func:`steepest_drop`)."""
        return steepest_drop(self.eval_steps, self.curve("repeat_loss"), window)

    def at(self, step: int) -> HeadScores:
        """The evaluation at ``step`` (one of :attr:`eval_steps`)."""
        step = integer("step", step, low=0)
        if step not in self.eval_steps:
            raise ValueError(f"step must be one of the evaluated steps (every few steps), got {step!r}")
        return self.evals[self.eval_steps.index(step)]


def steepest_drop(steps, loss, window: int = DROP_WINDOW) -> tuple:
    """``(start, end)``: the pair of evaluated ``steps`` exactly ``window`` apart over which ``loss``
    (one value per step) fell the most; the earliest such pair on a tie."""
    return _steepest_drop(steps, loss, window, "window")


def _steepest_drop(steps, loss, window, name: str) -> tuple:
    """:func:`steepest_drop`, naming the window ``name`` (the caller's argument)."""
    window = positive_int(name, window)
    steps = np.asarray(steps)
    if steps.ndim != 1 or steps.dtype.kind not in "iu" or len(steps) < 2 or np.any(np.diff(steps) <= 0):
        raise TypeError(f"steps must be a 1-D increasing integer array of evaluated steps, got {steps!r:.60}")
    loss = as_float_array("loss", loss, shape=(len(steps),))
    best, span = None, None
    for i, start in enumerate(steps):
        j = np.searchsorted(steps, start + window)
        if j < len(steps) and steps[j] == start + window and (best is None or loss[j] - loss[i] < best):
            best, span = loss[j] - loss[i], (int(start), int(steps[j]))
    if span is None:
        raise ValueError(f"{name} must be a multiple of the evaluation interval within the run's "
                         f"{int(steps[-1])} steps, got {window}")
    return span


def eval_batch(task: Task = TASK) -> Batch:
    """The fixed evaluation sequences of ``task`` (:data:`EVAL_SIZE` of them)."""
    return sequences(EVAL_SIZE, EVAL_SEED, task)


def train(config: Config = CONFIG, task: Task = TASK, *, steps: int = STEPS, lr: float = LEARNING_RATE,
          seed: int = 0, batch_size: int = BATCH_SIZE, eval_every: int = EVAL_EVERY, checkpoints=()) -> TrainingRun:
    """Train a fresh model (``init_model(config, seed)``) for ``steps`` steps on ``task``."""
    if not isinstance(config, Config) or not isinstance(task, Task):
        raise TypeError(f"config and task must be a helpers.circuit Config and Task, got "
                        f"{type(config).__name__} and {type(task).__name__}")
    if (config.vocab, config.length) != (task.vocab, task.length):
        raise ValueError(f"config and task must agree on vocab and length, got {config.vocab}, {config.length} "
                         f"and {task.vocab}, {task.length}")
    steps = positive_int("steps", steps, maximum=MAX_STEPS)
    lr = positive_float("lr", lr)
    seed = check_seed("seed", seed)
    batch_size = positive_int("batch_size", batch_size, maximum=4096)
    eval_every = positive_int("eval_every", eval_every)
    work_limit("steps × batch_size", steps * batch_size, MAX_SEQUENCES_SEEN,
               "each sequence of each step is one forward and one backward pass; the notebook's run "
               f"sees {STEPS * BATCH_SIZE:,}")
    wanted = {integer("checkpoints", c, low=0, high=steps) for c in entries("checkpoints", checkpoints, "steps")}
    model = init_model(config, seed)
    run = TrainingRun(config, task, lr, seed, batch_size)
    opt = Adam(lr)
    held_out = eval_batch(task)
    with one_blas_thread(), quiet_overflow():
        for t in range(steps + 1):
            if t % eval_every == 0 or t == steps:
                run.eval_steps.append(t)
                run.evals.append(scores_of(_forward(model.params, config, held_out.tokens), held_out))
            if t in wanted:
                run.checkpoints[t] = model.copy()
            if t == steps:
                break
            batch = sequences(batch_size, seed, task, draw=t)
            cache = _forward(model.params, config, batch.tokens)
            losses = cache.token_losses()
            run.train_repeat.append(float(losses[batch.predictable].mean()))
            run.train_other.append(float(losses[~batch.predictable].mean()))
            if not np.isfinite(run.train_repeat[-1] + run.train_other[-1]):
                raise ValueError(f"lr = {lr:g} is too large for this run: the loss stopped being finite at step "
                                 f"{t + 1} (the updates overflowed); try a smaller lr")
            opt.step(model.params, _backward(model.params, cache))
    return run
