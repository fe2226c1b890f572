"""The one way the package's precomputed data (``helpers/data/*.npz``) is written and read.

:func:`write_npz` stores a dict of arrays as an ``.npz`` whose bytes depend only on the arrays:
entries sorted by name, every timestamp fixed, no pickles — the same results give the same file,
so a regenerated file shows in ``git diff`` only where a number changed. :func:`read_npz` reads
any ``.npz`` back into a dict, with a ``ValueError`` naming the argument and saying what to run
when the file is missing or unreadable, or (given the format and the entries it must hold) when
it is another kind of ``.npz``: the message names the file, what was expected and what it holds.
"""
from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import numpy as np

from .validation import entries, integer, text

#: the timestamp every entry carries (the zip format's earliest date)
STAMP = (1980, 1, 1, 0, 0, 0)


class NpzError(ValueError):
    """:func:`read_npz`'s refusal (a missing, unreadable or other kind of file): its message already
    names the file, what was expected and what was found, so a caller passes it on unchanged."""


def _path(name: str, value) -> Path:
    if isinstance(value, bool) or not isinstance(value, (str, os.PathLike)) or not os.fspath(value):
        raise TypeError(f"{name} must be a file path (str or pathlib.Path), got {type(value).__name__} {value!r:.60}")
    return Path(value)


def write_npz(arrays: dict, path) -> Path:
    """Store ``arrays`` (``{name: array}``) at ``path`` byte-stably (see the module docstring)."""
    if not isinstance(arrays, dict) or not arrays or not all(isinstance(k, str) for k in arrays):
        raise TypeError(f"arrays must be a non-empty dict of named numpy arrays, got {type(arrays).__name__}")
    path = _path("path", path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(arrays):
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=STAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, buffer.getvalue())
    return path


def read_npz(path, *, what: str = "an .npz file", remedy: str = "", format_version: int | None = None,
             keys=()) -> dict:
    """``{name: array}`` of the ``.npz`` at ``path``, read whole. ``what`` names the file in a
    message (e.g. ``"a head scan .npz"``), ``remedy`` says how to make it (e.g. ``"run make
    head-scan"``). With ``format_version``, the file must hold a ``format`` entry of that one
    integer; it must hold every entry named in ``keys`` (the writer's fixed names)."""
    path = _path("path", path)
    what, remedy = text("what", what), text("remedy", remedy)
    if format_version is not None:
        format_version = integer("format_version", format_version, low=0)
    keys = tuple(text("keys", k) for k in entries("keys", keys, "entry names"))
    tail = f"; {remedy}" if remedy else ""
    if not path.is_file():
        raise NpzError(f"path must be an existing file, {what}, got {str(path)!r}{tail}")
    try:
        loaded = np.load(path, allow_pickle=False)
        if not hasattr(loaded, "files"):   # a plain .npy file is one array, not a set of them
            raise ValueError("one array")
        with loaded as data:
            arrays = {name: data[name] for name in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise NpzError(f"path must be {what}, got {str(path)!r}, which numpy cannot read as one "
                         f"({type(exc).__name__}){tail}") from None
    found = _mismatch(arrays, format_version, keys)
    if found:
        version = f" in format {format_version}" if format_version is not None else ""
        raise NpzError(f"path must be {what}{version}, got {str(path)!r}, which {found}{tail}")
    return arrays


def check_arrays(arrays, required, what: str, loader: str) -> dict:
    """``arrays`` itself when it is a dict of numpy arrays holding every name of ``required``; otherwise
    a TypeError or ValueError that says it is not ``what`` and names ``loader``, the way to get one."""
    if not isinstance(arrays, dict) or not all(isinstance(v, np.ndarray) for v in arrays.values()):
        raise TypeError(f"arrays must be the dict of numpy arrays that compute() returns, got {type(arrays).__name__}")
    required = [str(text(f"required[{i}]", k)) for i, k in enumerate(entries("required", required, "entry names"))]
    what, loader = text("what", what), text("loader", loader)
    missing = [k for k in required if k not in arrays]
    if missing:
        raise ValueError(f"arrays lacks {missing}: not {what} (use {loader})")
    return arrays


def _entries(arrays: dict, limit: int = 8) -> str:
    names = sorted(arrays)
    return ", ".join(map(repr, names[:limit])) + (f", … ({len(names)} in all)" if len(names) > limit else "")


def _mismatch(arrays: dict, format_version, keys) -> str:
    """What ``arrays`` holds that is not what was expected (``""`` when it is)."""
    if format_version is not None:
        if "format" not in arrays:
            return f"holds no format entry (its entries: {_entries(arrays) or 'none'})"
        stored = arrays["format"]
        if stored.size != 1 or stored.dtype.kind not in "iu":
            return f"holds a format entry that is not one integer ({stored.dtype} of shape {stored.shape})"
        if int(stored.ravel()[0]) != format_version:
            return f"holds format {int(stored.ravel()[0])}"
    missing = [k for k in keys if k not in arrays]
    if missing:
        shown = ", ".join(map(repr, missing[:6])) + (", …" if len(missing) > 6 else "")
        return f"lacks {shown} (its entries: {_entries(arrays) or 'none'})"
    return ""
