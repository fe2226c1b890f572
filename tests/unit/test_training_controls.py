"""10's controls: which part of a word's input the trained head's keys and values use
(part_ablated against the literal mean-ablation), and the √d experiment's confound (Adam's first
step moves unscaled scores √d times further) with its matched-step control."""
import math

import numpy as np
import pytest

from helpers import softmax, training
from helpers.training import INPUT_PARTS, KINDS

RUN = training.trained_run()
FINAL = RUN.params_at(RUN.steps)
TEST = training.dataset("test")


def literal(params, data, *, keys=None, values=None):
    """The forward pass written out, one part of the key (or value) inputs replaced by its mean."""
    x = data.x
    q = data.last @ params["W_Q"]
    xk = x.copy()
    if keys is not None:
        other = INPUT_PARTS["身份" if keys == "种类" else "种类"]
        xk[..., other] = x[data.valid][:, other].mean(axis=0)
    weights = softmax((xk @ params["W_K"]) @ q[:, :, None] / math.sqrt(q.shape[1]) + data.mask[..., None], axis=1)[..., 0]
    mixed = np.einsum("bl,bli->bi", weights, x)
    if values is not None:
        other = INPUT_PARTS["身份" if values == "种类" else "种类"]
        mixed[:, other] = mixed[:, other].mean(axis=0)
    return weights, mixed @ params["W_V"] @ params["W_O"] + params["b_O"]


@pytest.mark.parametrize("where", ["keys", "values"])
@pytest.mark.parametrize("kept", list(INPUT_PARTS))
def test_part_ablated_is_the_literal_mean_ablation(where, kept):
    weights, logits = literal(FINAL, TEST, **{where: kept})
    fwd = training.forward(training.part_ablated(FINAL, TEST, **{where: kept}), TEST)
    assert np.allclose(fwd.weights, weights, atol=1e-12)
    assert np.allclose(fwd.logits, logits, atol=1e-10)


def test_keys_find_the_item_by_kind_and_values_carry_it_by_identity():
    rows = {(where, kept): (on_item, accuracy) for where, kept, on_item, accuracy in training.part_split(FINAL, TEST)}
    full = rows[(None, None)]
    assert full[1] == 1.0
    assert rows[("keys", "种类")][0] > 0.95 and rows[("keys", "种类")][1] > 0.95
    assert rows[("keys", "身份")][0] < 0.5 and rows[("keys", "身份")][1] < 0.6
    assert rows[("values", "身份")][1] > 0.95
    assert rows[("values", "种类")][1] < 0.35  # near chance (1/4): the kinds of the 4 事项 are the same
    assert rows[("values", "种类")][0] == full[0]  # values do not move the weights
    assert len(KINDS) == 4


def test_part_ablated_names_bad_arguments():
    with pytest.raises(ValueError, match="keys"):
        training.part_ablated(FINAL, TEST, keys="颜色")
    baseline = training.trained_run(fixed_positions=True)
    with pytest.raises(ValueError, match="params"):
        training.part_ablated(baseline.params_at(baseline.steps), TEST, keys="种类")


def test_unscaled_scores_move_about_sqrt_d_times_further_in_the_first_step():
    moved = training.first_step_score_change()
    for d, m in moved.items():
        assert 0.75 * math.sqrt(d) < m[False] / m[True] < 1.25 * math.sqrt(d), d


def test_matched_step_control_divides_the_learning_rate_by_sqrt_d():
    rows = training.matched_step_runs()
    assert [r["d"] for r in rows] == list(training.SQRT_D_DIMS)
    for r in rows:
        assert r["lr"] == pytest.approx(training.LEARNING_RATE / math.sqrt(r["d"]))
    small = training.matched_step_runs((2,), target=0.3, steps=3, init_seeds=(0,))
    assert len(small) == 1 and len(small[0]["steps_to_target"]) == 1
    with pytest.raises(ValueError, match="target"):
        training.matched_step_runs(target=2.0)


def test_item_score_gap_splits_the_scores_exactly_and_the_kind_term_finds_the_item():
    gaps = training.item_score_gap(FINAL, TEST)
    fwd = training.forward(FINAL, TEST)
    rows = np.arange(len(TEST))
    others = TEST.valid.copy()
    others[rows, TEST.item_pos] = False
    others[rows, TEST.lengths - 1] = False
    rest = np.where(others, fwd.scores, 0.0).sum(axis=1) / others.sum(axis=1)
    assert np.allclose(gaps["种类"] + gaps["身份"], fwd.scores[rows, TEST.item_pos] - rest, atol=1e-12)
    assert gaps["种类"].min() > 3 and gaps["种类"].mean() > 5 * abs(gaps["身份"].mean())
    assert gaps["身份"].min() < 0  # on some sentences the identity term even points away from the item
