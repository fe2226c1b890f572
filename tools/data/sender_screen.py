"""Regenerate helpers/data/sender_screen.npz (``make sender-screen``): every head of layers 0–17 of
SmolLM2-135M removed from 18.6's keys only (and queries only), zeroed and mean-replaced, on
helpers.heads.senders.STUDIES' sequences.

A few minutes of one CPU core. Like ``head_scan.py`` the script re-executes itself in this folder's
pinned environment (``pinned.py``) and writes with :func:`helpers.render.npz.write_npz`, so the same
code and model give the same file on every x86-64 CPU. Usage: python tools/data/sender_screen.py
[--out PATH]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import pinned  # noqa: E402  (this folder: the script's own directory is on sys.path)

from helpers.heads import senders, study  # noqa: E402
from helpers.render.npz import write_npz  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(senders.SENDERS_PATH), help="where to write the .npz")
    args = parser.parse_args()
    pinned.pin(__file__)
    start, cpu = time.perf_counter(), time.process_time()

    def progress(text):
        print(f"[{time.perf_counter() - start:7.1f} s wall, {time.process_time() - cpu:7.1f} s cpu] {text}", flush=True)

    studies = {name: study(**setup) for name, setup in senders.STUDIES.items()}
    progress("studies ready")
    path = write_npz(senders.compute(studies, progress=progress), args.out)
    progress(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
