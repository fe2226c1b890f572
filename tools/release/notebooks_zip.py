#!/usr/bin/env python3
"""The release zip of the notebooks (``make zip``): the notebooks of tools/series.py with their
stored outputs, README.md, CHANGELOG.md, CITATION.cff, the licences (LICENSE for code,
LICENSE-CC-BY-4.0.txt for prose and figures, the bundled font's), under one top folder.

    python -m tools.release.notebooks_zip [OUT]     default dist/attention-lab-notebooks-VERSION.zip

Deterministic: entries sorted, every timestamp 1980-01-01, fixed permissions and compression,
so two runs over the same files give the same bytes.
"""
from __future__ import annotations

import sys
import zipfile
from pathlib import Path

from tools import ROOT
from tools import package_version as version
from tools.series import NOTEBOOKS

EXTRA = ["README.md", "CHANGELOG.md", "CITATION.cff", "LICENSE", "LICENSE-CC-BY-4.0.txt", "helpers/render/fonts/OFL.txt"]
EPOCH = (1980, 1, 1, 0, 0, 0)


def members() -> list:
    """Paths (relative to the repository) that go into the zip, sorted."""
    paths = [f"notebooks/{name}.ipynb" for name in NOTEBOOKS] + EXTRA
    missing = [p for p in paths if not (ROOT / p).is_file()]
    if missing:
        raise SystemExit(f"cannot build the zip, missing: {', '.join(missing)}")
    return sorted(paths)


def write_zip(out: Path, entries) -> Path:
    """Write ``entries`` (``(name in the zip, file on disk)``, in that order) as a deterministic zip."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    with zipfile.ZipFile(tmp, "w") as zf:
        for name, path in entries:
            info = zipfile.ZipInfo(name, date_time=EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, so the permissions below are read
            info.external_attr = 0o100644 << 16
            zf.writestr(info, Path(path).read_bytes(), compresslevel=9)
    tmp.replace(out)
    return out


def build(out: Path | None = None) -> Path:
    top = f"attention-lab-notebooks-{version()}"
    out = Path(out or ROOT / "dist" / f"{top}.zip").resolve()
    write_zip(out, [(f"{top}/{rel}", ROOT / rel) for rel in members()])
    print(f"zip: {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out} "
          f"({len(members())} files, {out.stat().st_size / 2**20:.1f} MiB)")
    return out


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
