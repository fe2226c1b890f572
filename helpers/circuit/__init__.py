"""A circuit learned (``11_learning_a_circuit``): a two-layer attention-only transformer trained in
numpy on a repeated-segment task, where a previous-token head in layer 0 and an induction head in
layer 1 appear together in one sudden drop of the loss.

One idea per module: :mod:`.task` (the sequences), :mod:`.model` (the forward pass),
:mod:`.backprop` (its gradient, by hand), :mod:`.trainer` (Adam, checkpoints, recorded losses: a :class:`~.trainer.TrainingRun`),
:mod:`.scores` (previous-token, induction and duplicate-token scores), :mod:`.experiments`
(ablation and K-/Q-/V-composition patching), :mod:`.sweep` (what changes the birth: the stored
runs of several variants and seeds), :mod:`.history` (the notebook's run checkpoint by checkpoint,
stored for its explorer).
"""
from ..training import relative_error
from . import experiments, history, scores, sweep, trainer
from .backprop import backward, gradient_check, loss_and_grads, numerical_gradient
from .model import CONFIG, Cache, Config, Model, forward, init_model
from .task import TASK, Batch, Task, positional_ceiling, sequences

__all__ = ["experiments", "history", "scores", "sweep", "trainer", "CONFIG", "TASK", "Batch", "Cache", "Config", "Model", "Task", "backward", "forward", "gradient_check",
           "init_model", "loss_and_grads", "numerical_gradient", "positional_ceiling", "relative_error", "sequences"]
