"""Every explorer live in the book, tested as a reader: headless Chromium, every request that is not
to the site itself aborted, over http (127.0.0.1) and over ``file://``.

For every live explorer on every page: each control goes to at least 5 positions by keyboard (arrow
keys, Home/End on a slider) and by pointer (a click on the slider's track, a pick in a menu); after
each move the picture must change when the Python explorer's view changes, and the readout's text
must equal the Python explorer's ``describe()`` for the same control values (the Python explorer is
set the same way: ``live_pages.set_values``). 恢复默认 must bring the default state back; no console
error, no failed request. Browser formulas (explorers recomputed in the page) are held to
``compute()`` on 200 random states to 1e-9 (the JS and numpy do the same few float operations in the
same order; 1e-9 leaves room for a different ``exp`` in the last bit, nothing more).

Outside CI these skip (with the reason) when Sphinx & co. or Chromium are missing, as in test_site.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from site_checks import require, site_missing

from tools import chromium
from tools.site.live import live_pages

pytestmark = pytest.mark.slow
POSITIONS = 5
RANDOM_STATES = 200
TOL = 1e-9


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    require(site_missing())
    require(chromium.missing())
    from tools.site import build as site_build

    prebuilt = os.environ.get("ATTENTION_LAB_LIVE_SITE")  # a site built already (make site), to iterate
    if prebuilt:
        return Path(prebuilt).resolve()
    work = tmp_path_factory.mktemp("livebook")
    return site_build.build("html", work / "_site", work=work / "build")


@pytest.fixture(scope="module")
def browser():
    with chromium.browser() as b:
        yield b


@pytest.fixture(scope="module")
def explorers():
    """One Python explorer per factory, made on first use (09 and 12 load a model)."""
    made = {}
    factories = live_pages.factories()

    def get(name):
        if name not in made:
            made[name] = factories[name]()
        return made[name]

    return get


def live_pages_of(site) -> dict:
    """``{page file: [explorer names]}`` of the built site."""
    out = {}
    for page in sorted(site.glob("*.html")):
        names = [m for m in re.findall(r'class="attnlab-live" data-explorer="(\w+)"',
                                                     page.read_text(encoding="utf-8"))]
        if names:
            out[page.name] = names
    return out


def open_page(browser, url: str, base: str, width: int = 1366):
    context = browser.new_context(viewport={"width": width, "height": 900}, device_scale_factor=1)
    page = context.new_page()
    outside = chromium.only_from(context, base)
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_function("document.documentElement.dataset.liveReady !== undefined", timeout=15000)
    return context, page, outside, errors


def live_state(root) -> dict:
    return root.evaluate("""r => ({key: r.dataset.key, readout: r.querySelector('.al-readout').textContent,
                                     picture: r.querySelector('.al-panels').innerHTML + r.querySelector('.al-title').textContent})""")


#: a zero shown with a minus sign ("-0.000"): a sum that cancels to within an ulp of 0 keeps the sign
#: of its last rounding, which depends on whether BLAS fuses multiply-add on this CPU, not on the formula
SIGNED_ZERO = re.compile(r"-(0\.0+)(?!\d)")


def html_text(page, markup: str) -> str:
    """The text a reader sees of ``markup`` (its zeros unsigned, see :data:`SIGNED_ZERO`)."""
    text = page.evaluate("h => { const t = document.createElement('div'); t.innerHTML = h; return t.textContent; }", markup)
    return SIGNED_ZERO.sub(r"\1", text)


def python_view(explorer, data, key: str, root=None):
    """The Python explorer's readout and web view for the page's state (a formula explorer: for the
    control values and whatever else the page keeps, its edited k, v rows)."""
    values = {c["name"]: c["values"][int(k)] for c, k in zip(data["controls"], key.split(","))}
    if explorer.web_formula is not None:
        extra = root.evaluate("r => r.live.extra") if root is not None else {}
        state = explorer.compute(**explorer.web_compute_args(values, extra))
        return explorer.describe(state), explorer.web_view(state)
    assert live_pages.set_values(explorer, values), f"the page shows {values}, which the Python explorer refuses"
    _, readout, view = live_pages.view_now(explorer)
    return readout, view


def moves(page, root, control: dict, data: dict):
    """Yield after each of ≥ POSITIONS moves of one control, by keyboard then by pointer."""
    sel = f'[data-control="{control["name"]}"]'
    handle = root.query_selector(sel)
    count = len(control["values"])
    if control["kind"] == "range":
        handle.focus()
        page.keyboard.press("Home")
        yield "Home"
        steps = max(1, (count - 1) // POSITIONS)
        for _ in range(POSITIONS):
            for _ in range(steps):
                page.keyboard.press("ArrowRight")
            yield f"ArrowRight ×{steps}"
        page.keyboard.press("End")
        yield "End"
        page.keyboard.press("ArrowLeft")
        yield "ArrowLeft"
        box = handle.bounding_box()
        for frac in (0.02, 0.25, 0.5, 0.75, 0.98):
            page.mouse.click(box["x"] + frac * box["width"], box["y"] + box["height"] / 2)
            yield f"click {frac}"
    elif control["kind"] == "check":
        for _ in range(POSITIONS + 1):
            handle.focus()
            page.keyboard.press("Space")
            yield "Space"
            handle.click()
            yield "click"
    else:
        options = list(range(count)) * (1 + POSITIONS // max(1, count))
        for k in options[:max(POSITIONS, count)]:
            handle.select_option(str(k))
            yield f"select {k}"
        handle.focus()
        for key in ("ArrowDown", "ArrowUp") * 3:
            page.keyboard.press(key)
            yield key


def drive(page, root, name, explorers) -> int:
    """Every control of one explorer through its moves; returns the number of moves checked."""
    data = root.evaluate("r => ({controls: r.live.data.controls})")
    explorer = explorers(name)
    checked = 0
    default = root.evaluate("r => r.dataset.key")
    before = live_state(root)
    prev_view = python_view(explorer, data, before["key"], root)[1]
    # last control first: a control whose range follows another (05's row after 追加 token) is then
    # driven with that other at its end, where its whole range is open
    for control in reversed(data["controls"]):
        seen = set()
        for how in moves(page, root, control, data):
            now = live_state(root)
            readout, view = python_view(explorer, data, now["key"], root)
            assert SIGNED_ZERO.sub(r"\1", now["readout"]) == html_text(page, readout), (
                f"{name} after {control['name']} {how}: readout")
            if view != prev_view:
                assert now["picture"] != before["picture"], f"{name} after {control['name']} {how}: picture unchanged"
            before, prev_view = now, view
            seen.add(now["key"].split(",")[data["controls"].index(control)])
            checked += 1
        assert len(seen) >= min(POSITIONS, len(control["values"])), f"{name}: {control['name']} reached only {seen}"
    root.query_selector(".al-reset").click()
    now = live_state(root)
    assert now["key"] == default, f"{name}: 恢复默认 left {now['key']}, not {default}"
    readout, _ = python_view(explorer, data, default, root)
    assert SIGNED_ZERO.sub(r"\1", now["readout"]) == html_text(page, readout)
    return checked


@pytest.mark.parametrize("scheme", ["http", "file"])
def test_every_explorer_as_a_reader(site, browser, explorers, scheme):
    pages = live_pages_of(site)
    assert pages, "no page of the site has a live explorer"
    with chromium.serve(site) as http_base:
        base = http_base if scheme == "http" else site.as_uri()
        for page_name, names in pages.items():
            context, page, outside, errors = open_page(browser, f"{base}/{page_name}", base)
            try:
                roots = page.query_selector_all(".attnlab-live")
                assert [r.get_attribute("data-explorer") for r in roots] == names
                for root, name in zip(roots, names):
                    assert root.evaluate("r => r.classList.contains('al-ready')"), f"{page_name}: {name} did not start"
                    root.scroll_into_view_if_needed()
                    assert drive(page, root, name, explorers) >= POSITIONS
                assert not errors, f"{page_name}: console errors {errors}"
                assert not outside, f"{page_name}: requests outside the site {outside}"
            finally:
                context.close()


def close(a, b, path="state"):
    if isinstance(b, dict):
        for k in b:
            close(a[k], b[k], f"{path}.{k}")
    else:
        assert np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=0, atol=TOL), path


def test_browser_formulas_equal_compute(site, browser, explorers):
    """Each browser formula against the Python explorer's compute() and describe() on random states."""
    rng = np.random.default_rng(0)
    pages = live_pages_of(site)
    with chromium.serve(site) as base:
        for page_name, names in pages.items():
            context, page, _, errors = open_page(browser, f"{base}/{page_name}", base)
            try:
                for root, name in zip(page.query_selector_all(".attnlab-live"), names):
                    formula = root.evaluate("r => r.live.data.formula || null")
                    if formula is None:
                        continue
                    explorer = explorers(name)
                    controls = root.evaluate("r => r.live.data.controls")
                    for _ in range(RANDOM_STATES):
                        values = {c["name"]: c["values"][rng.integers(len(c["values"]))] for c in controls}
                        extra = explorer.web_random_extra(rng) if hasattr(explorer, "web_random_extra") else {}
                        got = root.evaluate("(r, a) => { const s = AttnLabLive.formulas[r.live.data.formula]("
                                            "a.values, r.live.data, {extra: a.extra}); return {state: s.state, readout: s.readout}; }",
                                            {"values": values, "extra": extra})
                        args = explorer.web_compute_args(values, extra)
                        state = explorer.compute(**args)
                        close(got["state"], explorer.web_state_numbers(state))
                        assert html_text(page, got["readout"]) == html_text(page, explorer.describe(state)), (name, values)
                assert not errors
            finally:
                context.close()


