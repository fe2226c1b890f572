"""The committed notebooks: paired with their sources, one shared header and footer, one list, clean."""
import copy
import functools
import re
import subprocess
import sys

import jupytext
import nbformat
import pytest
from paths import AUDIT, ROOT

from helpers import exercises, real_model
from helpers.grading import answers
from tools.notebooks import pairs as nbtool
from tools.series import NOTEBOOKS, REAL_MODEL


@functools.lru_cache(maxsize=None)
def _read(name):
    return nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)


def read(name):
    """``notebooks/NAME.ipynb`` (read and validated once per session; each call gets its own copy)."""
    return copy.deepcopy(_read(name))


def test_pairs_in_sync_with_shared_header_and_footer_and_all_listed():
    assert nbtool.problems() == []


def test_check_fails_on_a_notebook_missing_from_the_list(tmp_path, monkeypatch):
    monkeypatch.setattr(nbtool, "NOTEBOOKS", NOTEBOOKS[:-1])
    assert any(NOTEBOOKS[-1] in line and "not in tools/series.py" in line for line in nbtool.problems())


@pytest.mark.slow  # checks every pair three times (jupytext reads each notebook): seconds
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


def test_every_notebook_has_the_shared_setup_cell_and_its_own_links():
    """Two setup cells (with and without the model, as tools/series.py REAL_MODEL says); the links
    are text (no badge image from a Google host) to Colab and Binder for this notebook."""
    setups = {}
    for name in NOTEBOOKS:
        cells = read(name).cells
        assert f"/notebooks/{name}.ipynb)" in cells[1].source and "labpath=notebooks%2F" + name in cells[1].source
        assert "![" not in cells[1].source
        setups.setdefault(cells[2].source, []).append(name)
    assert sorted(setups.values()) == sorted([[n for n in NOTEBOOKS if n not in REAL_MODEL],
                                              [n for n in NOTEBOOKS if n in REAL_MODEL]])
    for source in setups:
        assert nbtool.repository_url() in source and f'"{nbtool.package_version()}"' in source


def test_the_setup_cell_opens_collapsed_in_jupyterlab_and_colab():
    """JupyterLab hides a cell's source under ``jupyter.source_hidden``; Colab shows a ``#@title``
    cell whose ``cellView`` is ``form`` as its title only. Both files of each pair carry it (Colab and
    JupyterLab open the .ipynb; jupytext writes the .ipynb's inputs from the source)."""
    for name in NOTEBOOKS:
        for cell in (read(name).cells[2], jupytext.read(ROOT / "notebook_sources" / f"{name}.md").cells[2]):
            assert cell.metadata.get("jupyter", {}).get("source_hidden") is True, name
            assert cell.metadata.get("cellView") == "form", name
            assert cell.source.splitlines()[0] == nbtool.SETUP_FIRST_LINE, name
    assert nbtool.SETUP_FIRST_LINE.startswith("#@title ") and 'display-mode: "form"' in nbtool.SETUP_FIRST_LINE


#: the most lines a code cell above ``## 本篇目标`` may show when the notebook opens (the layout rule's
#: cell limit): the reader meets the lesson, not the installer. A cell collapsed in JupyterLab and
#: Colab (previous test) shows one line: its ``#@title``.
FIRST_SCREEN_CELL_LINES = 15


def shown_lines(cell) -> int:
    """Lines of ``cell``'s source a reader sees on opening: 1 for a cell collapsed in both hosts."""
    collapsed = cell.metadata.get("jupyter", {}).get("source_hidden") and cell.metadata.get("cellView") == "form"
    return 1 if collapsed and cell.source.startswith("#@title ") else len(cell.source.splitlines())


def test_no_long_code_cell_before_the_goals():
    long = []
    for name in NOTEBOOKS:
        cells = read(name).cells
        goals = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.startswith("## 本篇目标"))
        long += [f"{name} cell {i}: {shown_lines(c)} lines" for i, c in enumerate(cells[:goals])
                 if c.cell_type == "code" and shown_lines(c) > FIRST_SCREEN_CELL_LINES]
    assert long == [], long


