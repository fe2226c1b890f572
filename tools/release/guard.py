#!/usr/bin/env python3
"""What must hold before a release publishes anything: a PyPI version and a tag are immutable, and
every notebook's setup cell sends learners to the addresses the release was built with.

    python -m tools.release.guard                 the checks that need no workflow and no network
    python -m tools.release.guard --ci            as release.yml's build job runs them, before building
    python -m tools.release.guard --ci CHECK ...  only those (mirror.yml runs ``mirror``; the build job
                                                  runs ``mirror-tag`` after building)
    python -m tools.release.guard --list          the checks, one a line

Checks (offline: any checkout, ``make release-check``; CI: what only the workflow or the network knows):

    version     offline: CITATION.cff is current and CHANGELOG.md has a heading for the version.
                CI: the tag ($GITHUB_REF_NAME) is v<version> and that heading is dated.
    home        offline: every notebook's header cells, README and pyproject are made from home.toml,
                and home.toml's repository is git's origin where that is on GitHub.
                CI: home.toml's repository is the one the tag was pushed to ($GITHUB_REPOSITORY): a tag
                pushed before the home is filled in would publish placeholder links in every setup cell.
    mirror      offline: says which git routes the setup cells offer.
                CI, where home.toml names a mirror (every setup cell offers it): the secret MIRROR_TOKEN
                is set ($MIRROR_TOKEN_SET, "true" or "false", which the workflow computes: the token
                itself stays out of this step) and the variable MIRROR_USER too, so mirror.yml pushes
                there, and the mirror answers as a public git repository.
                Without a mirror in home.toml the cells offer GitHub only and there is nothing to check.
    pypi        CI: PyPI has no file of this version yet (an upload of an existing one fails after the
                site is deployed).
    mirror-tag  CI, after the build: the mirror holds the tag v<version> (mirror.yml pushes it when the
                tag is pushed; waits up to MIRROR_TAG_WAIT_S for it).

The offline checks cannot see a workflow's secrets, the repository a tag was pushed to, or any host:
those wait for CI, where a failure stops the build job before anything is published.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request

from tools import ROOT, home
from tools import package_version as version

#: how long the build job waits for mirror.yml to push the tag (it runs beside the build, 15 min at most)
MIRROR_TAG_WAIT_S = 15 * 60
#: a git host's answer is given this long (git's own low-speed limit stops a stalled transfer sooner)
GIT_TIMEOUT_S = 60
PYPI_JSON = "https://pypi.org/pypi"
#: the checks each mode runs when none is named
OFFLINE = ("version", "home", "mirror")
CI = ("version", "home", "mirror", "pypi")


def ci_variable(name: str) -> str:
    """A variable release.yml or mirror.yml sets; its absence is a problem raised by the caller."""
    return os.environ.get(name, "").strip()


def git(*args, cwd=ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_HTTP_LOW_SPEED_LIMIT="1000", GIT_HTTP_LOW_SPEED_TIME="20")
    try:
        return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=GIT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(["git", *args], 124, "", f"no answer in {GIT_TIMEOUT_S} s")


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no message"


# -- version -------------------------------------------------------------------------------------

def check_version(ci: bool) -> list:
    from tools.release import citation

    found = citation.problems()
    v, date = version(), citation.release_date()
    if date is None:
        found.append(f"CHANGELOG.md has no heading '## [{v}] - YYYY-MM-DD' (or '- unreleased') for the version "
                     f"in helpers/__init__.py")
    if ci:
        tag = ci_variable("GITHUB_REF_NAME")
        if tag != f"v{v}":
            found.append(f"the tag is {tag or '(GITHUB_REF_NAME unset)'}, but helpers/__init__.py says {v}: "
                         f"tag v{v}, or bump the version first")
        if date == "unreleased":
            found.append(f"CHANGELOG.md's heading for {v} says 'unreleased': write the release day "
                         f"(## [{v}] - YYYY-MM-DD), make outputs (CITATION.cff reads it), commit, tag again")
    return found


# -- home ----------------------------------------------------------------------------------------

def github_of(url: str) -> str | None:
    """``owner/name`` of a GitHub remote (https or ssh form), None for any other host."""
    match = re.match(r"^(?:https://(?:[^@/]+@)?github\.com/|git@github\.com:|ssh://git@github\.com/)"
                     r"([^/]+/[^/]+?)(?:\.git)?/?$", url.strip())
    return match.group(1) if match else None


def check_home(ci: bool) -> list:
    from tools.notebooks import pairs

    found = pairs.problems() + home.problems()
    ours = home.github_path()
    if ci:
        repository = ci_variable("GITHUB_REPOSITORY")
        if not repository:
            found.append("GITHUB_REPOSITORY is unset: --ci runs inside a GitHub workflow")
        elif repository.lower() != ours.lower():
            found.append(f"home.toml's repository is https://github.com/{ours}, but this tag was pushed to "
                         f"{repository}: every setup cell would point at the wrong repository. Write "
                         f"https://github.com/{repository} (and the other addresses) into home.toml, make outputs, "
                         f"commit, push, and tag again")
        return found
    origin = git("remote", "get-url", "origin")
    remote = github_of(origin.stdout) if origin.returncode == 0 else None
    if remote is None:
        print("release-guard: home: git's origin is not on GitHub here: the repository is compared with "
              "$GITHUB_REPOSITORY in CI")
    elif remote.lower() != ours.lower():
        found.append(f"home.toml's repository is https://github.com/{ours}, but git's origin is {remote}: "
                     f"write the real addresses into home.toml and make outputs (CONTRIBUTING.md)")
    return found


# -- mirror --------------------------------------------------------------------------------------

def answers(url: str) -> str:
    """"" when ``url`` answers as a git repository anyone may read; else git's last word on it."""
    done = git("ls-remote", "--heads", url)
    return "" if done.returncode == 0 else last_line(done.stderr)


