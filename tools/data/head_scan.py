"""Regenerate helpers/data/head_scan.npz (``make head-scan``): every single-head ablation of
SmolLM2-135M three ways and the random k-head sets, on helpers.heads.scan.SETUP's sequences.

About half an hour of one CPU core. Like ``circuit_data.py`` the script re-executes itself in this
folder's pinned environment (``pinned.py``) and writes with :func:`helpers.render.npz.write_npz`, so
the same code and model give the same file on every x86-64 CPU. Usage: python tools/data/head_scan.py
[--out PATH]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import pinned  # noqa: E402  (this folder: the script's own directory is on sys.path)

from helpers.heads import scan as head_scan  # noqa: E402
from helpers.render.npz import write_npz  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(head_scan.SCAN_PATH), help="where to write the .npz")
    args = parser.parse_args()
    pinned.pin(__file__)
    start, cpu = time.perf_counter(), time.process_time()

    def progress(text):
        print(f"[{time.perf_counter() - start:7.1f} s wall, {time.process_time() - cpu:7.1f} s cpu] {text}", flush=True)

    study = head_scan.scan_study()
    progress("study ready")
    arrays = head_scan.compute(study, progress=progress)
    path = write_npz(arrays, args.out)
    progress(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
