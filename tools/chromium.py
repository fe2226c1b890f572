"""Headless Chromium for the site's checks and the PDF: the system browser (/usr/bin/chromium,
Debian's package, or $ATTENTION_LAB_CHROMIUM; `playwright install` cannot download one here) with the flags that keep it
from calling home, and a static server for a built site on 127.0.0.1."""
from __future__ import annotations

import contextlib
import functools
import http.server
import os
import threading
from pathlib import Path

CHROMIUM = os.environ.get("ATTENTION_LAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-dev-shm-usage"]


def missing() -> str:
    """'' when Chromium and playwright are there, else a one-line reason."""
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} not found (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright; the browser is the system's)"
    return ""


@contextlib.contextmanager
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def only_from(target, base: str) -> list:
    """Abort every request of TARGET (a page or a browser context) not under BASE; returns the
    list the aborted URLs are appended to."""
    outside = []

    def route(r):
        if r.request.url.startswith(base.rstrip("/") + "/"):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    target.route("**/*", route)
    return outside


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(directory: Path):
    """Serve DIRECTORY on 127.0.0.1 (a free port) in a thread; yields the base URL."""
    handler = functools.partial(_Quiet, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
