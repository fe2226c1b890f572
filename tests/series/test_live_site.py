"""Every explorer live in the book, tested as a reader: headless Chromium, every request that is not
to the site itself aborted, over http (127.0.0.1) and over ``file://``.

For every live explorer on every page: each control goes to at least 5 positions by keyboard (arrow
keys, Home/End on a slider) and by pointer (a click on the slider's track, a pick in a menu); after
each move the picture must change when the Python explorer's view changes, and the readout's text
must equal the Python explorer's ``describe()`` for the same control values (the Python explorer is
set the same way: ``live_pages.set_values``). 恢复默认 must bring the default state back; no console
error, no failed request. Browser formulas (explorers recomputed in the page) are held to
``compute()`` on their corner states and 200 random ones to 1e-9 (the JS and numpy do the same few
float operations in the same order; 1e-9 leaves room for a different ``exp`` in the last bit, nothing
more). No readout shows a negative zero (``-0.000``): not one the page writes, not one the book stores
(every grid state's ``describe()``), not one a formula explorer's ``describe()`` gives.

On a 390 px phone (touch): every explorer fits the column; no text in it is under 10 CSS px, and no
two texts of a panel overlap (at 1366 px either); scrolled to the picture, every control is still in
view and usable over it; a vertical swipe that starts on a slider scrolls the page and leaves the
slider, a drag along it moves it.

Outside CI these skip (with the reason) when Sphinx & co. or Chromium are missing, as in test_site.
"""
from __future__ import annotations

import base64
import gzip
import itertools
import json
import re

import numpy as np
import pytest
from site_checks import module_browser

from tools import chromium
from tools.site.live import live_pages

pytestmark = pytest.mark.slow
POSITIONS = 5
RANDOM_STATES = 200
TOL = 1e-9


browser = pytest.fixture(scope="module", name="browser")(module_browser)


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


#: a zero shown with a minus sign ("-0.000", "-0"): no readout shows one (a sum that cancels to within
#: an ulp of 0 keeps the sign of its last rounding, which depends on the order of its additions —
#: numpy's, the page's JavaScript — not on anything the reader set; helpers.render.format.unsigned_zeros)
NEGATIVE_ZERO = re.compile(r"(?<![\w.])-0(?:\.0+)?(?![\w.])")


def html_text(page, markup: str) -> str:
    """The text a reader sees of ``markup``."""
    return page.evaluate("h => { const t = document.createElement('div'); t.innerHTML = h; return t.textContent; }", markup)


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
            assert now["readout"] == html_text(page, readout), f"{name} after {control['name']} {how}: readout"
            assert not NEGATIVE_ZERO.search(now["readout"]), f"{name} after {control['name']} {how}: {now['readout']}"
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
    assert now["readout"] == html_text(page, readout)
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


def corner_states(controls) -> list:
    """Every combination of each control's first value, its value nearest 0 (a number control's) and
    its last: where sums cancel to zero (03's q = (−3, −3) against a k row of zeros) and ranges end."""
    picks = []
    for c in controls:
        values = c["values"]
        chosen = {0, len(values) - 1}
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            chosen.add(min(range(len(values)), key=lambda i: abs(values[i])))
        picks.append([values[i] for i in sorted(chosen)])
    return [dict(zip([c["name"] for c in controls], combo)) for combo in itertools.product(*picks)]


def formula_states(controls, explorer, rng) -> list:
    """``(values, extra)`` of a formula explorer's states to check: :func:`corner_states` with the
    article's rows, then :data:`RANDOM_STATES` random ones (with random edited rows where it keeps any)."""
    out = [(values, {}) for values in corner_states(controls)]
    for _ in range(RANDOM_STATES):
        values = {c["name"]: c["values"][rng.integers(len(c["values"]))] for c in controls}
        out.append((values, explorer.web_random_extra(rng) if hasattr(explorer, "web_random_extra") else {}))
    return out