def check_mirror(ci: bool) -> list:
    mirror = home.home()["mirror"]
    routes = ", ".join(f"{host} {url}" for host, url in home.git_routes().items())
    if not ci:
        print(f"release-guard: mirror: the setup cells install a tag from {routes}"
              + ("" if mirror else " (home.toml names no mirror)"))
        return []
    if not mirror:
        return []
    found = []
    label = home.mirror_label()
    secret = ci_variable("MIRROR_TOKEN_SET")
    if secret != "true":
        found.append(f"every setup cell offers the {label} mirror {mirror}, but the secret MIRROR_TOKEN is "
                     f"{'not set' if secret == 'false' else 'unknown (MIRROR_TOKEN_SET is unset)'}: mirror.yml "
                     f"pushes nothing there. Set MIRROR_TOKEN and MIRROR_USER (CONTRIBUTING.md, 国内镜像), or "
                     f"empty home.toml's mirror and make outputs")
    if not ci_variable("MIRROR_USER"):
        found.append(f"the variable MIRROR_USER (the {label} user that MIRROR_TOKEN belongs to) is not set: mirror.yml "
                     f"cannot push to {mirror}")
    why = answers(mirror)
    if why:
        found.append(f"every setup cell offers the {label} mirror {mirror}, but it does not answer as a public git "
                     f"repository ({why}): create it (public) or empty home.toml's mirror and make outputs")
    return found


def check_mirror_tag(ci: bool, wait_s: float = MIRROR_TAG_WAIT_S, every_s: float = 30) -> list:
    mirror = home.home()["mirror"]
    if not ci or not mirror:
        return []
    tag, deadline = f"v{version()}", time.monotonic() + wait_s
    while True:
        done = git("ls-remote", "--tags", mirror, f"refs/tags/{tag}")
        if done.returncode == 0 and done.stdout.strip():
            print(f"release-guard: mirror-tag: {mirror} holds {tag}")
            return []
        if time.monotonic() >= deadline:
            why = "" if done.returncode == 0 else f" ({last_line(done.stderr)})"
            return [f"the mirror {mirror} does not hold the tag {tag} after {wait_s / 60:.0f} min{why}: the setup "
                    f"cells' {home.mirror_label()} route would fail for this version. See mirror.yml's run for "
                    f"this tag, rerun it, then rerun this job"]
        time.sleep(every_s)


# -- pypi ----------------------------------------------------------------------------------------

def check_pypi(ci: bool, index: str = PYPI_JSON) -> list:
    if not ci:
        return []
    package, v = home.home()["package"], version()
    url = f"{index}/{package}/{v}/json"
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            files = json.load(answer).get("urls", [])
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return []
        return [f"PyPI answered {error.code} for {url}: cannot tell whether {package} {v} is published"]
    except OSError as error:
        return [f"PyPI did not answer ({getattr(error, 'reason', error)}) for {url}"]
    names = ", ".join(f["filename"] for f in files) or "no files"
    return [f"{package} {v} is already on PyPI ({names}); a published version cannot be replaced: bump the version"]


CHECKS = {"version": check_version, "home": check_home, "mirror": check_mirror, "pypi": check_pypi,
          "mirror-tag": check_mirror_tag}


def run(names, ci: bool) -> list:
    """Every problem the named checks find, each prefixed with its check's name."""
    found = []
    for name in names:
        found += [f"{name}: {problem}" for problem in CHECKS[name](ci)]
    return found


def main(argv) -> int:
    if argv == ["--list"]:
        for name in CHECKS:
            print(name)
        return 0
    ci = "--ci" in argv
    names = [a for a in argv if a != "--ci"]
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        raise SystemExit(f"unknown check(s) {', '.join(unknown)}; the checks: {', '.join(CHECKS)}\n\n{__doc__}")
    names = names or list(CI if ci else OFFLINE)
    found = run(names, ci)
    for problem in found:
        print(f"release-guard: {problem}", file=sys.stderr)
    if not found:
        print(f"release-guard: {', '.join(names)}: nothing stands in the way"
              + ("" if ci else " (the tag, the secrets, the mirror and PyPI are checked by release.yml)"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
