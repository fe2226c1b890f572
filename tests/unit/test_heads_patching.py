"""helpers.heads.patching and the forward's batch / logits_at / interventions, on the tiny model."""

import numpy as np
import pytest
from blas import assert_blas_close, forward_reductions
from tiny_model import tiny_run

from helpers import real_model
from helpers.heads import patching
from helpers.interventions import Mean, Patch, Replace, Zero
from helpers.layer import attention_layer


@pytest.fixture(scope="module")
def clean():
    return tiny_run(0, (3, 7))


def same(actual, desired, model):
    """A batch vs one sequence, or some rows vs all: other GEMM shapes, so the forward's sums run in
    another order — the same numbers to its float32 round-off, not always the same bits."""
    assert_blas_close(actual, desired, **forward_reductions(model.config))


def test_a_batch_is_one_sequence_at_a_time_to_float32_round_off(clean):
    model, ids, run = clean
    for b, row in enumerate(ids):
        one = real_model.forward(model, row, keep_inputs=True)
        same(one.logits, run.logits[b], model)
        for w1, w in zip(one.weights, run.weights):
            same(w1, w[b], model)
        for x1, x in zip(one.layer_inputs, run.layer_inputs):
            same(x1, x[b], model)
        same(one.final_residual, run.final_residual[b], model)


def test_logits_at_computes_only_those_rows_and_losses_read_them(clean):
    model, ids, run = clean
    rows = [1, 4, 5]
    part = real_model.forward(model, ids, logits_at=rows)
    assert part.logits.shape == (3, 3, model.config.vocab_size)
    same(part.logits, run.logits[:, rows], model)
    full = real_model.next_token_losses(run.logits, ids)
    picked = real_model.next_token_losses(part.logits, ids, positions=rows)
    same(picked, full[:, rows], model)
    with pytest.raises(ValueError, match="logits_at"):
        real_model.forward(model, ids, logits_at=[7])
    with pytest.raises(ValueError, match="last_only or logits_at"):
        real_model.forward(model, ids[0], logits_at=[1], last_only=True)
    with pytest.raises(ValueError, match="positions"):
        real_model.next_token_losses(part.logits[0], ids[0], positions=[1, 6])  # 6 has no next token


def test_batches_are_checked(clean):
    model, ids, _ = clean
    with pytest.raises(ValueError, match="ragged"):
        real_model.forward(model, [[1, 2, 3], [1, 2]])
    with pytest.raises(ValueError, match="caches hold one sequence"):
        real_model.forward(model, ids, caches=real_model.new_caches(model))
    with pytest.raises(ValueError, match="resume: residual must have shape"):
        real_model.forward(model, ids, resume=(1, np.zeros((7, 8))))


def test_head_attention_with_one_stream_is_that_head_of_the_layer(clean):
    model, ids, run = clean
    layer, x = 1, run.layer_inputs[1]
    block = model.blocks[layer]
    h = real_model.rms_norm(x, block.attn_norm, model.eps)
    _, weights = attention_layer(h, block.attention, model.shape, rope_theta=model.config.rope_theta)
    for head in range(model.config.num_heads):
        got = real_model.head_attention(model, layer, head, x)
        np.testing.assert_allclose(got.weights, weights[:, head], rtol=0, atol=1e-12)
        assert got.z.shape == (3, 7, model.config.head_dim)


def test_patching_keys_only_leaves_queries_and_values_bit_identical(clean):
    model, _, run = clean
    x, other = run.layer_inputs[1], run.layer_inputs[0]
    base = real_model.head_attention(model, 1, 1, x)
    keys = real_model.head_attention(model, 1, 1, x, x_k=other)
    assert np.array_equal(keys.q, base.q) and np.array_equal(keys.v, base.v)
    assert not np.allclose(keys.k, base.k)
    assert not np.allclose(keys.weights, base.weights)
    values = real_model.head_attention(model, 1, 1, x, x_v=other)
    assert np.array_equal(values.q, base.q) and np.array_equal(values.k, base.k)
    assert np.array_equal(values.weights, base.weights)  # values never change where a head looks
    assert not np.allclose(values.z, base.z)


def test_patching_with_a_zero_difference_is_the_identity(clean):
    model, ids, run = clean
    x = run.layer_inputs[1]
    for group in (("q",), ("k",), ("v",), patching.INPUTS):
        same = real_model.forward(model, ids, resume=(1, x), interventions={(1, 0): Patch(**{name: x for name in group})})
        np.testing.assert_allclose(same.logits, run.logits, rtol=0, atol=1e-5)
        np.testing.assert_allclose(same.weights[1], run.weights[1], rtol=0, atol=1e-7)


def test_a_patched_head_is_the_only_one_that_changes(clean):
    model, ids, run = clean
    x, other = run.layer_inputs[1], run.layer_inputs[0]
    patched = real_model.forward(model, ids, resume=(1, x), interventions={(1, 1): Patch(k=other)})
    want = real_model.head_attention(model, 1, 1, x, x_k=other).weights
    np.testing.assert_allclose(patched.weights[1][:, 1], want, atol=1e-7)
    assert np.array_equal(patched.weights[1][:, 0], run.weights[1][:, 0])  # the other head: untouched
    assert not np.allclose(patched.logits, run.logits)


