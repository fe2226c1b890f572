#!/usr/bin/env python3
"""The layout rule of the series, checked by reading the source (no import of ``helpers``).

    python -m tools.checks.layout         every check; exit 1 and one line per problem if any fails
    python -m tools.checks.layout graph   the import graph of helpers by layer (and its problems)
    python -m tools.checks.layout cells   notebook code lines ≤ 100 characters, code cells ≤ 15 lines

**The rule.** The piece of notebook ``NN_slug`` of kind K (figures, explorers, exercises) lives at
``helpers/K/slug.py``, whose docstring starts with ````NN_slug````; every notebook of
``tools/series.py`` has one module of each kind and a test file ``tests/notebooks/test_slug.py``.
Lesson modules (the ideas a notebook sends a reader to) sit at the top of ``helpers`` (a package,
such as ``helpers/training/``, when one idea has several parts) and name in their docstring a
notebook that teaches them. Plumbing — taught nowhere — lives in the wing ``helpers/render/``, and
grading (reading typed answers, checking the learner's functions) in the wing ``helpers/grading/``.
The faces the notebooks call (``helpers.display``, ``helpers.plots``, ``helpers.widgets``,
``helpers.exercises``) are imported by nothing inside ``helpers``.

**Layers**, bottom first (a module imports only the layers :data:`MAY_IMPORT` lists for its own,
and never round a cycle):

0. ``base``: the render wing's modules that import nothing else from helpers (:data:`BASE`), and the
   grading wing (:data:`GRADING`), which imports only those;
1. ``wing``: the rest of ``helpers/render/`` (drawing, explorers, the live page), which imports only
   itself and the base: the plumbing serves every notebook and knows none;
2. ``lesson``: every other module outside the wings and the per-notebook folders; it imports only
   lessons and the base (not the drawing wing: the ideas stay numpy-only and fast to import);
3. ``notebook``: ``helpers/{figures,explorers,exercises}/<slug>.py`` — which import their own or an
   earlier notebook's modules of any kind, never a later notebook's;
4. ``face``: ``helpers`` itself and the faces.

**Packages and the series.** Seen a top-level unit at a time (``helpers.heads`` with all its
modules, ``helpers.attention``, ``helpers.render`` …) the graph has no cycle either, and it follows
the syllabus: a lesson unit imports only the plumbing and the lessons of its own or an earlier stage
(:func:`stage_of`), and so does each notebook's module. A private name (``_x``) is used only inside
its own unit (:func:`check_private_names`).

The other checks: no colour literal outside ``helpers/render/palette.py``; every public function
and class (and every module) has a docstring; notebook code uses one import style, ``import
helpers`` then qualified ``helpers.module.name`` (no ``from helpers…``, no module aliases); tests
in one shape (``tests/{unit,notebooks,series}/test_*.py``, support code in ``tests/support/``, no
change to ``sys.path``); ``tools/`` one package run with ``python -m`` (every folder of it a package,
no change to ``sys.path``). ``tests/series/test_layout.py`` runs each check as its own test.
"""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from tools import ROOT
from tools.series import NOTEBOOKS

HELPERS = ROOT / "helpers"

KINDS = ("figures", "explorers", "exercises")
#: what the notebooks call (and the ``attention-lab`` command, the face a shell calls)
FACES = ("helpers", "helpers.display", "helpers.plots", "helpers.widgets", "helpers.exercises", "helpers.cli")
WING = "helpers.render"
#: modules of the wing that import nothing else from helpers, so lesson modules may use them
BASE = {f"{WING}.{m}" for m in ("validation", "format", "palette", "style", "fonts", "threads", "npz")}
#: the grading wing: plumbing on the base layer (it imports only BASE), so exercises and lessons may use it
GRADING = "helpers.grading"
#: the layers, bottom first, and what a module of each may import (its own layer included): the
#: plumbing wing and the lessons both stand on the base and never on each other
LAYERS = ("base", "wing", "lesson", "notebook", "face")
MAY_IMPORT = {"base": {"base"}, "wing": {"base", "wing"}, "lesson": {"base", "lesson"},
              "notebook": {"base", "wing", "lesson", "notebook"}, "face": set(LAYERS)}
