"""helpers.linear_attention (``15_fixed_state``): the three forms are one computation (to 1e-10 in
float64, at the notebook's shapes and others), the state does not grow with the length, and the ledger's
closed forms equal a count of every array every layer keeps, row by row."""
import numpy as np
import pytest

import helpers
from helpers.linear_attention import forms, ledger

#: float64 sums of at most a few hundred positive terms: two orders differ by ~1e-14 relative;
#: 1e-10 is the notebook's bound, three orders above that
EQUAL = 1e-10


def _inputs(n=50, heads=4, d_k=8, d_v=6, seed=0):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, n, heads, d_k))
    return forms.feature_map(q), forms.feature_map(k), rng.standard_normal((n, heads, d_v))


@pytest.mark.parametrize("n, heads, d_k, d_v", [(50, 4, 8, 6), (1, 1, 3, 2), (200, 2, 16, 16), (33, 3, 4, 9)])
def test_parallel_recurrent_and_chunkwise_are_one_computation(n, heads, d_k, d_v):
    pq, pk, v = _inputs(n, heads, d_k, d_v)
    parallel = forms.parallel(pq, pk, v)
    recurrent, state = forms.recurrent(pq, pk, v)
    assert np.abs(parallel - recurrent).max() < EQUAL
    for chunk in (1, 7, 16, n, n + 5):
        out, chunk_state = forms.chunkwise(pq, pk, v, chunk)
        assert np.abs(out - parallel).max() < EQUAL
        assert np.abs(chunk_state.S - state.S).max() < EQUAL * max(1, n) and np.abs(chunk_state.z - state.z).max() < EQUAL * n


def test_one_head_without_the_head_axis():
    pq, pk, v = _inputs(heads=1)
    assert forms.parallel(pq[:, 0], pk[:, 0], v[:, 0]).shape == (50, 6)
    assert np.abs(forms.parallel(pq[:, 0], pk[:, 0], v[:, 0]) - forms.parallel(pq, pk, v)[:, 0]).max() < EQUAL


def test_the_state_does_not_grow():
    sizes = {forms.recurrent(*_inputs(n=n))[1].numbers for n in (1, 10, 100, 400)}
    assert sizes == {forms.state_numbers(8, 6, 4)} == {4 * (8 * 6 + 8)}


def test_weights_rows_sum_to_one_and_are_causal():
    pq, pk, _ = _inputs(n=9)
    w = forms.weights(pq, pk)
    assert np.allclose(w.sum(axis=-1), 1.0) and np.all(np.triu(w, 1) == 0)


def test_features_must_be_non_negative():
    with pytest.raises(ValueError, match="feature_map"):
        forms.parallel(-np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 2)))


# ---- the ledger ---------------------------------------------------------------------------------
@pytest.mark.parametrize("model", ledger.MODELS, ids=lambda m: m.name)
def test_every_closed_form_equals_the_count_of_its_arrays(model):
    f = model.closed_form()
    for n in (0, 1, 100, 1023, 1024, 1025, 4096, 131072, 1 << 20):
        assert model.counted(n) == model.total(n), (model.name, n)
    assert model.total(0) == f["fixed"]


def test_the_rows_are_the_published_numbers():
    rows = {m.name: m for m in ledger.MODELS}
    assert rows["Llama-3.1-8B"].closed_form()["per_token"] == helpers.cost.kv_cache_bytes_per_token(helpers.LLAMA_3_1_8B) == 131072
    assert rows["SmolLM2-135M"].closed_form()["per_token"] == helpers.cost.kv_cache_bytes_per_token(helpers.config.SMOLLM2_135M)
    assert rows["DeepSeek-V3（MLA）"].closed_form()["per_token"] == 61 * (512 + 64) * 2 == 70272
    assert rows["DeepSeek-V3（展开成每头 K、V）"].closed_form()["per_token"] == 61 * 128 * (192 + 128) * 2 == 4997120
    gemma = rows["Gemma-3-27B（5 层窗口 : 1 层全局）"]
    assert gemma.kinds() == {"window": 52, "full": 10}
    assert gemma.closed_form() == {"per_token": 10 * 2 * 16 * 128 * 2, "fixed": 0, "window_per_token": 52 * 2 * 16 * 128 * 2,
                                   "window": 1024}
    qwen = rows["Qwen3-Next-80B-A3B（3 层线性 : 1 层全局）"]
    assert qwen.kinds() == {"linear": 36, "full": 12}
    assert qwen.closed_form()["per_token"] == 12 * 2 * 2 * 256 * 2
    assert qwen.closed_form()["fixed"] == 36 * (32 * 128 * 128 + (2 * 16 * 128 + 32 * 128) * 3) * 2


def test_every_row_names_its_source():
    for m in ledger.MODELS:
        assert "config" in m.source or "_gemma.py" in m.source, m.name