def test_shown_lines_counts_every_line_of_an_open_cell():
    cell = nbformat.v4.new_code_cell("#@title x\n" + "x = 1\n" * 20, metadata={"cellView": "form"})
    assert shown_lines(cell) == 21
    cell.metadata["jupyter"] = {"source_hidden": True}
    assert shown_lines(cell) == 1


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


def test_readme_counts_the_notebooks_of_the_registry():
    """Every "N 篇" in README.md (not "第 N 篇", an article's number) is tools/series.py's count."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    counts = re.findall(r"(?<!第 )(?<!第)\b(\d+) 篇", readme)
    assert counts and set(counts) == {str(len(NOTEBOOKS))}, counts


def directory_table() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return readme.split("\n## 目录\n", 1)[1].split("\n## ", 1)[0]


def test_readme_directory_table_names_every_folder():
    """The 目录 table names each committed top-level folder, each package of ``helpers/`` and each
    group of ``tools/``."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    table = directory_table()
    folders = {path.split("/", 1)[0] for path in tracked.stdout.splitlines() if "/" in path}
    wanted = [f"`{f}/" for f in sorted(folders)]
    wanted += [f"`{p.name}/`" for p in sorted((ROOT / "helpers").iterdir())
               if p.is_dir() and ((p / "__init__.py").exists() or p.name == "data")]
    wanted += [f"`{p.parent.name}/`" for p in sorted((ROOT / "tools").glob("*/__init__.py"))]
    assert [w for w in wanted if w not in table] == []


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


WIDGET_CALL = re.compile(r"^helpers\.widgets\.\w+\(")

CHECK_CALL = re.compile(r'helpers\.exercises\.check\("(\d\d-\d)"')

QUIZ_CALL = "helpers.exercises.closing_quiz("


def code_body(cell):
    return [line for line in cell.source.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def output_text(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            parts.append(out.text)
        elif "data" in out:
            parts.append(out.data.get("text/plain", "") + out.data.get("text/html", ""))
    return "".join(parts)


def answer_forms(exercise, expected, working) -> list:
    """Texts that give the answer away: the verdict marks, the working, the rounded value."""
    forms = ["✔", "✘", "答案是"] + [line for line in working.splitlines() if len(line) >= 8]
    if expected is None:
        return forms
    kind = exercise.kind
    if isinstance(kind, answers.Number):
        value = answers.rounded(expected, kind.digits)
        forms += [re.compile(rf"(?<![0-9A-Za-z.,]){re.escape(v)}(?![0-9A-Za-z.,])") for v in {value, value.replace(",", "")}]
    elif isinstance(kind, answers.Numbers):
        forms.append(kind.show(expected))
    elif len(str(expected)) >= 2:
        forms.append(str(expected))
    return forms


def leaks(nb) -> list:
    """``(key, cell index, form)`` for every exercise whose answer shows in the outputs of the code
    cells from its question (the markdown cell above) down to its check cell."""
    found = []
    cells = nb.cells
    for i, cell in enumerate(cells):
        if cell.cell_type != "code":
            continue
        keys = CHECK_CALL.findall(cell.source)
        if not keys and QUIZ_CALL not in cell.source:
            continue
        question = max(j for j in range(i) if cells[j].cell_type == "markdown")
        shown = [(j, output_text(cells[j])) for j in range(question + 1, i + 1)]
        targets = [(key, exercises.EXERCISES[key]) for key in keys] or list(exercises.QUIZ.items())
        for key, exercise in targets:
            try:
                expected, working = exercise.solve()
            except (ValueError, real_model.ModelNotInstalled):  # needs the notebook's context (09-1)
                # or the real model (11-x read its cached study): check the generic marks only
                expected, working = None, ""
            forms = answer_forms(exercise, expected if keys else None, working)
            for j, text in shown:
                for form in forms:
                    if (form.search(text) if isinstance(form, re.Pattern) else form in text):
                        found.append((key, j, getattr(form, "pattern", form)))
    return found


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.model, pytest.mark.slow]) if n in REAL_MODEL else n
                                  for n in NOTEBOOKS])
def test_no_exercise_answer_is_printed_under_its_question(name):
    """(09's and 12's exercises read the real model's results: those two are ``model`` items.)"""
    assert leaks(read(name)) == []


