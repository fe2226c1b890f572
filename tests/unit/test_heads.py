"""helpers.heads: head scores, the head-ablation switch, the study (the model parts are marked
``model``)."""
import numpy as np
import pytest

from helpers import heads, real_model
from helpers.attention import scaled_dot_product_attention
from helpers.interventions import Zero
from helpers.layer import LayerShape, LayerWeights, attention_layer, random_layer


@pytest.fixture
def model(smollm2):
    """The session's one SmolLM2 (``smollm2`` in the root conftest; skips outside CI without it)."""
    return smollm2


@pytest.fixture
def study(heads_study):
    """The notebook's cached head study (``heads_study`` in the root conftest, on the one SmolLM2)."""
    return heads_study


def previous_pattern(n):
    a = np.zeros((n, n))
    a[0, 0] = 1.0
    a[np.arange(1, n), np.arange(n - 1)] = 1.0
    return a


def sink_pattern(n):
    a = np.zeros((n, n))
    a[:, 0] = 1.0
    return a


def induction_pattern(length):
    n = 2 * length + 1
    a = sink_pattern(n)
    for i in range(length + 1, n):  # second copy: all weight on the token after the first occurrence
        a[i] = 0.0
        a[i, i - length + 1] = 1.0
    return a


def uniform_causal(n):
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]


def test_scores_of_hand_built_patterns():
    T = 5
    n = 2 * T + 1
    prev, sink, ind = previous_pattern(n), sink_pattern(n), induction_pattern(T)
    assert heads.previous_token_score(prev) == 1.0
    assert heads.sink_score(prev) == 0.0
    assert heads.induction_score(prev, T) == 0.0
    assert heads.sink_score(sink) == 1.0
    assert heads.previous_token_score(sink) == pytest.approx(1 / (n - 1))  # only query 1 has i − 1 = 0
    assert heads.induction_score(sink, T) == 0.0
    assert heads.induction_score(ind, T) == 1.0
    assert heads.sink_score(ind) == pytest.approx((T + 1 - 4) / (n - 4))  # first-copy queries 4…T
    assert heads.previous_token_score(ind) == pytest.approx(1 / (n - 1))  # only query 1 (i − 1 = 0)


def test_scores_of_uniform_causal_rows_and_batched_shapes():
    T = 4
    n = 2 * T + 1
    u = uniform_causal(n)
    i = np.arange(n)
    assert heads.previous_token_score(u) == pytest.approx(np.mean(1 / (i[1:] + 1)))
    assert heads.sink_score(u) == pytest.approx(np.mean(1 / (i[4:] + 1)))
    assert heads.induction_score(u, T) == pytest.approx(np.mean(1 / (np.arange(T + 1, 2 * T + 1) + 1)))
    stack = np.stack([[previous_pattern(n), sink_pattern(n)], [induction_pattern(T), u]])  # (2, 2, n, n)
    scores = heads.all_scores(stack, T)
    assert scores["previous"].shape == scores["sink"].shape == scores["induction"].shape == (2, 2)
    np.testing.assert_allclose(scores["induction"], [[0, 0], [1, heads.induction_score(u, T)]])


def test_score_inputs_are_checked():
    with pytest.raises(ValueError, match="weights"):
        heads.previous_token_score(np.ones((3, 4)))
    with pytest.raises(ValueError, match="weights"):
        heads.sink_score(np.eye(3))  # fewer positions than skip + 1
    with pytest.raises(ValueError, match="2·length"):
        heads.induction_score(np.eye(9), 5)
    with pytest.raises(ValueError, match="length"):
        heads.induction_score(np.eye(9), 0)
    with pytest.raises(ValueError, match="skip"):
        heads.sink_score(np.eye(9), skip=-1)
    with pytest.raises(TypeError, match="weights"):  # text where numbers go: a TypeError (helpers.render.validation)
        heads.previous_token_score("not a pattern")


def test_copy_losses_split_and_skip_each_copys_first_token():
    T = 4
    losses = np.arange(2 * T, dtype=float)  # entry i predicts token i+1
    first, second = heads.copy_losses(losses, T)
    assert first == np.mean([1, 2, 3])  # tokens 2…T of copy 1
    assert second == np.mean([5, 6, 7])  # tokens T+2…2T of copy 2
    with pytest.raises(ValueError, match="losses"):
        heads.copy_losses(np.zeros(7), T)


