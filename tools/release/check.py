#!/usr/bin/env python3
"""Every step a release builds and verifies, run here, uploading nothing (``make release-check``;
.github/workflows/release.yml runs the same, then publishes what it left in dist/ and _site/).

    python -m tools.release.check              run every step, in order, stopping at the first failure
    python -m tools.release.check --from STEP  resume at STEP (after fixing what stopped it; the steps
                                               before it are not rerun, so what they built must still be
                                               in dist/: make release-check FROM=STEP)
    python -m tools.release.check --list       the steps, one a line, without running them

dist/ ends up holding the sdist, the wheel, the PDF and the notebooks' zip; _site/ the site,
serving the PDF, the zip and the wheel from its downloads/.

Strict nbval runs twice over every notebook: on the built wheel's copies under the CPU's default
OpenBLAS kernel (``wheel_tests``), then under a second kernel family this CPU runs
(``nbval_second_kernel``, tools/checks/kernel_families.py: Haswell on an AVX-512 CPU): a printed number
that moves with the kernel stops the release here, not on the release runner's CPU. On 2 shared
cores (load 1-5) the whole check took 31 minutes: the built wheel's tests 12 (their nbval 6.5), nbval
under the second family 8, the site 4, the site tests 3.5.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

from tools import ROOT
from tools.checks import kernel_families
from tools.home import project_urls

DIST = ROOT / "dist"
PY = sys.executable
#: the build and upload-check tools, each pinned, in their own venv (not the learner's dependencies)
RELEASE_TOOLS = ROOT / "requirements" / "release-tools.txt"
TOOLS_VENV = ROOT / ".cache" / "release-tools"
#: the install tests, run against the wheel built here (tests/support/venvs.py reads the variable)
#: every licence text the wheel and the sdist carry (pyproject's license-files) and what else the sdist must
SDIST_FILES = ("CHANGELOG.md", "CITATION.cff")
LICENCE_FILES = ("LICENSE", "LICENSE-CC-BY-4.0.txt", "helpers/render/fonts/OFL.txt")
WHEEL_TESTS = ["tests/series/test_wheel_notebooks.py", "tests/series/test_install_from_index.py",
               "tests/series/test_setup_cell.py"]


def run(*cmd, env=None, base=None) -> None:
    """Run ``cmd`` in the checkout under ``base`` (default: this environment) updated with ``env``."""
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, cwd=ROOT, env={**(os.environ if base is None else base),
                                                                       **(env or {})})


def tools_python() -> Path:
    """The release tools' venv's python (created, or recreated when requirements/release-tools.txt changed)."""
    python = TOOLS_VENV / "bin" / "python"
    stamp = TOOLS_VENV / ".complete"
    if not stamp.exists() or stamp.read_text() != RELEASE_TOOLS.read_text():
        shutil.rmtree(TOOLS_VENV, ignore_errors=True)
        run(PY, "-m", "venv", TOOLS_VENV)
        run(python, "-m", "pip", "install", "-q", "-r", RELEASE_TOOLS)
        stamp.write_text(RELEASE_TOOLS.read_text())
    return python


def the_wheel() -> Path:
    wheels = sorted(DIST.glob("attention_lab-*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"dist/ holds {len(wheels)} attention_lab wheels, not one: run from build_sdist_and_wheel")
    return wheels[0]


def guards() -> None:
    """The version, CITATION.cff, CHANGELOG.md, the home and the setup cells' routes agree (tools/release/guard.py)."""
    run(PY, "-m", "tools.release.guard")


def build_sdist_and_wheel() -> None:
    """The sdist and the wheel, with the release's pinned build tools."""
    shutil.rmtree(DIST, ignore_errors=True)
    run(tools_python(), "-m", "build", "--sdist", "--wheel", "-o", DIST, ".")


def twine_check() -> None:
    """twine check --strict: PyPI will render the README and accept the metadata."""
    run(tools_python(), "-m", "twine", "check", "--strict", *sorted(DIST.glob("attention_lab-*")))


def citation() -> None:
    """CITATION.cff is valid Citation File Format (cffconvert --validate)."""
    run(tools_python().parent / "cffconvert", "--validate", "-i", ROOT / "CITATION.cff")


