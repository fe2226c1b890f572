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


def test_index_notebook_runs_and_slider_drives_weights(lab):
    nb = open_and_run(lab, "00_index.ipynb")
    try:
        assert nb.error_outputs() == []
        text = nb.output_text()
        assert "Glyph" not in text and "Traceback" not in text
        explorer = nb.explorer(0)
        q1_text, readout, latency = nb.press_on_slider(explorer, 0, "ArrowRight")
        q1 = float(q1_text)
        assert q1 != 2.0
        qkv = example.running_qkv()
        _, w = scaled_dot_product_attention(np.array([[q1, 0.0]]), qkv.k, qkv.v)
        assert numbers(readout) == [float(f"{x:.3f}") for x in w[0]]
        assert latency < 2000
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        nb.page.screenshot(path=str(ARTIFACTS / "00_index.png"), full_page=True)
    finally:
        nb.page.close()
