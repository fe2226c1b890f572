#!/usr/bin/env python3
"""Every step a release builds and verifies, run here, uploading nothing (``make release-check``;
.github/workflows/release.yml runs the same, then publishes what it left in dist/ and _site/).

    python tools/release_check.py            run every step, in order, stopping at the first failure
    python tools/release_check.py --list     the steps, one a line, without running them

dist/ ends up holding the sdist, the wheel, the PDF and the notebooks' zip; _site/ the site,
serving the PDF, the zip and the wheel from its downloads/.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "tools"
sys.path.insert(0, str(TOOLS))
from home import project_urls  # noqa: E402

DIST = ROOT / "dist"
PY = sys.executable
#: the build and upload-check tools, each pinned, in their own venv (not the learner's dependencies)
RELEASE_TOOLS = ROOT / "requirements" / "release-tools.txt"
TOOLS_VENV = ROOT / ".cache" / "release-tools"
#: the install tests, run against the wheel built here (tests/support/venvs.py reads the variable)
WHEEL_TESTS = ["tests/series/test_wheel_notebooks.py", "tests/series/test_install_from_index.py",
               "tests/series/test_setup_cell.py"]


def run(*cmd, env=None) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, cwd=ROOT, env={**os.environ, **(env or {})})


def tools_python() -> Path:
    python = TOOLS_VENV / "bin" / "python"
    stamp = TOOLS_VENV / ".complete"
    if not stamp.exists() or stamp.read_text() != RELEASE_TOOLS.read_text():
        shutil.rmtree(TOOLS_VENV, ignore_errors=True)
        run(PY, "-m", "venv", TOOLS_VENV)
        run(python, "-m", "pip", "install", "-q", "-r", RELEASE_TOOLS)
        stamp.write_text(RELEASE_TOOLS.read_text())
    return python


def the_wheel() -> Path:
    (wheel,) = DIST.glob("attention_lab-*.whl")
    return wheel


def build_sdist_and_wheel() -> None:
    shutil.rmtree(DIST, ignore_errors=True)
    run(tools_python(), "-m", "build", "--sdist", "--wheel", "-o", DIST, ".")


def twine_check() -> None:
    run(tools_python(), "-m", "twine", "check", "--strict", *sorted(DIST.glob("attention_lab-*")))


def wheel_metadata() -> None:
    """The wheel's Project-URLs are home.toml's, and it carries the notebooks."""
    with zipfile.ZipFile(the_wheel()) as whl:
        names = whl.namelist()
        metadata = whl.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    for label, url in project_urls().items():
        if f"Project-URL: {label}, {url}" not in metadata:
            raise SystemExit(f"the wheel's METADATA lacks Project-URL: {label}, {url}")
    if not any(n.startswith("helpers/notebooks/") for n in names):
        raise SystemExit("the wheel carries no notebooks")


def wheel_tests() -> None:
    """The wheel-only path and the setup cell on the built wheel, strict nbval over every notebook."""
    run(PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", *WHEEL_TESTS,
        env={"ATTENTION_LAB_WHEEL": str(the_wheel()), "ATTENTION_LAB_COPYOUT_NBVAL": "all"})


def notebooks_zip() -> None:
    run(PY, TOOLS / "release_zip.py")


def pdf() -> None:
    run(PY, TOOLS / "site_pdf.py")
    fonts = subprocess.run(["pdffonts", DIST / "attention-lab.pdf"], capture_output=True, text=True, check=True).stdout
    if "Type 3" in fonts:
        raise SystemExit(f"the PDF has Type 3 (synthetic) fonts:\n{fonts}")


def site() -> None:
    run(PY, TOOLS / "site_build.py", "html", "--require-downloads")


def site_zip() -> None:
    run(PY, TOOLS / "site" / "live" / "site_zip.py")


def site_tests() -> None:
    run(PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/series/test_site.py",
        "tests/series/test_release.py", "tests/series/test_home.py")


STEPS = [build_sdist_and_wheel, twine_check, wheel_metadata, wheel_tests, notebooks_zip, pdf, site, site_zip, site_tests]


def main(argv) -> int:
    if argv[:1] == ["--list"]:
        for step in STEPS:
            print(f"{step.__name__}: {(step.__doc__ or '').strip().splitlines()[0] if step.__doc__ else ''}".rstrip(": "))
        return 0
    if argv:
        raise SystemExit(__doc__)
    for step in STEPS:
        t0 = time.perf_counter()
        print(f"release-check: {step.__name__}", flush=True)
        step()
        print(f"release-check: {step.__name__} done in {time.perf_counter() - t0:.0f} s", flush=True)
    print(f"release-check: everything built and verified, nothing uploaded: {', '.join(sorted(p.name for p in DIST.iterdir()))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