def test_replace_is_exact_for_zero_and_for_the_heads_own_output(clean):
    model, ids, run = clean
    x = run.layer_inputs[1]
    z = real_model.head_attention(model, 1, 0, x).z
    own = real_model.forward(model, ids, resume=(1, x), interventions={(1, 0): Replace(z)})
    np.testing.assert_allclose(own.logits, run.logits, rtol=0, atol=1e-5)
    zero = real_model.forward(model, ids, resume=(1, x), interventions={(1, 0): Replace(np.zeros(z.shape[1:]))})
    ablated = real_model.forward(model, ids, resume=(1, x), interventions={(1, 0): Zero()})
    assert np.array_equal(zero.logits, ablated.logits)
    with pytest.raises(ValueError, match=r"interventions\[\(1, 0\)\]\.z must have shape"):
        real_model.forward(model, ids, interventions={(1, 0): Replace(np.zeros((7, 3)))})
    with pytest.raises(ValueError, match="interventions's keys: layer index 5"):
        real_model.forward(model, ids, interventions={(5, 0): Replace(z)})
    mean = real_model.forward(model, ids, resume=(1, x), interventions={(1, 0): Mean()})
    by_hand = real_model.forward(model, ids, resume=(1, x), interventions={(1, 0): Replace(z.mean(axis=0))})
    assert np.array_equal(mean.logits, by_hand.logits)
    with pytest.raises(ValueError, match=r"interventions\[\(1, 0\)\]: Mean\(\) averages over a batch"):
        real_model.forward(model, ids[0], interventions={(1, 0): Mean()})


def test_patch_arguments_are_checked(clean):
    model, ids, run = clean
    x = run.layer_inputs[1]
    with pytest.raises(TypeError, match="interventions must be a dict"):
        real_model.forward(model, ids, interventions=[(1, 0)])
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'w'"):
        Patch(w=x)
    with pytest.raises(TypeError, match=r"interventions\[\(1, 0\)\] must be Zero\(\)"):
        real_model.forward(model, ids, interventions={(1, 0): {"k": x}})
    with pytest.raises(ValueError, match=r"interventions\[\(1, 0\)\]\.k must be a residual stream of shape"):
        real_model.forward(model, ids, interventions={(1, 0): Patch(k=x[0])})
    with pytest.raises(ValueError, match="interventions's keys: head index 2"):
        real_model.forward(model, ids, interventions={(1, 2): Patch(k=x)})
    with pytest.raises(ValueError, match="x_k must be a residual stream"):
        real_model.head_attention(model, 1, 0, x, x_k=x[:, :3])


def test_head_write_is_the_heads_rows_of_o_proj(clean):
    model, _, run = clean
    z = real_model.head_attention(model, 0, 1, run.layer_inputs[0]).z
    d = model.config.head_dim
    full = np.zeros((*z.shape[:-1], model.config.num_heads * d))
    full[..., d:2 * d] = z
    np.testing.assert_allclose(patching.head_write(model, 0, 1, z), full @ model.blocks[0].attention.w_o, atol=1e-12)


def test_composition_removes_nothing_when_the_replacement_is_the_senders_own_output(clean):
    model, ids, run = clean
    z = real_model.head_attention(model, 0, 1, run.layer_inputs[0]).z
    clean_losses = real_model.next_token_losses(run.logits, ids)
    for row in patching.composition(model, ids, run.layer_inputs, (0, 1), (1, 0), replacement=z):
        np.testing.assert_allclose(row["losses"], clean_losses, atol=1e-5)
        np.testing.assert_allclose(row["weights"], run.weights[1][:, 0], atol=1e-7)
    removed = patching.composition(model, ids, run.layer_inputs, (0, 1), (1, 0), inputs=[("k",), ("v",)])
    assert not np.allclose(removed[0]["weights"], run.weights[1][:, 0])  # keys: the pattern moves
    np.testing.assert_allclose(removed[1]["weights"], run.weights[1][:, 0], atol=1e-7)  # values: it cannot
    with pytest.raises(ValueError, match="sender must sit in an earlier layer"):
        patching.composition(model, ids, run.layer_inputs, (1, 1), (1, 0))
    with pytest.raises(ValueError, match="inputs must be a non-empty list"):
        patching.composition(model, ids, run.layer_inputs, (0, 1), (1, 0), inputs=[("x",)])


def test_the_total_path_removes_the_senders_later_effects_too(clean):
    model, ids, run = clean
    direct, total = (patching.composition(model, ids, run.layer_inputs, (0, 0), (1, 1), inputs=[patching.INPUTS],
                                          path=p)[0] for p in patching.PATHS)
    # with every input patched and one layer between them, both paths equal removing the sender at layer 0
    # (the direct path misses only layer 0's MLP reading the sender's write; the total one includes it)
    without = real_model.forward(model, ids, resume=(0, run.layer_inputs[0]), interventions={(0, 0): Zero()}, keep_inputs=True)
    want = real_model.head_attention(model, 1, 1, without.layer_inputs[1]).weights
    np.testing.assert_allclose(total["weights"], want, atol=1e-7)
    assert not np.allclose(direct["weights"], want, atol=1e-7)
    with pytest.raises(ValueError, match="path must be one of"):
        patching.composition(model, ids, run.layer_inputs, (0, 0), (1, 1), path="all")


