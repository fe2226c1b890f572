"""``10_learning_to_attend``'s √d experiment: train with and without 1/√d from the same starts.

For several head widths d and initial draws, :func:`sqrt_d_experiment` trains a scaled and an
unscaled head from the same parameters and records how many steps each needs, how saturated the
start is and how large the early gradients are; :func:`sqrt_d_pairs` lines the two up per draw.

The comparison has a confound: Adam moves every parameter by about its learning rate whatever
the gradient's size, so with one learning rate W_Q and W_K move alike in both arms and the
unscaled scores q·k move √d times further than the scaled q·k/√d (:func:`first_step_score_change`
measures it). :func:`matched_step_runs` is the control: the unscaled arm again, with the learning
rate divided by √d.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..render.validation import finite_scalar, positive_int, seeds
from .backprop import loss_and_grads
from .model import MAX_D, _forward, init_params
from .optim import LEARNING_RATE, Adam
from .task import SEED, dataset
from .trainer import MAX_STEPS, train

SQRT_D_DIMS = (2, 16, 64, 128)
SQRT_D_TARGET = 0.95
SQRT_D_STEPS = 150
SQRT_D_INITS = (SEED, SEED + 1, SEED + 2)
EARLY_STEPS = 5


def sqrt_d_experiment(dims=SQRT_D_DIMS, *, target: float = SQRT_D_TARGET, steps: int = SQRT_D_STEPS,
                      init_seeds=SQRT_D_INITS) -> tuple:
    """For each d and each initial draw, train with and without 1/√d from the same start.

    One row per (d, scaled): per draw, ``steps_to_target`` (``None`` when the accuracy on the
    training sentences does not reach ``target`` within ``steps``), ``final_accuracy`` and
    ``final_item_weight`` (mean weight on the 事项 word when the run stopped); means
    over the draws of ``init_max_weight`` (the largest weight at step 0), ``init_saturated`` (share
    of sentences whose largest weight is above :data:`SATURATED` at step 0; per draw in
    ``init_saturated_each``) and ``grad_qk`` /
    ``grad_v`` (‖∂W_Q, ∂W_K‖ and ‖∂W_V‖, mean over the first :data:`EARLY_STEPS` steps).
    Cached: the notebook and its exercise share one computation.
    """
    return _sqrt_d_experiment(*_design(dims, init_seeds), *_budget(target, steps))


@lru_cache(maxsize=2)
def _sqrt_d_experiment(dims: tuple, init_seeds: tuple, target: float, steps: int) -> tuple:
    rows = []
    for d in dims:
        for scaled in (True, False):
            runs = [train(d, scaled=scaled, steps=steps, stop_at=target,
                          init_seed=s, checkpoints=(), test_every=None) for s in init_seeds]
            rows.append({"d": d, "scaled": scaled,
                         "steps_to_target": tuple(r.steps_to(target) for r in runs),
                         "final_accuracy": tuple(r.train_accuracy[-1] for r in runs),
                         "final_item_weight": tuple(r.item_weight[-1] for r in runs),
                         "init_max_weight": float(np.mean([r.init_max_weight for r in runs])),
                         "init_saturated": float(np.mean([r.init_saturated for r in runs])),
                         "init_saturated_each": tuple(r.init_saturated for r in runs),
                         "grad_qk": float(np.mean([r.early_grad_norm(EARLY_STEPS) for r in runs])),
                         "grad_v": float(np.mean([np.mean(r.grad_norm_v[:EARLY_STEPS]) for r in runs]))})
    return tuple(rows)


def first_step_score_change(dims=SQRT_D_DIMS, *, init_seeds=SQRT_D_INITS) -> dict:
    """How far the first Adam step moves the scores, from the same start with and without 1/√d:
    ``{d: {True: scaled, False: unscaled}}``, the mean |Δs| over the training sentences' words and
    the initial draws. Adam's first step moves each parameter by the learning rate (the gradient's
    sign), so the unscaled arm's scores move about √d times further."""
    return _first_step_score_change(*_design(dims, init_seeds))


@lru_cache(maxsize=2)
def _first_step_score_change(dims: tuple, init_seeds: tuple) -> dict:
    data = dataset("train")
    out = {}
    for d in dims:
        moved = {}
        for scaled in (True, False):
            changes = []
            for s in init_seeds:
                params = init_params(d, init_seed=s)
                before, grads = loss_and_grads(params, data, scaled=scaled)
                Adam(LEARNING_RATE).step(params, grads)
                after = _forward(params, data, scaled)
                changes.append(np.mean(np.abs(after.scores[data.valid] - before.scores[data.valid])))
            moved[scaled] = float(np.mean(changes))
        out[d] = moved
    return out


