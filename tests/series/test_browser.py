"""Real-browser tests: every notebook in JupyterLab on 127.0.0.1, headless Chromium (Debian's
/usr/bin/chromium) driven by playwright.

Each notebook is opened, run top to bottom, checked for error output and missing glyphs; at
least one control of every explorer is moved with the keyboard and the number shown must be the
one ``helpers`` computes for the control's new value. Key-press-to-updated-output latency is
measured (median <= 150 ms per notebook) and one screenshot per notebook is saved under
artifacts/browser/. After each notebook its kernel is shut down, and at most one kernel may still be
alive (without that, 7–8 kernels ran at once, two holding the model). Without Chromium or playwright these skip with the reason; CI sets
ATTENTION_LAB_REQUIRE_BROWSER=1, which turns the skip into a failure.
"""
import json
import os
import re

import numpy as np
import pytest
from browser_lab import CHROMIUM, CHROMIUM_ARGS, LabServer, NotebookPage
from paths import ROOT

from helpers import example, scaled_dot_product_attention
from tools.series import NOTEBOOKS, REAL_MODEL

REQUIRE_BROWSER = os.environ.get("ATTENTION_LAB_REQUIRE_BROWSER") == "1"  # CI sets it


ARTIFACTS = ROOT / "artifacts" / "browser"

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _unavailable():
    if not os.path.exists(CHROMIUM):
        return f"{CHROMIUM} not found (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "python playwright is not installed"
    return None


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    reason = _unavailable()
    if reason:
        if REQUIRE_BROWSER:
            pytest.fail(f"browser tests are required (ATTENTION_LAB_REQUIRE_BROWSER=1) but {reason}")
        pytest.skip(reason)
    server = LabServer(tmp_path_factory.mktemp("lab")).start()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield server, browser
        finally:
            browser.close()
            server.stop()


def numbers(text):
    return [float(x) for x in re.findall(r"-?\d+\.\d+", text)]


def r3(values):
    return [float(f"{x:.3f}") for x in np.ravel(values)]


def query_weights(q1, q2=0.0):
    qkv = example.running_qkv()
    return scaled_dot_product_attention(np.array([[q1, q2]]), qkv.k, qkv.v)[1][0]


def expect_index(value):
    return r3(query_weights(float(value)))


def expect_weighted_average(value):
    raw = np.array([float(value), 0.25, 0.25, 0.25])
    return r3([raw[0] / raw.sum()])


def expect_qkv(value):
    q = np.array([float(value), 0, 0, 1]) @ example.W_Q
    return [float(f"{x:.2f}") for x in q]


def expect_hand(value):
    return r3([query_weights(float(value))[1]])


def expect_sqrt_d(value):
    from helpers import softmax
    from helpers.scaling import ScorePool

    d = int(value)
    return r3([softmax(ScorePool().scores(5, d) / np.sqrt(d)).max(axis=-1).mean()])


def expect_causal(value):
    qkv = example.running_qkv()
    return r3(scaled_dot_product_attention(qkv.q, qkv.k, qkv.v, causal=True)[1][int(value)])


def expect_layer(value):
    n = int(value)
    return f"[32, {n}, {n}]"


def expect_cost(value):
    from helpers import LLAMA_3_1_8B
    from helpers.cost import attention_flops_per_token

    n = int(value.replace("K", "")) * 1024
    return [float(f"{attention_flops_per_token(LLAMA_3_1_8B, n) / 1e9:.1f}")]


def expect_online(value):
    return f"{-(-16 // int(value))} 步"


def expect_sink(value):
    from helpers import reading

    seq = reading.sink_sequence(24, strength=float(value))
    return r3([scaled_dot_product_attention(seq.q, seq.k, seq.v, causal=True)[1][4:, 0].mean()])


def expect_influence(value):
    from helpers import reading

    return r3([reading.weight_vs_influence_example(float(value))["influence"][0]])


def expect_dilution(value):
    from helpers import reading

    return r3([reading.dilution_weight(float(value), 1024, sigma=0.5)])


def expect_real(value):
    from helpers import real_model, texts

    model = real_model.load_model()
    weights = real_model.forward(model, real_model.encode(model, texts.HEATMAP_TEXT)).weights
    return r3([weights[int(value)][0][4:, 0].mean()])


def expect_sentence(value):
    """The text box's explorer opens on the article's sentence at its best previous-token head; the
    layer slider moves along that head's column."""
    from helpers import real_model, texts

    view = real_model.sentence_view(real_model.load_model(), texts.CHINESE_PROMPT)
    head = int(view.ranking["previous"][0][1])
    return r3([view.scores["previous"][int(value), head]])


def expect_learning(value):
    from helpers import training

    run = training.trained_run()
    data = training.encode([training.EXAMPLES[0]])
    return r3([training.attention_on_item(run.params_at(int(value)), data)[0]])


def expect_heads(value):
    from helpers import heads
    from helpers.heads import scan as head_scan

    head = heads.study().top("induction", int(value))[-1]
    return r3([head_scan.load_scan().single_change("zero").mean(axis=-1)[head]])  # the explorer reads the scan


