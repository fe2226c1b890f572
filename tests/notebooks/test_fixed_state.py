"""``15_fixed_state``: its three explorers driven control by control, its exercises' answers, and the stored
training runs — every setting and core retrained for its first 100 steps, bit for bit, in the pinned
environment."""
import subprocess
import sys

import numpy as np
import pytest
from paths import ROOT

from helpers import exercises, widgets
from helpers.exercises import fixed_state
from helpers.linear_attention import forms, ledger, recall
from tools.data import pinned
from tools.series import NOTEBOOKS


def test_the_notebook_is_listed_and_its_exercises_carry_its_number():
    assert "15_fixed_state" in NOTEBOOKS
    assert all(key.startswith("15-") for key in fixed_state.EXERCISES), sorted(fixed_state.EXERCISES)
    assert set(fixed_state.CODE_EXERCISES) == {"15-2"}


def test_chunk_explorer_each_control():
    e = widgets.chunk_explorer()
    for chunk in (1, 4, 7, 16):
        e.controls["chunk"].value = chunk
        inside = sum(min(chunk, 16 - start) * (min(chunk, 16 - start) + 1) // 2 for start in range(0, 16, chunk))
        assert (e.state["inside"], e.state["through"]) == (inside, 136 - inside)
        assert "与并行形式相差 &lt; 1e-10：是" in e.readout.value
    assert e.state["through"] == 0 and e.state["chunks"] == 1


def test_recall_explorer_each_control():
    e = widgets.recall_explorer()
    runs = recall.load()["runs"]
    for setting in ("plain", "conv"):
        e.controls["setting"].value = setting
        for seed in recall.SEEDS:
            e.controls["seed"].value = seed
            soft, lin = runs[(setting, "softmax", seed)], runs[(setting, "linear", seed)]
            np.testing.assert_array_equal(e.state["linear"], lin.recall)
            assert f"{soft.overall:.3f}" in e.readout.value and f"{lin.overall:.3f}" in e.readout.value
            np.testing.assert_array_equal(e.soft_line.get_ydata(), soft.recall)
            assert f"种子 {seed}" in e.title.get_text()   # the still says which run it shows


def test_ledger_explorer_each_control():
    e = widgets.ledger_explorer()
    for n in (1024, 8192, 131072, 1 << 20):
        e.controls["n"].value = n
        assert list(e.state["totals"]) == [m.total(n) for m in ledger.MODELS]
        assert e.bars[0].get_x() + e.bars[0].get_width() == ledger.MODELS[0].total(n)   # the bar ends at the total
        assert f"n = {n // 1024}K" in e.readout.value and f"n = {n // 1024}K" in e.title.get_text()


def test_exercises_are_answered_from_computation(capsys):
    assert exercises.check("15-1", "否").ok is True
    assert exercises.check("15-3", 8875).ok is True and exercises.check("15-3", 8874).ok is False
    llama, gemma = (next(m for m in ledger.MODELS if m.name.startswith(name)) for name in ("Llama", "Gemma"))
    assert gemma.total(8875) < llama.total(8875) and gemma.total(8874) >= llama.total(8874)


def test_the_recurrence_inputs_match_their_labels():
    for label, n, heads, d_k, d_v, scale, seed in fixed_state.RECURRENT_SPECS:
        pq, pk, v = fixed_state.recurrent_inputs(n, heads, d_k, d_v, scale, seed)
        assert pq.shape == pk.shape == (n, heads, d_k) and v.shape == (n, heads, d_v) and (pq > 0).all(), label
        out, S, z = fixed_state.CODE_EXERCISES["15-2"].reference(pq, pk, v)
        # the reference is the lesson's recurrence; held to the parallel form at the notebook's bound
        assert np.abs(out - forms.parallel(pq, pk, v)).max() < 1e-10 and S.shape == (heads, d_k, d_v), label


def test_stored_runs_cover_every_setting_core_and_seed():
    stored = recall.load()
    assert set(stored["runs"]) == set(recall.runs_wanted())
    assert set(stored["prefix"]) == {(s, k) for s in recall.SETTINGS for k in ("softmax", "linear")}
    for run in stored["runs"].values():
        assert len(run.bins) == len(run.recall) == len(run.counts) and run.counts.min() > 100
        assert (0 <= run.recall).all() and (run.recall <= 1).all() and run.steps[-1] == recall.STEPS[run.setting]


def test_sparse_bins_merge_into_their_neighbour_keeping_every_hit():
    bins, counts = np.array([8, 12, 16, 20, 24]), np.array([50, 3000, 400, 335, 9])
    hits = np.array([10, 2900, 300, 300, 6])
    merged = recall.merge_sparse(bins, hits / counts, counts)
    # the sparse first bin joins the second, the sparse last bin the one before it
    assert merged[0].tolist() == [8, 16, 20] and merged[2].tolist() == [3050, 400, 344]
    np.testing.assert_allclose(merged[1], [2910 / 3050, 300 / 400, 306 / 344], rtol=1e-15)  # pooled hits / count
    again = recall.merge_sparse(*merged)
    assert all(np.array_equal(a, b) for a, b in zip(again, merged))   # merging twice changes nothing
    assert recall.bin_ends("plain", merged[0]).tolist() == [15, 19, 24]   # the last runs to length − min_repeat


def test_plain_softmax_runs_are_notebook_11s_runs():
    """The plain softmax model is 11's: its loss curve at step 0 equals 11's stored evaluation of the
    same initialisation on the same kind of sequences, to rounding."""
    from helpers.circuit import sweep

    stored = recall.load()["runs"][("plain", "softmax", 0)]
    eleven = sweep.table("two_layers")[0]
    # the two evaluate different held-out batches: both start at ln 32 ± a few hundredths (untrained)
    assert abs(stored.repeat_loss[0] - eleven.value_at("repeat_loss", 0)) < 0.05


@pytest.mark.slow  # a fresh interpreter retrains 100 steps of each setting and core in the pinned environment
@pytest.mark.skipif(pinned.unpinnable() is not None, reason=str(pinned.unpinnable()))
def test_the_stored_prefixes_are_retrained_bit_for_bit(tmp_path):
    """helpers/data/fixed_state_recall.npz holds every setting and core at step 100 of seed 0: the
    generator, re-run in its pinned environment (python -m tools.data.fixed_state_data --prefix, a subprocess),
    makes the same bits whatever this process's CPU features, BLAS kernels or environment."""
    out = tmp_path / "prefix.npz"
    subprocess.run([sys.executable, "-m", "tools.data.fixed_state_data", "--prefix", str(out)],
                   check=True, cwd=ROOT, timeout=1200)
    stored = recall.load()["prefix"]
    with np.load(out) as fresh:
        for (setting, kind), params in stored.items():
            for name, value in params.items():
                assert np.array_equal(fresh[f"prefix/{setting}/{kind}/{name}"], value), (setting, kind, name)
