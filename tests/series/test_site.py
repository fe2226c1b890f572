"""The series as a book, to read without a notebook server: the static site, its Chinese search, and the PDF.

Built once per session from the stored notebooks into a temporary folder (tools/site/build.py,
tools/site/pdf.py, the same code as ``make site`` / ``make pdf``). Then: what every page shows
(pages in series order, previous/next, the README's table, every stored figure at its stored
width, every explorer's preview, every text output, the per-page actions); that no page refers to
anything outside the site; and in headless Chromium with every request not to 127.0.0.1 aborted:
every page loads with 0 failed requests, every image decodes, every link resolves, search finds
the right pages. The PDF: page count, every title in its text layer, fonts embedded, the title
page's version, licences and address for problems.

Outside CI these skip (with the reason) when Sphinx & co. or Chromium are missing; CI sets
ATTENTION_LAB_REQUIRE_BROWSER=1, which turns the skips into failures.
"""
from __future__ import annotations

import base64
import json
import re
import struct
import subprocess
import urllib.parse
from html.parser import HTMLParser
from pathlib import Path

import pytest
from paths import ROOT
from site_checks import module_browser, require, site_missing

from tools import chromium
from tools.series import NOTEBOOKS

pytestmark = pytest.mark.slow
PAGES = ["index", *NOTEBOOKS]
#: (query, the page that must come first or second, why)
SEARCHES = [
    ("归纳头", "13_induction_circuit", "the induction circuit is 13's subject"),
    ("KV Cache", "05_causal_mask", "05 is 因果掩码与 KV Cache"),
    ("归纳头的作用", "13_induction_circuit", "a phrase typed without spaces is cut into the index's words"),
    ("因果掩码", "05_causal_mask", "05's title"),
]
#: a query no page matches: search must not simply list every page
NO_MATCH = "量子纠缠"
#: pages of the PDF per notebook: 9 on average when written (108 for 12), 12.4 for 14; well outside this
#: range something is missing (a notebook, its figures) or broken (every figure on its own page)
PDF_PAGES = (5 * len(NOTEBOOKS), 16 * len(NOTEBOOKS))
#: the browser window of the browser tests (px)
WINDOW = 1700


browser = pytest.fixture(scope="module", name="browser")(module_browser)


@pytest.fixture(scope="module")
def pdf(work, browser) -> Path:
    require(site_missing())
    from tools.site import pdf as site_pdf

    return site_pdf.build(work / "attention-lab.pdf", work=work / "build", browser=browser)


