"""``10_learning_to_attend``'s readouts: what a trained head does, read off its parameters.

Where the last position puts its weight (:func:`attention_on_item`, :func:`by_item_distance`), the
learned kind × kind score table beside the article's hand-chosen one (:func:`kind_score_table`,
:func:`centred`, :func:`action_row`, :func:`article_score_table`), and everything one checkpoint of
a run does with one sentence (:func:`checkpoint_record`, what the notebook's explorer shows).
"""
from __future__ import annotations

import numpy as np

from ..render.validation import as_float_array, instance, positive_float
from .model import _check_data, _check_params, forward
from .task import ITEMS, KINDS, encode


def attention_on_item(params, data, *, scaled: bool = True) -> np.ndarray:
    """The last position's weight on each sentence's 事项 token."""
    fwd = forward(params, data, scaled=scaled)
    return fwd.weights[np.arange(len(data)), data.item_pos]


def by_item_distance(params, data, *, scaled: bool = True) -> dict:
    """Per distance of the 事项 word from the end (:attr:`Sentences.item_distance`):
    ``{distance: (count, mean weight on the 事项 word, accuracy)}`` — where a model that fails
    puts its weight, and whether it fails more at some distances than at others."""
    data = _check_data(data)
    fwd = forward(params, data, scaled=scaled)
    on_item = fwd.weights[np.arange(len(data)), data.item_pos]
    right = np.argmax(fwd.logits, axis=1) == data.target
    return {int(k): (int(np.sum(data.item_distance == k)), float(on_item[data.item_distance == k].mean()),
                     float(right[data.item_distance == k].mean()))
            for k in np.unique(data.item_distance)}


def kind_score_table(w_q, w_k, *, scale=None) -> np.ndarray:
    """Score per unit of query feature (row) and key feature (column) over the four kinds:
    the kind block of ``W_Q W_Kᵀ`` times ``scale`` (default 1/√d). ``W_Q W_Kᵀ`` is unchanged by
    any invertible A (W_Q A, W_K A⁻ᵀ; a rotation is one such A), so a learned and a hand-chosen
    head can be compared. The block leaves out the identity dimensions' terms."""
    q = as_float_array("w_q", w_q, ndim=2)
    k = as_float_array("w_k", w_k, ndim=2)
    if q.shape[1] != k.shape[1] or q.shape[0] < len(KINDS) or k.shape[0] < len(KINDS):
        raise ValueError(f"w_q and w_k must be (features ≥ 4, d) with the same d, got {q.shape} and {k.shape}")
    factor = 1.0 / np.sqrt(q.shape[1]) if scale is None else positive_float("scale", scale)
    return q[: len(KINDS)] @ k[: len(KINDS)].T * factor


def action_row(params) -> np.ndarray:
    """The 动作 row of the centred kind score table of ``params`` (the only row the task trains)."""
    p = _check_params(params)
    if "W_Q" not in p:
        raise ValueError("params must hold W_Q and W_K (the attention model, not the fixed-position baseline)")
    return centred(kind_score_table(p["W_Q"], p["W_K"]))[KINDS.index("动作")]


def centred(table) -> np.ndarray:
    """Each row minus its mean: softmax ignores a constant added to a row, so only these
    differences matter."""
    t = as_float_array("table", table, ndim=2)
    return t - t.mean(axis=1, keepdims=True)


def article_score_table() -> np.ndarray:
    """The article's hand-chosen W_Q W_Kᵀ / √2 over the four features (``02_qkv``)."""
    from .. import example

    return kind_score_table(example.W_Q, example.W_K)


def centred_table_at(run, step: int) -> np.ndarray:
    """The centred kind × kind score table of ``run``'s checkpoint ``step``."""
    params = _run(run).params_at(step)
    return centred(kind_score_table(params["W_Q"], params["W_K"]))


def checkpoint_record(run, step: int, words) -> dict:
    """What checkpoint ``step`` of ``run`` does with the sentence ``words`` (a sequence of words of
    the task): the last word's ``weights`` over it, the 事项 word's position ``item``, the centred
    score ``table``, the ``predicted`` 事项 and its ``probability``, and the run's test ``accuracy``
    and training ``loss`` at that step (``10_learning_to_attend``'s explorer shows these)."""
    run = _run(run)
    data = encode([words])
    fwd = forward(run.params_at(step), data)
    words = data.tokens[0]
    predicted = int(np.argmax(fwd.probs[0]))
    return {
        "step": step, "words": words, "weights": fwd.weights[0, : len(words)], "item": int(data.item_pos[0]),
        "table": centred_table_at(run, step), "predicted": ITEMS[predicted],
        "probability": float(fwd.probs[0, predicted]), "accuracy": run.test_accuracy_at(step), "loss": run.loss[step],
    }


def _run(run):
    from .trainer import TrainingRun

    return instance("run", run, TrainingRun, "TrainingRun (from helpers.training.train or trained_run)")
