"""Every test draws with Agg and the series' font and style, as the notebooks do (helpers.setup),
and runs numpy's BLAS on one thread (helpers.render.threads).

Support code (browser_lab, figure_check, tiny_model, explorer_checks, fakes, paths) lives in
tests/support/, on pytest's ``pythonpath`` with the repository root, whose package ``tools`` holds the
one list of notebooks (``tools.series``; pyproject.toml).
"""
import functools
import gc
import os
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

import helpers  # noqa: E402
from helpers.render.threads import one_blas_thread  # noqa: E402

helpers.setup()


@pytest.fixture(scope="session", autouse=True)
def _one_blas_thread():
    """One BLAS thread per test process: make test-fast already runs one process per core, and the
    matrices here are small, so OpenBLAS's own threads only wait for each other (13-4's sender
    screen, two workers on 2 busy cores: 30 s of wall with two threads, 3 s with one)."""
    with one_blas_thread():
        yield


@pytest.fixture(autouse=True)
def _fast_tests_run_without_the_model(request, monkeypatch):
    """A test not marked ``slow`` sees the world of a learner without the model wheel: loading
    SmolLM2 (seconds, in every xdist worker) raises ModelNotInstalled, so 09-4 grades its random
    layers only. What needs the real model is marked ``model`` (always also slow) and runs in make test."""
    if request.node.get_closest_marker("slow") is None and request.node.get_closest_marker("model") is None:
        from helpers.real_model import load

        def missing(path=None):
            raise helpers.real_model.ModelNotInstalled("fast tests run without the model (mark the test model)")
        # cached like the real loader (a grader asks whether it has loaded yet); a raise is never cached
        monkeypatch.setattr(load, "_load_model", functools.cache(missing))


@pytest.fixture(autouse=True)
def _memory_tracing_is_left_off():
    """No test leaves tracemalloc on: with it on every allocation walks the whole stack, so a later test's
    deep recursion (the grader's stop tests go to a million frames) takes time quadratic in its depth."""
    import tracemalloc

    tracing = tracemalloc.is_tracing()
    yield
    if tracemalloc.is_tracing() and not tracing:
        tracemalloc.stop()
        pytest.fail("this test left tracemalloc tracing (stopped now)")


@pytest.fixture
def as_in_a_kernel():
    """A grader test as in a learner's kernel: Python's default recursion limit (1,000; an in-process
    check, tools/checks/layout.py, raises it to 10,000) and no garbage-collector callbacks (hypothesis, used
    earlier in the same process, registers one: once a case's limit has passed the checker raises at
    every Python event of the learner's thread, a collection inside the learner's code then raises
    inside that callback, and CPython reports the exception as unraisable, an error here). The grader
    tests use it with ``pytestmark = pytest.mark.usefixtures("as_in_a_kernel")``."""
    saved, limit = gc.callbacks[:], sys.getrecursionlimit()
    gc.callbacks.clear()
    sys.setrecursionlimit(1000)
    yield
    gc.callbacks[:] = saved
    sys.setrecursionlimit(limit)


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile`` (make test's two workers): files as units, the book's files as one, longest
    first (tests/support/scheduling.py). Every other mode is xdist's own."""
    if config.getvalue("dist") == "loadfile":
        from scheduling import SeriesScheduling

        return SeriesScheduling(config, log)
    return None


# ---- the book, built once per session for every test that reads it ------------------------------------
@pytest.fixture(scope="session")
def work(tmp_path_factory):
    """The folder the session's book is built in."""
    return tmp_path_factory.mktemp("book")


@pytest.fixture(scope="session")
def dist(work) -> Path:
    """The zip and the wheel the site serves; no PDF (making it needs a browser), so the site is also
    the one ``make site`` makes without ``make pdf`` before it: it must not link the PDF."""
    from venvs import built_wheels, wheel_of

    from tools.release import notebooks_zip as release_zip

    folder = work / "dist"
    folder.mkdir()
    release_zip.build(folder / f"attention-lab-notebooks-{release_zip.version()}.zip")
    wheel = wheel_of(built_wheels(), "attention-lab")
    (folder / wheel.name).write_bytes(wheel.read_bytes())
    return folder


@pytest.fixture(scope="session")
def site(work, dist) -> Path:
    """The built book (tools/site/build.py, as ``make site``: pages, downloads, the offline book), read by
    test_site, test_live_site and test_sentence_page: one build per session, not one per module
    (several minutes each). ``ATTENTION_LAB_SITE``: a site built already (``make site``), to iterate."""
    from site_checks import require, site_missing

    require(site_missing())
    prebuilt = os.environ.get("ATTENTION_LAB_SITE")
    if prebuilt:
        return Path(prebuilt).resolve()
    from tools.site import build as site_build
    from tools.site.live import site_zip

    built = site_build.build("html", work / "_site", work=work / "build", downloads=dist)
    site_zip.build(built, work / "offline" / site_zip.name())  # as make site does: the offline book
    return built
