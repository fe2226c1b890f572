#!/usr/bin/env python3
"""Find an interpreter of a given minor version (``make test-compat`` and tests/series need 3.13).

    python -m tools.checks.find_python 3.13     prints its path, or exits 1 saying none was found

Looks at ``$ATTENTION_LAB_PYTHON_<MAJOR><MINOR>`` (e.g. ATTENTION_LAB_PYTHON_313), ``pythonX.Y`` on
PATH, then pyenv's versions folder (newest patch release first). Never falls back to another
version: a Colab check on the wrong Python proves nothing.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path


def _version_of(python: str) -> str:
    try:
        out = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=30)
    except OSError:
        return ""
    return out.stdout.strip()


def find_python(minor: str) -> str | None:
    """Path of a Python ``minor`` (``"3.13"``) interpreter, or None."""
    if not re.fullmatch(r"\d+\.\d+", minor):
        raise ValueError(f"minor: expected a version like '3.13', got {minor!r}")
    candidates = [os.environ.get("ATTENTION_LAB_PYTHON_" + minor.replace(".", ""), ""),
                  shutil.which(f"python{minor}") or ""]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    if pyenv.is_dir():
        found = [p for p in pyenv.iterdir() if re.fullmatch(re.escape(minor) + r"\.\d+", p.name)]
        found.sort(key=lambda p: int(p.name.rsplit(".", 1)[1]), reverse=True)
        candidates += [str(p / "bin" / "python3") for p in found]
    for python in candidates:
        if python and _version_of(python) == minor:
            return python
    return None


def main(argv):
    if len(argv) != 1:
        raise SystemExit(__doc__)
    python = find_python(argv[0])
    if python is None:
        print(f"no Python {argv[0]} interpreter found (pythonX.Y on PATH, pyenv, or "
              f"ATTENTION_LAB_PYTHON_{argv[0].replace('.', '')})", file=sys.stderr)
        return 1
    print(python)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
