#!/usr/bin/env python3
"""The series as a book: a static site and a one-page print version, from the stored notebooks.

    python tools/site_build.py html [OUT]     the site (default _site/): index + the notebooks of
                                              tools/series.py in order, searchable, no re-execution
    python tools/site_build.py single [OUT]   the whole series on one HTML page (default
                                              build/site/single/), what tools/site_pdf.py prints

Both stage their sources in build/site/src/: the notebooks as stored (copied, so Sphinx never
touches notebooks/) and an index page made from README.md (its introduction and its table of
notebooks, linked). Sphinx with MyST-NB and sphinx-book-theme does the rest (tools/site/conf.py):
nothing is downloaded at build or view time. A notebook's .ipynb is copied to OUT/notebooks/ for
its page's download link.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from series import NOTEBOOKS  # noqa: E402

from notebooks import repository_url  # noqa: E402

CONF = ROOT / "tools" / "site"
WORK = ROOT / "build" / "site"
STAGE = WORK / "src"
DOCTREES = WORK / "doctrees"
DEFAULT_OUT = {"html": ROOT / "_site", "single": WORK / "single"}


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


def index_source(readme: str, toc_hidden: bool = True) -> str:
    sections = readme_sections(readme)
    head = sections[""].strip().splitlines()
    if not head or not head[0].startswith("# "):
        raise SystemExit("README.md must start with its '# ' title")
    title, intro = head[0], "\n".join(head[1:]).strip()
    table = sections.get("篇目")
    if table is None:
        raise SystemExit("README.md has no '## 篇目' section (the table of notebooks the site's index shows)")
    readme_url = repository_url()
    commands = re.search(r"```bash\n.*?```", sections.get("两条命令", ""), flags=re.S)
    local = [
        "## 在本地运行",
        "",
        "网页上是存储的输出，交互控件只显示静态预览；要拖动控件、改代码，在本地或 Colab / Binder 里运行"
        "（每篇页首有链接）。克隆仓库后，只需要 `python3`（3.10 及以上）和两条命令：",
        "",
        commands.group(0) if commands else "```bash\nmake lab\nmake test\n```",
        "",
        f"在国内下载依赖慢、访问不了 GitHub：见 [README 的 “国内用户” 一节]({readme_url}#国内用户)。"
        "`make zip` 把全部笔记本（带存储的输出）、README 和许可证打成一个压缩包，`make pdf` 生成整套的 PDF。",
    ]
    toc = ["```{toctree}", ":maxdepth: 1", ":caption: 篇目", *([":hidden:"] if toc_hidden else []), "",
           *NOTEBOOKS, "```"]
    return "\n".join([title, "", intro, "", "## 篇目", "", linked_table(table), "", *local, "", *toc, ""])


def stage(toc_hidden: bool) -> None:
    STAGE.mkdir(parents=True, exist_ok=True)
    wanted = {f"{name}.ipynb" for name in NOTEBOOKS} | {"index.md"}
    for path in STAGE.iterdir():
        if path.name not in wanted:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    for name in NOTEBOOKS:
        src, dst = ROOT / "notebooks" / f"{name}.ipynb", STAGE / f"{name}.ipynb"
        if not src.exists():
            raise SystemExit(f"{src.relative_to(ROOT)} is missing (tools/series.py lists it)")
        if not dst.exists() or dst.read_bytes() != src.read_bytes():
            shutil.copy2(src, dst)
    index = index_source((ROOT / "README.md").read_text(encoding="utf-8"), toc_hidden)
    path = STAGE / "index.md"
    if not path.exists() or path.read_text(encoding="utf-8") != index:
        path.write_text(index, encoding="utf-8")


def sphinx(builder: str, out: Path) -> None:
    cmd = [sys.executable, "-m", "sphinx", "-b", builder, "-E", "-q", "-W", "--keep-going", "-c", str(CONF),
           "-d", str(DOCTREES / builder), str(STAGE), str(out)]
    subprocess.run(cmd, check=True, cwd=ROOT)


def build(kind: str, out: Path | None = None) -> Path:
    out = Path(out or DEFAULT_OUT[kind]).resolve()
    t0 = time.perf_counter()
    stage(toc_hidden=(kind == "html"))
    sphinx("html" if kind == "html" else "singlehtml", out)
    if kind == "html":
        dst = out / "notebooks"
        dst.mkdir(exist_ok=True)
        for name in NOTEBOOKS:
            shutil.copy2(STAGE / f"{name}.ipynb", dst / f"{name}.ipynb")
    print(f"site ({kind}): {out} in {time.perf_counter() - t0:.1f} s")
    return out


def main(argv) -> None:
    if not argv or argv[0] not in DEFAULT_OUT:
        raise SystemExit(__doc__)
    build(argv[0], Path(argv[1]) if len(argv) > 1 else None)


if __name__ == "__main__":
    main(sys.argv[1:])
