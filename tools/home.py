#!/usr/bin/env python3
"""The project's home (``home.toml``): its addresses, and everything made from them.

    python -m tools.home fix      write README.md's two link lines from home.toml
    python -m tools.home check    exit 1 where README.md or pyproject.toml disagrees with home.toml
    python -m tools.home get KEY  print one address (the workflows read the mirror's from here; an
                                  empty line where home.toml names no mirror)

The notebooks' Colab/Binder line and setup cell (tools/notebooks/pairs.py), README's link lines (here),
the site's links (tools/site/attnlab_site.py, tools/site/build.py) and CITATION.cff
(tools/release/citation.py) are made from ``home.toml``; ``pyproject.toml``'s ``[project.urls]`` cannot
read another file, so it is checked against it. ``python -m tools.notebooks.pairs sync`` (``make outputs``) runs
``fix`` too: changing the home is one edit of ``home.toml`` plus ``make outputs``. The mirror may
be left empty: then nothing offers one (tools/release/guard.py checks, at a release, that a mirror
which is offered exists).
"""
from __future__ import annotations

import functools
import sys

try:
    import tomllib
except ImportError:  # Python 3.10 (make test-compat's lower-bound venv)
    import tomli as tomllib

from tools import ROOT

HOME_FILE = ROOT / "home.toml"
KEYS = ("package", "repository", "branch", "documentation", "mirror", "modelscope")
#: keys that may be left empty: without a mainland mirror, nothing offers one (no setup-cell route, no
#: README or site link, no Mirror URL in the metadata) and .github/workflows/mirror.yml pushes nowhere
OPTIONAL = ("mirror",)
#: the names the setup cell and the messages give a mirror's host
MIRROR_HOSTS = {"gitee.com": "Gitee", "gitcode.com": "GitCode"}
#: README's lines made here: the badge line (images stored in assets/badges/) and the home line
README_LINES = (2, 4)  # 0-based: under the title, each followed by an empty line


@functools.cache
def home() -> dict:
    data = tomllib.loads(HOME_FILE.read_text(encoding="utf-8"))["home"]
    absent = [k for k in KEYS if not data.get(k) and k not in OPTIONAL]
    if absent:
        raise SystemExit(f"home.toml: [home] lacks {', '.join(absent)}")
    data = {"mirror": "", **data}
    return {k: v.rstrip("/") if k != "documentation" else v.rstrip("/") + "/" for k, v in data.items()}


def github_path() -> str:
    """``owner/name`` of the repository: Colab and Binder open notebooks from GitHub only."""
    url = home()["repository"]
    if not url.startswith("https://github.com/"):
        raise SystemExit(f"home.toml: repository must be a https://github.com/ URL (Colab and Binder read GitHub); got {url!r}")
    return url.split("github.com/", 1)[1]


def colab_url(name: str) -> str:
    return f"https://colab.research.google.com/github/{github_path()}/blob/{home()['branch']}/notebooks/{name}.ipynb"


def binder_url(name: str) -> str:
    return f"https://mybinder.org/v2/gh/{github_path()}/{home()['branch']}?labpath=notebooks%2F{name}.ipynb"


def mirror_label() -> str:
    """What the setup cell calls the mirror's host ("Gitee", "GitCode", else its host name); "" without one."""
    url = home()["mirror"]
    if not url:
        return ""
    host = url.split("://", 1)[-1].split("/", 1)[0].lower()
    return MIRROR_HOSTS.get(host.removeprefix("www."), host)


def git_routes() -> dict:
    """{host label: repository URL}: where the setup cell installs a tag from when the package index
    lacks the version, in the order it tries them (GitHub, then the mirror where there is one)."""
    routes = {"GitHub": home()["repository"]}
    if home()["mirror"]:
        routes[mirror_label()] = home()["mirror"]
    return routes


def issues_url() -> str:
    """Where a reader reports a problem: the repository's issues."""
    return f"{home()['repository']}/issues"


def needles() -> list:
    """Strings that only a copy of the home contains: each address without its scheme, and the
    repository's owner/name (in every Colab and Binder link)."""
    h = home()
    return sorted({github_path(), *(h[k].split("://", 1)[1].rstrip("/") for k in
                                   ("repository", "documentation", "mirror", "modelscope") if h[k])})


def project_urls() -> dict:
    """What pyproject.toml's [project.urls] must say."""
    h = home()
    urls = {"Repository": h["repository"], "Documentation": h["documentation"], "Mirror": h["mirror"],
            "Notebooks (ModelScope)": h["modelscope"]}
    return {label: url for label, url in urls.items() if url}


def readme_lines() -> dict:
    """README.md's generated lines, by line index."""
    h = home()
    badges = (f"[![在 Colab 中打开](assets/badges/colab.svg)]({colab_url('00_index')}) "
              f"[![在 Binder 中打开](assets/badges/binder.svg)]({binder_url('00_index')})")
    mirror = f"国内镜像（不经过 GitHub）：<{h['mirror']}> · " if h["mirror"] else ""
    where = (f"网站（在线阅读，下载 PDF、笔记本压缩包和 wheel）：<{h['documentation']}> · "
             f"{mirror}ModelScope：<{h['modelscope']}>")
    return dict(zip(README_LINES, (badges, where)))


def readme_text(text: str) -> str:
    lines = text.split("\n")
    for i, line in readme_lines().items():
        if len(lines) <= i + 1:
            raise SystemExit("README.md: expected its title, then the link lines")
        if not (lines[i].startswith("[![") or lines[i].startswith("网站")):
            lines.insert(i, "")
            lines.insert(i, line)
        lines[i] = line
    return "\n".join(lines)


def fix() -> bool:
    path = ROOT / "README.md"
    text = path.read_text(encoding="utf-8")
    new = readme_text(text)
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


def problems() -> list:
    found = []
    lines = (ROOT / "README.md").read_text(encoding="utf-8").split("\n")
    for i, want in readme_lines().items():
        if len(lines) <= i or lines[i] != want:
            found.append(f"README.md line {i + 1}: not the one made from home.toml (run python -m tools.home fix)")
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"].get("urls", {})
    if urls != project_urls():
        found.append(f"pyproject.toml [project.urls] must be {project_urls()} (from home.toml); got {urls}")
    name = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"]
    if name != home()["package"]:
        found.append(f"pyproject.toml name {name!r} is not home.toml's package {home()['package']!r}")
    return found


def main(argv) -> int:
    if argv[:1] == ["fix"]:
        if fix():
            print("wrote README.md's link lines from home.toml")
        return 0
    if argv[:1] == ["check"]:
        found = problems()
        print("\n".join(found)) if found else None
        return 1 if found else 0
    if argv[:1] == ["get"] and len(argv) == 2 and argv[1] in KEYS:
        print(home()[argv[1]])
        return 0
    raise SystemExit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
