"""helpers.circuit.sweep: the stored runs carry the claims the notebook makes (11_learning_a_circuit).

Each test reads helpers/data/circuit_sweep.npz (made by `make circuit-data` with this package's code;
tests/unit/test_circuit_trainer.py retrains its prefix bit for bit) and checks one claim on *every*
seed, so a claim that holds for one lucky seed fails here.
"""

import numpy as np
import pytest
from blas import assert_blas_close

from helpers import circuit
from helpers.circuit import experiments, sweep, trainer

CEILING = circuit.positional_ceiling()


@pytest.fixture(scope="module")
def runs():
    return sweep.load()


def test_every_variant_and_seed_is_stored(runs):
    for variant, (_, _, _, seeds) in sweep.VARIANTS.items():
        assert [s.seed for s in runs[variant]] == list(seeds)
        for s in runs[variant]:
            assert s.steps[0] == 0 and s.steps[-1] == sweep.STEPS
            assert all(len(s.curves[name]) == len(s.steps) for name in sweep.CURVES)


def test_two_layers_the_drop_and_both_scores_rise_across_it_on_every_seed(runs):
    for s in runs["two_layers"]:
        start, end = s.drop
        assert s.formed
        assert 200 <= start <= 1000 and end == start + 200
        assert s.value_at("repeat_loss", start) - s.value_at("repeat_loss", end) > 1.0
        assert s.value_at("previous", start) < 0.3 < 0.4 < s.value_at("previous", end)
        assert s.value_at("induction", start) < CEILING + 0.05 < 0.6 < s.value_at("induction", end)
        # the other tokens stay unpredictable (about ln 32)
        assert abs(s.curves["other_loss"][-1] - np.log(32)) < 0.3


def test_the_window_before_the_drop_is_as_wide_as_it_and_ends_where_it_starts(runs):
    for s in runs["two_layers"] + runs["one_layer"]:
        start, end = s.drop
        assert s.before_drop == max(start - (end - start), 0) and s.before_drop in s.steps
        assert s.value_at("repeat_loss", s.before_drop) >= s.value_at("repeat_loss", start) - 0.1


def test_the_stored_drop_is_the_200_step_window_and_wider_windows_start_no_later(runs):
    for s in runs["two_layers"]:
        assert s.window() == s.window(200) == s.drop
        starts = [s.window(width)[0] for width in (200, 300, 400)]
        assert starts == sorted(starts, reverse=True) and starts[-1] < starts[0]   # wider → earlier (or the same)
        assert all(end - start == width for (start, end), width in
                   zip((s.window(w) for w in (200, 300, 400)), (200, 300, 400)))


def test_share_of_top_and_reaches_read_the_stored_curves(runs):
    s = runs["two_layers"][0]
    prev = s.curves["previous"]
    step = s.reaches("previous", 0.98)
    i = list(s.steps).index(step)
    assert prev[i] >= 0.98 * prev.max() and np.all(prev[:i] < 0.98 * prev.max())
    assert s.reaches("previous", 1.0) == int(s.steps[np.argmax(prev)])
    assert s.share_of_top("previous", int(s.steps[np.argmax(prev)])) == 1.0
    assert s.share_of_top("induction", 0) == pytest.approx(s.curves["induction"][0] / s.curves["induction"].max())
    with pytest.raises(ValueError, match="share must be"):
        s.reaches("previous", 1.5)
    with pytest.raises(ValueError, match="share must be"):
        s.reaches("previous", 0)
    with pytest.raises(ValueError, match="name must be"):
        s.share_of_top("accuracy", 0)
    with pytest.raises(ValueError, match="step must be one of the evaluated steps"):
        s.share_of_top("previous", 13)


def test_the_final_checkpoint_is_the_run_whose_patches_and_ablations_are_stored(runs):
    """The stored step-2000 parameters give every stored ablation and patch again (to round-off: this
    CPU's own kernels, not the pinned ones), so the notebook can take the same model apart in other ways."""
    model, batch, s = sweep.final_checkpoint(), trainer.eval_batch(), runs["two_layers"][0]
    assert model.config == circuit.CONFIG
    for name, value in model.params.items():
        assert value.dtype == np.float64 and np.isfinite(value).all(), name
    # this CPU's float64 kernels vs the pinned ones: sums over d_model, layer after layer, then the
    # mean over every scored position of the batch
    cfg = model.config
    tol = {"dtype": np.float64, "reduction_size": max(cfg.d_model, batch.tokens.size), "depth": 2 * cfg.layers + 1}
    clean = experiments.ablation_effects(model, batch)
    for key, pair in s.ablations.items():
        k = key if key == "clean" else (int(key[1]), int(key[3]))
        assert_blas_close((clean[k].repeat_loss, clean[k].induction[-1].max()), pair, err_msg=key, **tol)
    prev, dup = s.heads["previous"], s.heads["duplicate"]
    again = dict(experiments.composition_effects(model, batch, (0, prev)))
    again["k_other"] = experiments.patch(model, batch, (0, 1 - prev), "k")
    again |= {f"{name}_duplicate": e for name, e in experiments.composition_effects(model, batch, (0, dup)).items()
              if name != "clean"}
    assert set(again) == set(s.patches)
    for name, pair in s.patches.items():
        assert_blas_close((again[name].repeat_loss, again[name].induction[-1].max()), pair, err_msg=name, **tol)
    # the notebook's mean ablation of the other layer-0 head: the repeat loss still falls (not an artefact
    # of zeroing), and both ablations make the other tokens' loss much worse
    other = 1 - s.heads["previous"]
    mean = experiments.mean_ablate(model, batch, [(0, other)])
    assert -0.15 < mean.repeat_loss - s.ablations["clean"][0] < -0.05
    assert mean.other_loss - clean["clean"].other_loss > 0.5
    assert clean[(0, other)].other_loss - clean["clean"].other_loss > 0.5


