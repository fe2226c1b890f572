"""``attention-lab notebooks`` / ``attention-lab lab`` (helpers/cli.py), in-process: copies,
refusals, bad input. The same command from an installed wheel: tests/series/test_wheel_notebooks.py."""
import json
import sys
from pathlib import Path

import pytest
from paths import ROOT
from series import NOTEBOOKS

from helpers import cli


def run(capsys, *argv):
    status = cli.main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_copies_every_notebook_with_its_outputs_into_a_new_default_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, "notebooks")
    folder = tmp_path / cli.DEFAULT_DIR
    assert status == 0 and err == ""
    assert sorted(p.stem for p in folder.glob("*.ipynb")) == NOTEBOOKS
    for name in NOTEBOOKS:
        assert (folder / f"{name}.ipynb").read_bytes() == (ROOT / "notebooks" / f"{name}.ipynb").read_bytes()
    assert f"复制了 {len(NOTEBOOKS)} 篇" in out and str(folder) in out
    status, out, _ = run(capsys, "notebooks")
    assert status == 0 and f"{len(NOTEBOOKS)} 篇已是最新" in out


def test_an_edited_copy_is_not_overwritten_without_force(tmp_path, capsys):
    assert run(capsys, "notebooks", str(tmp_path))[0] == 0
    edited = tmp_path / f"{NOTEBOOKS[3]}.ipynb"
    edited.write_text(edited.read_text(encoding="utf-8").replace("本篇目标", "我的笔记", 1), encoding="utf-8")
    other = tmp_path / f"{NOTEBOOKS[1]}.ipynb"
    other.unlink()
    status, out, err = run(capsys, "notebooks", str(tmp_path))
    assert status == 1 and out == ""
    assert err.count("\n") == 1 and f"{NOTEBOOKS[3]}.ipynb" in err and "--force" in err and "改过" in err
    assert "我的笔记" in edited.read_text(encoding="utf-8") and not other.exists()  # nothing written
    status, out, _ = run(capsys, "notebooks", str(tmp_path), "--force")
    assert status == 0 and other.exists()
    assert edited.read_bytes() == (ROOT / "notebooks" / edited.name).read_bytes()


def test_an_unedited_older_copy_is_updated(tmp_path, capsys):
    """What was copied last time (recorded in .attention-lab.json) counts as unedited."""
    assert run(capsys, "notebooks", str(tmp_path))[0] == 0
    old = tmp_path / f"{NOTEBOOKS[2]}.ipynb"
    old.write_bytes(b"{}")
    record = json.loads((tmp_path / cli.RECORD).read_text(encoding="utf-8"))
    record["files"][old.name] = cli._sha(b"{}")
    (tmp_path / cli.RECORD).write_text(json.dumps(record), encoding="utf-8")
    status, out, _ = run(capsys, "notebooks", str(tmp_path))
    assert status == 0 and "复制了 1 篇" in out
    assert old.read_bytes() == (ROOT / "notebooks" / old.name).read_bytes()


def test_a_file_where_the_folder_should_be_is_one_sentence(tmp_path, capsys):
    target = tmp_path / "注意力实验室"
    target.write_text("not a folder", encoding="utf-8")
    for command in ("notebooks", "lab"):
        status, out, err = run(capsys, command, str(target))
        assert status == 2 and out == ""
        assert err.count("\n") == 1 and "是一个文件，不是文件夹" in err and "is a file" in err


def test_no_write_permission_is_one_sentence(tmp_path, monkeypatch, capsys):
    """(Root ignores file modes, so the refusal is simulated where the copy writes.)"""
    def refuse(self, data):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "write_bytes", refuse)
    status, out, err = run(capsys, "notebooks", str(tmp_path / "new"))
    assert status == 2 and out == "" and err.count("\n") == 1 and "没有写入" in err and "权限" in err


def test_the_functions_name_a_wrong_argument(tmp_path):
    with pytest.raises(TypeError, match="folder"):
        cli.copy_notebooks(3.5)
    with pytest.raises(TypeError, match="force"):
        cli.copy_notebooks(tmp_path, force="yes")
    with pytest.raises(TypeError, match="folder"):
        cli.lab_command(None)


def test_bad_arguments_are_one_sentence(tmp_path, capsys):
    for argv in (["copy"], ["notebooks", "a", "b"], ["notebooks", "--overwrite"], []):
        status, out, err = run(capsys, *argv)
        assert status == 2 and out == "" and err.count("\n") == 1, (argv, err)
        assert err.startswith("attention-lab: ") and ("命令写得不对" in err or "缺少命令" in err)


