"""Opening a notebook in JupyterLab : always opens, and opens unmodified.

A JupyterLab server (with jupytext's contents manager, as ``make lab`` runs it) serves a copy of
the checkout's layout. jupytext refuses to open a pair whose .ipynb is newer than its .md ("… is more
recent than …") unless the two hold the same inputs; the sources are written exactly as jupytext
writes them (tools/notebooks/pairs.py ``canonical_text``), so after ``make outputs`` rewrites the .ipynb,
or a ``git pull`` changes only .ipynb files, they still compare equal and open. The safety check
itself stays on: an .ipynb whose inputs really differ is still refused (control case).

In a real browser, a notebook just opened is not marked modified (no unsaved dot): its stored
kernelspec is the one JupyterLab writes on open (ipykernel's display name).
"""
import json
import os
import time
import urllib.error
import urllib.request

import nbformat
import pytest
from browser_lab import CHROMIUM, CHROMIUM_ARGS, TOKEN, LabServer, NotebookPage
from venvs import ROOT

from tools.notebooks.execute import stabilise
from tools.series import NOTEBOOKS

pytestmark = pytest.mark.slow
HOUR = 3600.0


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    server = LabServer(tmp_path_factory.mktemp("paired"), paired=True).start()
    yield server
    server.stop()


def get(server, path):
    """(status, body) of the contents API for ``path``, as JupyterLab asks when opening it."""
    url = f"{server.url}/api/contents/{path}?type=notebook&content=1&token={TOKEN}"
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, {"message": exc.read().decode("utf-8", "replace")}


def age_sources(server, seconds=HOUR):
    for md in (server.workdir / "notebook_sources").glob("*.md"):
        os.utime(md, (time.time() - seconds, time.time() - seconds))


def test_notebooks_open_after_make_outputs_rewrites_them(lab):
    """``make outputs`` writes each .ipynb (tools/notebooks/execute.py) after its .md."""
    age_sources(lab)
    for name in NOTEBOOKS:
        path = lab.workdir / "notebooks" / f"{name}.ipynb"
        nbformat.write(stabilise(nbformat.read(path, as_version=4)), path)
    for name in NOTEBOOKS:
        status, body = get(lab, f"notebooks/{name}.ipynb")
        assert status == 200, f"{name}: {body.get('message', '')[:1500]}"
        stored = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
        assert [c["source"] for c in body["content"]["cells"]] == [c.source for c in stored.cells]


def test_notebooks_open_after_a_change_to_the_ipynb_only(lab):
    """A ``git pull`` that changes only outputs leaves the .md older, by any amount."""
    age_sources(lab, 30 * 24 * HOUR)
    for name in NOTEBOOKS:
        path = lab.workdir / "notebooks" / f"{name}.ipynb"
        os.utime(path, (time.time() + 10, time.time() + 10))
        status, body = get(lab, f"notebooks/{name}.ipynb")
        assert status == 200, f"{name}: {body.get('message', '')[:1500]}"


def test_an_ipynb_whose_inputs_really_differ_is_still_refused(lab):
    """The control: jupytext's protection of an edited .ipynb is on (so the passes above are not
    a disabled check)."""
    name = NOTEBOOKS[1]
    path = lab.workdir / "notebooks" / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells[-2].source += "\n\n（在别处改过的一句）"
    nbformat.write(nb, path)
    age_sources(lab)
    status, body = get(lab, f"notebooks/{name}.ipynb")
    assert status == 400 and "more recent than" in body["message"]
    path.write_bytes((ROOT / "notebooks" / f"{name}.ipynb").read_bytes())


def test_saving_through_jupyterlab_leaves_the_source_byte_identical(lab):
    """What JupyterLab writes is what is committed: a save in the lab brings no header churn."""
    name = NOTEBOOKS[4]
    status, body = get(lab, f"notebooks/{name}.ipynb")
    assert status == 200
    request = urllib.request.Request(f"{lab.url}/api/contents/notebooks/{name}.ipynb?token={TOKEN}",
                                     data=json.dumps({"type": "notebook", "content": body["content"]}).encode(),
                                     method="PUT", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 200
    saved = (lab.workdir / "notebook_sources" / f"{name}.md").read_bytes()
    assert saved == (ROOT / "notebook_sources" / f"{name}.md").read_bytes()


@pytest.mark.browser
def test_a_notebook_just_opened_is_not_marked_modified(lab):
    if not os.path.exists(CHROMIUM):
        if os.environ.get("ATTENTION_LAB_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{CHROMIUM} is required here")
        pytest.skip(f"{CHROMIUM} not found (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            for name in (NOTEBOOKS[0], NOTEBOOKS[3]):
                page = browser.new_page()
                NotebookPage(page, lab, f"notebooks/{name}.ipynb").open()
                page.wait_for_timeout(2000)  # kernel info and spec arrive after idle
                state = page.evaluate("""() => { const m = window.jupyterapp.shell.currentWidget.context.model;
                    return {dirty: m.dirty, kernelspec: m.getMetadata('kernelspec')}; }""")
                assert state["dirty"] is False, f"{name} is marked modified on open: {state}"
                page.close()
        finally:
            browser.close()
