"""helpers.real_model: SmolLM2-135M through the series' own layer (marked ``model``: slow, skipped
outside CI without the model)."""
import numpy as np
import pytest

from helpers import real_model, texts


@pytest.fixture
def model(smollm2):
    """The session's one SmolLM2 (``smollm2`` in the root conftest; skips outside CI without it)."""
    return smollm2


def test_config_from_gguf_matches_published(model):
    from helpers.config import SMOLLM2_135M

    for field in ("hidden_size", "num_layers", "num_heads", "num_kv_heads", "head_dim", "intermediate_size",
                  "vocab_size", "rope_theta"):
        assert getattr(model.config, field) == getattr(SMOLLM2_135M, field), field


def test_perplexity_below_12_and_wrong_rope_is_much_worse(model):
    ids = real_model.encode(model, texts.PARAGRAPH)
    assert 100 <= len(ids) <= 140
    right = real_model.perplexity(model, ids)
    assert right < 12
    assert real_model.perplexity_with_wrong_rope(model, ids) > 2 * right


def test_greedy_continuation_is_paris(model):
    ids = real_model.encode(model, texts.PROMPT)
    first = real_model.decode(model, real_model.generate(model, ids, 1))
    assert first == " Paris"
    top = real_model.next_token_top(model, ids, k=5)
    assert top[0][0] == " Paris" and 0.5 < top[0][1] < 0.95


def test_wrong_qk_order_still_says_paris_and_restores_the_weights(model):
    ids = real_model.encode(model, texts.PROMPT)
    before = [block.attention for block in model.blocks]
    with real_model.wrong_qk_order(model):
        assert model.blocks[0].attention is not before[0]
        (token, p), = real_model.next_token_top(model, ids, k=1)
    assert token == " Paris" and p > 0.3
    assert all(block.attention is saved for block, saved in zip(model.blocks, before))


@pytest.mark.parametrize("text", ["Hello, world!", "2024年12月31日", "年假怎么申请？", "x = 12345 + 678",
                                  "<|im_start|>user\nHi<|im_end|>", "  spaces\tand\nnewlines  ", "café naïve"])
def test_tokenizer_round_trips_and_matches_gguf_vocab(model, text):
    ids = real_model.encode(model, text)
    assert real_model.decode(model, ids) == text
    assert all(0 <= i < len(model.tokens) for i in ids)
    # every id is a GGUF vocabulary entry, decoded by byte-level rules
    joined = "".join(model.tokens[i] for i in ids)
    assert real_model.decode(model, ids) == model.tokenizer.decoder.decode([joined]) or "<|" in text


def test_tokenizer_specifics(model):
    assert len(real_model.encode(model, "年假怎么申请？")) == 15
    assert real_model.encode(model, "2024") == [real_model.encode(model, d)[0] for d in "2024"]  # single digits
    start, end = model.tokens.index("<|im_start|>"), model.tokens.index("<|im_end|>")
    ids = real_model.encode(model, "<|im_start|>user<|im_end|>")
    assert ids[0] == start and ids[-1] == end
    assert real_model.encode(model, "Hi")[0] != 1  # no BOS added


def test_cached_generation_equals_uncached(model):
    ids = real_model.encode(model, "Once upon a time")
    assert real_model.generate(model, ids, 6, use_cache=True) == real_model.generate(model, ids, 6, use_cache=False)
    caches = real_model.new_caches(model)
    full = real_model.forward(model, ids).logits
    step1 = real_model.forward(model, ids[:2], caches=caches).logits
    step2 = real_model.forward(model, ids[2:], caches=caches).logits
    np.testing.assert_allclose(np.vstack([step1, step2]), full, atol=1e-3)


def test_sink_statistics_in_sane_bounds(model):
    ids = real_model.encode(model, texts.LONG_TEXT)
    run = real_model.forward(model, ids)
    first = real_model.first_position_weight(run.weights)
    assert first.shape == (30, 9)
    assert ((first >= 0) & (first <= 1)).all()
    assert 0.1 < (first > 0.5).mean() < 0.9  # a sizeable share of heads, not all
    assert first[len(first) // 2:].mean() > first[:3].mean()  # later layers sink more
    n = len(ids)
    full = real_model.perplexity(model, ids)
    window = real_model.perplexity(model, ids, mask=real_model.streaming_mask(n, 32))
    with_sink = real_model.perplexity(model, ids, mask=real_model.streaming_mask(n, 32, sink=4))
    assert full < with_sink < window


def test_forward_validation(model):
    with pytest.raises(ValueError, match="token ids must be in"):
        real_model.forward(model, [10 ** 6])
    with pytest.raises(ValueError, match="non-empty"):
        real_model.forward(model, [])


def test_unpermute_inverts_permute():
    w = np.arange(12 * 5, dtype=float).reshape(12, 5)
    np.testing.assert_array_equal(real_model.unpermute_qk(real_model.permute_qk(w, 3), 3), w)


def test_find_gguf_error_names_the_install_command(monkeypatch):
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(real_model.ModelNotInstalled, match="--no-deps"):
        real_model.find_gguf()
