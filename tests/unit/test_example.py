"""helpers.example: the article's running example and its numbers (the tables of the article)."""
import numpy as np
import pytest

from helpers import example, scaled_dot_product_attention


def r3(x):
    return np.round(np.asarray(x, dtype=float), 3).tolist()


def test_qkv_table():
    qkv = example.running_qkv()
    assert qkv.q.tolist() == [[1, 1], [0, 2], [1, 0], [2, 0]]
    assert qkv.k.tolist() == [[1, 0], [2, 0], [0, 1], [0, 0]]
    assert qkv.v.tolist() == [[1, 0], [2, 0], [0, 1], [0, 1]]
    # the two facts the article states
    assert qkv.q[3].tolist() == example.W_Q[3].tolist()
    assert qkv.k[1].tolist() == (2 * example.W_K[0]).tolist()


def test_hand_row_of_shenqing():
    qkv = example.running_qkv()
    row = example.hand_row(qkv.q[3], qkv.k, qkv.v)
    assert row.dots.tolist() == [2, 4, 0, 0]
    assert r3(row.scores) == [1.414, 2.828, 0.0, 0.0]
    assert r3(row.exps) == [4.113, 16.919, 1.0, 1.0]
    assert round(row.total, 3) == 23.032
    assert r3(row.weights) == [0.179, 0.735, 0.043, 0.043]
    assert r3(row.output) == [1.648, 0.087]
    assert round(row.weights[1] * 100, 1) == 73.5
    np.testing.assert_allclose(row.exps / row.total, row.weights)


def test_without_sqrt_d_jia_weight():
    qkv = example.running_qkv()
    row = example.hand_row(qkv.q[3], qkv.k, qkv.v, scaled=False)
    assert round(row.weights[1], 3) == 0.853


def test_causal_rows():
    qkv = example.running_qkv()
    _, w = scaled_dot_product_attention(qkv.q, qkv.k, qkv.v, causal=True)
    assert r3(w[0, :1]) == [1.0]
    assert r3(w[1, :2]) == [0.5, 0.5]
    assert r3(w[2, :3]) == [0.284, 0.576, 0.140]
    assert r3(w[3]) == [0.179, 0.735, 0.043, 0.043]
    assert w.size == 16


def test_unmasked_jia_row_reads_the_answer():
    qkv = example.running_qkv()
    _, w = scaled_dot_product_attention(qkv.q, qkv.k, qkv.v)
    scores = qkv.q @ qkv.k.T / np.sqrt(2)
    assert int(np.argmax(scores[1])) == 2 and round(scores[1, 2], 3) == 1.414
    assert round(w[1, 2], 3) == 0.578


def test_project_rejects_wrong_width():
    with pytest.raises(ValueError, match=r"x has 3 features .* W_Q expects 4 rows"):
        example.project(np.zeros((2, 3)), example.W_Q, name="W_Q")


def test_the_worked_row_matches_the_article_and_names_bad_input():
    """The working the exercises of 00 and 03 print under their verdict: the running example's own
    arithmetic, kept here so the grading wing imports no lesson module."""
    row, working = example.row_working("申请")
    assert "0.179, 0.735, 0.043, 0.043" in working and "÷√2" in working and "（年、假、怎么、申请）" in working
    assert np.isclose(row.weights.sum(), 1.0)
    turned, _ = example.row_working("申请", q=[0, 2])
    assert int(np.argmax(turned.weights)) == example.TOKENS.index("怎么")
    with pytest.raises(ValueError, match="token"):
        example.row_working("请假")
    with pytest.raises(ValueError, match="k"):
        example.row_working("申请", k=[[1, 0], [0, 1]])
