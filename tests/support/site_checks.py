"""What the site's browser tests share: skip (or, in CI, fail) with the reason when a tool is missing."""
from __future__ import annotations

import importlib.util
import os

import pytest

REQUIRE = os.environ.get("ATTENTION_LAB_REQUIRE_BROWSER") == "1"
SITE_MODULES = ("sphinx", "myst_nb", "sphinx_book_theme", "jieba", "latex2mathml")


def require(reason: str) -> None:
    """Skip with ``reason`` if it is not empty; in CI (ATTENTION_LAB_REQUIRE_BROWSER=1) fail instead."""
    if reason:
        if REQUIRE:
            pytest.fail(f"required in CI: {reason}")
        pytest.skip(reason)


def site_missing() -> str:
    """'' when the site extra is installed, else a one-line reason."""
    gone = [m for m in SITE_MODULES if importlib.util.find_spec(m) is None]
    return f"the site extra is not installed ({', '.join(gone)}; pip install -e '.[site]')" if gone else ""


def module_browser():
    """One headless Chromium for a test module, closed at its end (playwright's sync API allows one
    running at a time per thread); skipped, or failed in CI, when Chromium is missing. A module takes
    it as ``browser = pytest.fixture(scope="module", name="browser")(module_browser)``."""
    from tools import chromium

    require(chromium.missing())
    with chromium.browser() as b:
        yield b
