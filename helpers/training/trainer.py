"""``10_learning_to_attend``'s training loop: full-batch Adam on the task, recorded step by step.

:func:`train` runs seeded and deterministic and returns a :class:`TrainingRun` (losses, accuracies,
gradient norms, parameter checkpoints); :func:`trained_run` caches the notebook's run, which the
explorer's checkpoint slider reads.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..render.validation import (
    boolean,
    finite_scalar,
    integer,
    one_of,
    positive_int,
)
from ..render.validation import seed as check_seed
from .backprop import _backward
from .model import MAX_D, _forward, init_params
from .optim import LEARNING_RATE, Adam
from .task import SEED, dataset

MAX_STEPS = 10_000    # most training steps one call runs
STEPS = 150
CHECKPOINTS = (0, 5, 10, 15, 20, 25, 30, 35, 40, 50, 60, 80, 100, 150)
SATURATED = 0.99


@dataclass
class TrainingRun:
    """What one training run recorded. Index ``t`` of the per-step lists is *before* step t+1,
    so index 0 is the initialisation."""

    d: int
    scaled: bool
    fixed_positions: bool
    loss: list = field(default_factory=list)          # training loss
    train_accuracy: list = field(default_factory=list)
    test_steps: list = field(default_factory=list)    # the steps at which the test set was scored
    test_accuracy: list = field(default_factory=list)
    item_weight: list = field(default_factory=list)   # mean weight on the 事项 word (training set)
    grad_norm_qk: list = field(default_factory=list)  # ‖(∂W_Q, ∂W_K)‖ (through the softmax)
    grad_norm_v: list = field(default_factory=list)   # ‖∂W_V‖ (around it)
    checkpoints: dict = field(default_factory=dict)   # step → parameter copies
    init_max_weight: float = float("nan")             # mean largest weight at step 0 (training set)
    init_saturated: float = float("nan")              # share of those above SATURATED

    @property
    def steps(self) -> int:
        return len(self.loss) - 1

    def steps_to(self, accuracy: float, split: str = "train"):
        """First step at which the accuracy on ``split`` reaches ``accuracy``; ``None`` if never."""
        if one_of("split", split, ("train", "test")) == "train":
            pairs = enumerate(self.train_accuracy)
        else:
            pairs = zip(self.test_steps, self.test_accuracy)
        hits = [t for t, a in pairs if a >= accuracy]
        return hits[0] if hits else None

    def test_accuracy_at(self, step: int) -> float:
        """Test accuracy at ``step`` (one of :attr:`test_steps`)."""
        if step not in self.test_steps:
            raise ValueError(f"step must be a step where the test set was scored (every few steps), got {step!r}")
        return self.test_accuracy[self.test_steps.index(step)]

    def early_grad_norm(self, steps: int = 5) -> float:
        """Mean ‖(∂W_Q, ∂W_K)‖ over the first ``steps`` steps."""
        return float(np.mean(self.grad_norm_qk[:steps]))

    def params_at(self, step: int) -> dict:
        if step not in self.checkpoints:
            raise ValueError(f"step must be one of the checkpoints {sorted(self.checkpoints)}, got {step!r}")
        return self.checkpoints[step]


def train(d: int = 2, *, scaled: bool = True, steps: int = STEPS, lr: float = LEARNING_RATE, seed: int = SEED,
          init_seed=None, fixed_positions: bool = False, checkpoints=CHECKPOINTS, stop_at=None,
          test_every=5) -> TrainingRun:
    """Full-batch Adam on the 512 training sentences for ``steps`` steps (deterministic).

    ``seed`` fixes the words' inputs and the sentences; ``init_seed`` (default: ``seed``) the
    initial parameters. Records loss, train and test accuracy and the gradient norms at every
    step, and parameter copies at ``checkpoints``. ``stop_at`` (an accuracy) ends the run early
    once the *training* accuracy reaches it. The test set is scored every ``test_every`` steps
    and at the last step (``None``: never; the √d experiment needs only the step count).
    """
    d, steps = positive_int("d", d, maximum=MAX_D), positive_int("steps", steps, maximum=MAX_STEPS)
    scaled, fixed_positions = boolean("scaled", scaled), boolean("fixed_positions", fixed_positions)
    seed = check_seed("seed", seed)
    if init_seed is not None:
        init_seed = check_seed("init_seed", init_seed)
    if test_every is not None:
        test_every = positive_int("test_every", test_every)
    if stop_at is not None:
        finite_scalar("stop_at", stop_at)
        if not 0 < float(stop_at) <= 1:
            raise ValueError(f"stop_at must be an accuracy in (0, 1], got {stop_at!r}")
    wanted = _steps("checkpoints", checkpoints)
    train_set, test_set = dataset("train", seed), dataset("test", seed)
    params = init_params(d, seed, init_seed=init_seed, fixed_positions=fixed_positions)
    opt = Adam(lr)
    run = TrainingRun(d, scaled, fixed_positions)
    rows = np.arange(len(train_set))
    for t in range(steps + 1):
        fwd = _forward(params, train_set, scaled)
        grads = _backward(params, train_set, fwd)
        if t == 0:
            largest = fwd.weights.max(axis=1)
            run.init_max_weight = float(largest.mean())
            run.init_saturated = float(np.mean(largest > SATURATED))
        run.loss.append(fwd.loss)
        run.train_accuracy.append(fwd.accuracy)
        run.item_weight.append(float(fwd.weights[rows, train_set.item_pos].mean()))
        if test_every is not None and (t % test_every == 0 or t == steps):
            run.test_steps.append(t)
            run.test_accuracy.append(_forward(params, test_set, scaled).accuracy)
        qk = [grads[n] for n in ("W_Q", "W_K", "bias") if n in grads]
        run.grad_norm_qk.append(float(np.sqrt(sum(np.sum(g * g) for g in qk))))
        run.grad_norm_v.append(float(np.linalg.norm(grads["W_V"])))
        if t in wanted:
            run.checkpoints[t] = {name: value.copy() for name, value in params.items()}
        if t == steps or (stop_at is not None and fwd.accuracy >= stop_at):
            break
        opt.step(params, grads)
    return run


def trained_run(fixed_positions: bool = False) -> TrainingRun:
    """The notebook's run (d = 2 like the article's head, scaled), computed once and cached: the
    explorer's checkpoint slider reads it. ``fixed_positions=True``: the baseline's run."""
    return _trained_run(boolean("fixed_positions", fixed_positions))


@lru_cache(maxsize=2)
def _trained_run(fixed_positions: bool) -> TrainingRun:
    return train(2, fixed_positions=fixed_positions)


def _steps(name: str, value) -> set:
    """A collection of step numbers (checkpoints): integers >= 0; may be empty."""
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, (list, tuple, set, frozenset, range)):
        raise TypeError(f"{name} must be a list or tuple of step numbers, got {type(value).__name__} {value!r:.60}")
    return {integer(name, c, low=0) for c in value}