def wheel_metadata() -> None:
    """The wheel's Project-URLs are home.toml's, it carries the notebooks and every licence text, the sdist
    the changelog and the citation too."""
    with zipfile.ZipFile(the_wheel()) as whl:
        names = whl.namelist()
        metadata = whl.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    for label, url in project_urls().items():
        if f"Project-URL: {label}, {url}" not in metadata:
            raise SystemExit(f"the wheel's METADATA lacks Project-URL: {label}, {url}")
    if not any(n.startswith("helpers/notebooks/") for n in names):
        raise SystemExit("the wheel carries no notebooks")
    licences = [n.split(".dist-info/licenses/", 1)[1] for n in names if ".dist-info/licenses/" in n]
    missing = [f for f in LICENCE_FILES if f not in licences]
    if missing:
        raise SystemExit(f"the wheel lacks the licence text(s) {', '.join(missing)} (pyproject's license-files)")
    (sdist,) = DIST.glob("attention_lab-*.tar.gz")
    with tarfile.open(sdist) as tar:
        top = tar.getnames()[0].split("/", 1)[0]
        absent = [f for f in (*SDIST_FILES, *LICENCE_FILES) if f"{top}/{f}" not in tar.getnames()]
    if absent:
        raise SystemExit(f"the sdist lacks {', '.join(absent)} (MANIFEST.in, pyproject's license-files)")


def wheel_tests() -> None:
    """The wheel-only path and the setup cell on the built wheel, strict nbval over every notebook under
    the CPU's default OpenBLAS kernel."""
    base = kernel_families.default_env()
    print(f"release-check: default kernel: {kernel_families.probe(base)['kernel']}", flush=True)
    run(PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", *WHEEL_TESTS, base=base,
        env={"ATTENTION_LAB_WHEEL": str(the_wheel()), "ATTENTION_LAB_COPYOUT_NBVAL": "all"})


def nbval_second_kernel() -> None:
    """Strict nbval over every notebook under a second kernel family (tools/checks/kernel_families.py picks it)."""
    family = kernel_families.second_family()
    run(PY, "-m", "tools.checks.kernel_families", "--families", family, "--suites", "nbval",
        base=kernel_families.default_env())


def notebooks_zip() -> None:
    """The notebooks' zip (tools/release/notebooks_zip.py)."""
    run(PY, "-m", "tools.release.notebooks_zip")


def pdf() -> None:
    """The PDF (tools/site/pdf.py), with no Type 3 (synthetic) font."""
    run(PY, "-m", "tools.site.pdf")
    fonts = subprocess.run(["pdffonts", DIST / "attention-lab.pdf"], capture_output=True, text=True, check=True).stdout
    if "Type 3" in fonts:
        raise SystemExit(f"the PDF has Type 3 (synthetic) fonts:\n{fonts}")


def site() -> None:
    """The site in _site/, serving the PDF, the zip and the wheel from dist/."""
    run(PY, "-m", "tools.site.build", "html", "--require-downloads")


def site_zip() -> None:
    """The offline book: _site/ as one zip."""
    run(PY, "-m", "tools.site.live.site_zip")


def site_tests() -> None:
    """The site, release and home tests."""
    run(PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/series/test_site.py",
        "tests/series/test_release.py", "tests/series/test_home.py")


STEPS = [guards, build_sdist_and_wheel, twine_check, citation, wheel_metadata, wheel_tests, nbval_second_kernel,
         notebooks_zip, pdf, site, site_zip, site_tests]


def steps_from(name: str) -> list:
    """STEPS from the one called ``name`` on."""
    names = [step.__name__ for step in STEPS]
    if name not in names:
        raise SystemExit(f"--from {name}: no such step; the steps: {', '.join(names)}")
    return STEPS[names.index(name):]


def main(argv) -> int:
    if argv[:1] == ["--list"]:
        for step in STEPS:
            print(f"{step.__name__}: {' '.join((step.__doc__ or '').split())}".rstrip(": "))
        return 0
    if len(argv) == 2 and argv[0] == "--from":
        steps = steps_from(argv[1])
    elif argv:
        raise SystemExit(__doc__)
    else:
        steps = STEPS
    if steps[0] is not STEPS[0]:
        skipped = ", ".join(step.__name__ for step in STEPS[:len(STEPS) - len(steps)])
        print(f"release-check: resuming at {steps[0].__name__} ({skipped} not rerun)", flush=True)
    for step in steps:
        t0 = time.perf_counter()
        print(f"release-check: {step.__name__}", flush=True)
        step()
        print(f"release-check: {step.__name__} done in {time.perf_counter() - t0:.0f} s", flush=True)
    built = ", ".join(sorted(p.name for p in DIST.iterdir())) if DIST.is_dir() else "dist/ is empty"
    print(f"release-check: everything built and verified, nothing uploaded: {built}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
