"""helpers.circuit.experiments: ablation and composition patching (11_learning_a_circuit)."""
import numpy as np
import pytest

from helpers import circuit
from helpers.circuit import experiments, scores
from helpers.interventions import Mean, Zero


@pytest.fixture(scope="module")
def model_and_batch():
    return circuit.init_model(circuit.CONFIG, 7), circuit.sequences(12, 3)


def test_ablation_equals_forward_with_the_head_removed(model_and_batch):
    model, batch = model_and_batch
    effects = experiments.ablation_effects(model, batch)
    assert set(effects) == {"clean", (0, 0), (0, 1), (1, 0), (1, 1)}
    for head in [(0, 1), (1, 0)]:
        cache = circuit.forward(model, batch.tokens, interventions={head: Zero()})
        repeat, _ = scores.repeat_losses(cache, batch)
        assert effects[head].repeat_loss == repeat
        assert effects[head].repeat_loss != effects["clean"].repeat_loss
    # ablating a layer-1 head leaves layer 1's patterns as they were (it only stops adding the output)
    np.testing.assert_array_equal(effects[(1, 0)].induction, effects["clean"].induction)


def test_composition_effects_patch_one_projection_each(model_and_batch):
    model, batch = model_and_batch
    effects = experiments.composition_effects(model, batch, (0, 0))
    assert set(effects) == {"clean", "q", "k", "v"}
    clean = scores.head_scores(model, batch)
    assert effects["clean"].repeat_loss == clean.repeat_loss
    # q and k change layer 1's patterns; v does not (it changes only what is written)
    assert not np.array_equal(effects["k"].induction[1], clean.induction[1])
    assert not np.array_equal(effects["q"].induction[1], clean.induction[1])
    np.testing.assert_array_equal(effects["v"].induction, clean.induction)
    assert effects["v"].repeat_loss != clean.repeat_loss
    # layer 0 is upstream of every patch
    for name in ("q", "k", "v"):
        np.testing.assert_array_equal(effects[name].previous[0], clean.previous[0])


def test_mean_ablation_replaces_the_heads_output_by_its_mean_over_the_batch(model_and_batch):
    model, batch = model_and_batch
    clean = circuit.forward(model, batch.tokens)
    averaged = circuit.forward(model, batch.tokens, interventions={(0, 1): Mean()})
    out = clean.head_outputs(0)[:, 1]                                     # (B, n, D)
    np.testing.assert_allclose(averaged.head_outputs(0)[:, 1], np.broadcast_to(out.mean(axis=0), out.shape),
                               atol=1e-12)
    np.testing.assert_array_equal(averaged.head_outputs(0)[:, 0], clean.head_outputs(0)[:, 0])
    mean = experiments.mean_ablate(model, batch, [(0, 1)])
    assert mean.repeat_loss == scores.repeat_losses(averaged, batch)[0]
    zero = experiments.ablate(model, batch, [(0, 1)])
    assert len({mean.repeat_loss, zero.repeat_loss, scores.head_scores(model, batch).repeat_loss}) == 3
    # a batch of one sequence repeated: the mean is the output itself, so nothing changes
    same = circuit.Batch(batch.task, np.repeat(batch.tokens[:1], 4, axis=0), *(np.repeat(getattr(batch, n)[:1], 4)
                                                                             for n in ("first", "second", "repeat")))
    assert experiments.mean_ablate(model, same, [(0, 0), (1, 1)]).repeat_loss == pytest.approx(
        scores.head_scores(model, same).repeat_loss, abs=1e-12)
    with pytest.raises(ValueError, match=r"interventions\[\(0, 1\)\]: Mean\(\) averages over a batch, so tokens must be a \(batch ≥ 2, n\)"):
        circuit.forward(model, batch.tokens[:1], interventions={(0, 1): Mean()})
    with pytest.raises(ValueError, match="heads"):
        experiments.mean_ablate(model, batch, [(2, 0)])


def test_bad_input_is_named(model_and_batch):
    model, batch = model_and_batch
    with pytest.raises(ValueError, match="below the last"):
        experiments.patch(model, batch, (1, 0), "k")
    with pytest.raises(ValueError, match="layer index 2"):
        experiments.ablate(model, batch, [(2, 0)])
    with pytest.raises(TypeError, match="batch must be"):
        experiments.ablate(model, batch.tokens, [(0, 0)])
    with pytest.raises(ValueError, match="does not fit the model"):
        experiments.ablate(model, circuit.sequences(2, 0, circuit.Task(vocab=64)), [(0, 0)])
    with pytest.raises(ValueError, match="into must be one of"):
        experiments.patch(model, batch, (0, 0), "o")