#: why a layer may not import a lower one it does not list
NOT_BELOW = {("lesson", "wing"): "lessons stand on the base only: the ideas stay numpy-only and fast to import"}
#: the last notebook of the series' first stage: 01–08 build one attention head step by step and
#: share their modules freely (01's running example computes its weights with 03's softmax, 05's KV
#: cache runs on 06's layer); every later notebook is a stage of its own
ONE_HEAD = "08_reading_attention"
#: argument names and setters through which matplotlib takes a colour
COLOUR_KEYWORDS = {"color", "colors", "c", "ec", "fc", "edgecolor", "edgecolors", "facecolor", "facecolors",
                   "mec", "mfc", "markeredgecolor", "markerfacecolor", "bad", "under", "over", "labelcolor"}
COLOUR_SETTERS = {"set_color", "set_facecolor", "set_edgecolor", "set_markerfacecolor", "set_markeredgecolor"}
HEX = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")
NAMED = {"white", "black", "red", "green", "blue", "grey", "gray", "orange", "purple", "yellow", "pink",
         "brown", "cyan", "magenta", "lightgrey", "lightgray", "darkgrey", "darkgray", "k", "w", "r", "g", "b"}


def slug(name: str) -> str:
    """``06_attention_layer`` → ``attention_layer``."""
    return name.split("_", 1)[1]


SLUGS = {slug(n): n for n in NOTEBOOKS}


# ---- reading the package ------------------------------------------------------------------------
def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


_MODULES: dict = {}
_TREES: dict = {}


def modules() -> dict:
    """``{module name: path}`` of every Python file of the package (listed once per package root)."""
    if HELPERS not in _MODULES:
        _MODULES.clear()
        _MODULES[HELPERS] = {module_name(p): p for p in sorted(HELPERS.rglob("*.py")) if "__pycache__" not in p.parts}
    return _MODULES[HELPERS]


def _tree(path: Path):
    """``path`` parsed (once per version of the file)."""
    stat = path.stat()
    key = (path, stat.st_mtime_ns, stat.st_size)
    if key not in _TREES:
        _TREES[key] = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return _TREES[key]


def _resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(path: Path) -> list:
    """``(line, imported module)`` for every import in ``path`` (at any depth; ``from a import b``
    counts ``a.b`` when ``b`` is a module)."""
    module, known = module_name(path), modules()
    is_package = path.name == "__init__.py"
    found = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            target = _resolve(node, module, is_package)
            subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in known]
            found += [(node.lineno, s) for s in subs] or [(node.lineno, target)]
    return found


def layer_of(module: str) -> str:
    """The layer of a helpers module (see the module docstring)."""
    if module in FACES:
        return "face"
    parts = module.split(".")
    if len(parts) >= 2 and parts[1] in KINDS:
        return "notebook"
    if module == GRADING or module.startswith(GRADING + "."):
        return "base"
    if module == WING or module.startswith(WING + "."):
        return "base" if module in BASE else "wing"
    return "lesson"


def import_graph() -> dict:
    """``{module: [(line, imported helpers module), …]}``; importing ``helpers.a.b`` also runs the
    package ``helpers.a``, so that counts as an edge when the package's ``__init__`` imports anything."""
    mods = modules()
    runs_code = {m for m, p in mods.items() if p.name == "__init__.py" and imports(p)}
    graph = {}
    for module, path in mods.items():
        edges = []
        for line, target in imports(path):
            if not target.startswith("helpers"):
                continue
            edges.append((line, target))
            parent = target.rpartition(".")[0]
            if parent in runs_code and parent != "helpers" and not module.startswith(parent + ".") \
                    and module != parent:
                edges.append((line, parent))
        graph[module] = [(line, t) for line, t in edges if t in mods]
    return graph


def _cycles(graph: dict) -> list:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for _, w in graph.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


# ---- the checks (each returns a list of problems, one line each, naming the file) -------------------
def check_graph() -> list:
    """No import of a layer the importing module's layer may not use (:data:`MAY_IMPORT`); faces
    imported by nothing inside helpers but ``helpers`` itself; no cycle."""
    mods, graph, problems = modules(), import_graph(), []
    for module, edges in graph.items():
        for line, target in edges:
            a, b = layer_of(module), layer_of(target)
            # the package root runs before any of its modules anyway: importing it (__version__) is no edge
            if target == "helpers":
                continue
            if target in FACES and module != "helpers" and not target.startswith(module + "."):
                problems.append(f"{_rel(mods[module])}:{line}: imports the face {target} (faces are imported by "
                                "nothing inside helpers; import the module that defines the name)")
            elif b not in MAY_IMPORT[a]:
                why = (f"which is higher ({b})" if LAYERS.index(b) > LAYERS.index(a)
                       else f"of the {b} layer ({NOT_BELOW[(a, b)]})")
                problems.append(f"{_rel(mods[module])}:{line}: a {a} module imports {target}, {why}")
    for comp in _cycles(graph):
        problems.append(f"{_rel(mods[comp[0]])}: import cycle through {' → '.join(comp)}")
    return problems