def test_repeated_sequence_layout():
    pool = np.arange(100, 200)
    ids = heads.repeated_sequence(pool, 10, seed=3)
    assert ids[0] == heads.FIRST_TOKEN and len(ids) == 21
    np.testing.assert_array_equal(ids[1:11], ids[11:])
    assert len(set(ids[1:11])) == 10 and set(ids[1:]) <= set(pool)
    np.testing.assert_array_equal(ids, heads.repeated_sequence(pool, 10, seed=3))
    with pytest.raises(ValueError, match="pool"):
        heads.repeated_sequence(pool[:5], 10, seed=0)
    with pytest.raises(TypeError, match="seed"):
        heads.repeated_sequence(pool, 10, seed="0")


def test_word_pool_keeps_space_word_tokens():
    tokens = ["<|im_start|>", "Ġthe", "Ġa", "ĠCat", "Ġdog", "dog", "Ġ123"]
    np.testing.assert_array_equal(heads.word_pool(tokens), [1, 4])


def test_top_and_random_heads():
    score = np.zeros((3, 4))
    score[2, 1], score[0, 3], score[1, 0] = 0.9, 0.8, 0.7
    assert heads.top_heads(score, 2) == [(2, 1), (0, 3)]
    drawn = heads.random_heads(5, 7, (3, 4), exclude=[(2, 1), (0, 3)])
    assert len(set(drawn)) == 5 and not {(2, 1), (0, 3)} & set(drawn)
    assert drawn == heads.random_heads(5, 7, (3, 4), exclude=[(2, 1), (0, 3)])
    with pytest.raises(ValueError, match="k"):
        heads.top_heads(score, 13)
    with pytest.raises(ValueError, match="k"):
        heads.random_heads(11, 0, (3, 4), exclude=[(0, 0), (0, 1)])
    with pytest.raises(ValueError, match="exclude"):
        heads.random_heads(1, 0, (3, 4), exclude=[(3, 0)])


def test_heads_by_score_ranks_every_head_ties_in_layer_head_order():
    from helpers.reading import heads_by_score

    score = np.zeros((3, 4))
    score[2, 1], score[0, 3], score[1, 0] = 0.9, 0.8, 0.8
    order = heads_by_score(score)
    assert order.shape == (12, 2) and order.tolist()[:4] == [[2, 1], [0, 3], [1, 0], [0, 0]]
    assert [tuple(pair) for pair in order.tolist()] == heads.top_heads(score, 12)
    with pytest.raises(ValueError, match="^score must"):
        heads_by_score(np.zeros(3))


SHAPE = LayerShape(hidden=16, num_heads=4, num_kv_heads=2, head_dim=4)


def toy(seed=0):
    x = np.random.default_rng(seed).standard_normal((6, SHAPE.hidden))
    return x, random_layer(SHAPE, seed=seed)


