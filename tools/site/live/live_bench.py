"""``make bench``'s part for the book's live explorers, in headless Chromium at 2× (every request
outside the site aborted), from ``file://`` as the offline book is read:

- the size of the site's pages, its opt-in downloads aside (budget :data:`SITE_BUDGET`) and the worst page's inline explorer data
  (:data:`PAGE_DATA_BUDGET`);
- time to first interaction: from navigation start until every explorer of the page is drawn and
  takes input (median of :data:`LOADS` loads; worst page; :data:`FIRST_BUDGET_MS`);
- key → redraw: an arrow key on each explorer's first slider (or menu), from the key going down
  until the frame after the redraw, :data:`PRESSES` presses each; p95 over all (:data:`REDRAW_BUDGET_MS`).

    python -m tools.site.live.live_bench [SITE]     (default _site/, built first if missing)
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np

from tools import ROOT

HERE = Path(__file__).resolve().parent
SITE_BUDGET = 60 * 10 ** 6
PAGE_DATA_BUDGET = 3 * 10 ** 6
FIRST_BUDGET_MS = 1500.0
REDRAW_BUDGET_MS = 50.0
PRESSES = 30
#: loads of each page; its first interaction is their median (this machine's 2 cores are shared)
LOADS = 3
DATA = re.compile(r'<script type="application/octet-stream" class="al-data">([^<]*)<')


def site_bytes(site: Path) -> int:
    """The size of the site's pages: everything but ``downloads/`` (the model file 你自己的句子 serves,
    the offline book, the notebooks' zip, the wheel, the PDF: fetched only when a reader chooses to)."""
    from tools.site.live.sentence import page as sentence_page

    return sentence_page.site_bytes(site)


def page_data(site: Path) -> dict:
    """``{page: bytes of inline explorer data}`` for every page with a live explorer."""
    out = {}
    for page in sorted(site.glob("*.html")):
        sizes = [len(m) for m in DATA.findall(page.read_text(encoding="utf-8"))]
        if sizes:
            out[page.name] = sum(sizes)
    return out


def measure(site: Path, pages) -> dict:
    """First interaction (ms, per page) and key → redraw times (ms, every press)."""
    from tools import chromium

    first, redraw = {}, []
    base = site.resolve().as_uri()
    with chromium.browser() as browser:
        warm = browser.new_page()  # the browser's own start is not the page's: one load before measuring
        warm.goto(f"{base}/index.html")
        warm.close()
        for name in pages:
            context = browser.new_context(viewport={"width": 1366, "height": 900}, device_scale_factor=2)
            chromium.only_from(context, base)
            page = context.new_page()
            loads = []
            for _ in range(LOADS):
                page.goto(f"{base}/{name}")
                page.wait_for_function("document.documentElement.dataset.liveReady !== undefined", timeout=30000)
                loads.append(page.evaluate("AttnLabLive.readyAt"))
            first[name] = float(np.median(loads))
            for root in page.query_selector_all(".attnlab-live"):
                control = root.query_selector("input[type=range]") or root.query_selector("select")
                root.scroll_into_view_if_needed()
                control.focus()
                forward = True
                for _ in range(PRESSES):
                    # turn round at either end (a key there moves nothing, so nothing is redrawn)
                    at, top = control.evaluate("c => c.tagName === 'SELECT' ? [c.selectedIndex, c.options.length - 1]"
                                               " : [Number(c.value), Number(c.max)]")
                    forward = at < top if forward else at == 0
                    frames = page.evaluate("AttnLabLive.frames || 0")
                    if control.evaluate("c => c.tagName") == "SELECT":
                        page.keyboard.press("ArrowDown" if forward else "ArrowUp")
                    else:
                        page.keyboard.press("ArrowRight" if forward else "ArrowLeft")
                    page.wait_for_function(f"(AttnLabLive.frames || 0) > {frames}", timeout=5000)
                    redraw.append(page.evaluate("AttnLabLive.frameAt - AttnLabLive.keyAt"))
            context.close()
    return {"first": first, "redraw": redraw}


def report(site: Path) -> bool:
    """Print the four figures against their budgets; True when all are within."""
    size = site_bytes(site)
    data = page_data(site)
    worst_page = max(data, key=data.get)
    timing = measure(site, list(data))
    worst_first = max(timing["first"], key=timing["first"].get)
    p95 = float(np.percentile(timing["redraw"], 95))
    rows = [("site's pages (downloads aside)", f"{size / 1e6:.1f} MB", size <= SITE_BUDGET, "≤ 60 MB"),
            ("worst page's explorer data", f"{data[worst_page] / 1e6:.2f} MB ({worst_page})",
             data[worst_page] <= PAGE_DATA_BUDGET, "≤ 3 MB"),
            ("first interaction (worst page)", f"{timing['first'][worst_first]:.0f} ms ({worst_first})",
             timing["first"][worst_first] <= FIRST_BUDGET_MS, "≤ 1500 ms"),
            (f"key → redraw p95 ({len(timing['redraw'])} presses)", f"{p95:.1f} ms (median "
             f"{np.median(timing['redraw']):.1f})", p95 <= REDRAW_BUDGET_MS, "≤ 50 ms")]
    print("live book (headless Chromium, 2×, file://):")
    for label, value, ok, budget in rows:
        print(f"  {label:<40} {value:<44} {'ok' if ok else 'OVER'} (budget {budget})")
    for name in data:
        print(f"    {name:<28} data {data[name] / 1e3:7.0f} kB · first interaction {timing['first'][name]:5.0f} ms")
    return all(ok for _, _, ok, _ in rows)


def main(argv) -> None:
    site = Path(argv[0]) if argv else ROOT / "_site"
    if not (site / "index.html").exists():
        import subprocess

        subprocess.run([sys.executable, "-m", "tools.site.build", "html", str(site)], check=True, cwd=ROOT)
    sys.exit(0 if report(site) else 1)


if __name__ == "__main__":
    main(sys.argv[1:])
