"""The release zip of the notebooks (``make zip``, tools/release/notebooks_zip.py): what is in it, and that
it is the same bytes every time."""
from __future__ import annotations

import subprocess
import zipfile

from paths import ROOT

from tools.release import notebooks_zip as release_zip
from tools.series import NOTEBOOKS


def test_zip_holds_the_notebooks_readme_and_licences(tmp_path):
    out = release_zip.build(tmp_path / "a.zip")
    top = f"attention-lab-notebooks-{release_zip.version()}/"
    with zipfile.ZipFile(out) as zf:
        names = zf.namelist()
        want = [f"notebooks/{n}.ipynb" for n in NOTEBOOKS] + ["README.md", "CHANGELOG.md", "CITATION.cff", "LICENSE",
                                                                      "LICENSE-CC-BY-4.0.txt", "helpers/render/fonts/OFL.txt"]
        assert names == sorted(top + w for w in want)
        for rel in want:  # byte for byte what the repository has: the stored outputs included
            assert zf.read(top + rel) == (ROOT / rel).read_bytes(), rel
        assert all(i.date_time == (1980, 1, 1, 0, 0, 0) for i in zf.infolist())
        assert all((i.external_attr >> 16) == 0o100644 for i in zf.infolist())
        assert zf.testzip() is None


def test_zip_is_the_same_bytes_twice(tmp_path):
    a = release_zip.build(tmp_path / "a.zip").read_bytes()
    b = release_zip.build(tmp_path / "b.zip").read_bytes()
    assert a == b


def test_zip_names_what_is_missing(tmp_path, monkeypatch):
    monkeypatch.setattr(release_zip, "EXTRA", [*release_zip.EXTRA, "NO_SUCH_FILE.md"])
    try:
        release_zip.build(tmp_path / "c.zip")
    except SystemExit as exc:
        assert "NO_SUCH_FILE.md" in str(exc)
    else:
        raise AssertionError("a missing file must stop the build")


def test_build_outputs_are_git_ignored():
    for path in ("dist/attention-lab-notebooks-0.1.0.zip", "_site/index.html", "dist/attention-lab.pdf"):
        assert subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode == 0, path
