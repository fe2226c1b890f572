"""Training one attention head from data in numpy (``10_learning_to_attend``), split by idea as
minGPT splits model, trainer and task:

- :mod:`~helpers.training.task`: the data — which 事项 a short request asks about
  (:func:`encode`, :func:`dataset`, :data:`EXAMPLES`);
- :mod:`~helpers.training.model`: one head read out at the last position, :func:`forward`;
- :mod:`~helpers.training.backprop`: :func:`backward` step by step (:func:`softmax_backward`),
  :func:`gradient_check`;
- :mod:`~helpers.training.optim`: :class:`Adam` on a dict of parameters;
- :mod:`~helpers.training.trainer`: :func:`train` (a :class:`TrainingRun`), :func:`trained_run`
  (the notebook's run, cached for its explorer);
- :mod:`~helpers.training.readouts`: where the trained head looks, and its kind × kind score
  table beside the article's;
- :mod:`~helpers.training.experiment`: the √d experiment (:func:`sqrt_d_experiment`).

Every name the notebook and the tests use is re-exported here, so ``helpers.training.backward``
is the same function as ``helpers.training.backprop.backward``. A deeper model can reuse the pieces
that do not depend on this task: :func:`helpers.training.backprop.softmax_backward`,
:func:`helpers.training.backprop.numerical_gradient`, :func:`helpers.training.backprop.relative_error`
and :class:`helpers.training.optim.Adam`.
"""
from __future__ import annotations

from .backprop import (
    MAX_GRADIENT_CHECK,
    backward,
    backward_steps,
    gradient_check,
    loss_and_grads,
    numerical_gradient,
    relative_error,
    softmax_backward,
)
from .experiment import (
    EARLY_STEPS,
    SQRT_D_DIMS,
    SQRT_D_INITS,
    SQRT_D_STEPS,
    SQRT_D_TARGET,
    first_step_score_change,
    matched_step_runs,
    sqrt_d_experiment,
    sqrt_d_pairs,
)
from .model import MAX_D, PROJECTIONS, Forward, forward, init_params
from .optim import LEARNING_RATE, Adam
from .readouts import (
    INPUT_PARTS,
    action_row,
    article_score_table,
    attention_on_item,
    by_item_distance,
    centred,
    centred_table_at,
    checkpoint_record,
    item_score_gap,
    kind_score_table,
    part_ablated,
    part_split,
)
from .task import (
    DISTRACTORS,
    EXAMPLES,
    IDENTITY_DIM,
    INPUT_DIM,
    ITEMS,
    KIND_OF,
    KINDS,
    MAX_LEN,
    MIN_LEN,
    SEED,
    VOCAB,
    WORDS,
    Sentences,
    dataset,
    embeddings,
    encode,
    random_sentences,
)
from .trainer import CHECKPOINTS, MAX_STEPS, SATURATED, STEPS, TrainingRun, train, trained_run

__all__ = [
    "KINDS", "WORDS", "VOCAB", "KIND_OF", "ITEMS", "DISTRACTORS", "IDENTITY_DIM", "INPUT_DIM", "MIN_LEN", "MAX_LEN",
    "SEED", "EXAMPLES", "Sentences", "embeddings", "encode", "random_sentences", "dataset",
    "MAX_D", "MAX_GRADIENT_CHECK", "PROJECTIONS", "Forward", "init_params", "forward", "softmax_backward",
    "backward", "backward_steps", "loss_and_grads", "numerical_gradient", "relative_error", "gradient_check",
    "LEARNING_RATE", "Adam", "MAX_STEPS", "STEPS", "CHECKPOINTS", "SATURATED", "TrainingRun", "train", "trained_run",
    "attention_on_item", "by_item_distance", "kind_score_table", "action_row", "centred", "article_score_table",
    "centred_table_at", "checkpoint_record", "INPUT_PARTS", "item_score_gap", "part_ablated", "part_split",
    "SQRT_D_DIMS", "SQRT_D_TARGET", "SQRT_D_STEPS", "SQRT_D_INITS", "EARLY_STEPS", "sqrt_d_experiment", "sqrt_d_pairs",
    "first_step_score_change", "matched_step_runs",
]