def test_browser_formulas_equal_compute(site, browser, explorers):
    """Each browser formula against the Python explorer's compute() and describe() on its corner
    states and random ones; no readout it writes shows a negative zero."""
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
                    for values, extra in formula_states(controls, explorer, rng):
                        got = root.evaluate("(r, a) => { const s = AttnLabLive.formulas[r.live.data.formula]("
                                            "a.values, r.live.data, {extra: a.extra}); return {state: s.state, readout: s.readout}; }",
                                            {"values": values, "extra": extra})
                        args = explorer.web_compute_args(values, extra)
                        state = explorer.compute(**args)
                        close(got["state"], explorer.web_state_numbers(state))
                        shown = html_text(page, got["readout"])
                        assert shown == html_text(page, explorer.describe(state)), (name, values)
                        assert not NEGATIVE_ZERO.search(shown), (name, values, shown)
                assert not errors
            finally:
                context.close()


def stored_data(site) -> list:
    """``(page, explorer name, data)`` of every live explorer the built site holds."""
    out = []
    for page in sorted(site.glob("*.html")):
        text = page.read_text(encoding="utf-8")
        for name, encoded in re.findall(r'class="attnlab-live" data-explorer="(\w+)">'
                                        r'<script type="application/octet-stream" class="al-data">([^<]*)<', text):
            out.append((page.name, name, json.loads(gzip.decompress(base64.b64decode(encoded)))))
    return out


def test_no_readout_the_book_stores_or_computes_shows_a_negative_zero(site, explorers):
    """Python's side of every readout in the book: each stored state's readout and title (a grid
    explorer's ``describe()``, computed at build time) and a formula explorer's ``describe()`` on the
    states its page can reach (corner and random states); the page's side: the browser tests above."""
    rng = np.random.default_rng(1)
    found = stored_data(site)
    assert {name for _, name, _ in found} == {n for names in live_pages_of(site).values() for n in names}
    for page, name, data in found:
        if "grid" in data:
            strings = data["grid"]["strings"]
            for key, state in data["grid"]["states"].items():
                for shown in (strings[state[0]], strings[state[1]]):
                    assert not NEGATIVE_ZERO.search(shown), (page, name, key, shown)
            continue
        explorer = explorers(name)
        assert not NEGATIVE_ZERO.search(data["readout"]), (page, name, data["readout"])
        for values, extra in formula_states(data["controls"], explorer, rng):
            shown = explorer.describe(explorer.compute(**explorer.web_compute_args(values, extra)))
            assert not NEGATIVE_ZERO.search(shown), (page, name, values, shown)


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


# -- on a phone ----------------------------------------------------------------------------------

#: the phone of the tests below (CSS px) and the smallest text it may show in an explorer
PHONE = {"width": 390, "height": 844}
MIN_TEXT_PX = 10
#: every text in an explorer (a root) and its size as drawn, in CSS px: an SVG text's font size times
#: the SVG's scale (its viewBox drawn at the column's width), an HTML text's computed size
TEXT_SIZES = """r => {
  const out = [];
  for (const t of r.querySelectorAll('svg text')) {
    if (!t.textContent.trim()) continue;
    const m = t.getScreenCTM();
    out.push([t.textContent.slice(0, 40), parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b)]);
  }
  const walk = document.createTreeWalker(r, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const e = n.parentElement;
    if (!n.textContent.trim() || e.closest('svg, script, option')) continue;
    out.push([n.textContent.trim().slice(0, 40), parseFloat(getComputedStyle(e).fontSize)]);
  }
  return out;
}"""
#: pairs of texts of one panel that overlap (their boxes share more than 2 px² on screen)
OVERLAPS = """r => {
  const out = [];
  for (const svg of r.querySelectorAll('svg')) {
    const boxes = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim())
      .map(t => [t.textContent.slice(0, 30), t.getBoundingClientRect()]);
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i][1], b = boxes[j][1];
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 0 && h > 0 && w * h > 2) out.push([svg.getAttribute('aria-label'), boxes[i][0], boxes[j][0]]);
    }
  }
  return out;
}"""


