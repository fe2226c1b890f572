#!/usr/bin/env python3
"""Re-execute notebooks in place so their stored outputs are refreshed (``make outputs``).

    python -m tools.notebooks.execute [--no-write] [--refresh-timing] [notebooks/NAME.ipynb ...]
    (default: every notebook of tools/series.py, in reading order)

``--no-write`` only checks that every cell runs without error (``make test-compat``).

Uses nbclient with the current environment's ``python3`` kernel. Stored outputs are byte-stable, so
running twice on an unchanged tree leaves ``git diff`` empty:

- no timing metadata and no widget state (its model ids are random on every run);
- each explorer's output keeps its static picture and hint but not the widget view, whose model
  id would be random and which no reader without a kernel can render (see ``helpers.render.explorer``);
- PNGs carry no software metadata (``helpers.display``);
- consecutive pieces of a cell's printed output are joined (the kernel splits them by timing);
- a cell marked ``# timing`` (machine-dependent numbers) keeps its previous outputs when the new
  ones differ only in their numbers and pictures; ``--refresh-timing`` stores the new ones.
"""
from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from tools import ROOT
from tools.series import NOTEBOOKS

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
TIMING_MARK = "# timing"


def is_timing(cell) -> bool:
    return cell.cell_type == "code" and any(line.startswith(TIMING_MARK) for line in cell.source.splitlines())


def _masked(text: str) -> str:
    """Numbers replaced by ``#`` and runs of spaces by one (table columns widen with the numbers)."""
    return re.sub(r"[ \t]+", " ", re.sub(r"\d+(\.\d+)?", "#", text))


def output_shape(outputs) -> list:
    """Outputs with every number masked and pictures reduced to their kind: what a timing cell's
    outputs must keep for the previous ones to stay."""
    shape = []
    for out in outputs:
        if "text" in out:
            shape.append((out.get("name"), _masked(out["text"])))
        for mime, value in sorted(out.get("data", {}).items()):
            shape.append((mime, None if mime.startswith("image/") else _masked(str(value))))
    return shape


def merge_streams(outputs) -> list:
    """Consecutive stdout (or stderr) pieces joined into one output: how the kernel splits a cell's
    printing depends on timing, the joined text does not (nbval and JupyterLab join them too)."""
    merged = []
    for out in outputs:
        if (out.get("output_type") == "stream" and merged and merged[-1].get("output_type") == "stream"
                and merged[-1].get("name") == out.get("name")):
            merged[-1]["text"] += out["text"]
        else:
            merged.append(out)
    return merged


def stabilise(nb, previous: dict | None = None):
    """Drop what changes on every run; keep unchanged-shape timing outputs (``previous``: source →
    outputs from before this run)."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cell.outputs = merge_streams(cell.outputs)
        for out in cell.outputs:
            out.get("data", {}).pop(WIDGET_VIEW, None)
            out.get("metadata", {}).pop(WIDGET_VIEW, None)
        old = (previous or {}).get(cell.source)
        if is_timing(cell) and old is not None and output_shape(old) == output_shape(cell.outputs):
            cell.outputs = old
    return nb


def execute(path: Path, write: bool = True, refresh_timing: bool = False) -> float:
    nb = nbformat.read(path, as_version=4)
    previous = {} if refresh_timing else {c.source: c.outputs for c in nb.cells if is_timing(c)}
    start = time.perf_counter()
    client = NotebookClient(nb, timeout=900, kernel_name="python3", record_timing=False,
                            store_widget_state=False, resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    if write:
        nbformat.write(stabilise(nb, previous), path)
    return time.perf_counter() - start


def main(argv):
    write = "--no-write" not in argv
    refresh = "--refresh-timing" in argv
    names = [a for a in argv if not a.startswith("--")]
    paths = [Path(a) for a in names] or [ROOT / "notebooks" / f"{name}.ipynb" for name in NOTEBOOKS]
    for path in paths:
        print(f"{path.name}: executed in {execute(path, write, refresh):.1f} s{'' if write else ' (not saved)'}",
              flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