# ---- the top-level units and the series' order ----------------------------------------------------
def unit_of(module: str) -> str:
    """The top-level unit a helpers module belongs to: ``helpers.heads.patching`` → ``helpers.heads``
    (a package with all its modules), ``helpers.attention`` → itself."""
    return ".".join(module.split(".")[:2])


def _unit_layer(unit: str) -> str:
    """``plumbing`` (the two wings), ``lesson``, ``notebook`` (figures, explorers) or ``face``."""
    if unit in (WING, GRADING):
        return "plumbing"
    return layer_of(unit)


#: what a unit of each kind may import, seen a unit at a time
UNIT_MAY_IMPORT = {"plumbing": {"plumbing"}, "lesson": {"plumbing", "lesson"},
                   "notebook": {"plumbing", "lesson", "notebook"}, "face": {"plumbing", "lesson", "notebook", "face"}}


def _notebook_of(module: str) -> str | None:
    """The notebook a per-notebook module belongs to, or the earliest one a lesson unit's docstring
    names (a package's own docstring for all its modules); ``None`` for plumbing and faces."""
    parts = module.split(".")
    if layer_of(module) == "notebook":
        return SLUGS.get(parts[2]) if len(parts) >= 3 else None
    if _unit_layer(unit_of(module)) != "lesson":
        return None
    doc = ast.get_docstring(_tree(modules()[unit_of(module)])) or ""
    named = [NOTEBOOKS.index(n) for n in re.findall(r"``(\d\d_\w+)``", doc) if n in NOTEBOOKS]
    return NOTEBOOKS[min(named)] if named else None


def stage_of(module: str) -> int | None:
    """Where a lesson unit or a per-notebook module sits in the series: the index of its notebook
    (:func:`_notebook_of`) in ``tools/series.py``, the notebooks up to :data:`ONE_HEAD` counting as one
    stage; ``None`` for plumbing, faces and a lesson naming no notebook (another check names that)."""
    name = _notebook_of(module)
    return None if name is None else max(NOTEBOOKS.index(name), NOTEBOOKS.index(ONE_HEAD))


def check_packages() -> list:
    """Seen a top-level unit at a time: no import cycle among units; the plumbing (``render``,
    ``grading``) imports only plumbing; a lesson unit only plumbing and lessons; nothing below a face
    imports one; and the series' order: a lesson unit, or a notebook's module, imports no lesson of
    a later stage (:func:`stage_of`)."""
    mods, problems, units = modules(), [], {}
    for module, edges in import_graph().items():
        source = unit_of(module)
        for line, target in edges:
            goal = unit_of(target)
            if goal in (source, "helpers"):
                continue
            units.setdefault(source, []).append((line, goal))
            a, b = _unit_layer(source), _unit_layer(goal)
            where = f"{_rel(mods[module])}:{line}"
            if b not in UNIT_MAY_IMPORT[a]:
                problems.append(f"{where}: the {a} unit {source} imports {goal}, a {b} unit (plumbing imports only "
                                "plumbing, lessons only lessons and plumbing, and only helpers and the faces "
                                "import a face)")
            elif b == "lesson" and None not in (stage_of(module), stage_of(goal)) \
                    and stage_of(goal) > stage_of(module):
                problems.append(f"{where}: {module} ({_notebook_of(module)}) imports {goal}, which the series "
                                f"teaches later ({_notebook_of(goal)}); a notebook builds on earlier ones only")
    for comp in _cycles(units):
        problems.append(f"{_rel(mods[comp[0]])}: import cycle among the top-level units {' → '.join(comp)}")
    return list(dict.fromkeys(problems))   # two modules of one unit on one line name the same import


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _module_names(path: Path) -> dict:
    """``{name: helpers module}`` for every name an import in ``path`` binds to a helpers module
    (``import helpers.a`` binds ``helpers``; ``import helpers.a as b``, ``from .x import y`` with
    ``y`` a module, bind the module itself)."""
    module, known, is_package = module_name(path), modules(), path.name == "__init__.py"
    bound = {}
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "helpers":
                    bound[alias.asname or "helpers"] = alias.name if alias.asname else "helpers"
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            target = _resolve(node, module, is_package)
            for alias in node.names:
                if f"{target}.{alias.name}" in known:
                    bound[alias.asname or alias.name] = f"{target}.{alias.name}"
    return bound