class Page(HTMLParser):
    """Tags, attributes and text of one built page."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags, self.chunks, self.ids = [], [], set()
        self.feed(text)
        self.text = "".join(self.chunks)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if "id" in attrs:
            self.ids.add(attrs["id"])

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        self.chunks.append(data)

    def all(self, tag, **match):
        return [a for t, a in self.tags if t == tag and all(c in (a.get(k) or "").split() for k, c in match.items())]


def page(site: Path, name: str) -> Page:
    return Page((site / f"{name}.html").read_text(encoding="utf-8"))


def notebook(name: str) -> dict:
    return json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))


def squash(text: str) -> str:
    return "".join(text.split())


def png_width(data: bytes) -> int:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">I", data[16:20])[0]


def is_explorer_cell(cell) -> bool:
    return cell["cell_type"] == "code" and re.fullmatch(r"helpers\.widgets\.\w+\(.*\)", "".join(cell["source"]).strip())


# -- what the pages show -------------------------------------------------------------------------

def test_pages_in_series_order_with_previous_and_next(site):
    """index, the notebooks in order, then the page 你自己的句子 (its own section of the sidebar)."""
    from tools.site.live.sentence import page as sentence_page

    order = [*PAGES, sentence_page.PAGE]
    for i, name in enumerate(PAGES):
        p = page(site, name)
        links = {a.get("rel"): a.get("href") for a in p.all("link") if a.get("rel") in ("prev", "next")}
        want_prev = f"{order[i - 1]}.html" if i > 0 else None
        want_next = f"{order[i + 1]}.html"
        assert links.get("prev") == want_prev and links.get("next") == want_next, (name, links)
        shown = [a.get("href") for a in p.all("a", **{"class": "left-prev"})] + \
                [a.get("href") for a in p.all("a", **{"class": "right-next"})]
        assert shown == [h for h in (want_prev, want_next) if h], (name, shown)
    sidebar = [a.get("href") for a in page(site, "index").all("a", **{"class": "reference"})
               if a.get("href", "").split("#")[0].removesuffix(".html") in NOTEBOOKS]
    order = list(dict.fromkeys(h.split("#")[0].removesuffix(".html") for h in sidebar))
    assert order == NOTEBOOKS


def test_index_shows_the_readme_table_linked(site):
    from tools.site import build as site_build

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = site_build.readme_sections(readme)["篇目"]
    index = page(site, "index")
    hrefs = {a.get("href") for a in index.all("a")}
    for row in table.splitlines()[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        name, what = cells[0].strip("`"), cells[1]
        assert f"{name}.html" in hrefs, f"the README's row {name} is not linked to its page"
        assert squash(what) in squash(index.text), f"the README's text for {name} is missing: {what}"
    assert len(table.splitlines()) - 2 == len(NOTEBOOKS)


def test_every_stored_figure_is_shown_at_its_stored_width(site):
    for name in NOTEBOOKS:
        want = []
        for cell in notebook(name)["cells"]:
            for out in cell.get("outputs", []):
                if "image/png" in out.get("data", {}):
                    data = base64.b64decode(out["data"]["image/png"])
                    width = out.get("metadata", {}).get("image/png", {}).get("width")
                    assert width is not None, f"{name}: a stored figure has no width metadata"
                    # the series stores figures at 2x: width metadata = half the pixel width
                    assert abs(png_width(data) - 2 * width) <= 1, (name, png_width(data), width)
                    want.append((data, width))
        imgs = [a for a in page(site, name).all("img") if a.get("src", "").startswith("_images/")]
        assert len(imgs) == len(want), f"{name}: {len(want)} stored figures, {len(imgs)} on the page"
        for (data, width), img in zip(want, imgs):
            assert (site / img["src"]).read_bytes() == data, f"{name}: {img['src']} is not the stored figure"
            assert img.get("width") == str(width), f"{name}: {img['src']} shown at {img.get('width')}, stored {width}"


def test_every_explorer_shows_its_static_preview(site):
    for name in NOTEBOOKS:
        cells = [c for c in notebook(name)["cells"] if is_explorer_cell(c)]
        assert all(any("image/png" in o.get("data", {}) for o in c["outputs"]) for c in cells), name
        p = page(site, name)
        previews = p.all("img", **{"class": "attnlab-preview"})
        captions = p.text.count("交互控件的静态预览：")
        assert len(previews) == captions == len(cells), (name, len(previews), captions, len(cells))
    assert sum(len([c for c in notebook(n)["cells"] if is_explorer_cell(c)]) for n in NOTEBOOKS) >= len(NOTEBOOKS)


def test_code_cells_and_their_text_outputs_are_shown(site):
    for name in NOTEBOOKS:
        text = squash(page(site, name).text)
        for cell in notebook(name)["cells"]:
            if cell["cell_type"] != "code" or "remove-cell" in cell["metadata"].get("tags", []):
                continue  # the setup cell is for JupyterLab and Colab, left out of the book
            assert squash("".join(cell["source"])) in text, f"{name}: a code cell is missing"
            for out in cell.get("outputs", []):
                if out["output_type"] == "stream":
                    assert squash("".join(out["text"])) in text, f"{name}: a printed output is missing"


def built_downloads(dist) -> dict:
    """``{label: file}`` of the book's downloads that ``dist`` holds: those the site links."""
    from tools.site import attnlab_site

    return attnlab_site.served(p.name for p in dist.iterdir())


def test_every_page_has_the_themes_launch_and_download_buttons_and_the_books_downloads(site, dist):
    from tools.site import attnlab_site

    for name in PAGES:
        p = page(site, name)
        hrefs = [a.get("href") for a in p.all("a")]
        if name != "index":
            assert attnlab_site.colab_url(name) in hrefs, name
            assert any(h.startswith(attnlab_site.binder_url(name).split("?")[0]) and
                       h.endswith(f"urlpath=lab/tree/notebooks/{name}.ipynb") for h in hrefs), name
            assert f"_sources/{name}.ipynb" in hrefs, name
            assert (site / "_sources" / f"{name}.ipynb").read_bytes() == (ROOT / "notebooks" / f"{name}.ipynb").read_bytes()
        downloads = [a.get("href") for a in p.all("a", **{"class": "attnlab-download"})]
        assert downloads == [f"downloads/{f}" for f in built_downloads(dist).values()], (name, downloads)
        assert f"index.html#{attnlab_site.LOCAL_RUN}" in hrefs or f"#{attnlab_site.LOCAL_RUN}" in hrefs, name


