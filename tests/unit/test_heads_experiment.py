"""helpers.heads' batched HeadStudy: interventions (zero, mean, resample), the duplicate-token score."""

import numpy as np
import pytest
from blas import assert_blas_close, forward_reductions, lm_head_reductions
from tiny_model import tiny_model

from helpers import heads, real_model
from helpers.interventions import Replace

T = 4


@pytest.fixture(scope="module")
def study():
    return heads.HeadStudy(tiny_model(), length=T, seeds=(0, 1, 2), pool=range(256))


def test_duplicate_token_score_reads_the_first_occurrence_of_the_own_token():
    n = 2 * T + 1
    dup, ind = np.zeros((n, n)), np.zeros((n, n))
    for i in range(T + 1, n):
        dup[i, i - T] = 1.0
        ind[i, i - T + 1] = 1.0
    assert heads.duplicate_token_score(dup, T) == 1.0 and heads.induction_score(dup, T) == 0.0
    assert heads.duplicate_token_score(ind, T) == 0.0 and heads.induction_score(ind, T) == 1.0
    with pytest.raises(ValueError, match="2·length"):
        heads.duplicate_token_score(np.eye(8), T)


def test_the_batched_study_matches_one_sequence_at_a_time(study):
    model = study.model
    reductions = forward_reductions(model.config)  # one sequence vs a batch: other GEMM shapes, other sums
    for s, ids in enumerate(study.ids):
        run = real_model.forward(model, ids)
        assert_blas_close(real_model.next_token_losses(run.logits, ids), study.losses[s], **reductions)
        assert_blas_close(np.stack(run.weights), study.weights[s], **reductions)
    assert study.sequence_scores["duplicate"].shape == (3, 2, 2)
    np.testing.assert_allclose(study.scores["duplicate"],
                               heads.duplicate_token_score(study.weights, T).mean(axis=0))


def test_intervening_on_nothing_is_the_clean_run_and_zero_is_ablate(study):
    none = study.intervene([])
    first, second = heads.copy_losses(study.losses, T)
    assert np.array_equal(none["first"], first) and np.array_equal(none["second"], second)
    fast = study.intervene([(1, 0)])  # the lm_head only where the copy losses read
    full = study.intervene([(1, 0)], full_losses=True)
    lm_head = lm_head_reductions(study.model.config)  # fewer rows reach the lm_head: another GEMM
    assert_blas_close(fast["first"], full["first"], **lm_head)
    assert_blas_close(fast["second"], full["second"], **lm_head)
    assert np.array_equal(full["losses"], study.ablate([(1, 0)])["losses"])
    assert not np.allclose(full["second"], second)


def test_mean_and_resample_put_the_reference_outputs_in_place(study):
    ref_ids = np.stack([heads.repeated_sequence(study.pool, T, s) for s in study.reference_seeds])
    assert study.reference_seeds == (1000, 1001, 1002)
    inputs = real_model.forward(study.model, ref_ids, keep_inputs=True).layer_inputs
    z = real_model.head_attention(study.model, 1, 1, inputs[1]).z  # (reference, n, d)
    np.testing.assert_allclose(study.reference_outputs()[:, 1, 1], z, atol=1e-6)
    mean = study.replacements([(1, 1)], "mean")[(1, 1)]
    np.testing.assert_allclose(mean, z.mean(axis=0), atol=1e-6)
    resample = study.replacements([(1, 1)], "resample")[(1, 1)]
    np.testing.assert_allclose(resample, z, atol=1e-6)
    by_hand = real_model.forward(study.model, study.batch, interventions={(1, 1): Replace(mean)})
    losses = real_model.next_token_losses(by_hand.logits, study.batch)
    np.testing.assert_allclose(study.intervene([(1, 1)], "mean", full_losses=True)["losses"], losses, atol=1e-12)
    assert study.ablate([(1, 1)], "mean") is study.ablate([(1, 1)], "mean")  # memoised per kind
    assert study.ablate([(1, 1)], "mean") is not study.ablate([(1, 1)])


def test_study_arguments_are_checked(study):
    model = tiny_model()
    with pytest.raises(ValueError, match="reference_seeds must be other sequences than seeds"):
        heads.HeadStudy(model, length=T, seeds=(0, 1), reference_seeds=(1, 2), pool=range(256))
    with pytest.raises(ValueError, match="seeds must be distinct"):
        heads.HeadStudy(model, length=T, seeds=(0, 0), pool=range(256))
    with pytest.raises(ValueError, match="length must be at most 3"):
        heads.HeadStudy(model, length=T, pool=[1, 2, 3])
    with pytest.raises(ValueError, match="kind must be one of"):
        study.intervene([(0, 0)], "noise")
    with pytest.raises(ValueError, match="resample needs at least as many reference_seeds"):
        heads.HeadStudy(model, length=T, seeds=(0, 1), reference_seeds=(5,), pool=range(256)).replacements(
            [(0, 0)], "resample")


