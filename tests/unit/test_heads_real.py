"""The lesson modules on SmolLM2-135M itself (slow: each test runs the model on 12 sequences)."""
import numpy as np
import pytest
from blas import assert_blas_close, forward_reductions

from helpers import heads, real_model
from helpers.heads import attribution as logit_attribution
from helpers.heads import patching
from helpers.heads import scan as head_scan

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def study(smollm2):
    return head_scan.scan_study()


def test_the_batched_study_matches_one_sequence_at_a_time(smollm2, study):
    reductions = forward_reductions(smollm2.config)  # one sequence vs a batch: other GEMM shapes, other sums
    for s in (0, 7):
        run = real_model.forward(smollm2, study.ids[s])
        assert_blas_close(real_model.next_token_losses(run.logits, study.ids[s]), study.losses[s], **reductions)
        assert_blas_close(np.stack(run.weights), study.weights[s], **reductions)


def test_16_0_reaches_18_6_through_its_keys(smollm2, study):
    """K-composition: without 16.0's write in its keys 18.6 loses its induction stripe; without
    it in its queries it keeps most of it; its values cannot move the pattern."""
    rows = patching.composition(smollm2, study.batch, study.layer_inputs, (16, 0), (18, 6),
                                loss_positions=study.loss_positions)
    score = {"".join(r["inputs"]): heads.induction_score(r["weights"], study.length).mean() for r in rows}
    clean = study.scores["induction"][18, 6]
    assert clean > 0.7
    assert score["k"] < 0.05 and score["qkv"] < 0.05
    assert score["q"] > 0.8 * clean
    assert score["v"] == pytest.approx(clean, abs=1e-6)
    second = {"".join(r["inputs"]): r["losses"][:, study.length - 1:].mean() for r in rows}
    assert second["k"] - study.second_copy_loss > 1.0 > second["q"] - study.second_copy_loss


def test_early_heads_zero_ablation_effect_is_off_distribution(study):
    """1.4 matters hugely when zeroed and not at all when replaced by its mean output."""
    first, second = heads.copy_losses(study.losses, study.length)
    zero = study.intervene([(1, 4)], "zero")["second"].mean() - second.mean()
    mean = study.intervene([(1, 4)], "mean")["second"].mean() - second.mean()
    assert zero > 2.0 and abs(mean) < 0.3
    kept = study.intervene([(16, 0)], "mean")["second"].mean() - second.mean()
    assert kept > 2.0  # a head that matters keeps mattering


def test_only_18_6_of_the_top_induction_heads_writes_the_copied_token_directly(smollm2, study):
    t = study.length
    dla = logit_attribution.head_logit_attribution(smollm2, study.batch, study.layer_inputs, study.final_residual,
                                                   list(range(t + 1, 2 * t))).mean(axis=(0, 3))
    top = study.top("induction", 4)
    assert top[0] == (18, 6)
    assert dla[18, 6] >= np.percentile(dla, 90)
    assert all(abs(dla[h]) < 0.05 for h in top[1:])
