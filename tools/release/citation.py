#!/usr/bin/env python3
"""``CITATION.cff`` (Citation File Format 1.2.0), written from what the project already states once:
the title (README.md's first line), the authors (LICENSE's copyright line), the version
(``helpers/__init__.py``), its release date (CHANGELOG.md's heading for that version, once dated),
the licences (pyproject.toml's ``license``) and the addresses (``home.toml``).

    python -m tools.release.citation fix      write CITATION.cff
    python -m tools.release.citation check    exit 1 where CITATION.cff is not the one made here

``python -m tools.notebooks.pairs sync`` (``make outputs``) runs ``fix``, as it does for README's link lines: a
version bump or a new home reaches the citation with the notebooks. ``make release-check`` validates
the file against the CFF schema (cffconvert).
"""
from __future__ import annotations

import json
import re
import sys

try:
    import tomllib
except ImportError:  # Python 3.10 (make test-compat's lower-bound venv)
    import tomli as tomllib

from tools import ROOT, package_version
from tools.home import home

PATH = ROOT / "CITATION.cff"
CHANGELOG = ROOT / "CHANGELOG.md"
#: a version's heading in CHANGELOG.md: "## [0.1.0] - 2027-01-15", or "- unreleased" before the release day
HEADING = r"^## \[{version}\] - (\d{{4}}-\d{{2}}-\d{{2}}|unreleased)\s*$"
KEYWORDS = ["self-attention", "transformer", "large language model", "Llama", "Jupyter notebooks",
            "interactive explorers", "numpy", "Chinese"]


def release_date(of: str | None = None) -> str | None:
    """CHANGELOG.md's date for version ``of`` (default: this version): "YYYY-MM-DD", "unreleased", or
    None when it has no heading for that version."""
    of = of or package_version()
    match = re.search(HEADING.format(version=re.escape(of)), CHANGELOG.read_text(encoding="utf-8"), re.M)
    return match.group(1) if match else None


def authors() -> str:
    """The copyright holder named in LICENSE ("Copyright (c) YEAR NAME")."""
    match = re.search(r"^Copyright \(c\) \d{4}(?:[-–]\d{4})? (.+)$", (ROOT / "LICENSE").read_text(encoding="utf-8"), re.M)
    if not match:
        raise SystemExit("LICENSE has no 'Copyright (c) YEAR NAME' line")
    return match.group(1).strip()


def text() -> str:
    """CITATION.cff as it must read."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    title = (ROOT / "README.md").read_text(encoding="utf-8").split("\n", 1)[0].lstrip("#").strip()
    h = home()
    def q(value: str) -> str:  # a JSON string is a YAML string: quoted, every special character escaped
        return json.dumps(value, ensure_ascii=False)

    lines = [
        "# Written by tools/release/citation.py (make outputs runs it) from README.md, LICENSE, helpers/__init__.py,",
        "# CHANGELOG.md, pyproject.toml and home.toml: edit those, not this file.",
        "cff-version: 1.2.0",
        f"message: {q('如果在教学、文章或研究中用到这套笔记本，请这样引用。If you use these notebooks, please cite them as below.')}",
        "type: software",
        f"title: {q(title)}",
        f"abstract: {q(project['description'])}",
        "authors:",
        f"  - name: {q(authors())}",
        f"version: {q(package_version())}",
    ]
    date = release_date()
    if date and date != "unreleased":
        lines.append(f"date-released: {q(date)}")
    lines += ["license:", *[f"  - {q(spdx)}" for spdx in project["license"].split(" AND ")],
              f"repository-code: {q(h['repository'])}", f"url: {q(h['documentation'])}",
              "keywords:", *[f"  - {q(k)}" for k in KEYWORDS]]
    return "\n".join(lines) + "\n"


def fix() -> bool:
    """Write CITATION.cff; True if it changed."""
    want = text()
    if PATH.exists() and PATH.read_text(encoding="utf-8") == want:
        return False
    PATH.write_text(want, encoding="utf-8")
    return True


def problems() -> list:
    if not PATH.exists() or PATH.read_text(encoding="utf-8") != text():
        return ["CITATION.cff: not the one made from README, LICENSE, the version, CHANGELOG, pyproject and home.toml "
                "(run python -m tools.release.citation fix, or make outputs)"]
    return []


def main(argv) -> int:
    if argv == ["fix"]:
        if fix():
            print("wrote CITATION.cff")
        return 0
    if argv == ["check"]:
        found = problems()
        print("\n".join(found)) if found else None
        return 1 if found else 0
    raise SystemExit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
