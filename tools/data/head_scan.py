"""Regenerate helpers/data/head_scan.npz (``make head-scan``): every single-head ablation of
SmolLM2-135M three ways and the random k-head sets, on helpers.heads.scan.SETUP's sequences.

About half an hour of one CPU core, run by ``generate.py`` in the pinned environment (``pinned.py``):
the same code and model give the same file on every x86-64 CPU.

    python -m tools.data.head_scan [--out PATH]
"""
from __future__ import annotations

from helpers.heads import scan as head_scan
from tools.data import generate


def arrays(progress) -> dict:
    """The scan's arrays: the study of SETUP's sequences, then every ablation of it."""
    study = head_scan.scan_study()
    progress("study ready")
    return head_scan.compute(study, progress=progress)


if __name__ == "__main__":
    generate.main(__doc__, head_scan.SCAN_PATH, arrays)
