#!/usr/bin/env python3
"""Build the notebooks from their sources, with one shared header.

    python tools/notebooks.py build [NAME ...]   write notebooks/NAME.ipynb from notebook_sources/NAME.md
    python tools/notebooks.py check              exit 1 if a notebook's cells drift from its source

A source file is Markdown-ish text split into cells by marker lines ``%% md`` and ``%% code``.
The first cell (the title) comes first; the Colab badge and the setup cell, generated here from
the repository URL in ``pyproject.toml``, follow it in every notebook. Stored outputs are made by
``tools/execute_notebooks.py`` (``make outputs``); ``build`` keeps a cell's outputs when its
source did not change, so a rebuild alone never loses checked outputs.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "notebook_sources"
OUT = ROOT / "notebooks"
MARKER = re.compile(r"^%% (md|code)\s*$")


def repository_url() -> str:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'^Repository\s*=\s*"([^"]+)"', text, re.M)
    if not match:
        raise SystemExit("pyproject.toml has no [project.urls] Repository")
    return match.group(1).rstrip("/")


def header_cells(name: str) -> list:
    url = repository_url()
    github_path = url.split("github.com/", 1)[1]
    badge = (f"[![在 Colab 中打开](https://colab.research.google.com/assets/colab-badge.svg)]"
             f"(https://colab.research.google.com/github/{github_path}/blob/main/notebooks/{name}.ipynb)")
    setup = "\n".join([
        "# 环境设置（每篇相同）：本地 make lab 或 conda 环境里 helpers 已经装好；",
        "# 在 Colab 里先从仓库安装本项目（只装 numpy、matplotlib 等轻量依赖）。",
        "import sys",
        'if "google.colab" in sys.modules:',
        "    import subprocess",
        f'    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "attention-lab @ git+{url}"], check=True)',
        "import helpers",
        "helpers.setup()  # 注册随包附带的中文字体，图里的中文不会变成方框",
    ])
    return [nbformat.v4.new_markdown_cell(badge), nbformat.v4.new_code_cell(setup)]


def parse_source(path: Path) -> list:
    cells, kind, lines = [], None, []

    def flush():
        if kind is not None:
            text = "\n".join(lines).strip("\n")
            cells.append(nbformat.v4.new_markdown_cell(text) if kind == "md" else nbformat.v4.new_code_cell(text))

    for line in path.read_text(encoding="utf-8").splitlines():
        match = MARKER.match(line)
        if match:
            flush()
            kind, lines = match.group(1), []
        else:
            lines.append(line)
    flush()
    if not cells or cells[0].cell_type != "markdown":
        raise SystemExit(f"{path}: the first cell must be the markdown title")
    return cells


def expected_cells(name: str) -> list:
    cells = parse_source(SRC / f"{name}.md")
    return [cells[0], *header_cells(name), *cells[1:]]


def build(name: str) -> Path:
    target = OUT / f"{name}.ipynb"
    old = {}
    if target.exists():
        for cell in nbformat.read(target, as_version=4).cells:
            if cell.cell_type == "code":
                old.setdefault(cell.source, cell)
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    for i, cell in enumerate(expected_cells(name)):
        cell.id = f"c{i:02d}"
        previous = old.get(cell.source) if cell.cell_type == "code" else None
        if previous is not None:
            cell.outputs = previous.outputs
            cell.execution_count = previous.execution_count
        nb.cells.append(cell)
    nbformat.write(nb, target)
    return target


def names() -> list:
    return sorted(p.name[:-3] for p in SRC.glob("*.md"))


def drift() -> list:
    problems = []
    for name in names():
        target = OUT / f"{name}.ipynb"
        if not target.exists():
            problems.append(f"{target.name}: missing (run make notebooks)")
            continue
        have = [(c.cell_type, c.source) for c in nbformat.read(target, as_version=4).cells]
        want = [(c.cell_type, c.source) for c in expected_cells(name)]
        if have != want:
            first = next((i for i, (a, b) in enumerate(zip(have, want)) if a != b), min(len(have), len(want)))
            problems.append(f"{target.name}: cell {first} differs from notebook_sources/{name}.md "
                            f"or the shared header (run make notebooks)")
    return problems


def main(argv):
    if not argv or argv[0] not in ("build", "check"):
        raise SystemExit(__doc__)
    if argv[0] == "build":
        for name in argv[1:] or names():
            print(f"built {build(name).relative_to(ROOT)}")
        return 0
    problems = drift()
    for line in problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
