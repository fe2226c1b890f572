"""``09_real_model``: the real-attention explorer and the previous-token exercise (the
model parts are marked ``model``: slow, skipped outside CI without SmolLM2)."""
import numpy as np
import pytest
import sentence_reference
from fakes import fake_weights

from helpers import exercises as ex
from helpers import (
    real_model,
    texts,
    widgets,
)
from helpers.exercises import EXERCISES
from helpers.grading import answers as an


@pytest.fixture
def model(smollm2):
    """The session's one SmolLM2 (``smollm2`` in the root conftest; skips outside CI without it)."""
    return smollm2


def test_previous_token_exercise_is_an_experiment_on_the_given_weights():
    strong, weak = fake_weights(0.9), fake_weights(0.3)
    ranked = ex.previous_token_ranking(strong)
    assert ranked[0][1:] == (1, 1) and ranked[0][0] == pytest.approx(0.9)
    assert an.judge(EXERCISES["09-1"], "是", short=strong, ranked=ranked)[0] is True
    assert an.judge(EXERCISES["09-1"], "是", short=weak, ranked=ranked)[0] is False
    with pytest.raises(ValueError, match="weights\\[0\\] must have shape"):
        ex.previous_token_ranking([np.ones((2, 1, 1))])


def test_reference_answers_stay_hidden_until_asked(capsys):
    ex.reference("09-2")
    hidden = capsys.readouterr().out
    ex.reference("09-2", show=True)
    shown = capsys.readouterr().out
    assert ex.REFERENCES["09-2"] not in hidden and ex.REFERENCES["09-2"] in shown


def test_previous_token_ranking_finds_a_head_that_generalises(model):
    from helpers import exercises

    long_run = real_model.forward(model, real_model.encode(model, texts.LONG_TEXT))
    ranked = exercises.previous_token_ranking(long_run.weights)
    assert len(ranked) == model.config.num_layers * model.config.num_heads
    assert ranked[0][0] > 0.5 and ranked[0][0] >= ranked[-1][0]
    short = real_model.forward(model, real_model.encode(model, texts.HEATMAP_TEXT)).weights
    assert exercises.check("09-1", "是", short=short, ranked=ranked).ok is True  # 0.74 on the short sentence


def test_real_attention_explorer_checks_its_text_before_loading_the_model():
    with pytest.raises(TypeError, match="text must be a string, got int 5"):
        widgets.real_attention_explorer(text=5)


def test_real_attention_explorer_each_control(needs_model):
    from helpers import real_model, texts

    e = widgets.real_attention_explorer()
    model = real_model.load_model()
    ids = real_model.encode(model, texts.HEATMAP_TEXT)
    weights = real_model.forward(model, ids).weights
    e.controls["layer"].value = 20
    e.controls["head"].value = 7
    np.testing.assert_allclose(e.state["weights"], weights[20][7])
    assert e.state["kv_head"] == 2
    assert f"class='first'>{weights[20][7][4:, 0].mean():.3f}" in e.readout.value
    np.testing.assert_allclose(e.heat.get_array(), weights[20][7])


def test_real_attention_explorer_shows_chinese_as_characters(needs_model):
    from helpers import readable_tokens, real_model, texts

    e = widgets.real_attention_explorer(text=texts.CHINESE_PROMPT)
    assert e.labels == list(texts.CHINESE_PROMPT)
    model = real_model.load_model()
    ids = real_model.encode(model, texts.CHINESE_PROMPT)
    pieces = real_model.forward(model, ids).weights[3][2]
    e.controls["layer"].value = 3
    e.controls["head"].value = 2
    expected = readable_tokens.group_attention(pieces, readable_tokens.spell_ids(model, ids))
    np.testing.assert_array_equal(e.state["weights"], expected)  # the same code on the same input
    # float32 rows of at most 15 pieces: a few units in the last place
    np.testing.assert_allclose(e.state["weights"].sum(axis=-1), 1.0, atol=1e-5)


def test_grouped_row_exercise_matches_the_definition_by_hand(model):
    from helpers import readable_tokens

    ids = real_model.encode(model, texts.CHINESE_PROMPT)
    spelling = readable_tokens.spell_ids(model, ids)
    weights = np.stack(real_model.forward(model, ids).weights)
    (q0, q1), (k0, k1) = spelling.runs[5], spelling.runs[1]  # 请, 假
    by_hand = weights[0, 8, q0:q1, k0:k1].sum(axis=1).mean()
    expected, working = EXERCISES["09-3"].solve(weights=weights, spelling=spelling, layer=0, head=8)
    # float32 weights, a sum of 3 and a mean of 2: far inside the exercise's 3 decimals
    assert expected == pytest.approx(by_hand, abs=1e-6) and "“请”的 2 段 token" in working
    assert ex.check("09-3", f"{by_hand:.3f}", weights=weights, spelling=spelling, layer=0, head=8).ok is True


def test_sentence_explorer_checks_its_text_before_loading_the_model():
    # the sentence sentence_view gives, naming the text as the text box (句子) and the argument do
    with pytest.raises(TypeError, match=r"^句子（text）应是一段文字（str），收到的是 int 5"):
        widgets.sentence_explorer(text=5)


