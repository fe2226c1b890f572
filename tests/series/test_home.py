"""The project's home lives in home.toml: every other copy of its addresses is one made from it
(each notebook's link line and setup cell, README's two link lines, CITATION.cff) or checked against
it (pyproject.toml's [project.urls]). Changing the home is one edit plus ``make outputs``."""
import subprocess

import nbformat
from paths import ROOT

from tools import home
from tools.notebooks import pairs as nbtool
from tools.release import citation
from tools.series import NOTEBOOKS

#: where a copy may stand, and what makes it right: the generated header cells (compared with
#: tools/notebooks/pairs.py's output below), README's generated lines, pyproject's checked urls
NOTEBOOK_CELLS = (1, 2)


def tracked_texts():
    names = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split("\n")
    for name in filter(None, names):
        path = ROOT / name
        if path.is_file():
            try:
                yield name, path.read_text(encoding="utf-8")
            except UnicodeDecodeError:  # a font, an image, a data file
                continue


def copies(text):
    return [n for n in home.needles() if n in text]


def test_no_file_but_home_toml_holds_an_address_of_the_home_by_hand():
    allowed = {"home.toml", "README.md", "pyproject.toml", "CITATION.cff"}
    outside = []
    for name, text in tracked_texts():
        if name in allowed or name.startswith(("notebooks/", "notebook_sources/")):
            continue
        if copies(text):
            outside.append((name, copies(text)))
    assert outside == [], "write these from home.toml (tools/home.py) instead"


def test_readme_and_pyproject_agree_with_home_toml():
    assert home.problems() == []
    readme = (ROOT / "README.md").read_text(encoding="utf-8").split("\n")
    by_hand = [(i + 1, line) for i, line in enumerate(readme) if copies(line) and i not in home.README_LINES]
    assert by_hand == []
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    urls = pyproject.split("[project.urls]", 1)[1].split("\n[", 1)[0]
    assert copies(pyproject.replace(urls, "")) == []


def test_the_citation_is_the_one_made_from_home_toml():
    assert citation.problems() == []
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    h = home.home()
    assert f'repository-code: "{h["repository"]}"' in text and f'url: "{h["documentation"]}"' in text


def test_the_mirror_is_optional_and_named_after_its_host(monkeypatch):
    base = home.home()
    monkeypatch.setattr(home, "home", lambda: {**base, "mirror": ""})
    assert home.git_routes() == {"GitHub": base["repository"]} and home.mirror_label() == ""
    assert "Mirror" not in home.project_urls()
    assert all("gitee" not in n and n for n in home.needles())
    assert "国内镜像" not in home.readme_lines()[home.README_LINES[1]]
    for url, label in (("https://gitee.com/a/b", "Gitee"), ("https://gitcode.com/a/b", "GitCode"),
                       ("https://git.example.cn/a/b", "git.example.cn")):
        monkeypatch.setattr(home, "home", lambda url=url: {**base, "mirror": url})
        assert home.git_routes() == {"GitHub": base["repository"], label: url}


def test_notebooks_hold_the_home_only_in_their_generated_cells():
    for name in NOTEBOOKS:
        for kind, nb in (("source", nbtool.jupytext.read(ROOT / "notebook_sources" / f"{name}.md")),
                         ("notebook", nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4))):
            frame = nbtool.expected_frame(name)
            for i, cell in enumerate(nb.cells):
                if i in NOTEBOOK_CELLS:
                    assert cell.source == frame[i][1], f"{kind} of {name}: cell {i} is not generated (make outputs)"
                else:
                    assert copies(cell.source) == [], f"{kind} of {name}: cell {i} holds {copies(cell.source)}"


def test_the_needles_find_every_kind_of_link():
    text = "\n".join([nbtool.badge_source("00_index"), nbtool.setup_source("00_index"), *home.readme_lines().values()])
    assert set(copies(text)) == set(home.needles())
    assert home.github_path() in nbtool.badge_source("00_index")