def test_leak_check_catches_a_cell_that_prints_the_answer():
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    expected, _ = exercises.EXERCISES["05-1"].solve()
    printed = new_code_cell("print(w[0, 0])", outputs=[new_output("stream", name="stdout", text=f"{expected:.2f}\n")])
    check = new_code_cell('answer = None\nhelpers.exercises.check("05-1", answer)',
                          outputs=[new_output("stream", name="stdout", text=answers.UNANSWERED + "\n")])
    question = new_markdown_cell("**练习 1**：……")
    assert leaks(new_notebook(cells=[question, printed, check])) != []
    assert leaks(new_notebook(cells=[question, check])) == []
    verdict = new_code_cell('helpers.exercises.check("05-1", 0.5)',
                            outputs=[new_output("stream", name="stdout", text="✘ 还不对。\n")])
    assert leaks(new_notebook(cells=[question, verdict])) != []


def test_every_exercise_is_checked_in_its_notebook_and_every_numbered_one_has_a_checker():
    used = {}
    for name in NOTEBOOKS:
        cells = read(name).cells
        for i, cell in enumerate(cells):
            for key in CHECK_CALL.findall(cell.source) if cell.cell_type == "code" else []:
                assert key.startswith(name[:2]), f"{name} checks exercise {key}"
                used[key] = name
            if cell.cell_type == "markdown" and cell.source.lstrip().startswith("**练习"):
                rest = cells[i + 1:-1]
                end = next((k for k, c in enumerate(rest) if c.cell_type == "markdown"
                            and c.source.lstrip().startswith("**练习")), len(rest))
                assert any("helpers.exercises.check(" in c.source or "helpers.exercises.reference(" in c.source
                           or "helpers.exercises.check_code(" in c.source  # a code exercise
                           for c in rest[:end] if c.cell_type == "code"), f"{name}: {cell.source[:40]!r}"
    assert set(used) == set(exercises.EXERCISES)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_widget_cell_follows_a_try_this_prompt(name):
    cells = read(name).cells
    for i, cell in enumerate(cells):
        body = code_body(cell) if cell.cell_type == "code" else []
        if len(body) == 1 and WIDGET_CALL.match(body[0]):
            above = cells[i - 1]
            assert above.cell_type == "markdown", f"{name}: {body[0]} has no markdown right above it"
            assert "试试看" in above.source and "？" in above.source, f"{name}: no 试试看 prompt above {body[0]}"


#: notebooks whose prose has a length budget (characters, counted by :func:`prose_characters`):
#: the two halves of the real-heads lesson and of the after-Llama lesson, each to be read in one sitting
PROSE_BUDGET = {"12_heads_at_work": 9000, "13_induction_circuit": 9000, "14_shrinking_caches": 9000,
                "15_fixed_state": 9000}


def prose_characters(notebook) -> int:
    """What a reader reads as prose: the characters of the markdown cells, leaving out fenced code,
    HTML tags and comments, the ``remove-cell`` cells (links and navigation, not shown on the site)
    and all whitespace (Chinese prose has none; counting it would reward short lines)."""
    count = 0
    for cell in notebook.cells:
        if cell.cell_type != "markdown" or "remove-cell" in cell.metadata.get("tags", []):
            continue
        text = re.sub(r"```.*?```", "", cell.source, flags=re.S)
        text = re.sub(r"<!--.*?-->|<[^>]+>", "", text, flags=re.S)
        count += len(re.sub(r"\s+", "", text))
    return count


@pytest.mark.parametrize("name", sorted(PROSE_BUDGET))
def test_prose_fits_its_budget(name):
    assert name in NOTEBOOKS
    assert prose_characters(read(name)) <= PROSE_BUDGET[name], (name, prose_characters(read(name)))


def test_prose_characters_leave_out_code_html_links_and_whitespace():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("两个 字\n\n```python\nx = 1\n```\n<b>粗</b><!-- note -->"),
        nbformat.v4.new_markdown_cell("链接", metadata={"tags": ["remove-cell"]}),
        nbformat.v4.new_code_cell("print('代码')")])
    assert prose_characters(nb) == 4  # 两个 字 粗
