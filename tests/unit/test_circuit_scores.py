"""helpers.circuit.scores: previous-token, induction and duplicate-token scores on the task (11_learning_a_circuit)."""
import numpy as np
import pytest

from helpers import circuit
from helpers.attention import causal_mask, softmax
from helpers.circuit import scores


def _batch(n=20, seed=0):
    return circuit.sequences(n, seed)


def _patterns(batch, heads=1):
    return np.zeros((len(batch), heads, batch.task.length, batch.task.length))


def test_a_perfect_induction_pattern_scores_one_and_a_previous_token_pattern_scores_one():
    batch = _batch()
    n = batch.task.length
    weights = _patterns(batch, heads=2)
    weights[:, :, 0, 0] = 1.0
    i = np.arange(1, n)
    weights[:, 0, i, i - 1] = 1.0                                  # head 0: previous token everywhere
    weights[:, 1] = np.eye(n)                                     # head 1: itself, except on the copies…
    seq, query, key = batch.induction_pairs
    weights[seq, 1, query, :] = 0.0
    weights[seq, 1, query, key] = 1.0                             # …where it looks at the induction target
    ind = scores.induction_score(weights, batch)
    dup = scores.duplicate_token_score(weights, batch)
    assert ind[1] == 1.0 and dup[1] == 0.0
    assert ind[0] < 0.2          # a previous-token head hits the target only where key = query − 1 by chance
    from helpers.heads import previous_token_score
    prev = previous_token_score(weights).mean(axis=0)
    assert prev[0] == 1.0 and prev[1] < 0.5


def test_duplicate_score_reads_the_earlier_copy_of_the_same_token():
    batch = _batch()
    weights = _patterns(batch)
    seq, query, key = batch.induction_pairs
    weights[seq, 0, query, key - 1] = 1.0
    assert scores.duplicate_token_score(weights, batch)[0] == 1.0
    assert scores.induction_score(weights, batch)[0] == 0.0
    # a single pattern (B, n, n) gives a number
    assert scores.duplicate_token_score(weights[:, 0], batch) == 1.0


def test_uniform_causal_attention_scores_are_the_chance_levels():
    batch = _batch(5)
    n = batch.task.length
    uniform = np.broadcast_to(softmax(causal_mask(n)), (5, 1, n, n))
    seq, query, key = batch.induction_pairs
    np.testing.assert_allclose(scores.induction_score(uniform, batch)[0], np.mean(1.0 / (query + 1)))


def test_head_scores_of_a_model_and_the_loss_split():
    model = circuit.init_model(circuit.CONFIG, 1)
    batch = _batch(16, 2)
    s = scores.head_scores(model, batch)
    assert s.previous.shape == s.induction.shape == s.duplicate.shape == (2, 2)
    cache = circuit.forward(model, batch.tokens)
    losses = cache.token_losses()
    assert s.repeat_loss == pytest.approx(losses[batch.predictable].mean())
    assert s.other_loss == pytest.approx(losses[~batch.predictable].mean())
    assert s.best("induction", 1) == (int(np.argmax(s.induction[1])), float(s.induction[1].max()))
    # at initialisation both losses are close to ln(vocab)
    assert abs(s.repeat_loss - np.log(32)) < 0.5 and abs(s.other_loss - np.log(32)) < 0.5


def test_bad_input_is_named():
    batch = _batch(4)
    with pytest.raises(ValueError, match="weights must be patterns"):
        scores.induction_score(np.zeros((3, 1, 32, 32)), batch)
    with pytest.raises(TypeError, match="batch must be"):
        scores.induction_score(np.zeros((4, 1, 32, 32)), batch.tokens)
    with pytest.raises(ValueError, match="contains NaN"):
        scores.induction_score(np.full((4, 1, 32, 32), np.nan), batch)
