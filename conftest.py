"""Shared by tests/ and the nbval run over notebooks/: the real model, and which items are slow.

Outside CI, everything that needs SmolLM2-135M (the model wheel and the ``real`` extras) skips with
a one-line reason; CI sets ATTENTION_LAB_REQUIRE_MODEL=1, which turns those skips into failures.

Markers (``make test-fast`` runs ``-m "not slow"``; ``make test`` runs everything):

- ``model``: needs SmolLM2 — marked by hand, or found here from the fixtures an item uses
  (``smollm2``, ``heads_study``, ``needs_model``); every ``model`` item is also ``slow``;
- ``slow``: model, browser, nbval, figure-scan and fuzz items; the nbval items (``*.ipynb``) and
  the browser items are marked here, the others in their modules.
"""
import os
from pathlib import Path

import pytest

from tools.series import REAL_MODEL

REQUIRE_MODEL = os.environ.get("ATTENTION_LAB_REQUIRE_MODEL") == "1"
MODEL_FIXTURES = {"smollm2", "heads_study", "needs_model"}


def model_missing() -> str:
    """'' when the real model and its extras are installed, else a one-line reason."""
    from helpers import real_model

    try:
        real_model.find_gguf()
        for module in ("gguf", "tokenizers"):
            real_model.model._require(module)
    except real_model.ModelNotInstalled as exc:
        return str(exc)
    return ""


def require_model() -> None:
    """Skip the calling test with a one-line reason when the model is missing (fail in CI)."""
    reason = model_missing()
    if reason:
        if REQUIRE_MODEL:
            pytest.fail(f"the real model is required here: {reason}")
        pytest.skip(reason)


@pytest.fixture
def needs_model():
    """Use in a test that builds something from the real model (skips outside CI when missing)."""
    require_model()


@pytest.fixture(scope="session")
def smollm2():
    """SmolLM2-135M loaded once for the whole session (skips outside CI when missing): the one
    model fixture every test shares."""
    require_model()
    from helpers import real_model

    return real_model.load_model()


@pytest.fixture(scope="session")
def heads_study(smollm2):
    """``12_heads_at_work``'s study of every head (cached by helpers.heads.study, as in the notebook)."""
    from helpers import heads

    return heads.study()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark model, browser and nbval items slow (before ``-m`` selects); nbval items of notebooks
    that load the model skip (outside CI) when it is missing."""
    for item in items:
        is_notebook = Path(str(getattr(item, "fspath", ""))).suffix == ".ipynb"
        if MODEL_FIXTURES & set(getattr(item, "fixturenames", ())) or (
                is_notebook and Path(str(item.fspath)).stem in REAL_MODEL):
            item.add_marker(pytest.mark.model)
        if is_notebook or item.get_closest_marker("model") or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.slow)
    reason = model_missing() if not REQUIRE_MODEL else ""
    if reason:
        for item in items:
            if Path(str(getattr(item, "fspath", ""))).stem in REAL_MODEL:
                item.add_marker(pytest.mark.skip(reason=reason))


def pytest_runtest_setup(item):
    """An item marked ``model`` by hand (no model fixture) still skips, or fails in CI, without it."""
    if item.get_closest_marker("model") and Path(str(item.fspath)).suffix != ".ipynb":
        require_model()