def phone_context(browser, base):
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True, is_mobile=True)
    return context, chromium.only_from(context, base)


def open_live(context, url: str):
    page = context.new_page()
    page.goto(url)
    page.wait_for_function("document.documentElement.dataset.liveReady !== undefined", timeout=15000)
    page.evaluate("document.fonts.ready.then(() => true)")
    return page


def to_the_end(page, root, control) -> str:
    """Move one control to its last reachable value (a slider: End; a menu: its last option shown;
    a checkbox: toggled); returns how."""
    kind = control.evaluate("e => e.type")
    if kind == "range":
        control.focus()
        page.keyboard.press("End")
        return "End"
    if kind == "checkbox":
        control.click()
        return "toggled"
    last = control.evaluate("s => Math.max(...[...s.options].filter(o => !o.disabled).map(o => Number(o.value)))")
    control.select_option(str(last))
    return f"option {last}"


def test_no_explorer_text_is_under_10_css_px_on_a_phone_and_no_two_labels_overlap(site, browser):
    """At 390 px every text of every explorer (labels, values, readout; each panel's titles, ticks,
    legends) is drawn at 10 CSS px or more, in the default state and with each control at its end;
    and no two texts of a panel overlap, there and at 1366 px (the default state)."""
    base = site.as_uri()
    small, overlaps = {}, {}
    for width in (PHONE["width"], 1366):
        if width == PHONE["width"]:
            context, outside = phone_context(browser, base)
        else:
            context = browser.new_context(viewport={"width": width, "height": 900})
            outside = chromium.only_from(context, base)
        try:
            for page_name in live_pages_of(site):
                page = open_live(context, f"{base}/{page_name}")
                for root in page.query_selector_all(".attnlab-live"):
                    where = f"{width}px {page_name} {root.get_attribute('data-explorer')}"
                    states = [("default", None)] + ([(None, c) for c in root.query_selector_all("[data-control]")]
                                                    if width == PHONE["width"] else [])
                    for how, control in states:
                        if control is not None:
                            how = f"{control.get_attribute('data-control')} {to_the_end(page, root, control)}"
                        if width == PHONE["width"]:
                            small[where] = small.get(where, []) + [(how, text, round(size, 1)) for text, size
                                                                   in root.evaluate(TEXT_SIZES) if size < MIN_TEXT_PX - 0.05]
                        overlaps[where] = overlaps.get(where, []) + [(how, *pair) for pair in root.evaluate(OVERLAPS)]
                    root.query_selector(".al-reset").click()
                page.close()
            assert not outside
        finally:
            context.close()
    small = {k: v[:6] for k, v in small.items() if v}
    overlaps = {k: v[:6] for k, v in overlaps.items() if v}
    assert not small, f"texts under {MIN_TEXT_PX} CSS px at {PHONE['width']} px: {small}"
    assert not overlaps, f"texts drawn over each other: {overlaps}"