def test_no_page_shows_the_notebooks_own_header_cells(site):
    """The setup cell, the Colab/Binder line and the navigation footer are tagged remove-cell: the
    pages open on the lesson and have one previous/next (the theme's)."""
    for name in NOTEBOOKS:
        text = (site / f"{name}.html").read_text(encoding="utf-8")
        assert "SETUP_LOG" not in text and "import importlib.util" not in text, name
        assert "在 Colab 中打开" not in text and "← 上一篇" not in text, name


def test_the_index_gives_the_way_without_github_in_full(site, dist):
    from tools.home import home
    from tools.site import attnlab_site

    p = page(site, "index")
    assert attnlab_site.LOCAL_RUN in p.ids
    for want in (home()["mirror"], "attention-lab lab", "pypi.tuna.tsinghua.edu.cn", *built_downloads(dist).values()):
        assert want in p.text, want


def test_no_page_refers_to_anything_outside_the_site(site):
    """Only links a reader clicks (<a href>) may leave the site; no script, style, font, image or
    frame comes from elsewhere — not even the Colab badge in the notebooks' first cell."""
    outside = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.I)
    for path in sorted(site.glob("*.html")):
        p = Page(path.read_text(encoding="utf-8"))
        for tag, attrs in p.tags:
            for key in ("src", "href", "srcset", "data", "poster"):
                value = attrs.get(key) or ""
                if tag == "a" and key == "href":
                    continue
                assert not outside.match(value) and not value.startswith("data:text/html"), (path.name, tag, value)
        assert "colab-badge" not in path.read_text(encoding="utf-8"), path.name
    for css in sorted(site.rglob("*.css")):
        text = css.read_text(encoding="utf-8", errors="replace")
        assert not re.search(r"url\(\s*['\"]?(?:https?:)?//", text), css
        assert not re.search(r"@import\s+(?:url\()?['\"]?(?:https?:)?//", text), css


def test_maths_is_mathml_written_at_build_time(site):
    p = page(site, "08_reading_attention")
    assert p.all("math"), "08's formulas should be MathML"
    assert not [a for t, a in p.tags if t == "script" and "mathjax" in (a.get("src") or "").lower()]


# -- in the browser ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def served(site, browser):
    with chromium.serve(site) as base:
        # wide enough that the widest stored figure (921 px) fits the text column at 1x
        context = browser.new_context(viewport={"width": WINDOW, "height": 1000})
        outside = chromium.only_from(context, base)
        yield base, context, outside
        context.close()


