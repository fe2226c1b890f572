#!/usr/bin/env python3
"""Write requirements/colab.txt: the versions Colab preinstalls that a learner's install touches.

    python -m tools.checks.colab_snapshot BACKEND_INFO_GIT [COMMIT]

BACKEND_INFO_GIT is a clone of the public record of Colab's runtime (github.com/googlecolab/
backend-info; its pip-freeze.txt and os-info.txt are regenerated with every runtime change).
The snapshot is every package of that pip-freeze.txt that ``pip install "attention-lab[real]"``
would need (its whole dependency closure, resolved on Python 3.13 with Colab's versions as
constraints), plus pip/setuptools/wheel. Each line says in which commit of that repository the
version first appears in pip-freeze.txt. ``tests/series/test_colab_stack.py`` installs exactly
this file and fails if installing the package would change any of its versions.
"""
from __future__ import annotations

import datetime
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from tools import ROOT
from tools.checks.find_python import find_python

OUT = ROOT / "requirements" / "colab.txt"

ALWAYS = ("pip", "setuptools", "wheel")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def git(repo: str, *args) -> str:
    return subprocess.run(["git", "--git-dir", repo, *args], check=True, capture_output=True,
                          text=True).stdout


def freeze_pins(text: str) -> dict:
    """``name==version`` lines of a pip freeze or of the snapshot (URL and VCS installs left out, a
    trailing comment allowed): ``{canonical name: (name, version)}``."""
    pins = {}
    for line in text.splitlines():
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)\s*(#.*)?", line.strip())
        if match:
            pins[canonical(match.group(1))] = (match.group(1), match.group(2))
    return pins


def read_snapshot(path: Path = OUT) -> tuple:
    """``(python minor version, {canonical name: version})`` of requirements/colab.txt."""
    text = path.read_text(encoding="utf-8")
    minor = re.search(r'^# python_version == "(\d+\.\d+)"', text, re.M).group(1)
    return minor, {key: version for key, (_, version) in freeze_pins(text).items()}


def closure(pins: dict, python: str, work: Path) -> set:
    """Canonical names of everything ``attention-lab[real]`` needs, resolved against ``pins``."""
    subprocess.run([python, "-m", "venv", str(work / "venv")], check=True)
    pip = [str(work / "venv" / "bin" / "python"), "-m", "pip"]
    subprocess.run([*pip, "install", "-q", f"pip=={pins['pip'][1]}"], check=True)
    (work / "constraints.txt").write_text("".join(f"{n}=={v}\n" for n, v in pins.values()), encoding="utf-8")
    subprocess.run([*pip, "install", "-q", "--dry-run", "--ignore-installed", "--report", str(work / "r.json"),
                    "-c", str(work / "constraints.txt"), f"attention-lab[real] @ {ROOT.as_uri()}"], check=True)
    report = json.loads((work / "r.json").read_text(encoding="utf-8"))
    return {canonical(item["metadata"]["name"]) for item in report["install"]} - {"attention-lab"}


def first_commit(repo: str, commit: str, line: str) -> str:
    """The newest commit up to ``commit`` that added ``line`` to pip-freeze.txt (since when Colab has it)."""
    found = git(repo, "log", "--format=%h %ad", "--date=short", "-S", line, commit, "--", "pip-freeze.txt").split("\n")
    entries = [f for f in found if f]
    return entries[0] if entries else "?"


def main(argv):
    if not 1 <= len(argv) <= 2:
        raise SystemExit(__doc__)
    repo = argv[0] if argv[0].endswith(".git") or Path(argv[0], "HEAD").exists() else str(Path(argv[0]) / ".git")
    commit = argv[1] if len(argv) > 1 else "HEAD"
    head = git(repo, "log", "-1", "--format=%H %ad %s", "--date=short", commit).strip()
    os_info = git(repo, "show", f"{commit}:os-info.txt")
    python_line = next(line for line in os_info.splitlines() if line.startswith("Python "))
    minor = ".".join(python_line.split()[1].split(".")[:2])
    python = find_python(minor)
    if python is None:
        raise SystemExit(f"Colab runs {python_line}; no Python {minor} here to resolve with")
    pins = freeze_pins(git(repo, "show", f"{commit}:pip-freeze.txt"))
    with tempfile.TemporaryDirectory() as tmp:
        needed = closure(pins, python, Path(tmp))
    missing = sorted(needed - set(pins))
    lines = [
        "# Colab's preinstalled versions of everything `pip install \"attention-lab[real]\"` needs",
        f"# (written by tools/checks/colab_snapshot.py on {datetime.date.today().isoformat()}; rerun it to refresh).",
        "# Source: the public record of Colab's runtime, github.com/googlecolab/backend-info,",
        f"# commit {head}:",
        f"# pip-freeze.txt (versions) and os-info.txt ({python_line.strip()}, "
        f"{next((x for x in os_info.splitlines() if x.startswith('Ubuntu')), '').strip()}).",
        "# Each line names the commit (and date) where that version entered pip-freeze.txt.",
        f"# Not preinstalled on Colab (pip installs them): {', '.join(missing) or 'none'}.",
        f"# python_version == \"{minor}\"",
    ]
    for key in sorted(needed & set(pins) | set(ALWAYS)):
        name, version = pins[key]
        lines.append(f"{name}=={version}  # {first_commit(repo, commit, f'{name}=={version}')}")
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(lines) - 8} pins from {head[:12]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
