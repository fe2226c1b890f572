"""Shared by tests/ and the nbval run over notebooks/: what to do when the real model is missing.

Outside CI, everything that needs SmolLM2-135M (the model wheel and the ``real`` extras) skips with
a one-line reason; CI sets ATTENTION_LAB_REQUIRE_MODEL=1, which turns those skips into failures.
"""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tools"))
from series import REAL_MODEL  # noqa: E402

REQUIRE_MODEL = os.environ.get("ATTENTION_LAB_REQUIRE_MODEL") == "1"


def model_missing() -> str:
    """'' when the real model and its extras are installed, else a one-line reason."""
    from helpers import real_model

    try:
        real_model.find_gguf()
        for module in ("gguf", "tokenizers"):
            real_model._require(module)
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
    """SmolLM2-135M loaded once for the whole session (skips outside CI when missing)."""
    require_model()
    from helpers import real_model

    return real_model.load_model()


def pytest_collection_modifyitems(config, items):
    """nbval items of notebooks that load the model skip (outside CI) when it is missing."""
    reason = model_missing() if not REQUIRE_MODEL else ""
    if not reason:
        return
    for item in items:
        if Path(str(getattr(item, "fspath", ""))).stem in REAL_MODEL:
            item.add_marker(pytest.mark.skip(reason=reason))