def expect_sender(value):
    from helpers import heads

    head = tuple(int(v) for v in value.split("."))
    return r3([heads.load_senders().scores("k", "zero").mean(axis=-1)[head]])  # the explorer reads the screen


def expect_circuit(value):
    from helpers.circuit import history

    h = history.load()
    return r3([h.repeat_loss[h.index(int(value))]])


def expect_latent(value):
    return f"{int(value) + 64:,}"


def expect_streaming(value):
    from helpers.smaller_cache import streaming

    return f"{streaming.load().perplexity(streaming.WINDOWS[0], int(value), 'cache'):.2f}"


def expect_sink_logit(value):
    from helpers.figures.shrinking_caches import sink_row

    return f"{sink_row(float(value))['factor']:.3f}"


def expect_chunk(value):
    chunk = int(value)
    return str(sum(min(chunk, 16 - s) * (min(chunk, 16 - s) + 1) // 2 for s in range(0, 16, chunk)))


def expect_recall(value):
    from helpers.linear_attention import recall

    return f"{recall.load()['runs'][('conv', 'linear', int(value))].overall:.3f}"


def expect_ledger(value):
    return f"n = {value}："


# notebook → [(explorer index, slider index, key, CSS of the shown result, expected(slider text))]
CASES = {
    "00_index.ipynb": [(0, 0, "ArrowRight", ".widget-html-content", expect_index)],
    "01_weighted_average.ipynb": [(0, 0, "ArrowRight", ".weights-0", expect_weighted_average)],
    "02_qkv.ipynb": [(0, 0, "ArrowRight", ".q", expect_qkv)],
    "03_hand_calculation.ipynb": [(0, 0, "ArrowLeft", ".weights-1", expect_hand)],
    "04_sqrt_d.ipynb": [(0, 0, "ArrowLeft", ".maxw", expect_sqrt_d)],
    "05_causal_mask.ipynb": [(0, 0, "ArrowLeft", ".row", expect_causal)],
    "06_attention_layer.ipynb": [(0, 1, "ArrowLeft", ".widget-html-content", expect_layer)],
    "07_cost_of_length.ipynb": [(0, 0, "ArrowRight", ".attn", expect_cost),
                                (1, 0, "ArrowRight", ".widget-html-content", expect_online)],
    "08_reading_attention.ipynb": [(0, 0, "ArrowLeft", ".sink", expect_sink),
                                   (1, 0, "ArrowRight", ".infl0", expect_influence),
                                   (2, 0, "ArrowRight", ".closed", expect_dilution)],
    "09_real_model.ipynb": [(0, 0, "ArrowRight", ".first", expect_real),
                            (1, 0, "ArrowRight", ".previous", expect_sentence)],
    "10_learning_to_attend.ipynb": [(0, 0, "ArrowRight", ".item", expect_learning)],
    "11_learning_a_circuit.ipynb": [(0, 0, "ArrowLeft", ".repeat", expect_circuit)],  # opens at the last step
    "12_heads_at_work.ipynb": [(0, 0, "ArrowRight", ".zero", expect_heads)],
    "13_induction_circuit.ipynb": [(0, 0, "ArrowRight", ".score", expect_sender)],  # 16.0 → 17.8, keys, zeroed
    "14_shrinking_caches.ipynb": [(0, 0, "ArrowRight", ".small", expect_latent),
                                  (1, 0, "ArrowLeft", ".ppl", expect_streaming),
                                  (2, 0, "ArrowRight", ".factor", expect_sink_logit)],
    "15_fixed_state.ipynb": [(0, 0, "ArrowRight", ".inside", expect_chunk),
                             (1, 0, "ArrowRight", ".lin", expect_recall),
                             (2, 0, "ArrowLeft", ".widget-html-content", expect_ledger)],
}


EXTRA_PRESSES = 4  # more key presses on the first explorer, for the latency median


def open_and_run(lab, name, before_run=None):
    """Open ``name``; call ``before_run(nb)`` on the unrun notebook, then run every cell."""
    server, browser = lab
    page = browser.new_page(viewport={"width": 1280, "height": 1600})
    nb = NotebookPage(page, server, name)
    nb.open()
    if before_run is not None:
        before_run(nb)
    nb.run_all()
    return nb


def assert_static_pictures(nb):
    """Unrun (as GitHub, nbviewer and a fresh JupyterLab show it): every explorer's output is a
    sharp picture with the hint, never a widget repr."""
    from helpers.render.explorer import STATIC_HINT

    nb.page.wait_for_function("() => [...document.querySelectorAll('.jp-OutputArea img')].every(i => i.complete)")
    outputs = nb.explorer_outputs()
    assert outputs, f"{nb.name}: no widget cells found"
    for out in outputs:
        assert "VBox(" not in out["text"] and STATIC_HINT in out["text"] or out["images"], (nb.name, out)
        assert len(out["images"]) == 1, (nb.name, out)
        image = out["images"][0]
        assert image["natural"] >= 2 * image["shown"] - 1, (nb.name, image)
    assert "VBox(" not in nb.output_text()


def assert_sharp(nb):
    """Every picture (static figures and live explorers) has at least 2 image pixels per CSS pixel."""
    pictures = nb.pictures()
    assert pictures, f"{nb.name}: no pictures"
    blurry = [p for p in pictures if p["natural"] < 2 * p["shown"] - 1]
    assert blurry == [], (nb.name, blurry)


def has_explorer(name: str) -> bool:
    """Whether notebook ``name`` (``NN_slug``) has a widget cell (a line that is a ``helpers.widgets`` call)."""
    source = (ROOT / "notebook_sources" / f"{name}.md").read_text(encoding="utf-8")
    return re.search(r"^helpers\.widgets\.\w+\(", source, flags=re.M) is not None


def test_a_sentence_typed_into_09s_text_box_is_read_by_the_model(lab_case, needs_model):
    """The learner types into 09's text box and presses Enter: the readout shows the lesson function's
    tokens and numbers for that text; an empty box gets its sentence, not a traceback."""
    from helpers import real_model, texts

    nb = open_and_run(lab_case, "09_real_model.ipynb")
    try:
        explorer = nb.explorer(1)
        explorer.scroll_into_view_if_needed()
        text = "How do I apply for annual leave?"
        shown = nb.type_text(explorer, text)
        model = real_model.load_model()
        view = real_model.sentence_view(model, text)
        assert " · ".join(view.labels) in shown, shown
        # the sliders stay where the explorer opened: the article's sentence's best previous-token head
        opened = real_model.sentence_view(model, texts.CHINESE_PROMPT)
        layer, head = (int(x) for x in opened.ranking["previous"][0])
        assert numbers(explorer.locator(".previous").first.inner_text()) == r3([view.scores["previous"][layer, head]])
        assert f"{view.top[0].probability:.3f}" in shown
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        explorer.screenshot(path=str(ARTIFACTS / "09_sentence_typed.png"))
        assert "句子（text）是空的" in nb.type_text(explorer, "")
        assert nb.error_outputs() == [] and "Traceback" not in nb.output_text()
    finally:
        nb.page.close()


def test_every_notebook_with_an_explorer_has_a_browser_case():
    missing = [f"{name}.ipynb" for name in NOTEBOOKS if has_explorer(name) and f"{name}.ipynb" not in CASES]
    assert missing == [], f"add a browser case to CASES for {missing}"
    assert set(CASES) <= {f"{name}.ipynb" for name in NOTEBOOKS}


@pytest.fixture
def lab_case(lab):
    """The lab for one case; afterwards the case's kernel is shut down and at most one kernel is
    left alive (the notebooks of 09 and 11 each hold the 135M model while their kernel lives)."""
    yield lab
    server, _ = lab
    left = server.shut_down_kernels()
    assert left <= 1, f"{left} kernels still alive after the case"


@pytest.mark.parametrize("name", [f"{name}.ipynb" for name in NOTEBOOKS])
def test_notebook_in_jupyterlab(lab_case, name, request):
    if name.removesuffix(".ipynb") in REAL_MODEL:
        request.getfixturevalue("needs_model")
    explorer = has_explorer(name.removesuffix(".ipynb"))
    nb = open_and_run(lab_case, name, before_run=assert_static_pictures if explorer else None)
    try:
        assert nb.error_outputs() == []
        assert "VBox(" not in nb.output_text()
        text = nb.output_text()
        assert "Glyph" not in text and "Traceback" not in text
        latencies = []
        for explorer_index, slider_index, key, watch, expected in CASES.get(name, []):
            explorer = nb.explorer(explorer_index)
            explorer.scroll_into_view_if_needed()
            value, shown, latency = nb.press_on_slider(explorer, slider_index, key, watch=watch)
            want = expected(value)
            if isinstance(want, str):
                assert want in shown, (name, value, shown)
            else:
                assert numbers(shown) == want, (name, value, shown)
            latencies.append(latency)
        if name in CASES:
            explorer_index, slider_index, key, watch, _ = CASES[name][0]
            back = {"ArrowRight": "ArrowLeft", "ArrowLeft": "ArrowRight"}
            for i in range(EXTRA_PRESSES):
                latencies.append(nb.press_on_slider(nb.explorer(explorer_index), slider_index,
                                                    key if i % 2 else back[key], watch=watch)[2])
        if nb.pictures():
            assert_sharp(nb)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        nb.page.screenshot(path=str(ARTIFACTS / name.replace(".ipynb", ".png")), full_page=True)
        with open(ARTIFACTS / "latency.jsonl", "a", encoding="utf-8") as log:
            log.write(json.dumps({"notebook": name, "latency_ms": [round(x, 1) for x in latencies]}) + "\n")
        # latency is recorded (artifacts/browser/latency.jsonl), not asserted: the brief measures speed
        # with `make bench`, never with timed tests (a loaded CI machine must not fail a correct page)
    finally:
        nb.page.close()