def test_the_composition_screen_finds_who_reads_the_sender_and_through_which_input(clean):
    model, _, run = clean
    screen = patching.composition_screen(model, run.layer_inputs, (0, 1))
    assert screen["pattern"].shape == screen["output"].shape == (2, 2, 3)
    assert not screen["pattern"][0].any() and not screen["output"][0].any()  # its own layer cannot read it
    assert np.all(screen["pattern"][1, :, :2] > 1e-4)  # queries and keys move the pattern…
    assert np.array_equal(screen["pattern"][1, :, 2], [0.0, 0.0])  # …values never do
    assert np.all(screen["output"][1] > 1e-4)
    # by hand for one receiver: head 0 of layer 1 with the keys read from x − write(0.1)
    z = real_model.head_attention(model, 0, 1, run.layer_inputs[0]).z
    x = run.layer_inputs[1]
    keys = real_model.head_attention(model, 1, 0, x, x_k=x - patching.head_write(model, 0, 1, z))
    base = real_model.head_attention(model, 1, 0, x)
    assert screen["pattern"][1, 0, 1] == pytest.approx(0.5 * np.abs(keys.weights - base.weights).sum(-1).mean())
    nothing = patching.composition_screen(model, run.layer_inputs, (0, 1), replacement=z)
    np.testing.assert_allclose(nothing["pattern"], 0.0, atol=1e-12)
    np.testing.assert_allclose(nothing["output"], 0.0, atol=1e-12)


def test_the_composition_screen_can_average_over_chosen_query_rows_only(clean):
    model, _, run = clean
    every = patching.composition_screen(model, run.layer_inputs, (0, 1))
    rows = [3, 4, 5]
    some = patching.composition_screen(model, run.layer_inputs, (0, 1), queries=rows)
    z = real_model.head_attention(model, 0, 1, run.layer_inputs[0]).z
    x = run.layer_inputs[1]
    keys = real_model.head_attention(model, 1, 1, x, x_k=x - patching.head_write(model, 0, 1, z))
    base = real_model.head_attention(model, 1, 1, x)
    want = 0.5 * np.abs(keys.weights[:, rows] - base.weights[:, rows]).sum(-1).mean()
    assert some["pattern"][1, 1, 1] == pytest.approx(want)
    assert some["pattern"][1, 1, 1] != pytest.approx(every["pattern"][1, 1, 1])
    # query 0 sees only itself: its row cannot move, so the mean over all rows is diluted by it
    only_first = patching.composition_screen(model, run.layer_inputs, (0, 1), queries=[0])
    np.testing.assert_allclose(only_first["pattern"], 0.0, atol=1e-12)
    np.testing.assert_array_equal(some["output"], every["output"])
    with pytest.raises(ValueError, match="queries must be a position"):
        patching.composition_screen(model, run.layer_inputs, (0, 1), queries=[9])
    with pytest.raises(ValueError, match="queries must name at least one"):
        patching.composition_screen(model, run.layer_inputs, (0, 1), queries=[])
    with pytest.raises(TypeError, match="queries must be a list"):
        patching.composition_screen(model, run.layer_inputs, (0, 1), queries="3")


def test_the_receivers_pattern_alone_is_compositions_weights_without_the_layers_above(clean):
    model, ids, run = clean
    for inputs in (("k",), ("q",), ("q", "k", "v")):
        (full,) = patching.composition(model, ids, run.layer_inputs, (0, 1), (1, 0), inputs=(inputs,))
        alone = patching.receiver_pattern(model, run.layer_inputs, (0, 1), (1, 0), inputs=inputs)
        np.testing.assert_allclose(alone, full["weights"], atol=1e-6)
    assert not np.allclose(alone, run.weights[1][:, 0], atol=1e-6)  # removing the sender moved it
    values = patching.receiver_pattern(model, run.layer_inputs, (0, 1), (1, 0), inputs=("v",))
    np.testing.assert_allclose(values, run.weights[1][:, 0], atol=1e-6)  # values never move a pattern
    z = real_model.head_attention(model, 0, 1, run.layer_inputs[0]).z
    same = patching.receiver_pattern(model, run.layer_inputs, (0, 1), (1, 0), replacement=z)
    np.testing.assert_allclose(same, run.weights[1][:, 0], atol=1e-6)  # replaced by itself: nothing removed
    with pytest.raises(ValueError, match="sender must sit in an earlier layer"):
        patching.receiver_pattern(model, run.layer_inputs, (1, 1), (1, 0))
    with pytest.raises(ValueError, match="inputs must be a non-empty tuple"):
        patching.receiver_pattern(model, run.layer_inputs, (0, 1), (1, 0), inputs=("x",))
    with pytest.raises(ValueError, match="inputs must be a non-empty tuple"):
        patching.receiver_pattern(model, run.layer_inputs, (0, 1), (1, 0), inputs="k")
