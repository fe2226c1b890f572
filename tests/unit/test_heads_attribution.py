"""helpers.heads.attribution: a head's direct share of the next token's logit, on the tiny model."""

import numpy as np
import pytest
from blas import assert_blas_close
from tiny_model import tiny_run

from helpers import real_model
from helpers.heads import attribution as la
from helpers.heads import patching


@pytest.fixture(scope="module")
def clean():
    return tiny_run(1, (2, 6))


def centred_logits(model, x, scale):
    """The final norm with its scale frozen, then the unembedding, minus the vocabulary mean."""
    logits = (x * scale[..., None] * model.final_norm) @ model.embed.T.astype(np.float64)
    return logits - logits.mean(axis=-1, keepdims=True)


def test_the_frozen_norm_reproduces_the_models_centred_logits(clean):
    model, ids, run = clean
    scale = la.frozen_scale(model, run.final_residual)
    want = run.logits - run.logits.mean(axis=-1, keepdims=True)
    np.testing.assert_allclose(centred_logits(model, run.final_residual, scale), want, atol=1e-4)


def test_a_heads_share_is_what_removing_its_write_takes_from_the_next_tokens_logit(clean):
    model, ids, run = clean
    positions = [0, 2, 4]
    dla = la.head_logit_attribution(model, ids, run.layer_inputs, run.final_residual, positions)
    assert dla.shape == (2, 2, 2, 3)
    scale = la.frozen_scale(model, run.final_residual)
    full = centred_logits(model, run.final_residual, scale)
    for layer in range(2):
        for head in range(2):
            write = patching.head_write(model, layer, head,
                                        real_model.head_attention(model, layer, head, run.layer_inputs[layer]).z)
            without = centred_logits(model, run.final_residual - write, scale)
            for j, p in enumerate(positions):
                target = ids[:, p + 1]
                drop = full[np.arange(2), p, target] - without[np.arange(2), p, target]
                np.testing.assert_allclose(dla[:, layer, head, j], drop, atol=1e-9)
    assert np.abs(dla).max() > 1e-3  # not trivially zero


def test_arguments_are_checked(clean):
    model, ids, run = clean
    with pytest.raises(ValueError, match="positions must be a position in -5…4, got 5"):
        la.head_logit_attribution(model, ids, run.layer_inputs, run.final_residual, [5])
    with pytest.raises(TypeError, match="layer_inputs must be the list of 2"):
        la.head_logit_attribution(model, ids, run.layer_inputs[:1], run.final_residual, [1])
    with pytest.raises(ValueError, match="final_residual must cover the ids"):
        la.head_logit_attribution(model, ids, run.layer_inputs, run.final_residual[:1], [1])
    with pytest.raises(ValueError, match="ids must be a \\(batch, n\\) array"):
        la.head_logit_attribution(model, ids[0], run.layer_inputs, run.final_residual, [1])


def test_the_direct_path_losses_are_the_losses_with_the_write_taken_out_of_the_final_stream(clean):
    model, ids, run = clean
    positions = [0, 3, 4]
    clean_losses = real_model.next_token_losses(run.logits, ids)
    cut = la.direct_path_losses(model, ids, run.layer_inputs, run.final_residual, (1, 0), positions)
    assert cut.shape == (2, 3)
    scale = la.frozen_scale(model, run.final_residual)
    write = patching.head_write(model, 1, 0, real_model.head_attention(model, 1, 0, run.layer_inputs[1]).z)

    def by_hand(stream):
        logits = (stream * scale[..., None] * model.final_norm) @ model.embed.T.astype(np.float64)
        return real_model.next_token_losses(logits, ids)[:, positions]

    np.testing.assert_allclose(by_hand(run.final_residual), clean_losses[:, positions], atol=1e-4)  # frozen norm = model
    np.testing.assert_allclose(cut, by_hand(run.final_residual - write), atol=1e-4)
    assert np.abs(cut - clean_losses[:, positions]).max() > 1e-3  # the cut changes something
    z = real_model.head_attention(model, 1, 1, run.layer_inputs[1]).z  # another head: another write
    other = la.direct_path_losses(model, ids, run.layer_inputs, run.final_residual, (1, 1), positions)
    np.testing.assert_allclose(other, by_hand(run.final_residual - patching.head_write(model, 1, 1, z)), atol=1e-4)
    with pytest.raises(ValueError, match="head"):
        la.direct_path_losses(model, ids, run.layer_inputs, run.final_residual, (2, 0), positions)
    with pytest.raises(ValueError, match="positions must be a position in -5…4, got 5"):
        la.direct_path_losses(model, ids, run.layer_inputs, run.final_residual, (1, 0), [5])
    with pytest.raises(ValueError, match="positions must name at least one"):
        la.direct_path_losses(model, ids, run.layer_inputs, run.final_residual, (1, 0), [])


def test_the_logit_shift_is_every_logits_change_and_its_first_order_loss(clean):
    """direct_logit_shift against float64 by hand: the write's change of every logit at the frozen
    scale; its target and mean entries (their difference is the head's share); the probability-
    weighted mean, whose gap to the target's change is the first-order change of the loss, checked
    against the loss of a small multiple of the write removed; the tokens' mean change."""
    model, ids, run = clean
    positions = [0, 3, 4]
    got = la.direct_logit_shift(model, ids, run.layer_inputs, run.final_residual, (1, 0), positions)
    scale = la.frozen_scale(model, run.final_residual)[:, positions]
    write = patching.head_write(model, 1, 0, real_model.head_attention(model, 1, 0, run.layer_inputs[1]).z)[:, positions]
    embed = model.embed.T.astype(np.float64)
    shift = (write * scale[..., None] * model.final_norm) @ embed
    logits = (run.final_residual[:, positions] * scale[..., None] * model.final_norm) @ embed
    p = np.exp(logits - logits.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    target = np.take_along_axis(shift, ids[:, np.array(positions) + 1][..., None], axis=-1)[..., 0]
    # each logit a float32 product over the hidden size against a float64 one (weighted means of them
    # add no more: their weights sum to 1)
    close = dict(dtype=np.float32, reduction_size=model.config.hidden_size)
    assert_blas_close(got["target"], target, **close)
    assert_blas_close(got["mean"], shift.mean(axis=-1), **close)
    assert_blas_close(got["expected"], np.sum(p * shift, axis=-1), **close)
    assert_blas_close(got["tokens"], shift.mean(axis=(0, 1)), **close)
    share = la.head_logit_attribution(model, ids, run.layer_inputs, run.final_residual, positions)[:, 1, 0]
    assert_blas_close(got["target"] - got["mean"], share, **close)
    targets = ids[:, np.array(positions) + 1]

    def nll(stream):  # −log softmax of the target at the frozen scale, in float64
        z = (stream * scale[..., None] * model.final_norm) @ embed
        z = z - z.max(axis=-1, keepdims=True)
        return np.log(np.exp(z).sum(axis=-1)) - np.take_along_axis(z, targets[..., None], axis=-1)[..., 0]

    eps = 1e-4  # the loss with eps × the write added: its slope is expected − target (to O(eps))
    slope = (nll(run.final_residual[:, positions] + eps * write) - nll(run.final_residual[:, positions])) / eps
    np.testing.assert_allclose(slope, got["expected"] - got["target"], atol=1e-3)
    assert np.abs(got["target"]).max() > 1e-3  # not trivially zero
    with pytest.raises(ValueError, match="head"):
        la.direct_logit_shift(model, ids, run.layer_inputs, run.final_residual, (2, 0), positions)
