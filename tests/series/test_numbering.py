"""One numbering: a notebook is "笔记本 NN"; the article's series is "文章第 N 篇".

The article this series follows is one of a numbered series of articles, and it points at its
siblings as "第 06 篇" (GQA), "第 09 篇" (RoPE), "第 12 篇" (FlashAttention, sinks). Notebooks 06, 09
and 12 teach other things, so a notebook written "第 06 篇" collides with the article's pointer.

The rule checked here: every "第 <number> 篇" (a number in digits or Chinese numerals, or a range or
list of them: "第 01–08 篇", "第 12、13 篇") is preceded by "文章", which makes it an article;
a notebook is written "笔记本 NN" instead. Unnumbered words ("本篇", "下一篇", "每篇") are not
numbers and stay. The index (00_index) states the rule once for the reader.
"""
import ast
import json
import re

import pytest
from paths import ROOT

from tools.series import NOTEBOOKS

_NUMBER = r"[0-9〇一二三四五六七八九十]+"
#: "第 N 篇", "第 N–M 篇", "第 N、M 篇"; group 1 is what stands right before it
NUMBERED = re.compile(rf"(.{{0,2}})第\s*{_NUMBER}(?:\s*[–—\-~、,，和至到]\s*{_NUMBER})*\s*篇")


def offenders(text):
    """Each "第 N 篇" in ``text`` that is not preceded by "文章", with a little context."""
    found = []
    for match in NUMBERED.finditer(text):
        if not match.group(1).endswith("文章"):
            start = match.start()
            found.append(text[max(0, start - 8):match.end() + 8].replace("\n", " "))
    return found


def stored_output_text(path):
    """The text a reader sees in a stored notebook's outputs (streams, text/plain, text/html)."""
    texts = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        for out in cell.get("outputs", []):
            texts.append("".join(out.get("text", "")))
            for kind in ("text/plain", "text/html", "text/markdown"):
                texts.append("".join(out.get("data", {}).get(kind, "")))
    return "\n".join(texts)


def python_strings(path):
    """Every string constant in a Python file: exercise feedback, figure titles, table headers."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return "\n".join(node.value for node in ast.walk(tree)
                     if isinstance(node, ast.Constant) and isinstance(node.value, str))


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_a_notebook_never_calls_another_notebook_di_n_pian(name):
    source = ROOT / "notebook_sources" / f"{name}.md"
    stored = ROOT / "notebooks" / f"{name}.ipynb"
    found = offenders(source.read_text(encoding="utf-8")) + offenders(stored_output_text(stored))
    assert not found, (f"{name}: write a notebook as “笔记本 NN” and an article as “文章第 N 篇”; "
                       f"{len(found)} bare “第 N 篇”: " + " | ".join(found))


def test_readme_contributing_and_helpers_strings_use_the_one_numbering():
    texts = {p.relative_to(ROOT): p.read_text(encoding="utf-8")
             for p in (ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "notebook_sources" / "_template.md")}
    texts.update({p.relative_to(ROOT): python_strings(p) for p in sorted((ROOT / "helpers").rglob("*.py"))})
    texts.update({p.relative_to(ROOT): python_strings(p) for p in sorted((ROOT / "tools").rglob("*.py"))})
    found = {str(path): hits for path, text in texts.items() if (hits := offenders(text))}
    assert not found, f"bare “第 N 篇” (write “笔记本 NN” or “文章第 N 篇”): {found}"


def test_the_index_states_the_numbering_once():
    index = (ROOT / "notebook_sources" / "00_index.md").read_text(encoding="utf-8")
    assert index.count("文章第 N 篇") == 1 and "笔记本 NN" in index


@pytest.mark.parametrize("text, bad", [
    ("见第 06 篇", True), ("见第06篇", True), ("第 01–08 篇回顾", True), ("第 12、13 篇", True),
    ("第十二篇", True), ("文章第 06 篇讲 GQA", False), ("文章第 12、13 篇", False),
    ("笔记本 06 的 GQA", False), ("下一篇", False), ("本篇目标", False), ("第 5 步", False),
])
def test_the_rule_tells_an_article_from_a_notebook(text, bad):
    assert bool(offenders(text)) is bad
