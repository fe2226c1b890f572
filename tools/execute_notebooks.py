#!/usr/bin/env python3
"""Re-execute notebooks in place so their stored outputs are refreshed (``make outputs``).

    python tools/execute_notebooks.py [--no-write] [notebooks/NAME.ipynb ...]   (default: all)

``--no-write`` only checks that every cell runs without error (``make test-compat``).

Uses nbclient with the current environment's ``python3`` kernel, no timing metadata (so a rerun
changes nothing when the code did not change) and the widget state stored, so a reader on
GitHub sees a static rendering of each widget.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent


def execute(path: Path, write: bool = True) -> float:
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    client = NotebookClient(nb, timeout=900, kernel_name="python3", record_timing=False,
                            store_widget_state=True, resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    if write:
        nbformat.write(nb, path)
    return time.perf_counter() - start


def main(argv):
    write = "--no-write" not in argv
    paths = [Path(a) for a in argv if a != "--no-write"] or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    for path in paths:
        print(f"{path.name}: executed in {execute(path, write):.1f} s{'' if write else ' (not saved)'}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
