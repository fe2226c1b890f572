"""你自己的句子's budgets as a reader meets them: the built page (``_site/sentence.html``) in headless
Chromium at 2×, over http from 127.0.0.1 (every other request aborted), the model downloaded with the
page's button, text typed into its text box.

    python tools/site/live/sentence/page/bench.py [SITE] [--repeats N]    (default _site/, built first if missing)

Prints, against the budgets of :data:`BUDGETS`:

- the site's pages (its opt-in downloads aside), and the offline book (``make site``'s zip) if it is there;
- ready: the model's bytes downloaded into the page (a Blob in memory) → the engine has loaded them
  (header checked, weights copied into the kernel's heap, tokenizer built; the engine's own clock);
- 30 tokens: a 30-token text put in the text box (after a text sharing no token with it) → its 270
  maps grouped, scored, ranked and drawn, the frame after (the page's clock: input event → frame);
- one key: typing a sentence key by key (English, then Chinese: a character is 2–3 tokens), each
  key → its frame, p50 / p95;
- memory: the renderer process holding the page and its engine's Worker, loaded and run: the memory
  it alone holds (USS) and its resident size (which adds Chromium's shared code).

With each: the renderer's CPU time (what the step costs on a CPU of its own: the engine is one
thread), the load average, and how many CPUs other work kept busy meanwhile (the machine is shared).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from tools import ROOT, chromium
from tools.site.attnlab_site import offline_book
from tools.site.live.sentence import bench as engine_bench
from tools.site.live.sentence import page as sentence_page

HERE = Path(__file__).resolve().parent

TEXT_30 = engine_bench.TEXT_30
OTHER = "x"  # shares no token with TEXT_30: the whole text is computed
TYPED = ("The cat sat on the mat.", engine_bench.TYPED)
BUDGETS = {"site": 60e6, "offline": 60e6, "ready": 1500, "30 tokens": 1500, "one key p95": 250, "memory": 300}
SETTLED = "(t => t.answers > {n} && t.settled && t.painted)(AttnLabSentencePage.timing())"


def drawn(page, procs, act) -> tuple:
    """(input → frame ms, renderer CPU ms, the engine's ms, the page's drawing ms) of ``act()`` (something
    that fires the text box's input)."""
    n = page.evaluate("AttnLabSentencePage.timing().answers")
    before = engine_bench.cpu_ms(procs)
    act()
    page.wait_for_function(SETTLED.format(n=n), timeout=60_000)
    t = page.evaluate("AttnLabSentencePage.timing()")
    return t["drawnAt"] - t["inputAt"], engine_bench.cpu_ms(procs) - before, t["engineMs"], t["drawMs"]


def measure(site: Path, repeats: int = 5) -> dict:
    from helpers.real_model import GGUF_NAME

    load0, busy0, wall0 = os.getloadavg(), engine_bench.busy_seconds(), time.monotonic()
    with chromium.browser() as browser, chromium.serve(site) as base:
        context = browser.new_context(viewport={"width": 1366, "height": 900}, device_scale_factor=2)
        outside = chromium.only_from(context, base)
        page = context.new_page()
        page.goto(f"{base}/{sentence_page.PAGE}.html")
        page.wait_for_function("document.documentElement.dataset.sentenceStore !== undefined")
        procs = engine_bench.renderers()
        ours0 = engine_bench.cpu_ms(procs)
        page.click("#al-s-download")
        page.wait_for_function("(v => v.loaded !== null && v.source === 'model' && !v.loading)(AttnLabSentencePage.view())",
                               timeout=300_000)
        page.wait_for_function("AttnLabSentencePage.timing().settled && AttnLabSentencePage.timing().painted")
        loaded = page.evaluate("AttnLabSentencePage.view().loaded")
        full, full_cpu, full_draw = [], [], []
        for _ in range(repeats):
            drawn(page, procs, lambda: page.fill("#al-s-text", OTHER))
            ms, cpu, _, draw = drawn(page, procs, lambda: page.fill("#al-s-text", TEXT_30))
            full.append(ms)
            full_cpu.append(cpu)
            full_draw.append(draw)
        tokens = page.evaluate("AttnLabSentencePage.view().length")
        keys, key_cpu, key_engine, key_draw = [], [], [], []
        for text in TYPED:
            drawn(page, procs, lambda: page.fill("#al-s-text", ""))
            page.focus("#al-s-text")
            for ch in text:
                ms, cpu, engine, draw = drawn(page, procs, lambda ch=ch: page.keyboard.type(ch))
                keys.append(ms)
                key_cpu.append(cpu)
                key_engine.append(engine)
                key_draw.append(draw)
        time.sleep(1)  # the garbage of loading and running collected
        ours = max(procs, key=lambda p: p.memory_full_info().uss)
        uss, rss = ours.memory_full_info().uss / 2**20, ours.memory_info().rss / 2**20
        ours_cpu = (engine_bench.cpu_ms(procs) - ours0) / 1000
        downloads = [url for url in outside if url.endswith(GGUF_NAME)]
        assert outside == [] and not downloads, outside
        context.close()
    others = (engine_bench.busy_seconds() - busy0 - ours_cpu) / (time.monotonic() - wall0)
    offline = ROOT / "dist" / offline_book()
    return {"site": sentence_page.site_bytes(site), "offline": offline.stat().st_size if offline.exists() else None,
            "ready": loaded["ms"], "kernel": loaded["kernel"], "tokens": tokens,
            "30 tokens": min(full), "30 tokens median": engine_bench.pct(full, 0.5), "30 tokens cpu": min(full_cpu),
            "30 tokens draw": engine_bench.pct(full_draw, 0.5),
            "one key p50": engine_bench.pct(keys, 0.5), "one key p95": engine_bench.pct(keys, 0.95),
            "one key cpu p50": engine_bench.pct(key_cpu, 0.5), "one key cpu p95": engine_bench.pct(key_cpu, 0.95),
            "one key engine p50": engine_bench.pct(key_engine, 0.5), "one key draw p50": engine_bench.pct(key_draw, 0.5),
            "keys": len(keys), "memory": uss, "rss": rss,
            "load before": load0, "load after": os.getloadavg(), "cpus": os.cpu_count(),
            "others": others}


def report(r: dict) -> bool:
    """Print the figures against their budgets; True when all are within."""
    print(f"你自己的句子, the page (headless Chromium, 2×, http; engine {r['kernel']}), {r['cpus']} CPUs, load average "
          f"{r['load before'][0]:.2f} before, {r['load after'][0]:.2f} after; other work kept {r['others']:.1f} CPUs "
          "busy meanwhile (wall times below include waiting for them; the renderer's CPU time is the step's own)")
    rows = [("site's pages (downloads aside)", r["site"] / 1e6, "MB", None, "site", 1e6),
            ("offline book (zip; no model file)", None if r["offline"] is None else r["offline"] / 1e6, "MB", None,
             "offline", 1e6),
            ("ready (model bytes in memory → loaded)", r["ready"], "ms", None, "ready", 1),
            (f"{r['tokens']} tokens → 270 maps drawn (best; median {r['30 tokens median']:.0f})", r["30 tokens"], "ms",
             r["30 tokens cpu"], "30 tokens", 1),
            (f"one key → redrawn, {r['keys']} keys (p95; p50 {r['one key p50']:.0f})", r["one key p95"], "ms",
             r["one key cpu p50"], "one key p95", 1),
            ("page memory (renderer's own, USS)", r["memory"], "MB", None, "memory", 1)]
    ok = True
    for label, value, unit, cpu, budget, scale in rows:
        if value is None:
            print(f"  {label:<58} (not built: make site)")
            continue
        within = value <= BUDGETS[budget] / scale
        ok &= within
        cpu_text = f"  renderer CPU {cpu:5.0f} ms" if cpu is not None else ""
        limit = BUDGETS[budget] / scale
        print(f"  {label:<58} {value:7.1f} {unit}{cpu_text}  {'ok' if within else 'OVER'} (budget {limit:g} {unit})")
    print(f"    of one key (p50): the engine {r['one key engine p50']:.0f} ms in its Worker, the page's grouping, scores "
          f"and drawing {r['one key draw p50']:.0f} ms (30 tokens: {r['30 tokens draw']:.0f} ms); renderer CPU a key "
          f"p95 {r['one key cpu p95']:.0f} ms")
    print(f"    (page memory resident with Chromium's shared code: {r['rss']:.0f} MB)")
    return ok


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", default=str(ROOT / "_site"))
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    site = Path(args.site)
    if not (site / f"{sentence_page.PAGE}.html").exists():
        subprocess.run([sys.executable, "-m", "tools.site.build", "html", str(site)], check=True, cwd=ROOT)
    return 0 if report(measure(site, args.repeats)) else 1


if __name__ == "__main__":
    sys.exit(main())
