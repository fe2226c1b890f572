"""07-4 and 11-4 cannot be passed by getting around what they judge: a loaded block turned into a plain
array, the slow memory read directly, the counters or the capacity changed, or numpy's functions
replaced so the measure of an induction head's weights says what the learner wants."""
from __future__ import annotations

import numpy as np
import pytest
from sampling import first_of_each

from helpers.exercises import CODE_EXERCISES
from helpers.grading import code_check
from helpers.tiled import FastMemory


def _row_softmax(mem, block_q, block_k, plain):
    """Loads block by block (the right traffic) but keeps a whole row of scores as plain arrays."""
    n, d = mem.n, mem.d
    for qs in range(0, n, block_q):
        q = plain(mem.load("q", qs, qs + block_q))
        scores, values = [], []
        for ks in range(0, qs + len(q), block_k):
            k, v = plain(mem.load("k", ks, ks + block_k)), plain(mem.load("v", ks, ks + block_k))
            s = q @ k.T / np.sqrt(d)
            scores.append(np.where(np.arange(ks, ks + len(k))[None] <= np.arange(qs, qs + len(q))[:, None], s, -np.inf))
            values.append(v)
        s = np.concatenate(scores, axis=1)
        p = np.exp(s - s.max(1, keepdims=True))
        mem.store(qs, (p @ np.concatenate(values)) / p.sum(1, keepdims=True))
    return mem.result()


@pytest.mark.parametrize("plain", [np.asarray, np.array, lambda a: a.view(np.ndarray),
                                   lambda a: np.array(a.tolist())], ids=["asarray", "array", "view", "tolist"])
def test_a_plain_array_escape_of_the_fast_memory_is_rejected_and_named(plain):
    ok, message, mistake = code_check.run(CODE_EXERCISES["07-4"], lambda m, bq, bk: _row_softmax(m, bq, bk, plain))
    assert ok is False and mistake == "outside", message
    assert "mem 没有记到" in message


def test_reading_the_slow_memory_directly_is_rejected():
    def cheat(mem, block_q, block_k):
        q, k, v = (np.array(mem._slow[x]) for x in "qkv")
        s = np.where(np.tril(np.ones((mem.n, mem.n), bool)), q @ k.T / np.sqrt(mem.d), -np.inf)
        p = np.exp(s - s.max(1, keepdims=True))
        o = p @ v / p.sum(1, keepdims=True)
        for qs in range(0, mem.n, block_q):
            e = min(qs + block_q, mem.n)
            mem.load("q", qs, e)
            for ks in range(0, e, block_k):
                mem.load("k", ks, ks + block_k), mem.load("v", ks, ks + block_k)
            mem.store(qs, o[qs:e])
        return mem.result()
    ok, message, mistake = code_check.run(CODE_EXERCISES["07-4"], cheat)
    assert ok is False and mistake == "outside", message


@pytest.mark.parametrize("name", ["capacity", "reads", "writes"])
def test_the_counts_and_the_capacity_are_read_only(name):
    mem = FastMemory(np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 2)), 64)
    with pytest.raises(AttributeError):
        setattr(mem, name, 10**9)


def test_the_right_tiled_forward_is_still_accepted():
    namespace: dict = {}
    exec(CODE_EXERCISES["07-4"].solution, namespace)
    ok, message, _ = code_check.run(CODE_EXERCISES["07-4"], namespace["flash_forward"])
    assert ok is True, message


def _soft_induction(W_E, W_U, length, c=2.0):
    V, D = W_E.shape
    P = 3 * V
    W_pos = np.zeros((length, D))
    W_pos[np.arange(length), P + np.arange(length)] = 1
    WQ, WK, WV, WO = (np.zeros((2, 1, D, D)) for _ in range(4))
    for i in range(length):
        WQ[0, 0, P + i, i] = c
        WK[0, 0, P + i, i + 1] = c
    for t in range(V):
        WV[0, 0, t, t] = WV[1, 0, t, t] = 1
        WO[0, 0, t, V + t] = 1
        WQ[1, 0, t, t] = WK[1, 0, V + t, t] = c
        WO[1, 0, t, 2 * V + t] = 1
    return dict(W_pos=W_pos, W_Q=WQ, W_K=WK, W_V=WV, W_O=WO)


# fast: the first way of replacing it; make test: both (each grades 11-4, seconds)
@pytest.mark.parametrize("inside", first_of_each([True, False], lambda inside: "11-4",
                                                 ids=["inside the function", "before the check"]))
def test_replacing_np_mean_changes_nothing(inside):
    def sneaky(W_E, W_U, length):
        np.mean = lambda *a, **k: 1.0
        return _soft_induction(W_E, W_U, length)
    original = np.mean
    try:
        if not inside:
            np.mean = lambda *a, **k: 1.0
        ok, message, _ = code_check.run(CODE_EXERCISES["11-4"], sneaky if inside else _soft_induction)
    finally:
        np.mean = original
    assert ok is False, message


def test_changing_the_slow_memory_is_named_without_the_array_copy_hint():
    namespace: dict = {}
    exec(CODE_EXERCISES["07-4"].solution, namespace)

    def tamper(mem, block_q, block_k):
        result = namespace["flash_forward"](mem, block_q, block_k)
        mem._slow["k"][0, 0] += 1.0  # after the run: the output is right, the problem is not the same
        return result
    ok, message, mistake = code_check.run(CODE_EXERCISES["07-4"], tamper)
    assert ok is False, message
    assert "mem.copy()" not in message and "慢速内存" in message


def test_a_right_forward_that_prints_a_lot_is_still_accepted():
    namespace: dict = {}
    exec(CODE_EXERCISES["07-4"].solution, namespace)

    def chatty(mem, block_q, block_k):
        for ks in range(0, mem.n, block_k):  # past the print buffer on the long case: counted during the call
            print("键块", ks, "调试 " * 2000)
        return namespace["flash_forward"](mem, block_q, block_k)
    ok, message, _ = code_check.run(CODE_EXERCISES["07-4"], chatty)
    assert ok is True, message
