"""A JupyterLab server plus headless Chromium, for the browser tests (tests/series/test_browser.py).

The server runs on 127.0.0.1 over a *copy* of the notebooks (a save must not change the committed
outputs), with its own config, data and runtime folders and autosave off (each case opens the
notebooks as committed).
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from paths import ROOT

from tools.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: F401  (tools/chromium.py: one place for the browser and its flags)

TOKEN = "attention-lab-test"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LabServer:
    def __init__(self, workdir: Path, paired: bool = False):
        """``paired``: serve the checkout's layout (notebooks/, notebook_sources/, jupytext.toml) from
        ``workdir`` as ``make lab`` does, instead of the notebooks folder alone."""
        self.workdir = workdir
        self.paired = paired
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = None

    def start(self, timeout: float = 90.0):
        shutil.copytree(ROOT / "notebooks", self.workdir / "notebooks",
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        if self.paired:
            shutil.copytree(ROOT / "notebook_sources", self.workdir / "notebook_sources")
            shutil.copy(ROOT / "jupytext.toml", self.workdir / "jupytext.toml")
        # every cell in the DOM (JupyterLab 4 otherwise renders only cells near the viewport), so the
        # tests can read every output of a long notebook before running it
        tracker = self.workdir / "settings" / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
        tracker.parent.mkdir(parents=True, exist_ok=True)
        tracker.write_text('{"windowingMode": "none"}', encoding="utf-8")
        # no autosave: a case that runs a notebook for longer than the autosave interval (2 min) would
        # otherwise store its live widgets in the copy, and the next case to open it would find no picture
        docmanager = self.workdir / "settings" / "@jupyterlab" / "docmanager-extension" / "plugin.jupyterlab-settings"
        docmanager.parent.mkdir(parents=True, exist_ok=True)
        docmanager.write_text('{"autosave": false}', encoding="utf-8")
        env = dict(os.environ)
        for var, sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_RUNTIME_DIR", "runtime"),
                         ("JUPYTERLAB_SETTINGS_DIR", "settings"), ("JUPYTERLAB_WORKSPACES_DIR", "workspaces")):
            env[var] = str(self.workdir / sub)
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
               f"--ServerApp.port={self.port}", f"--IdentityProvider.token={TOKEN}",
               f"--ServerApp.root_dir={self.workdir if self.paired else self.workdir / 'notebooks'}",
               "--LabApp.expose_app_in_browser=True", "--ServerApp.open_browser=False"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-root")
        self.log = open(self.workdir / "lab.log", "w")
        self.proc = subprocess.Popen(cmd, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited: {(self.workdir / 'lab.log').read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/status?token={TOKEN}", timeout=2):
                    return self
            except OSError:
                time.sleep(0.3)
        raise RuntimeError("JupyterLab did not start in time")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        if self.proc:
            self.log.close()

    def _api(self, path: str, method: str = "GET"):
        request = urllib.request.Request(f"{self.url}/api/{path}", method=method,
                                         headers={"Authorization": f"token {TOKEN}"})
        with urllib.request.urlopen(request, timeout=30) as response:
            body = response.read()
        return json.loads(body) if body else None

    def kernels(self) -> list:
        """The kernels the server has running now."""
        return self._api("kernels")

    def shut_down_kernels(self, timeout: float = 30.0) -> int:
        """End every session (and so its kernel); wait until none is left. Returns how many remain
        (0 unless a kernel would not stop within ``timeout`` seconds)."""
        for session in self._api("sessions"):
            self._api(f"sessions/{session['id']}", method="DELETE")
        deadline = time.monotonic() + timeout
        while self.kernels() and time.monotonic() < deadline:
            time.sleep(0.3)
        return len(self.kernels())

    def notebook_url(self, name: str) -> str:
        return f"{self.url}/lab/tree/{name}?token={TOKEN}&reset"


# JavaScript run in the page ------------------------------------------------------------------
KERNEL_IDLE = """() => {
  const app = window.jupyterapp; if (!app) return false;
  const w = app.shell.currentWidget;
  if (!w || !w.sessionContext || !w.sessionContext.session) return false;
  const k = w.sessionContext.session.kernel;
  return !!k && k.status === 'idle';
}"""

# A collapsed cell (the setup cell: jupyter.source_hidden) shows a placeholder whose empty prompt never
# gets a number; only the prompts of shown inputs count.
ALL_CELLS_DONE = """(n) => {
  const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt:not(.jp-Placeholder-prompt)')];
  if (prompts.length === 0) return false;
  if (prompts.some(p => p.textContent.includes('*'))) return false;
  const numbered = prompts.filter(p => /\\[\\d+\\]/.test(p.textContent)).length;
  return numbered === prompts.length;
}"""


class NotebookPage:
    """One notebook opened in JupyterLab, run and inspected through the page."""

    def __init__(self, page, server: LabServer, name: str):
        self.page = page
        self.server = server
        self.name = name

    def open(self, timeout_ms: int = 90_000):
        self.page.goto(self.server.notebook_url(self.name))
        self.page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=timeout_ms)
        self.wait_idle(timeout_ms)

    def wait_idle(self, timeout_ms: int = 90_000, attempts: int = 3):
        last = None
        for _ in range(attempts):
            try:
                self.page.wait_for_function(KERNEL_IDLE, timeout=timeout_ms // attempts)
                return
            except Exception as exc:  # noqa: BLE001 - retry while the kernel starts
                last = exc
        raise last

    def run_all(self, timeout_ms: int = 180_000):
        self.page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        self.page.wait_for_function(ALL_CELLS_DONE, timeout=timeout_ms)
        self.wait_idle()

    def error_outputs(self) -> list:
        return self.page.evaluate("""() => [...document.querySelectorAll(
            '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"],'
            + ' .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"]')]
            .map(e => e.textContent.slice(0, 300))""")

    def output_text(self) -> str:
        return self.page.evaluate(
            "() => [...document.querySelectorAll('.jp-OutputArea')].map(e => e.textContent).join('\\n')")

    def explorer_outputs(self) -> list:
        """For every widget cell (``helpers.widgets.…``): its output's text and its pictures
        (natural and displayed width), as the page shows them now."""
        return self.page.evaluate("""() => [...document.querySelectorAll('.jp-CodeCell')]
            .filter(c => (c.querySelector('.jp-InputArea') || {textContent: ''}).textContent.includes('helpers.widgets.'))
            .map(c => {
              const out = c.querySelector('.jp-OutputArea');
              const imgs = out ? [...out.querySelectorAll('img')] : [];
              return {text: out ? out.textContent.slice(0, 300) : '',
                      images: imgs.map(i => ({natural: i.naturalWidth, shown: i.getBoundingClientRect().width,
                                              complete: i.complete}))};
            })""")

    def pictures(self) -> list:
        """Every loaded picture in an output area: natural and displayed width (px)."""
        return self.page.evaluate("""() => [...document.querySelectorAll('.jp-OutputArea img')]
            .filter(i => i.complete && i.getBoundingClientRect().width > 0)
            .map(i => ({natural: i.naturalWidth, shown: i.getBoundingClientRect().width}))""")

    def explorer(self, index: int):
        """The ``index``-th live explorer (an ipywidgets VBox) in the notebook."""
        return self.page.locator(".jp-OutputArea .widget-vbox").nth(index)

    def type_text(self, explorer, text: str, *, watch: str = ".widget-html-content", timeout_ms: int = 30_000):
        """Type ``text`` into the explorer's text box (replacing what it holds) and press Enter;
        return the watched element's text once the readout has changed."""
        box = explorer.locator(".widget-text input").first
        readout = explorer.locator(".widget-html-content").first
        before = readout.inner_text()
        box.fill(text)
        box.press("Enter")
        self.page.wait_for_function(
            "([el, before]) => el.innerText !== before",
            arg=[readout.element_handle(), before], timeout=timeout_ms)
        return explorer.locator(watch).first.inner_text()

    def press_on_slider(self, explorer, slider_index: int, key: str, *, watch: str = ".widget-html-content",
                        timeout_ms: int = 5000):
        """Focus a slider handle, press ``key``; return (slider readout, watched text, latency ms).

        The latency is key press to the explorer's readout changing; ``watch`` selects the element
        whose text is then returned (by default the whole readout).
        """
        slider = explorer.locator(".widget-slider").nth(slider_index)
        handle = slider.locator(".noUi-handle, .ui-slider-handle").first
        readout = explorer.locator(".widget-html-content").first
        before = readout.inner_text()
        handle.focus()
        start = time.perf_counter()
        handle.press(key)
        self.page.wait_for_function(
            "([el, before]) => el.innerText !== before",
            arg=[readout.element_handle(), before], timeout=timeout_ms)
        latency = (time.perf_counter() - start) * 1000
        value = slider.locator(".widget-readout").first
        text = value.input_value() if value.evaluate("e => e.tagName") == "INPUT" else value.inner_text()
        return text.strip(), explorer.locator(watch).first.inner_text(), latency
