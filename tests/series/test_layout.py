"""The layout rule (tools/checks/layout.py, CONTRIBUTING "where things are"): one test per check, each
failing with one line per problem that names the file; and proof that each check can fail."""
import shutil

import pytest

from tools import ROOT as CHECKOUT
from tools.checks import layout


@pytest.mark.parametrize("check", layout.CHECKS, ids=lambda check: check.__name__.removeprefix("check_"))
def test_the_tree_follows_the_layout_rule(check):
    problems = check()
    assert problems == [], f"{check.__doc__.strip()}\n" + "\n".join(problems)


def test_every_layer_is_populated_and_the_graph_reads_relative_imports():
    """So the graph check sees real edges: lessons use the wing's base, explorers use the wing."""
    graph = layout.import_graph()
    layers = {layout.layer_of(m) for m in graph}
    assert layers == set(layout.LAYERS)
    assert any(t == "helpers.render.validation" for _, t in graph["helpers.layer"])
    assert any(t == "helpers.render.explorer" for _, t in graph["helpers.explorers.qkv"])
    assert any(t == "helpers.figures.learning_to_attend" for _, t in graph["helpers.explorers.learning_to_attend"])


# ---- each check fails on a tree that breaks its rule ---------------------------------------------
@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A copy of helpers/, tests/ and the notebook sources (no font, no stored notebooks) that the
    checks read instead of the checkout."""
    root = layout.ROOT
    for name in ("helpers", "tests", "notebook_sources"):
        shutil.copytree(root / name, tmp_path / name, ignore=shutil.ignore_patterns("*.otf", "__pycache__"))
    (tmp_path / "tools").mkdir()
    shutil.copy(root / "conftest.py", tmp_path / "conftest.py")
    monkeypatch.setattr(layout, "ROOT", tmp_path)
    monkeypatch.setattr(layout, "HELPERS", tmp_path / "helpers")
    return tmp_path


def append(path, text):
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_a_lesson_importing_an_explorer_or_a_face_or_a_cycle_is_named(tree):
    append(tree / "helpers" / "attention.py", "\nfrom .explorers import qkv  # noqa\nfrom . import plots  # noqa\n")
    append(tree / "helpers" / "config.py", "\nfrom . import cost  # noqa\n")  # cost imports config
    found = layout.check_graph()
    assert any(p.startswith("helpers/attention.py:") and "helpers.explorers.qkv, which is higher" in p for p in found)
    assert any(p.startswith("helpers/attention.py:") and "imports the face helpers.plots" in p for p in found)
    assert any("import cycle" in p and "helpers.config" in p and "helpers.cost" in p for p in found)


def test_the_wing_importing_a_lesson_a_lesson_importing_the_drawing_wing_are_named(tree):
    append(tree / "helpers" / "render" / "png.py", "\nfrom ..heads.stats import percentile  # noqa\n")
    append(tree / "helpers" / "reading.py", "\nfrom .render import panels  # noqa\n")
    found = layout.check_graph()
    assert any(p.startswith("helpers/render/png.py:") and "a wing module imports helpers.heads.stats, which is "
               "higher (lesson)" in p for p in found)
    assert any(p.startswith("helpers/reading.py:") and "a lesson module imports helpers.render.panels, of the wing "
               "layer (lessons stand on the base only" in p for p in found)


def test_the_package_graph_names_plumbing_above_itself_a_later_lesson_and_a_cycle_of_packages(tree):
    """The checks over top-level units fail on what they are for (on int before 12–13's figures left
    the wing they named helpers/render/panels.py and real_model/forward_pass.py)."""
    append(tree / "helpers" / "render" / "panels.py", "\nfrom ..heads.stats import percentile  # noqa\n")
    append(tree / "helpers" / "real_model" / "generation.py", "\nfrom ..circuit import task  # noqa\n")
    append(tree / "helpers" / "figures" / "weighted_average.py", "\nfrom .. import training  # noqa\n")
    found = layout.check_packages()
    assert any(p.startswith("helpers/render/panels.py:") and "the plumbing unit helpers.render imports helpers.heads, "
               "a lesson unit" in p for p in found)
    assert any(p.startswith("helpers/real_model/generation.py:") and "helpers.real_model.generation (09_real_model) "
               "imports helpers.circuit, which the series teaches later (11_learning_a_circuit)" in p for p in found)
    assert any(p.startswith("helpers/figures/weighted_average.py:") and "imports helpers.training, which the series "
               "teaches later (10_learning_to_attend)" in p for p in found)
    cycles = [p for p in found if "import cycle among the top-level units" in p]
    assert len(cycles) == 1 and "helpers.heads" in cycles[0] and "helpers.render" in cycles[0], cycles


def test_the_first_stage_shares_its_modules_and_the_stages_follow_the_series():
    assert layout.stage_of("helpers.weighting") == layout.stage_of("helpers.attention") == layout.stage_of("helpers.layer")
    assert layout.stage_of("helpers.real_model.forward_pass") < layout.stage_of("helpers.interventions") \
        == layout.stage_of("helpers.circuit.model") < layout.stage_of("helpers.heads.patching") \
        == layout.stage_of("helpers.figures.heads_at_work") < layout.stage_of("helpers.explorers.induction_circuit")
    assert layout.stage_of("helpers.render.panels") is None and layout.stage_of("helpers.plots") is None


def test_a_private_name_of_another_unit_is_named_but_one_of_its_own_unit_is_not(tree):
    append(tree / "helpers" / "heads" / "stats.py",
           "\nfrom ..real_model.model import _ids  # noqa\nfrom ..real_model import load  # noqa\n"
           "from .. import attention  # noqa\nimport helpers.real_model as rm  # noqa\nimport helpers  # noqa\n"
           "from .patching import _layer_inputs  # noqa\n\n\ndef _uses():\n    return (load._load_model, attention.__name__, "
           "rm.model._require, helpers.layer._theta, _layer_inputs)\n")
    found = [p.split(": ", 1)[1] for p in layout.check_private_names() if p.startswith("helpers/heads/stats.py:")]
    assert sorted(found) == sorted([
        "imports _ids, a private name of helpers.real_model.model (another unit's; give it a public name there)",
        "uses helpers.real_model.load._load_model, a private name of another unit (give it a public name there)",
        "uses helpers.real_model.model._require, a private name of another unit (give it a public name there)",
        "uses helpers.layer._theta, a private name of another unit (give it a public name there)"]), found


def test_a_module_named_after_no_notebook_a_missing_one_and_a_wrong_docstring_are_named(tree):
    (tree / "helpers" / "figures" / "training.py").write_text('"""Figures of 10."""\n', encoding="utf-8")
    (tree / "helpers" / "explorers" / "qkv.py").unlink()
    path = tree / "helpers" / "exercises" / "sqrt_d.py"
    path.write_text(path.read_text(encoding="utf-8").replace("``04_sqrt_d``", "``04``", 1), encoding="utf-8")
    append(tree / "helpers" / "figures" / "real_model.py", "\nfrom .heads_at_work import null_figure  # noqa\n"
                                                           "from .reading_attention import sink_figure  # noqa\n")
    found = layout.check_notebook_modules()
    assert any(p.startswith("helpers/figures/training.py: not named after a notebook") for p in found)
    assert any(p.startswith("helpers/explorers/qkv.py: missing") for p in found)
    assert any(p.startswith("helpers/exercises/sqrt_d.py: docstring must start with ``04_sqrt_d``") for p in found)
    mine = [p.split(": ", 1)[1] for p in found if p.startswith("helpers/figures/real_model.py:")]
    assert mine == ["imports helpers.figures.heads_at_work, a later notebook's module (a notebook builds on earlier "
                    "ones; shared pieces go to helpers/render/ or a lesson module)"]   # 08's, earlier, may be used


def test_a_piece_shown_by_another_notebook_is_named(tree):
    path = tree / "notebook_sources" / "02_qkv.md"
    append(path, '\n```{code-cell} ipython3\nhelpers.display.show(helpers.plots.sink_figure(1, 2, 3, 4))\n'
                 'helpers.widgets.cost_explorer()\nhelpers.exercises.check("03-1", None)\n```\n')
    found = layout.check_pieces_in_their_notebook()
    assert any("helpers.plots.sink_figure comes from helpers.figures.reading_attention" in p for p in found)
    assert any("helpers.widgets.cost_explorer builds from helpers/explorers/cost_of_length.py" in p for p in found)
    assert any("exercise 03-1 is defined in helpers/exercises/hand_calculation.py" in p for p in found)


def test_colour_literals_outside_the_palette_are_named(tree):
    append(tree / "helpers" / "figures" / "qkv.py",
           '\n\ndef _extra(ax, flag):\n    ax.plot([0], [0], color="#123456")\n'
           '    ax.text(0, 0, "x", color="white" if flag else "black")\n    ax.patch.set_facecolor("grey")\n')
    found = layout.check_colours()
    assert sorted(p.split(": ", 1)[1].split(" (")[0] for p in found if p.startswith("helpers/figures/qkv.py")) == [
        "colour literal '#123456'", "colour literal 'black'", "colour literal 'grey'", "colour literal 'white'"]


def test_missing_docstrings_and_a_lesson_naming_no_notebook_are_named(tree):
    append(tree / "helpers" / "tiled.py", "\n\ndef public_helper():\n    return 1\n")
    (tree / "helpers" / "plumbing.py").write_text('"""Some plumbing."""\n', encoding="utf-8")
    assert any("helpers/tiled.py:" in p and "public function public_helper has no docstring" in p
               for p in layout.check_docstrings())
    assert any(p.startswith("helpers/plumbing.py: a lesson module whose docstring names no notebook")
               for p in layout.check_lessons_name_a_notebook())


@pytest.mark.parametrize("line", ["from helpers.display import show", "from helpers import heads",
                                  "import helpers.display", "import helpers as h", "tr = helpers.training"])
def test_every_other_import_style_in_a_notebook_is_named(tree, line):
    append(tree / "notebook_sources" / "05_causal_mask.md", f"\n```{{code-cell}} ipython3\n{line}\n```\n")
    found = layout.check_notebook_import_style()
    assert len(found) == 1 and found[0].startswith("notebook_sources/05_causal_mask.md:"), found


#: every way a cell can bind a module to a name of its own (one tree copy checks them all)
MODULE_ALIASES = ["sweep = helpers.circuit.sweep", "sweep, scores = helpers.circuit.sweep, helpers.circuit.scores",
                  "a = b = helpers.circuit", "mods: list = [helpers.training, helpers.layer]",
                  "print(m := helpers.circuit.task)", "for m in (helpers.layer, helpers.attention):\n    pass",
                  "with helpers.circuit.sweep as s:\n    pass"]


def test_a_module_alias_in_any_form_is_named_but_a_name_for_a_function_is_not(tree):
    cells = [*MODULE_ALIASES, "rel = helpers.training.relative_error"]
    append(tree / "notebook_sources" / "05_causal_mask.md",
           "".join(f"\n```{{code-cell}} ipython3\n{cell}\n```\n" for cell in cells))
    found = [p for p in layout.check_notebook_import_style() if p.startswith("notebook_sources/05_causal_mask.md:")]
    assert len(found) == len(MODULE_ALIASES) and all("(a module alias)" in p for p in found), found
    assert not any("relative_error" in p for p in found)


#: every way a test can change sys.path (one tree copy checks them all, one function each)
SYS_PATH_CHANGES = ["sys.path.insert(0, 'tools')", "sys.path[:0] = ['tools']", "sys.path.append('tools')",
                    "sys.path.extend(['tools'])", "sys.path = ['tools'] + sys.path", "sys.path += ['tools']",
                    "sys.path[0] = 'tools'", "del sys.path[0]", "monkeypatch.syspath_prepend('tools')",
                    "monkeypatch.setattr(sys, 'path', ['tools'])", "monkeypatch.setattr('sys.path', ['tools'])",
                    "site.addsitedir('tools')", "system.path.remove('tools')"]


def test_any_change_to_sys_path_in_a_test_is_named(tree):
    body = "".join(f"\n\ndef test_{i}(monkeypatch):\n    {line}\n" for i, line in enumerate(SYS_PATH_CHANGES))
    append(tree / "tests" / "unit" / "test_layer.py", "\nimport site\nimport sys\nimport sys as system\n"
                                                      "from sys import path\n" + body)
    found = [p for p in layout.check_tests() if p.startswith("tests/unit/test_layer.py:")]
    assert len(found) == len(SYS_PATH_CHANGES) + 1 and all("changes sys.path" in p for p in found), found
    assert any("from sys import path" in p for p in found)


def test_a_script_in_tools_changing_sys_path_and_a_folder_that_is_no_package_are_named(tree):
    """tools/ runs as one package (python -m tools.<group>.<module>): the checkout's own tools pass,
    a script that puts a folder on sys.path, in any of the ways a test could, and a folder of
    scripts without __init__.py are named."""
    shutil.copytree(CHECKOUT / "tools", tree / "tools", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.wasm", "*.otf"))
    assert layout.check_tools() == []
    body = "".join(f"\n\ndef change_{i}(monkeypatch):\n    {line}\n" for i, line in enumerate(SYS_PATH_CHANGES))
    (tree / "tools" / "site" / "extra.py").write_text("import site\nimport sys\nimport sys as system\n"
                                                      "from sys import path\n" + body, encoding="utf-8")
    (tree / "tools" / "loose").mkdir()
    (tree / "tools" / "loose" / "script.py").write_text('"""A script in a folder that is no package."""\n',
                                                         encoding="utf-8")
    found = layout.check_tools()
    changes = [p for p in found if p.startswith("tools/site/extra.py:")]
    assert len(changes) == len(SYS_PATH_CHANGES) + 1 and all("changes sys.path" in p for p in changes), found
    assert "tools/loose/: holds Python but is no package (add an __init__.py whose docstring says what the " \
           "folder holds)" in found


def test_tests_out_of_shape_are_named(tree):
    (tree / "tests" / "test_loose.py").write_text('"""A test at the old place."""\n', encoding="utf-8")
    (tree / "tests" / "notebooks" / "test_real_model.py").unlink()
    (tree / "tests" / "unit" / "helper.py").write_text("X = 1\n", encoding="utf-8")
    append(tree / "tests" / "unit" / "test_layer.py", "\nimport sys\nsys.path.insert(0, 'tools')\n")
    found = layout.check_tests()
    assert "tests/test_loose.py: tests live in tests/unit, tests/notebooks or tests/series; support code in " \
           "tests/support" in found
    assert any(p.startswith("tests/notebooks/test_real_model.py: missing") for p in found)
    assert any(p.startswith("tests/unit/helper.py: only test_*.py here") for p in found)
    assert any(p.startswith("tests/unit/test_layer.py:") and "sys.path.insert(…) changes sys.path" in p
               for p in found)


def test_a_long_code_line_and_a_long_cell_are_named_and_the_marker_lets_a_cell_through():
    short = "```{code-cell} ipython3\nx = 1\n```\n"
    long_line = "```{code-cell} ipython3\n" + "y = " + "1 + " * 30 + "1\n```\n"
    long_cell = "```{code-cell} ipython3\n" + "z = 1\n" * 16 + "```\n"
    marked = "```{code-cell} ipython3\n# long cell: one table built in place\n" + "z = 1\n" * 16 + "```\n"
    setup = "```{code-cell} ipython3\n:tags: [remove-cell]\n\n" + "s = 1\n" * 40 + "```\n"
    found = layout.check_code_cells({"99_x": short + long_line + long_cell + marked + setup})
    assert len(found) == 2
    assert "code cell 2 has a line of 125 characters (at most 100)" in found[0]
    assert "code cell 3 has 16 lines (at most 15" in found[1]
    # the setup cell's nested metadata (collapsed in JupyterLab and Colab) is a YAML block, not code
    setup_yaml = ("```{code-cell} ipython3\n---\ntags: [remove-cell]\ncellView: form\njupyter:\n"
                  "  source_hidden: true\n---\n" + "s = 1\n" * 40 + "```\n")
    assert layout.check_code_cells({"99_x": short + marked + setup + setup_yaml}) == []
