"""helpers.circuit.task: the repeated-segment sequences (11_learning_a_circuit)."""
import numpy as np
import pytest

from helpers import circuit
from helpers.circuit import task as task_module


def test_the_second_copy_repeats_the_first_and_fits():
    t = circuit.Task()
    batch = circuit.sequences(500, 3, t)
    assert batch.tokens.shape == (500, t.length) and batch.tokens.dtype == np.int64
    assert batch.tokens.min() >= 0 and batch.tokens.max() < t.vocab
    assert np.all((batch.repeat >= t.min_repeat) & (batch.repeat <= t.max_repeat))
    assert np.all(batch.first >= 0) and np.all(batch.second >= batch.first + batch.repeat)
    assert np.all(batch.second + batch.repeat <= t.length)
    for row, a, s, r in zip(batch.tokens, batch.first, batch.second, batch.repeat):
        np.testing.assert_array_equal(row[a:a + r], row[s:s + r])


def test_length_and_offset_really_vary():
    batch = circuit.sequences(2000, 0)
    t = circuit.Task()
    assert set(np.unique(batch.repeat)) == set(range(t.min_repeat, t.max_repeat + 1))
    distance = batch.second - batch.first
    assert len(np.unique(distance)) >= 8
    assert len(np.unique(batch.first)) >= 5


def test_fixed_variant_has_one_layout():
    t = circuit.Task(fixed=True)
    batch = circuit.sequences(50, 1, t)
    assert set(batch.repeat) == {t.max_repeat}
    assert set(batch.first) == {t.fixed_first} and set(batch.second) == {t.fixed_second}
    assert t.fixed_second >= t.fixed_first + t.max_repeat and t.fixed_second + t.max_repeat <= t.length


def test_predictable_entries_and_induction_pairs():
    batch = circuit.sequences(200, 4)
    for b in range(len(batch)):
        a, s, r = batch.first[b], batch.second[b], batch.repeat[b]
        entries = np.nonzero(batch.predictable[b])[0]
        np.testing.assert_array_equal(entries, np.arange(s, s + r - 1))
        # what each predictable entry predicts is the token after its token's earlier occurrence
        for i in entries:
            assert batch.tokens[b, i + 1] == batch.tokens[b, i - (s - a) + 1]
    seq, query, key = batch.induction_pairs
    assert len(seq) == int(np.sum(batch.repeat - 1)) == int(batch.predictable.sum())
    np.testing.assert_array_equal(batch.tokens[seq, query], batch.tokens[seq, key - 1])
    assert np.all(key < query)


def test_ambiguous_marks_queries_whose_token_occurred_more_than_once_before():
    batch = circuit.sequences(50, 7)
    seq, query, _ = batch.induction_pairs
    for n in range(len(seq)):
        b, q = seq[n], query[n]
        earlier = int(np.count_nonzero(batch.tokens[b, :q] == batch.tokens[b, q]))
        assert earlier >= 1                                   # the first copy always holds it once
        assert batch.ambiguous[n] == (earlier > 1)
    assert 0 < batch.ambiguous.mean() < 1
    # a hand-made batch: no token repeats inside the sequence except the copy itself → nothing ambiguous
    task = circuit.Task(vocab=32, length=12, min_repeat=4, max_repeat=4)
    tokens = np.array([[0, 1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7]])
    clean = circuit.Batch(task, tokens, [4], [8], [4])
    assert not clean.ambiguous.any() and len(clean.ambiguous) == 3
    tokens = np.array([[5, 1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7]])      # 5 also at position 0
    twice = circuit.Batch(task, tokens, [4], [8], [4])
    np.testing.assert_array_equal(twice.ambiguous, [False, True, False])


def test_most_repeated_counts_the_first_copy_and_the_whole_sequence():
    task = circuit.Task(vocab=32, length=12, min_repeat=4, max_repeat=4)
    tokens = np.array([[9, 9, 3, 9, 3, 9, 0, 0, 9, 3, 9, 3]])
    batch = circuit.Batch(task, tokens, [2], [8], [4])
    assert batch.most_repeated(0) == (3, 2, 4)               # 3 and 9 tie in the copy: the smaller id
    demo = circuit.sequences(3, seed=0)
    token, in_first, in_all = demo.most_repeated(0)
    f, r = demo.first[0], demo.repeat[0]
    assert in_first == np.count_nonzero(demo.tokens[0, f:f + r] == token) == np.bincount(demo.tokens[0, f:f + r]).max()
    assert in_all == np.count_nonzero(demo.tokens[0] == token) >= 2 * in_first
    with pytest.raises(ValueError, match="row must be"):
        demo.most_repeated(3)


def test_seeded_and_draws_differ():
    a, b = circuit.sequences(10, 7), circuit.sequences(10, 7)
    np.testing.assert_array_equal(a.tokens, b.tokens)
    c = circuit.sequences(10, 7, draw=1)
    assert not np.array_equal(a.tokens, c.tokens)


def test_positional_ceiling_is_low_here_and_one_for_the_fixed_variant():
    assert circuit.positional_ceiling(circuit.Task()) < 0.3
    assert circuit.positional_ceiling(circuit.Task(fixed=True)) == pytest.approx(1.0)


@pytest.mark.parametrize("kwargs, kind, match", [
    ({"length": 10, "max_repeat": 6, "min_repeat": 2}, ValueError, "2·max_repeat"),
    ({"min_repeat": 1}, ValueError, "min_repeat"),
    ({"min_repeat": 6, "max_repeat": 5}, ValueError, "max_repeat"),
    ({"vocab": 2.5}, TypeError, "vocab"),
    ({"fixed": 1}, TypeError, "fixed"),
])
def test_bad_task_is_named(kwargs, kind, match):
    with pytest.raises(kind, match=match):
        circuit.Task(**kwargs)


def test_bad_sequences_arguments_are_named():
    with pytest.raises(ValueError, match="n must be"):
        circuit.sequences(0, 1)
    with pytest.raises(TypeError, match="task must be"):
        circuit.sequences(3, 1, "fixed")
    with pytest.raises(ValueError, match="draw"):
        circuit.sequences(3, 1, draw=-1)
    with pytest.raises(ValueError, match="n must be"):
        circuit.sequences(task_module.MAX_SEQUENCES + 1, 1)
