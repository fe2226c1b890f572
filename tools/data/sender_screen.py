"""Regenerate helpers/data/sender_screen.npz (``make sender-screen``): every head of layers 0–17 of
SmolLM2-135M removed from 18.6's keys only (and queries only), zeroed and mean-replaced, on
helpers.heads.senders.STUDIES' sequences.

A few minutes of one CPU core; pinned and written like ``head_scan.py`` (``generate.py``), so the
file is the same on every x86-64 CPU.

    python -m tools.data.sender_screen [--out PATH]
"""
from __future__ import annotations

from helpers.heads import senders, study
from tools.data import generate


def arrays(progress) -> dict:
    """The screen's arrays: one study per set of STUDIES' sequences, then every sender removed."""
    studies = {name: study(**setup) for name, setup in senders.STUDIES.items()}
    progress("studies ready")
    return senders.compute(studies, progress=progress)


if __name__ == "__main__":
    generate.main(__doc__, senders.SENDERS_PATH, arrays)
