"""The module maps written in prose, checked against the tree (tests/series/test_module_maps.py).

A reader finds their way through ``helpers`` by the maps in the package docstrings — ``helpers``
(the lessons, their packages' parts, the faces, the wings), ``helpers.render`` and
``helpers.grading`` (their modules, the render wing's base) — and ``pyproject.toml`` names modules
and files of the package. Each is prose, so nothing breaks when the tree moves on; these checks read
the source (no import) and name, per map, what it lacks and what it names that is not there:

- every child of the package (``P.x``: a module ``P/x.py`` or a package ``P/x/``) is named in its
  docstring, as ``P.x`` or as the path ``P/x``; every ``P.x…`` the docstring names is a child (or a
  name the package itself defines);
- a lesson package of ``helpers`` is named with its parts, ``helpers.training`` (a package: task,
  model, …), exactly its modules;
- the base list of ``helpers.render`` (``base modules (validation, format, …)``) is
  ``tools/checks/layout.py``'s :data:`BASE`; ``helpers.grading.MODULES`` (what it loads lazily) is its tree;
- every dotted ``helpers.…`` name in ``pyproject.toml`` is a module or a name a module defines, and
  every ``helpers/…`` path there exists.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

#: the packages whose docstring is a map of their children
MAPPED = ("helpers", "helpers.render", "helpers.grading")
#: the per-notebook folders and faces are no lessons: their parts are not listed in the map
NOT_LESSONS = {"render", "grading", "figures", "explorers", "exercises"}


def modules(root: Path) -> dict:
    """``{dotted name: path}`` of every module and package of ``root/helpers``."""
    found = {}
    for path in sorted((root / "helpers").rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(root).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def children(root: Path, package: str) -> dict:
    """``{child name: dotted name}`` of the direct children of ``package`` (modules and packages)."""
    depth = package.count(".") + 1
    return {m.split(".")[depth]: m for m in modules(root)
            if m.startswith(package + ".") and m.count(".") == depth}


def _defined(path: Path) -> set:
    """Top-level names ``path`` defines (assignments, functions, classes, imports)."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def _docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


def _named(doc: str, package: str) -> set:
    """The children of ``package`` a docstring names: ``package.x…`` (``~`` forms too) or ``package/x``."""
    dotted = re.escape(package)
    slashed = re.escape(package.replace(".", "/"))
    return set(re.findall(rf"(?<![\w.]){dotted}\.(\w+)", doc)) | set(re.findall(rf"(?<![\w/]){slashed}/(\w+)", doc))


def map_problems(root: Path, package: str) -> list:
    """What the docstring map of ``package`` lacks or names in excess (one line each)."""
    mods = modules(root)
    if package not in mods:
        return [f"{package}: no such package in the tree"]
    path, where = mods[package], str(mods[package].relative_to(root))
    doc, kids = _docstring(path), children(root, package)
    named = _named(doc, package)
    problems = [f"{where}: the module map does not name {kids[k]} (in the tree)" for k in sorted(set(kids) - named)]
    problems += [f"{where}: the module map names {package}.{k}, which is not in the tree" for k in
                 sorted(named - set(kids) - _defined(path))]
    if package == "helpers":
        problems += _package_parts(root, doc, kids, where)
    return problems


def _package_parts(root: Path, doc: str, kids: dict, where: str) -> list:
    """Each lesson package is named with exactly its parts: ``helpers.x`` (a package: a, b, c)."""
    listed = {name: {p.strip() for p in parts.split(",") if p.strip()}
              for name, parts in re.findall(r"``helpers\.(\w+)``\s+\(a package:\s*([\w,\s]+)\)", doc)}
    problems = []
    for name, dotted in sorted(kids.items()):
        parts = set(children(root, dotted))
        if name in NOT_LESSONS or not parts:
            if name in listed:
                problems.append(f"{where}: the module map lists parts of {dotted}, which is not a lesson package")
            continue
        if name not in listed:
            problems.append(f"{where}: the module map does not list the parts of the package {dotted}: write "
                            f"``{dotted}`` (a package: {', '.join(sorted(parts))})")
            continue
        for missing in sorted(parts - listed[name]):
            problems.append(f"{where}: the parts listed for {dotted} lack {missing} (in the tree)")
        for extra in sorted(listed[name] - parts):
            problems.append(f"{where}: the parts listed for {dotted} name {extra}, which is not in the tree")
    return problems


def base_problems(root: Path, base: set) -> list:
    """``helpers.render``'s docstring lists its base modules as ``base modules (a, b, …)`` = ``base``."""
    path = root / "helpers" / "render" / "__init__.py"
    found = re.search(r"[Bb]ase modules\s+\(([\w,\s]+)\)", _docstring(path))
    if not found:
        return ["helpers/render/__init__.py: the module map does not list the base modules: write "
                f"base modules ({', '.join(sorted(m.rsplit('.', 1)[1] for m in base))})"]
    listed = {f"helpers.render.{p.strip()}" for p in found.group(1).split(",") if p.strip()}
    return ([f"helpers/render/__init__.py: the base list lacks {m} (tools/checks/layout.py BASE)" for m in sorted(base - listed)]
            + [f"helpers/render/__init__.py: the base list names {m}, which is not in tools/checks/layout.py BASE"
               for m in sorted(listed - base)])


def lazy_problems(root: Path) -> list:
    """``helpers.grading.MODULES`` (the modules its ``__getattr__`` loads) is the wing's tree."""
    path = root / "helpers" / "grading" / "__init__.py"
    if not path.exists():
        return []
    listed = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "MODULES" for t in node.targets):
            listed = set(ast.literal_eval(node.value))
    kids = set(children(root, "helpers.grading"))
    return ([f"helpers/grading/__init__.py: MODULES lacks {k} (in the tree)" for k in sorted(kids - listed)]
            + [f"helpers/grading/__init__.py: MODULES names {k}, which is not in the tree" for k in sorted(listed - kids)])


def pyproject_problems(root: Path) -> list:
    """Every ``helpers.…`` name in pyproject.toml is a module or a name one defines; every ``helpers/…`` exists."""
    mods, problems = modules(root), []
    for number, line in enumerate((root / "pyproject.toml").read_text(encoding="utf-8").splitlines(), 1):
        for name in re.findall(r"(?<![\w./])helpers(?:\.\w+)+(?::\w+)?", line):
            dotted = name.replace(":", ".")
            parts = dotted.split(".")
            prefix = next(".".join(parts[:i]) for i in range(len(parts), 0, -1) if ".".join(parts[:i]) in mods)
            rest = parts[prefix.count(".") + 1:]
            if rest and (len(rest) > 1 or rest[0] not in _defined(mods[prefix])):
                problems.append(f"pyproject.toml:{number}: {name} is neither a module of the tree nor a name "
                                f"{prefix} defines")
        for path in re.findall(r"(?<![\w./])helpers/[\w./-]+", line):
            if not (root / path.rstrip("/.")).exists():
                problems.append(f"pyproject.toml:{number}: {path} is not in the tree")
    return problems


def problems(root: Path, base: set) -> list:
    """Every map's problems (``base``: tools/checks/layout.py's BASE for the tree at ``root``)."""
    return ([p for package in MAPPED for p in map_problems(root, package)] + base_problems(root, base)
            + lazy_problems(root) + pyproject_problems(root))