def test_composition_on_the_study_patches_one_input_and_reads_the_receivers_score(study):
    rows = study.composition((0, 1), (1, 0))
    assert [r["inputs"] for r in rows] == [("q",), ("k",), ("v",), ("q", "k", "v")]
    clean = study.sequence_scores["induction"][:, 1, 0]
    v = rows[2]
    assert v["weights"].shape == (3, 2 * T + 1, 2 * T + 1)
    np.testing.assert_allclose(v["induction"], clean, atol=1e-6)  # values never move a pattern
    assert not np.allclose(rows[1]["induction"], clean, atol=1e-6)  # keys do
    np.testing.assert_allclose(rows[1]["induction"], heads.induction_score(rows[1]["weights"], T))
    assert v["first"].shape == v["second"].shape == (3,)
    mean = study.composition((0, 1), (1, 0), "mean")
    assert not np.allclose(mean[1]["induction"], rows[1]["induction"])  # the mean output stays in
    with pytest.raises(ValueError, match="kind"):
        study.composition((0, 1), (1, 0), "resample")
    with pytest.raises(ValueError, match="sender"):
        study.composition((1, 0), (0, 1))


def test_logit_attribution_on_the_study_covers_the_loss_positions_once(study):
    dla = study.logit_attribution()
    assert dla.shape == (3, 2, 2, 2 * T - 2)
    assert study.logit_attribution() is dla


def test_output_constancy_is_one_for_a_constant_writer_and_small_for_a_token_reader():
    rng = np.random.default_rng(0)
    out = rng.normal(size=(50, 1, 2, 5, 4))
    out[:, 0, 0] = np.arange(20.0).reshape(5, 4)  # the same vector at each position on every sequence
    share = heads.output_constancy(out)
    assert share.shape == (1, 2)
    assert share[0, 0] == pytest.approx(1.0)
    # independent noise: the other sequences' mean shares nothing with it (a mean including itself
    # would keep about 1/50 of the energy); the sd of the estimate is about 1/sqrt(50 × 20 values)
    assert abs(share[0, 1]) < 0.02
    self_included = np.square(out[:, 0, 1].mean(axis=0)).sum() / np.square(out[:, 0, 1]).sum(axis=(-2, -1)).mean()
    assert self_included > 0.01 > abs(share[0, 1])
    assert heads.output_constancy(np.zeros((3, 1, 1, 2, 2)))[0, 0] == 0.0
    with pytest.raises(ValueError, match="outputs"):
        heads.output_constancy(np.zeros((1, 1, 1, 2, 2)))
    with pytest.raises(ValueError, match="outputs"):
        heads.output_constancy(np.zeros((3, 2, 2)))


def test_the_unrepeated_control_has_the_studys_layout_with_nothing_repeated(study):
    ids = heads.unrepeated_sequence(study.pool, T, 2000)
    assert len(ids) == 2 * T + 1 and ids[0] == heads.FIRST_TOKEN and len(set(ids[1:].tolist())) == 2 * T
    assert not np.array_equal(ids, heads.unrepeated_sequence(study.pool, T, 2001))
    losses = study.unrepeated_losses()
    assert losses.shape == (3, T - 1) and study.unrepeated_losses() is losses  # computed once
    batch = np.stack([heads.unrepeated_sequence(study.pool, T, 2000 + s) for s in study.seeds])
    by_hand = real_model.next_token_losses(real_model.forward(study.model, batch).logits, batch)
    lm_head = lm_head_reductions(study.model.config)  # fewer rows reach the lm_head: another GEMM
    assert_blas_close(losses, by_hand[:, T + 1:], **lm_head)  # the second copy's loss positions
    assert_blas_close(losses.mean(axis=-1), heads.copy_losses(by_hand, T)[1], **lm_head)
    with pytest.raises(ValueError, match="at least 2·length = 8"):
        heads.unrepeated_sequence(np.arange(7), T, 0)
    with pytest.raises(TypeError, match="seed must be an integer"):
        heads.unrepeated_sequence(study.pool, T, "0")
