"""The committed notebooks: built from their sources with the shared header, and clean."""
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import notebooks as nbtool  # noqa: E402

PLANNED = ["00_index", "01_weighted_average", "02_qkv", "03_hand_calculation", "04_sqrt_d",
           "05_causal_mask", "06_attention_layer", "07_cost_of_length", "08_reading_attention",
           "09_real_model"]
AUDIT = ROOT.parent / "shared" / "tools" / "notebook_audit.py"


def test_notebooks_match_their_sources_and_shared_header():
    assert nbtool.drift() == []


def test_every_notebook_has_the_same_setup_cell_and_its_own_badge():
    setups = set()
    for name in nbtool.names():
        cells = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4).cells
        assert f"notebooks/{name}.ipynb" in cells[1].source and "colab-badge" in cells[1].source
        setups.add(cells[2].source)
    assert len(setups) == 1
    assert nbtool.repository_url() in setups.pop()


def test_index_links_every_planned_notebook():
    index = (ROOT / "notebook_sources" / "00_index.md").read_text(encoding="utf-8")
    for name in PLANNED[1:]:
        assert f"({name}.ipynb)" in index


def test_notebook_names_follow_the_plan():
    assert set(nbtool.names()) <= set(PLANNED)


def test_widget_cells_are_the_only_ignored_ones_and_are_one_line_calls():
    for name in nbtool.names():
        for cell in nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4).cells:
            if cell.cell_type == "code" and "NBVAL_IGNORE_OUTPUT" in cell.source:
                body = [l for l in cell.source.splitlines() if l.strip() and not l.startswith("#")]
                is_widget = len(body) == 1 and body[0].startswith("helpers.widgets.")
                is_timing = "perf_counter" in cell.source or "timing" in cell.source
                assert is_widget or is_timing, f"{name}: {cell.source!r}"


@pytest.mark.skipif(not AUDIT.exists(), reason=f"{AUDIT} not beside this checkout")
def test_notebook_audit_reports_zero_findings():
    result = subprocess.run([sys.executable, str(AUDIT), str(ROOT / "notebooks")],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
    assert result.stdout.strip().endswith(", 0 findings")