def by_hand_without(x, w, dropped):
    """Each head's attention computed separately, then only the kept heads go through o_proj."""
    n, d, group = len(x), SHAPE.head_dim, SHAPE.num_heads // SHAPE.num_kv_heads
    from helpers.layer import apply_rope

    q = apply_rope((x @ w.w_q).reshape(n, SHAPE.num_heads, d), np.arange(n), 10000.0)
    k = apply_rope((x @ w.w_k).reshape(n, SHAPE.num_kv_heads, d), np.arange(n), 10000.0)
    v = (x @ w.w_v).reshape(n, SHAPE.num_kv_heads, d)
    y = np.zeros((n, SHAPE.hidden))
    for h in range(SHAPE.num_heads):
        if h in dropped:
            continue
        out, _ = scaled_dot_product_attention(q[:, h], k[:, h // group], v[:, h // group], causal=True)
        y += out @ w.w_o[h * d:(h + 1) * d]
    return y


def test_ablating_no_head_leaves_the_layer_bit_equal():
    x, w = toy()
    y, a = attention_layer(x, w, SHAPE, rope_theta=10000.0)
    for none in (None, [], ()):
        y2, a2 = attention_layer(x, w, SHAPE, rope_theta=10000.0, ablate_heads=none)
        assert np.array_equal(y, y2) and np.array_equal(a, a2)


@pytest.mark.parametrize("dropped", [[0], [3], [1, 2], [0, 1, 2, 3]])
def test_toy_ablation_matches_dropping_the_head_by_hand(dropped):
    x, w = toy(1)
    y, a = attention_layer(x, w, SHAPE, rope_theta=10000.0, ablate_heads=dropped)
    np.testing.assert_allclose(y, by_hand_without(x, w, set(dropped)), rtol=1e-10, atol=1e-12)
    # the same as deleting the head's rows of o_proj
    rows = np.concatenate([np.arange(h * 4, h * 4 + 4) for h in dropped])
    w_o = w.w_o.copy()
    w_o[rows] = 0.0
    y_rows, a_full = attention_layer(x, LayerWeights(w.w_q, w.w_k, w.w_v, w_o), SHAPE, rope_theta=10000.0)
    np.testing.assert_allclose(y, y_rows, rtol=1e-12, atol=1e-14)
    assert np.array_equal(a, a_full)  # the weights are still reported: only the output is removed
    if len(dropped) == SHAPE.num_heads:
        assert not y.any()


def test_ablate_heads_is_checked():
    x, w = toy()
    with pytest.raises(ValueError, match="ablate_heads.*4"):
        attention_layer(x, w, SHAPE, ablate_heads=[4])
    with pytest.raises(TypeError, match="ablate_heads"):
        attention_layer(x, w, SHAPE, ablate_heads=["0"])
    with pytest.raises(TypeError, match="ablate_heads"):
        attention_layer(x, w, SHAPE, ablate_heads=2)


def test_forward_without_ablation_is_bit_equal_and_resume_is_exact(model, study):
    ids = study.ids[0]
    base = real_model.forward(model, ids, keep_inputs=True)
    for none in (None, {}):
        assert np.array_equal(real_model.forward(model, ids, interventions=none).logits, base.logits)
    ablated = real_model.forward(model, ids, interventions={(20, 3): Zero()})
    resumed = real_model.forward(model, ids, interventions={(20, 3): Zero()}, resume=(20, base.layer_inputs[20]))
    assert np.array_equal(ablated.logits, resumed.logits)
    assert resumed.weights[19] is None and np.array_equal(resumed.weights[25], ablated.weights[25])
    assert not np.array_equal(ablated.logits, base.logits)
    np.testing.assert_array_equal(ablated.weights[20], base.weights[20])  # its own pattern is unchanged


def test_forward_ablate_and_resume_are_checked(model, study):
    ids = study.ids[0]
    with pytest.raises(ValueError, match="interventions.*layer"):
        real_model.forward(model, ids, interventions={(30, 0): Zero()})
    with pytest.raises(ValueError, match="interventions.*head"):
        real_model.forward(model, ids, interventions={(0, 9): Zero()})
    with pytest.raises(TypeError, match="interventions"):
        real_model.forward(model, ids, interventions={(0,): Zero()})
    with pytest.raises(ValueError, match="resume"):
        real_model.forward(model, ids, resume=(2, np.zeros((3, 576))))
    with pytest.raises(TypeError, match="resume"):
        real_model.forward(model, ids, resume=[2, None])


def test_next_token_losses_match_perplexity(model, study):
    ids = study.ids[1]
    losses = real_model.next_token_losses(real_model.forward(model, ids).logits, ids)
    assert losses.shape == (len(ids) - 1,)
    assert real_model.perplexity(model, ids) == pytest.approx(float(np.exp(losses.mean())))
    with pytest.raises(ValueError, match="logits"):
        real_model.next_token_losses(np.zeros((3, 5)), [1, 2])


def test_study_scores_and_the_copying_they_explain(study):
    assert study.scores["induction"].shape == (30, 9)
    assert study.second_copy_loss < study.first_copy_loss - 3  # the model copies in context
    top_ind = study.top("induction", 1)[0]
    top_prev = study.top("previous", 1)[0]
    assert study.scores["induction"][top_ind] > 0.5 and study.scores["previous"][top_prev] > 0.5
    # the scores agree with recomputing from the stored weights of one sequence
    one = heads.induction_score(study.weights[1], study.length)
    assert np.allclose(study.scores["induction"], np.mean([heads.induction_score(w, study.length)
                                                           for w in study.weights], axis=0))
    assert one.shape == (30, 9)


def test_study_ablations_are_memoised_and_induction_heads_matter_more_than_random(study):
    assert study.second_copy_loss_without([]) == study.second_copy_loss
    top = study.top("induction", 4)
    drawn = [heads.random_heads(4, 4000 + d, study.shape, exclude=top) for d in range(2)]
    assert study.second_copy_loss_without(top) > max(study.second_copy_loss_without(h) for h in drawn) + 1
    first = study.ablate(study.top("induction", 4))
    assert study.ablate(list(reversed(study.top("induction", 4)))) is first
    low = min(layer for layer, _ in study.top("induction", 4))  # the first sequence's weights come along:
    assert first["weights"].shape == study.weights[0].shape  # layers below the ablation are the stored ones
    assert np.array_equal(first["weights"][:low], study.weights[0][:low])
    assert not np.array_equal(first["weights"][low + 1:], study.weights[0][low + 1:])
    first_copy_without = heads.copy_losses(first["losses"], study.length)[0].mean()
    assert abs(first_copy_without - study.first_copy_loss) < 0.5
    with pytest.raises(ValueError, match="score"):
        study.top("copy", 1)
