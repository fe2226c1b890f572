"""Installing the package on Colab keeps Colab's own packages (requirements/colab.txt).

A Python 3.13 venv holds exactly the snapshot (``--no-deps``, Colab's pip); then
``pip install --dry-run --report`` of the built wheel, alone and with the ``real`` extra, must
bring only packages Colab lacks: any snapshot package it would upgrade or downgrade fails the test,
named with both versions. Skips (with the reason) without a package index or a Python 3.13;
``ATTENTION_LAB_REQUIRE_INDEX=1`` (CI) makes both failures.
"""
import json
import re

import pytest
from venvs import ROOT, built_wheels, cached_venv, need_index, need_python, run, wheel_of

from tools.checks.colab_snapshot import canonical, read_snapshot

pytestmark = pytest.mark.slow
SNAPSHOT = ROOT / "requirements" / "colab.txt"


def snapshot() -> dict:
    return read_snapshot(SNAPSHOT)[1]


def snapshot_python_minor() -> str:
    return read_snapshot(SNAPSHOT)[0]


def replaced(report: dict, pins: dict) -> list:
    """'name: Colab has A, the install would bring B' for every snapshot package the report changes."""
    return [f"{item['metadata']['name']}: Colab has {pins[canonical(item['metadata']['name'])]}, "
            f"the install would bring {item['metadata']['version']}"
            for item in report["install"] if canonical(item["metadata"]["name"]) in pins]


def test_snapshot_records_its_source_and_the_versions_learners_meet():
    text = SNAPSHOT.read_text(encoding="utf-8")
    assert re.search(r"googlecolab/backend-info,\n# commit [0-9a-f]{40} \d{4}-\d\d-\d\d", text)
    pins = snapshot()
    for name, version in {"ipython": "7.34.0", "ipykernel": "6.17.1", "traitlets": "5.7.1",
                          "ipywidgets": "7.7.1", "numpy": "2.1.3", "matplotlib": "3.10.0"}.items():
        assert pins.get(name) == version, f"{name}: {pins.get(name)}"
    assert snapshot_python_minor() == "3.13"


def test_replaced_names_the_package_and_both_versions():
    report = {"install": [{"metadata": {"name": "IPython", "version": "9.1.0"}},
                          {"metadata": {"name": "jedi", "version": "0.19.2"}}]}
    assert replaced(report, {"ipython": "7.34.0"}) == ["IPython: Colab has 7.34.0, the install would bring 9.1.0"]


@pytest.fixture(scope="module")
def colab_venv():
    python = need_python(snapshot_python_minor())
    need_index()
    pins = snapshot()
    return cached_venv("colab-snapshot", python, [
        ["install", "-q", f"pip=={pins['pip']}"],
        ["install", "-q", "--no-deps", "-r", str(SNAPSHOT)],
    ])


@pytest.mark.parametrize("extra", ["", "[real]"])
def test_installing_the_package_replaces_nothing_colab_preinstalls(colab_venv, tmp_path, extra):
    wheel = wheel_of(built_wheels(), "attention-lab")
    out = tmp_path / "report.json"
    run([colab_venv / "bin" / "python", "-m", "pip", "--disable-pip-version-check", "install", "-q",
         "--dry-run", "--report", out, f"attention-lab{extra} @ {wheel.as_uri()}"])
    report = json.loads(out.read_text(encoding="utf-8"))
    names = [item["metadata"]["name"] for item in report["install"]]
    assert "attention-lab" in names, names
    changes = replaced(report, snapshot())
    assert not changes, f"pip install attention-lab{extra} on Colab would replace: " + "; ".join(changes)