def test_save_keeps_the_final_checkpoint_and_merge_carries_it(runs, tmp_path):
    from paths import ROOT

    prefix, final = runs["_prefix"], runs["_final"]
    two = runs["two_layers"]
    rest = [s for v in sweep.VARIANTS if v != "two_layers" for s in runs[v]]
    sweep.save(tmp_path / "a.npz", two, prefix, final=final)
    sweep.save(tmp_path / "b.npz", rest, None)
    back = sweep.load(tmp_path / "a.npz")
    assert all(np.array_equal(back["_final"].params[k], final.params[k]) for k in final.params)
    assert sweep.load(tmp_path / "b.npz")["_final"] is None
    from tools.data import circuit_data as tool

    tool.merge([str(tmp_path / "a.npz"), str(tmp_path / "b.npz")], str(tmp_path / "all.npz"))
    merged = sweep.load(tmp_path / "all.npz")
    assert all(np.array_equal(merged["_final"].params[k], final.params[k]) for k in final.params)
    assert (tmp_path / "all.npz").read_bytes() == (ROOT / "helpers" / "data" / sweep.DATA).read_bytes()
    sweep.save(tmp_path / "c.npz", two, prefix)                   # a part without the final checkpoint
    with pytest.raises(SystemExit, match="0 final checkpoints"):
        tool.merge([str(tmp_path / "c.npz"), str(tmp_path / "b.npz")], str(tmp_path / "bad.npz"))
    with pytest.raises(TypeError, match="final must be"):
        sweep.save(tmp_path / "d.npz", two, prefix, final="seed 0")


def test_key_patch_breaks_induction_query_and_value_patches_do_not(runs):
    for s in runs["two_layers"]:
        clean, k, q, v = (s.patches[name] for name in ("clean", "k", "q", "v"))
        assert k[0] - clean[0] > 2.0 and k[1] < CEILING           # repeat loss up, induction below the ceiling
        assert abs(q[0] - clean[0]) < 0.1 and abs(v[0] - clean[0]) < 0.1
        assert abs(s.patches["k_other"][0] - clean[0]) < 0.1     # the other layer-0 head: no effect


def test_ablating_the_previous_token_head_breaks_induction_the_other_head_does_not(runs):
    for s in runs["two_layers"]:
        head = s.heads["previous"]
        clean = s.ablations["clean"][0]
        assert s.ablations[f"L0H{head}"][0] - clean > 2.0
        assert s.ablations[f"L0H{1 - head}"][0] - clean < 0.1
        assert min(s.ablations["L1H0"][0], s.ablations["L1H1"][0]) - clean > 0.3


def test_one_layer_never_forms_an_induction_head(runs):
    two = max(s.curves["repeat_loss"][-1] for s in runs["two_layers"])
    for s in runs["one_layer"]:
        assert not s.formed
        assert max(s.curves["induction"]) < CEILING
        assert s.curves["repeat_loss"][-1] > two + 1.5


def test_the_fixed_variant_is_solved_by_positions_and_fails_on_random_offsets(runs):
    for s in runs["fixed_task"]:
        assert s.curves["repeat_loss"][-1] < 0.05 and max(s.curves["induction"]) > 0.8
        assert s.drop[0] == 0                                       # no plateau: positions are found at once
        assert s.curves["previous"][-1] < 0.15                      # and no previous-token head is needed
        assert s.transfer["repeat_loss"] > np.log(32) and s.transfer["induction"] < CEILING
    assert circuit.positional_ceiling(circuit.Task(fixed=True)) == pytest.approx(1.0)


def test_positions_in_the_stream_each_seed_builds_one_of_two_circuits(runs):
    """With positions in the stream some seeds build a duplicate-token head read by layer 1's queries
    (Q-composition) instead of a previous-token head read by its keys: each seed's circuit is the one
    whose patch breaks it."""
    kinds = []
    for s in runs["positions_in_stream"]:
        assert s.formed
        clean = s.patches["clean"][0]
        k_breaks = s.patches["k"][0] - clean > 2.0
        q_breaks = s.patches["q_duplicate"][0] - clean > 2.0
        assert k_breaks != q_breaks
        if q_breaks:
            assert s.curves["duplicate"][-1] > 0.6 and s.curves["previous"][-1] < 0.15
            assert s.patches["k_duplicate"][0] - clean < 0.3
        kinds.append("q" if q_breaks else "k")
    assert set(kinds) == {"q", "k"}
    # with positions in q and k only, the duplicate-token route never forms
    for s in runs["two_layers"]:
        assert s.patches["q_duplicate"][0] - s.patches["clean"][0] < 0.1 and s.curves["duplicate"][-1] < 0.15


def test_learning_rate_moves_the_drop(runs):
    starts = {v: [s.drop[0] for s in runs[v]] for v in ("lr_high", "two_layers", "lr_low")}
    assert max(starts["lr_high"]) < min(starts["two_layers"]) and max(starts["two_layers"]) < min(starts["lr_low"])
    assert all(s.formed for v in ("lr_high", "lr_low") for s in runs[v])


def test_every_stored_run_was_trained_in_the_pinned_environment():
    """``make circuit-data`` trains every run under tools/data/pinned.py's environment, so the file is the same on any x86-64."""
    from helpers.circuit import sweep

    assert sweep.unpinned_runs() == []
