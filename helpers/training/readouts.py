"""``10_learning_to_attend``'s readouts: what a trained head does, read off its parameters.

Where the last position puts its weight (:func:`attention_on_item`, :func:`by_item_distance`), the
learned kind × kind score table beside the article's hand-chosen one (:func:`kind_score_table`,
:func:`centred`, :func:`action_row`, :func:`article_score_table`), everything one checkpoint of
a run does with one sentence (:func:`checkpoint_record`, what the notebook's explorer shows), and
which part of a word's input the scores and the values use (:func:`item_score_gap`, :func:`part_split`).
"""
from __future__ import annotations

import numpy as np

from .. import example
from ..render.validation import as_float_array, instance, positive_float
from .model import _check_data, _check_params, forward
from .task import INPUT_DIM, ITEMS, KINDS, encode
from .trainer import TrainingRun

#: the two parts of every word's input (helpers.training.task): its kind one-hot, its random identity
INPUT_PARTS = {"种类": slice(0, len(KINDS)), "身份": slice(len(KINDS), INPUT_DIM)}


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
    return instance("run", run, TrainingRun, "TrainingRun (from helpers.training.train or trained_run)")


def item_score_gap(params, data, *, scaled: bool = True) -> dict:
    """How far the 事项 word's score stands above the other words' (those before the last), per
    sentence, split by the part of the key input it comes from: ``{"种类": gaps, "身份": gaps}``.
    The score s_j = scale · x_j·(W_K q) is a sum over the input's dimensions, so it splits exactly
    into the kind dimensions' term and the identity dimensions' term."""
    p, data = _check_params(params), _check_data(data)
    if "W_K" not in p:
        raise ValueError("params must hold W_Q and W_K (the attention model, not the fixed-position baseline)")
    fwd = forward(p, data, scaled=scaled)
    looks_for = fwd.q @ p["W_K"].T * fwd.scale                         # (B, D): scale · W_K q
    rows = np.arange(len(data))
    others = data.valid.copy()
    others[rows, data.item_pos] = False
    others[rows, data.lengths - 1] = False                             # the last word is the query's own
    gaps = {}
    for name, part in INPUT_PARTS.items():
        term = np.einsum("bli,bi->bl", data.x[..., part], looks_for[:, part])
        rest = np.where(others, term, 0.0).sum(axis=1) / others.sum(axis=1)
        gaps[name] = term[rows, data.item_pos] - rest
    return gaps


def part_ablated(params, data, *, keys=None, values=None) -> dict:
    """Parameters that give the model's output when the keys (``keys``) or the values (``values``)
    see only one part of each word's input (``"种类"`` or ``"身份"``, see :data:`INPUT_PARTS`), the
    other part replaced by its mean — the mean over ``data``'s weighted inputs Σ_j p_j x_j for the
    values (folded into b_O). For the keys any constant gives the same weights (softmax ignores a
    shift shared by a row), so the other part's rows of W_K are zeroed. The query is untouched."""
    p = {name: value.copy() for name, value in _check_params(params).items()}
    if "W_K" not in p:
        raise ValueError("params must hold W_Q and W_K (the attention model, not the fixed-position baseline)")
    keys = None if keys is None else _part("keys", keys)
    values = None if values is None else _part("values", values)
    if keys is not None:
        p["W_K"][_other(keys)] = 0.0
    if values is not None:
        other = _other(values)
        mean = forward(params, data).mixed[:, other].mean(axis=0)
        p["b_O"] = p["b_O"] + mean @ p["W_V"][other] @ p["W_O"]
        p["W_V"][other] = 0.0
    return p


def part_split(params, data) -> list:
    """Which part of a word's input the trained head uses where (``10_learning_to_attend``): rows
    ``(where, kept, mean weight on the 事项 word, accuracy)`` for the full model (``where`` None)
    and for the keys, then the values, keeping only 种类 or only 身份 (:func:`part_ablated`)."""
    data = _check_data(data)
    rows = []
    for where, kept in ((None, None), *(((w, k) for w in ("keys", "values") for k in INPUT_PARTS))):
        p = params if where is None else part_ablated(params, data, **{where: kept})
        fwd = forward(p, data)
        rows.append((where, kept, float(fwd.weights[np.arange(len(data)), data.item_pos].mean()), fwd.accuracy))
    return rows


def _part(name: str, part) -> str:
    if not isinstance(part, str) or part not in INPUT_PARTS:
        raise ValueError(f"{name} must be one of {list(INPUT_PARTS)} (the part kept), got {part!r}")
    return part


def _other(kept: str) -> slice:
    return INPUT_PARTS["身份" if kept == "种类" else "种类"]
