#!/usr/bin/env python3
"""Paired notebooks (jupytext): the shared header and footer, and the pairing check.

    python tools/notebooks.py fix     write the shared header and the navigation footer into
                                      every source in notebook_sources/
    python tools/notebooks.py sync    fix, then update notebooks/NAME.ipynb from its source
                                      (jupytext --update: outputs and cell ids are kept)
    python tools/notebooks.py check   exit 1 if a source lacks the shared header or footer, a pair
                                      is out of sync, or a file is missing from tools/series.py
    python tools/notebooks.py new NN_slug [--title 标题]
                                      a new notebook from notebook_sources/_template.md, with its
                                      stubs, its test file and its place in the lists (tools/scaffold.py)

Sources whose name starts with ``_`` (the template) are not notebooks: every tool here skips them.

Every notebook is a jupytext pair (``jupytext.toml``): ``notebook_sources/NAME.md`` (MyST Markdown,
what is reviewed) and ``notebooks/NAME.ipynb`` (with stored outputs). Cell 0 is the notebook's
title; cells 1–2 are the Colab badge and the setup cell, identical in every notebook except the
badge's path, made here from the repository URL in ``pyproject.toml``; the last cell links to the
previous notebook, the index and the next one, made here from ``tools/series.py``.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "notebook_sources"
OUT = ROOT / "notebooks"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from series import NOTEBOOKS  # noqa: E402

SETUP_FIRST_LINE = "# 环境设置（每篇相同）"
NAV_PREFIX = "---\n\n"


def repository_url() -> str:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'^Repository\s*=\s*"([^"]+)"', text, re.M)
    if not match:
        raise SystemExit("pyproject.toml has no [project.urls] Repository")
    return match.group(1).rstrip("/")


def badge_source(name: str) -> str:
    github_path = repository_url().split("github.com/", 1)[1]
    return (f"[![在 Colab 中打开](https://colab.research.google.com/assets/colab-badge.svg)]"
            f"(https://colab.research.google.com/github/{github_path}/blob/main/notebooks/{name}.ipynb)")


def setup_source() -> str:
    url = repository_url()
    return "\n".join([
        f"{SETUP_FIRST_LINE}：本地 make lab 或 conda 环境里 helpers 已经装好；",
        "# 在 Colab 里先从仓库安装本项目（只装 numpy、matplotlib 等轻量依赖）。",
        "import sys",
        'if "google.colab" in sys.modules:',
        "    import subprocess",
        f'    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "attention-lab @ git+{url}"], check=True)',
        "import helpers",
        "helpers.setup()  # 注册随包附带的中文字体，图里的中文不会变成方框",
    ])


def title(name: str) -> str:
    """The notebook's title, from the first line of its source's first cell (``# 02 · …``)."""
    first = jupytext.read(SRC / f"{name}.md").cells[0].source.splitlines()[0]
    return first.lstrip("#").strip()


def nav_source(name: str) -> str:
    i = NOTEBOOKS.index(name)
    parts = []
    if i > 0:
        prev = NOTEBOOKS[i - 1]
        parts.append(f"[← 上一篇：{title(prev)}]({prev}.ipynb)")
    if i + 1 < len(NOTEBOOKS):
        nxt = NOTEBOOKS[i + 1]
        parts.append("目录（本篇）" if i == 0 else f"[目录]({NOTEBOOKS[0]}.ipynb)")
        parts.append(f"[下一篇：{title(nxt)} →]({nxt}.ipynb)")
    else:  # the last notebook: back to the index is the way forward
        parts.append(f"[回到目录 →]({NOTEBOOKS[0]}.ipynb)")
    return NAV_PREFIX + " · ".join(parts)


def expected_frame(name: str) -> dict:
    return {1: ("markdown", badge_source(name)), 2: ("code", setup_source()), -1: ("markdown", nav_source(name))}


def fix(name: str) -> bool:
    """Put the shared header and the footer into ``notebook_sources/NAME.md``; True if it changed."""
    path = SRC / f"{name}.md"
    nb = jupytext.read(path)
    cells = nb.cells
    if not cells or cells[0].cell_type != "markdown" or not cells[0].source.startswith("# "):
        raise SystemExit(f"{path}: the first cell must be the markdown title")
    before = [(c.cell_type, c.source) for c in cells]
    body = [c for c in cells[1:] if not (
        (c.cell_type == "markdown" and ("colab-badge" in c.source or c.source.startswith(NAV_PREFIX)))
        or (c.cell_type == "code" and c.source.startswith(SETUP_FIRST_LINE)))]
    frame = expected_frame(name)
    nb.cells = [cells[0], nbformat.v4.new_markdown_cell(frame[1][1]), nbformat.v4.new_code_cell(frame[2][1]),
                *body, nbformat.v4.new_markdown_cell(frame[-1][1])]
    if [(c.cell_type, c.source) for c in nb.cells] == before:
        return False
    jupytext.write(nb, path, fmt="md:myst")
    return True


def sync(name: str) -> None:
    """Update ``notebooks/NAME.ipynb`` from its source, keeping outputs of unchanged cells."""
    subprocess.run([sys.executable, "-m", "jupytext", "--quiet", "--update", "--to", "ipynb",
                    "-o", str(OUT / f"{name}.ipynb"), str(SRC / f"{name}.md")], check=True)


def problems() -> list:
    found = []
    have_src = sorted(p.stem for p in SRC.glob("*.md") if not p.name.startswith("_"))  # _template.md
    have_nb = sorted(p.stem for p in OUT.glob("*.ipynb"))
    for stem in sorted(set(have_src) | set(have_nb)):
        if stem not in NOTEBOOKS:
            found.append(f"{stem}: not in tools/series.py NOTEBOOKS (add it there, see CONTRIBUTING.md)")
    for name in NOTEBOOKS:
        src, book = SRC / f"{name}.md", OUT / f"{name}.ipynb"
        if not src.exists() or not book.exists():
            found.append(f"{name}: {'source' if not src.exists() else 'notebook'} missing")
            continue
        text_cells = [(c.cell_type, c.source) for c in jupytext.read(src).cells]
        for index, want in expected_frame(name).items():
            if len(text_cells) < 4 or text_cells[index] != want:
                where = {1: "Colab badge", 2: "setup cell", -1: "navigation footer"}[index]
                found.append(f"notebook_sources/{name}.md: the {where} is not the shared one (run make outputs)")
        book_cells = [(c.cell_type, c.source) for c in nbformat.read(book, as_version=4).cells]
        if book_cells != text_cells:
            first = next((i for i, (a, b) in enumerate(zip(book_cells, text_cells)) if a != b),
                         min(len(book_cells), len(text_cells)))
            found.append(f"notebooks/{name}.ipynb: cell {first} differs from notebook_sources/{name}.md "
                         f"(save it in JupyterLab, or run make outputs)")
    return found


def new(argv) -> int:
    """``new NN_slug [--title 标题]``: write the notebook's files (tools/scaffold.py), then pair it and
    its neighbours (their footers change) in a fresh process, which reads the new tools/series.py."""
    import scaffold

    if not argv or argv[0].startswith("--"):
        raise SystemExit("usage: python tools/notebooks.py new NN_slug [--title 标题]")
    title = argv[argv.index("--title") + 1] if "--title" in argv[1:-1] else None
    written = scaffold.new(argv[0], title, NOTEBOOKS)
    order = sorted([*NOTEBOOKS, argv[0]])
    i = order.index(argv[0])
    touched = [n for n in dict.fromkeys([order[0], *order[max(i - 1, 0): i + 2]])]
    subprocess.run([sys.executable, __file__, "sync", *touched], check=True)
    for path in written:
        print(f"wrote {path}")
    print(f"paired {', '.join(touched)}; next: make outputs NB={argv[0]}, then make test")
    return 0


def main(argv):
    if argv[:1] == ["new"]:
        return new(argv[1:])
    if not argv or argv[0] not in ("fix", "sync", "check"):
        raise SystemExit(__doc__)
    if argv[0] in ("fix", "sync"):
        for name in argv[1:] or NOTEBOOKS:
            if fix(name):
                print(f"fixed header/footer of notebook_sources/{name}.md")
            if argv[0] == "sync":
                sync(name)
        return 0
    found = problems()
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
