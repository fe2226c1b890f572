"""``python -m tools.notebooks.pairs new NN_slug [--title 标题]`` (``make new NB=NN_slug``): a new notebook
laid out by the rule (tools/checks/layout.py), ready for its first cell.

It writes, from ``notebook_sources/_template.md``:

- ``notebook_sources/NN_slug.md`` (the series template with guidance in each section);
- ``helpers/figures/slug.py``, ``helpers/explorers/slug.py``, ``helpers/exercises/slug.py`` (stubs
  whose docstrings say what goes there; ``helpers.exercises`` finds the new module by itself);
- ``tests/notebooks/test_slug.py`` (a first test that the stubs already pass);

adds ``NN_slug`` to ``NOTEBOOKS`` in ``tools/series.py`` and a row to the notebook tables of
``00_index`` and ``README.md``. ``tools/notebooks/pairs.py`` then writes the shared header and footer
and pairs the new notebook (and its neighbours, whose footers change); ``make outputs
NB=NN_slug`` executes it. Nothing is overwritten: an existing file is an error.
"""
from __future__ import annotations

import re
from pathlib import Path

from tools import ROOT

TEMPLATE = ROOT / "notebook_sources" / "_template.md"
NAME = re.compile(r"^(\d\d)_([a-z][a-z0-9_]*)$")

STUBS = {
    "helpers/figures/{slug}.py": '''"""``{name}``: its figures (none yet).

A figure made for this notebook alone goes here: a function returning a figure from
:func:`helpers.render.png.new_figure`, built from :mod:`helpers.render.panels` where they fit and
coloured from :mod:`helpers.render.palette`; add it to ``helpers/plots.py`` so the notebook calls
``helpers.plots.<name>``. A panel its explorer reuses (a class with ``update``) lives here too.
"""
''',
    "helpers/explorers/{slug}.py": '''"""``{name}``: its live explorers (none yet).

An explorer is a subclass of :class:`helpers.render.explorer.Explorer` (``make_controls``, a pure
``compute`` that asks the lesson module for the state, ``build`` once, ``draw`` updates the
artists, ``describe`` the readout); add a one-line factory to ``helpers/widgets.py``, which is
what the notebook's widget cell calls.
"""
''',
    "helpers/exercises/{slug}.py": '''"""``{name}``: its self-checking exercises (none yet).

``EXERCISES`` maps ``"{number}-1"``, ``"{number}-2"`` … to :class:`helpers.grading.answers.Exercise`
(a prompt, an answer kind, and a solve function that computes the expected answer and its working
at check time); ``REFERENCES`` holds reference answers of discussion questions. The package
:mod:`helpers.exercises` gathers both; the notebook calls ``helpers.exercises.check("{number}-1", answer)``.
"""
from __future__ import annotations

EXERCISES: dict = {{}}
REFERENCES: dict = {{}}
''',
    "tests/notebooks/test_{slug}.py": '''"""``{name}``: what the notebook shows — its explorers' controls, its figures, its exercises."""
from helpers.exercises import {slug} as exercises
from tools.series import NOTEBOOKS


def test_the_notebook_is_listed_and_its_exercises_carry_its_number():
    assert "{name}" in NOTEBOOKS
    assert all(key.startswith("{number}-") for key in exercises.EXERCISES), sorted(exercises.EXERCISES)
''',
}


def source_from_template(name: str, title: str) -> str:
    """The template with this notebook's number, name and title in place, its note to the author removed."""
    number, slug = NAME.match(name).groups()
    text = TEMPLATE.read_text(encoding="utf-8")
    text = re.sub(r"<!--.*?-->\n\n", "", text, count=1, flags=re.S)
    text = text.replace("# NN · 本篇标题", f"# {number} · {title}")
    text = text.replace("test_slug.py", f"test_{slug}.py").replace("/slug.py", f"/{slug}.py")
    text = text.replace('"NN-', f'"{number}-')
    return text


def _insert_after_last(path: Path, pattern: str, line: str) -> None:
    """Put ``line`` after the last line of ``path`` that matches ``pattern``."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    hits = [i for i, text in enumerate(lines) if re.match(pattern, text)]
    if not hits:
        raise SystemExit(f"{path.relative_to(ROOT)}: found no line matching {pattern!r} to add {line.strip()!r} after")
    lines.insert(hits[-1] + 1, line)
    path.write_text("".join(lines), encoding="utf-8")


def add_to_series(name: str) -> None:
    """Insert ``name`` into ``NOTEBOOKS`` in tools/series.py, in number order."""
    path = ROOT / "tools" / "series.py"
    text = path.read_text(encoding="utf-8")
    match = re.search(r"NOTEBOOKS = \[\n(.*?)\]", text, flags=re.S)
    names = re.findall(r'"([^"]+)"', match.group(1)) + [name]
    body = "".join(f'    "{n}",\n' for n in sorted(names))
    path.write_text(text[: match.start(1)] + body + text[match.end(1):], encoding="utf-8")


def new(name: str, title: str | None = None, notebooks=()) -> list:
    """Write the new notebook's files; return the paths written (relative to the repository)."""
    match = NAME.match(name or "")
    if not match:
        raise SystemExit(f"new: the name must look like 12_heads_in_depth (two digits, _, lower-case slug), got {name!r}")
    number, slug = match.groups()
    if name in notebooks or any(n.startswith(f"{number}_") or n.split("_", 1)[1] == slug for n in notebooks):
        raise SystemExit(f"new: {name} clashes with a notebook already in tools/series.py "
                         f"(number {number} or slug {slug} is taken)")
    title = title or "本篇标题"
    targets = {ROOT / "notebook_sources" / f"{name}.md": source_from_template(name, title)}
    for pattern, text in STUBS.items():
        targets[ROOT / pattern.format(slug=slug)] = text.format(name=name, slug=slug, number=number)
    existing = [str(p.relative_to(ROOT)) for p in targets if p.exists()]
    if existing:
        raise SystemExit(f"new: these files exist already, nothing written: {existing}")
    for path, text in targets.items():
        path.write_text(text, encoding="utf-8")
    add_to_series(name)
    _insert_after_last(ROOT / "notebook_sources" / "00_index.md", r"\| \[\d\d ",
                       f"| [{number} {title}]({name}.ipynb) | （主题） | （你会动手做的事） |\n")
    _insert_after_last(ROOT / "README.md", r"\| `\d\d_", f"| `{name}` | {title} |\n")
    return [str(p.relative_to(ROOT)) for p in targets] + ["tools/series.py", "notebook_sources/00_index.md",
                                                          "README.md"]