def check_private_names() -> list:
    """No module uses a private name (``_x``, not a dunder) of another top-level unit: neither
    ``from a import _x`` nor ``a._x`` on an imported module (a package's modules share their private
    names; what another unit needs gets a public name)."""
    mods, problems = modules(), []
    for module, path in mods.items():
        own, tree = unit_of(module), _tree(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                target = _resolve(node, module, path.name == "__init__.py")
                for alias in node.names:
                    if target.startswith("helpers") and _private(alias.name) and unit_of(target) != own:
                        problems.append(f"{_rel(path)}:{node.lineno}: imports {alias.name}, a private name of "
                                        f"{target} (another unit's; give it a public name there)")
        bound = _module_names(path)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or isinstance(getattr(node, "ctx", None), ast.Del):
                continue
            chain, root = [], node
            while isinstance(root, ast.Attribute):
                chain.append(root.attr)
                root = root.value
            if not isinstance(root, ast.Name) or root.id not in bound:
                continue
            current = bound[root.id]
            for attr in reversed(chain):
                if _private(attr):
                    if unit_of(current) != own:
                        problems.append(f"{_rel(path)}:{node.lineno}: uses {current}.{attr}, a private name of "
                                        "another unit (give it a public name there)")
                    break
                if f"{current}.{attr}" not in mods:
                    break
                current = f"{current}.{attr}"
    return sorted(set(problems))


def check_notebook_modules() -> list:
    """``helpers/K/<slug>.py`` for every notebook and kind, nothing else there, each docstring
    starting with ````NN_slug````; each imports per-notebook modules of its own or an earlier notebook only."""
    problems = []
    for kind in KINDS:
        folder = HELPERS / kind
        have = {p.stem for p in folder.glob("*.py") if p.name != "__init__.py"}
        for extra in sorted(have - set(SLUGS)):
            problems.append(f"helpers/{kind}/{extra}.py: not named after a notebook of tools/series.py "
                            f"(modules here are <slug>.py, one of {sorted(SLUGS)})")
        for missing in sorted(set(SLUGS) - have):
            problems.append(f"helpers/{kind}/{missing}.py: missing (every notebook has one; "
                            f"python -m tools.notebooks.pairs new writes a stub)")
        for stem in sorted(have & set(SLUGS)):
            path = folder / f"{stem}.py"
            doc = ast.get_docstring(_tree(path)) or ""
            if not doc.startswith(f"``{SLUGS[stem]}``"):
                problems.append(f"{_rel(path)}: docstring must start with ``{SLUGS[stem]}``, starts {doc[:40]!r}")
            for line, target in imports(path):
                parts = target.split(".")
                if len(parts) >= 3 and parts[0] == "helpers" and parts[1] in KINDS and parts[2] in SLUGS \
                        and NOTEBOOKS.index(SLUGS[parts[2]]) > NOTEBOOKS.index(SLUGS[stem]):
                    problems.append(f"{_rel(path)}:{line}: imports {target}, a later notebook's module (a notebook "
                                    f"builds on earlier ones; shared pieces go to helpers/render/ or a lesson module)")
    return problems


def _notebook_code(name: str) -> list:
    """The code cells of ``notebook_sources/NAME.md``, as text."""
    text = (ROOT / "notebook_sources" / f"{name}.md").read_text(encoding="utf-8")
    # a cell's MyST options (":tags: [remove-cell]" and the blank line after them, or a YAML block
    # between "---" lines when the metadata is nested, as the setup cell's) are not code
    return re.findall(r"```\{code-cell\}[^\n]*\n(?:---\n.*?\n---\n|(?::[\w-]+:[^\n]*\n)+\n)?(.*?)```", text,
                      flags=re.S)


def _widget_modules() -> dict:
    """``{factory name in helpers.widgets: the explorers module it builds from}``."""
    out = {}
    for node in _tree(HELPERS / "widgets.py").body:
        if isinstance(node, ast.FunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom) and (inner.module or "").startswith("explorers."):
                    out[node.name] = inner.module.split(".", 1)[1]
    return out


def _plots_modules() -> dict:
    """``{name in helpers.plots: the module it comes from}``."""
    out = {}
    for node in _tree(HELPERS / "plots.py").body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                out[alias.asname or alias.name] = _resolve(node, "helpers.plots", False)
    return out


def _exercise_keys(path: Path) -> list:
    keys = []
    for node in _tree(path).body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if isinstance(target, ast.Name) and target.id == "EXERCISES" and isinstance(node.value, ast.Dict):
            keys += [k.value for k in node.value.keys if isinstance(k, ast.Constant)]
    return keys


def check_pieces_in_their_notebook() -> list:
    """What notebook NN shows comes from NN's modules: its explorers from helpers/explorers/<slug>.py,
    its figures from helpers/figures/<slug>.py (or an earlier notebook's, shown again, or the generic
    panels of helpers/render/panels.py), its exercises "NN-i" from helpers/exercises/<slug>.py."""
    problems, widgets, plots = [], _widget_modules(), _plots_modules()
    owner = {key: path.stem for path in (HELPERS / "exercises").glob("*.py") for key in _exercise_keys(path)}
    for name in NOTEBOOKS:
        code = "\n".join(_notebook_code(name))
        where = f"notebook_sources/{name}.md"
        for factory in sorted(set(re.findall(r"helpers\.widgets\.(\w+)\(", code))):
            if widgets.get(factory) != slug(name):
                problems.append(f"{where}: helpers.widgets.{factory} builds from helpers/explorers/"
                                f"{widgets.get(factory)}.py, not helpers/explorers/{slug(name)}.py")
        shown = {f"helpers.figures.{slug(n)}" for n in NOTEBOOKS[:NOTEBOOKS.index(name) + 1]} | {f"{WING}.panels"}
        for builder in sorted(set(re.findall(r"helpers\.plots\.(\w+)\(", code))):
            source = plots.get(builder)
            if source not in shown:
                problems.append(f"{where}: helpers.plots.{builder} comes from {source}, not "
                                f"helpers/figures/{slug(name)}.py, an earlier notebook's figures or the generic "
                                "panels (helpers/render/panels.py)")
        for key in sorted(set(re.findall(r'helpers\.exercises\.check\("(\d\d-\d+)"', code))):
            if owner.get(key) != slug(name):
                found = f"helpers/exercises/{owner[key]}.py" if key in owner else "no module of helpers/exercises/"
                problems.append(f"{where}: exercise {key} is defined in {found}, not helpers/exercises/{slug(name)}.py")
    return problems


def _colour_names(node) -> list:
    """Named colours written as literals in ``node`` (a constant, or either branch of ``a if c else b``)."""
    if isinstance(node, ast.IfExp):
        return _colour_names(node.body) + _colour_names(node.orelse)
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.lower() in NAMED:
        return [node.value]
    return []


def check_colours() -> list:
    """No colour literal (``"#999999"``, or a named colour passed as a colour) outside the palette."""
    problems = []
    for module, path in modules().items():
        if module == f"{WING}.palette":
            continue
        for node in ast.walk(_tree(path)):
            found = []
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and HEX.match(node.value):
                found.append(node.value)
            if isinstance(node, ast.Call):
                found += [name for kw in node.keywords if kw.arg in COLOUR_KEYWORDS for name in _colour_names(kw.value)]
                func = node.func
                if isinstance(func, ast.Attribute) and func.attr in COLOUR_SETTERS and node.args:
                    found += _colour_names(node.args[0])
            for colour in found:
                problems.append(f"{_rel(path)}:{node.lineno}: colour literal {colour!r} (take it from "
                                "helpers/render/palette.py, adding a named role there if it is new)")
    return problems


def check_docstrings() -> list:
    """Every module, public function and public class of helpers has a docstring."""
    problems = []
    for path in modules().values():
        tree = _tree(path)
        if not ast.get_docstring(tree):
            problems.append(f"{_rel(path)}: no module docstring")
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                    and not node.name.startswith("_") and not ast.get_docstring(node):
                kind = "class" if isinstance(node, ast.ClassDef) else "function"
                problems.append(f"{_rel(path)}:{node.lineno}: public {kind} {node.name} has no docstring")
    return problems


def check_lessons_name_a_notebook() -> list:
    """Every lesson module (and lesson package) names, in its docstring, a notebook that teaches it."""
    problems = []
    for module, path in modules().items():
        if layer_of(module) != "lesson":
            continue
        doc = ast.get_docstring(_tree(path)) or ""
        if not any(f"``{n}``" in doc for n in NOTEBOOKS):
            problems.append(f"{_rel(path)}: a lesson module whose docstring names no notebook (``NN_slug``); "
                            "plumbing belongs in helpers/render/")
    return problems


def _is_module(dotted: str) -> bool:
    """Whether ``helpers.<dotted>`` (``circuit.sweep``) is a module or a package of helpers."""
    path = HELPERS.joinpath(*dotted.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _dotted(node) -> str | None:
    """``"circuit.sweep"`` for the expression ``helpers.circuit.sweep``; None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id == "helpers" and parts:
        return ".".join(reversed(parts))
    return None


def _module_aliases(node) -> list:
    """``(name, helpers.<module>)`` for each module that ``node`` binds to a name of its own:
    ``x = helpers.m``, ``a, b = helpers.m, helpers.n``, ``x: T = helpers.m``, ``(x := helpers.m)``,
    ``for x in (helpers.m, …)``, ``with helpers.m as x`` and the like."""
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr, ast.AugAssign)) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        pairs = []
        for target in targets:
            if isinstance(target, (ast.Tuple, ast.List)) and isinstance(node.value, (ast.Tuple, ast.List)) \
                    and len(target.elts) == len(node.value.elts):
                pairs += zip(target.elts, node.value.elts)
            else:
                pairs.append((target, node.value))
        values = pairs
    elif isinstance(node, (ast.For, ast.comprehension)):
        elts = node.iter.elts if isinstance(node.iter, (ast.Tuple, ast.List, ast.Set)) else [node.iter]
        values = [(node.target, v) for v in elts]
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        values = [(node.optional_vars, node.context_expr)]
    else:
        return []
    found = []
    for target, value in values:
        candidates = value.elts if isinstance(value, (ast.Tuple, ast.List, ast.Set)) else [value]
        for candidate in candidates:
            dotted = _dotted(candidate)
            if dotted and _is_module(dotted):
                found.append((ast.unparse(target), f"helpers.{dotted}"))
    return found


def check_notebook_import_style() -> list:
    """Notebook code imports ``helpers`` only as ``import helpers`` and calls ``helpers.module.name``."""
    problems = []
    for name in NOTEBOOKS:
        for cell in _notebook_code(name):
            # an IPython magic (%pip …) or shell line (!…) reads as `pass` at its indentation
            source = "\n".join(line[: len(line) - len(line.lstrip())] + "pass"
                                if line.lstrip().startswith(("%", "!")) else line for line in cell.splitlines())
            try:
                tree = ast.parse(source)
            except SyntaxError as exc:
                problems.append(f"notebook_sources/{name}.md: a code cell does not parse: {exc}")
                continue
            for node in ast.walk(tree):
                bad = None
                if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "helpers":
                    bad = f"from {node.module} import …"
                elif isinstance(node, ast.Import):
                    bad = next((f"import {a.name}" + (f" as {a.asname}" if a.asname else "") for a in node.names
                                if a.name.split(".")[0] == "helpers" and (a.name != "helpers" or a.asname)), None)
                elif _module_aliases(node):
                    bad = "; ".join(f"{target} = {module} (a module alias)"
                                    for target, module in _module_aliases(node))
                if bad:
                    problems.append(f"notebook_sources/{name}.md: `{bad}`; write helpers.module.name in full")
    return problems


def check_tests() -> list:
    """Tests in one shape: tests/notebooks/test_<slug>.py per notebook (docstring ``NN_slug``),
    tests/unit/ and tests/series/ of test_*.py, support code in tests/support/, no change to sys.path."""
    tests, problems = ROOT / "tests", []
    allowed = {"conftest.py", "nbval_sanitize.cfg", "unit", "notebooks", "series", "support", "__pycache__"}
    for entry in sorted(tests.iterdir()):
        if entry.name not in allowed:
            problems.append(f"tests/{entry.name}: tests live in tests/unit, tests/notebooks or tests/series; "
                            "support code in tests/support")
    have = {p.stem.removeprefix("test_") for p in (tests / "notebooks").glob("*.py")}
    for missing in sorted(set(SLUGS) - have):
        problems.append(f"tests/notebooks/test_{missing}.py: missing (what {SLUGS[missing]} shows is tested there)")
    for extra in sorted(have - set(SLUGS)):
        problems.append(f"tests/notebooks/test_{extra}.py: not named after a notebook of tools/series.py")
    for stem in sorted(have & set(SLUGS)):
        path = tests / "notebooks" / f"test_{stem}.py"
        if not (ast.get_docstring(_tree(path)) or "").startswith(f"``{SLUGS[stem]}``"):
            problems.append(f"{_rel(path)}: docstring must start with ``{SLUGS[stem]}``")
    for folder in ("unit", "series"):
        for path in sorted((tests / folder).glob("*.py")):
            if not path.name.startswith("test_"):
                problems.append(f"{_rel(path)}: only test_*.py here; support code goes to tests/support/")
    for path in sorted((tests / "support").glob("test_*.py")):
        problems.append(f"{_rel(path)}: a test file in tests/support/ (support code only)")
    for path in [*tests.rglob("*.py"), ROOT / "conftest.py"]:
        for line, how in _sys_path_mutations(_tree(path)):
            problems.append(f"{_rel(path)}:{line}: {how} changes sys.path (tests/support and the repository root, "
                            "with its package tools, are on pytest's pythonpath, pyproject.toml; a test that needs "
                            "another folder runs a subprocess)")
    return problems


def check_tools() -> list:
    """tools/ is one package, each script run as ``python -m tools.<group>.<module>`` from the repository
    root: every folder of it that holds Python is a package (``__init__.py``), and no script changes
    sys.path (the scripts import each other as ``tools.…``)."""
    tools, problems = ROOT / "tools", []
    scripts = sorted(p for p in tools.rglob("*.py") if "__pycache__" not in p.parts)
    folders = {folder for path in scripts for folder in path.parents if folder == tools or tools in folder.parents}
    for folder in sorted(folders):
        if not (folder / "__init__.py").exists():
            problems.append(f"{_rel(folder)}/: holds Python but is no package (add an __init__.py whose docstring "
                            "says what the folder holds)")
    for path in scripts:
        for line, how in _sys_path_mutations(_tree(path)):
            problems.append(f"{_rel(path)}:{line}: {how} changes sys.path (run it as python -m tools.… from the "
                            "repository root and import the others as tools.…)")
    return problems


#: list methods that change a list in place
_LIST_MUTATORS = {"insert", "append", "extend", "remove", "pop", "clear", "sort", "reverse",
                  "__setitem__", "__delitem__", "__iadd__"}


def _sys_path_mutations(tree) -> list:
    """``(line, what)`` for every change to ``sys.path`` in ``tree``: a call of one of its list
    methods, an assignment to it or to a slice or item of it (``sys.path[:0] = …``), ``del``,
    ``from sys import path``, ``site.addsitedir`` and pytest's ``monkeypatch.syspath_prepend`` or
    ``monkeypatch.setattr(sys, "path", …)`` — none has a reason in a test (decided: no exception,
    not even through a support helper, so the import path of every test is the one pyproject.toml names)."""
    sys_names = {"sys"} | {a.asname for n in ast.walk(tree) if isinstance(n, ast.Import)
                           for a in n.names if a.name == "sys" and a.asname}

    def is_sys_path(node) -> bool:
        while isinstance(node, ast.Subscript):
            node = node.value
        return isinstance(node, ast.Attribute) and node.attr == "path" \
            and isinstance(node.value, ast.Name) and node.value.id in sys_names

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "sys" and any(a.name == "path" for a in node.names):
            found.append((node.lineno, "from sys import path"))
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            found += [(node.lineno, ast.unparse(t)) for t in targets if is_sys_path(t)]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            func, args = node.func, node.args
            if func.attr in _LIST_MUTATORS and is_sys_path(func.value):
                found.append((node.lineno, f"{ast.unparse(func)}(…)"))
            elif func.attr in ("addsitedir", "syspath_prepend"):
                found.append((node.lineno, f"{ast.unparse(func)}(…)"))
            elif func.attr == "setattr" and (
                    (len(args) >= 2 and isinstance(args[0], ast.Name) and args[0].id in sys_names
                     and isinstance(args[1], ast.Constant) and args[1].value == "path")
                    or (args and isinstance(args[0], ast.Constant) and args[0].value == "sys.path")):
                found.append((node.lineno, f"{ast.unparse(func)}(sys, \"path\", …)"))
    return found
#: the longest notebook code line and code cell (TeachOpenCADD's checklist: long cells are
#: refactor candidates); a cell that must be longer says why in a comment starting with the marker
MAX_CODE_LINE = 100
MAX_CELL_LINES = 15
LONG_CELL_MARKER = "# long cell:"


def check_code_cells(sources: dict | None = None) -> list:
    """Every notebook code line ≤ :data:`MAX_CODE_LINE` characters and every code cell ≤
    :data:`MAX_CELL_LINES` lines, unless the cell carries :data:`LONG_CELL_MARKER` and its reason.
    The generated setup cells (``remove-cell``) are left out. ``sources``: ``{name: markdown}``
    to check instead of the notebook sources (a test passes an offender)."""
    problems = []
    names = sources or {n: (ROOT / "notebook_sources" / f"{n}.md").read_text(encoding="utf-8") for n in NOTEBOOKS}
    for name, text in names.items():
        cells = re.findall(r"```\{code-cell\}[^\n]*\n(---\n.*?\n---\n|(?::[\w-]+:[^\n]*\n)*)\n?(.*?)```", text,
                           flags=re.S)
        for number, (options, cell) in enumerate(cells, 1):
            if "remove-cell" in options or LONG_CELL_MARKER in cell:
                continue
            lines = cell.rstrip("\n").splitlines()
            if len(lines) > MAX_CELL_LINES:
                problems.append(f"notebook_sources/{name}.md: code cell {number} has {len(lines)} lines (at most "
                                f"{MAX_CELL_LINES}: move the work into a helpers function, or say why in "
                                f"'{LONG_CELL_MARKER} …')")
            for line in lines:
                if len(line) > MAX_CODE_LINE:
                    problems.append(f"notebook_sources/{name}.md: code cell {number} has a line of {len(line)} "
                                    f"characters (at most {MAX_CODE_LINE}): {line[:40]!r}…")
    return problems


CHECKS = (check_graph, check_packages, check_private_names, check_notebook_modules, check_pieces_in_their_notebook,
          check_colours, check_docstrings, check_lessons_name_a_notebook, check_notebook_import_style, check_tests,
          check_tools, check_code_cells)


def problems() -> list:
    return [line for check in CHECKS for line in check()]


def graph_report() -> str:
    """The import graph by layer: modules, edges, upward edges, cycles."""
    graph = import_graph()
    lines = []
    for layer in LAYERS:
        mods = sorted(m for m in graph if layer_of(m) == layer)
        lines.append(f"{layer:8s} {len(mods):3d} modules: {', '.join(m.removeprefix('helpers.') or 'helpers' for m in mods)}")
    edges = [(m, t) for m, es in graph.items() for _, t in es]
    counts = {}
    for m, t in edges:
        key = f"{layer_of(m)} → {layer_of(t)}"
        counts[key] = counts.get(key, 0) + 1
    lines.append(f"{len(edges)} imports between helpers modules: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    found, units = check_graph(), check_packages()
    lines.append(f"imports a layer may not make (up a layer, at a face, between the wing and the lessons): "
                 f"{sum('cycle' not in p for p in found)}; cycles: {sum('cycle' in p for p in found)}")
    lines.append(f"{len({unit_of(m) for m in graph})} top-level units: imports up a layer or the series: "
                 f"{sum('cycle' not in p for p in units)}; cycles: {sum('cycle' in p for p in units)}")
    return "\n".join(lines + found + units)


def main(argv) -> int:
    if argv[:1] == ["cells"]:   # the one check on its own, for a quick look while splitting a cell
        found = check_code_cells()
        print("\n".join(found + [f"code cells: {len(found)} problem(s)"]))
        return 1 if found else 0
    if argv[:1] == ["graph"]:
        print(graph_report())
        return 1 if check_graph() or check_packages() else 0
    found = problems()
    for line in found:
        print(line)
    print(f"layout: {len(found)} problem(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
