"""The committed notebooks: paired with their sources, one shared header and footer, one list, clean."""
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from series import NOTEBOOKS  # noqa: E402

import notebooks as nbtool  # noqa: E402

AUDIT = ROOT.parent / "shared" / "tools" / "notebook_audit.py"


def read(name):
    return nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)


def test_pairs_in_sync_with_shared_header_and_footer_and_all_listed():
    assert nbtool.problems() == []


def test_check_fails_on_a_notebook_missing_from_the_list(tmp_path, monkeypatch):
    monkeypatch.setattr(nbtool, "NOTEBOOKS", NOTEBOOKS[:-1])
    assert any(NOTEBOOKS[-1] in line and "not in tools/series.py" in line for line in nbtool.problems())


def test_check_fails_when_a_source_is_edited_but_not_synced(tmp_path, monkeypatch):
    src = tmp_path / "notebook_sources"
    out = tmp_path / "notebooks"
    src.mkdir()
    out.mkdir()
    for name in NOTEBOOKS:
        (src / f"{name}.md").write_text((ROOT / "notebook_sources" / f"{name}.md").read_text(encoding="utf-8"),
                                        encoding="utf-8")
        (out / f"{name}.ipynb").write_bytes((ROOT / "notebooks" / f"{name}.ipynb").read_bytes())
    monkeypatch.setattr(nbtool, "SRC", src)
    monkeypatch.setattr(nbtool, "OUT", out)
    assert nbtool.problems() == []
    path = src / f"{NOTEBOOKS[1]}.md"
    path.write_text(path.read_text(encoding="utf-8").replace("## 本篇目标", "## 本篇的目标", 1), encoding="utf-8")
    assert any("differs from" in line for line in nbtool.problems())
    nbtool.sync(NOTEBOOKS[1])
    assert nbtool.problems() == []
    assert "## 本篇的目标" in "".join(c.source for c in nbformat.read(out / f"{NOTEBOOKS[1]}.ipynb", 4).cells)


def test_saving_the_notebook_through_jupyterlab_updates_its_source(tmp_path):
    """JupyterLab saves through jupytext's contents manager, which writes both files of a pair."""
    from jupytext import TextFileContentsManager

    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebook_sources").mkdir()
    (tmp_path / "jupytext.toml").write_text((ROOT / "jupytext.toml").read_text(encoding="utf-8"), encoding="utf-8")
    manager = TextFileContentsManager(root_dir=str(tmp_path))
    nb = read(NOTEBOOKS[2])
    nb.cells[-2].source += "\n\n（在 JupyterLab 里改的一句）"
    manager.save({"type": "notebook", "content": nb}, f"notebooks/{NOTEBOOKS[2]}.ipynb")
    text = (tmp_path / "notebook_sources" / f"{NOTEBOOKS[2]}.md").read_text(encoding="utf-8")
    assert "（在 JupyterLab 里改的一句）" in text


def test_every_notebook_has_the_same_setup_cell_and_its_own_badge():
    setups = set()
    for name in NOTEBOOKS:
        cells = read(name).cells
        assert f"notebooks/{name}.ipynb" in cells[1].source and "colab-badge" in cells[1].source
        setups.add(cells[2].source)
    assert len(setups) == 1
    assert nbtool.repository_url() in setups.pop()


def test_every_notebook_ends_with_links_to_its_neighbours():
    for i, name in enumerate(NOTEBOOKS):
        last = read(name).cells[-1].source
        assert "(00_index.ipynb)" in last or i == 0
        if i + 1 < len(NOTEBOOKS):
            assert f"({NOTEBOOKS[i + 1]}.ipynb)" in last and "下一篇" in last
        else:
            assert "(00_index.ipynb)" in last and "回到目录" in last
        if i > 0:
            assert f"({NOTEBOOKS[i - 1]}.ipynb)" in last and "上一篇" in last


def test_index_links_every_notebook():
    index = (ROOT / "notebook_sources" / "00_index.md").read_text(encoding="utf-8")
    body = index.rsplit(nbtool.NAV_PREFIX, 1)[0]  # not counting the generated footer
    missing = [name for name in NOTEBOOKS[1:] if f"({name}.ipynb)" not in body]
    assert missing == [], f"00_index does not link {missing}"


def test_readme_lists_every_notebook():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [name for name in NOTEBOOKS if name not in readme]
    assert missing == [], f"README.md does not mention {missing}"


def test_widget_cells_are_one_line_calls_and_only_timing_cells_are_ignored():
    """A widget cell is one call whose output nbval compares like any other (its text is the
    preview hint, the same live and stored, in ipywidgets 7 and 8); only timing cells are ignored."""
    widget_cells = 0
    for name in NOTEBOOKS:
        for cell in read(name).cells:
            if cell.cell_type != "code":
                continue
            body = [line for line in cell.source.splitlines() if line.strip() and not line.startswith("#")]
            if "helpers.widgets." in cell.source:
                widget_cells += 1
                assert len(body) == 1 and body[0].startswith("helpers.widgets."), f"{name}: {cell.source!r}"
            if "NBVAL_IGNORE_OUTPUT" in cell.source:
                is_timing = "perf_counter" in cell.source or "# timing" in cell.source
                assert is_timing, f"{name}: only timing cells may ignore their output: {cell.source!r}"
    assert widget_cells >= len(NOTEBOOKS)


@pytest.mark.skipif(not AUDIT.exists(), reason=f"{AUDIT} not beside this checkout")
def test_notebook_audit_reports_zero_findings():
    result = subprocess.run([sys.executable, str(AUDIT), str(ROOT / "notebooks")],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
    assert result.stdout.strip().endswith(", 0 findings")


def test_jupytext_reads_every_source_as_myst():
    for name in NOTEBOOKS:
        text = (ROOT / "notebook_sources" / f"{name}.md").read_text(encoding="utf-8")
        assert "format_name: myst" in text
        assert jupytext.reads(text, fmt="md:myst").cells[0].source.startswith("# ")
