"""helpers.real_model.sentence_view: a text of one's own, everything at once — on the tiny random model
with SmolLM2's structure (no 1.2 GB load; tests/notebooks/test_real_model.py runs the real one)."""
import numpy as np
import pytest
from tiny_model import tiny_model

from helpers import readable_tokens, reading, real_model
from helpers.heads import top_heads
from helpers.real_model import sentence
from tools import home


@pytest.fixture(scope="module")
def model():
    return tiny_model()


def test_the_view_is_one_forward_pass_read_every_way(model):
    text = "hello there"
    view = real_model.sentence_view(model, text)
    ids = real_model.encode(model, text)
    run = real_model.forward(model, ids)
    n, layers, heads = len(ids), model.config.num_layers, model.config.num_heads
    assert view.text == text and view.ids == tuple(ids)
    assert view.weights.shape == (layers, heads, n, n) and view.weights.dtype == np.float32
    np.testing.assert_array_equal(view.weights, np.stack(run.weights))  # the same pass, the same code
    spelling = readable_tokens.spell_ids(model, ids)
    assert view.labels == spelling.labels() and view.piece_labels == spelling.piece_labels()
    np.testing.assert_array_equal(view.maps, readable_tokens.group_attention(view.weights, spelling))
    np.testing.assert_array_equal(view.scores["previous"], reading.previous_token_score(view.weights))
    np.testing.assert_array_equal(view.scores["sink"], reading.sink_score(view.weights))
    for name, score in view.scores.items():
        assert score.shape == (layers, heads)
        order = view.ranking[name]
        assert order.shape == (layers * heads, 2)
        ranked = score[order[:, 0], order[:, 1]]
        assert np.all(np.diff(ranked) <= 0)
        assert [tuple(pair) for pair in order.tolist()] == top_heads(score, layers * heads)  # as 12 ranks heads
        a, b = order[3]
        assert view.rank(name, a, b) == 4
    # the next tokens: the last position's logits of the same pass, as next_token_top reads them
    assert [t.id for t in view.top] == [i for i, _ in real_model.top_tokens(run.logits[-1], sentence.TOP_K)]
    assert [(t.text, t.probability) for t in view.top] == real_model.next_token_top(model, ids, k=sentence.TOP_K)
    # a candidate stands alone: its leading space is kept (' =' reads ␣=, '=' reads =)
    assert [t.label for t in view.top] == [readable_tokens.spell([model.tokens[t.id]]).labels(keep_space=True)[0]
                                           for t in view.top]
    assert all(t.probability >= u.probability for t, u in zip(view.top, view.top[1:]))


def test_next_tokens_tied_keep_the_lower_id_first():
    p = np.exp(2.0) / (1 + 2 * np.exp(2.0) + np.exp(1.0))
    top = real_model.top_tokens(np.array([0.0, 2.0, 2.0, 1.0], np.float32), 3)
    assert [i for i, _ in top] == [1, 2, 3] and top[0][1] == top[1][1] == pytest.approx(p, rel=1e-12)
    with pytest.raises(ValueError, match="^k must be"):
        real_model.top_tokens(np.zeros(3), 4)


@pytest.mark.parametrize("text, scores", [("a", []), ("ab", ["previous"]), ("abcd", ["previous"]),
                                          ("abcde", ["previous", "sink"])])
def test_a_score_needs_its_fewest_tokens(model, text, scores):
    view = real_model.sentence_view(model, text)
    assert list(view.scores) == list(view.ranking) == scores
    assert all(len(view.ids) >= sentence.MIN_TOKENS[name] for name in scores)
    if "sink" in scores:
        assert 1 <= view.rank("sink", 0, 0) <= model.config.num_layers * model.config.num_heads
    else:
        with pytest.raises(ValueError, match="^name must be one of the scores of this text"):
            view.rank("sink", 0, 0)


@pytest.mark.parametrize("text, error, message", [
    (5, TypeError, "句子（text）应是一段文字（str），收到的是 int 5"),
    (None, TypeError, "句子（text）应是一段文字（str），收到的是 NoneType None"),
    ("", ValueError, "句子（text）是空的"),
    ("ab\x07c", ValueError, "句子（text）的第 3 个字符是看不见的控制字符 U+0007"),
    ("\x00", ValueError, "句子（text）的第 1 个字符是看不见的控制字符 U+0000"),
    ("a\x7f", ValueError, "句子（text）的第 2 个字符是看不见的控制字符 U+007F"),
    ("年\x85", ValueError, "句子（text）的第 2 个字符是看不见的控制字符 U+0085"),
    ("😀\ud800", ValueError, "句子（text）的第 2 个字符是半个字符（不成对的 UTF-16 代理项 U+D800）"),
    ("a" * 65, ValueError, "句子（text）切成了 65 个 token，超过了上限 64 个"),
])
def test_bad_text_gets_one_sentence_naming_text(model, text, error, message):
    with pytest.raises(error) as caught:
        real_model.sentence_view(model, text)
    assert str(caught.value).startswith(message), str(caught.value)


def test_tabs_newlines_emoji_and_the_cap_itself_run(model):
    assert len(real_model.sentence_view(model, "a" * sentence.MAX_TOKENS).ids) == sentence.MAX_TOKENS
    view = real_model.sentence_view(model, "a\tb\r\nc 😀")
    assert "↵" in view.labels and "😀" in view.labels


def test_the_page_address_is_the_books_from_home_toml():
    assert sentence.page_url() == home.home()["documentation"] + sentence.PAGE