def test_sentence_explorer_shows_the_lesson_functions_numbers_for_typed_text(needs_model, monkeypatch):
    """The learner types into the text box (its value, as the browser sets it on Enter) and moves the
    sliders: every number shown is sentence_view's, and a slider move reads the kept view."""
    import html

    from helpers.real_model import sentence
    from helpers.render.panels import future_masked

    model = real_model.load_model()
    e = widgets.sentence_explorer()
    assert e.values["text"] == texts.CHINESE_PROMPT and e.controls["text"].continuous_update is False
    first = real_model.sentence_view(model, texts.CHINESE_PROMPT)
    assert (e.values["layer"], e.values["head"]) == tuple(first.ranking["previous"][0])
    assert " · ".join(first.labels) in e.readout.value == e.describe(e.state)

    text = "Alice gave the book to Bob because he asked for it."
    e.controls["text"].value = text
    view = real_model.sentence_view(model, text)
    calls = []
    made = real_model.sentence_view
    monkeypatch.setattr(real_model, "sentence_view", lambda *a, **k: calls.append(a) or made(*a, **k))
    heads = model.config.num_layers * model.config.num_heads
    for layer, head in ((3, 2), (29, 8), (0, 0), (16, 0)):
        e.set(layer=layer, head=head)
        readout = e.readout.value
        np.testing.assert_array_equal(e.state["map"], view.maps[layer, head])
        np.testing.assert_array_equal(e.heat.get_array(), future_masked(view.maps[layer, head]))
        for name in sentence.SCORES:
            assert (f"<span class='{name}'>{view.scores[name][layer, head]:.3f}</span>"
                    f"（{heads} 个头里第 {view.rank(name, layer, head)}）") in readout, (name, readout)
    for name in sentence.SCORES:
        for a, b in view.ranking[name][:e.leaders]:
            assert f"层 {a} · 头 {b}（{view.scores[name][a, b]:.3f}）" in readout
    for i, t in enumerate(view.top):
        assert f"<span class='next{i}'>{html.escape(t.label)}</span> {t.probability:.3f}" in readout
    assert f"{len(view.ids)} 个 token，读作 {len(view.labels)} 个字或词" in readout
    e.controls["text"].value = texts.CHINESE_PROMPT  # seen before: its view is kept
    assert calls == [], "a slider move or a text seen before ran the model again"

    e.controls["text"].value = "Hi"  # one token: neither score is defined on it
    assert "前一个 token 分数要至少 2 个 token" in e.readout.value and "汇聚分数要至少 5 个 token" in e.readout.value
    for typed, said in (("", "句子（text）是空的"), ("字" * 70, "句子（text）切成了 70 个 token，超过了上限 64 个"),
                        ("年\x07", "句子（text）的第 2 个字符是看不见的控制字符 U+0007")):
        e.controls["text"].value = typed
        assert e.state["error"].startswith(said) and said in e.readout.value
        assert not e.box.get_visible()
    e.reset_button.click()
    assert e.values == e.defaults and e.state["error"] is None


@pytest.mark.parametrize("text", sentence_reference.FIXED)
def test_the_text_box_shows_the_books_page_numbers(model, text):
    """09's text box and the book's page 你自己的句子 are held to one definition
    (sentence_reference.python_view): the same tokens, grouped maps, scores, ranked heads and top 5."""
    from helpers.real_model import sentence

    view, want = real_model.sentence_view(model, text), sentence_reference.python_view(text)
    assert list(view.ids) == want["ids"]
    assert view.piece_labels == want["piece_labels"] and view.labels == want["run_labels"]
    # both are numpy's float32 forward of the same ids, the same code up to the logits: 1e-6 is far
    # above float32's rounding of a weight ≤ 1 (BLAS kernels may sum in another order) and far below
    # the 3 decimals shown
    np.testing.assert_allclose(view.maps, want["grouped"], rtol=0, atol=1e-6)
    heads = model.config.num_heads
    for name in sentence.SCORES:
        np.testing.assert_allclose(view.scores[name], want["scores"][name], rtol=0, atol=1e-6)
        ranked = [a * heads + b for a, b in view.ranking[name][:sentence_reference.RANKED]]
        py = want["scores"][name].ravel()
        # the i-th head ranked holds the page's i-th score (heads swap only where their scores tie)
        assert np.abs(py[ranked] - py[want["ranking"][name]]).max() <= 1e-6, (name, ranked, want["ranking"][name])
    assert sentence_reference.same_ranking([t.id for t in view.top], want["top"], want["p"])
    assert [t.label for t in view.top] == [want["labels"][i] for i in want["top"]]
    # a logit is a float32 sum of 576 products: computed for the last row alone its rounding moves by
    # ~1e-5 (as the engine's does, |Δlogit| ≤ 3.7e-5), and a probability by that much relatively
    np.testing.assert_allclose([t.probability for t in view.top], want["p"][want["top"]], rtol=1e-4, atol=0)


def test_the_books_page_and_09_point_at_each_other(model):
    """09's stored output prints the page's address (the book's, from the installed package's metadata),
    on the article's sentence; the page's prose links back to 09."""
    import json

    from paths import ROOT

    from helpers.real_model import sentence
    from tools.site.live.sentence import page as sentence_page

    nb = json.loads((ROOT / "notebooks" / "09_real_model.ipynb").read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code" and "sentence_view(" in "".join(c["source"]))
    printed = "".join("".join(o.get("text", "")) for o in cell["outputs"])
    assert sentence.page_url().endswith(f"/{sentence_page.PAGE}.html") and sentence.page_url() in printed
    assert " ".join(real_model.sentence_view(model, texts.CHINESE_PROMPT).labels) in printed
    assert f"]({sentence_page.NOTEBOOK}.ipynb)" in sentence_page.source() and sentence_page.NOTEBOOK == "09_real_model"


def test_a_candidate_next_token_keeps_its_leading_space(model):
    """' =' and '=' are two tokens: the top 5 (notebook and page) must not show both as '='."""
    from helpers.real_model import sentence

    spaced, bare = model.tokens.index("Ġ="), model.tokens.index("=")
    assert (sentence.next_label(model, spaced), sentence.next_label(model, bare)) == ("␣=", "=")
    assert sentence.next_label(model, model.tokens.index("Ċ")) == "↵"
