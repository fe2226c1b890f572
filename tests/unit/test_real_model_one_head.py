"""helpers.real_model.one_head: one head of a layer of the real model — what it reads, outputs and
writes, recomputed on its own, and the hook an intervention acts through (09_real_model, the seam of
12_heads_at_work and 13_induction_circuit); on the tiny model."""
import numpy as np
import pytest
from blas import assert_blas_close, forward_reductions
from tiny_model import tiny_run

from helpers import real_model
from helpers.interventions import Patch
from helpers.layer import attention_layer


@pytest.fixture(scope="module")
def clean():
    return tiny_run(1, (2, 5))


def test_the_seam_checks_name_the_argument_as_the_caller_wrote_it(clean):
    model, ids, run = clean
    assert real_model.layer_and_head(model, np.int64(1), 0) == (1, 0)
    with pytest.raises(ValueError, match=r"^layer must be a position in -2…1, got 2"):
        real_model.layer_and_head(model, 2, 0)
    with pytest.raises(ValueError, match=r"^head must be a position in -2…1, got 5"):
        real_model.layer_and_head(model, 0, 5)
    x = run.layer_inputs[1]
    assert real_model.residual_stream("stream", model, x) is x
    with pytest.raises(ValueError, match=r"^stream must be a residual stream of shape \(2, 5, 8\), got \(5, 8\)"):
        real_model.residual_stream("stream", model, x[0], (2, 5, 8))
    with pytest.raises(ValueError, match=r"^mine\.z must have shape \(5, 4\) or \(2, 5, 4\)"):
        real_model.head_output("mine.z", model, np.zeros((5, 3)), ids.shape)
    with pytest.raises(TypeError, match=r"^model must be a Model"):
        real_model.check_model("SmolLM2")
    with pytest.raises(ValueError, match=r"^ids must be a 1-D sequence of token ids or a \(batch, n\) array"):
        real_model.check_ids(model, [[1, 2], [3]])
    assert real_model.check_ids(model, ids).shape == (2, 5)


def test_what_a_head_writes_is_its_output_through_its_rows_of_o_proj(clean):
    """Every head's write, summed, is the layer's attention output (to float32 round-off: another order of sums)."""
    model, ids, run = clean
    x, block = run.layer_inputs[0], model.blocks[0]
    out, _ = attention_layer(real_model.rms_norm(x, block.attn_norm, model.eps), block.attention, model.shape,
                             rope_theta=model.config.rope_theta)
    writes = sum(real_model.head_write(model, 0, h, real_model.head_attention(model, 0, h, x).z)
                 for h in range(model.config.num_heads))
    assert_blas_close(writes, out, **forward_reductions(model.config))
    with pytest.raises(ValueError, match=r"^z must be a head's output of shape \(…, n, 4\)"):
        real_model.head_write(model, 0, 0, np.zeros((5, 8)))


def test_the_hook_reruns_its_head_and_records_the_pattern_it_computes(clean):
    model, ids, run = clean
    x, other = run.layer_inputs[1], run.layer_inputs[0]
    weights = run.weights[1].astype(np.float64)
    hook = real_model.HeadHook(model, ids.shape).at(1, 1, x, weights)
    np.testing.assert_array_equal(hook.output(), real_model.head_attention(model, 1, 1, x).z)
    z = hook.rerun(k=other)
    want = real_model.head_attention(model, 1, 1, x, x_k=other)
    np.testing.assert_array_equal(z, want.z)
    np.testing.assert_array_equal(weights[:, 1], want.weights)      # the rerun's pattern is the head's now
    np.testing.assert_array_equal(weights[:, 0], run.weights[1][:, 0])  # and no other head's
    with pytest.raises(ValueError, match=r"^interventions\[\(1, 1\)\]\.k must be a residual stream of shape"):
        Patch(k=other[0]).checked("interventions[(1, 1)]", hook)