def touch(cdp, points) -> None:
    """A finger put down at ``points[0]``, moved through the others in steps, lifted."""
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": points[0][0], "y": points[0][1]}]})
    for x, y in points[1:]:
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_a_vertical_swipe_that_starts_on_a_slider_scrolls_and_leaves_it_a_drag_along_it_moves_it(site, browser):
    """On a phone: a swipe up that starts on a slider scrolls the page and leaves the slider (and the
    explorer's state) where it was; a drag along the slider moves it."""
    base = site.as_uri()
    context, outside = phone_context(browser, base)
    try:
        for page_name in live_pages_of(site):
            page = open_live(context, f"{base}/{page_name}")
            cdp = context.new_cdp_session(page)
            for root in page.query_selector_all(".attnlab-live"):
                slider = root.query_selector("input[type=range]")
                if slider is None or slider.evaluate("s => Number(s.max) === 0"):
                    continue
                page.evaluate("r => window.scrollTo(0, r.getBoundingClientRect().top + scrollY - 200)", root)
                page.wait_for_timeout(100)
                box, key, y0 = slider.bounding_box(), root.evaluate("r => r.dataset.key"), page.evaluate("scrollY")
                x, y = box["x"] + 0.3 * box["width"], box["y"] + box["height"] / 2
                touch(cdp, [(x, y - 12 * k) for k in range(13)])
                page.wait_for_timeout(300)
                where = f"{page_name} {root.get_attribute('data-explorer')}"
                assert page.evaluate("scrollY") > y0, f"{where}: a swipe up on a slider did not scroll"
                assert root.evaluate("r => r.dataset.key") == key, f"{where}: a swipe up on a slider moved it"
                box = slider.bounding_box()
                y = box["y"] + box["height"] / 2
                ends = (0.9, 0.1) if slider.evaluate("s => Number(s.value) > Number(s.max) / 2") else (0.1, 0.9)
                touch(cdp, [(box["x"] + f * box["width"], y) for f in np.linspace(*ends, 12)])  # away from its value
                page.wait_for_timeout(100)
                assert root.evaluate("r => r.dataset.key") != key, f"{where}: a drag along a slider did not move it"
            page.close()
        assert not outside
    finally:
        context.close()


def test_on_a_phone_the_controls_stay_in_view_over_the_picture(site, browser):
    """At 390 px, scrolled to an explorer's picture: every control is still on screen and can be
    reached (nothing covers it: the controls stay under the page's header), the picture fills at least
    40 % of the screen below them (or shows whole), and moving the first slider there changes the picture in view."""
    base = site.as_uri()
    context, outside = phone_context(browser, base)
    try:
        for page_name in live_pages_of(site):
            page = open_live(context, f"{base}/{page_name}")
            for root in page.query_selector_all(".attnlab-live"):
                where = f"{page_name} {root.get_attribute('data-explorer')}"
                page.evaluate("""r => { const c = r.querySelector('.al-controls'), p = r.querySelector('.al-panels');
                                         window.scrollTo(0, p.getBoundingClientRect().top + scrollY - c.offsetHeight - 80); }""", root)
                page.wait_for_timeout(150)
                seen = root.evaluate("""r => {
                    const controls = [...r.querySelectorAll('[data-control], [data-action], .al-reset')];
                    const hidden = controls.filter(e => { const b = e.getBoundingClientRect(), x = b.left + b.width / 2, y = b.top + b.height / 2;
                        const at = document.elementFromPoint(x, y); return !(at && (at === e || e.contains(at) || at.contains(e))); })
                      .map(e => e.dataset.control || e.dataset.action || 'reset');
                    const under = r.querySelector('.al-controls').getBoundingClientRect().bottom;
                    const pic = r.querySelector('.al-panels').getBoundingClientRect();
                    return {hidden, shown: Math.min(pic.bottom, innerHeight) - Math.max(pic.top, under), screen: innerHeight - under,
                            whole: pic.height};
                }""")
                assert not seen["hidden"], f"{where}: controls out of view or covered over the picture: {seen['hidden']}"
                assert seen["shown"] >= min(0.4 * seen["screen"], seen["whole"] - 1), (
                    f"{where}: the picture shows {seen['shown']:.0f} px of {seen['whole']:.0f} under the controls")
                slider = root.query_selector("input[type=range]")
                if slider is None or slider.evaluate("s => Number(s.max) === 0"):
                    continue
                before = live_state(root)
                box = slider.bounding_box()
                page.touchscreen.tap(box["x"] + (0.95 if slider.evaluate("s => Number(s.value) < Number(s.max) / 2") else 0.05)
                                     * box["width"], box["y"] + box["height"] / 2)
                assert live_state(root)["key"] != before["key"], f"{where}: a tap on the slider over the picture did nothing"
            page.close()
        assert not outside
    finally:
        context.close()