def matched_step_runs(dims=SQRT_D_DIMS, *, target: float = SQRT_D_TARGET, steps: int = SQRT_D_STEPS,
                      init_seeds=SQRT_D_INITS) -> tuple:
    """The control for :func:`first_step_score_change`: the unscaled arm of
    :func:`sqrt_d_experiment` again from the same starts, with the learning rate divided by √d
    (its score steps then match the scaled arm's). One row per d: ``d``, ``lr``,
    ``steps_to_target`` and ``final_accuracy`` per draw (``None``: not reached within ``steps``)."""
    return _matched_step_runs(*_design(dims, init_seeds), *_budget(target, steps))


@lru_cache(maxsize=2)
def _matched_step_runs(dims: tuple, init_seeds: tuple, target: float, steps: int) -> tuple:
    rows = []
    for d in dims:
        lr = LEARNING_RATE / np.sqrt(d)
        runs = [train(d, scaled=False, lr=lr, steps=steps, stop_at=target, init_seed=s, checkpoints=(),
                      test_every=None) for s in init_seeds]
        rows.append({"d": d, "lr": float(lr), "steps_to_target": tuple(r.steps_to(target) for r in runs),
                     "final_accuracy": tuple(r.train_accuracy[-1] for r in runs)})
    return tuple(rows)


def sqrt_d_pairs(rows=None) -> list:
    """The √d experiment per (d, initial draw): the scaled and the unscaled run from the same start
    side by side — ``d``, ``draw`` (0, 1, 2 …), ``steps`` and ``accuracy`` (``{True: scaled,
    False: unscaled}``, steps ``None`` when the target was not reached), ``saturated`` (the
    unscaled start's share of sentences above :data:`SATURATED`) and ``item_weight`` (per
    scaling, when the run stopped)."""
    rows = sqrt_d_experiment() if rows is None else _experiment_rows(rows)
    by = {(r["d"], r["scaled"]): r for r in rows}
    out = []
    for d in sorted({r["d"] for r in rows}):
        on, off = by[(d, True)], by[(d, False)]
        for i in range(len(on["steps_to_target"])):
            out.append({"d": d, "draw": i,
                        "steps": {True: on["steps_to_target"][i], False: off["steps_to_target"][i]},
                        "accuracy": {True: on["final_accuracy"][i], False: off["final_accuracy"][i]},
                        "item_weight": {True: on["final_item_weight"][i], False: off["final_item_weight"][i]},
                        "saturated": off["init_saturated_each"][i]})
    return out


_ROW_KEYS = ("d", "scaled", "steps_to_target", "final_accuracy", "final_item_weight", "init_saturated_each")


def _experiment_rows(rows) -> tuple:
    """``rows`` as :func:`sqrt_d_experiment` returns them: dicts with its keys, a scaled and an
    unscaled row for every d, the same number of draws in each."""
    rows = _sequence("rows", rows)
    for r in rows:
        if not isinstance(r, dict) or any(key not in r for key in _ROW_KEYS):
            raise TypeError(f"rows must be the rows of sqrt_d_experiment (dicts with keys {list(_ROW_KEYS)}), "
                            f"got {r!r:.60}")
    try:
        pairs = {(r["d"], r["scaled"]) for r in rows}
        draws = {len(r[key]) for r in rows for key in _ROW_KEYS[2:]}
    except TypeError:
        raise TypeError("rows must be the rows of sqrt_d_experiment (d and scaled hashable, per-draw tuples)") from None
    if not rows or len(draws) != 1 or pairs != {(d, s) for d, _ in pairs for s in (True, False)} \
            or len(pairs) != len(rows):
        raise ValueError(f"rows must be the rows of sqrt_d_experiment: one scaled and one unscaled row per d, "
                         f"the same number of draws in each; got {len(rows)} rows")
    return rows


def _design(dims, init_seeds) -> tuple:
    """The experiment's head widths and initial draws, checked."""
    return (tuple(positive_int("dims", d, maximum=MAX_D) for d in _sequence("dims", dims)),
            seeds("init_seeds", init_seeds))


def _budget(target, steps) -> tuple:
    """The stopping rule (an accuracy in (0, 1]) and the most steps, checked."""
    return (float(finite_scalar("target", target, low=0.0, low_open=True, high=1.0)),
            positive_int("steps", steps, maximum=MAX_STEPS))


def _sequence(name: str, value) -> tuple:
    if isinstance(value, (str, bytes, dict, set)) or not isinstance(value, (list, tuple, np.ndarray)):
        raise TypeError(f"{name} must be a list or tuple, got {type(value).__name__} {value!r:.60}")
    if isinstance(value, np.ndarray) and value.ndim != 1:
        raise ValueError(f"{name} must be a flat list or tuple, got an array of shape {value.shape}")
    value = tuple(value)
    if not value:
        raise ValueError(f"{name} must hold at least one entry, got none")
    return value
