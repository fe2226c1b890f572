"""tools/data's generators (``make head-scan``, ``make sender-screen``): the scaffolding they share
(tools/data/generate.py) re-executes the command line in the pinned environment, then writes the arrays."""
import subprocess
import sys

import numpy as np
import pytest
from paths import ROOT

from tools.data import pinned

#: a generator in one line: its arrays report progress and say whether they were computed pinned
GENERATOR = """
import os, numpy as np
from tools.data import generate, pinned
def arrays(progress):
    progress("inputs ready")
    return {"values": np.arange(3.0), "pinned": np.array(pinned.is_pinned(os.environ))}
generate.main("A generator for the test.", "unused.npz", arrays)
"""


@pytest.mark.slow  # two fresh interpreters (the command, then its pinned re-execution)
@pytest.mark.skipif(pinned.unpinnable() is not None, reason=str(pinned.unpinnable()))
def test_a_generator_runs_pinned_reports_its_progress_and_writes_its_arrays(tmp_path):
    out = tmp_path / "made.npz"
    done = subprocess.run([sys.executable, "-c", GENERATOR, "--out", str(out)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].endswith("s cpu] inputs ready") and f"s cpu] wrote {out} (" in lines[1], lines
    with np.load(out) as made:
        assert made["values"].tolist() == [0.0, 1.0, 2.0] and bool(made["pinned"])