def test_live_data_within_budget(site):
    """Each page's inline explorer data ≤ 3 MB; nothing refers to another host."""
    for page in site.glob("*.html"):
        text = page.read_text(encoding="utf-8")
        data = sum(len(m) for m in re.findall(r'<script type="application/octet-stream" class="al-data">([^<]*)<', text))
        assert data <= 3 * 10 ** 6, f"{page.name}: {data} bytes of explorer data"
    js = (site / "_static" / "attnlab_live.js").read_text(encoding="utf-8")
    assert "http://" not in js.replace(json.dumps("http://www.w3.org/2000/svg")[1:-1], "")


def test_touch_at_phone_width(site, browser):
    """At 390 px with a touch screen: every explorer fits the column (nothing wider than the page) and
    a tap on each slider's track moves it."""
    base = site.as_uri()
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, has_touch=True,
                                  is_mobile=True)
    outside = chromium.only_from(context, base)
    try:
        for page_name in live_pages_of(site):
            page = context.new_page()
            page.goto(f"{base}/{page_name}")
            page.wait_for_function("document.documentElement.dataset.liveReady !== undefined", timeout=15000)
            for root in page.query_selector_all(".attnlab-live"):
                root.scroll_into_view_if_needed()
                width = root.evaluate("r => [r.scrollWidth, r.clientWidth, r.getBoundingClientRect().right]")
                assert width[0] <= width[1] + 1 and width[2] <= 391, f"{page_name}: an explorer is wider than the phone {width}"
                for slider in root.query_selector_all("input[type=range]"):
                    slider.scroll_into_view_if_needed()
                    box = slider.bounding_box()
                    keys = []
                    for frac in (0.05, 0.95):
                        page.touchscreen.tap(box["x"] + frac * box["width"], box["y"] + box["height"] / 2)
                        keys.append(root.evaluate("r => r.dataset.key"))
                    assert keys[0] != keys[1] or slider.evaluate("s => Number(s.max) === 0"), (page_name, keys)
            page.close()
        assert not outside
    finally:
        context.close()