def test_lab_without_jupyterlab_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    real = cli.importlib.util.find_spec
    monkeypatch.setattr(cli.importlib.util, "find_spec", lambda name, *a: None if name == "jupyterlab" else real(name, *a))
    status, out, err = run(capsys, "lab", str(tmp_path / "lab"))
    assert status == 1 and 'pip install "attention-lab[lab]"' in err and err.count("\n") == 1
    assert not (tmp_path / "lab").exists()


def test_lab_copies_what_is_missing_keeps_edits_and_starts_jupyterlab_there(tmp_path, monkeypatch, capsys):
    assert run(capsys, "notebooks", str(tmp_path))[0] == 0
    edited = tmp_path / f"{NOTEBOOKS[0]}.ipynb"
    edited.write_bytes(edited.read_bytes() + b"\n")
    started = []
    monkeypatch.setattr(cli.os, "execv", lambda path, argv: started.append(argv))
    real = cli.importlib.util.find_spec  # JupyterLab present (the lab extra), wherever this runs
    monkeypatch.setattr(cli.importlib.util, "find_spec",
                        lambda name, *a: real("json") if name == "jupyterlab" else real(name, *a))
    status, out, err = run(capsys, "lab", str(tmp_path))
    assert status == 0 and "保留了你改过的 1 篇" in out and edited.read_bytes().endswith(b"\n\n")
    (argv,) = started
    assert argv[:3] == [sys.executable, "-m", "jupyterlab"]
    assert f"--ServerApp.root_dir={tmp_path.resolve()}" in argv and "--LabApp.default_url=/lab/tree/00_index.ipynb" in argv


def _tree(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None for p in sorted(folder.rglob("*"))}


def _refused(capsys, folder: Path, *argv, words=()) -> str:
    """The command refuses in one sentence (Chinese first), exit status 2, and writes nothing."""
    before = _tree(folder)
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "", (argv, status, out)
    assert err.count("\n") == 1 and err.startswith("attention-lab: ") and "Traceback" not in err, err
    assert len(err) < 400, len(err)
    chinese = err.split(" / ")[0]
    assert all(w in chinese for w in words), err
    assert _tree(folder) == before, "something was written"
    return err


@pytest.mark.parametrize("command", ["notebooks", "lab"])
def test_an_empty_folder_name_is_one_sentence_not_a_copy_into_the_current_folder(tmp_path, monkeypatch, capsys,
                                                                                 command):
    monkeypatch.chdir(tmp_path)
    for name in ("", "   "):
        _refused(capsys, tmp_path, command, name, words=("文件夹名是空的",))
    assert list(tmp_path.iterdir()) == []


def test_a_path_over_4096_bytes_is_one_sentence(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    long_path = "/".join(["a" * 200] * 25)                    # 5,024 bytes, every name allowed
    err = _refused(capsys, tmp_path, "notebooks", long_path, words=("路径太长", "5,024 字节"))
    assert "4,095" in err


def test_a_name_of_255_bytes_or_more_is_one_sentence(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for name in ("名" * 90, "x" * 256, f"ok/{'y' * 300}/z"):   # 270, 256 and 300 bytes
        err = _refused(capsys, tmp_path, "notebooks", name, words=("名字太长",))
        assert "255" in err and len(err) < 400


def test_a_nul_character_in_the_folder_name_is_one_sentence(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _refused(capsys, tmp_path, "notebooks", "a\0b", words=("空字符",))


@pytest.mark.parametrize("record", [
    json.dumps({"files": ["00_index.ipynb"]}),             # "files" a list
    json.dumps({"files": {"00_index.ipynb": 3}}),          # a checksum that is not text
    json.dumps(["files"]),                                 # not an object at all
    "{not json",                                           # malformed JSON
    "\udcff",                                               # not UTF-8 (written below as a raw byte)
])
def test_a_record_this_command_did_not_write_is_one_sentence_and_nothing_is_copied(tmp_path, capsys, record):
    folder = tmp_path / "copy"
    folder.mkdir()
    path = folder / cli.RECORD
    if record == "\udcff":
        path.write_bytes(b"\xff\xfe{")
    else:
        path.write_text(record, encoding="utf-8")
    for command in ("notebooks", "lab"):
        _refused(capsys, tmp_path, command, str(folder), words=("不是 attention-lab 写的记录", "删掉"))
    path.unlink()
    assert run(capsys, "notebooks", str(folder))[0] == 0   # without the stray record the copy goes ahead


def test_an_unforeseen_file_system_error_is_still_one_sentence(tmp_path, monkeypatch, capsys):
    def broken(self, *args, **kwargs):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(Path, "read_bytes", broken)
    monkeypatch.setattr(Path, "mkdir", broken)
    status, out, err = run(capsys, "notebooks", str(tmp_path / "new"))
    assert status == 2 and out == "" and err.count("\n") == 1 and "Input/output error" in err
