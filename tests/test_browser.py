"""Real-browser tests: JupyterLab on 127.0.0.1 in headless Chromium (Debian's /usr/bin/chromium).

Without Chromium or playwright these skip with the reason; CI sets
ATTENTION_LAB_REQUIRE_BROWSER=1, which turns the skip into a failure.
"""
import os
import re
from pathlib import Path

import numpy as np
import pytest

from browser_lab import CHROMIUM, CHROMIUM_ARGS, LabServer, NotebookPage
from conftest import REQUIRE_BROWSER
from helpers import example, scaled_dot_product_attention

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts" / "browser"
pytestmark = pytest.mark.browser


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


def open_and_run(lab, name):
    server, browser = lab
    page = browser.new_page(viewport={"width": 1280, "height": 1600})
    nb = NotebookPage(page, server, name)
    nb.open()
    nb.run_all()
    return nb


def expected_query_weights(q1, q2):
    qkv = example.running_qkv()
    _, w = scaled_dot_product_attention(np.array([[q1, q2]]), qkv.k, qkv.v)
    return w[0]


def expected_causal_row(row):
    qkv = example.running_qkv()
    _, w = scaled_dot_product_attention(qkv.q, qkv.k, qkv.v, causal=True)
    return [float(f"{x:.3f}") for x in w[int(row)]]


def expected_sqrt_d_max(d):
    from helpers import softmax
    from helpers.scaling import ScorePool

    scores = ScorePool().scores(5, int(d)) / np.sqrt(int(d))
    return [float(f"{softmax(scores).max(axis=-1).mean():.3f}")]


# notebook → (explorer index, slider index, key, CSS of the shown result, expected numbers(slider value))
CASES = {
    "00_index.ipynb": (0, 0, "ArrowRight", ".widget-html-content",
                       lambda q1: [float(f"{x:.3f}") for x in expected_query_weights(q1, 0.0)]),
    "03_hand_calculation.ipynb": (0, 0, "ArrowLeft", ".weights-1",
                                  lambda q1: [float(f"{expected_query_weights(q1, 0.0)[1]:.3f}")]),
    "04_sqrt_d.ipynb": (0, 0, "ArrowLeft", ".maxw", expected_sqrt_d_max),
    "05_causal_mask.ipynb": (0, 0, "ArrowLeft", ".row", expected_causal_row),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_notebook_runs_clean_and_control_drives_result(lab, name):
    explorer_index, slider_index, key, watch, expected = CASES[name]
    nb = open_and_run(lab, name)
    try:
        assert nb.error_outputs() == []
        text = nb.output_text()
        assert "Glyph" not in text and "Traceback" not in text
        explorer = nb.explorer(explorer_index)
        value_text, shown, latency = nb.press_on_slider(explorer, slider_index, key, watch=watch)
        value = float(value_text)
        assert numbers(shown) == expected(value), (value, shown)
        assert latency < 2000
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        nb.page.screenshot(path=str(ARTIFACTS / name.replace(".ipynb", ".png")), full_page=True)
    finally:
        nb.page.close()
