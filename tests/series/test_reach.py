"""Cheap checks that the series reaches learners wherever they open it: no image from a remote host, setup cells
that fit the cell's width, one version, dependencies Colab's snapshot satisfies, isal only where it
has wheels. (The installs themselves: test_colab_stack, test_install_from_index, test_wheel_notebooks.)"""
import re
import unicodedata

import nbformat
import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from venvs import ROOT

try:
    import tomllib
except ImportError:  # Python 3.10 (make test-compat's lower-bound venv)
    tomllib = pytest.importorskip("tomli")
from tools.checks.colab_snapshot import read_snapshot
from tools.notebooks import pairs as nbtool
from tools.series import NOTEBOOKS, REAL_MODEL

IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)|<img\b[^>]*\bsrc\s*=\s*[\"']([^\"']+)", re.I)
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def texts():
    yield "README.md", (ROOT / "README.md").read_text(encoding="utf-8")
    yield "CONTRIBUTING.md", (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for name in NOTEBOOKS:
        for i, cell in enumerate(nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4).cells):
            if cell.cell_type == "markdown":
                yield f"notebooks/{name}.ipynb cell {i}", cell.source


def test_no_image_is_fetched_from_another_host():
    """Badge images are stored in the repository; a notebook shows no remote image (Google's hosts
    are blocked for some learners; a relative image would not render in Colab, so notebooks use text links)."""
    remote = [(where, url) for where, text in texts() for m in IMAGE.finditer(text)
              for url in [m.group(1) or m.group(2)] if re.match(r"(https?:)?//", url)]
    assert remote == []
    for url in ("assets/badges/colab.svg", "assets/badges/binder.svg"):
        assert url in dict(texts())["README.md"] and (ROOT / url).exists()


def test_the_setup_cells_fit_the_cell_width():
    """No line wider than 88 columns (a CJK character counts 2): JupyterLab's cell at its usual
    width shows about that many, and the old install line ran past the right edge."""
    for name in (NOTEBOOKS[0], sorted(REAL_MODEL)[0]):
        for line in nbtool.setup_source(name).splitlines():
            width = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
            assert width <= 88, f"{width} columns: {line}"


def test_the_version_lives_in_one_place():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'version = { attr = "helpers.__version__" }' in pyproject and "dynamic = [\"version\"]" in pyproject
    import helpers

    assert nbtool.package_version() == helpers.__version__
    setup = nbformat.read(ROOT / "notebooks" / "00_index.ipynb", as_version=4).cells[2].source
    assert f'VERSION, PACKAGE, EXTRA = "{helpers.__version__}", "attention-lab", ""' in setup


def test_every_dependency_accepts_the_version_colab_preinstalls():
    """Offline twin of the dry run: each requirement's specifier contains Colab's version."""
    colab = read_snapshot()[1]
    requirements = [Requirement(r) for r in PROJECT["dependencies"] + PROJECT["optional-dependencies"]["real"]]
    checked = []
    for req in requirements:
        name = re.sub(r"[-_.]+", "-", req.name).lower()
        if name in colab:
            assert req.specifier.contains(colab[name], prereleases=True), f"{req} rejects Colab's {colab[name]}"
            checked.append(name)
    assert {"ipython", "numpy", "matplotlib", "ipywidgets", "threadpoolctl", "tokenizers"} <= set(checked)


def test_isal_is_asked_for_only_where_it_publishes_wheels():
    (isal,) = [Requirement(r) for r in PROJECT["dependencies"] if r.startswith("isal")]
    marker: Marker = isal.marker
    base = {"sys_platform": "linux", "platform_python_implementation": "CPython"}
    wanted = {"x86_64": True, "aarch64": True, "ppc64le": False, "s390x": False, "armv7l": False}
    for machine, expected in wanted.items():
        assert marker.evaluate({**base, "platform_machine": machine}) is expected, machine
    assert marker.evaluate({"sys_platform": "darwin", "platform_machine": "arm64"})
    assert marker.evaluate({"sys_platform": "win32", "platform_machine": "AMD64"})
    assert not marker.evaluate({"sys_platform": "win32", "platform_machine": "ARM64"})
    assert not marker.evaluate({"sys_platform": "emscripten", "platform_machine": "wasm32"})  # Pyodide
