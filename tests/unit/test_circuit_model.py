"""helpers.circuit.model and .backward: the forward pass and the hand-written gradient (11_learning_a_circuit)."""
import numpy as np
import pytest

from helpers import circuit
from helpers.attention import causal_mask, softmax
from helpers.circuit.model import _softmax_in_place
from helpers.interventions import Patch, Zero

SMALL = circuit.Config(vocab=7, length=8, d_model=8, heads=2, layers=2)


# ---- gradients -----------------------------------------------------------------------------------
@pytest.mark.parametrize("config, seed", [
    (SMALL, 0),
    (circuit.Config(vocab=7, length=8, d_model=8, heads=2, layers=2, positions="residual"), 1),
    (circuit.Config(vocab=5, length=6, d_model=6, heads=3, layers=1), 2),
    (circuit.Config(vocab=6, length=7, d_model=4, heads=1, layers=3), 3),
])
def test_backward_matches_central_differences_in_float64(config, seed):
    errors = circuit.gradient_check(config, n_sequences=3, seed=seed)
    assert set(errors) == set(config.shapes())
    assert max(errors.values()) <= 1e-6, errors


def test_a_wrong_gradient_is_caught_by_the_check():
    model = circuit.init_model(SMALL, 4)
    tokens = np.random.default_rng(0).integers(0, SMALL.vocab, size=(2, SMALL.length))
    _, grads = circuit.loss_and_grads(model, tokens)
    numeric = circuit.numerical_gradient(model, tokens)
    assert circuit.relative_error(grads["W_K"] * 1.01, numeric["W_K"]) > 1e-3
    assert circuit.relative_error(grads["W_pos"], numeric["W_pos"]) < 1e-6


def test_backward_refuses_an_intervened_pass():
    model = circuit.init_model(SMALL, 0)
    tokens = np.arange(8) % 7
    cache = circuit.forward(model, tokens, interventions={(0, 1): Zero()})
    with pytest.raises(ValueError, match="with interventions"):
        circuit.backward(model, cache)
    grads = circuit.backward(model, circuit.forward(model, tokens))
    assert set(grads) == set(SMALL.shapes())


# ---- the forward pass --------------------------------------------------------------------------
def _literal_forward(model, tokens):
    """Head by head, with helpers.attention.softmax: the same model written the slow way."""
    p, cfg = model.params, model.config
    n = len(tokens)
    x = p["W_E"][tokens] + (p["W_pos"][:n] if cfg.positions == "residual" else 0)
    for layer in range(cfg.layers):
        qk_in = x + p["W_pos"][:n] if cfg.positions == "qk" else x
        out = np.zeros_like(x)
        for h in range(cfg.heads):
            q, k, v = qk_in @ p["W_Q"][layer, h], qk_in @ p["W_K"][layer, h], x @ p["W_V"][layer, h]
            a = softmax(q @ k.T / np.sqrt(cfg.d_head) + causal_mask(n))
            out += a @ v @ p["W_O"][layer, h]
        x = x + out
    return x @ p["W_U"]


@pytest.mark.parametrize("positions", ["qk", "residual"])
def test_forward_equals_the_literal_head_by_head_model(positions):
    cfg = circuit.Config(vocab=11, length=9, d_model=12, heads=3, layers=2, positions=positions)
    model = circuit.init_model(cfg, 5)
    tokens = np.random.default_rng(1).integers(0, 11, size=(4, 9))
    cache = circuit.forward(model, tokens)
    for b in range(4):
        np.testing.assert_allclose(cache.logits[b], _literal_forward(model, tokens[b]), rtol=1e-12, atol=1e-12)
    # head outputs add up to the layer's contribution to the stream
    for layer in range(2):
        after = cache.final_residual if layer == 1 else cache.layer_inputs[1]
        np.testing.assert_allclose(cache.layer_inputs[layer] + cache.head_outputs(layer).sum(axis=1), after, atol=1e-12)


def test_in_place_softmax_equals_the_series_softmax():
    scores = np.random.default_rng(2).standard_normal((3, 2, 6, 6)) * 5 + causal_mask(6)
    np.testing.assert_array_equal(_softmax_in_place(scores.copy()), softmax(scores))


def test_causal_a_later_token_changes_nothing_before_it():
    model = circuit.init_model(circuit.Config(), 0)
    tokens = np.random.default_rng(3).integers(0, 32, size=32)
    changed = tokens.copy()
    changed[25] = (changed[25] + 1) % 32
    a, b = circuit.forward(model, tokens).logits[0], circuit.forward(model, changed).logits[0]
    np.testing.assert_array_equal(a[:25], b[:25])
    assert not np.allclose(a[25:], b[25:])


