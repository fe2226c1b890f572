"""The module maps in prose agree with the tree (tests/support/module_maps.py): the docstrings of
``helpers``, ``helpers.render`` and ``helpers.grading`` and the names in ``pyproject.toml``. A failure
names, per map, what it lacks and what it names that is not there; and each kind of drift is shown
to be named."""
import shutil

import module_maps
import pytest

from tools.checks import layout


def test_the_module_maps_agree_with_the_tree():
    problems = module_maps.problems(layout.ROOT, layout.BASE)
    assert problems == [], "update the map (or the tree):\n" + "\n".join(problems)


@pytest.fixture
def tree(tmp_path):
    """A copy of helpers/ (no font) and pyproject.toml."""
    shutil.copytree(layout.ROOT / "helpers", tmp_path / "helpers",
                    ignore=shutil.ignore_patterns("*.otf", "*.npz", "__pycache__"))
    shutil.copy(layout.ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _replace(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_new_module_a_gone_module_and_a_new_part_are_named(tree):
    (tree / "helpers" / "newidea.py").write_text('"""A new idea (``05_causal_mask``)."""\n', encoding="utf-8")
    (tree / "helpers" / "training" / "schedule.py").write_text('"""A part (``10_learning_to_attend``)."""\n',
                                                                encoding="utf-8")
    (tree / "helpers" / "render" / "text_stamps.py").unlink()
    (tree / "helpers" / "grading" / "hints.py").write_text('"""Hints."""\n', encoding="utf-8")
    package = tree / "helpers" / "stats"
    package.mkdir()
    (package / "__init__.py").write_text('"""Statistics (``12_heads_at_work``)."""\n', encoding="utf-8")
    (package / "nulls.py").write_text('"""Nulls."""\n', encoding="utf-8")
    found = module_maps.problems(tree, layout.BASE)
    expected = [
        "helpers/__init__.py: the module map does not name helpers.newidea (in the tree)",
        "helpers/__init__.py: the module map does not name helpers.stats (in the tree)",
        "helpers/__init__.py: the parts listed for helpers.training lack schedule (in the tree)",
        "helpers/__init__.py: the module map does not list the parts of the package helpers.stats: write "
        "``helpers.stats`` (a package: nulls)",
        "helpers/render/__init__.py: the module map names helpers.render.text_stamps, which is not in the tree",
        "helpers/grading/__init__.py: the module map does not name helpers.grading.hints (in the tree)",
        "helpers/grading/__init__.py: MODULES lacks hints (in the tree)",
    ]
    assert [p for p in expected if p not in found] == [] and len(found) == len(expected), found


def test_a_stale_base_list_and_stale_pyproject_names_are_named(tree):
    _replace(tree / "helpers" / "render" / "__init__.py", "fonts, threads)", "fonts, threads, originals)")
    _replace(tree / "pyproject.toml", "(helpers.render.threads)", "(helpers.threads)")
    _replace(tree / "pyproject.toml", '"helpers/render/fonts/OFL.txt"', '"helpers/fonts/OFL.txt"')
    _replace(tree / "pyproject.toml", '"helpers.cli:main"', '"helpers.cli:run"')
    found = module_maps.problems(tree, layout.BASE)
    assert "helpers/render/__init__.py: the base list names helpers.render.originals, which is not in " \
           "tools/checks/layout.py BASE" in found
    assert any("helpers.threads is neither a module of the tree nor a name helpers defines" in p for p in found)
    assert any("helpers/fonts/OFL.txt is not in the tree" in p for p in found)
    assert any("helpers.cli:run is neither a module of the tree nor a name helpers.cli defines" in p for p in found)
    assert len(found) == 4, found