def visit(context, url: str) -> tuple:
    """Open URL; (page, problems): failed requests, HTTP errors, console errors, script errors."""
    p = context.new_page()
    problems = []
    p.on("requestfailed", lambda r: problems.append(f"failed: {r.url} ({r.failure})"))
    p.on("response", lambda r: problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
    p.on("console", lambda m: problems.append(f"console: {m.text}") if m.type == "error" else None)
    p.on("pageerror", lambda e: problems.append(f"script: {e}"))
    p.goto(url, wait_until="load")
    p.evaluate("document.fonts.ready.then(() => true)")
    return p, problems


@pytest.mark.browser
def test_every_page_loads_from_the_site_alone(site, served):
    base, context, outside = served
    report = {}
    for name in [*PAGES, "search", "genindex"]:
        p, problems = visit(context, f"{base}/{name}.html")
        images = p.evaluate("Array.from(document.images).map(i => [i.getAttribute('src'), i.complete && i.naturalWidth])")
        problems += [f"image not drawn: {src}" for src, width in images if not width]
        if name in NOTEBOOKS:
            # an explorer's still picture gives way on screen to its live view (tools/site/live)
            replaced = p.evaluate("document.querySelectorAll('.al-replaced img').length")
            want = len([a for a in page(site, name).all("img") if a.get("src", "").startswith("_images/")]) - replaced
            shown = p.evaluate("Array.from(document.querySelectorAll('.cell_output:not(.al-replaced) img')).map(i =>"
                               " [i.getAttribute('src'), +i.getAttribute('width'), i.getBoundingClientRect().width])")
            problems += [f"{len(shown)} output images, want {want}"] if len(shown) != want else []
            problems += [f"{src} drawn {drawn:.0f} px wide, stored at {width} px" for src, width, drawn in shown
                         if abs(drawn - width) > 1]
        if problems:
            report[name] = problems
        p.close()
    assert not outside, f"requests outside 127.0.0.1 (aborted): {sorted(set(outside))[:10]}"
    assert not report, report


@pytest.mark.browser
def test_every_link_within_the_site_resolves(site, served):
    base, context, _ = served
    broken = []
    checked, ids = {}, {}
    for name in PAGES:
        for attrs in page(site, name).all("a"):
            href = attrs.get("href") or ""
            if not href or re.match(r"^[a-z][a-z0-9+.-]*:|^//", href, re.I):
                continue
            target, _, fragment = urllib.parse.urljoin(f"{name}.html", href).partition("#")
            target = target or f"{name}.html"
            if target not in checked:
                checked[target] = context.request.get(f"{base}/{urllib.parse.quote(target)}").status
            if checked[target] != 200:
                broken.append(f"{name}: {href} → HTTP {checked[target]}")
            elif fragment and target.endswith(".html"):
                if target not in ids:
                    ids[target] = Page((site / urllib.parse.unquote(target)).read_text(encoding="utf-8")).ids
                if urllib.parse.unquote(fragment) not in ids[target]:
                    broken.append(f"{name}: {href} → no #{fragment} there")
    assert len(checked) > len(PAGES), "too few links checked to mean anything"
    assert not broken, broken[:20]


def search(context, base: str, query: str) -> list:
    p, problems = visit(context, f"{base}/search.html?q={urllib.parse.quote(query)}")
    p.wait_for_function("() => { const s = document.querySelector('#search-results p.search-summary');"
                        " return s && s.textContent.trim().length > 0; }", timeout=30_000)
    hrefs = p.eval_on_selector_all("#search-results ul.search li a", "els => els.map(e => e.getAttribute('href'))")
    p.close()
    assert not problems, problems
    return list(dict.fromkeys(h.split("#")[0].split("?")[0].removesuffix(".html") for h in hrefs))


@pytest.mark.browser
@pytest.mark.parametrize("query,expected,why", SEARCHES, ids=[q for q, _, _ in SEARCHES])
def test_chinese_search_finds_the_right_page(served, query, expected, why):
    base, context, _ = served
    found = search(context, base, query)
    assert expected in found[:2], f"{query!r} ({why}): found {found}"


@pytest.mark.browser
def test_search_is_not_everything(served):
    base, context, _ = served
    assert search(context, base, NO_MATCH) == []


# -- the PDF -------------------------------------------------------------------------------------

def poppler(tool: str, *args) -> str:
    require("" if Path(f"/usr/bin/{tool}").exists() else f"{tool} not found (apt-get install poppler-utils)")
    return subprocess.run([tool, *args], check=True, capture_output=True, text=True).stdout


@pytest.mark.browser
def test_pdf_has_every_notebook_and_a_plausible_length(pdf):
    from tools.notebooks.pairs import title

    pages = int(re.search(r"^Pages:\s+(\d+)", poppler("pdfinfo", str(pdf)), re.M).group(1))
    assert PDF_PAGES[0] <= pages <= PDF_PAGES[1], pages
    text = squash(poppler("pdftotext", str(pdf), "-"))
    first = squash(poppler("pdftotext", "-f", "1", "-l", "2", str(pdf), "-"))
    for name in NOTEBOOKS:
        assert squash(title(name)) in text, f"{name}'s title is not in the PDF's text layer"
        assert squash(title(name)) in first, f"{name} is missing from the table of contents"
    assert "目录" in first


@pytest.mark.browser
def test_pdf_title_page_gives_the_version_the_licences_and_where_to_report_a_problem(pdf):
    from tools.home import issues_url
    from tools.notebooks.pairs import package_version

    first = squash(poppler("pdftotext", "-f", "1", "-l", "1", str(pdf), "-"))
    for want in (f"版本 {package_version()}", "CC BY 4.0", "MIT", "SIL OFL 1.1", issues_url().split("://", 1)[1]):
        assert squash(want) in first, f"the PDF's first page lacks {want!r}"


@pytest.mark.browser
def test_pdf_contents_give_the_page_each_notebook_starts_on_and_its_link_lands_there(pdf):
    from tools.notebooks.pairs import title

    # where each notebook's link (contents, footers, outline) lands: its named destination's page
    dests = dict((name, int(page)) for page, name in re.findall(
        r'^\s*(\d+)\s+\[[^\]]*\]\s+"document-([^"]+)"', poppler("pdfinfo", "-dests", str(pdf)), flags=re.M))
    assert sorted(dests) == sorted(NOTEBOOKS), dests
    contents = [squash(line) for line in poppler("pdftotext", "-layout", "-f", "1", "-l", "2", str(pdf), "-").splitlines()]
    for name in NOTEBOOKS:
        page = dests[name]
        # letters and digits only: the heading's hyphen is not in the text layer (SmolLM2‐135M → SmolLM2135M)
        top = re.sub(r"[\W_]", "", poppler("pdftotext", "-f", str(page), "-l", str(page), str(pdf), "-"))
        assert top.startswith(re.sub(r"[\W_]", "", title(name))), f"{name}'s link lands on page {page}: {top[:40]!r}"
        entry = [line for line in contents if squash(title(name)) in line and line.endswith(str(page))]
        assert entry, f"the contents do not give page {page} for {name}"


@pytest.mark.browser
def test_pdf_fonts_are_embedded_with_the_cjk_font_named(pdf):
    rows = poppler("pdffonts", str(pdf)).splitlines()[2:]
    assert rows
    not_embedded = [r for r in rows if r.split()[-5] != "yes"]
    assert not not_embedded, not_embedded
    assert any("AttnLabSansSC" in r.split()[0] and "TrueType" in r for r in rows), rows[:5]
    # a Type 3 font is Chromium's rendering of a CFF font or of a synthetic bold/italic: unnamed,
    # unsearchable glyph pictures (the print CSS names only TrueType faces and forbids synthesis)
    assert not [r for r in rows if "Type 3" in r], [r for r in rows if "Type 3" in r][:5]


def test_printed_font_covers_every_character_of_the_page(pdf, work):
    from fontTools.ttLib import TTFont

    single = work / "build" / "single"
    cmap = TTFont(single / "_static" / "attnlab-print.ttf").getBestCmap()
    text = Page((single / "index.html").read_text(encoding="utf-8")).text
    han = {ch for ch in text if "\u4e00" <= ch <= "\u9fff"}
    missing = sorted(ch for ch in han if ord(ch) not in cmap)
    assert len(han) > 500 and not missing, f"CJK characters missing from the print font: {''.join(missing[:40])}"


#: the first screen a learner sees on a laptop
FIRST_SCREEN = {"width": 1366, "height": 900}


@pytest.mark.browser
def test_the_first_screen_of_every_notebook_page_shows_the_title_and_the_lessons_first_sentence(site, served):
    base, context, _ = served
    small = context.browser.new_context(viewport=FIRST_SCREEN)
    chromium.only_from(small, base)
    hidden = {}
    for name in NOTEBOOKS:
        p = small.new_page()
        p.goto(f"{base}/{name}.html", wait_until="load")
        found = p.evaluate("""() => {
            const article = document.querySelector('article');
            const title = article.querySelector('h1');
            const goal = [...article.querySelectorAll('h2')].find(h => h.textContent.includes('本篇目标'));
            const first = goal ? goal.nextElementSibling : article.querySelector('h1 ~ p, section p');
            const item = first && (first.querySelector('li') || first);
            const box = (e) => e ? e.getBoundingClientRect() : null;
            return {title: box(title), first: box(item), text: item ? item.textContent.trim().slice(0, 30) : ''};
        }""")
        p.close()
        if not (found["title"] and found["title"]["bottom"] <= FIRST_SCREEN["height"]
                and found["first"] and found["first"]["bottom"] <= FIRST_SCREEN["height"]):
            hidden[name] = found
    small.close()
    assert hidden == {}, hidden


@pytest.mark.browser
def test_the_download_links_return_200_and_a_download_not_built_is_not_linked(site, dist, served):
    """The book's download links resolve after ``make site`` alone, or are absent: the site links
    the downloads dist/ held when it was built (here the zip and the wheel), serves each, and no
    page names the one that was not built (the PDF)."""
    from helpers.real_model import GGUF_NAME
    from tools.site import attnlab_site

    base, context, _ = served
    built = built_downloads(dist)
    assert sorted(built.values()) == sorted(f for f in attnlab_site.downloads().values() if f.endswith((".zip", ".whl")))
    for name in PAGES:
        hrefs = [a.get("href") for a in page(site, name).all("a", **{"class": "attnlab-download"})]
        assert hrefs == [f"downloads/{f}" for f in built.values()], (name, hrefs)
        for href in hrefs if name in ("index", NOTEBOOKS[-1]) else []:
            response = context.request.get(f"{base}/{href}")
            assert response.status == 200 and len(response.body()) > 1000, (name, href, response.status)
        text = (site / f"{name}.html").read_text(encoding="utf-8")
        assert "attention-lab.pdf" not in text and "整本书 PDF" not in text, f"{name} links the PDF, which was not built"
    # site-zip's offline book, and the model file the page 你自己的句子 offers (tests/series/test_sentence_page.py)
    served_files = {p.name for p in (site / "downloads").iterdir()} - {attnlab_site.offline_book(), GGUF_NAME}
    assert sorted(served_files) == sorted(built.values())


def test_the_print_version_links_a_page_only_the_site_has_at_its_address_on_the_site(tmp_path):
    """The PDF has no page 你自己的句子: 09's link to it (a page of the site) must point at the site, or
    Sphinx's singlehtml build stops on the missing target; the site's own build keeps the relative link."""
    from tools.home import home
    from tools.site import build as site_build
    from tools.site.live.sentence import page as sentence_page

    link = f"]({sentence_page.PAGE}.md)"
    stored = (ROOT / "notebooks" / "09_real_model.ipynb").read_text(encoding="utf-8")
    assert link in stored
    printed = (site_build.stage("single", tmp_path / "single") / "09_real_model.ipynb").read_text(encoding="utf-8")
    assert link not in printed and f"]({home()['documentation']}{sentence_page.PAGE}.html)" in printed
    assert len(json.loads(printed)["cells"]) == len(json.loads(stored)["cells"])
    site = (site_build.stage("html", tmp_path / "html") / "09_real_model.ipynb").read_text(encoding="utf-8")
    assert site == stored


def test_without_the_downloads_built_a_page_links_none_of_them_and_the_index_offers_none():
    """``make site`` alone (dist/ empty): each page's line and the index's "在本地运行" link only the
    offline book, which ``make site`` makes; with all three built (the release) every one is linked."""
    from tools.site import attnlab_site
    from tools.site import build as site_build

    def pathto(target, resource=0):
        return target

    line = attnlab_site.actions_html("03_hand_calculation", pathto, present=[])
    assert "attnlab-download" not in line and f"downloads/{attnlab_site.offline_book()}" in line
    local = "\n".join(site_build.local_run_source(present=[]))
    assert re.findall(r'href="downloads/([^"]+)"', local) == [attnlab_site.offline_book()]
    assert "前两条路" in local  # pip and the source; the zip is not offered
    every = list(attnlab_site.downloads().values())
    line = attnlab_site.actions_html("03_hand_calculation", pathto, present=every)
    assert re.findall(r'class="attnlab-download" href="downloads/([^"]+)"', line) == every
    local = "\n".join(site_build.local_run_source(present=every))
    assert set(every) <= set(re.findall(r'href="downloads/([^"]+)"', local)) and "前三条路" in local


def test_every_page_links_the_offline_book_which_the_site_zip_puts_in_downloads(site, work):
    """``make site`` zips the built site and puts the zip in its downloads/, where every page's
    "离线版网页" link points; the zip holds the whole site but not itself."""
    import zipfile

    from tools.site import attnlab_site
    from tools.site.live import site_zip

    for name in ["index", *NOTEBOOKS]:
        links = [a.get("href") for a in page(site, name).all("a", **{"class": "attnlab-offline"})]
        assert links == [f"downloads/{attnlab_site.offline_book()}"], (name, links)
    out = work / "offline" / site_zip.name()
    assert (site / "downloads" / site_zip.name()).read_bytes() == out.read_bytes()
    names = zipfile.ZipFile(out).namelist()
    top = site_zip.name()[:-4]
    assert f"{top}/index.html" in names and f"{top}/downloads/{site_zip.name()}" not in names