def test_qk_positions_never_reach_the_values():
    """With positions="qk" a head's output depends on positions only through its weights: with
    uniform attention forced (all W_Q = 0) the output is the same however positions are set."""
    cfg = circuit.Config(vocab=9, length=6, d_model=8, heads=2, layers=1)
    model = circuit.init_model(cfg, 1)
    model.params["W_Q"][:] = 0.0
    tokens = np.arange(6) % 9
    before = circuit.forward(model, tokens).logits
    model.params["W_pos"][:] = np.random.default_rng(0).standard_normal(model.params["W_pos"].shape)
    np.testing.assert_allclose(circuit.forward(model, tokens).logits, before, atol=1e-12)


def test_ablating_every_head_leaves_the_direct_path():
    cfg = circuit.Config()
    model = circuit.init_model(cfg, 2)
    tokens = np.random.default_rng(4).integers(0, 32, size=(2, 32))
    all_heads = [(layer, h) for layer in range(cfg.layers) for h in range(cfg.heads)]
    cache = circuit.forward(model, tokens, interventions={head: Zero() for head in all_heads})
    np.testing.assert_allclose(cache.logits, model.params["W_E"][tokens] @ model.params["W_U"], atol=1e-12)


def test_patching_keys_changes_only_later_keys():
    cfg = circuit.Config()
    model = circuit.init_model(cfg, 3)
    tokens = np.random.default_rng(5).integers(0, 32, size=(2, 32))
    clean = circuit.forward(model, tokens)
    without = clean.layer_inputs[1] - clean.head_outputs(0)[:, 1]
    patched = circuit.forward(model, tokens, interventions={(1, h): Patch(k=without) for h in range(cfg.heads)})
    np.testing.assert_array_equal(patched.weights[0], clean.weights[0])       # layer 0 untouched
    np.testing.assert_array_equal(patched.q[1], clean.q[1])                   # layer 1 queries untouched
    np.testing.assert_array_equal(patched.v[1], clean.v[1])                   # and values
    np.testing.assert_array_equal(patched.layer_inputs[1], clean.layer_inputs[1])         # the stream itself too
    out0 = clean.head_outputs(0)[:, 1]
    manual = clean.layer_inputs[1] - out0 + model.params["W_pos"]
    np.testing.assert_allclose(patched.k[1][:, 0], manual @ model.params["W_K"][1, 0], atol=1e-12)
    assert not np.allclose(patched.k[1], clean.k[1])


def test_model_runs_float32_checkpoints():
    model = circuit.init_model(circuit.Config(), 0)
    small = model.copy(np.float32)
    assert small.params["W_E"].dtype == np.float32
    tokens = np.random.default_rng(6).integers(0, 32, size=(3, 32))
    np.testing.assert_allclose(circuit.forward(small, tokens).logits, circuit.forward(model, tokens).logits,
                               rtol=1e-4, atol=1e-4)


# ---- bad input ----------------------------------------------------------------------------------
def test_bad_input_is_named():
    model = circuit.init_model(SMALL, 0)
    with pytest.raises(TypeError, match="model must be"):
        circuit.forward({"W_E": 1}, [1, 2])
    with pytest.raises(ValueError, match="token ids must be in 0…6"):
        circuit.forward(model, [1, 7])
    with pytest.raises(ValueError, match="at most length = 8"):
        circuit.forward(model, np.zeros(9, dtype=int))
    with pytest.raises(TypeError, match="integer token ids"):
        circuit.forward(model, [1.5, 2.0])
    with pytest.raises(ValueError, match="layer index 2"):
        circuit.forward(model, [1, 2, 3], interventions={(2, 0): Zero()})
    with pytest.raises(TypeError, match=r"interventions must be a dict \{\(layer, head\)"):
        circuit.forward(model, [1, 2, 3], interventions=[(0, 0)])
    with pytest.raises(TypeError, match=r"interventions\[\(0, 0\)\] must be Zero\(\).*brackets"):
        circuit.forward(model, [1, 2, 3], interventions={(0, 0): Zero})
    with pytest.raises(ValueError, match=r"interventions\[\(1, 0\)\]\.k must have shape \(1, 3, 8\)"):
        circuit.forward(model, [1, 2, 3], interventions={(1, 0): Patch(k=np.zeros((3, 8)))})
    with pytest.raises(ValueError, match="Patch needs at least one of"):
        Patch()
    with pytest.raises(ValueError, match="multiple of heads"):
        circuit.Config(d_model=10, heads=3)
    with pytest.raises(ValueError, match="positions must be one of"):
        circuit.Config(positions="rope")
    with pytest.raises(ValueError, match=r"params\['W_U'\] must have shape"):
        circuit.Model(SMALL, {**model.params, "W_U": np.zeros((3, 3))})
    with pytest.raises(ValueError, match="contains NaN"):
        circuit.Model(SMALL, {**model.params, "W_E": np.full((7, 8), np.nan)})
    with pytest.raises(ValueError, match="at most 5,000 parameters"):
        circuit.numerical_gradient(circuit.init_model(circuit.Config(), 0), [1, 2])
